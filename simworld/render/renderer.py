"""Frame composition: static scene + shadows + balls and pins + player + sensor + graphics.

The light is linear radiance all the way to the sensor: a pixel's linear value is
``sensitivity * exposure * gain * vignette * albedo * lux`` (1.0 clips), then shot and
read noise in electrons, then a 2.2 power curve (:data:`GAMMA`) to 8 bits. With a fixed exposure the
brightness of a known cloth therefore measures lux; with auto exposure it does not.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from equipment import Discipline

from .camera import Camera
from .look import Look
from .occluders import Capsule, broadcast_graphics, draw_capsules, player_capsules
from .scene import StaticScene, illuminance, lux_grid
from .sprites import (
    BallPainter,
    Patch,
    draw_ball,
    draw_pin,
    pin_centre,
    pin_spheres,
    shadow_masks,
)
from .truth import FrameTruth, ObjectTruth

FLICKER_HZ = 100.0  # mains flicker of lamps on 50 Hz supply
BOX_COVERAGE = 0.25  # a pixel is in the box from this share of the peak coverage on
LUX_CELLS = (20, 10)
GAMMA = 2.2  # output curve: 8-bit value = 255 * linear ** (1 / GAMMA)


@dataclass
class ObjectPose:
    """An object at one frame: where it is over the exposure and whether it is drawn."""

    id: str
    kind: str  # ball / pin
    state: str
    drawn: bool
    at: Callable[[float], tuple[np.ndarray, np.ndarray]]  # t -> (centre xyz mm, orientation)
    xy: tuple[float, float] = (0.0, 0.0)  # table position at the frame time
    standing: bool = True  # pins
    fall_angle: float = 0.0  # pins


@dataclass
class ActiveStroke:
    stroke: object  # tracking.Stroke
    ball_xy: tuple[float, float]
    ball_radius: float


def decode_pixels(v: np.ndarray) -> np.ndarray:
    """Linear sensor values of 8-bit pixels (the inverse of the output curve)."""
    return (np.asarray(v, np.float64) / 255.0) ** GAMMA


def _soft(mask: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur; a wide one is done on a reduced copy (same result, far cheaper)."""
    f = int(sigma / 3)
    if f < 2:
        return cv2.GaussianBlur(mask, (0, 0), sigma)
    h, w = mask.shape
    small = cv2.resize(mask, (max(1, w // f), max(1, h // f)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), sigma / f)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


class ClipRenderer:
    """Renders frames of one discipline through one camera with one look."""

    def __init__(self, discipline: Discipline, camera: Camera, look: Look, seed: int = 0):
        look.check()
        self.discipline = discipline
        self.table = discipline.table
        self.camera = camera
        self.look = look
        self.seed = seed
        self.scene = StaticScene(discipline, camera, look, np.random.default_rng([seed, 1]))
        self.noise_rng = np.random.default_rng([seed, 2])
        self.balls = {b.id: b for b in discipline.balls}
        self.pins = {p.id: p for p in discipline.pins}
        self.painters = {b.id: BallPainter(b, look) for b in discipline.balls}
        w, h = camera.size
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        r2 = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
        self.vignette = (1.0 - look.vignette * r2).astype(np.float32)
        self.vignette3 = np.repeat(self.vignette[..., None], 3, axis=2)
        # sensor noise: a bank of normal deviates read at a random offset each frame
        self.noise_bank = self.noise_rng.standard_normal(h * w * 3 + w * 3 * 97, np.float32)
        self.graphics = None
        if look.graphics:
            self.graphics = broadcast_graphics(camera.size, ("ROSSI", "BLANCO"),
                                               np.random.default_rng([seed, 3]))
        self.exposure = look.exposure
        self._ae_started = False
        self._sprite_cache: dict = {}
        cloth_idx = np.flatnonzero(self.scene.cloth_mask.ravel()[::7]) * 7
        self._ae_pixels = cloth_idx

    # ------------------------------------------------------------------ light

    def lamps_on(self, t: float) -> tuple[bool, ...]:
        return tuple(lp.is_on(t) for lp in self.look.lamps)

    def lamp_weights(self, t: float) -> tuple[float, ...]:
        """Each lamp's output averaged over the exposure (flicker integrates out)."""
        out = []
        half = math.pi * FLICKER_HZ * self.exposure
        smear = math.sin(half) / half if half > 0 else 1.0
        for lp in self.look.lamps:
            if not lp.is_on(t):
                out.append(0.0)
            else:
                out.append(1.0 + lp.flicker * smear * math.sin(2 * math.pi * FLICKER_HZ * t))
        return tuple(out)

    def lux(self, lamps_on: tuple[bool, ...]) -> dict:
        return lux_grid(self.table, self.scene.lamps, [1.0 if o else 0.0 for o in lamps_on],
                        self.look.ambient_lux, LUX_CELLS)

    # ------------------------------------------------------------------ frame

    def _samples(self, pose: ObjectPose, t: float) -> tuple[np.ndarray, list, int]:
        c0, m0 = pose.at(t)
        if not self.look.motion_blur or pose.state != "moving":
            return c0[None], [m0], 0
        a, _ = pose.at(t - self.exposure / 2)
        b, _ = pose.at(t + self.exposure / 2)
        depth = max(float(self.camera.to_camera(c0[None])[0, 2]), 1.0)
        move_px = float(np.linalg.norm(b - a)) * self.camera.K[0, 0] / depth
        n = int(min(15, max(1, math.ceil(move_px / 1.2))))
        if n == 1:
            return c0[None], [m0], 0
        n += 1 - n % 2  # odd: the middle instant is the frame time
        ts = t + (np.arange(n) / (n - 1) - 0.5) * self.exposure
        got = [pose.at(float(s)) for s in ts]
        return np.array([g[0] for g in got]), [g[1] for g in got], n // 2

    def _draw(self, pose: ObjectPose, t: float, weights: tuple[float, ...]):
        """An object's patch and shadows; still objects are cached between frames."""
        scene = self.scene
        if pose.kind == "pin":
            key = (pose.id, "pin", round(pose.xy[0], 3), round(pose.xy[1], 3), pose.standing,
                   round(pose.fall_angle, 4), weights)
        else:
            c, m = pose.at(t)
            key = None if pose.state == "moving" else (
                pose.id, tuple(np.round(c, 3)), m.tobytes(), weights)
        if key is not None and key in self._sprite_cache:
            return self._sprite_cache[key]
        if pose.kind == "pin":
            spheres = pin_spheres(pose.xy, pose.standing, pose.fall_angle)
            shadows = []
            for c, r in spheres[:: 2 if pose.standing else 1]:
                shadows += shadow_masks(scene, c, r, weights)
            patch = draw_pin(scene, spheres, self.pins[pose.id].colour, weights)
        else:
            spec = self.balls[pose.id]
            cs, ms, sharp = self._samples(pose, t)
            shadows = shadow_masks(scene, cs[sharp], spec.radius, weights)
            patch = draw_ball(scene, self.painters[pose.id], spec.radius, cs, ms, sharp,
                              weights)
        if key is not None:
            if len(self._sprite_cache) > 256:
                self._sprite_cache.clear()
            self._sprite_cache[key] = (patch, shadows)
        return patch, shadows

    def _player_shadows(self, img: np.ndarray, caps: list, weights: tuple[float, ...]) -> None:
        """Darken the cloth where the player and the cue hide each lamp.

        Each capsule is projected from the lamp onto the cloth; the penumbra grows with
        the lamp's size and the height of what casts the shadow (cue low and sharp,
        arms and body high and soft).
        """
        scene, cam = self.scene, self.camera
        w, h = cam.size
        centre = np.array([[self.table.length / 2, self.table.width / 2, 0.0]])
        mm_per_px = float(cam.to_camera(centre)[0, 2] / cam.K[0, 0])
        for i, (g, wgt) in enumerate(zip(scene.lamps, weights, strict=True)):
            if not wgt:
                continue
            lz = g.centre[2]
            groups: dict[bool, list] = {True: [], False: []}
            for c in caps:
                if max(c.a[2], c.b[2]) > lz - 80:
                    continue
                ends = []
                for p, r in ((c.a, c.ra), (c.b, c.rb)):
                    k = lz / (lz - p[2])
                    q = g.centre + (p - g.centre) * k
                    q[2] = 0.0
                    ends.append((q, r * k))
                (a, ra), (b, rb) = ends
                height = 0.5 * (c.a[2] + c.b[2])
                groups[height < 150].append((Capsule(a, b, ra, rb, (0.0, 0.0, 0.0)), height))
            for items in groups.values():
                if not items:
                    continue
                drawn = draw_capsules(cam, [c for c, _ in items], np.zeros(len(items)),
                                      np.zeros(3, np.float32))
                if drawn is None:
                    continue
                x0, y0, _, alpha = drawn
                hgt = float(np.median([z for _, z in items]))
                sigma = min(0.5 * max(g.size, 20.0) * hgt / (lz - hgt) / mm_per_px, 25.0)
                pad = int(3 * sigma) + 1 if sigma > 0.3 else 0
                if pad:
                    alpha = _soft(cv2.copyMakeBorder(alpha, pad, pad, pad, pad,
                                                     cv2.BORDER_CONSTANT, value=0), sigma)
                    x0, y0 = x0 - pad, y0 - pad
                xa, ya = max(0, x0), max(0, y0)
                xb, yb = min(w, x0 + alpha.shape[1]), min(h, y0 + alpha.shape[0])
                if xb <= xa or yb <= ya:
                    continue
                a = alpha[ya - y0:yb - y0, xa - x0:xb - x0]
                win = (slice(ya, yb), slice(xa, xb))
                occ = a * scene.cloth_mask[win] * np.float32(wgt * 0.9)
                img[win] -= occ[..., None] * scene.lamp_radiance[i][win]

    def render(self, frame: int, t: float, poses: list[ObjectPose],
               strokes: list[ActiveStroke] = ()) -> tuple[np.ndarray, FrameTruth]:
        """One frame: BGR uint8 image and its truth."""
        look, cam, scene = self.look, self.camera, self.scene
        w, h = cam.size
        weights = self.lamp_weights(t)
        img = scene.radiance(weights).copy()
        caps = []
        for s in strokes:
            caps += player_capsules(s.stroke, t, s.ball_xy, s.ball_radius, look.skin,
                                    look.sleeve, look.cue_wood, look.cue_butt)
        if caps:
            self._player_shadows(img, caps, weights)
        patches: dict[str, Patch] = {}
        depth: dict[str, float] = {}
        centres: dict[str, np.ndarray] = {}
        for pose in poses:
            if pose.kind == "pin":
                centres[pose.id] = pin_centre(pose.xy, pose.standing, pose.fall_angle)
            else:
                centres[pose.id] = pose.at(t)[0]
            if not pose.drawn:
                continue
            patch, shadows = self._draw(pose, t, weights)
            for i, rows, cols, occ in shadows:
                img[rows, cols] -= (np.float32(weights[i]) * occ)[..., None] * \
                    scene.lamp_radiance[i][rows, cols]
            if patch is not None:
                patches[pose.id] = patch
                depth[pose.id] = float(cam.to_camera(centres[pose.id][None])[0, 2])
        order = sorted(patches, key=lambda k: -depth[k])  # far first
        for oid in order:
            p = patches[oid]
            win = p.window
            img[win] = img[win] * (1 - p.alpha[..., None]) + p.colour
        cover = np.zeros((h, w), np.float32)
        occluders = []
        drawn = None
        if caps:
            mids = np.array([(c.a + c.b) / 2 for c in caps])
            lux = np.full(len(caps), look.ambient_lux)
            for g, wgt in zip(scene.lamps, weights, strict=True):
                if wgt:
                    lux += wgt * illuminance(g, mids)
            drawn = draw_capsules(cam, caps, lux, np.asarray(look.lamp_tint, np.float32))
        if drawn is not None:
            x0, y0, col, alpha = drawn
            win = (slice(y0, y0 + alpha.shape[0]), slice(x0, x0 + alpha.shape[1]))
            img[win] = img[win] * (1 - alpha[..., None]) + col
            cover[win] = np.maximum(cover[win], alpha)
            occluders.append("player")
        if self.graphics is not None:
            cover = np.maximum(cover, self.graphics[1])
            occluders.append("graphics")

        # truth: visibility near first
        objects: dict[str, ObjectTruth] = {}
        for oid in order[::-1]:
            p = patches[oid]
            win = p.window
            free = 1 - cover[win]
            total = float(p.sharp.sum())
            vis = float((p.sharp * free).sum()) / total if total > 0 else 0.0
            seen = (p.alpha * free) >= BOX_COVERAGE * float(p.alpha.max())
            box = None
            if np.any(seen):
                ys, xs = np.nonzero(seen)
                box = (p.x0 + xs.min() - 0.5, p.y0 + ys.min() - 0.5,
                       p.x0 + xs.max() + 0.5, p.y0 + ys.max() + 0.5)
            objects[oid] = (vis if box is not None else 0.0, box)
            cover[win] = np.maximum(cover[win], p.sharp)
        truth_objects = {}
        for pose in poses:
            c = cam.project(centres[pose.id][None])[0]
            vis, box = objects.get(pose.id, (0.0, None))
            truth_objects[pose.id] = ObjectTruth(pose.id, pose.kind, pose.state,
                                                 (float(c[0]), float(c[1])), box, vis,
                                                 pose.drawn)

        image = self._sensor(img)
        if self.graphics is not None:
            gcol, galpha = self.graphics
            a = galpha[..., None]
            image = (image * (1 - a) + gcol * a).astype(np.uint8)
        lamps_on = self.lamps_on(t)
        grid = self.lux(lamps_on)
        truth = FrameTruth(frame, t, truth_objects, cam.K.copy(), np.asarray(cam.dist).copy(),
                           np.ravel(cam.rvec).copy(), np.ravel(cam.tvec).copy(),
                           cam.homography(), grid["lux"], grid["x"], grid["y"], grid["cell"],
                           lamps_on, self.exposure, look.gain, look.auto_exposure, occluders)
        return image, truth

    def _sensor(self, radiance: np.ndarray) -> np.ndarray:
        look = self.look
        if look.auto_exposure:
            lum = radiance.reshape(-1, 3)[self._ae_pixels] @ np.array([0.2126, 0.7152, 0.0722],
                                                                     np.float32)
            mean = float(np.mean(lum)) * look.sensitivity * look.gain
            if mean > 0:
                want = look.ae_target / mean
                self.exposure = want if not self._ae_started else \
                    math.exp(0.7 * math.log(self.exposure) + 0.3 * math.log(want))
                self.exposure = float(np.clip(self.exposure, 1 / 8000, 1 / 25))
                self._ae_started = True
        scale = look.sensitivity * self.exposure * look.gain
        if look.lens_blur > 0.05:
            radiance = cv2.GaussianBlur(radiance, (0, 0), look.lens_blur)
        lin = cv2.multiply(radiance, self.vignette3, scale=scale)
        if look.noise:
            per_e = look.gain / look.full_well  # linear value of one electron
            var = lin * np.float32(per_e) + np.float32((look.read_noise * per_e) ** 2)
            sigma = cv2.sqrt(np.maximum(var, 0))
            n = lin.size
            off = int(self.noise_rng.integers(0, len(self.noise_bank) - n))
            lin = cv2.add(lin, cv2.multiply(self.noise_bank[off:off + n].reshape(lin.shape),
                                            sigma))
        lin = cv2.max(lin, 0.0)
        out = cv2.convertScaleAbs(cv2.pow(lin, 1 / GAMMA), alpha=255.0)
        return cv2.cvtColor(out, cv2.COLOR_RGB2BGR)
