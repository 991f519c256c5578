"""The lens measured once: focal length, principal point and distortion from a checkerboard.

One frame of the table cannot tell everything about the camera. A near-vertical view
shows its height only in a few pixels of parallax between the rails and the cloth, and
the principal point trades with the tilt and the height. A fixed installation can
measure its lens once: hold a printed checkerboard in front of the camera at a dozen
places and angles, and :func:`calibrate_lens` finds the board's corners and fits the
same lens model the table calibration uses (one focal length, the principal point,
k1, k2, p1, p2). ``cueref calibrate --lens lens.json`` then holds the table fit to it
(:class:`Lens` ``prior``): what is left to find is the pose.

A zoom or focus ring turned after the measurement changes the lens: the table
calibration says so (the lens "does not fit this view") rather than trust it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from equipment.files import atomic_write_text, read_json

FORMAT = "cueref.lens/1"
DEFAULT_PATTERN = (9, 6)  # inner corners across, down: a 10 x 7 board
DEFAULT_SQUARE_MM = 40.0
MIN_VIEWS = 6  # boards found; fewer leave the distortion and principal point loose
MAX_RMS_PX = 1.0  # reprojection RMS above this: a corner found wrong or a moving lens
#: a view whose corners sit this many times the median view's RMS off the fit (and over
#: DROP_FLOOR_PX) is left out and the lens fitted again: a board bent, or moving in a
#: video frame, pulls the whole lens toward it
DROP_RATIO, DROP_FLOOR_PX = 3.0, 0.3
#: floors of the prior's 1-sigma: OpenCV's own deviations assume a perfect model and a
#: still lens; focus breathing, heat and a re-seated lens move it a little [assumed]
SD_FLOOR = {"f": 0.003, "c": 0.001, "k1": 0.003, "k2": 0.003, "p": 0.0003}
#: order of the prior's parameters
PRIOR_PARAMS = ("f", "cx", "cy", "k1", "k2", "p1", "p2")


class LensError(ValueError):
    """The lens could not be measured, or does not fit the frame."""


@dataclass
class Lens:
    """A measured lens: ``K`` (square pixels), ``dist`` (k1, k2, p1, p2, 0) for frames of
    ``size``, and the covariance ``cov`` (7 x 7, :data:`PRIOR_PARAMS` order) of those
    values, with :data:`SD_FLOOR` added. The covariance is kept whole: k1 and k2 (and the
    focal length and distortion) trade against each other, and sigmas alone would hold
    the fit to values the board never pinned one by one."""

    size: tuple[int, int]
    K: np.ndarray
    dist: np.ndarray
    cov: np.ndarray
    rms_px: float = 0.0
    views: int = 0

    def __post_init__(self) -> None:
        self.size = (int(self.size[0]), int(self.size[1]))
        self.K = np.asarray(self.K, float).reshape(3, 3)
        d = np.zeros(5)
        dd = np.asarray(self.dist, float).ravel()
        d[: min(4, dd.size)] = dd[:4]
        self.dist = d
        n = len(PRIOR_PARAMS)
        self.cov = np.asarray(self.cov, float).reshape(n, n)

    @property
    def sd(self) -> np.ndarray:
        """1-sigma of each of :data:`PRIOR_PARAMS`."""
        return np.sqrt(np.diag(self.cov))

    def prior(self) -> tuple[np.ndarray, np.ndarray]:
        """Mean of (f, cx, cy, k1, k2, p1, p2) and the whitening matrix ``W``: the
        deviation ``d`` (a row) is ``(d @ W)`` sigmas, ``|d @ W|^2 = d C^-1 d``."""
        K, d = self.K, self.dist
        mean = np.array([K[0, 0], K[0, 2], K[1, 2], d[0], d[1], d[2], d[3]])
        return mean, np.linalg.cholesky(np.linalg.inv(self.cov))

    def for_size(self, size: tuple[int, int]) -> Lens:
        """The lens for frames of ``size``: the same one scaled, as ``cv2.resize`` maps
        pixels. A frame of another shape was cropped or padded: refused."""
        w, h = int(size[0]), int(size[1])
        if (w, h) == self.size:
            return self
        sx, sy = w / self.size[0], h / self.size[1]
        if abs(sx / sy - 1.0) > 0.01:
            raise LensError(f"the lens was measured on {self.size[0]}x{self.size[1]} frames; "
                            f"these are {w}x{h}, another shape (cropped or padded?): "
                            "measure the lens on frames like these")
        K = self.K.copy()
        K[0, 0], K[1, 1] = K[0, 0] * sx, K[1, 1] * sx
        K[0, 2], K[1, 2] = (K[0, 2] + 0.5) * sx - 0.5, (K[1, 2] + 0.5) * sy - 0.5
        scale = np.array([sx, sx, sy, 1, 1, 1, 1])
        cov = self.cov * np.outer(scale, scale)
        return Lens((w, h), K, self.dist.copy(), cov, self.rms_px * sx, self.views)

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "image_size": list(self.size),
                "K": np.round(self.K, 6).tolist(), "dist": np.round(self.dist, 9).tolist(),
                "sd": {k: float(f"{v:.6g}") for k, v in zip(PRIOR_PARAMS, self.sd,
                                                            strict=True)},
                "cov": [[float(f"{v:.8g}") for v in row] for row in self.cov],
                "rms_px": round(float(self.rms_px), 4), "views": int(self.views)}

    @classmethod
    def from_dict(cls, d: dict[str, Any], where: str = "lens") -> Lens:
        if not isinstance(d, dict) or d.get("format") != FORMAT:
            raise LensError(f"{where}: not a cueref lens (format {FORMAT!r} expected; "
                            "make one with `cueref lens`)")
        try:
            lens = cls(tuple(d["image_size"]), np.array(d["K"], float),
                       np.array(d["dist"], float), np.array(d["cov"], float),
                       float(d.get("rms_px", 0.0)), int(d.get("views", 0)))
        except (KeyError, TypeError, ValueError) as exc:
            raise LensError(f"{where}: missing or bad field ({exc})") from None
        if not lens.K[0, 0] > 0 or not np.all(np.linalg.eigvalsh(lens.cov) > 0):
            raise LensError(f"{where}: the focal length must be positive and the "
                            "covariance positive definite")
        return lens

    def save(self, path: str | os.PathLike) -> Path:
        return atomic_write_text(path, json.dumps(self.to_dict(), indent=1) + "\n")

    @classmethod
    def load(cls, path: str | os.PathLike) -> Lens:
        try:
            d = read_json(path, "lens")
        except ValueError as exc:
            raise LensError(str(exc)) from None
        return cls.from_dict(d, str(path))


def find_board(image: np.ndarray, pattern: tuple[int, int] = DEFAULT_PATTERN
               ) -> np.ndarray | None:
    """The board's inner corners (N, 2) px, row by row, or None if not all are seen."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    ok, corners = cv2.findChessboardCornersSB(
        gray, pattern, flags=cv2.CALIB_CB_NORMALIZE_IMAGE | cv2.CALIB_CB_EXHAUSTIVE
        | cv2.CALIB_CB_ACCURACY)
    return corners.reshape(-1, 2).astype(np.float64) if ok else None


def calibrate_lens(images, pattern: tuple[int, int] = DEFAULT_PATTERN,
                   square_mm: float = DEFAULT_SQUARE_MM,
                   progress=None) -> tuple[Lens, list[bool]]:
    """Measure a lens from views of a checkerboard with ``pattern`` inner corners.

    ``images``: BGR frames, all of one size. Returns the lens and, per image, whether
    the board was found and used (a view far worse than the others is left out).
    Raises :class:`LensError` with the reason (too few boards, frames of different
    sizes, a fit that does not hold together)."""
    obj = np.zeros((pattern[0] * pattern[1], 3), np.float32)
    obj[:, :2] = np.mgrid[0:pattern[0], 0:pattern[1]].T.reshape(-1, 2) * float(square_mm)
    size, img_pts, found = None, [], []
    for k, img in enumerate(images):
        if img is None or img.ndim not in (2, 3):
            raise LensError(f"image {k + 1}: not a picture")
        s = (img.shape[1], img.shape[0])
        if size is None:
            size = s
        elif s != size:
            raise LensError(f"image {k + 1} is {s[0]}x{s[1]}, the first {size[0]}x{size[1]}: "
                            "every view must come from the same camera setting")
        c = find_board(img, pattern)
        found.append(c is not None)
        if c is not None:
            img_pts.append(c.astype(np.float32))
        if progress:
            progress(k + 1, c is not None)
    n = len(img_pts)
    if n < MIN_VIEWS:
        raise LensError(f"the {pattern[0]}x{pattern[1]} board (inner corners) was found in "
                        f"{n} of {len(found)} images; at least {MIN_VIEWS} are needed, at "
                        "different places and angles (is the pattern size right?)")
    w, h = size
    f0 = 0.8 * w
    K0 = np.array([[f0, 0, (w - 1) / 2], [0, f0, (h - 1) / 2], [0, 0, 1.0]])
    flags = cv2.CALIB_USE_INTRINSIC_GUESS | cv2.CALIB_FIX_ASPECT_RATIO | cv2.CALIB_FIX_K3

    def fit(pts):
        return cv2.calibrateCamera([obj] * len(pts), pts, size, K0, np.zeros(5), flags=flags)

    rms, K, dist, rvecs, tvecs = fit(img_pts)
    per_view = np.array([_view_rms(obj, img_pts[k], rvecs[k], tvecs[k], K, dist)
                         for k in range(n)])
    bad = per_view > max(DROP_RATIO * float(np.median(per_view)), DROP_FLOOR_PX)
    if bad.any() and n - bad.sum() >= MIN_VIEWS:
        used = np.flatnonzero(found)
        for k in np.flatnonzero(bad):
            found[int(used[k])] = False
        img_pts = [p for p, b in zip(img_pts, bad, strict=True) if not b]
        n = len(img_pts)
        rms, K, dist, rvecs, tvecs = fit(img_pts)
    if not np.isfinite(rms) or rms > MAX_RMS_PX:
        raise LensError(f"the lens fit leaves {rms:.2f} px RMS at the board's corners (over "
                        f"{MAX_RMS_PX} px): a blurred or bent board, or the zoom moved")
    f = float(K[0, 0])
    K = np.array([[f, 0.0, K[0, 2]], [0.0, f, K[1, 2]], [0.0, 0.0, 1.0]])
    dist = np.ravel(dist)[:5]
    cov = _intrinsics_covariance(obj, img_pts, K, dist, rvecs, tvecs, float(rms))
    floor = np.array([SD_FLOOR["f"] * f, SD_FLOOR["c"] * w, SD_FLOOR["c"] * w,
                      SD_FLOOR["k1"], SD_FLOOR["k2"], SD_FLOOR["p"], SD_FLOOR["p"]])
    return Lens(size, K, dist[:4], cov + np.diag(floor ** 2), float(rms), n), found


def _view_rms(obj, pts, rvec, tvec, K, dist) -> float:
    """RMS (px) of one view's corners about the fitted lens and that view's pose."""
    px = cv2.projectPoints(obj, rvec, tvec, K, dist)[0].reshape(-1, 2)
    return float(np.sqrt(np.mean(np.sum((px - pts.reshape(-1, 2)) ** 2, axis=1))))


def _intrinsics_covariance(obj, img_pts, K, dist, rvecs, tvecs, rms: float) -> np.ndarray:
    """Covariance (7 x 7) of (f, cx, cy, k1, k2, p1, p2) from the board fit's Jacobian,
    every view's pose a nuisance parameter; corner noise from the fit's RMS."""
    n, ni = len(img_pts), len(PRIOR_PARAMS)
    rows = []
    for k in range(n):
        _, jac = cv2.projectPoints(obj, rvecs[k], tvecs[k], K, dist)
        # columns: rvec 3, tvec 3, fx fy, cx cy, k1 k2 p1 p2 k3
        J = np.zeros((jac.shape[0], ni + 6 * n))
        J[:, 0] = jac[:, 6] + jac[:, 7]  # one focal length: fx = fy
        J[:, 1:3] = jac[:, 8:10]
        J[:, 3:7] = jac[:, 10:14]
        J[:, ni + 6 * k:ni + 6 * k + 6] = jac[:, 0:6]
        rows.append(J)
    J = np.vstack(rows)
    cov = np.linalg.pinv(J.T @ J) * max(rms, 0.05) ** 2
    return cov[:ni, :ni]
