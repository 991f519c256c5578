"""The camera model: pinhole + OpenCV radial distortion + pose over the table.

World frame: table millimetres ``x`` (toward the foot) and ``y`` (toward the right)
with ``z`` pointing *down* into the cloth, so that (x, y, z) is right-handed and a
point ``h`` mm above the cloth has ``z = -h``. A full pose (not just a homography of
the cloth) lets ball centres (height = radius) and rail tops map without parallax.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

_UNDISTORT_ITERATIONS = 30
#: frames wider than this are calibrated and re-checked on a copy scaled down to it: a
#: 4K frame took 5 s to calibrate and 1.2 s to re-check (once a second of video), and
#: 1920 px already map the cloth to a fifth of a millimetre
MAX_WORK_WIDTH = 1920


def work_copy(frame: np.ndarray) -> np.ndarray:
    """``frame``, or a copy scaled down to :data:`MAX_WORK_WIDTH` px across."""
    h, w = frame.shape[:2]
    if w <= MAX_WORK_WIDTH:
        return frame
    return cv2.resize(frame, (MAX_WORK_WIDTH, max(1, round(h * MAX_WORK_WIDTH / w))),
                      interpolation=cv2.INTER_AREA)


def camera_matrix(f: float, size: tuple[int, int]) -> np.ndarray:
    """Square pixels, principal point at the image centre (a fair prior for broadcast)."""
    w, h = size
    return np.array([[f, 0.0, (w - 1) / 2.0], [0.0, f, (h - 1) / 2.0], [0.0, 0.0, 1.0]])


@dataclass
class CameraModel:
    """Intrinsics ``K``, distortion ``dist`` (k1, k2, p1, p2, k3), pose ``rvec``/``tvec``."""

    K: np.ndarray
    dist: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray
    size: tuple[int, int]  # (width, height) px

    def __post_init__(self) -> None:
        self.K = np.asarray(self.K, float).reshape(3, 3)
        d = np.zeros(5)
        dd = np.asarray(self.dist, float).ravel()
        d[: min(5, dd.size)] = dd[:5]
        self.dist = d
        self.rvec = np.asarray(self.rvec, float).reshape(3)
        self.tvec = np.asarray(self.tvec, float).reshape(3)
        self.size = (int(self.size[0]), int(self.size[1]))

    # ------------------------------------------------------------------ forward
    def project(self, xyz: np.ndarray) -> np.ndarray:
        """World points (N, 3) in the model's frame (z down) to distorted pixels (N, 2)."""
        pts = np.asarray(xyz, float).reshape(-1, 1, 3)
        if len(pts) == 0:
            return np.zeros((0, 2))
        px, _ = cv2.projectPoints(pts, self.rvec, self.tvec, self.K, self.dist)
        return px.reshape(-1, 2)

    def table_to_image(self, xy, height: float = 0.0) -> np.ndarray:
        """Table mm (N, 2) at ``height`` mm above the cloth to distorted pixels (N, 2)."""
        xy = np.asarray(xy, float).reshape(-1, 2)
        h = np.broadcast_to(np.asarray(height, float), (len(xy),))
        return self.project(np.column_stack([xy, -h]))

    # ------------------------------------------------------------------ inverse
    def undistort(self, px) -> np.ndarray:
        """Distorted pixels (N, 2) to normalised camera coordinates (N, 2)."""
        p = np.asarray(px, float).reshape(-1, 2)
        xd = (p[:, 0] - self.K[0, 2]) / self.K[0, 0]
        yd = (p[:, 1] - self.K[1, 2]) / self.K[1, 1]
        if not np.any(self.dist):
            return np.column_stack([xd, yd])
        k1, k2, p1, p2, k3 = self.dist
        x, y = xd.copy(), yd.copy()
        for _ in range(_UNDISTORT_ITERATIONS):  # fixed point of the forward model
            r2 = x * x + y * y
            radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
            dx = 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
            dy = p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
            x, y = (xd - dx) / radial, (yd - dy) / radial
        return np.column_stack([x, y])

    def image_to_table(self, px, height: float = 0.0) -> np.ndarray:
        """Distorted pixels (N, 2) to table mm of the point ``height`` mm above the cloth."""
        n = self.undistort(px)
        R, _ = cv2.Rodrigues(self.rvec)
        rays = np.column_stack([n, np.ones(len(n))]) @ R  # R^T d, row-wise
        centre = -R.T @ self.tvec
        h = np.broadcast_to(np.asarray(height, float), (len(n),))
        with np.errstate(divide="ignore", invalid="ignore"):
            s = (-h - centre[2]) / rays[:, 2]
        return centre[:2] + rays[:, :2] * s[:, None]

    # ------------------------------------------------------------------ helpers
    @property
    def centre(self) -> np.ndarray:
        """Camera centre in world mm (z < 0: above the cloth)."""
        R, _ = cv2.Rodrigues(self.rvec)
        return -R.T @ self.tvec

    @property
    def ppm_below(self) -> float:
        """Pixels per mm on the cloth straight below the camera (focal length over
        height): the scale the calibration's pixel bars and noise floors are taken at."""
        return self.K[0, 0] / max(abs(self.centre[2]), 1.0)

    def homography(self, height: float = 0.0) -> np.ndarray:
        """Table mm on the plane ``height`` above the cloth to *undistorted* pixels."""
        R, _ = cv2.Rodrigues(self.rvec)
        t = self.tvec - height * R[:, 2]
        H = self.K @ np.column_stack([R[:, 0], R[:, 1], t])
        return H / H[2, 2]

    def resized(self, size: tuple[int, int]) -> CameraModel:
        """The same camera for the frame resized to ``size`` (width, height) px: pixel
        centres scale about the frame's corner, as ``cv2.resize`` maps them."""
        sx, sy = size[0] / self.size[0], size[1] / self.size[1]
        K = self.K.copy()
        K[0, 0], K[0, 1], K[1, 1] = K[0, 0] * sx, K[0, 1] * sx, K[1, 1] * sy
        K[0, 2] = (K[0, 2] + 0.5) * sx - 0.5
        K[1, 2] = (K[1, 2] + 0.5) * sy - 0.5
        return CameraModel(K, self.dist.copy(), self.rvec.copy(), self.tvec.copy(), size)

    def tilt_deg(self) -> float:
        """Angle between the optical axis and the straight-down direction."""
        R, _ = cv2.Rodrigues(self.rvec)
        axis = R[2, :]  # optical axis in world coordinates
        return float(np.degrees(np.arccos(np.clip(axis[2], -1.0, 1.0))))

    def to_dict(self) -> dict:
        return {
            "image_size": list(self.size),
            "K": np.round(self.K, 6).tolist(),
            "dist": np.round(self.dist, 9).tolist(),
            "rvec": np.round(self.rvec, 9).tolist(),
            "tvec": np.round(self.tvec, 6).tolist(),
            "world_z": "down",
        }

    @classmethod
    def from_dict(cls, d: dict) -> CameraModel:
        if d.get("world_z", "down") != "down":
            raise ValueError(f"world_z {d['world_z']!r} is no longer supported (only 'down': "
                             "recalibrate)")
        return cls(K=np.array(d["K"]), dist=np.array(d["dist"]), rvec=np.array(d["rvec"]),
                   tvec=np.array(d["tvec"]), size=tuple(d["image_size"]))


def look_at(eye: np.ndarray, target: np.ndarray, roll_deg: float = 0.0) -> tuple:
    """rvec, tvec of a camera at ``eye`` looking at ``target`` (world frame, z down)."""
    eye = np.asarray(eye, float)
    fwd = np.asarray(target, float) - eye
    fwd /= np.linalg.norm(fwd)
    ref = np.array([1.0, 0.0, 0.0]) if abs(fwd[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    # image "right" is world +x (toward the foot) before roll: the table lies along rows
    right = ref - fwd * (ref @ fwd)
    right /= np.linalg.norm(right)
    down = np.cross(fwd, right)
    a = np.radians(roll_deg)
    right, down = (np.cos(a) * right + np.sin(a) * down, -np.sin(a) * right + np.cos(a) * down)
    R = np.vstack([right, down, fwd])  # rows: camera x, y, z axes in world
    rvec, _ = cv2.Rodrigues(R)
    return rvec.ravel(), -R @ eye
