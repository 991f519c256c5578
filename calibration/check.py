"""A cheap per-frame check that the camera has not moved since calibration.

Two looks at where the table should be: the diamonds (searched in a small window
around their expected pixels; their median shift in mm says how far the view moved)
and the cloth edges (points just inside should be cloth, points just outside not).
An arm over a rail hides a few diamonds, not most of them, so medians stay robust.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from .camera import work_copy
from .detect import sight_image, tophat
from .diamonds import find_diamond, grain_tophat, lettering_tophat
from .result import Calibration

MOVED_MM = 2.5  # median diamond shift above this: the camera moved
SEARCH_MM = 60.0  # how far around its expected pixel a diamond is looked for


@dataclass
class CheckResult:
    """``status``: ok, moved (the view shifted; recalibrate) or lost (no table seen)."""

    status: str
    shift_mm: float | None = None  # median diamond displacement on the rail plane
    diamonds_seen: int = 0
    edge_agreement: float | None = None  # fraction of edge samples that still agree
    details: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def _edge_samples(calib: Calibration, inset: float = 12.0, n: int = 12):
    """Table points just inside the noses (cloth) and just outside the cloth edges."""
    t = calib.profile
    L, W = t.length, t.width
    offs = calib.edge_offsets or {s: 0.0 for s in ("left", "foot", "right", "head")}
    s = np.linspace(0.12, 0.88, n)
    inside, outside = [], []
    for side in ("left", "foot", "right", "head"):
        out = offs.get(side, 0.0) + inset
        for u in s:
            if side == "left":
                inside.append((u * L, inset)), outside.append((u * L, -out))
            elif side == "right":
                inside.append((u * L, W - inset)), outside.append((u * L, W + out))
            elif side == "head":
                inside.append((inset, u * W)), outside.append((-out, u * W))
            else:
                inside.append((L - inset, u * W)), outside.append((L + out, u * W))
    return np.array(inside), np.array(outside)


def check(frame: np.ndarray, calib: Calibration) -> CheckResult:
    """Is the table still where the calibration says? ok / moved / lost."""
    cam = calib.camera
    t = calib.profile
    h, w = frame.shape[:2]
    if (w, h) != cam.size:
        return CheckResult("lost", details={"reason": f"frame size {w}x{h} differs from "
                                                      f"the calibration's {cam.size}"})
    frame = work_copy(frame)  # a 4K frame, a quarter of the pixels to search
    if frame.shape[1] != w:
        cam = cam.resized((frame.shape[1], frame.shape[0]))
    ppm = cam.ppm_below
    exp_px = cam.table_to_image(t.diamonds, t.rail_top_height)
    # white sights stand out of any coloured rail at least as well in each pixel's
    # darkest channel as in grey (pearl on maple only there); finding them is all that
    # is asked here, not the fit's precise centroids
    sights = sight_image(frame, "pale" if calib.sights == "light" else calib.sights)
    if calib.grain:  # pearl sights among light wood's streaks: the grain taken out
        H, _ = cv2.findHomography(np.asarray(t.diamonds, float), exp_px)  # lens and all
        th = grain_tophat(sights, ppm, H, t, {})
    elif calib.lettering:  # pearl sights between a sponsor's letters: the local median
        th = lettering_tophat(sights, ppm, {})
    else:
        th = tophat(sights, 45 * ppm)
    min_peak = 10.0
    shifts = []
    for p, xy in zip(exp_px, t.diamonds, strict=True):
        # the diamond search's own test: a sponsor's letter beside a sight, brighter
        # than it, is refused as a letter among letters (benchmark scene 14: "CAROM
        # CUP" 50 mm from the sights, taken for them, called the view moved)
        hit = find_diamond(th, p, SEARCH_MM * ppm, ppm, min_peak)
        if hit is not None:
            q = cam.image_to_table([hit], t.rail_top_height)[0]
            shifts.append(float(np.hypot(*(q - np.array(xy)))))
    edge = None
    if calib.cloth is not None:
        inside, outside = _edge_samples(calib)
        pi = cam.table_to_image(inside, t.cushion_height).astype(np.float32)
        po = cam.table_to_image(outside, t.cushion_height).astype(np.float32)
        vi = cv2.remap(frame, pi[:, 0:1], pi[:, 1:2], cv2.INTER_LINEAR)
        vo = cv2.remap(frame, po[:, 0:1], po[:, 1:2], cv2.INTER_LINEAR)
        di = calib.cloth.distance(vi).ravel()
        do = calib.cloth.distance(vo).ravel()
        edge = float(np.mean((di < 4.0) & (do >= 4.0)))
    n = len(shifts)
    shift = float(np.median(shifts)) if n else None
    details = {"diamonds_expected": len(t.diamonds)}
    if n < 0.3 * len(t.diamonds):
        status = "lost" if (edge is None or edge < 0.3) else "moved"
    elif shift is not None and shift > MOVED_MM:
        status = "moved"
    elif n < 0.6 * len(t.diamonds) and edge is not None and edge < 0.35:
        status = "moved"  # few diamonds to go by: the edges must agree as well
    else:
        status = "ok"
    return CheckResult(status, shift, n, edge, details)
