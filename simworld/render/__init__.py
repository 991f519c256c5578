"""The renderer: films a trajectory or a layout as a real overhead camera would, and
writes the exact per-frame truth (docs/renderer.md)."""

from .api import (
    BALL_LAYOUTS,
    BROADCAST_KINDS,
    broadcast_scene,
    calibration_scene,
    random_setup,
    render_still,
    render_video,
    sights_as_drawn,
    truth_path,
)
from .camera import Camera, default_camera, make_camera, random_camera
from .look import CLOTHS, Lamp, Look, random_look
from .truth import FrameTruth, ObjectTruth

__all__ = [
    "BALL_LAYOUTS", "BROADCAST_KINDS", "CLOTHS", "Camera", "FrameTruth", "Lamp", "Look",
    "ObjectTruth", "broadcast_scene", "calibration_scene", "default_camera", "make_camera",
    "random_camera", "random_look", "random_setup", "render_still", "render_video",
    "sights_as_drawn", "truth_path",
]
