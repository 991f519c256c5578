"""Synthetic overhead frames drawn with OpenCV from the table model, with exact truth.

The tests use them to measure the detector against known geometry without waiting
for (or depending on) the full renderer in ``simworld.render``: every landmark is a
3D point of the table model pushed through a known :class:`CameraModel` (pose +
radial distortion), and the lux on the cloth follows an inverse-square lamp model.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from equipment.tables import Table

from .camera import CameraModel, camera_matrix, look_at
from .light import srgb_to_linear


@dataclass
class SyntheticScene:
    """Appearance of one synthetic frame (all optional; defaults look like a club table)."""

    cloth_bgr: tuple[int, int, int] = (60, 120, 20)
    rail_bgr: tuple[int, int, int] = (30, 55, 95)
    floor_bgr: tuple[int, int, int] = (45, 45, 50)
    balls: list[tuple[float, float, float, tuple[int, int, int]]] = field(default_factory=list)
    lamps: list[tuple[float, float, float, float]] = field(default_factory=list)  # x,y,h,cd
    exposure: float = 1.0 / 1100.0  # linear pixel value (0..1) per lux on the cloth
    arm: bool = False
    graphics: bool = False
    noise: float = 2.0
    vignette: float = 0.0  # relative darkening at the image corners


def synthetic_camera(table: Table, rng: np.random.Generator, size=(1280, 720),
                     max_tilt_deg: float = 20.0, distortion: bool = True,
                     flip: bool | None = None) -> CameraModel:
    """A camera above the table centre seeing the whole table with its rails."""
    w, h = size
    f = float(rng.uniform(0.7, 1.4) * w)
    tilt = np.radians(rng.uniform(0, max_tilt_deg))
    az = rng.uniform(0, 2 * np.pi)
    target = np.array([table.length / 2, table.width / 2, 0.0])
    direction = np.array([np.sin(tilt) * np.cos(az), np.sin(tilt) * np.sin(az),
                          -np.cos(tilt)])
    roll = float(rng.uniform(-8, 8))
    if flip if flip is not None else rng.random() < 0.5:
        roll += 180.0
    k1 = float(rng.uniform(-0.22, 0.04)) if distortion else 0.0
    k2 = float(rng.uniform(-0.02, 0.06)) * (k1 != 0.0)
    dist = np.array([k1, k2, 0, 0, 0])
    K = camera_matrix(f, size)
    rw = table.rail_width
    frame = np.array([[-rw, -rw, 0], [table.length + rw, -rw, 0],
                      [table.length + rw, table.width + rw, 0], [-rw, table.width + rw, 0]])
    d = 3000.0
    for _ in range(6):  # scale the distance so the frame fills ~88% of the image
        rvec, tvec = look_at(target + d * direction, target, roll)
        px = CameraModel(K, np.zeros(5), rvec, tvec, size).project(frame)
        ext = max(np.abs(px[:, 0] - K[0, 2]).max() / (w / 2),
                  np.abs(px[:, 1] - K[1, 2]).max() / (h / 2))
        d *= ext / float(rng.uniform(0.84, 0.92)) if _ == 0 else ext / 0.88
    rvec, tvec = look_at(target + d * direction, target, roll)
    return CameraModel(K, dist, rvec, tvec, size)


def default_lamps(table: Table, n: int = 3, height: float = 850.0,
                  intensity: float = 900.0) -> list[tuple[float, float, float, float]]:
    """Lamps in a row along the long axis, 80-90 cm above the cloth [000 Tavolo 9]."""
    xs = [(k + 0.5) * table.length / n for k in range(n)]
    return [(x, table.width / 2, height, intensity) for x in xs]


def lux_at(lamps, xy: np.ndarray) -> np.ndarray:
    """Illuminance (lux) on the cloth: point lamps, inverse square and cosine law."""
    xy = np.asarray(xy, float).reshape(-1, 2)
    e = np.zeros(len(xy))
    for lx, ly, lh, cd in lamps:
        d2 = (xy[:, 0] - lx) ** 2 + (xy[:, 1] - ly) ** 2 + lh ** 2
        e += cd * 1000.0 ** 2 * lh / d2 ** 1.5  # cd at 1 m scale; mm geometry
    return e


def lux_grid(table: Table, lamps, nx: int = 20, ny: int = 10) -> np.ndarray:
    """Mean lux per cell of an ``nx`` x ``ny`` grid over the playing surface, (ny, nx)."""
    sub = 4
    xs = (np.arange(nx * sub) + 0.5) * table.length / (nx * sub)
    ys = (np.arange(ny * sub) + 0.5) * table.width / (ny * sub)
    gx, gy = np.meshgrid(xs, ys)
    e = lux_at(lamps, np.column_stack([gx.ravel(), gy.ravel()])).reshape(ny * sub, nx * sub)
    return e.reshape(ny, sub, nx, sub).mean(axis=(1, 3))


def _poly(cam: CameraModel, pts_xy: np.ndarray, z: float, step: float = 15.0) -> np.ndarray:
    """Project a closed 3D polygon densely (so distortion bends its edges)."""
    dense = []
    n = len(pts_xy)
    for i in range(n):
        a, b = pts_xy[i], pts_xy[(i + 1) % n]
        k = max(2, int(np.hypot(*(b - a)) / step))
        for s in np.linspace(0, 1, k, endpoint=False):
            dense.append(a + s * (b - a))
    dense = np.array(dense)
    return cam.project(np.column_stack([dense, np.full(len(dense), z)]))


def _fill(img, px, colour, shift: int = 4) -> None:
    pts = np.round(px * (1 << shift)).astype(np.int32).reshape(-1, 1, 2)
    cv2.fillPoly(img, [pts], colour, cv2.LINE_AA, shift)


def _disk(cam, img, centre_xy, radius, z, colour) -> None:
    a = np.linspace(0, 2 * np.pi, 24, endpoint=False)
    ring = np.column_stack([centre_xy[0] + radius * np.cos(a), centre_xy[1] + radius * np.sin(a)])
    _fill(img, cam.project(np.column_stack([ring, np.full(24, z)])), colour)


def _rect(x0, y0, x1, y1) -> np.ndarray:
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float)


def render_synthetic(table: Table, cam: CameraModel, scene: SyntheticScene | None = None,
                     seed: int = 0) -> np.ndarray:
    """Paint the table as ``cam`` sees it; cloth brightness follows the lamps' lux."""
    sc = scene or SyntheticScene()
    rng = np.random.default_rng(seed)
    w, h = cam.size
    L, W = table.length, table.width
    rw, off = table.rail_width, table.diamond_offset
    cw = max(20.0, 2 * off - rw)  # cushion top width: diamonds mid-way on the wood
    zc, zr = -table.cushion_height, -table.rail_top_height
    # albedo layer (linear 0..1), lit afterwards
    img = np.zeros((h, w, 3), np.uint8)
    img[:] = sc.floor_bgr
    img = cv2.add(img, rng.integers(0, 25, (h, w, 1), dtype=np.uint8).repeat(3, 2))
    _fill(img, _poly(cam, _rect(-rw, -rw, L + rw, W + rw), zr), sc.rail_bgr)
    cushion = tuple(int(c * 0.8) for c in sc.cloth_bgr)
    _fill(img, _poly(cam, _rect(-cw, -cw, L + cw, W + cw), zc), cushion)
    _fill(img, _poly(cam, _rect(0, 0, L, W), zc), sc.cloth_bgr)
    for p in table.pockets:
        _disk(cam, img, p.centre, p.mouth * 0.6, zc, (12, 12, 12))
    ppm = cam.K[0, 0] / abs(cam.centre[2])
    for poly in table.lines.values():
        pts = np.array(poly, float)
        dense = np.concatenate([np.linspace(a, b, 60) for a, b in zip(pts[:-1], pts[1:],
                                                                      strict=False)])
        px = cam.table_to_image(dense)
        cv2.polylines(img, [np.round(px * 16).astype(np.int32).reshape(-1, 1, 2)], False,
                      (225, 225, 225), max(1, round(3 * ppm)), cv2.LINE_AA, 4)
    for sx, sy in table.spots.values():
        _disk(cam, img, (sx, sy), 7.0, 0.0, (235, 235, 235))
    for dx, dy in table.diamonds:
        _disk(cam, img, (dx, dy), 9.0, zr, (240, 240, 240))
    for bx, by, br, col in sc.balls:
        _disk(cam, img, (bx, by), br, -br, col)
    # lighting: lux on the cloth plane everywhere (the rails get roughly the same)
    lamps = sc.lamps or default_lamps(table)
    small = (w // 8, h // 8)
    gx, gy = np.meshgrid((np.arange(small[0]) + 0.5) * 8 - 0.5,
                         (np.arange(small[1]) + 0.5) * 8 - 0.5)
    xy = cam.image_to_table(np.column_stack([gx.ravel(), gy.ravel()]))
    lux = lux_at(lamps, xy).reshape(small[1], small[0])
    lux = cv2.resize(lux.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    lin = srgb_to_linear(img).astype(np.float32)
    # albedo so that the cloth's own colour is what a 1/exposure-lux light shows
    lin *= (lux * sc.exposure)[..., None]
    if sc.vignette:
        yy, xx = np.mgrid[0:h, 0:w]
        r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
        lin *= (1.0 - sc.vignette * r2)[..., None].astype(np.float32)
    lin = np.clip(lin, 0, 1)
    out = np.where(lin <= 0.0031308, 12.92 * lin, 1.055 * lin ** (1 / 2.4) - 0.055) * 255.0
    out = out.astype(np.float32)
    out = cv2.GaussianBlur(out, (0, 0), 0.6)
    out += rng.normal(0, sc.noise, out.shape).astype(np.float32)
    out = np.clip(out, 0, 255).astype(np.uint8)
    if sc.arm:  # a player's arm and cue reaching in from the near side
        side = rng.integers(0, 4)
        cx, cy = rng.uniform(0.3, 0.7) * w, rng.uniform(0.3, 0.7) * h
        edge = [(cx, -20), (w + 20, cy), (cx, h + 20), (-20, cy)][side]
        cv2.line(out, (int(edge[0]), int(edge[1])), (int(cx), int(cy)), (120, 150, 200),
                 int(w * 0.05))
        cv2.line(out, (int(cx), int(cy)), (int(cx + (cx - edge[0]) * 0.5),
                                           int(cy + (cy - edge[1]) * 0.5)), (80, 170, 220), 6)
    if sc.graphics:  # a broadcast score bar and a logo
        cv2.rectangle(out, (int(0.05 * w), int(0.88 * h)), (int(0.6 * w), int(0.97 * h)),
                      (90, 30, 20), -1)
        cv2.putText(out, "ROSSI 23  BIANCHI 19", (int(0.07 * w), int(0.94 * h)),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.9, (255, 255, 255), 2)
        cv2.circle(out, (int(0.92 * w), int(0.08 * h)), int(0.04 * h), (255, 255, 255), -1)
    return out
