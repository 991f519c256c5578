"""The light meter: illuminance over the cloth, from a camera with a fixed exposure.

With a fixed exposure a pixel's linear value (its code through the inverse of the
camera's output curve: sRGB, or the power law ``gamma`` the camera states) is
``k * vignette(r) * albedo * lux``; the cloth's albedo is uniform, so one lux-meter
reading at calibration time (or the camera's known settings) fixes ``k * albedo`` and
every cloth pixel becomes a lux reading. Balls, pins, hands and specular spots are not
cloth-coloured and are left out; worn cloth, lighter and greyer, is read through how far
its colour has moved toward grey; a player's shadow, cloth-coloured, by what stands
beside it. What is hidden gets the lamps' light: point lamps fitted to what is seen.
Rule 9 of 000 ("Tavolo") asks for at least 520 lux over the whole surface.

With auto exposure the camera rescales every frame to a target brightness: the
overall level then says nothing about lux. A lamp failing changes the *shape* of the
light over the cloth while the overall brightness stays put: that is how it is told.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import cv2
import numpy as np
from scipy.optimize import least_squares, nnls

from .compression import (
    BLOCK,
    LUMA_601_BGR,
    LUMA_601_NOISE,
    FrameBlocks,
    curve_power,
    expected_linear,
    frame_blocks,
    noise_power_law,
    pair_variances,
    sensor_noise,
)
from .result import Calibration

MIN_LUX = 520.0  # [000 Tavolo 9]
#: a reading this close to :data:`MIN_LUX` (share), on either side, is within the
#: meter's own error (its worst cell per scene, median / 99th percentile: 3.2% / 6.7%
#: over seeds 0-199, 3.5% / 8.4% over 200-399, docs/bench/light*.md): said "near 520
#: lux", neither flagged as under it nor passed. Benchmark scene 487's darkest cell is
#: 514 lux and was read 527; 7707's is 521.1 lux and was read 519.0
NEAR_MIN_SHARE = 0.05
CELLS = (20, 10)  # along x, along y
#: samples per cell side, over the cell's central SAMPLE_SPAN: through JPEG a cell's
#: reading rests on its 8x8 blocks, not its pixels, and the middle 60% of a 1280-px
#: frame's cell holds some 16; over 80% the worst cell of seeds 2400-2599 went from
#: 12.0% to 9.7% off (a lone border cell of a black cloth at quality 57 had read 11%)
SAMPLES = 20
SAMPLE_SPAN = 0.8
CELL_TRIM = (25.0, 75.0)  # a cell's level: the mean of its cloth pixels between these percentiles
WEAR_GREY = 1.3  # worn fibre's brightness over the cloth's mean channel (assumed; see wear_factor)
WEAR_MAX = 0.35  # the furthest toward grey that wear is taken to move the cloth's colour
WEAR_VISIBLE = 0.05  # a cloth this close to grey (any channel's share) shows no wear in colour
#: how many times the chromaticity a code or two moves a cloth pixel the cloth must lie
#: from grey for its wear to be read (LightMeter._wear_readable)
WEAR_READABLE = 3.0
#: how far (chromaticity, any channel) a cell's own median colour may lie from the
#: cloth's and still be the cloth's under another light's colour (LightMeter._cell_values)
LOCAL_CHROMA = 0.04
CHROMA_TOL = 0.015  # floor of the cloth-chromaticity gate (linear light)
POCKET_DARK = 2.7  # e: more than this much darker than the cloth is not cloth
CODE_ERROR = 2.0  # 8-bit codes a flat colour may be off by: quantisation and compression
CODE_SCATTER = 3.0  # or this many times the cloth's own scatter in codes around a cell
CODE_ERROR_MAX = 8.0  # but no more (see compression_codes)
CHANGE = 0.10  # relative change of a cell (or the mean) that counts as a change
SATURATED = 0.05  # share of clipped pixels over which a cell cannot be measured
#: a cell's cloth whose brightest channel has its 90th percentile under this code lies
#: 30 codes from the clip at 250, some 7 noise deviations of the world's noisiest camera
#: there (gain 4 on a 4,000-electron well: 4 codes): what clips in it is not the cloth
CLOTH_CLIPS = 220
#: cells of the cloth darker than this luma code, and how many of them, to measure the
#: noise compression took away from (LightMeter._noise_restored)
NOISE_DARK = 64
NOISE_CELLS = 20
#: a cell whose brightest channel's median is this near the top code is too near
#: clipping to take a lux-meter reading at: compression smooths some of its clipped
#: pixels back under the clip level, so it passes SATURATED with its brightest pixels
#: read low (benchmark scene 269: a reference there read every other cell 7-13% high)
NEAR_CLIP = 240
OCCLUDED = 0.25  # share of a cell's pixels not cloth over which something stands over it
SHADOW_DEPTH = 0.10  # how far below the light around it a cell beside an occluder is shadow
SOLID_MM = 25.0  # a ball on the cloth holds a square this wide (noise, chalk marks do not)
#: the most lamps :func:`fit_lamps` looks for, and the spread (robust RMS, log lux) its
#: fit must reach over the cells seen to be used: light that point lamps do not explain
#: that well (a hall's reflections, a lamp's shade) is left to the smooth surface alone
MAX_LAMPS = 4
LAMP_PARAMS = 4  # numbers each lamp adds to the fit: where it hangs (x, y, height), how bright
LAMP_FIT_RMS = 0.05
#: the share of the cells that must be seen for the lamps to be fitted: a cloth that
#: clips under the lamps leaves its rim, which does not say where they hang (benchmark
#: scene 2458, 55 of 200 cells seen: two lamps put 30 cm over the cloth, a rim cell
#: read 10% high)
LAMP_FIT_SEEN = 0.5
#: the lamps' height above the cloth that :func:`fit_lamps` starts from, and its bounds
#: (mm): rule 9 of 000 hangs three or four lamps 80-90 cm over the table; the bounds
#: leave room for halls that do not, and for a lamp wider than a point
LAMP_HEIGHT = (850.0, 600.0, 1500.0)
#: the degree along the table (across: up to 4, the two summing to one more at most) of
#: the smooth surface through what the lamps' light leaves. Freer, it follows a
#: shadow's soft edge and a worn patch further: degree 4 read seeds 2400-2599 with a
#: median worst cell per scene of 2.08%, degree 2 1.72% (bench/bench_light.py)
LAMP_RESIDUAL_DEGREE = 2


def srgb_to_linear(v: np.ndarray) -> np.ndarray:
    s = np.asarray(v, np.float64) / 255.0
    return np.where(s <= 0.04045, s / 12.92, ((s + 0.055) / 1.055) ** 2.4)


@functools.lru_cache(maxsize=8)
def _decoding_table(gamma: float | None) -> np.ndarray:
    """Linear value of each 8-bit code: the inverse of the camera's output curve."""
    codes = np.arange(256, dtype=np.float64)
    table = srgb_to_linear(codes) if gamma is None else (codes / 255.0) ** gamma
    table.flags.writeable = False
    return table


@functools.lru_cache(maxsize=8)
def _decoding_slope(gamma: float | None) -> np.ndarray:
    """Linear value per 8-bit code at each code (central differences)."""
    table = _decoding_table(gamma)
    slope = np.gradient(table)
    slope.flags.writeable = False
    return slope


def chroma_uncertainty(codes: np.ndarray, lin: np.ndarray, gamma: float | None,
                       code_error: float = CODE_ERROR) -> np.ndarray:
    """How far ``code_error`` codes in each channel can move a pixel's linear-light
    chromaticity. A code is a larger share of a dark pixel: JPEG at quality 37 moved the
    dim corners of a grey cloth by 0.03 (codes 61, 62, 65 to 62, 61, 67), twice the
    gate, and the corners went unmeasured."""
    step = _decoding_slope(gamma)[np.asarray(codes, np.uint8)] * code_error
    total = lin.sum(axis=-1, keepdims=True) + 1e-4
    share = lin / total
    # |d share_c| <= (step_c (1 - share_c) + share_c * sum of the other steps) / total
    bound = (step * (1.0 - 2.0 * share) + share * step.sum(axis=-1, keepdims=True)) / total
    return bound[..., 1:].max(axis=-1)


def compression_codes(dev: np.ndarray, per_code: np.ndarray, cloth: np.ndarray
                      ) -> np.ndarray:
    """Per cell, how many 8-bit codes compression may have moved the cloth's colour by:
    CODE_SCATTER times the scatter, in codes, of the chromaticity of its pixels
    (``dev`` from the cloth's, over ``per_code``: :func:`chroma_uncertainty` of one
    code) around it, between CODE_ERROR and CODE_ERROR_MAX. The scatter is the median
    of the 3 x 3 cells', so that a ball or an arm filling one cell does not widen the
    gate that must find it. Two codes are what rounding and a good JPEG do; through
    JPEG at quality 42, a black cloth at gain 3.8 (benchmark scene 12620) scattered by
    about 2.7 codes in its dim border cells and 0.1 in the middle: up to half of a
    border cell's pixels failed a gate of two codes, in 16-pixel colour blocks that
    read as a ball, and the cells dropped as a ball's shadow left the far corner to an
    extrapolation 16% high."""
    with np.errstate(invalid="ignore", divide="ignore"):
        scatter = 1.4826 * masked_percentile(dev / np.maximum(per_code, 1e-12), cloth, 50.0)
    window = np.lib.stride_tricks.sliding_window_view(
        np.pad(scatter, 1, constant_values=np.nan), (3, 3)).reshape(*scatter.shape, 9)
    ranked = np.sort(window, axis=-1)  # NaN last
    seen = np.isfinite(window).sum(axis=-1)
    around = np.take_along_axis(ranked, np.maximum(seen - 1, 0)[..., None] // 2, axis=-1)
    around = np.where(seen > 0, around[..., 0], 0.0)
    return np.clip(CODE_SCATTER * around, CODE_ERROR, CODE_ERROR_MAX)


LUMA_BGR = np.array([0.0722, 0.7152, 0.2126])  # linear BGR -> luminance


def wear_share(chroma: np.ndarray, cloth: np.ndarray) -> np.ndarray:
    """How far each (G, R) chromaticity has moved from the cloth's toward neutral grey:
    0 for the cloth's own colour, 1 for grey."""
    toward = np.array([1.0, 1.0]) / 3.0 - cloth
    return ((chroma - cloth) @ toward) / max(float(toward @ toward), 1e-12)


def wear_factor(share: np.ndarray, cloth: np.ndarray) -> np.ndarray:
    """Luminance of cloth worn ``share`` of the way toward grey, over the unworn cloth's.

    Worn cloth is lighter and greyer: its albedo is modelled as the dyed cloth's mixed
    with a grey fibre WEAR_GREY times as bright as the cloth's mean channel. On a dark
    purple cloth wear then lifts the luminance 25% while the colour moves a fifth of the
    way to grey, and a reference reading at a worn centre read every other cell 4-8% low
    (benchmark scene 111). WEAR_GREY is an assumption (the renderer's, docs/renderer.md):
    by this model a fibre 1.0 or 1.6 times as bright reads a cell whose albedo is a fifth
    grey fibre 4.6% off. A cloth already near grey shows no wear in its colour: there
    the factor is 1."""
    c = np.array([1.0 - cloth.sum(), cloth[0], cloth[1]])  # B, G, R shares
    share = np.clip(np.nan_to_num(share), 0.0, WEAR_MAX)
    if np.abs(c - 1.0 / 3.0).max() < WEAR_VISIBLE:
        return np.ones_like(share)
    mixed = share / (WEAR_GREY * (1.0 - share) + share)  # grey fibre's share of the albedo
    return 1.0 + mixed * (WEAR_GREY / (3.0 * float(LUMA_BGR @ c)) - 1.0)


def linear_light(codes: np.ndarray, gamma: float | None = None) -> np.ndarray:
    """Linear sensor values of 8-bit pixels. ``gamma``: the camera's output curve is
    ``code = linear ** (1 / gamma)``; None: the sRGB curve. The two part most in the
    dark: a 2.2 power decoded as sRGB reads code 40 25% high and code 100 right, so a
    dim corner read against a reference under a lamp came out 10-20% high."""
    return _decoding_table(gamma)[np.asarray(codes, np.uint8)]


def masked_percentile(values: np.ndarray, mask: np.ndarray, q) -> np.ndarray:
    """The ``q``-th percentile (linear interpolation, as ``np.percentile``) along the last
    axis of the ``values`` where ``mask``; NaN where none. ``q`` a sequence: one per
    percentile on a new last axis, from the same sort. One sort for every cell:
    ``np.nanpercentile`` loops over them (40 ms a frame)."""
    ranked = np.sort(np.where(mask, values, np.inf), axis=-1)
    last = np.maximum(mask.sum(axis=-1) - 1, 0)[..., None]
    pos = last * (np.atleast_1d(np.asarray(q, float)) / 100.0)
    lo = np.floor(pos).astype(int)
    a = np.take_along_axis(ranked, lo, axis=-1)
    b = np.take_along_axis(ranked, np.minimum(lo + 1, last), axis=-1)
    with np.errstate(invalid="ignore"):
        out = np.where(mask.any(axis=-1)[..., None], a + (b - a) * (pos - lo), np.nan)
    return out if np.ndim(q) else out[..., 0]


def masked_mean(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The mean along the last axis of the ``values`` where ``mask``; NaN where none."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(mask, values, 0.0).sum(axis=-1) / mask.sum(axis=-1)


#: a cell's cloth pixels split in two by brightness (Otsu, in log) this cleanly, the
#: brighter this many times the darker, each at least this share: two surfaces, not
#: one under varying light (a unimodal bell splits at 0.64 of its variance)
SPLIT_CLEAN = 0.8
SPLIT_RATIO = 1.15
SPLIT_SHARE = 0.15
#: ... and their mean luma codes more than this many steps of the DC lattice apart
SPLIT_LATTICE = 2.0


def brightness_split(lum: np.ndarray, cloth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each cell's (last axis) cloth pixels split in two by brightness where they form
    two populations: (split, darker), ``split`` per cell and ``darker`` per pixel (the
    darker population's pixels; meaningful where ``split``). Lettering printed on the
    cloth in its own colour, a shade lighter or darker, over half a cell or more
    (benchmark scene 1231: "MASTERS" across the head end, four cells read 12-17% high),
    is such a population; which of the two is the cloth the cells around decide."""
    n = cloth.sum(axis=-1)
    x = np.log(np.maximum(lum, 1e-6))
    ranked = np.sort(np.where(cloth, x, np.inf), axis=-1)
    finite = np.isfinite(ranked)
    r0 = np.where(finite, ranked, 0.0)
    cum = np.cumsum(r0, axis=-1)
    cum2 = np.cumsum(r0 * r0, axis=-1)
    m = ranked.shape[-1]
    s = np.arange(1, m + 1)  # pixels in the darker part, up to and including each one
    nn = np.maximum(n, 1)[..., None]
    tot, tot2 = cum[..., -1:], cum2[..., -1:]
    with np.errstate(invalid="ignore", divide="ignore"):
        mu0 = cum / s
        mu1 = (tot - cum) / (nn - s)
        between = (s / nn) * (1 - s / nn) * (mu1 - mu0) ** 2
        var = tot2 / nn - (tot / nn) ** 2
    valid = (s < n[..., None]) & (s >= SPLIT_SHARE * nn) & (nn - s >= SPLIT_SHARE * nn)
    between = np.where(valid, between, -1.0)
    k = np.argmax(between, axis=-1)[..., None]
    best = np.take_along_axis(between, k, axis=-1)[..., 0]
    gap = np.take_along_axis(mu1 - mu0, k, axis=-1)[..., 0]
    with np.errstate(invalid="ignore", divide="ignore"):
        clean = best / np.maximum(var[..., 0], 1e-12)
    split = (best > 0) & (clean > SPLIT_CLEAN) & (gap > np.log(SPLIT_RATIO)) & (n >= 10)
    threshold = np.take_along_axis(ranked, k, axis=-1)  # the darker part's brightest
    darker = cloth & (x <= threshold)
    return split, darker


def minimum_call(lux_min: float) -> str:
    """What a reading of ``lux_min`` (the darkest cell) says of the 520 lux minimum:
    ``under`` it, ``near`` it (within :data:`NEAR_MIN_SHARE`, either side: the meter
    cannot tell) or ``over`` it."""
    if lux_min < MIN_LUX * (1 - NEAR_MIN_SHARE):
        return "under"
    return "near" if lux_min < MIN_LUX * (1 + NEAR_MIN_SHARE) else "over"


@dataclass
class LightReading:
    """Lux per cell ``(nx, ny)`` (NaN where no cloth was seen) and the summary."""

    cells: np.ndarray
    x: np.ndarray  # cell centres, table mm
    y: np.ndarray
    relative: np.ndarray  # cells / their mean: the shape of the light
    level: float  # mean linear cloth value (exposure-dependent brightness)
    calibrated: bool  # False: no photometric calibration, only the shape is known
    status: str = "ok"  # ok | auto_exposure | uncalibrated
    warnings: list[str] = field(default_factory=list)
    #: the lamps as this frame shows them, rows of x, y, height (mm) and the light each
    #: gives the point under it alone (lux; the cells' units when not calibrated); None
    #: when no lamps were fitted or they no longer explain the light
    lamps: np.ndarray | None = None

    @property
    def lux_min(self) -> float:
        return float(np.nanmin(self.cells))

    @property
    def lux_mean(self) -> float:
        return float(np.nanmean(self.cells))

    @property
    def uniformity(self) -> float:
        return float(np.nanmin(self.relative))

    @property
    def under_minimum(self) -> bool:
        """Read under the minimum by more than the meter's own error: the light is
        under 520 lux somewhere on the cloth."""
        return (self.calibrated and self.status == "ok"
                and minimum_call(self.lux_min) == "under")

    @property
    def near_minimum(self) -> bool:
        """Read within the meter's own error of the minimum, either side: the camera
        cannot tell, a hand meter at the darkest place settles it."""
        return (self.calibrated and self.status == "ok"
                and minimum_call(self.lux_min) == "near")

    @property
    def darkest_mm(self) -> tuple[float, float] | None:
        """Table mm of the darkest cell's centre, where a hand meter settles a reading
        near the minimum; None when no cell was read."""
        if not np.isfinite(self.cells).any():
            return None
        i, j = np.unravel_index(np.nanargmin(self.cells), self.cells.shape)
        return float(self.x[i]), float(self.y[j])

    def record(self) -> dict:
        """The fields of a ``light`` event."""
        if self.status == "auto_exposure":
            return {"status": "auto_exposure", "uniformity": round(self.uniformity, 3)}
        d = {"uniformity": round(self.uniformity, 3)}
        if self.calibrated:
            d.update(lux_min=round(self.lux_min, 1), lux_mean=round(self.lux_mean, 1),
                     lux_tolerance=NEAR_MIN_SHARE)
            darkest = self.darkest_mm
            if darkest is not None:
                d["lux_min_at_mm"] = [round(v) for v in darkest]
        else:
            d["status"] = "uncalibrated"
        if self.lamps is not None:
            d["lamps"] = [lamp_record(row, self.calibrated) for row in self.lamps]
        return d


def lamp_record(row, calibrated: bool = True) -> dict:
    """One lamp's fields in a ``light`` event or a calibration's photometry: where it
    hangs (table mm) and, from a calibrated reading, the lux it gives under it."""
    d = {"x_mm": round(float(row[0]), 0), "y_mm": round(float(row[1]), 0),
         "height_mm": round(float(row[2]), 0)}
    if calibrated and len(row) > 3:
        d["lux"] = round(float(row[3]), 1)
    return d


def lamps_from_records(recs, where: str = "photometry") -> np.ndarray:
    """Rows of x, y, height (mm) from :func:`lamp_record` dicts (a saved calibration's
    lamps), with a clear error for a damaged file."""
    if not isinstance(recs, list):
        raise ValueError(f"{where}: 'lamps' must be a list of lamps")
    try:
        rows = np.array([[float(r["x_mm"]), float(r["y_mm"]), float(r["height_mm"])]
                         for r in recs], float).reshape(-1, 3)
    except (KeyError, TypeError, ValueError):
        raise ValueError(f"{where}: each lamp needs numbers x_mm, y_mm and height_mm"
                         ) from None
    if not np.isfinite(rows).all() or (rows[:, 2] <= 0).any():
        raise ValueError(f"{where}: a lamp's place must be finite and its height over 0")
    return rows


@functools.lru_cache(maxsize=8)
def _surface_basis(nx: int, ny: int, degree: int) -> np.ndarray:
    """Legendre products over an nx x ny grid: ``degree`` along, 4 across (cached: the
    meter reads the same grid every frame)."""
    u, v = np.meshgrid(np.linspace(-1, 1, nx), np.linspace(-1, 1, ny), indexing="ij")
    cols = [np.polynomial.legendre.legval(u, np.eye(degree + 1)[i])
            * np.polynomial.legendre.legval(v, np.eye(5)[j])
            for i in range(degree + 1) for j in range(5) if i + j <= degree + 1]
    B = np.stack([c.ravel() for c in cols], axis=1)
    B.flags.writeable = False
    return B


def _bending_rows(unseen: np.ndarray, order: int = 3) -> np.ndarray:
    """Differences of ``order`` along and across the cell grid, each one that touches an
    unseen cell: over a hole in what was seen the surface goes on as it came, not as the
    polynomial's free terms fall. Of the light itself, third differences: it goes on
    bending (the corner under the lamp-failure clip's sleeve, four cells past the last
    one seen, read 36% low or 88% high; second differences, a straight continuation,
    read it 23% high where the light falls off toward the corner). Of what is left once
    the lamps are fitted, first: it goes on level (see :func:`smooth_cells`). Where
    every cell is seen there are none."""
    nx, ny = unseen.shape
    idx = np.arange(nx * ny).reshape(nx, ny)
    u = unseen.ravel()
    step = np.diff(np.eye(order + 1), n=order, axis=0)[0] * (-1) ** order  # 1, -3, 3, -1
    rows = []
    for run in ([idx[k:nx - order + k] for k in range(order + 1)],
                [idx[:, k:ny - order + k] for k in range(order + 1)]):
        run = np.stack([r.ravel() for r in run], axis=1)  # order + 1 cells in a row
        run = run[u[run].any(axis=1)]
        r = np.zeros((len(run), nx * ny))
        np.put_along_axis(r, run, step, axis=1)
        rows.append(r)
    return np.vstack(rows)


def lamp_shapes(x: np.ndarray, y: np.ndarray, lamps: np.ndarray) -> np.ndarray:
    """The light each lamp (rows of x, y, height in mm) would give the cells at ``x``
    by ``y`` (mm), ``(nx, ny, 1 + n)``: first a level one (the hall's light), then each
    lamp's inverse-square and cosine law, h / (r^2 + h^2)^1.5, scaled to 1 at its peak."""
    X, Y = np.meshgrid(x, y, indexing="ij")
    out = [np.ones_like(X)]
    for lx, ly, h in np.asarray(lamps, float).reshape(-1, 3):
        out.append(h ** 3 / ((X - lx) ** 2 + (Y - ly) ** 2 + h * h) ** 1.5)
    return np.stack(out, axis=-1)


def fit_lamps(vals: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Point lamps above the cloth (rows of x, y, height in mm) whose light, with a
    level one, fits the cells seen (finite ``vals``) to LAMP_FIT_RMS in log lux; empty
    when none does, or when under LAMP_FIT_SEEN of the cells are seen. One lamp, then
    more while each one more pays for its numbers by the Bayesian information
    criterion, up to MAX_LAMPS, started evenly along the table's middle at LAMP_HEIGHT.
    Asked instead to take a fifth off the spread, a fourth lamp did not where the
    weave's own spread per cell (2%) was as large as what three left: benchmark scene
    5039, four lamps fitted as three, read the cells under the middle two 4-4.5% low
    and the far cushion 5% low. A robust fit: a shadow or a worn patch counts little.
    It is fitted once per camera (a few tenths of a second); frame by frame only the
    lamps' brightness is fitted again (:func:`lamp_light`), so a lamp failing is
    followed."""
    ok = np.isfinite(vals) & (vals > 0)
    if ok.sum() < LAMP_FIT_SEEN * ok.size:
        return np.zeros((0, 3))
    X, Y = np.meshgrid(x, y, indexing="ij")
    X, Y, target = X[ok], Y[ok], np.log(vals[ok])
    m = len(target)
    length, width = float(x[0] + x[-1]), float(y[0] + y[-1])
    h0, h_min, h_max = LAMP_HEIGHT

    def light(p: np.ndarray, n: int) -> np.ndarray:
        e = np.exp(p[0]) * np.ones_like(X)
        for lx, ly, h, li in p[1:].reshape(n, 4):
            e = e + np.exp(li) * h ** 3 / ((X - lx) ** 2 + (Y - ly) ** 2 + h * h) ** 1.5
        return e

    def slopes(p: np.ndarray, n: int) -> np.ndarray:
        """d log(light) / d p, by hand: differences cost a fit five times as long."""
        out = np.empty((len(X), len(p)))
        out[:, 0] = np.exp(p[0])
        for k, (lx, ly, h, li) in enumerate(p[1:].reshape(n, 4)):
            d = (X - lx) ** 2 + (Y - ly) ** 2 + h * h
            g = np.exp(li) * h ** 3 / d ** 1.5
            out[:, 1 + 4 * k] = 3.0 * g * (X - lx) / d
            out[:, 2 + 4 * k] = 3.0 * g * (Y - ly) / d
            out[:, 3 + 4 * k] = 3.0 * g * (d - h * h) / (h * d)
            out[:, 4 + 4 * k] = g
        return out / light(p, n)[:, None]

    best: tuple[float, np.ndarray] | None = None
    level = float(np.median(vals[ok]))
    for n in range(1, MAX_LAMPS + 1):
        p0 = [np.log(0.05 * level)]
        lo = [-np.inf]
        hi = [np.inf]
        for k in range(n):
            p0 += [length * (k + 0.5) / n, width / 2, h0, np.log(level / n)]
            lo += [-0.5 * length, -0.5 * width, h_min, -np.inf]
            hi += [1.5 * length, 1.5 * width, h_max, np.inf]
        res = least_squares(lambda p, n=n: np.log(light(p, n)) - target, np.array(p0),
                            jac=lambda p, n=n: slopes(p, n), bounds=(lo, hi),
                            loss="soft_l1", f_scale=0.03)
        # one lamp more (LAMP_PARAMS numbers) must pay for itself by the Bayesian
        # information criterion, m ln(cost) + k ln(m), on the fit's robust cost over the
        # m cells seen (half the sum of squares, but linear past f_scale: a shadow
        # counts little): under exp(-LAMP_PARAMS ln(m) / m) of the last, 10% less over
        # 200 cells. Not the spread, a median, which an extra lamp fitted to the noise
        # lowers by chance: by it three synthetic lamps were often taken for four
        cost = float(res.cost)
        if best is not None and cost >= best[1] * np.exp(-LAMP_PARAMS * np.log(m) / m):
            break
        best = (_spread(np.log(light(res.x, n)) - target), cost,
                res.x[1:].reshape(n, 4)[:, :3])
    if best is None or best[0] > LAMP_FIT_RMS:
        return np.zeros((0, 3))
    return best[2]


def _spread(r: np.ndarray) -> float:
    """A robust RMS of log residuals: a shadow or a worn patch does not count."""
    return 1.4826 * float(np.median(np.abs(r)))


def lamp_brightness(vals: np.ndarray, shapes: np.ndarray) -> np.ndarray | None:
    """The brightness of each of ``shapes`` (:func:`lamp_shapes`: the hall's level
    light first, then each lamp's light at the point under it) through the cells seen,
    none negative, fitted robustly in proportion to each cell's own (cells far off
    count less). None when too few cells are seen, or when the lamps no longer explain
    the light to LAMP_FIT_RMS (one off when they were fitted has come on, the camera
    moved to another table)."""
    ok = np.isfinite(vals) & (vals > 0)
    if ok.sum() < 2 * shapes.shape[-1]:
        return None
    A = shapes[ok] / vals[ok, None]  # each cell's row relative to its own value
    w = np.ones(int(ok.sum()))
    for _ in range(4):
        coef, _ = nnls(A * w[:, None], w)
        model = A @ coef
        if not (model > 0).all():
            return None
        w = 1.0 / np.maximum(1.0, np.abs(np.log(model)) / 0.03)
    ok_fit = (shapes @ coef > 0).all() and _spread(np.log(model)) <= LAMP_FIT_RMS
    return coef if ok_fit else None


def lamp_light(vals: np.ndarray, shapes: np.ndarray) -> np.ndarray | None:
    """The lamps' light over every cell (:func:`lamp_brightness`), or None when they no
    longer explain what is seen: the smooth surface alone then."""
    coef = lamp_brightness(vals, shapes)
    return None if coef is None else shapes @ coef


def smooth_cells(vals: np.ndarray, shapes: np.ndarray | None = None) -> np.ndarray:
    """Lamps light the cloth smoothly: a robust smooth surface (a polynomial in log lux,
    degree 10 along the table and 4 across; degree 6 along when too few cells are seen
    for that) through the cells seen gives every cell its lux, hidden ones too. A lamp
    80-90 cm up lights a pool over a metre wide, so what makes one cell depart from the
    surface is the cloth, not the light: the weave, a worn patch, chalk, a ball's
    shadow, a hand, JPEG blocks. Cells within 6% of the surface once kept their own
    value: that was most of what was left over 10% (worn cloth at a spot read 10% high
    beside a surface 4% off), and the median cell error of a scene was 1.4% where it is
    now 0.9% (the benchmark's 200 scenes, the camera's output curve given).
    Degree 6 was too stiff for three lamp pools along a 3.5 m table: it passed 8% under
    the middle one, where a reference reading then put every other cell 8% high
    (benchmark scene 127). Degree 10 is kept only while it stays within 15% of what the
    seen cells span: over a corner an arm hides, it once swung down to 49 lux where 300
    were. Too few cells for any surface: the cells as seen.

    With the camera's lamps known (``shapes``, :func:`lamp_shapes` of :func:`fit_lamps`)
    the surface is fitted to what the lamps' light leaves, and over a hole it goes on
    level, not bending: the lamps' fall-off toward a corner is theirs, not extrapolated
    from cells beside the hole that a shadow's soft edge dims by a few per cent (the
    lamp-failure clip's corner under the sleeve read 17% low, 785 lux for 941)."""
    base = None if shapes is None else lamp_light(vals, shapes)
    if base is not None:
        return base * _smooth_log(vals / base, order=1, degrees=(LAMP_RESIDUAL_DEGREE,))
    return _smooth_log(vals, order=3)


def _smooth_log(vals: np.ndarray, order: int, degrees: tuple[int, ...] = (10, 6)
                ) -> np.ndarray:
    """:func:`smooth_cells`' robust polynomial in log ``vals``, holes continued by
    differences of ``order`` (:func:`_bending_rows`)."""
    nx, ny = vals.shape
    y = np.log(np.where(vals > 0, vals, np.nan)).ravel()
    ok = np.isfinite(y)
    for degree in degrees:
        B = _surface_basis(nx, ny, degree)
        if ok.sum() < 2 * B.shape[1]:
            if degree == degrees[-1]:
                return vals
            continue
        lo, hi = float(y[ok].min()), float(y[ok].max())
        bend = _bending_rows(~ok.reshape(nx, ny), order) @ B  # over the unseen cells
        w = ok.astype(float)
        for _ in range(6):  # iteratively reweighted: cells far from the surface count less
            coef, *_ = np.linalg.lstsq(np.vstack([B[ok] * w[ok, None], bend]),
                                       np.concatenate([y[ok] * w[ok], np.zeros(len(bend))]),
                                       rcond=None)
            r = np.where(ok, y - B @ coef, 0.0)
            w = np.where(ok, 1.0 / np.maximum(1.0, np.abs(r) / 0.03), 0.0)
        fit = B @ coef
        # a high degree can swing wildly over cells nothing was seen of (a corner under
        # an arm): it must stay within what the seen cells span, or the stiffer one does
        if degree == degrees[-1] or (fit.min() > lo - 0.15 and fit.max() < hi + 0.15):
            break
    return np.exp(fit).reshape(nx, ny)


def shadowed_cells(vals: np.ndarray, occluded: np.ndarray,
                   suspect: np.ndarray | None = None,
                   shapes: np.ndarray | None = None) -> np.ndarray:
    """Cells in the shadow of something over the cloth (a player's arm, body or cue): the
    cells beside an ``occluded`` one that read more than SHADOW_DEPTH below the smooth
    light of the cells away from any. A shadow is cloth-coloured, only darker, so the
    gate keeps it, and the robust surface followed it into the lamp-failure clip's
    corner under the sleeve (114 lux read for 941): a corner cell constrains a surface
    of degree 10 almost alone. Only darker counts, and a failing lamp dims a pool a
    metre wide, past an arm's neighbours: the cells away from it carry the failure.
    Occluders are looked for off the border row, whose cells a cushion's nose or a
    pocket hides in part from a tilted camera; an arm reaching in crosses it.
    ``suspect`` cells (a border cell holding a ball, whose shadow it may read) are
    tested the same way against half the depth: a ball's shadow dims only part of the
    cell, so a cell that reads it is less dark than an arm's (benchmark scene 43 with
    the balls mid-game: a corner cell read 11.5% low, not caught at the full depth).
    ``shapes``: the camera's lamps (:func:`smooth_cells`), when they are known."""
    over = np.zeros(vals.shape, bool)
    over[1:-1, 1:-1] = occluded[1:-1, 1:-1]
    extra = np.zeros(vals.shape, bool) if suspect is None else suspect
    if not over.any() and not extra.any():
        return np.zeros(vals.shape, bool)
    by_occluder = cv2.dilate(over.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    near = by_occluder | extra
    depth = np.where(extra & ~by_occluder, SHADOW_DEPTH / 2, SHADOW_DEPTH)
    shadow = near
    for _ in range(4):  # then against the light of every cell kept: a clean corner, only
        # extrapolated to at first, comes back in
        light = smooth_cells(np.where(shadow, np.nan, vals), shapes)
        with np.errstate(invalid="ignore"):
            again = near & (vals < (1.0 - depth) * light)
        if (again == shadow).all():
            break
        shadow = again
    return shadow


class LightMeter:
    """Measures lux on the cloth of one calibrated camera, frame after frame."""

    def __init__(self, calib: Calibration, lux_per_unit: float | None = None,
                 vignette: float | None = None, cells: tuple[int, int] = CELLS,
                 auto_exposure: bool | None = None, gamma: float | None = None,
                 lamps: np.ndarray | None = None):
        self.calib = calib
        ph = calib.photometry or {}
        self.lux_per_unit = lux_per_unit if lux_per_unit is not None else ph.get("lux_per_unit")
        self.vignette = vignette if vignette is not None else float(ph.get("vignette", 0.0))
        # the camera's output curve (a power law, or sRGB when None): like the vignette, a
        # property of the camera that the frame cannot tell
        self.gamma = gamma if gamma is not None else ph.get("gamma")
        self.cells = cells
        self.auto_exposure = auto_exposure
        self._baseline: LightReading | None = None
        self._chroma: np.ndarray | None = None  # the cloth's linear-light chromaticity
        self._blocks: dict[tuple[int, int, int, int], np.ndarray] = {}
        #: the lamps (:func:`fit_lamps`, table mm): given, saved with the calibration
        #: (``photometry["lamps"]``), or fitted at the first reading
        if lamps is None and ph.get("lamps") is not None:
            lamps = lamps_from_records(ph["lamps"], "calibration photometry")
        self.lamps: np.ndarray | None = lamps
        self._build_sampling()

    def for_calibration(self, calib: Calibration) -> LightMeter:
        """The same camera's meter (its photometric scale, lens fall-off, output curve,
        exposure mode and grid) on a new calibration: the camera moved, not its light."""
        return LightMeter(calib, self.lux_per_unit, self.vignette, self.cells,
                          auto_exposure=self.auto_exposure, gamma=self.gamma,
                          lamps=self.lamps)

    def _build_sampling(self) -> None:
        """For every cell, the pixels of its central part (cloth plane)."""
        t = self.calib.profile
        cam = self.calib.camera
        nx, ny = self.cells
        self.x = (np.arange(nx) + 0.5) * t.length / nx
        self.y = (np.arange(ny) + 0.5) * t.width / ny
        k = SAMPLES  # samples per cell side, over the cell's central SAMPLE_SPAN
        u = (np.arange(k) + 0.5) / k * SAMPLE_SPAN - SAMPLE_SPAN / 2
        gx = self.x[:, None, None, None] + u[None, None, :, None] * t.length / nx
        gy = self.y[None, :, None, None] + u[None, None, None, :] * t.width / ny
        gx, gy = np.broadcast_arrays(gx, gy)
        px = cam.table_to_image(np.column_stack([gx.ravel(), gy.ravel()]))
        self._px = px.astype(np.float32).reshape(nx, ny, k * k, 2)
        step = SAMPLE_SPAN * np.array([t.length / nx, t.width / ny]) / k  # mm between samples
        self._solid = np.ones(tuple(max(1, int(round(SOLID_MM / v))) for v in step), np.uint8)
        w, h = cam.size
        r2 = ((px[:, 0] - w / 2) ** 2 + (px[:, 1] - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
        self._r2 = r2.reshape(nx, ny, k * k)
        inside = (px[:, 0] >= 0) & (px[:, 0] <= w - 1) & (px[:, 1] >= 0) & (px[:, 1] <= h - 1)
        self._inside = inside.reshape(nx, ny, k * k)

    def _near_clip(self, frame: np.ndarray, i: int, j: int) -> bool:
        """Whether cell (i, j)'s brightest channel has its median at NEAR_CLIP or more."""
        px = self._px[i, j][self._inside[i, j]]
        if not len(px):
            return False
        bgr = cv2.remap(frame, px[None, :, 0], px[None, :, 1], cv2.INTER_LINEAR)
        return bool(np.median(bgr.reshape(-1, 3).max(axis=-1)) >= NEAR_CLIP)

    def _cell_values(self, frame: np.ndarray) -> np.ndarray:
        nx, ny, m, _ = self._px.shape
        grid = self._px.reshape(nx * ny, m, 2)  # rows x cols both within remap's limits
        bgr = cv2.remap(frame, grid[..., 0], grid[..., 1], cv2.INTER_LINEAR).reshape(nx, ny, m, 3)
        lin = linear_light(bgr, self.gamma)
        lum = lin @ LUMA_BGR
        lum = lum / np.maximum(1.0 - self.vignette * self._r2, 0.2)
        clipped = self._inside & (bgr.max(axis=-1) >= 250)
        ok = self._inside & ~clipped  # clipped pixels measure nothing
        # cloth pixels: the cloth's chromaticity in linear light, which a change of the
        # light level leaves alone (balls, hands, pins and highlights differ)
        chroma = lin[..., 1:] / (lin.sum(axis=-1, keepdims=True) + 1e-4)
        lit = ok & (lum > 0.002)  # pixels with a colour to speak of
        if self._chroma is None:
            seen = chroma[lit]
            if not len(seen):
                raise ValueError("the light meter sees no cloth")
            self._chroma = np.median(seen, axis=0)
            self._chroma_tol = max(CHROMA_TOL, 3.0 * 1.4826 * float(
                np.median(np.abs(seen - self._chroma))))
        # lamps and the hall light the cloth in different colours (a bluish lamp, a warm
        # ambient): its colour drifts from the lamp-lit middle to the dim rim, by more
        # than the gate (benchmark scene 1483: a grey cloth's border cells 0.02 off,
        # none of one cell's pixels in the gate, those of its neighbour that were its
        # darker ones, read 10% low). Each cell is gated around its own median colour
        # where that is near the cloth's, around the cloth's elsewhere (an arm over it)
        local = masked_percentile(np.moveaxis(chroma, -1, -2), lit[..., None, :], 50.0)
        near = np.abs(local - self._chroma).max(axis=-1) < LOCAL_CHROMA
        reference = np.where(near[..., None], local, self._chroma)[..., None, :]
        dev = np.abs(chroma - reference).max(axis=-1)
        certain = ok & (dev < self._chroma_tol)
        # a pocket is as grey as a grey cloth: a pixel POCKET_DARK times darker than its
        # cell's cloth is not cloth (a pool table's corner cells read 99% low)
        typical = masked_percentile(lum, certain, 50.0)[..., None]
        pocket_dark = lum * POCKET_DARK < typical
        certain &= ~pocket_dark
        # a cell whose cloth clips in part is brighter than its unclipped pixels say:
        # leaving them out would read it low, so the whole cell is unmeasurable (NaN, not
        # filled). A clipped pixel white in every channel, in a cell whose cloth is far
        # from the clip, is a white ball's or a highlight's, not the cloth's (a cell
        # sampled over 80% of its side took in the white on its corner at 2,300 lux and
        # went unmeasured); a coloured cloth clips in one channel first
        cloth_top = masked_percentile(bgr.max(axis=-1), certain, 90.0)
        white = clipped & (bgr.min(axis=-1) >= 250) & (cloth_top < CLOTH_CLIPS)[..., None]
        saturated = ((clipped & ~white).sum(axis=-1)
                     > SATURATED * np.maximum(self._inside.sum(axis=-1), 1))
        # what stands over the cloth (an arm, a cue, a ball): a share of a cell's pixels
        # that no code or two of compression (more where the cloth around scatters by
        # more: compression_codes) could have made of the cloth's colour, or far darker
        # than it (a dim grey cloth through JPEG fails the strict gate alone)
        per_code = chroma_uncertainty(bgr, lin, self.gamma, code_error=1.0)
        code_error = compression_codes(dev, per_code, ok)
        code_tol = np.hypot(self._chroma_tol, per_code * code_error[..., None])
        foreign = ok & ((dev >= code_tol) | pocket_dark)
        occluded = foreign.sum(axis=-1) > OCCLUDED * np.maximum(ok.sum(axis=-1), 1)
        q = self._cell_levels(lum, certain)  # (level, low quartile) per cell
        split, darker = brightness_split(lum, certain)
        # not beside something over the cloth: its shadow is a darker population too,
        # which the shadow test reads (below)
        split &= ~cv2.dilate(occluded.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
        # nor on the border, where a cushion's shadow or a pocket takes part of a cell
        # (benchmark scenes 145 and 364: split there, read 6% and 10% off)
        split[[0, -1], :] = split[:, [0, -1]] = False
        blocks = frame_blocks(frame)  # the codec's: for the split, and the noise it took
        if split.any():
            # nor in two levels of a codec's DC lattice: a dim cloth's blocks rounded a
            # step up or down (benchmark scene 8099, a black cloth through JPEG at
            # quality 42: 39 cells split 1.9-3.4 codes apart on a step of 2.4, each
            # read from one of the two, 10% high or low); a print stands further apart
            # (the lettering of scene 1231: 13 codes)
            luma = bgr.astype(np.float32) @ LUMA_601_BGR
            with np.errstate(invalid="ignore"):
                gap = (masked_mean(luma, certain & ~darker) - masked_mean(luma, certain & darker))
            split &= gap > SPLIT_LATTICE * blocks.step
        if split.any():
            # print on the cloth: of the two populations, the one the light around says
            dark_q = self._cell_levels(lum, certain & darker)
            light_q = self._cell_levels(lum, certain & ~darker)
            around = smooth_cells(np.where(split | saturated, np.nan, q[..., 0]))
            with np.errstate(invalid="ignore", divide="ignore"):
                nearer_dark = (np.abs(np.log(dark_q[..., 0] / around))
                               < np.abs(np.log(light_q[..., 0] / around)))
            pick = np.where(nearer_dark[..., None], dark_q, light_q)
            chosen = split & np.isfinite(around) & np.isfinite(pick[..., 0])
            q = np.where(chosen[..., None], pick, q)
            # the wear is read from the cloth's population alone
            side = np.where(nearer_dark[..., None], darker, ~darker)
            certain = np.where(chosen[..., None], certain & side, certain)
        # A cell the gate leaves without enough cloth may be a dim one whose colour a code
        # or two of compression moved (a grey cloth's corners through JPEG): there the
        # gate widens by what such codes can do. A sleeve's or a pocket's near-black
        # pixels, whose colour is all noise, would pass it too: a pixel let in by the
        # widening must also be within POCKET_DARK of the smooth surface through the
        # cells seen. Cells the strict gate sees keep its reading (widened everywhere,
        # the gate let a sleeve's shadowed edge into the lamp-failure clip's corner).
        unseen = ~np.isfinite(q[..., 0]) & ok.any(axis=-1)
        if unseen.any():
            widened = unseen[..., None] & ok & (dev < code_tol)
            expected = smooth_cells(np.where(saturated, np.nan, q[..., 0]))[..., None]
            q = np.where(unseen[..., None], self._cell_levels(
                lum, certain | (widened & (lum * POCKET_DARK >= expected))), q)
        # compression smoothed the noise away: each cell read as with its noise back
        q = q * self._noise_restored(blocks, bgr, certain)[..., None]
        q = np.where(saturated[..., None], np.nan, q)
        # worn cloth: each cell read as the unworn cloth would be, from its colour's shift
        if self._wear_readable(per_code, certain):
            q = q / wear_factor(masked_percentile(wear_share(chroma, self._chroma), certain,
                                                  50.0), self._chroma)[..., None]
        level, low = q[..., 0], q[..., 1]
        # a ball in a border cell casts its shadow over cloth that the gate keeps, and a
        # border cell constrains the smooth surface almost alone (a mid-game corner cell
        # read 41% low): such a cell is dropped when it reads as a shadow would. A shadow
        # over part of a cell is told by the cell's low quartile, which reads it: the
        # middle half's mean reads it diluted (the lamp-failure clip's corner cells under
        # the sleeve's shadow stayed in and the corner read 22% low)
        suspect = self._ball_in_border_cell(foreign & ~pocket_dark)
        if self.lamps is None:  # from cells away from anything over the cloth
            beside = cv2.dilate(occluded.astype(np.uint8), np.ones((3, 3), np.uint8))
            self.lamps = fit_lamps(np.where(beside.astype(bool) | suspect, np.nan, level),
                                   self.x, self.y)
            # saved with the calibration: the same camera's meter starts from them, and
            # a person can check them against the hall
            self.calib.photometry["lamps"] = [lamp_record(row) for row in self.lamps]
        shapes = lamp_shapes(self.x, self.y, self.lamps) if len(self.lamps) else None
        shadow = shadowed_cells(low, occluded, suspect, shapes)
        cells = smooth_cells(np.where(shadow, np.nan, level), shapes)
        return np.where(saturated, np.nan, cells)

    def _block_cells(self, x0: int, y0: int, bw: int, bh: int) -> np.ndarray:
        """The cell (flat index) whose sampled part holds each 8x8 block's centre, for a
        block grid starting at (x0, y0); -1 for blocks outside them all."""
        key = (x0, y0, bw, bh)
        if key not in self._blocks:
            t = self.calib.profile
            nx, ny = self.cells
            gx, gy = np.meshgrid(x0 + BLOCK * np.arange(bw) + (BLOCK - 1) / 2,
                                 y0 + BLOCK * np.arange(bh) + (BLOCK - 1) / 2)
            xy = self.calib.camera.image_to_table(np.column_stack([gx.ravel(), gy.ravel()]))
            fx, fy = xy[:, 0] * nx / t.length, xy[:, 1] * ny / t.width
            ix, iy = np.floor(fx).astype(int), np.floor(fy).astype(int)
            inner = ((np.abs(fx - ix - 0.5) <= SAMPLE_SPAN / 2)
                     & (np.abs(fy - iy - 0.5) <= SAMPLE_SPAN / 2)
                     & (ix >= 0) & (ix < nx) & (iy >= 0) & (iy < ny))
            self._blocks[key] = np.where(inner, ix * ny + iy, -1).reshape(bh, bw)
        return self._blocks[key]

    def _noise_restored(self, blocks: FrameBlocks, bgr: np.ndarray,
                        certain: np.ndarray) -> np.ndarray:
        """Per cell, how much more light its pixels held than its compressed codes
        decode to (1 where nothing was smoothed away): see :mod:`.compression`.

        Only a compressed frame (a block grid or a DC lattice shows) has any taken. The
        noise is measured in the blocks' mean luma over the cloth's dark cells, fitted
        as shot and read noise against the level (:func:`.compression.sensor_noise`),
        and given back to each channel as the spread it had (channels alike in codes:
        shot noise through a 2.2 power curve nearly is), less what the cell's samples
        still vary by from one to the next. A cell's level and spread are taken from
        fits over the cloth too: one cell's few samples would move its factor by more
        than the factor itself."""
        nx, ny, m, _ = bgr.shape
        means = blocks.means
        bh, bw = means.shape
        cell = self._block_cells(blocks.x0, blocks.y0, bw, bh)
        n = nx * ny
        inside = cell >= 0
        level = np.bincount(cell[inside], weights=means[inside], minlength=n) / np.maximum(
            np.bincount(cell[inside], minlength=n), 1)
        # the cloth's weave and print vary its codes in proportion to its level, the
        # sensor's noise hardly with it (shot noise through a 2.2 power curve): only in
        # dark cells does the noise outweigh the weave in the blocks' spread (scene 8, a
        # red cloth at codes 85-146 and gain 1, over all cells: 32-48 codes squared of
        # luma noise fitted, under 1 rendered; bench/noise_restored.py --dark 256)
        dark = level < NOISE_DARK
        if dark.sum() < NOISE_CELLS:
            return np.ones((nx, ny))
        # the lattice from the whole frame's blocks: the cloth's span a few codes, too
        # few to tell 23/8 from 24/8
        step = blocks.step
        if not step and not blocks.grid_shown:
            return np.ones((nx, ny))  # nothing compressed the frame: its noise is all there
        # blocks in one cell: a difference holds twice a block mean's noise, what the
        # light and the cloth vary by over the distance (a gradient, wear, the weave's
        # coarser grain) and the lattice's rounding. The noise is the same at one block
        # apart and two, the cloth's variation grows with the distance: taken as growing
        # in proportion (a weave's grain about a block across does: on scene 2543 the
        # fit gives 24 and 41 codes squared of luma noise at levels 42 and 28, the
        # renderer's are 21 and 47, bench/noise_restored.py; taken as growing with its
        # square, about 14 and 31), what is left at no distance, twice the one less the
        # two, is the noise. A smooth gradient's step squared is taken off with it: it
        # errs toward giving back too little
        near, n_near = pair_variances(means, cell, n, 1, step)
        far, n_far = pair_variances(means, cell, n, 2, step)
        block_var = 2 * near - far - step * step / 12  # Sheppard: the lattice
        shot, read, _ = sensor_noise(level[dark], BLOCK * BLOCK * block_var[dark],
                                     np.minimum(n_near, n_far)[dark], self.gamma)
        if not np.isfinite(shot):
            return np.ones((nx, ny))
        g = curve_power(self.gamma)
        codes = bgr.astype(np.float32)
        # the samples' middle half per channel: their level (continuous, not a median
        # code) and their spread; and what they still vary by from one to the next
        lo_hi = masked_percentile(np.moveaxis(codes, -1, -2), certain[..., None, :],
                                  list(CELL_TRIM))  # (nx, ny, channel, 2)
        middle = certain[..., None] & (codes >= lo_hi[..., 0][..., None, :]) & (
            codes <= lo_hi[..., 1][..., None, :])
        centre = (np.where(middle, codes, 0.0).sum(axis=-2)
                  / np.maximum(middle.sum(axis=-2), 1))  # (nx, ny, channel)
        spread = (((lo_hi[..., 1] - lo_hi[..., 0]) / 1.349) ** 2).mean(axis=-1)
        k = int(round(np.sqrt(m)))
        grid = codes.reshape(nx, ny, k, k, 3)
        seen = certain.reshape(nx, ny, k, k)
        sq, pairs = np.zeros((nx, ny)), np.zeros((nx, ny))
        for axis in (2, 3):
            both = (np.take(seen, range(1, k), axis=axis)
                    & np.take(seen, range(k - 1), axis=axis))
            sq += ((np.diff(grid, axis=axis) ** 2).mean(axis=-1) * both).sum(axis=(2, 3))
            pairs += both.sum(axis=(2, 3))
        left = sq / 2 / np.maximum(pairs, 1)
        luma = centre @ LUMA_601_BGR
        ok = (middle.sum(axis=-2) > 0).all(axis=-1) & np.isfinite(spread)
        weight = np.where(ok, certain.sum(axis=-1), 0)
        y = np.maximum(luma, 1.0)
        now, still = (
            np.exp(a) * y ** b for a, b in (
                noise_power_law(luma.ravel(), var.ravel(), weight.ravel(), self.gamma)
                for var in (spread, left)))
        if not (np.isfinite(now).all() and np.isfinite(still).all()):
            return np.ones((nx, ny))
        before = (shot * y ** (2.0 - g) + read * y ** (2.0 - 2.0 * g)) / LUMA_601_NOISE ** 2
        lost = np.maximum(before - still, 0.0)
        table = _decoding_table(self.gamma)
        centre = np.nan_to_num(centre)
        with np.errstate(invalid="ignore", divide="ignore"):
            gain = (expected_linear(centre, np.sqrt(now + lost)[..., None], table) @ LUMA_BGR
                    / (expected_linear(centre, np.sqrt(now)[..., None], table) @ LUMA_BGR))
        return np.where(ok & np.isfinite(gain), gain, 1.0)

    def _wear_readable(self, per_code: np.ndarray, cloth: np.ndarray) -> bool:
        """Whether the cloth's colour lies far enough from grey for a shift toward grey
        to be read as wear through its pixels' codes: WEAR_READABLE times the
        chromaticity a code or two moves its typical pixel (:func:`chroma_uncertainty`).
        A dark, nearly grey cloth's pixels through noise and JPEG move further than
        that on their own, toward grey where the light is dim (benchmark scene 1541: a
        black cloth 0.05 from grey, its pixels' codes worth 0.025-0.043, the dim ends
        read as worn and 10-16% low; 5% at most with the wear left alone). ``per_code``:
        each pixel's :func:`chroma_uncertainty` of one code."""
        if not cloth.any():
            return False
        u = CODE_ERROR * float(np.median(per_code[cloth]))
        toward = np.array([1.0, 1.0]) / 3.0 - self._chroma
        return float(np.hypot(*toward)) >= WEAR_READABLE * u

    def _ball_in_border_cell(self, foreign: np.ndarray) -> np.ndarray:
        """Border cells with something on the cloth at least SOLID_MM across in them
        (a ball or a pin; not a pocket or a black sleeve, left out by the caller)."""
        nx, ny, m = foreign.shape
        k = int(round(np.sqrt(m)))
        out = np.zeros((nx, ny), bool)
        border = np.zeros((nx, ny), bool)
        border[[0, -1], :] = border[:, [0, -1]] = True
        for i, j in zip(*np.nonzero(foreign.any(axis=-1) & border), strict=True):
            grid = foreign[i, j].reshape(k, k).astype(np.uint8)
            out[i, j] = bool(cv2.morphologyEx(grid, cv2.MORPH_OPEN, self._solid).any())
        return out

    @staticmethod
    def _cell_levels(lum: np.ndarray, cloth: np.ndarray) -> np.ndarray:
        """Each cell's level and low quartile, ``(..., 2)``: the mean of its cloth
        pixels between the CELL_TRIM percentiles, and the first of them (NaN with too
        few). The middle half leaves out a logo's letters and a ball's rim; its mean is
        steadier under JPEG than one percentile, which moves with the weave's spread
        that compression smooths: through JPEG at quality 57 the cells of benchmark
        scene 111 (a dark purple cloth) moved by 2.9% (sd) read at their 25th
        percentile, the level before, and by 1.9% read so."""
        enough = cloth.sum(axis=-1) >= max(5, lum.shape[-1] // 6)
        lo, hi = np.moveaxis(masked_percentile(lum, cloth, CELL_TRIM)[..., None, :], -1, 0)
        middle = cloth & (lum >= lo) & (lum <= hi)
        level = masked_mean(lum, middle)
        seen = enough & (middle.sum(axis=-1) > 0)
        return np.where(seen[..., None], np.stack([level, lo[..., 0]], axis=-1), np.nan)

    def reference(self, frame: np.ndarray, lux: float, at: tuple[float, float] | None = None
                  ) -> float:
        """Fix the photometric scale from one lux-meter reading taken with this frame:
        at table point ``at`` (mm), or the mean over the cloth when ``at`` is None."""
        vals = self._cell_values(frame)
        if at is None:
            unit = float(np.nanmean(vals))
        else:
            # the smooth surface through all the cells at that point, not the one cell:
            # a pin's shadow or a worn patch there would bias every reading after it
            i = int(np.argmin(np.abs(self.x - at[0])))
            j = int(np.argmin(np.abs(self.y - at[1])))
            if self._near_clip(frame, i, j):
                raise ValueError("the camera is near clipping at the reference point: take "
                                 "the lux reading where the cloth looks darker, or lower "
                                 "the exposure")
            unit = float(vals[i, j])
        if not np.isfinite(unit) or unit <= 0:
            raise ValueError("the light meter cannot see the cloth at the reference point")
        self.lux_per_unit = lux / unit
        self.calib.photometry.update(lux_per_unit=self.lux_per_unit, vignette=self.vignette,
                                     gamma=self.gamma, reference_lux=lux, reference_at=at)
        return self.lux_per_unit

    def measure(self, frame: np.ndarray) -> LightReading:
        vals = self._cell_values(frame)
        level = float(np.nanmean(vals))
        rel = vals / level
        calibrated = self.lux_per_unit is not None
        cells = vals * (self.lux_per_unit or 1.0)
        status = "ok" if calibrated else "uncalibrated"
        if self.auto_exposure:
            status = "auto_exposure"
        r = LightReading(cells, self.x, self.y, rel, level, calibrated, status,
                         lamps=self._lamps_seen(cells))
        n_sat = int(np.isnan(vals).sum())
        if n_sat:
            r.warnings.append(f"the camera clips over {n_sat} of {vals.size} cells of the "
                              "cloth: no lux there (it is bright; lower the exposure to "
                              "measure it)")
        if r.under_minimum:
            r.warnings.append(f"light under {MIN_LUX:.0f} lux on part of the cloth "
                              f"(minimum {r.lux_min:.0f} lux) [000 Tavolo 9]")
        elif r.near_minimum:
            x, y = r.darkest_mm
            r.warnings.append(f"light near {MIN_LUX:.0f} lux on part of the cloth (minimum "
                              f"{r.lux_min:.0f} lux, within the meter's "
                              f"{NEAR_MIN_SHARE:.0%}, at x {x:.0f} mm, y {y:.0f} mm): "
                              "check it there with a lux meter [000 Tavolo 9]")
        return r

    def _lamps_seen(self, cells: np.ndarray) -> np.ndarray | None:
        """Each lamp's place and the light it gives under it in this reading (the
        cells' units): a lamp failing is named, not only the light's change."""
        if self.lamps is None or not len(self.lamps):
            return None
        coef = lamp_brightness(cells, lamp_shapes(self.x, self.y, self.lamps))
        return None if coef is None else np.column_stack([self.lamps, coef[1:]])

    def observe(self, frame: np.ndarray) -> tuple[LightReading, bool]:
        """Measure and compare with the first reading: (reading, changed).

        Auto exposure is inferred when the light's shape changed but the overall
        brightness did not (a camera chasing a target level hides the change).
        """
        r = self.measure(frame)
        if self._baseline is None:
            self._baseline = r
            return r, False
        b = self._baseline
        with np.errstate(all="ignore"):
            # a lamp failing moves many cells; a noisy corner cell moves alone
            shape_change = float(np.nanpercentile(np.abs(r.relative / b.relative - 1.0), 90))
        level_change = abs(r.level / b.level - 1.0)
        changed = shape_change > CHANGE or level_change > CHANGE
        if self.auto_exposure is None and shape_change > 1.5 * CHANGE and level_change < 0.03:
            self.auto_exposure = True
            r.status = "auto_exposure"
        if changed:
            self._baseline = r
        return r, changed
