"""What compression did to a frame's noise, for the light meter.

A pixel's code is a concave function of its light (the camera's output curve), so the
mean of a noisy patch's decoded codes is its light, but the decoded mean of its codes
is less. JPEG and video codecs smooth the noise away and keep each block's mean code:
the meter then reads the decoded mean, low by a share that grows as the cloth darkens
(benchmark scene 2543: a black cloth at gain 4, codes 25-36 with 7 codes of noise,
through JPEG at quality 55: the dim border read 6-12% low against the lit middle).

What the codec removed is still in the spread of its 8x8 blocks' means: a block's mean
carries 1/64 of its pixels' noise variance, and JPEG keeps it, rounded to a lattice
(its DC step, :func:`dc_step`) whose own variance is taken off (Sheppard's correction).
Blocks one and two apart tell the noise from the cloth's grain (:func:`pair_variances`);
the noise is fitted over the cloth's dark cells as shot and read noise against the code
level (:func:`sensor_noise`: a property of the camera at its settings, and one cell
holds too few blocks to say it alone), and each cell is read as it would be with that
noise back (:func:`expected_linear`). The light meter does the reading
(``LightMeter._noise_restored``); this module holds the statistics.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import cv2
import numpy as np

#: Gauss-Hermite nodes and weights for the mean over a normal spread of codes
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(16)
_WEIGHTS = _WEIGHTS / _WEIGHTS.sum()
#: a codec's block: JPEG's DCT, and H.264's macroblock halves
BLOCK = 8
#: a block grid shows when the differences across its boundaries exceed those
#: elsewhere by this factor (an uncompressed frame's are all alike)
GRID_CONTRAST = 1.1
#: block means sit on a DC lattice when their phase against it is this concentrated
#: (mean resultant length; values spread evenly give about 1/sqrt(n))
LATTICE = 0.5
#: JPEG's DC coefficient is 8 times the block's mean code less 128, rounded to a
#: multiple of its quantiser (1-255): the mean then sits on 128 + k * q / 8
DC_OFFSET = 128.0
#: the luma weights JPEG uses (BT.601) and the noise they leave of one channel's
LUMA_601_BGR = np.array([0.114, 0.587, 0.299])
LUMA_601_NOISE = float(np.sqrt((LUMA_601_BGR ** 2).sum()))


def curve_power(gamma: float | None) -> float:
    """The power of the camera's output curve in the dark: ``gamma``, or about 2.4 for
    sRGB (None)."""
    return 2.4 if gamma is None else float(gamma)


def expected_linear(mean_code: np.ndarray, sd_code: np.ndarray,
                    table: np.ndarray) -> np.ndarray:
    """Mean linear value of codes spread normally about ``mean_code`` by ``sd_code``
    (clipped to 0-255), through ``table`` (each code's linear value: the inverse of
    the camera's output curve). Same shape as ``mean_code``."""
    codes = np.clip(np.asarray(mean_code, float)[..., None]
                    + np.asarray(sd_code, float)[..., None] * _NODES, 0.0, 255.0)
    return (np.interp(codes, np.arange(256.0), table) * _WEIGHTS).sum(axis=-1)


def block_grid(gray: np.ndarray) -> tuple[int, int, bool]:
    """Where a codec's 8x8 block grid starts in the frame, (x, y) in 0-7: the phase whose
    boundaries show the largest steps (a frame cut after compression starts mid-block);
    and whether one shows at all, along both axes (else (0, 0): an uncompressed
    frame's structure lifts one phase of one axis to 1.15 at times)."""
    g = np.asarray(gray, np.float32)
    out, shown = [], True
    for axis in (1, 0):
        steps = np.abs(np.diff(g[::2] if axis == 1 else g[:, ::2], axis=axis))
        per = steps.mean(axis=1 - axis)  # per boundary between index i and i + 1
        by_phase = np.array([per[p::BLOCK].mean() for p in range(BLOCK)])
        p = int(np.argmax(by_phase))
        rest = float(np.median(np.delete(by_phase, p)))
        found = bool(by_phase[p] > GRID_CONTRAST * rest)
        shown &= found
        out.append((p + 1) % BLOCK)
    return (out[0], out[1], True) if shown else (0, 0, False)


@dataclass
class FrameBlocks:
    """A frame's 8x8 blocks as a codec left them: where their grid starts (``x0``,
    ``y0``: :func:`block_grid`), whether it shows, and the luma ``crop`` the blocks
    tile; their means, and what the light meter asks of some frames only (their inner
    spread, the DC lattice), worked out once when first asked."""

    x0: int
    y0: int
    grid_shown: bool
    crop: np.ndarray

    @functools.cached_property
    def means(self) -> np.ndarray:
        h, w = self.crop.shape
        return cv2.resize(self.crop, (w // BLOCK, h // BLOCK), interpolation=cv2.INTER_AREA)

    @functools.cached_property
    def step(self) -> float:
        """:func:`dc_step` of the blocks with some spread that do not clip (a flat
        block's pixels are rounded alike, its mean a whole code, on any step of 1/8)."""
        m = self.means
        inner = cv2.resize(self.crop * self.crop, m.shape[::-1],
                           interpolation=cv2.INTER_AREA) - m * m
        return dc_step(m[(inner > 0.25) & (m > 2) & (m < 253)])


def frame_blocks(frame: np.ndarray) -> FrameBlocks:
    """:class:`FrameBlocks` of a BGR or grey frame."""
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    x0, y0, shown = block_grid(gray)
    h, w = gray.shape
    bw, bh = (w - x0) // BLOCK, (h - y0) // BLOCK
    crop = gray[y0:y0 + BLOCK * bh, x0:x0 + BLOCK * bw].astype(np.float32)
    return FrameBlocks(x0, y0, shown, crop)


def dc_step(means: np.ndarray, max_samples: int = 4000) -> float:
    """The lattice step (in codes) that JPEG's DC quantiser left the blocks' mean luma
    on, 0 where none (uncompressed, or a codec without JPEG's DC). Of the steps ``q / 8``
    (q = 1-255) no larger than the means' own spread (any values lie close to a lattice
    much coarser than their spread), those whose phases concentrate the means
    (:data:`LATTICE`): the largest within a tenth of the best. Halves of the step fit as
    well as it, and near steps almost as well where the means span only a few codes
    (a black cloth's 25-36: 15/8 at 0.71 beside 14/8 at 0.86): give the whole frame's.
    A flat block's pixels are rounded alike and its mean is a whole code, on any step
    of 1/8: give the blocks with some spread only."""
    m = np.asarray(means, float).ravel()
    if len(m) > max_samples:  # evenly, not at random: the same frame gives the same step
        m = m[np.linspace(0, len(m) - 1, max_samples).astype(int)]
    if len(m) < 16:
        return 0.0
    spread = 1.4826 * float(np.median(np.abs(m - np.median(m))))
    q = np.arange(1, min(255, int(8 * spread)) + 1)
    if not len(q):
        return 0.0
    steps = q / 8.0
    phase = np.exp(2j * np.pi * (m[None, :] - DC_OFFSET) / steps[:, None])
    fit = np.abs(phase.mean(axis=1))
    if fit.max() <= LATTICE:
        return 0.0
    return float(steps[fit >= 0.9 * fit.max()].max())


def pair_variances(means: np.ndarray, cell: np.ndarray, n_cells: int, distance: int,
                   floor: float) -> tuple[np.ndarray, np.ndarray]:
    """Per cell, half the mean square difference of block means ``distance`` blocks
    apart (across and down) within the cell, and how many pairs it rests on. Pairs over
    3.5 robust deviations (plus ``floor``, the lattice step: a deviation can be 0 on it)
    are a ball's or a letter's edge and left out."""
    diffs, owners = [], []
    for axis in (1, 0):
        a = [slice(None), slice(None)]
        b = [slice(None), slice(None)]
        a[axis], b[axis] = slice(None, -distance), slice(distance, None)
        same = (cell[tuple(a)] == cell[tuple(b)]) & (cell[tuple(a)] >= 0)
        diffs.append((means[tuple(b)] - means[tuple(a)])[same])
        owners.append(cell[tuple(a)][same])
    d, c = np.concatenate(diffs).astype(float), np.concatenate(owners)
    if not len(d):
        return np.full(n_cells, np.nan), np.zeros(n_cells)
    order = np.lexsort((np.abs(d), c))
    d, c = d[order], c[order]
    ids = np.arange(n_cells)
    lo, hi = np.searchsorted(c, ids), np.searchsorted(c, ids, "right")
    typical = np.abs(d)[np.minimum((lo + hi) // 2, len(d) - 1)]
    scale = np.where(hi > lo, 1.4826 * typical + floor, np.inf)
    keep = np.abs(d) <= 3.5 * scale[c]
    count = np.bincount(c, weights=keep.astype(float), minlength=n_cells)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = np.bincount(c, weights=np.where(keep, d * d, 0.0), minlength=n_cells) / 2 / count
    return var, count


def sensor_noise(levels: np.ndarray, variances: np.ndarray, weights: np.ndarray,
                 gamma: float | None) -> tuple[float, float, float]:
    """``(shot, read, weave)`` with a code's variance ``shot * level ** (2 - gamma) +
    read * level ** (2 - 2 gamma) + weave * level ** 2`` fitted to the cells' (level,
    variance) pairs: weighted least squares, every term at least 0, cells over three
    robust deviations out dropped twice. Through a power curve a noise in light spreads
    over ``level ** (1 - gamma)`` times as many codes: shot noise (variance in light
    proportional to the light) gives the first term, read noise (fixed) the second; the
    cloth's weave, a share of its light, the third (not noise: the caller leaves it
    out). ``variances`` may be under 0 (an estimate's scatter)."""
    g = curve_power(gamma)
    ok = (levels > 1.0) & np.isfinite(variances) & (weights > 0)
    if ok.sum() < 4:
        return float("nan"), float("nan"), float("nan")
    x = np.column_stack([levels[ok] ** (2.0 - g), levels[ok] ** (2.0 - 2.0 * g),
                         levels[ok] ** 2.0])
    y, w = variances[ok], np.sqrt(weights[ok].astype(float))
    keep = np.ones(len(y), bool)
    coef = np.zeros(3)
    for _ in range(3):
        coef = _nonnegative_lstsq(x[keep] * w[keep, None], y[keep] * w[keep])
        res = (y - x @ coef) * w
        keep = np.abs(res) <= 3.0 * 1.4826 * float(np.median(np.abs(res))) + 1e-12
    return float(coef[0]), float(coef[1]), float(coef[2])


def _nonnegative_lstsq(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Least squares with every coefficient at least 0, for a few columns: the best
    over the subsets of columns whose free solution is non-negative."""
    best, best_err = np.zeros(a.shape[1]), float(b @ b)
    for mask in range(1, 2 ** a.shape[1]):
        cols = [j for j in range(a.shape[1]) if mask >> j & 1]
        sol = np.linalg.lstsq(a[:, cols], b, rcond=None)[0]
        if (sol < 0).any():
            continue
        full = np.zeros(a.shape[1])
        full[cols] = sol
        err = float(np.sum((b - a @ full) ** 2))
        if err < best_err:
            best, best_err = full, err
    return best


def noise_power_law(levels: np.ndarray, variances: np.ndarray, weights: np.ndarray,
                    gamma: float | None) -> tuple[float, float]:
    """``(a, b)`` with a code's variance ``exp(a) * level ** b`` over the cells'
    (level, variance) pairs: least squares in logs, weighted by ``weights``, cells over
    three robust deviations out dropped twice; ``b`` held between read noise's
    ``2 - 2 gamma`` and 0 (a spread that grows with the light: cloth texture). For the
    spread the samples still show, which is all above 0."""
    g = curve_power(gamma)
    ok = (levels > 1.0) & np.isfinite(variances) & (variances > 0) & (weights > 0)
    if ok.sum() < 3:
        return float("nan"), 0.0
    x = np.log(levels[ok])
    y = np.log(variances[ok])
    w = weights[ok].astype(float)
    keep = np.ones(len(x), bool)
    a, b = float(np.average(y, weights=w)), 0.0
    for _ in range(3):
        ww = w * keep
        xm = np.average(x, weights=ww)
        sxx = float(np.sum(ww * (x - xm) ** 2))
        b = float(np.sum(ww * (x - xm) * (y - np.average(y, weights=ww))) / sxx) if sxx > 0 else 0.0
        b = min(max(b, 2.0 - 2.0 * g), 0.0)
        a = float(np.average(y - b * x, weights=ww))
        res = y - a - b * x
        keep = np.abs(res) <= 3.0 * 1.4826 * float(np.median(np.abs(res))) + 1e-9
    return a, b
