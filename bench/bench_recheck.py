"""Benchmark the once-a-second re-check (``calibration.check``) on rendered scenes.

    python bench/bench_recheck.py [--n 200] [--out docs/bench/recheck.md]

Each scene of the calibration benchmark (``simworld.render.calibration_scene``) is
calibrated unaided; where the calibration is trusted, the re-check is asked about:

* the very frame it was calibrated on: it must say ``ok`` (anything else is a false
  alarm, raised every second of a match);
* the frame moved by a small bump of the camera, 4 px right and 3 px down (5 px: at
  least 8 mm on the rail plane at the benchmark's finest scale, about 0.6 px/mm, far
  over the 2.5 mm at which the view counts as moved): it must say ``moved`` (or
  ``lost``);
* the frame moved 1 px right: 1.7 mm at the finest scale, 4 mm at the coarsest, so
  either answer may be right; the shift the re-check measured is listed beside what
  1 px is at the table's centre.

Time per re-check is reported too (the frame it was calibrated on).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.rows import add_row_options, seed_rows, write_summary  # noqa: E402
from calibration import calibrate_image, check  # noqa: E402
from calibration.check import MOVED_MM  # noqa: E402
from calibration.detect import CalibrationError  # noqa: E402
from simworld.render import calibration_scene  # noqa: E402

BUMP_PX = (4, 3)  # the camera bumped: the frame moved this much (right, down)


def _shifted(img: np.ndarray, dx: float, dy: float) -> np.ndarray:
    m = np.float32([[1, 0, dx], [0, 1, dy]])
    return cv2.warpAffine(img, m, (img.shape[1], img.shape[0]),
                          borderMode=cv2.BORDER_REPLICATE)


def evaluate(seed: int) -> dict:
    """One scene's row: the calibration's verdict, then the re-check's three answers."""
    disc, cam, _, img, _ = calibration_scene(seed)
    row = {"seed": seed, "discipline": disc.name, "size": [img.shape[1], img.shape[0]]}
    try:
        calib = calibrate_image(img, strict=False)
    except CalibrationError as exc:
        row.update(calibrated=False, refused=str(exc))
        return row
    row.update(calibrated=calib.ok, sights=calib.sights, grain=calib.grain,
               lettering=calib.lettering)
    if not calib.ok:
        return row
    t0 = time.perf_counter()
    same = check(img, calib)
    row["time"] = time.perf_counter() - t0
    bumped = check(_shifted(img, *BUMP_PX), calib)
    nudged = check(_shifted(img, 1, 0), calib)
    # what 1 px is on the rail plane at the table's centre (the renderer's camera)
    centre = np.array([[disc.table.length / 2, disc.table.width / 2,
                        disc.table.rail_top_height]])
    a = cam.project(centre)[0]
    b = cam.project(centre + [[10.0, 0.0, 0.0]])[0]
    row.update(
        same=same.status, same_shift=same.shift_mm, same_seen=same.diamonds_seen,
        expected=len(disc.table.diamonds), same_edge=same.edge_agreement,
        bumped=bumped.status, bumped_shift=bumped.shift_mm,
        nudged=nudged.status, nudged_shift=nudged.shift_mm,
        px_per_mm=float(np.linalg.norm(b - a) / 10.0))
    return row


def summarise(rows: list[dict], label: str = "") -> str:
    ok = [r for r in rows if r.get("calibrated")]
    false_alarm = [r for r in ok if r["same"] != "ok"]
    missed = [r for r in ok if r["bumped"] == "ok"]
    nudged_moved = [r for r in ok if r["nudged"] != "ok"]
    times = np.array([r["time"] for r in ok]) if ok else np.array([np.nan])
    seen = np.array([r["same_seen"] / r["expected"] for r in ok]) if ok else np.array([np.nan])
    shifts = np.array([r["same_shift"] for r in ok if r["same_shift"] is not None])

    def seeds(rs):
        return ", ".join(str(r["seed"]) for r in rs) or "none"

    lines = [
        "# Re-check benchmark (`bench/bench_recheck.py`)", "",
        *([label, ""] if label else []),
        f"{len(rows)} scenes (seeds {min(r['seed'] for r in rows)}-"
        f"{max(r['seed'] for r in rows)}) of the calibration benchmark, calibrated "
        f"unaided; {len(ok)} trusted, and re-checked:", "",
        "| figure | target | result |", "|---|---|---|",
        f"| the frame it was calibrated on: `ok` | all | {len(ok) - len(false_alarm)} of "
        f"{len(ok)} (false alarms: {seeds(false_alarm)}) |",
        f"| bumped {BUMP_PX[0]} px right, {BUMP_PX[1]} px down: `moved` or `lost` | all | "
        f"{len(ok) - len(missed)} of {len(ok)} (missed: {seeds(missed)}) |",
        f"| nudged 1 px right: `moved` | either | {len(nudged_moved)} of {len(ok)} |",
        f"| diamonds seen on the frame it was calibrated on, median / min share | | "
        f"{np.median(seen):.0%} / {np.min(seen):.0%} |",
        f"| median shift measured there, median / max (mm) | < 2.5 | "
        f"{np.median(shifts):.2f} / {np.max(shifts):.2f} |" if len(shifts) else
        "| median shift measured there | < 2.5 | none measured |",
        f"| time per re-check, median / max | | {np.median(times) * 1000:.0f} / "
        f"{np.max(times) * 1000:.0f} ms |", "",
    ]
    # the 1 px nudge: what the re-check measured against what 1 px is (table centre)
    true = np.array([1.0 / r["px_per_mm"] for r in ok])
    measured = np.array([np.nan if r["nudged_shift"] is None else r["nudged_shift"]
                         for r in ok])
    called = np.array([r["nudged"] != "ok" for r in ok])
    over = true > MOVED_MM
    ratio = measured / true
    lines += [
        f"The 1 px nudge, against what 1 px is on the rail plane at the table's centre "
        f"({np.min(true):.2f}-{np.max(true):.2f} mm here; `moved` is over "
        f"{MOVED_MM} mm):", "",
        "| figure | result |", "|---|---|",
        f"| 1 px over {MOVED_MM} mm: called moved | {int((called & over).sum())} of "
        f"{int(over.sum())} |",
        f"| 1 px under {MOVED_MM} mm: called moved | {int((called & ~over).sum())} of "
        f"{int((~over).sum())} |",
        f"| shift measured / 1 px, median (min-max) | {np.nanmedian(ratio):.2f} "
        f"({np.nanmin(ratio):.2f}-{np.nanmax(ratio):.2f}) |", ""]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--start", type=int, default=0)
    add_row_options(ap, "docs/bench/recheck.md")
    args = ap.parse_args()
    rows = seed_rows(args, evaluate,
                     lambda r: f"seed {r['seed']}: calibrated={r.get('calibrated')} "
                     f"same={r.get('same')} bumped={r.get('bumped')}")
    write_summary(args.out, summarise(rows, args.label), len(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
