"""Camera properties given by hand, shared by the commands that calibrate."""

from __future__ import annotations

import argparse
from typing import Any


def add_camera_arguments(p: argparse.ArgumentParser) -> None:
    """``--camera-height``, ``--lens`` and ``--gamma``: what the frame cannot tell about
    the camera."""
    p.add_argument("--camera-height", type=float, metavar="MM",
                   help="the lens's height above the cloth, measured at installation: "
                        "pins the cloth plane of a near-vertical view, whose height the "
                        "image hardly shows")
    p.add_argument("--lens", metavar="LENS_JSON",
                   help="the lens measured once with a checkerboard (`cueref lens`): "
                        "pins the focal length, principal point and distortion")
    p.add_argument("--gamma", type=float, metavar="G",
                   help="the camera's output curve, code = linear ** (1/G), for the light "
                        "meter (default: the sRGB curve; cueref's rendered clips: 2.2)")


def camera_gamma(args: argparse.Namespace) -> float | None:
    """``--gamma``, checked."""
    g = args.gamma
    if g is not None and not 1.0 <= g <= 3.0:
        raise ValueError(f"--gamma must be a power between 1 and 3 (2.2 is usual); got {g}")
    return g


def camera_height(args: argparse.Namespace) -> dict[str, Any]:
    """``--camera-height`` (and ``--camera-height-sd`` where the command has it) as the
    keyword arguments of ``calibration.calibrate``."""
    sd = getattr(args, "camera_height_sd", None)
    if args.camera_height is None:
        if sd is not None:
            raise ValueError("--camera-height-sd needs --camera-height")
        return {}
    return {"camera_height": args.camera_height,
            **({} if sd is None else {"camera_height_sd": sd})}


def camera_lens(args: argparse.Namespace):
    """``--lens``, loaded (a missing or bad file is a clear error), or None."""
    if not getattr(args, "lens", None):
        return None
    from calibration.lens import Lens

    return Lens.load(args.lens)
