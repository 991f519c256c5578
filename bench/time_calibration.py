"""Time the calibration of a few benchmark scenes, warm, each several times.

    python bench/time_calibration.py SEED [SEED ...] [--repeat 3]

``bench_calibration.py --start S --n 1`` times a scene's frame in a fresh process,
whose first calibration also pays one-time costs (OpenCV's and NumPy's first calls).
Here one calibration warms the process first, then each scene's frame is calibrated
``--repeat`` times (unaided) and the median is printed: the figure to compare two
commits by, run one after the other on the same machine (this machine is shared, and
its speed changes from day to day).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration import calibrate_image  # noqa: E402
from calibration.detect import CalibrationError  # noqa: E402
from simworld.render import calibration_scene  # noqa: E402


def seconds(img) -> float:
    t0 = time.perf_counter()
    try:
        calibrate_image(img, strict=False)
    except CalibrationError:
        pass  # a refusal takes its time too
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("seeds", type=int, nargs="+")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    frames = {s: calibration_scene(s)[3] for s in args.seeds}
    seconds(frames[args.seeds[0]])  # warm up
    for seed, img in frames.items():
        runs = sorted(seconds(img) for _ in range(args.repeat))
        print(f"seed {seed} ({img.shape[1]}x{img.shape[0]}): median {runs[len(runs) // 2]:.2f} s"
              f" of {args.repeat} ({', '.join(f'{t:.2f}' for t in runs)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
