"""What comes between the camera and the balls: the player's arms and cue, and graphics.

Around every stroke of the trajectory a player leans in: the bridge hand on the cloth
behind the cue ball, the cue along the stroke direction, arms, shoulders and head
above the rail. The cue aims, swings back, strikes at the stroke time and follows
through; then the player stands up and leaves the frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from tracking import Stroke

from .camera import Camera

ENTER, LEAVE = 1.4, 0.7  # s before / after the stroke that the player is in view
CUE_LENGTH = 1450.0  # mm
CUE_ELEVATION = math.radians(6.0)


@dataclass
class Capsule:
    """A limb or a piece of the cue: a cylinder with round ends, radii at both ends (mm)."""

    a: np.ndarray
    b: np.ndarray
    ra: float
    rb: float
    albedo: tuple[float, float, float]


def _tip_gap(tau: float) -> float:
    """Distance of the cue tip behind the ball surface, ``tau`` s after the stroke."""
    if tau < -1.0:
        return 90.0
    if tau < -0.3:  # practice strokes
        return 45.0 + 40.0 * (1 - math.cos(2 * math.pi * (tau + 1.0) / 0.35)) / 2
    if tau < 0.0:  # back swing, then accelerate into the ball
        s = (tau + 0.3) / 0.3
        return 160.0 * (1 - s * s) if s > 0.35 else 45.0 + (160.0 - 45.0) * s / 0.35
    if tau < 0.15:  # follow through
        return -130.0 * tau / 0.15
    return -130.0


def player_capsules(stroke: Stroke, t: float, ball_xy: tuple[float, float],
                    ball_radius: float, skin, sleeve, cue_wood, cue_butt) -> list[Capsule]:
    """The player's cue and arms at time ``t`` (empty outside the stroke's window)."""
    tau = t - stroke.t
    if tau < -ENTER or tau > LEAVE:
        return []
    dx, dy = stroke.direction
    n = math.hypot(dx, dy) or 1.0
    dx, dy = dx / n, dy / n
    # slide in from behind at the start, out at the end
    slide = 0.0
    if tau < -ENTER + 0.4:
        slide = 700.0 * (1 - (tau + ENTER) / 0.4)
    elif tau > LEAVE - 0.3:
        slide = 700.0 * (tau - (LEAVE - 0.3)) / 0.3
    gap = _tip_gap(tau) + slide
    d3 = np.array([dx, dy, 0.0])
    back = np.array([-dx * math.cos(CUE_ELEVATION), -dy * math.cos(CUE_ELEVATION),
                     math.sin(CUE_ELEVATION)])
    side = np.array([-dy, dx, 0.0])
    up = np.array([0.0, 0.0, 1.0])
    tip = np.array([ball_xy[0], ball_xy[1], ball_radius]) - d3 * (ball_radius + gap)
    body = np.array([ball_xy[0], ball_xy[1], 0.0]) - d3 * (ball_radius + 45.0 + slide)
    bback = np.array([-dx, -dy, 0.0])
    caps = [
        Capsule(tip, tip + back * 25, 6.5, 6.5, (0.75, 0.74, 0.70)),  # ferrule
        Capsule(tip + back * 25, tip + back * 750, 6.5, 9.5, cue_wood),
        Capsule(tip + back * 750, tip + back * CUE_LENGTH, 9.5, 15.0, cue_butt),
    ]
    hand = body + bback * 230 + up * 22 + side * 10
    elbow1 = body + bback * 520 + side * 260 + up * 170
    shoulder1 = body + bback * 900 + side * 230 + up * 390
    grip = tip + back * 1150
    elbow2 = grip + up * 300 + bback * 80 - side * 40
    shoulder2 = body + bback * 900 - side * 230 + up * 420
    head = body + bback * 830 + up * 520
    caps += [
        Capsule(hand - side * 40, hand + side * 40, 32.0, 30.0, skin),
        Capsule(hand + bback * 40, elbow1, 38.0, 45.0, sleeve),
        Capsule(elbow1, shoulder1, 45.0, 58.0, sleeve),
        Capsule(grip, grip + up * 30, 38.0, 38.0, skin),
        Capsule(grip + up * 30, elbow2, 40.0, 46.0, sleeve),
        Capsule(elbow2, shoulder2, 46.0, 58.0, sleeve),
        Capsule(shoulder1, shoulder2, 95.0, 95.0, sleeve),
        Capsule((shoulder1 + shoulder2) / 2, (shoulder1 + shoulder2) / 2 + bback * 450 - up * 150,
                160.0, 170.0, sleeve),
        Capsule(head, head + bback * 60, 100.0, 95.0, (0.03, 0.025, 0.02)),
    ]
    return caps


def draw_capsules(camera: Camera, capsules: list[Capsule], lux: np.ndarray, tint: np.ndarray
                  ) -> tuple[int, int, np.ndarray, np.ndarray] | None:
    """Premultiplied radiance and coverage of the capsules (far first) in one window.

    ``lux``: the illuminance at each capsule's middle. Returns ``(x0, y0, colour, alpha)``.
    """
    w, h = camera.size
    shapes = []
    for c, e in zip(capsules, lux, strict=True):
        stations = np.linspace(0, 1, 6)
        pts3 = c.a[None] + (c.b - c.a)[None] * stations[:, None]
        cam_pts = camera.to_camera(pts3)
        if np.any(cam_pts[:, 2] < 100):
            continue
        px = camera.project(pts3)
        radii = camera.K[0, 0] * (c.ra + (c.rb - c.ra) * stations) / cam_pts[:, 2]
        seg = px[-1] - px[0]
        norm = np.array([-seg[1], seg[0]]) / (np.linalg.norm(seg) + 1e-9)
        poly = np.concatenate([px + norm[None] * radii[:, None],
                               (px - norm[None] * radii[:, None])[::-1]])
        ends = ((px[0], radii[0]), (px[-1], radii[-1]))
        lo = np.minimum(poly.min(axis=0), [px[0, 0] - radii[0], px[0, 1] - radii[0]])
        lo = np.minimum(lo, [px[-1, 0] - radii[-1], px[-1, 1] - radii[-1]])
        hi = np.maximum(poly.max(axis=0), [px[0, 0] + radii[0], px[0, 1] + radii[0]])
        hi = np.maximum(hi, [px[-1, 0] + radii[-1], px[-1, 1] + radii[-1]])
        if hi[0] < 0 or hi[1] < 0 or lo[0] >= w or lo[1] >= h:
            continue
        radiance = np.asarray(c.albedo, np.float32) * np.float32(e) * tint
        shapes.append((float(cam_pts[:, 2].mean()), (px, radii, norm), ends, lo, hi, radiance))
    if not shapes:
        return None
    x0 = max(0, int(np.floor(min(s[3][0] for s in shapes))) - 1)
    y0 = max(0, int(np.floor(min(s[3][1] for s in shapes))) - 1)
    x1 = min(w, int(np.ceil(max(s[4][0] for s in shapes))) + 2)
    y1 = min(h, int(np.ceil(max(s[4][1] for s in shapes))) + 2)
    col = np.zeros((y1 - y0, x1 - x0, 3), np.float32)
    alpha = np.zeros((y1 - y0, x1 - x0), np.float32)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    off = np.array([x0, y0], float)
    core = np.zeros_like(mask)
    for _, (px, radii, norm), _ends, lo, hi, radiance in sorted(shapes, key=lambda s: -s[0]):
        _capsule_mask(mask, px - off, radii, norm)
        xa, ya = max(0, int(lo[0] - x0) - 1), max(0, int(lo[1] - y0) - 1)
        xb, yb = int(hi[0] - x0) + 2, int(hi[1] - y0) + 2
        a = mask[ya:yb, xa:xb].astype(np.float32) * np.float32(1 / 255)
        # a cylinder lit from above: bright along its middle, darker toward the edges
        _capsule_mask(core, px - off, radii * 0.5, norm)
        b = core[ya:yb, xa:xb].astype(np.float32) * np.float32(1 / 255)
        sigma = max(0.4, 0.3 * float(np.mean(radii)))
        b = cv2.GaussianBlur(b, (0, 0), sigma)
        shade = (0.55 + 0.5 * b)[..., None]
        col[ya:yb, xa:xb] = col[ya:yb, xa:xb] * (1 - a[..., None]) + radiance * shade * \
            a[..., None]
        alpha[ya:yb, xa:xb] = alpha[ya:yb, xa:xb] * (1 - a) + a
    return x0, y0, col, alpha


def _capsule_mask(mask: np.ndarray, px: np.ndarray, radii: np.ndarray, norm: np.ndarray
                  ) -> None:
    """Draw (anti-aliased, 0..255) a tapered capsule along the polyline ``px``."""
    mask[:] = 0
    poly = np.concatenate([px + norm[None] * radii[:, None],
                           (px - norm[None] * radii[:, None])[::-1]])
    cv2.fillPoly(mask, [np.round(poly * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    for p, r in ((px[0], radii[0]), (px[-1], radii[-1])):
        cv2.circle(mask, (int(round(p[0] * 16)), int(round(p[1] * 16))),
                   max(1, int(round(r * 16))), 255, -1, cv2.LINE_AA, shift=4)


def broadcast_graphics(size: tuple[int, int], names: tuple[str, str], rng: np.random.Generator
                       ) -> tuple[np.ndarray, np.ndarray]:
    """A score bar and a channel logo: sRGB colour (h, w, 3) uint8 and coverage (h, w)."""
    w, h = size
    colour = np.zeros((h, w, 3), np.uint8)
    alpha = np.zeros((h, w), np.float32)
    bar_h = int(h * 0.075)
    x0 = int(w * rng.uniform(0.03, 0.2))
    x1 = x0 + int(w * rng.uniform(0.35, 0.5))
    y1 = h - int(h * rng.uniform(0.02, 0.06))
    y0 = y1 - bar_h
    bg = tuple(int(v) for v in rng.integers(10, 80, 3))
    cv2.rectangle(colour, (x0, y0), (x1, y1), bg, -1)
    alpha[y0:y1, x0:x1] = 0.88
    mid = (x0 + x1) // 2
    cv2.rectangle(colour, (mid - bar_h, y0), (mid + bar_h, y1), (30, 160, 230), -1)
    alpha[y0:y1, mid - bar_h:mid + bar_h] = 0.95
    scale = bar_h / 45.0
    score = f"{int(rng.integers(0, 40))}  {int(rng.integers(0, 40))}"
    for text, x in ((names[0], x0 + 10), (score, mid - bar_h + 8), (names[1], mid + bar_h + 10)):
        cv2.putText(colour, text, (x, y1 - bar_h // 3), cv2.FONT_HERSHEY_SIMPLEX, scale,
                    (240, 240, 240), max(1, int(2 * scale)), cv2.LINE_AA)
    lx1, ly0 = w - int(w * 0.03), int(h * 0.04)
    lx0, ly1 = lx1 - int(w * 0.11), ly0 + int(h * 0.06)
    cv2.rectangle(colour, (lx0, ly0), (lx1, ly1), (200, 60, 20), -1)
    alpha[ly0:ly1, lx0:lx1] = 0.75
    cv2.putText(colour, "CUE TV", (lx0 + 8, ly1 - 10), cv2.FONT_HERSHEY_DUPLEX, scale,
                (255, 255, 255), max(1, int(2 * scale)), cv2.LINE_AA)
    return colour, alpha
