"""Measure a fixed camera's lens once, from views of a printed checkerboard.

Hold the board (PATTERN inner corners, SQUARE mm squares, a white margin round it)
still at a dozen places and angles in front of the camera, corners of the frame
included, and give the pictures or a video of it. The lens (focal length, principal
point, distortion, and how well each is known) is written as JSON for
``cueref calibrate --lens`` and ``cueref referee --lens``: it pins what one frame of the
table cannot (the height of a near-vertical camera, the principal point). Measure again
after turning the zoom or focus ring.
"""

from __future__ import annotations

import argparse
import sys

NAME = "lens"
HELP = "checkerboard images/video -> lens.json: focal length, principal point, distortion"
ORDER = 12


def parse_pattern(text: str) -> tuple[int, int]:
    """``9x6`` -> (9, 6): inner corners across and down."""
    try:
        a, b = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"--pattern must look like 9x6 (inner corners); got {text!r}") from None
    if a < 3 or b < 3:
        raise ValueError(f"--pattern needs at least 3x3 inner corners; got {text!r}")
    return a, b


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("sources", nargs="+", metavar="IMAGE_OR_VIDEO",
                   help="pictures of the board, or videos (a frame every --every seconds)")
    p.add_argument("--pattern", default="9x6", help="inner corners across x down (default 9x6)")
    p.add_argument("--square", type=float, default=40.0, metavar="MM",
                   help="side of one square in mm (default 40)")
    p.add_argument("--every", type=float, default=0.5, metavar="S",
                   help="from a video, one frame every S seconds (default 0.5)")
    p.add_argument("-o", "--output", required=True, help="lens JSON to write")


def run(args: argparse.Namespace) -> int:
    from calibration import read_frames
    from calibration.lens import calibrate_lens
    from equipment.files import check_writable

    check_writable(args.output)
    pattern = parse_pattern(args.pattern)
    if not args.square > 0:
        raise ValueError(f"--square must be positive (mm); got {args.square}")
    if not args.every > 0:
        raise ValueError(f"--every must be positive (s); got {args.every}")
    frames, names = [], []
    for src in args.sources:
        for t, _, frame in read_frames(src, step_s=args.every):
            frames.append(frame)
            names.append(f"{src}" + (f" at {t:.1f} s" if t else ""))

    def progress(k: int, found: bool) -> None:
        print(f"  [{k}/{len(frames)}] {names[k - 1]}: {'board' if found else 'no board'}",
              file=sys.stderr, flush=True)

    print(f"looking for the {pattern[0]}x{pattern[1]} board in {len(frames)} frame(s) ...",
          file=sys.stderr)
    lens, _ = calibrate_lens(frames, pattern, args.square, progress=progress)
    lens.save(args.output)
    sd = lens.sd
    print(f"{lens.size[0]}x{lens.size[1]}: focal length {lens.K[0, 0]:.1f} +- {sd[0]:.1f} px, "
          f"principal point ({lens.K[0, 2]:.1f}, {lens.K[1, 2]:.1f}) +- {sd[1]:.1f} px, "
          f"k1 {lens.dist[0]:.4f}, k2 {lens.dist[1]:.4f}; {lens.views} views, "
          f"{lens.rms_px:.2f} px RMS -> {args.output}", file=sys.stderr)
    return 0
