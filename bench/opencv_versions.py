"""The same frames calibrated under two OpenCV releases: does cueref's answer move?

    python bench/opencv_versions.py save --start 0 --n 40 --dir /tmp/frames
    OTHER_VENV/bin/python bench/opencv_versions.py run --dir /tmp/frames --jsonl b.jsonl
    python bench/opencv_versions.py run --dir /tmp/frames --jsonl a.jsonl
    python bench/opencv_versions.py compare a.jsonl b.jsonl

The synthetic world draws its lettering (sponsors on the rails, score graphics, ball
numbers) with OpenCV's ``putText``, whose glyphs change between releases (5.1 against
5.0), so a seed is not the same scene under two releases and the benchmark batches
cannot compare them. Here the frames are rendered once (``save``: lossless PNG, with
the scene's 15 checkerboard views and the truth: the 29 x 15 cloth grid's pixels) and
each release (``run``, in its own environment) measures the lens on those views and
calibrates the frame with it. ``compare``: per scene, whether both trusted it, the
mapping's largest difference between the two over the cloth grid (mm), each one's
error against the truth, and the lens's focal length apart.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_calibration import LENS_VIEWS, cloth_grid  # noqa: E402
from bench.rows import keep_row, read_seed_rows, write_summary  # noqa: E402
from calibration import CalibrationError, LensError, calibrate_image, calibrate_lens  # noqa: E402


def save(start: int, n: int, folder: Path) -> None:
    """Render scenes ``start`` .. ``start + n - 1`` under this OpenCV into ``folder``."""
    from simworld.render import calibration_scene
    from simworld.render.board import checkerboard_views

    folder.mkdir(parents=True, exist_ok=True)
    for seed in range(start, start + n):
        disc, cam, _, img, _ = calibration_scene(seed)
        xy = cloth_grid(disc.table)
        px = cam.project(np.column_stack([xy, np.zeros(len(xy))]))
        cv2.imwrite(str(folder / f"{seed}.png"), img)
        for i, view in enumerate(checkerboard_views(cam, LENS_VIEWS, seed=seed)):
            cv2.imwrite(str(folder / f"{seed}_board{i:02d}.png"), view)
        meta = {"seed": seed, "discipline": disc.name, "table": disc.table.name,
                "opencv": cv2.__version__, "grid_mm": xy.tolist(), "grid_px": px.tolist()}
        (folder / f"{seed}.json").write_text(json.dumps(meta), encoding="utf-8")
        print(f"seed {seed} saved", flush=True)


def run_one(folder: Path, seed: int) -> dict:
    """One saved scene's lens and calibration under this OpenCV."""
    meta = json.loads((folder / f"{seed}.json").read_text(encoding="utf-8"))
    img = cv2.imread(str(folder / f"{seed}.png"))
    views = [cv2.imread(str(p)) for p in sorted(folder.glob(f"{seed}_board*.png"))]
    row = {"seed": seed, "discipline": meta["discipline"], "opencv": cv2.__version__}
    try:
        lens, _ = calibrate_lens(views)
    except LensError as exc:
        return row | {"ok": False, "refused": f"lens: {exc}"}
    row["focal_px"] = float(lens.K[0, 0])
    t0 = time.perf_counter()
    try:
        calib = calibrate_image(img, strict=False, lens=lens)
    except CalibrationError as exc:
        return row | {"ok": False, "refused": str(exc), "time": time.perf_counter() - t0}
    xy, px = np.array(meta["grid_mm"]), np.array(meta["grid_px"])
    mapped = calib.image_to_table(px)
    return row | {"ok": calib.ok, "time": time.perf_counter() - t0, "table": calib.table,
                  "predicted": calib.quality.get("predicted_max_error_mm"),
                  "err_max": float(np.linalg.norm(mapped - xy, axis=1).max()),
                  "mapped": np.round(mapped, 4).tolist()}


def _fmt(v: float | None, spec: str = ".3f") -> str:
    return "-" if v is None else format(v, spec)


def compare(a: list[dict], b: list[dict]) -> str:
    """The two runs side by side, scene by scene."""
    other = {r["seed"]: r for r in b}
    va, vb = a[0]["opencv"], b[0]["opencv"]
    lines = [f"# The same frames under OpenCV {va} and {vb}", "",
             "Made by `bench/opencv_versions.py` (frames rendered once, lossless; each "
             "release measures the lens on the saved board views and calibrates).", "",
             f"| seed | discipline | trusted {va} / {vb} | error {va} (mm) | "
             f"error {vb} (mm) | mappings apart (mm) | focal apart (px) |",
             "|---|---|---|---|---|---|---|"]
    same, apart, focal = 0, [], []
    for ra in a:
        rb = other.get(ra["seed"])
        if rb is None:
            continue
        same += ra.get("ok") == rb.get("ok")
        d = f = None
        if "mapped" in ra and "mapped" in rb:
            d = float(np.linalg.norm(np.array(ra["mapped"]) - np.array(rb["mapped"]),
                                     axis=1).max())
            apart.append(d)
        if "focal_px" in ra and "focal_px" in rb:
            f = abs(ra["focal_px"] - rb["focal_px"])
            focal.append(f)

        lines.append(f"| {ra['seed']} | {ra['discipline']} | {ra.get('ok')} / {rb.get('ok')} "
                     f"| {_fmt(ra.get('err_max'))} | {_fmt(rb.get('err_max'))} | {_fmt(d, '.4f')} "
                     f"| {_fmt(f, '.4f')} |")
    n = sum(r["seed"] in other for r in a)
    lines[4:4] = [f"- scenes: {n}; the same outcome (trusted or not) in {same}",
                  f"- mappings apart over the cloth grid: median "
                  f"{np.median(apart) if apart else float('nan'):.4f} mm, largest "
                  f"{max(apart, default=float('nan')):.4f} mm (both calibrated: {len(apart)})",
                  f"- lens focal lengths apart: median "
                  f"{np.median(focal) if focal else float('nan'):.4f} px, largest "
                  f"{max(focal, default=float('nan')):.4f} px", ""]
    return "\n".join(lines) + "\n"


def default_out(version_a: str, version_b: str) -> str:
    """The summary's file for two releases: ``opencv_versions_5.0_5.1.md``."""
    def minor(v: str) -> str:
        return ".".join(v.split(".")[:2])
    return f"docs/bench/opencv_versions_{minor(version_a)}_{minor(version_b)}.md"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("save", help="render scenes and their board views into a folder")
    s.add_argument("--start", type=int, default=0)
    s.add_argument("--n", type=int, default=40)
    s.add_argument("--dir", type=Path, required=True)
    r = sub.add_parser("run", help="measure the lens and calibrate each saved scene")
    r.add_argument("--dir", type=Path, required=True)
    r.add_argument("--jsonl", required=True, help="the rows, one per scene")
    c = sub.add_parser("compare", help="two runs' rows side by side")
    c.add_argument("a")
    c.add_argument("b")
    c.add_argument("--out", help="default: docs/bench/opencv_versions_A_B.md, A and B "
                   "the two runs' OpenCV releases (major.minor)")
    args = ap.parse_args()
    if args.cmd == "save":
        save(args.start, args.n, args.dir)
    elif args.cmd == "run":
        seeds = sorted(int(p.stem) for p in args.dir.glob("*.json"))
        if not seeds:
            ap.error(f"no saved scenes in {args.dir}")
        done = {row["seed"] for row in read_seed_rows([args.jsonl])} \
            if Path(args.jsonl).exists() else set()
        for seed in seeds:
            if seed in done:
                continue
            row = run_one(args.dir, seed)
            keep_row(args.jsonl, row)
            print(f"seed {seed}: ok={row.get('ok')} err={row.get('err_max', float('nan')):.3f}"
                  f" mm (OpenCV {row['opencv']})", flush=True)
    else:
        a, b = read_seed_rows([args.a]), read_seed_rows([args.b])
        if not a or not b:
            ap.error(f"no rows in {args.a if not a else args.b}")
        out = args.out or default_out(a[0]["opencv"], b[0]["opencv"])
        write_summary(out, compare(a, b), len(a))
    return 0


if __name__ == "__main__":
    sys.exit(main())
