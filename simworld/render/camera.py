"""The camera model: a pinhole with OpenCV's distortion, posed above the table.

Points are given as table millimetres and height above the cloth: ``(x, y, h)``. The
pose (``rvec``, ``tvec``) is OpenCV's for the right-handed table frame of
docs/coordinates.md, in which x runs to the foot, y to the right of a player at the
head, and so z points *down*: a point ``h`` above the cloth is ``(x, y, -h)`` there.
``cv2.projectPoints([(x, y, -h)], rvec, tvec, K, dist)`` gives exactly
``Camera.project([(x, y, h)])``, so the calibration code can be checked against it, and
the picture is the one a real camera above the table takes (not its mirror image).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from equipment import Table

MIN_SIZE = (1280, 720)
UP = np.array([1.0, 1.0, -1.0])  # (x, y, height) <-> the z-down table frame
MAX_SIZE = (1920, 1080)
#: spread (1 sigma, per axis, share of the frame's width) of a lens's principal point
#: about the frame's centre: a sensor is glued to a few hundredths of a millimetre, and
#: calibrated consumer and broadcast cameras put it 0.2-1.5% of the width off [assumed]
PRINCIPAL_SD = 0.005
_UNDISTORT_CRITERIA = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 30, 1e-12)


@dataclass
class Camera:
    """Intrinsics ``K``, distortion ``(k1, k2, p1, p2, k3)``, pose ``rvec``/``tvec``."""

    K: np.ndarray  # 3x3
    dist: np.ndarray  # (5,)
    rvec: np.ndarray  # (3,) world -> camera rotation (Rodrigues)
    tvec: np.ndarray  # (3,) mm
    size: tuple[int, int]  # (width, height) px

    @property
    def R(self) -> np.ndarray:
        return cv2.Rodrigues(np.asarray(self.rvec, float).reshape(3, 1))[0]

    @property
    def position(self) -> np.ndarray:
        """Camera centre: table x, y (mm) and height above the cloth (mm)."""
        return (-self.R.T @ np.asarray(self.tvec, float).reshape(3)) * UP

    def to_camera(self, points_xyz: np.ndarray) -> np.ndarray:
        """Camera coordinates of points ``(x, y, height)``."""
        p = np.asarray(points_xyz, float).reshape(-1, 3) * UP
        return p @ self.R.T + np.asarray(self.tvec, float).reshape(1, 3)

    def distort_normalized(self, xy: np.ndarray) -> np.ndarray:
        """Apply the distortion to normalized image coordinates ``(N, 2)``."""
        k1, k2, p1, p2, k3 = (float(v) for v in self.dist)
        x, y = xy[:, 0], xy[:, 1]
        r2 = x * x + y * y
        radial = 1 + k1 * r2 + k2 * r2 * r2 + k3 * r2 ** 3
        xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
        yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
        return np.stack([xd, yd], axis=1)

    def project(self, points_xyz: np.ndarray) -> np.ndarray:
        """Pixels ``(N, 2)`` of table points ``(N, 3)`` mm, with distortion."""
        pc = self.to_camera(points_xyz)
        xy = pc[:, :2] / pc[:, 2:3]
        xd = self.distort_normalized(xy)
        K = self.K
        return np.stack([K[0, 0] * xd[:, 0] + K[0, 1] * xd[:, 1] + K[0, 2],
                         K[1, 1] * xd[:, 1] + K[1, 2]], axis=1)

    def project_undistorted(self, points_xyz: np.ndarray) -> np.ndarray:
        pc = self.to_camera(points_xyz)
        h = pc @ self.K.T
        return h[:, :2] / h[:, 2:3]

    def homography(self) -> np.ndarray:
        """Table plane z = 0 (mm) -> undistorted pixels."""
        R = self.R
        H = self.K @ np.column_stack([R[:, 0], R[:, 1], np.asarray(self.tvec, float)])
        return H / H[2, 2]

    def undistort_pixels(self, px: np.ndarray, iterations: int = 4) -> np.ndarray:
        """Normalized undistorted coordinates ``(N, 2)`` of distorted pixels ``(N, 2)``.

        OpenCV's iterative inverse gives the start; a few fixed-point steps against
        :meth:`distort_normalized` make it exact to far below a pixel.
        """
        K = self.K
        yd = (px[:, 1] - K[1, 2]) / K[1, 1]
        xd = (px[:, 0] - K[0, 2] - K[0, 1] * yd) / K[0, 0]
        target = np.stack([xd, yd], axis=1)
        src = np.ascontiguousarray(px, np.float64).reshape(-1, 1, 2)
        dist = np.asarray(self.dist, float)
        if hasattr(cv2, "undistortPointsIter"):  # OpenCV 4's name for it
            xy = cv2.undistortPointsIter(src, K, dist, None, None, _UNDISTORT_CRITERIA)
        else:  # OpenCV 5 took the criteria into undistortPoints
            xy = cv2.undistortPoints(src, K, dist, criteria=_UNDISTORT_CRITERIA)
        xy = xy.reshape(-1, 2)
        for _ in range(iterations):
            xy = xy + (target - self.distort_normalized(xy))
        return xy

    def pixel_rays(self, step: int = 4) -> tuple[np.ndarray, np.ndarray]:
        """Camera centre and unit world ray directions ``(H, W, 3)`` through every pixel.

        The lens is inverted exactly on a grid every ``step`` px and interpolated
        bilinearly between (the distortion is smooth, so the error is far below 0.01 px).
        """
        w, h = self.size
        gu = np.arange(0, w - 1 + step, step, dtype=float)
        gv = np.arange(0, h - 1 + step, step, dtype=float)
        U, V = np.meshgrid(gu, gv)
        xy = self.undistort_pixels(np.stack([U.ravel(), V.ravel()], axis=1))
        grid = xy.reshape(len(gv), len(gu), 2)
        grid = grid.astype(np.float32)
        u = np.arange(w, dtype=np.float32) / step
        v = np.arange(h, dtype=np.float32) / step
        iu = np.minimum(u.astype(int), len(gu) - 2)
        iv = np.minimum(v.astype(int), len(gv) - 2)
        fu = (u - iu.astype(np.float32))[None, :, None]
        fv = (v - iv.astype(np.float32))[:, None, None]
        rows = grid[iv] * (1 - fv) + grid[iv + 1] * fv  # (h, grid w, 2), separable
        nxy = rows[:, iu] * (1 - fu) + rows[:, iu + 1] * fu
        R = (self.R * UP).astype(np.float32)  # ray = R^T (x, y, 1), as (x, y, height)
        d = nxy[..., 0:1] * R[0] + nxy[..., 1:2] * R[1] + R[2]
        d *= 1 / np.sqrt(np.sum(d * d, axis=2, keepdims=True))
        return self.position, d

    def to_dict(self) -> dict:
        return {
            "size": list(self.size),
            "K": np.round(self.K, 6).tolist(),
            "dist": [round(float(v), 8) for v in self.dist],
            "rvec": [round(float(v), 9) for v in np.ravel(self.rvec)],
            "tvec": [round(float(v), 6) for v in np.ravel(self.tvec)],
            "homography": [[float(f"{v:.10g}") for v in row] for row in self.homography()],
            "position_mm": [round(float(v), 3) for v in self.position],
        }

    @classmethod
    def from_dict(cls, d: dict) -> Camera:
        return cls(np.asarray(d["K"], float), np.asarray(d["dist"], float),
                   np.asarray(d["rvec"], float), np.asarray(d["tvec"], float),
                   (int(d["size"][0]), int(d["size"][1])))


def check_size(size: tuple[int, int]) -> tuple[int, int]:
    """The supported frame sizes: 1280x720 up to 1920x1080."""
    w, h = int(size[0]), int(size[1])
    if not (MIN_SIZE[0] <= w <= MAX_SIZE[0] and MIN_SIZE[1] <= h <= MAX_SIZE[1]):
        raise ValueError(f"resolution {w}x{h} is out of range: supported "
                         f"{MIN_SIZE[0]}x{MIN_SIZE[1]} to {MAX_SIZE[0]}x{MAX_SIZE[1]}")
    if w % 2 or h % 2:
        raise ValueError(f"resolution {w}x{h}: width and height must be even (yuv420p video)")
    return w, h


def _safe_k1(k1: float, k2: float, w: int, h: int, f: float) -> float:
    """Weaken barrel distortion until the lens stays one-to-one out to the frame corners
    (beyond the fold of ``r (1 + k1 r^2 + k2 r^4)`` a pixel has no ray)."""
    rc = math.hypot(w / 2, h / 2) / f * 1.15
    for _ in range(60):
        r = np.linspace(0.0, 3.0, 3001)
        rd = r * (1 + k1 * r ** 2 + k2 * r ** 4)
        slope = 1 + 3 * k1 * r ** 2 + 5 * k2 * r ** 4
        reach = rd[np.argmax(slope < 0.35)] if np.any(slope < 0.35) else np.inf
        if reach > rc:
            return k1
        k1 *= 0.85
    return k1


def _look_at(position: np.ndarray, target: np.ndarray, roll: float,
             flip: bool) -> np.ndarray:
    """World->camera rotation: optical axis to ``target``, image x along table x (or -x)."""
    z = target - position
    z = z / np.linalg.norm(z)
    ref = np.array([-1.0, 0.0, 0.0]) if flip else np.array([1.0, 0.0, 0.0])
    x = ref - z * (ref @ z)
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    c, s = math.cos(roll), math.sin(roll)
    x, y = c * x + s * y, -s * x + c * y
    return np.stack([x, y, z])  # rows: camera axes in world


def table_outline(table: Table) -> np.ndarray:
    """Outer corners of the rails at rail-top height: what must stay in view."""
    r = table.rail_width
    L, W, zt = table.length, table.width, table.rail_top_height
    return np.array([[-r, -r, zt], [L + r, -r, zt], [L + r, W + r, zt], [-r, W + r, zt],
                     [L / 2, -r, zt], [L / 2, W + r, zt], [-r, W / 2, zt], [L + r, W / 2, zt]])


def make_camera(table: Table, size: tuple[int, int] = (1280, 720), tilt_deg: float = 0.0,
                azimuth_deg: float = 0.0, roll_deg: float = 0.0, hfov_deg: float = 62.0,
                k1: float = -0.08, k2: float = 0.01, p: tuple[float, float] = (0.0, 0.0),
                margin: float = 0.05, target_offset: tuple[float, float] = (0.0, 0.0),
                flip: bool = False, principal_offset: tuple[float, float] = (0.0, 0.0)
                ) -> Camera:
    """A camera aimed at the table centre from ``tilt_deg`` off vertical, at the distance
    that fits the whole table (rails included) inside the frame with ``margin``.

    ``principal_offset``: where the lens's principal point lies from the frame's centre
    (px, right and down); the optical axis still goes through the table's centre."""
    w, h = check_size(size)
    f = (w / 2) / math.tan(math.radians(hfov_deg) / 2)
    K = np.array([[f, 0, w / 2 - 0.5 + principal_offset[0]],
                  [0, f, h / 2 - 0.5 + principal_offset[1]], [0, 0, 1.0]])
    dist = np.array([_safe_k1(k1, k2, w, h, f), k2, p[0], p[1], 0.0])
    target = np.array([table.length / 2 + target_offset[0],
                       table.width / 2 + target_offset[1], 0.0])
    t, a = math.radians(tilt_deg), math.radians(azimuth_deg)
    direction = np.array([math.sin(t) * math.cos(a), math.sin(t) * math.sin(a), math.cos(t)])
    outline = table_outline(table)

    def build(distance: float) -> Camera:
        pos = target + direction * distance  # (x, y, height)
        axes = _look_at(pos, target, math.radians(roll_deg), flip) * UP
        # In the z-down frame these axes are left-handed; turning the image's x axis
        # round makes a proper rotation: the view a real camera there has.
        R = axes * np.array([[-1.0], [1.0], [1.0]])
        rvec = cv2.Rodrigues(R)[0].ravel()
        return Camera(K, dist, rvec, -R @ (pos * UP), (w, h))

    def fits(cam: Camera) -> bool:
        if np.any(cam.to_camera(outline)[:, 2] <= 0):
            return False
        px = cam.project(outline)
        mx, my = margin * w, margin * h
        return bool(np.all((px[:, 0] >= mx) & (px[:, 0] <= w - 1 - mx)
                           & (px[:, 1] >= my) & (px[:, 1] <= h - 1 - my)))

    lo, hi = 500.0, 50000.0
    for _ in range(50):
        mid = 0.5 * (lo + hi)
        if fits(build(mid)):
            hi = mid
        else:
            lo = mid
    return build(hi)


def default_camera(table: Table, size: tuple[int, int] = (1280, 720)) -> Camera:
    """A club installation: almost overhead, a mildly barrel-distorted wide lens."""
    return make_camera(table, size, tilt_deg=4.0, azimuth_deg=90.0, roll_deg=0.5,
                       hfov_deg=64.0, k1=-0.09, k2=0.012, margin=0.04, flip=True)


def random_principal_offset(rng: np.random.Generator, width: int) -> tuple[float, float]:
    """A lens's principal point off the frame's centre (px), :data:`PRINCIPAL_SD` of the
    width on each axis, drawn from a generator spawned off ``rng`` (which does not
    advance it), so that adding it changed no other draw of any scene."""
    dx, dy = rng.spawn(1)[0].normal(0.0, PRINCIPAL_SD * width, 2)
    return float(dx), float(dy)


def random_camera(table: Table, rng: np.random.Generator, size: tuple[int, int] = (1280, 720),
                  max_tilt_deg: float = 20.0) -> Camera:
    """A random plausible mounting that still sees all four cushions and rails, its
    lens's principal point off the centre (:func:`random_principal_offset`)."""
    principal = random_principal_offset(rng, check_size(size)[0])
    return make_camera(
        table, size,
        tilt_deg=float(rng.uniform(0.0, max_tilt_deg)),
        azimuth_deg=float(rng.uniform(0.0, 360.0)),
        roll_deg=float(rng.uniform(-4.0, 4.0)),
        hfov_deg=float(rng.uniform(50.0, 78.0)),
        k1=float(rng.uniform(-0.22, 0.03)),
        k2=float(rng.uniform(-0.01, 0.04)),
        p=(float(rng.normal(0, 0.0008)), float(rng.normal(0, 0.0008))),
        margin=float(rng.uniform(0.01, 0.12)),
        target_offset=(float(rng.normal(0, 40.0)), float(rng.normal(0, 25.0))),
        flip=bool(rng.random() < 0.5),
        principal_offset=principal,
    )
