"""The manual fallback: four playing-surface corners given by hand.

Order: head-left, foot-left, foot-right, head-right: the corners of the rectangle of
the cushion noses (the playing surface's edge), where the noses of two cushions meet,
at the cushions' height above the cloth. The corners give a homography of the noses'
plane; the pose follows from it (the focal length from the measured lens, else from
the perspective, or a prior when the view is frontal). When the diamonds can then be
found, the automatic fit refines it and its self-check says how far to trust it.
"""

from __future__ import annotations

import cv2
import numpy as np

from equipment.tables import get_table

from .camera import CameraModel, camera_matrix
from .detect import CalibrationError
from .result import Calibration

#: the diamonds' fit may move a hand-given corner by this much (mm) and no more: a
#: click a few pixels off moves it a few mm; a fit on the wrong blobs, far more
MAX_CORNER_MOVE_MM = 60.0
#: with the lens measured the pose has six unknowns: this many diamonds refine it (the
#: self-check then says how far; unaided, ``fit.MIN_FOUND`` of the table's, as the
#: automatic fit asks)
MIN_WITH_LENS = 6


def parse_corners(text: str) -> np.ndarray:
    """``x1,y1,...,x4,y4`` -> (4, 2) array; a clear error names what is wrong."""
    try:
        vals = [float(v) for v in text.replace(" ", "").split(",") if v != ""]
    except ValueError:
        raise ValueError(f"--corners must be 8 numbers x1,y1,...,x4,y4; got {text!r}") from None
    if len(vals) != 8:
        raise ValueError(f"--corners must be 8 numbers x1,y1,...,x4,y4; got {len(vals)}")
    return np.array(vals).reshape(4, 2)


def calibrate_from_corners(image: np.ndarray, corners, table_name: str,
                           lens=None) -> Calibration:
    """The pose from four hand-given corners, refined on the diamonds when they are
    found where the corners say. ``lens``: a measured lens (calibration.lens) for the
    focal length and distortion the corners alone cannot give."""
    from .diamonds import table_corners
    from .fit import (
        diamonds_seen,
        focal_from_homography,
        max_predicted_mm,
        pose_from_homography,
    )
    table = get_table(table_name)
    h, w = image.shape[:2]
    size = (w, h)
    px = np.asarray(corners, float).reshape(4, 2)
    if np.any(px < -0.5 * w) or np.any(px > 1.5 * max(w, h)):
        raise ValueError("--corners lie far outside the image")
    x, y = px[:, 0], px[:, 1]
    area = 0.5 * np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y)
    if area <= 0:
        raise ValueError("--corners must be head-left, foot-left, foot-right, head-right "
                         "(clockwise on screen); these run the other way or are degenerate")
    ideal = px
    if lens is not None:  # the homography is of the ideal (undistorted) image
        ideal = cv2.undistortPoints(px.reshape(-1, 1, 2), lens.K, lens.dist,
                                    P=lens.K).reshape(-1, 2)
    H, _ = cv2.findHomography(table_corners(table), ideal)
    if H is None:
        raise CalibrationError("--corners do not define a table (degenerate quadrilateral)")
    if lens is not None:
        f, K, dist = float(lens.K[0, 0]), lens.K, lens.dist
    else:
        f = focal_from_homography(H, size) or 1.2 * w
        K, dist = camera_matrix(f, size), np.zeros(5)
    # the corners are the noses' (what a person sees as the playing surface's edge from
    # above), a cushion's height over the cloth: taken on the cloth, a tilted view's map
    # was 20-45 mm off
    rvec, tvec = pose_from_homography(H, K, -table.cushion_height)
    cam = CameraModel(K, dist, rvec, tvec, size)
    note = "four corners given by hand; " + ("the lens measured" if lens is not None
                                            else "no distortion")
    calib = Calibration(table=table.name, camera=cam, method="corners",
                        quality={"ok": True, "diamonds_found": 0,
                                 "diamonds_expected": len(table.diamonds), "reasons": [],
                                 "note": note},
                        warnings=["calibrated from hand-given corners"], lens=lens)
    # refine with the diamonds when they can be found near where the corners say: each
    # kind of sight is looked for, and the set whose fit sits best is kept (a dark
    # search can "find" as many blobs in light wood's grain, none of them a diamond)
    try:
        best = _refined_on_diamonds(image, table, cam, px, f, lens)
    except (np.linalg.LinAlgError, ValueError, cv2.error):
        best = None
    if best is not None:
        cam2, prob, rms, sights, (pred, pred_ball), residuals = best
        calib.camera, calib.sights = cam2, sights
        calib.diamonds_px = diamonds_seen(table, prob)
        calib.residuals = residuals
        calib.quality.update({"diamonds_found": len(prob.d_idx),
                              "diamond_rms_mm": round(rms, 3),
                              "predicted_max_error_mm": round(pred, 3),
                              "predicted_ball_error_mm": round(pred_ball, 3),
                              "note": "hand-given corners refined on the diamonds"})
        bar = max_predicted_mm(lens is not None)
        if pred > bar:
            calib.warnings.append(
                f"the diamonds found near the corners hold the map to {pred:.1f} mm only "
                f"(predicted, over the {bar} mm bar)" + (
                    ": without the lens they pin its focal length and distortion loosely;"
                    " measure the lens once (cueref lens) and give it with --lens"
                    if lens is None else ": check them in --debug"))
    elif lens is None:
        calib.warnings.append(
            "the corners could not be refined on the diamonds, and with no lens given its "
            "distortion is taken as none: toward the cushions the map can be centimetres "
            "off; measure the lens once (cueref lens) and give it with --lens")
    else:
        calib.warnings.append("the corners could not be refined on the diamonds: the map "
                              "is as exact as the corners given")
    return calib


def _refined_on_diamonds(image: np.ndarray, table, cam: CameraModel, px: np.ndarray,
                         f: float, lens) -> tuple | None:
    """(camera, problem, diamond RMS mm, sights, predicted error mm on the cloth and at
    the balls' centres, residual mm per diamond) of the best fit on diamonds found near
    where the corners' camera puts them, or None when no set holds: at least
    ``MIN_WITH_LENS`` diamonds with the lens given (``MIN_FOUND`` of the table's
    without), sitting within the RMS bar, and a pose that moves no corner by more than
    ``MAX_CORNER_MOVE_MM``."""
    from .detect import SIGHTS, find_blob_near, sight_image, tophat
    from .diamonds import table_corners
    from .fit import (
        MIN_FOUND,
        Observations,
        _residuals,
        ball_centre_height,
        fit_camera,
        max_rms_mm,
        self_check,
        weighted_fit,
    )

    size = cam.size
    ppm = f / max(abs(cam.centre[2]), 1.0)
    expected = cam.table_to_image(table.diamonds, table.rail_top_height)
    best = None
    for sights in SIGHTS:  # white, pearl on light wood, black
        th = tophat(sight_image(image, sights), 45 * ppm)
        found = {}
        for i, p in enumerate(expected):
            hit = find_blob_near(th, p, max(4.0, 30 * ppm), 10.0, 40 * ppm + 4)
            if hit is not None:
                found[i] = hit[0]
        need = MIN_WITH_LENS if lens is not None else MIN_FOUND * len(table.diamonds)
        if len(found) < max(need, 4):
            continue
        obs = Observations(diamonds=found, lens=lens)
        obs.spots = {}
        cam2, _, (res, prob, obs) = fit_camera(table, size, obs, cam, np.zeros(4), f)
        rd, _, _ = prob.parts(res.x)
        rms = float(np.sqrt(np.mean(np.sum(rd ** 2, axis=1))))
        moved = np.abs(cam2.image_to_table(px, table.cushion_height)
                       - table_corners(table)).max()
        if (rms <= max_rms_mm(lens is not None) and moved < MAX_CORNER_MOVE_MM
                and len(prob.d_idx) >= need
                and (best is None or rms < best[2])):
            best = (cam2, prob, rms, sights, obs, res)
    if best is None:
        return None
    # the final pose weighs the diamonds by their own scatter, and the self-check says
    # how far it can be trusted (without the lens the diamonds alone hold the focal
    # length and distortion loosely: a map several mm off, found within the RMS bar)
    cam2, prob, rms, sights, obs, res = best
    cam2, offs, (res, prob, obs) = weighted_fit(table, size, obs, cam2, np.zeros(4), prob,
                                                res.x)
    pred = self_check(table, size, obs, cam2, offs, res, prob,
                      (0.0, ball_centre_height(table)))
    residuals, _, rms, _ = _residuals(table, res, prob)
    return cam2, prob, rms, sights, tuple(map(float, pred)), residuals
