"""Checkerboard views through a camera's lens: what an installer films to measure it.

A printed board (``pattern`` inner corners, ``square_mm`` squares, a white margin of one
square) is held at random places and angles in front of the camera, each view traced
through the camera's exact lens (:meth:`Camera.pixel_rays`), with the defocus, light
fall-off, a lamp's glare on the paper, sensor noise and compression of a real clip.
The truth is the camera itself: its ``K`` and ``dist`` are what
:func:`calibration.lens.calibrate_lens` must find.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from .camera import UP, Camera


def _board_pose(cam: Camera, rng: np.random.Generator, half: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray] | None:
    """A board centre and in-plane axes (camera frame, mm) that keep the whole board
    in view, or None after a few tries."""
    w, h = cam.size
    f = cam.K[0, 0]
    for _ in range(60):
        share = rng.uniform(0.3, 0.65)  # of the frame's width the board spans
        dist = 2 * half[0] * f / (share * w)
        # anywhere in the frame, corners included: they pin the distortion
        u = rng.uniform(0.5 * share * w, w - 0.5 * share * w) - cam.K[0, 2]
        v = rng.uniform(0.5 * share * w * half[1] / half[0],
                        h - 0.5 * share * w * half[1] / half[0]) - cam.K[1, 2]
        centre = np.array([u / f, v / f, 1.0]) * dist
        tilt = math.radians(rng.uniform(5.0, 40.0))
        about = rng.uniform(0, 2 * math.pi)
        spin = math.radians(rng.uniform(-25.0, 25.0))
        R = cv2.Rodrigues(np.array([math.cos(about), math.sin(about), 0.0]) * tilt)[0]
        R = R @ cv2.Rodrigues(np.array([0.0, 0.0, spin]))[0]
        ax, ay = R[:, 0], R[:, 1]
        corners = np.array([centre + sx * half[0] * ax + sy * half[1] * ay
                            for sx in (-1, 1) for sy in (-1, 1)])
        if np.any(corners[:, 2] < 0.2 * dist):
            continue
        world = cam.position + (corners @ cam.R) * UP  # camera -> (x, y, height)
        px = cam.project(world)
        m = 0.02 * w
        if np.all((px[:, 0] > m) & (px[:, 0] < w - m) & (px[:, 1] > m) & (px[:, 1] < h - m)):
            return centre, R
    return None


def checkerboard_views(cam: Camera, n: int = 12, pattern: tuple[int, int] = (9, 6),
                       square_mm: float = 40.0, seed: int = 0) -> list[np.ndarray]:
    """``n`` BGR frames of a checkerboard with ``pattern`` inner corners held in front
    of ``cam`` (its lens and frame size; its pose does not matter)."""
    rng = np.random.default_rng([seed, 0xB0A2D])
    w, h = cam.size
    _, rays = cam.pixel_rays()
    # rays in the camera frame: undo the world turn of Camera.pixel_rays
    d = (rays * UP) @ cam.R.T
    squares = np.array([pattern[0] + 1, pattern[1] + 1], float)
    half = (squares / 2 + 1.0) * square_mm  # with a one-square white margin
    f = cam.K[0, 0]
    yy, xx = np.mgrid[0:h, 0:w]
    r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / (w * w / 4)
    out = []
    for _ in range(n):
        pose = _board_pose(cam, rng, half)
        if pose is None:
            continue
        centre, R = pose
        normal = R[:, 2]
        dn = d @ normal
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (centre @ normal) / dn
        hit = d * t[..., None] - centre
        bu, bv = hit @ R[:, 0], hit @ R[:, 1]
        on = (np.abs(bu) <= half[0]) & (np.abs(bv) <= half[1]) & (t > 0)
        # squares, anti-aliased over one pixel's footprint on the board
        foot = np.abs(t) / f / np.maximum(np.abs(dn), 1e-3)
        su = np.sin(math.pi * (bu + squares[0] / 2 * square_mm) / square_mm)
        sv = np.sin(math.pi * (bv + squares[1] / 2 * square_mm) / square_mm)
        ramp = square_mm / (math.pi * np.maximum(foot, 1e-6))
        check = np.clip(su * ramp, -1, 1) * np.clip(sv * ramp, -1, 1)
        inside = (np.abs(bu) <= squares[0] / 2 * square_mm) & \
            (np.abs(bv) <= squares[1] / 2 * square_mm)
        paper = np.where(inside, 0.5 + 0.45 * check, 0.95)
        light = rng.uniform(0.55, 1.0) * (1 - 0.25 * r2) * \
            (1 + rng.uniform(-0.15, 0.15) * (xx / w - 0.5))
        bg = rng.uniform(0.15, 0.45)
        val = np.where(on, paper, bg) * light
        if rng.random() < 0.3:  # a lamp's glare on the paper: a soft bright patch
            gx, gy = rng.uniform(0, w), rng.uniform(0, h)
            val = val + np.where(on, rng.uniform(0.05, 0.25) * np.exp(
                -((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * (rng.uniform(0.03, 0.1) * w) ** 2)),
                0.0)
        # out of focus at the board's distance, up to 2 px
        img = cv2.GaussianBlur(val.astype(np.float32), (0, 0), rng.uniform(0.5, 2.0))
        img = img + rng.normal(0, rng.uniform(0.005, 0.015), img.shape).astype(np.float32)
        code = np.clip(255 * np.clip(img, 0, 1) ** (1 / 2.2), 0, 255).astype(np.uint8)
        bgr = cv2.cvtColor(code, cv2.COLOR_GRAY2BGR)
        ok, buf = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY,
                                             int(rng.integers(60, 96))])
        out.append(cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else bgr)
    return out
