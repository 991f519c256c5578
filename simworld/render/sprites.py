"""Balls and pins ray-cast in small image patches, and their shadows on the cloth.

Each object is drawn only inside the patch around its projection, using the exact
per-pixel rays of the lens (distortion included), so the outline of a ball is the
true perspective silhouette and its anti-aliased edge is the analytic pixel coverage.
Motion blur averages several instants of the exposure.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from equipment import BallSpec

from .look import BALL_COLOURS, Look
from .scene import StaticScene

SPECULAR_POWER = 400.0  # a point lamp on a polished ball; larger lamps spread it
# A pin as a union of spheres along its axis: (distance from the base, radius) mm
# [assumed: 25 mm pin, 7 mm base, 10 mm head, see equipment.tables.PinSpec]
PIN_PROFILE = ((3.5, 3.5), (7.5, 4.3), (11.0, 4.0), (14.5, 3.0), (20.0, 5.0))
PIN_LYING_HEIGHT = 4.6  # mm: the axis of a fallen pin rests this high [assumed]
PIN_LENGTH = 25.0


@dataclass
class Patch:
    """A drawn object: pixel window, premultiplied colour, blurred and sharp coverage."""

    x0: int
    y0: int
    colour: np.ndarray  # (h, w, 3) premultiplied linear radiance
    alpha: np.ndarray  # (h, w) coverage averaged over the exposure
    sharp: np.ndarray  # (h, w) coverage at the frame instant

    @property
    def window(self) -> tuple[slice, slice]:
        h, w = self.alpha.shape
        return slice(self.y0, self.y0 + h), slice(self.x0, self.x0 + w)


def _digit_texture(text: str, size: int = 64) -> np.ndarray:
    img = np.zeros((size, size), np.uint8)
    scale = 1.5 if len(text) == 1 else 1.1
    (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_DUPLEX, scale, 3)
    cv2.putText(img, text, ((size - tw) // 2, (size + th) // 2), cv2.FONT_HERSHEY_DUPLEX,
                scale, 255, 3, cv2.LINE_AA)
    return img.astype(np.float32) / 255.0


class BallPainter:
    """Albedo of a ball's surface in its own frame (colour, dots, numbers)."""

    def __init__(self, spec: BallSpec, look: Look):
        colour = spec.colour
        marking = spec.marking
        if look.two_whites and spec.id in ("white", "yellow") and marking == "":
            # 000 Bilie 1.a, Tiro d'inizio 3: the opener's ball (`white`) carries the dots
            colour, marking = "white", "dots" if spec.id == "white" else ""
        base = np.asarray(BALL_COLOURS.get(colour, (0.5, 0.5, 0.5)), np.float32)
        age = np.float32(look.ball_age)  # old phenolic: yellower, a little darker
        yellowing = 1 - 0.25 * age * np.array([0.0, 0.25, 1.0], np.float32)
        self.base = base * yellowing * (1 - 0.1 * age)
        self.marking = marking
        self.digit = _digit_texture(str(spec.number)) if spec.number is not None else None

    def albedo(self, m: np.ndarray) -> np.ndarray:
        """Albedo (..., 3) at body-frame unit normals ``m`` (..., 3)."""
        out = np.broadcast_to(self.base, m.shape).copy()
        if self.marking == "dots":
            dot = np.abs(m[..., 0]) > np.cos(0.16)
            out[dot] = (0.06, 0.015, 0.015)
        elif self.marking == "number" and self.digit is not None:
            pole = np.abs(m[..., 0])
            sgn = np.sign(m[..., 0])
            span = np.sin(0.45)
            u = (m[..., 1] * sgn / span + 1) * 0.5 * (self.digit.shape[1] - 1)
            v = (-m[..., 2] / span + 1) * 0.5 * (self.digit.shape[0] - 1)
            inside = (pole > np.cos(0.45))
            if self.base.mean() < 0.2:  # dark ball: a white disc carries the number
                out[pole > np.cos(0.38)] = (0.80, 0.80, 0.78)
            ink = np.zeros(m.shape[:-1], np.float32)
            if np.any(inside):
                ui = np.clip(u[inside], 0, self.digit.shape[1] - 1).astype(int)
                vi = np.clip(v[inside], 0, self.digit.shape[0] - 1).astype(int)
                ink[inside] = self.digit[vi, ui]
            out = out * (1 - ink[..., None]) + np.float32(0.03) * ink[..., None]
        return out


def _bbox(scene: StaticScene, centres: np.ndarray, radius: float, grow: float = 2.0):
    w, h = scene.camera.size
    px = scene.camera.project(centres)
    depth = scene.camera.to_camera(centres)[:, 2]
    r_px = scene.camera.K[0, 0] * radius / np.maximum(depth, 1.0) * 1.35 + grow
    x0 = int(np.floor(np.min(px[:, 0] - r_px)))
    x1 = int(np.ceil(np.max(px[:, 0] + r_px))) + 1
    y0 = int(np.floor(np.min(px[:, 1] - r_px)))
    y1 = int(np.ceil(np.max(px[:, 1] + r_px))) + 1
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if x1 <= x0 or y1 <= y0:
        return None
    return x0, y0, x1, y1


def _sphere_hits(scene: StaticScene, rays: np.ndarray, centre: np.ndarray, radius: float):
    """Coverage, hit points and normals of the rays ``(h, w, 3)`` on one sphere."""
    o = scene.origin
    oc = (centre - o).astype(np.float32)
    b = rays @ oc
    c2 = np.float32(oc @ oc) - b * b
    dperp = np.sqrt(np.maximum(c2, 0))
    pix = b / np.float32(scene.camera.K[0, 0])  # mm spanned by one pixel at that depth
    alpha = np.clip((radius - dperp) / pix + 0.5, 0.0, 1.0)
    s = b - np.sqrt(np.maximum(radius * radius - c2, 0))
    p = o.astype(np.float32) + rays * s[..., None]
    n = p - centre.astype(np.float32)
    n /= np.linalg.norm(n, axis=-1, keepdims=True) + 1e-9
    return alpha, s, p, n


def _shade(scene: StaticScene, p: np.ndarray, n: np.ndarray, rays: np.ndarray,
           albedo: np.ndarray, weights: tuple[float, ...], shine: float) -> np.ndarray:
    """Linear radiance of a glossy sphere surface lit by the lamps, the room and the cloth."""
    look = scene.look
    tint = np.asarray(look.lamp_tint, np.float32)
    diffuse = np.float32(look.ambient_lux) * (0.55 + 0.45 * n[..., 2])
    spec = np.zeros(n.shape[:-1], np.float32)
    lux_cloth = 0.0
    nx, ny, nz = n[..., 0], n[..., 1], n[..., 2]
    vx, vy, vz = rays[..., 0], rays[..., 1], rays[..., 2]
    for g, wgt in zip(scene.lamps, weights, strict=True):
        if not wgt:
            continue
        lx = np.float32(g.centre[0]) - p[..., 0]
        ly = np.float32(g.centre[1]) - p[..., 1]
        lz = np.float32(g.centre[2]) - p[..., 2]
        d2 = lx * lx + ly * ly + lz * lz
        inv = 1 / np.sqrt(d2)
        lx, ly, lz = lx * inv, ly * inv, lz * inv
        e_normal = np.float32(wgt * g.intensities.sum() * 1e6) / d2
        diffuse += e_normal * np.maximum(nx * lx + ny * ly + nz * lz, 0)
        hx, hy, hz = lx - vx, ly - vy, lz - vz
        hn = 1 / np.sqrt(hx * hx + hy * hy + hz * hz)
        cos_h = np.maximum((nx * hx + ny * hy + nz * hz) * hn, 0)
        power = SPECULAR_POWER / (1.0 + g.size / 80.0)
        spec += e_normal * np.float32(1 + power / 120.0) * cos_h ** np.float32(power)
        lux_cloth += wgt * g.intensities.sum() / (g.centre[2] * 1e-3) ** 2
    bounce = np.float32(0.5 * lux_cloth * float(look.cloth_rgb().mean())) * \
        np.clip(-n[..., 2], 0, None)
    shine = shine * (1.0 - 0.6 * look.ball_age)
    radiance = albedo * (diffuse + bounce)[..., None] + (np.float32(0.8 * shine) * spec)[..., None]
    return radiance * tint


def draw_ball(scene: StaticScene, painter: BallPainter, radius: float,
              centres: np.ndarray, orientations: list[np.ndarray], sharp_index: int,
              weights: tuple[float, ...]) -> Patch | None:
    """Ray-cast one ball at the exposure's instants (``centres`` (n, 3) mm)."""
    box = _bbox(scene, centres, radius)
    if box is None:
        return None
    x0, y0, x1, y1 = box
    rays = scene.rays[y0:y1, x0:x1]
    # shade the ball once at the frame instant; the other instants of the exposure are
    # that image moved to where the ball's centre projects then (sub-pixel shifts)
    alpha, _, p, n = _sphere_hits(scene, rays, centres[sharp_index], radius)
    albedo = painter.albedo(n @ orientations[sharp_index].astype(np.float32))
    col = _shade(scene, p, n, rays, albedo, weights, scene.look.ball_shine) * alpha[..., None]
    if len(centres) == 1:
        return Patch(x0, y0, col, alpha, alpha)
    px = scene.camera.project(centres)
    shift = px - px[sharp_index]
    layers = np.dstack([col, alpha])
    acc = np.zeros_like(layers)
    hgt, wid = alpha.shape
    for dx, dy in shift:
        m = np.float32([[1, 0, dx], [0, 1, dy]])
        acc += cv2.warpAffine(layers, m, (wid, hgt), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    acc /= len(centres)
    return Patch(x0, y0, np.ascontiguousarray(acc[..., :3]), np.ascontiguousarray(acc[..., 3]),
                 alpha)


def pin_spheres(position: tuple[float, float], standing: bool, fall_angle: float
                ) -> list[tuple[np.ndarray, float]]:
    """The spheres that make a pin whose base is at ``position`` (its castle place, as
    the simulator keeps it); a fallen pin lies from there toward ``fall_angle``."""
    x, y = position
    if standing:
        return [(np.array([x, y, d]), r) for d, r in PIN_PROFILE]
    ax, ay = np.cos(fall_angle), np.sin(fall_angle)
    return [(np.array([x + ax * d, y + ay * d, PIN_LYING_HEIGHT]), r) for d, r in PIN_PROFILE]


def pin_centre(position: tuple[float, float], standing: bool, fall_angle: float = 0.0
               ) -> np.ndarray:
    """The middle of the pin's axis (its truth centre)."""
    if standing:
        return np.array([position[0], position[1], PIN_LENGTH / 2])
    return np.array([position[0] + np.cos(fall_angle) * PIN_LENGTH / 2,
                     position[1] + np.sin(fall_angle) * PIN_LENGTH / 2, PIN_LYING_HEIGHT])


def draw_pin(scene: StaticScene, spheres: list[tuple[np.ndarray, float]], colour: str,
             weights: tuple[float, ...]) -> Patch | None:
    pts = np.array([c for c, _ in spheres])
    box = _bbox(scene, pts, max(r for _, r in spheres))
    if box is None:
        return None
    x0, y0, x1, y1 = box
    rays = scene.rays[y0:y1, x0:x1]
    best_s = np.full(rays.shape[:2], np.inf, np.float32)
    alpha = np.zeros(rays.shape[:2], np.float32)
    p_best = np.zeros(rays.shape, np.float32)
    n_best = np.zeros(rays.shape, np.float32)
    n_best[..., 2] = 1
    for c, r in spheres:
        a, s, p, n = _sphere_hits(scene, rays, c, r)
        nearer = (a > 0) & (s < best_s)
        best_s = np.where(nearer, s, best_s)
        p_best[nearer] = p[nearer]
        n_best[nearer] = n[nearer]
        alpha = np.maximum(alpha, a)
    base = np.asarray(BALL_COLOURS["red" if colour == "red" else "white"], np.float32)
    albedo = np.broadcast_to(base, rays.shape).copy()
    col = _shade(scene, p_best, n_best, rays, albedo, weights, 0.6)
    return Patch(x0, y0, col * alpha[..., None], alpha, alpha)


def shadow_masks(scene: StaticScene, centre: np.ndarray, radius: float,
                 weights: tuple[float, ...]) -> list[tuple[int, slice, slice, np.ndarray]]:
    """Where ``centre``'s sphere hides part of each lamp from the cloth (soft edges).

    Returns ``(lamp index, rows, cols, occlusion 0..1)`` windows; the caller removes
    that share of the lamp's light from the background.
    """
    cam = scene.camera
    w, h = cam.size
    out = []
    for i, (g, lamp, wgt) in enumerate(zip(scene.lamps, scene.look.lamps, weights,
                                           strict=True)):
        if not wgt or g.centre[2] <= centre[2] + radius:
            continue
        lc = g.centre
        k = lc[2] / (lc[2] - centre[2])
        sx, sy = lc[0] + (centre[0] - lc[0]) * k, lc[1] + (centre[1] - lc[1]) * k
        ext = radius * k * 1.6 + lamp.size * centre[2] / (lc[2] - centre[2]) + 2.0
        corners = np.array([[sx - ext, sy - ext, 0], [sx + ext, sy - ext, 0],
                            [sx + ext, sy + ext, 0], [sx - ext, sy + ext, 0]])
        px = cam.project(corners)
        x0, y0 = max(0, int(np.floor(px[:, 0].min()))), max(0, int(np.floor(px[:, 1].min())))
        x1 = min(w, int(np.ceil(px[:, 0].max())) + 1)
        y1 = min(h, int(np.ceil(px[:, 1].max())) + 1)
        if x1 <= x0 or y1 <= y0:
            continue
        cloth = scene.cloth_mask[y0:y1, x0:x1]
        if not np.any(cloth):
            continue
        xy = scene.cloth_xy[y0:y1, x0:x1]
        # cloth point P, lamp L, sphere centre C: distance from C to the segment P-L
        ux = np.float32(lc[0]) - xy[..., 0]
        uy = np.float32(lc[1]) - xy[..., 1]
        uz = np.float32(lc[2])
        ulen = np.sqrt(ux * ux + uy * uy + uz * uz)
        cx = np.float32(centre[0]) - xy[..., 0]
        cy = np.float32(centre[1]) - xy[..., 1]
        cz = np.float32(centre[2])
        along = (cx * ux + cy * uy + cz * uz) / ulen
        d2 = cx * cx + cy * cy + cz * cz - along * along
        dist = np.sqrt(np.maximum(d2, 0))
        pen = np.maximum(np.float32(lamp.size) * np.maximum(along, 0) / ulen, 0.7)
        occ = np.clip((radius - dist) / pen + 0.5, 0, 1) * ((along > 0) & cloth)
        if np.any(occ):
            out.append((i, slice(y0, y1), slice(x0, x1), occ.astype(np.float32)))
    return out
