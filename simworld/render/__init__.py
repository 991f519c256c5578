"""The renderer: films a trajectory or a layout as a real overhead camera would, and
writes the exact per-frame truth (docs/renderer.md)."""

import warnings

import cv2

from .api import (
    BALL_LAYOUTS,
    BROADCAST_KINDS,
    broadcast_scene,
    calibration_scene,
    random_setup,
    render_still,
    render_video,
    scene_discipline,
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
    "scene_discipline", "sights_as_drawn", "truth_path",
]

#: the OpenCV release the world was made with: its ``putText`` draws the lettering
#: (sponsors on the rails, score graphics, ball numbers), and other releases draw other
#: glyphs (5.1's differ from 5.0's), so a seed would not be the scene that the tests and
#: benchmark figures were made on. cueref itself does not depend on it
#: (docs/calibration.md, "OpenCV releases")
WORLD_OPENCV = "5.0"

if not cv2.__version__.startswith(WORLD_OPENCV + "."):
    warnings.warn(f"simworld.render: OpenCV {cv2.__version__} draws text unlike "
                  f"{WORLD_OPENCV}, which the synthetic world was made with: scenes with "
                  f"lettering differ from the tests' and benchmarks' "
                  f"(pip install 'opencv-python-headless==5.0.0.93')", stacklevel=2)
