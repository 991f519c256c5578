"""Calibration: find the table in the image, map pixels to table millimetres, meter the light.

Public API:

* :func:`calibrate` (a frame, or a video's first seconds) -> :class:`Calibration`
  (pixels <-> table mm at any height, the distortion, the profile, residuals, quality);
  raises :class:`CalibrationError` with a reason instead of returning a wrong mapping.
* :func:`check` (frame, calibration) -> :class:`CheckResult`: has the camera moved?
* :class:`LightMeter`: lux over the cloth on a grid, under-520-lux and change warnings,
  auto-exposure detection.
* :func:`video_events`: ``calibration`` and ``light`` records (``tracking.Event``) for
  a video.
* :func:`draw_debug`: the picture a person checks at a glance.
* :func:`calibrate_lens` (checkerboard views) -> :class:`Lens`: a fixed camera's lens
  measured once, given to :func:`calibrate` as ``lens=``.
"""

from .camera import CameraModel
from .check import CheckResult, check
from .debug import draw_debug
from .detect import CalibrationError
from .fit import calibrate_image
from .lens import Lens, LensError, calibrate_lens
from .light import MIN_LUX, LightMeter, LightReading
from .result import Calibration
from .video import calibrate, read_frames, video_events

__all__ = [
    "MIN_LUX", "Calibration", "CalibrationError", "CameraModel", "CheckResult", "Lens",
    "LensError", "LightMeter", "LightReading", "calibrate", "calibrate_image",
    "calibrate_lens", "check", "draw_debug", "read_frames", "video_events",
]
