"""Find the table in an image or a video's first seconds and map pixels to table mm.

Writes the mapping (camera pose, focal length, radial distortion), the table profile,
the residual at every diamond found and a quality figure as JSON. A frame that shows
no table, or a fit that fails its own checks, is refused with the reason (exit 2);
``--debug`` still draws what was found so a person can see why.
"""

from __future__ import annotations

import argparse
import sys

from ._camera import add_camera_arguments, camera_gamma, camera_height, camera_lens

NAME = "calibrate"
HELP = "image/video -> calib.json: table, pixel->mm mapping, distortion, quality, light"
ORDER = 10


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("source", metavar="VIDEO_OR_IMAGE", help="an image or a video file")
    p.add_argument("--table", metavar="PROFILE",
                   help="table profile to check against (default: chosen from the view)")
    p.add_argument("-o", "--output", required=True, help="calibration JSON to write")
    p.add_argument("--debug", metavar="PNG", help="picture of what was found over the frame")
    p.add_argument("--corners", metavar="X1,Y1,...,X4,Y4",
                   help="manual fallback: the playing surface's corners in px, where "
                        "the cushion noses meet, head-left, foot-left, foot-right, "
                        "head-right")
    p.add_argument("--lux", type=float, metavar="LUX",
                   help="one lux-meter reading (mean over the cloth) taken with this frame: "
                        "calibrates the light meter (fixed-exposure cameras only)")
    p.add_argument("--vignette", type=float, default=0.0, metavar="V",
                   help="the lens's known brightness fall-off at the frame corners (0-0.6)")
    add_camera_arguments(p)
    p.add_argument("--camera-height-sd", type=float, default=None, metavar="MM",
                   help="how far off that measurement may be (1 sigma, default 50 mm)")
    p.add_argument("--seconds", type=float, default=3.0,
                   help="how much of a video to try (default 3 s)")


def run(args: argparse.Namespace) -> int:
    import cv2

    from calibration import CalibrationError, LightMeter, calibrate, draw_debug, read_frames
    from calibration.manual import parse_corners
    from equipment.files import atomic_path, check_writable
    from equipment.tables import get_table

    check_writable(args.output)
    if args.debug:
        check_writable(args.debug)
    if args.table:
        get_table(args.table)
    corners = parse_corners(args.corners) if args.corners else None
    if args.lux is not None and not args.lux > 0:
        raise ValueError(f"--lux must be a positive reading in lux; got {args.lux}")
    gamma = camera_gamma(args)
    if not 0.0 <= args.vignette <= 0.6:
        raise ValueError(f"--vignette must be within 0-0.6; got {args.vignette}")
    height = camera_height(args)
    lens = camera_lens(args)
    _, _, frame = next(read_frames(args.source))
    calib = calibrate(args.source, args.table, corners, seconds=args.seconds,
                      strict=False, lens=lens, **height)
    light = ""
    try:
        if calib.ok and args.lux is not None:  # the lamps are fitted too (photometry)
            meter = LightMeter(calib, vignette=args.vignette, gamma=gamma)
            meter.reference(frame, args.lux)
            r = meter.measure(frame)
            calib.photometry["reading"] = r.record()
            light = (f"; light min {r.lux_min:.0f} lux, mean {r.lux_mean:.0f} lux, "
                     f"uniformity {r.uniformity:.2f}")
            calib.warnings.extend(r.warnings)
    finally:  # what was found is drawn even when the light cannot be read
        if args.debug:
            with atomic_path(args.debug) as tmp:
                if not cv2.imwrite(str(tmp), draw_debug(frame, calib)):
                    raise OSError(f"cannot write {args.debug}")
    if not calib.ok:
        raise CalibrationError("calibration not trusted: "
                               + "; ".join(calib.quality.get("reasons", [])))
    calib.save(args.output)
    q = calib.quality
    print(f"{calib.table}: {q.get('diamonds_found', 0)} diamonds, rms "
          f"{q.get('diamond_rms_mm', '-')} mm, predicted max error "
          f"{q.get('predicted_max_error_mm') or '-'} mm (at the balls' centres "
          f"{q.get('predicted_ball_error_mm') or '-'} mm){light} -> {args.output}",
          file=sys.stderr)
    for w in calib.warnings:
        print(f"cueref calibrate: warning: {w}", file=sys.stderr)
    return 0
