"""The static part of a clip, computed once: table, surroundings and light per pixel.

Every pixel's ray is cast into a terraced model of the table: rail tops at
``Table.rail_top_height``, cushion tops at ``Table.cushion_height``, the cloth at
z = 0 and the floor below. A ray that crosses a level inside a higher region has met
that region's side (cushion face, rail side, apron). Each surface takes its albedo from
a top-down texture painted in table millimetres, so diamonds, spots and lines land
exactly where the table profile puts them, at their own height.

The light is kept per lamp: ``radiance[i]`` is what lamp ``i`` alone contributes
(albedo x tint x illuminance), so a lamp failure or flicker only re-weights sums.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from equipment import Discipline, Table

from .camera import Camera
from .look import Lamp, Look

FLOOR_DEPTH = 780.0  # mm, cloth above the floor [assumed: 75-80 cm table height]
CUSHION_BAND = 50.0  # mm, cushion rubber from the nose to the wooden rail [assumed]
LINE_WIDTH = 2.0  # mm, a chalked line [assumed]
SPOT_RADIUS = 6.0  # mm, a spot [assumed]
FACE_LIGHT = 0.35  # vertical faces get this share of the light on the tops [assumed]
REGION_CLOTH, REGION_CUSHION, REGION_RAIL, REGION_OUTSIDE, REGION_HOLE = 0, 1, 2, 3, 4


@dataclass
class LampGeometry:
    """A lamp resolved on a table: emitter sample points (mm) and their intensities (cd)."""

    points: np.ndarray  # (n, 3)
    intensities: np.ndarray  # (n,)
    centre: np.ndarray  # (3,)
    size: float = 0.0  # mm, side of the emitting square


def lamp_geometry(lamp: Lamp, table: Table) -> LampGeometry:
    centre = np.array([lamp.u * table.length, lamp.v * table.width, lamp.height])
    if lamp.size <= 0:
        pts = centre[None, :]
    else:
        k = 3
        offs = (np.arange(k) + 0.5) / k - 0.5
        gx, gy = np.meshgrid(offs * lamp.size, offs * lamp.size)
        pts = np.column_stack([centre[0] + gx.ravel(), centre[1] + gy.ravel(),
                               np.full(k * k, lamp.height)])
    return LampGeometry(pts, np.full(len(pts), lamp.intensity / len(pts)), centre, lamp.size)


def illuminance(geom: LampGeometry, points: np.ndarray) -> np.ndarray:
    """Illuminance in lux on upward-facing surfaces at ``points`` (..., 3) mm.

    Inverse square and cosine law per emitter point: E = I cos(theta) / d^2 with d in
    metres and cos(theta) = dz / d; the emitters radiate into the lower half space only.
    """
    p = np.asarray(points)
    dtype = np.float64 if p.dtype == np.float64 else np.float32
    px, py, pz = (p[..., k].astype(dtype) for k in range(3))
    out = np.zeros(p.shape[:-1], dtype)
    for (sx, sy, sz), intensity in zip(geom.points, geom.intensities, strict=True):
        dx, dy, dz = px - dtype(sx), py - dtype(sy), dtype(sz) - pz
        d2 = (dx * dx + dy * dy + dz * dz) * dtype(1e-6)  # m^2
        e = dtype(intensity) * (np.clip(dz, 0, None) * dtype(1e-3)) / (d2 * np.sqrt(d2))
        out += e
    return out


def rail_reflection(geom: LampGeometry, points: np.ndarray, view: np.ndarray,
                    gloss: float, roughness: float) -> np.ndarray:
    """What a varnished top at ``points`` (N, 3) mm, seen along unit rays ``view``
    (N, 3) from the camera, mirrors of one lamp, in the renderer's units (albedo x lux
    of a white matte surface that looks as bright).

    The mirrored ray is followed up to the lamp's height; the lamp's light there is
    spread as a Gaussian of its emitter square (variance side^2 / 12) blurred by the
    varnish (``roughness`` rad over the path). Luminance L = gloss I / (2 pi s^2), and a
    matte white surface of luminance L reads as pi L lux.
    """
    up = -view[:, 2]  # the mirrored ray's rise per unit length
    lift = float(geom.centre[2]) - points[:, 2]
    out = np.zeros(len(points), np.float32)
    ok = (up > 1e-3) & (lift > 0)
    path = np.where(ok, lift / np.where(ok, up, 1.0), 0.0)  # mm to the lamp's plane
    px = points[:, 0] + path * view[:, 0]
    py = points[:, 1] + path * view[:, 1]
    rho2 = (px - geom.centre[0]) ** 2 + (py - geom.centre[1]) ** 2
    s2 = geom.size ** 2 / 12.0 + (path * roughness) ** 2 + 1.0  # mm^2
    intensity = float(geom.intensities.sum())
    lum = gloss * intensity / (2 * np.pi * s2 * 1e-6) * np.exp(-rho2 / (2 * s2))
    out[ok] = (np.pi * lum)[ok]
    return out


def lux_grid(table: Table, lamps: list[LampGeometry], on: list[float], ambient: float,
             cells: tuple[int, int] = (20, 10)) -> dict:
    """Lux on the cloth at the centres of ``cells`` over the playing surface."""
    nx, ny = cells
    xs = (np.arange(nx) + 0.5) * table.length / nx
    ys = (np.arange(ny) + 0.5) * table.width / ny
    X, Y = np.meshgrid(xs, ys, indexing="ij")
    pts = np.stack([X, Y, np.zeros_like(X)], axis=-1)
    E = np.full(X.shape, ambient)
    for g, w in zip(lamps, on, strict=True):
        if w:
            E = E + w * illuminance(g, pts)
    return {"x": xs, "y": ys, "cell": (table.length / nx, table.width / ny), "lux": E}


def pocket_holes(table: Table) -> list[tuple[tuple[float, float], float]]:
    """Pocket openings as discs: centred just behind the mouth, the jaws on their rim."""
    out = []
    for p in table.pockets:
        (ax, ay), (bx, by) = p.jaws
        mx, my = (ax + bx) / 2, (ay + by) / 2
        ox, oy = p.centre[0] - mx, p.centre[1] - my
        n = math.hypot(ox, oy) or 1.0
        push = 0.28 * p.mouth
        out.append(((mx + ox / n * push, my + oy / n * push), 0.57 * p.mouth))
    return out


# ------------------------------------------------------------------ procedural texture

def smooth_noise(rng: np.random.Generator, shape: tuple[int, int], scales: list[float],
                 weights: list[float]) -> np.ndarray:
    """Zero-mean fractal noise (sum of upsampled random grids), about unit RMS."""
    h, w = shape
    out = np.zeros((h, w), np.float32)
    for s, wt in zip(scales, weights, strict=True):
        gh, gw = max(2, int(h / s) + 2), max(2, int(w / s) + 2)
        g = rng.standard_normal((gh, gw)).astype(np.float32)
        out += wt * cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)
    out -= out.mean()
    return out / (out.std() + 1e-6)


class TopTexture:
    """A top-down albedo image of the table (cloth, cushions, rails) in table mm."""

    def __init__(self, table: Table, look: Look, rng: np.random.Generator):
        self.table = table
        pad = table.rail_width + 20.0
        self.x0, self.y0 = -pad, -pad
        self.res = max(1.0, (table.length + 2 * pad) / 2600.0)  # mm per texel
        w = int(math.ceil((table.length + 2 * pad) / self.res))
        h = int(math.ceil((table.width + 2 * pad) / self.res))
        self.shape = (h, w)
        self.codes = np.full((h, w), REGION_OUTSIDE, np.uint8)
        #: where each of ``table.diamonds`` was inlaid (mm): the drawing's place off by the
        #: table's build tolerance (``Look.table_tolerance``), set by :meth:`_paint`
        self.sights = np.array(table.diamonds, float).reshape(-1, 2)
        self.image = self._paint(look, rng)

    def px(self, x, y):
        return (np.asarray(x) - self.x0) / self.res, (np.asarray(y) - self.y0) / self.res

    def _ipt(self, x: float, y: float) -> tuple[int, int]:
        u, v = self.px(x, y)
        return int(round(float(u) * 16)), int(round(float(v) * 16))

    def _coverage(self, out: np.ndarray, bbox: tuple[float, float, float, float],
                  inside) -> None:
        """Paint into ``out`` (max) the anti-aliased coverage of a shape given by its
        signed distance ``inside(x, y)`` (mm, positive inside) over ``bbox`` (mm).

        Exact to a small fraction of a texel, where OpenCV's anti-aliased primitives snap
        thin lines to whole texels and shift filled polygons by up to half a texel
        (0.5-0.7 mm here): the markings and diamonds are the calibration's ground truth.
        """
        h, w = out.shape
        x0, y0, x1, y1 = bbox
        i0, j0 = self.px(x0, y0)
        i1, j1 = self.px(x1, y1)
        i0, i1 = max(0, int(math.floor(i0)) - 1), min(w, int(math.ceil(i1)) + 2)
        j0, j1 = max(0, int(math.floor(j0)) - 1), min(h, int(math.ceil(j1)) + 2)
        if i0 >= i1 or j0 >= j1:
            return
        xs = np.arange(i0, i1, dtype=np.float64) * self.res + self.x0
        ys = np.arange(j0, j1, dtype=np.float64) * self.res + self.y0
        # 5 x 5 sub-texels, each with a linear ramp across its own width: thin lines
        # (narrower than a texel) keep their true weight and centre
        sub = self.res / 5
        offs = (np.arange(5) - 2) * sub
        cov = np.zeros((len(ys), len(xs)))
        for oy in offs:
            for ox in offs:
                cov += np.clip(inside(xs[None, :] + ox, ys[:, None] + oy) / sub + 0.5,
                               0.0, 1.0)
        cov /= 25.0
        np.maximum(out[j0:j1, i0:i1], cov.astype(np.float32), out=out[j0:j1, i0:i1])

    # ---------------------------------------------------------- broadcast-table extras
    def _stamp(self, img: np.ndarray, coverage: np.ndarray, centre: tuple[float, float],
               colour, alpha: float) -> None:
        """Blend ``colour`` into ``img`` through ``coverage`` (texels) centred at a
        table point (mm); cut at the texture's edges."""
        h, w = img.shape[:2]
        ch, cw = coverage.shape
        u, v = self.px(*centre)
        x0, y0 = int(round(float(u) - cw / 2)), int(round(float(v) - ch / 2))
        xa, ya, xb, yb = max(0, x0), max(0, y0), min(w, x0 + cw), min(h, y0 + ch)
        if xa >= xb or ya >= yb:
            return
        a = alpha * coverage[ya - y0:yb - y0, xa - x0:xb - x0, None]
        img[ya:yb, xa:xb] = img[ya:yb, xa:xb] * (1 - a) + np.asarray(colour, np.float32) * a

    def _text(self, text: str, height_mm: float, length_mm: float, font: int,
              bold: bool) -> np.ndarray:
        """Anti-aliased coverage (texels) of ``text`` in an OpenCV Hershey font (built
        in: nothing to download), as tall as ``height_mm`` and no longer than
        ``length_mm``, reading along +x."""
        ss = 4
        thick = 3 if bold else 2
        (tw, th), base = cv2.getTextSize(text, font, 1.0, thick)
        scale = min(height_mm / self.res * ss / max(th, 1), length_mm / self.res * ss / max(tw, 1))
        thick = max(1, int(round(thick * scale)))
        (tw, th), base = cv2.getTextSize(text, font, scale, thick)
        pad = thick + 2
        canvas = np.zeros((th + base + 2 * pad, tw + 2 * pad), np.uint8)
        cv2.putText(canvas, text, (pad, pad + th), font, scale, 255, thick, cv2.LINE_AA)
        small = cv2.resize(canvas, (max(1, canvas.shape[1] // ss), max(1, canvas.shape[0] // ss)),
                           interpolation=cv2.INTER_AREA)
        return small.astype(np.float32) / 255.0

    def _paint_rail_extras(self, img: np.ndarray, look: Look, rng: np.random.Generator) -> None:
        """Sponsor lettering in the gaps between the diamonds, and chalk cubes left on the
        rail tops: bright marks of a diamond's size where no diamond is."""
        t = self.table
        top = (CUSHION_BAND + t.rail_width) / 2  # middle of the wooden top beyond the nose
        room = t.rail_width - CUSHION_BAND
        fonts = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX,
                 cv2.FONT_HERSHEY_COMPLEX)
        font, bold = int(rng.choice(fonts)), bool(rng.random() < 0.5)
        words = list(look.rail_text)
        if words:
            height = float(rng.uniform(0.35, 0.7)) * room
            xs = sorted({d[0] for d in t.diamonds if d[1] < 0})
            ys = sorted({d[1] for d in t.diamonds if d[0] < 0})
            gap_x = min(np.diff(xs)) if len(xs) > 1 else t.length / 8
            gap_y = min(np.diff(ys)) if len(ys) > 1 else t.width / 4
            gaps = []  # (centre x, centre y, length, along x)
            for a, b in zip(xs[:-1], xs[1:], strict=True):
                if b - a < 1.01 * gap_x:
                    gaps += [((a + b) / 2, -top, b - a, True), ((a + b) / 2, t.width + top,
                                                                 b - a, True)]
            for a, b in zip(ys[:-1], ys[1:], strict=True):
                if b - a < 1.01 * gap_y:
                    gaps += [(-top, (a + b) / 2, b - a, False),
                             (t.length + top, (a + b) / 2, b - a, False)]
            keep = float(rng.uniform(0.3, 1.0))
            turned = {rail: rng.random() < 0.5 for rail in range(4)}  # reads from inside?
            for i, (cx, cy, span, along_x) in enumerate(gaps):
                if rng.random() > keep:
                    continue
                length = span - look.diamond_size - 2 * float(rng.uniform(8.0, 40.0))
                if length < 2 * height:
                    continue
                cov = self._text(words[i % len(words)], height, length, font, bold)
                rail = (0 if cy < 0 else 1) if along_x else (2 if cx < 0 else 3)
                if along_x and turned[rail]:
                    cov = cov[::-1, ::-1]
                if not along_x:
                    cov = cov.T[::-1] if turned[rail] else cov.T[:, ::-1]
                self._stamp(img, np.ascontiguousarray(cov), (cx, cy), look.rail_text_colour,
                            0.95)
        for _ in range(look.rail_chalk):
            side = int(rng.integers(4))
            off = float(rng.uniform(CUSHION_BAND + 12.0, t.rail_width - 12.0))
            if side < 2:
                cx, cy = float(rng.uniform(0, t.length)), (-off if side == 0 else t.width + off)
            else:
                cx, cy = (-off if side == 2 else t.length + off), float(rng.uniform(0, t.width))
            s = 22.0 / self.res
            box = cv2.boxPoints(((s, s), (s, s), float(rng.uniform(0, 90))))
            cov = np.zeros((int(2 * s) + 1, int(2 * s) + 1), np.uint8)
            cv2.fillConvexPoly(cov, np.round(box * 16).astype(np.int32), 255, cv2.LINE_AA,
                               shift=4)
            blue = np.array([0.08, 0.3, 0.7], np.float32) * float(rng.uniform(0.6, 1.3))
            self._stamp(img, cov.astype(np.float32) / 255.0, (cx, cy), blue, 1.0)

    def _paint_cloth_logo(self, img: np.ndarray, look: Look, rng: np.random.Generator) -> None:
        """A maker's name printed on the cloth across the head end, a shade lighter or
        darker than the cloth (the weave shows through)."""
        t = self.table
        height = float(rng.uniform(35.0, 70.0))
        cov = self._text(look.cloth_logo, height, 0.5 * t.width, cv2.FONT_HERSHEY_DUPLEX,
                         rng.random() < 0.5)
        cov = np.ascontiguousarray(cov.T[::-1])  # reads across the table
        colour = look.cloth_rgb() * (1.6 if rng.random() < 0.7 else 0.55) + 0.02
        self._stamp(img, cov, (0.04 * t.length + height / 2 + 20.0, t.width / 2), colour,
                    float(rng.uniform(0.3, 0.7)))

    def _paint(self, look: Look, rng: np.random.Generator) -> np.ndarray:
        t = self.table
        h, w = self.shape
        cloth = look.cloth_rgb()
        weave = smooth_noise(rng, (h, w), [3, 12, 60], [0.5, 0.3, 0.2])
        # wear: lighter, greyer blobs around the spots and along the long axis
        q = 8  # wear is smooth: paint it at 1/8 of the texture resolution
        wear = np.zeros((h // q + 1, w // q + 1), np.float32)
        centres = list(t.spots.values()) + [(t.length * f, t.width / 2) for f in (0.3, 0.7)]
        for (sx, sy) in centres:
            u, v = self.px(sx, sy)
            r = rng.uniform(120, 260) / self.res / q
            cv2.circle(wear, (int(u / q), int(v / q)), max(1, int(r)), 1.0, -1)
        wear = cv2.GaussianBlur(wear, (0, 0), 140 / self.res / q)
        wear *= 0.6 + 0.4 * smooth_noise(rng, wear.shape, [5], [1.0])
        wear = cv2.resize(np.clip(wear * (0.2 * look.cloth_wear), 0, 0.2), (w, h))
        # albedo = cloth * (1 + texture * weave) blended toward a lighter grey by the wear
        grey = np.float32(cloth.mean() * 1.3 + 0.008)
        shade = 1.0 + np.float32(look.cloth_texture) * weave
        img = np.empty((h, w, 3), np.float32)
        for c in range(3):
            img[..., c] = cloth[c] * shade * (1 - wear) + grey * wear
        # blue chalk smudges, mostly near the cushions where players chalk and play
        for _ in range(look.chalk_marks):
            near = rng.random() < 0.7
            cx = rng.uniform(0, t.length)
            cy = rng.choice([rng.uniform(0, 150), rng.uniform(t.width - 150, t.width)]) \
                if near else rng.uniform(0, t.width)
            if rng.random() < 0.5:
                cx, cy = (rng.choice([rng.uniform(0, 150), rng.uniform(t.length - 150, t.length)]),
                          rng.uniform(0, t.width)) if near else (cx, cy)
            u, v = self.px(cx, cy)
            r = rng.uniform(2.0, 9.0) / self.res
            a = float(rng.uniform(0.15, 0.5))
            x0, y0 = int(u - 2 * r - 2), int(v - 2 * r - 2)
            x1, y1 = int(u + 2 * r + 3), int(v + 2 * r + 3)
            if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
                continue
            yy, xx = np.mgrid[y0:y1, x0:x1]
            blob = a * np.exp(-((xx - u) ** 2 + (yy - v) ** 2) / (2 * r * r))[..., None]
            chalk = np.array([0.05, 0.18, 0.45], np.float32)
            img[y0:y1, x0:x1] = img[y0:y1, x0:x1] * (1 - blob) + chalk * blob
        # markings: lines and spots, chalk-thin
        mark = np.zeros((h, w), np.float32)
        half = LINE_WIDTH / 2
        # where the installer really put them: off the drawing by the table's tolerance
        tol = float(look.table_tolerance)
        off = rng.spawn(1)[0] if tol > 0 else None

        def jitter(scale: float) -> np.ndarray:
            return off.normal(0.0, tol * scale, 2) if off is not None else np.zeros(2)

        if look.cloth_logo:  # under the markings
            self._paint_cloth_logo(img, look, rng.spawn(1)[0])

        for line in t.lines.values():
            line = [tuple(p) for p in np.asarray(line, float) + jitter(1.0)]
            for (ax, ay), (bx, by) in zip(line[:-1], line[1:], strict=False):
                def seg(x, y, ax=ax, ay=ay, bx=bx, by=by):
                    ux, uy = bx - ax, by - ay
                    s = np.clip(((x - ax) * ux + (y - ay) * uy) / max(ux * ux + uy * uy,
                                                                       1e-9), 0.0, 1.0)
                    return half - np.hypot(x - ax - s * ux, y - ay - s * uy)
                self._coverage(mark, (min(ax, bx) - half, min(ay, by) - half,
                                      max(ax, bx) + half, max(ay, by) + half), seg)
        for spot in t.spots.values():
            sx, sy = np.asarray(spot, float) + jitter(1.0)
            self._coverage(mark, (sx - SPOT_RADIUS, sy - SPOT_RADIUS, sx + SPOT_RADIUS,
                                  sy + SPOT_RADIUS),
                           lambda x, y, sx=sx, sy=sy: SPOT_RADIUS - np.hypot(x - sx, y - sy))
        ys, xs = np.nonzero(mark)
        if len(xs):
            a = mark[ys, xs, None] * 0.8
            img[ys, xs] = img[ys, xs] * (1 - a) + np.asarray(look.markings, np.float32) * a
        # cushions (same cloth, a little darker) and rails (wood with grain)
        xs = np.arange(w, dtype=np.float32) * self.res + self.x0
        ys = np.arange(h, dtype=np.float32) * self.res + self.y0
        band = CUSHION_BAND
        out_x, out_y = (xs < 0) | (xs > t.length), (ys < 0) | (ys > t.width)
        rail_x = (xs < -band) | (xs > t.length + band)
        rail_y = (ys < -band) | (ys > t.width + band)
        rail = rail_y[:, None] | rail_x[None, :]
        cushion = (out_y[:, None] | out_x[None, :]) & ~rail
        img[cushion] *= np.float32(look.cushion_shade)
        in_table = (((xs >= -t.rail_width) & (xs <= t.length + t.rail_width))[None, :]
                    & ((ys >= -t.rail_width) & (ys <= t.width + t.rail_width))[:, None])
        self.codes[in_table] = REGION_RAIL
        self.codes[cushion] = REGION_CUSHION
        self.codes[~(out_y[:, None] | out_x[None, :])] = REGION_CLOTH
        for (cx, cy), r in pocket_holes(t):
            u, v = self.px(cx, cy)
            centre16 = (int(round(float(u) * 16)), int(round(float(v) * 16)))
            # a dark leather rim around the opening, on the cushions and the rail
            rim = np.zeros((h, w), np.uint8)
            cv2.circle(rim, centre16, int(round((r + 12.0) / self.res * 16)), 1, -1,
                       shift=4)
            img[(rim > 0) & (self.codes != REGION_CLOTH)] = (0.035, 0.025, 0.02)
            cv2.circle(self.codes, (int(round(float(u) * 16)), int(round(float(v) * 16))),
                       int(round(r / self.res * 16)), REGION_HOLE, -1, shift=4)
        streak_x = cv2.resize(smooth_noise(rng, (h, w // 8 + 2), [1.5, 6], [0.6, 0.4]), (w, h))
        streak_y = cv2.resize(smooth_noise(rng, (h // 8 + 2, w), [1.5, 6], [0.6, 0.4]), (w, h))
        grain = np.where(rail_y[:, None], streak_x, streak_y)[rail]
        img[rail] = np.asarray(look.wood, np.float32) * (1 + look.rail_grain * grain[:, None])
        # diamonds on the rail tops
        dia = np.zeros((h, w), np.float32)
        size = float(look.diamond_size)
        for k, diamond in enumerate(t.diamonds):
            horizontal = diamond[1] < 0 or diamond[1] > t.width
            dx, dy = np.asarray(diamond, float) + jitter(0.6)
            self.sights[k] = dx, dy
            if look.diamond_shape == "round":
                r = size / 2
                self._coverage(dia, (dx - r, dy - r, dx + r, dy + r),
                               lambda x, y, dx=dx, dy=dy, r=r: r - np.hypot(x - dx, y - dy))
                continue
            a, b = (size / 2, size / 4) if horizontal else (size / 4, size / 2)
            norm = math.sqrt(1 / a ** 2 + 1 / b ** 2)
            self._coverage(dia, (dx - a, dy - b, dx + a, dy + b),
                           lambda x, y, dx=dx, dy=dy, a=a, b=b, norm=norm:
                           (1.0 - np.abs(x - dx) / a - np.abs(y - dy) / b) / norm)
        ys, xs = np.nonzero(dia)
        if len(xs):
            a = dia[ys, xs, None]
            img[ys, xs] = img[ys, xs] * (1 - a) + np.asarray(look.diamond, np.float32) * a
        if look.rail_text or look.rail_chalk:
            self._paint_rail_extras(img, look, rng.spawn(1)[0])
        return img


def _floor_texture(table: Table, look: Look, rng: np.random.Generator):
    """The room around the table, painted on the floor plane: floor, tables, people, boards."""
    span_x, span_y = table.length + 8000.0, table.width + 7000.0
    res = 8.0
    x0, y0 = table.length / 2 - span_x / 2, table.width / 2 - span_y / 2
    w, h = int(span_x / res), int(span_y / res)
    base = np.asarray(look.floor, np.float32)
    img = base[None, None, :] * (1 + 0.15 * smooth_noise(rng, (h, w), [3, 30], [0.5, 0.5])
                                 [..., None])

    def rect(cx, cy, sx, sy, colour, angle=0.0):
        box = cv2.boxPoints(((float((cx - x0) / res), float((cy - y0) / res)),
                             (float(sx / res), float(sy / res)), angle))
        cv2.fillConvexPoly(img, np.round(box * 16).astype(np.int32),
                           tuple(float(c) for c in colour), cv2.LINE_AA, shift=4)

    gap = 1500.0
    spots = [(table.length / 2 + s * (table.length + gap + 2 * table.rail_width), table.width / 2)
             for s in (-1, 1)]
    spots += [(table.length / 2 + s * (table.length + gap) / 2, table.width / 2 + t
               * (table.width + gap + 2 * table.rail_width)) for s in (-1, 1) for t in (-1, 1)]
    for k in rng.permutation(len(spots))[:look.other_tables]:
        cx, cy = spots[k]
        rect(cx, cy, table.length + 2 * table.rail_width, table.width + 2 * table.rail_width,
             np.asarray(look.wood) * 0.8)
        rect(cx, cy, table.length, table.width,
             np.asarray(look.cloth_rgb()) * rng.uniform(0.3, 0.6))
    for _ in range(look.people):
        side = rng.integers(4)
        along = rng.uniform(0.1, 0.9)
        off = rng.uniform(450, 900) + table.rail_width
        if side < 2:
            cx, cy = along * table.length, (-off if side == 0 else table.width + off)
        else:
            cx, cy = (-off if side == 2 else table.length + off), along * table.width
        shirt = rng.uniform(0.01, 0.5, 3)
        rect(cx, cy, 480, 260, shirt, float(rng.uniform(0, 180)))
        c = (int((cx - x0) / res), int((cy - y0) / res))
        cv2.circle(img, c, int(95 / res), tuple(float(v) for v in rng.uniform(0.01, 0.2, 3)),
                   -1, cv2.LINE_AA)
    if look.logos:
        for s in (-1, 1):
            cx = table.length / 2 + rng.normal(0, 300)
            cy = table.width / 2 + s * (table.width / 2 + table.rail_width + 700)
            colour = rng.uniform(0.05, 0.7, 3)
            rect(cx, cy, 2200, 420, colour)
            bw, bh = int(2000 / res), int(300 / res)
            text = np.zeros((bh, bw), np.uint8)
            (tw, th), _ = cv2.getTextSize("CUEREF OPEN", cv2.FONT_HERSHEY_DUPLEX, 1.0, 2)
            scale = min(bw / tw, bh / th) * 0.85
            cv2.putText(text, "CUEREF OPEN", (int(bw * 0.07), int(bh * 0.8)),
                        cv2.FONT_HERSHEY_DUPLEX, scale, 255, max(1, int(scale * 2)), cv2.LINE_AA)
            text = text[::-1]  # table y grows where image rows shrink: read it from above
            u0, v0 = int((cx - x0) / res - bw / 2), int((cy - y0) / res - bh / 2)
            if 0 <= u0 and u0 + bw <= w and 0 <= v0 and v0 + bh <= h:
                a = (text.astype(np.float32) / 255.0)[..., None]
                sub = img[v0:v0 + bh, u0:u0 + bw]
                img[v0:v0 + bh, u0:u0 + bw] = sub * (1 - a) + ((1 - colour) * 0.8).astype(
                    np.float32) * a
    return img, x0, y0, res


class StaticScene:
    """Per-pixel surfaces, albedo and per-lamp light of the table and room for one camera."""

    def __init__(self, discipline: Discipline, camera: Camera, look: Look,
                 rng: np.random.Generator):
        self.discipline = discipline
        self.table = table = discipline.table
        self.camera = camera
        self.look = look
        w, h = camera.size
        origin, rays = camera.pixel_rays()
        self.origin = origin.astype(np.float64)
        self.rays = rays
        self.lamps = [lamp_geometry(lp, table) for lp in look.lamps]
        top = TopTexture(table, look, rng)
        self.sights = top.sights  # the diamonds as inlaid (table mm, on the rail tops)
        floor_img, fx0, fy0, fres = _floor_texture(table, look, rng)

        levels = {"rail": table.rail_top_height, "cushion": table.cushion_height,
                  "cloth": 0.0, "floor": -FLOOR_DEPTH}
        ox, oy, oz = (float(v) for v in origin)
        hits = {}
        for name, z in levels.items():
            with np.errstate(divide="ignore"):  # a ray level with the horizon: inf, no hit
                s = (np.float32(z - oz)) / rays[..., 2]
            hits[name] = (np.float32(ox) + s * rays[..., 0], np.float32(oy) + s * rays[..., 1])

        material = np.full((h, w), -1, np.int8)  # 0 top, 1 face, 2 pocket, 3 floor, 4 apron
        map_x = np.zeros((h, w), np.float32)
        map_y = np.zeros((h, w), np.float32)
        hit_z = np.zeros((h, w), np.float32)
        hit_x = np.zeros((h, w), np.float32)
        hit_y = np.zeros((h, w), np.float32)

        def assign(mask, kind, mx, my, xy, z):
            new = mask & (material < 0)
            material[new] = kind
            map_x[new], map_y[new] = mx[new], my[new]
            hit_z[new] = z
            hit_x[new], hit_y[new] = xy[0][new], xy[1][new]

        # what each level's hit point lands on: the region codes of the top texture
        own = {"rail": (REGION_RAIL,), "cushion": (REGION_CUSHION,), "cloth": (REGION_CLOTH,)}
        above = {"rail": (), "cushion": (REGION_RAIL,), "cloth": (REGION_RAIL, REGION_CUSHION)}
        for name in ("rail", "cushion", "cloth"):
            xy, z = hits[name], levels[name]
            mx, my = top.px(*xy)
            mx, my = mx.astype(np.float32), my.astype(np.float32)
            code = cv2.remap(top.codes, mx, my, cv2.INTER_NEAREST,
                             borderMode=cv2.BORDER_CONSTANT, borderValue=REGION_OUTSIDE)
            assign(code == REGION_HOLE, 2, mx, my, xy, z)  # holes through every level
            assign(np.isin(code, own[name]), 0, mx, my, xy, z)
            if above[name]:
                assign(np.isin(code, above[name]), 1, mx, my, xy, z)
        fxy = hits["floor"]
        mx, my = (a.astype(np.float32) for a in top.px(*fxy))
        code = cv2.remap(top.codes, mx, my, cv2.INTER_NEAREST,
                         borderMode=cv2.BORDER_CONSTANT, borderValue=REGION_OUTSIDE)
        assign(code != REGION_OUTSIDE, 4, mx, my, fxy, -FLOOR_DEPTH)
        new = material < 0
        material[new] = 3
        hit_z[new] = -FLOOR_DEPTH
        hit_x[new], hit_y[new] = fxy[0][new], fxy[1][new]
        self.material = material
        self.cloth_xy = np.stack(hits["cloth"], axis=-1)
        self.cloth_mask = (material == 0) & (hit_z == 0.0)

        albedo = cv2.remap(top.image, map_x, map_y, cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_REPLICATE)
        fmx = ((fxy[0] - fx0) / fres).astype(np.float32)
        fmy = ((fxy[1] - fy0) / fres).astype(np.float32)
        floor = cv2.remap(floor_img, fmx, fmy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        albedo[material == 3] = floor[material == 3]
        albedo[material == 2] = (0.012, 0.010, 0.009)
        albedo[material == 4] = np.asarray(look.wood, np.float32) * 0.6
        self.albedo = albedo

        # light: per lamp irradiance of every pixel's surface (smooth: computed on every
        # second pixel and interpolated)
        pts = np.stack([hit_x[::2, ::2], hit_y[::2, ::2], hit_z[::2, ::2]], axis=-1)
        factor = np.ones((h, w), np.float32)
        factor[(material == 1) | (material == 4)] = FACE_LIGHT
        factor[material == 2] = 0.05
        factor[material == 3] = 0.5  # lamp shades cut the light beyond the table
        tint = np.asarray(look.lamp_tint, np.float32)
        self.lamp_lux = []  # (h, w) illuminance per lamp
        self.lamp_radiance = []
        for g in self.lamps:
            E = cv2.resize(illuminance(g, pts).astype(np.float32), (w, h),
                           interpolation=cv2.INTER_LINEAR) * factor
            self.lamp_lux.append(E)
            self.lamp_radiance.append(albedo * (E[..., None] * tint))
        amb = np.float32(look.ambient_lux) * np.where(material == 2, 0.05, 1.0).astype(np.float32)
        self.ambient_radiance = albedo * amb[..., None]
        if look.rail_gloss > 0:  # the lamps and the hall's lights mirrored by the varnish
            rail = (material == 0) & (hit_z == np.float32(levels["rail"]))
            hit = np.stack([hit_x[rail], hit_y[rail], hit_z[rail]], axis=1)
            for g, rad in zip(self.lamps, self.lamp_radiance, strict=True):
                rad[rail] += (rail_reflection(g, hit, rays[rail], look.rail_gloss,
                                              look.rail_roughness)[:, None] * tint)
            for u, v, height, intensity, size in look.hall_lights:
                g = LampGeometry(np.zeros((0, 3)), np.array([intensity]),
                                 np.array([u * table.length, v * table.width, height]), size)
                self.ambient_radiance[rail] += rail_reflection(
                    g, hit, rays[rail], look.rail_gloss, look.rail_roughness)[:, None]
        self._cache: dict[tuple, np.ndarray] = {}

    def radiance(self, weights: tuple[float, ...]) -> np.ndarray:
        """Background (albedo x illuminance) with lamp ``i`` weighted by ``weights[i]``."""
        key = tuple(round(w, 6) for w in weights)
        img = self._cache.get(key)
        if img is None:
            img = self.ambient_radiance.copy()
            for wgt, rad in zip(weights, self.lamp_radiance, strict=True):
                if wgt:
                    img += np.float32(wgt) * rad
            if len(self._cache) > 8:
                self._cache.clear()
            self._cache[key] = img
        return img

    def cloth_lux(self, weights: tuple[float, ...]) -> np.ndarray:
        E = np.full(self.material.shape, self.look.ambient_lux, np.float32)
        for wgt, lux in zip(weights, self.lamp_lux, strict=True):
            if wgt:
                E += np.float32(wgt) * lux
        return E
