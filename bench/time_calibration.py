"""Time the calibration of benchmark scenes, warm, each several times.

    python bench/time_calibration.py SEED [SEED ...] [--repeat 3]
    python bench/time_calibration.py 2 10 --broadcast side
    python bench/time_calibration.py --start 1000 --n 200 --width 1920 --repeat 1 \
        --out docs/bench/time_calibration_1000_1199.md

``bench_calibration.py --start S --n 1`` times a scene's frame in a fresh process,
whose first calibration also pays one-time costs (OpenCV's and NumPy's first calls).
Here one calibration warms the process first, then each scene's frame is calibrated
``--repeat`` times (unaided, but for ``--lens``) and the median is printed: the figure
to compare two commits by, run one after the other on the same machine (this machine
is shared, and its speed changes from day to day). ``--start``/``--n`` take a range of scenes
(``--width``: only those rendered that many px across) and end with the range's
median, 90th percentile and slowest frames, and how many took 2 s or more: the
issue's target is under 2 s for a 1920x1080 frame. Run it alone on the machine.
``--cpu`` times the process's CPU seconds instead (its threads summed): steadier than
the wall clock when others share the machine, to compare two commits by; the target
is in wall seconds. ``--lens``: each scene's lens is measured first, as
``bench_calibration.py --lens`` does (not timed), and given to the calibration.
``--against REV``: the calibration package of git revision REV (``calibration/`` alone,
unpacked beside this one) and this checkout's, called in turn on each frame, ``--repeat``
times each after a warm-up of both, in one process: both meet the same load, so their
ratio holds on a machine whose speed changes from hour to hour (the wall clock of two
runs one after the other does not). Prints each frame's medians and their ratio.
"""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_calibration import LENS_VIEWS  # noqa: E402
from calibration import calibrate_image  # noqa: E402
from calibration.detect import CalibrationError  # noqa: E402
from calibration.lens import calibrate_lens  # noqa: E402
from simworld.render import BROADCAST_KINDS, broadcast_scene, calibration_scene  # noqa: E402
from simworld.render.board import checkerboard_views  # noqa: E402

TARGET_S = 2.0


def seconds(img, clock=time.perf_counter, lens=None, package=None) -> float:
    """Seconds to calibrate ``img`` (``package``: another calibration package's
    ``calibrate_image``, for ``--against``)."""
    calibrate = calibrate_image if package is None else package.calibrate_image
    refused = CalibrationError if package is None else package.detect.CalibrationError
    t0 = clock()
    try:
        calibrate(img, strict=False, lens=lens)
    except refused:
        pass  # a refusal takes its time too
    return clock() - t0


def package_at(rev: str, into: Path):
    """The calibration package of git revision ``rev``, imported as
    ``calibration_against`` from ``into`` (its imports are relative, but for the
    project's other packages, which come from this checkout)."""
    root = Path(__file__).resolve().parents[1]
    tar = subprocess.run(["git", "archive", rev, "calibration"], cwd=root, check=True,
                         capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=tar, check=True)
    (into / "calibration").rename(into / "calibration_against")
    sys.path.insert(0, str(into))
    return importlib.import_module("calibration_against")


def against(seeds: list[int], rev: str, repeat: int, use_lens: bool, width: int | None
            ) -> int:
    """``--against``: REV's calibration and this one's in turn on each frame."""
    with tempfile.TemporaryDirectory() as tmp:
        other = package_at(rev, Path(tmp))
        other_calibrate_lens = importlib.import_module("calibration_against.lens").calibrate_lens
        ratios = []
        for seed in seeds:
            _, cam, _, img, _ = calibration_scene(seed)
            if width and img.shape[1] != width:
                continue
            lens = other_lens = None
            if use_lens:
                views = checkerboard_views(cam, LENS_VIEWS, seed=seed)
                lens, _ = calibrate_lens(views)
                other_lens, _ = other_calibrate_lens(views)
            seconds(img, lens=lens)
            seconds(img, lens=other_lens, package=other)
            this_t, other_t = [], []
            for i in range(repeat):  # each goes first every other time
                for first in ((0, 1) if i % 2 else (1, 0)):
                    if first:
                        other_t.append(seconds(img, lens=other_lens, package=other))
                    else:
                        this_t.append(seconds(img, lens=lens))
            ratio = float(np.median(this_t) / np.median(other_t))
            ratios.append(ratio)
            print(f"seed {seed} ({img.shape[1]}x{img.shape[0]}): {rev} median "
                  f"{np.median(other_t):.2f} s, this checkout {np.median(this_t):.2f} s, "
                  f"ratio {ratio:.2f}", flush=True)
    if not ratios:
        print("no frame of that width in the scenes given")
        return 1
    print(f"- ratio of medians (this checkout / {rev}) over {len(ratios)} frames: median "
          f"{np.median(ratios):.2f}, range {min(ratios):.2f}-{max(ratios):.2f}")
    return 0


def summary(times: dict[int, float]) -> list[str]:
    """Markdown lines: the median, 90th percentile and worst of the frames' times."""
    t = np.array(list(times.values()))
    slow = sorted(times, key=times.get, reverse=True)[:5]
    return [
        f"- frames: {len(t)}",
        f"- median: {np.median(t):.2f} s; 90th percentile: {np.percentile(t, 90):.2f} s; "
        f"slowest: {', '.join(f'{s} ({times[s]:.2f} s)' for s in slow)}",
        f"- {TARGET_S:.0f} s or more: {int((t >= TARGET_S).sum())} of {len(t)}",
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("seeds", type=int, nargs="*")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--start", type=int, help="first scene of a range")
    ap.add_argument("--n", type=int, default=0, help="scenes in the range")
    ap.add_argument("--width", type=int, help="only frames this many px across")
    ap.add_argument("--out", type=Path, help="markdown summary of a range")
    ap.add_argument("--cpu", action="store_true",
                    help="CPU seconds of the process instead of the wall clock")
    ap.add_argument("--lens", action="store_true",
                    help="measure each scene's lens first (not timed) and give it")
    ap.add_argument("--against", metavar="REV",
                    help="alternate with the calibration package of git revision REV")
    ap.add_argument("--broadcast", metavar="KIND", choices=BROADCAST_KINDS,
                    help="seeds of bench_broadcast.py's framing KIND instead")
    args = ap.parse_args()
    if args.broadcast and args.against:
        ap.error("--broadcast and --against do not go together")
    clock = time.process_time if args.cpu else time.perf_counter
    seeds = list(args.seeds)
    if args.start is not None:
        seeds += range(args.start, args.start + args.n)
    if not seeds:
        ap.error("give scene seeds, or --start and --n")
    if args.against:
        return against(seeds, args.against, args.repeat, args.lens, args.width)
    times: dict[int, float] = {}
    warm = False
    for seed in seeds:
        _, cam, _, img, _ = (broadcast_scene(args.broadcast, seed) if args.broadcast
                             else calibration_scene(seed))
        if args.width and img.shape[1] != args.width:
            continue
        lens = None
        if args.lens:
            lens, _ = calibrate_lens(checkerboard_views(cam, LENS_VIEWS, seed=seed))
        if not warm:
            seconds(img, clock, lens)
            warm = True
        runs = sorted(seconds(img, clock, lens) for _ in range(args.repeat))
        times[seed] = runs[len(runs) // 2]
        print(f"seed {seed} ({img.shape[1]}x{img.shape[0]}): median {times[seed]:.2f} s"
              f" of {args.repeat} ({', '.join(f'{t:.2f}' for t in runs)})", flush=True)
    if not times:
        print("no frame of that width in the scenes given")
        return 1
    lines = summary(times)
    print("\n".join(lines))
    if args.out:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, cwd=Path(__file__).resolve().parents[1]).stdout.strip()
        args.out.write_text(
            f"# Calibration {'CPU ' if args.cpu else ''}time, warm, "
            f"{'lens measured' if args.lens else 'unaided'} (commit {commit})\n\n"
            f"`python bench/time_calibration.py {' '.join(sys.argv[1:])}`: each frame "
            f"calibrated {args.repeat} time(s) after a warm-up, the median kept; alone on "
            "the shared 2-core machine.\n\n" + "\n".join(lines) + "\n\n"
            "| seed | seconds |\n|---|---|\n"
            + "".join(f"| {s} | {t:.2f} |\n" for s, t in times.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
