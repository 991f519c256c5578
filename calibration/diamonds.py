"""Find the diamonds on the rail tops, given the cloth's outline.

The cloth quadrilateral predicts, for a table profile, where each diamond should be;
each is looked for as a small bright blob (a top-hat image) in a window around that
place. The diamonds all lie on one plane (the rail tops), so their pixels follow a
homography of that plane up to the lens's distortion: a homography after a one-term
radial (division) undistortion fits them to about a pixel, where a plain homography
is off by up to 0.7% of the frame width at the corners. Fitting that model robustly
(RANSAC) with a tolerance of a few pixels throws out the mismatches (a chalk line's
end at the cushion, a letter of a score graphic, a ball's highlight) that a plain
homography had to let through; a second search around the model's predictions finds
the rest. The camera fit (:mod:`calibration.fit`) later predicts, with its full lens
model, the ones still missed (:func:`grow_diamonds`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from equipment.tables import Table

MIN_PEAK = 10.0  # grey levels a diamond must stand above the top-hat background
MIN_DIAMONDS = 6  # fewer than this: the profile does not fit the view
#: mm around a diamond it must stand out of (a diamond is ~22 mm long): the test must
#: not shrink with the search radius, or a small window holds little but the diamond
#: (benchmark seed 0: the camera's 12 mm search found 1 diamond of 17 it predicted to
#: 0.2 px)
CONTEXT_MM = 45.0
#: the radial term of the rail-plane model, k of the division model u = x / (1 + k r^2)
#: with r in half frame widths: barrel lenses have k < 0 (broadcast zooms to about
#: -0.15, the benchmark's cameras -0.13 .. 0.03). The robust first fits try a coarse
#: grid, likeliest first; each refinement then searches 0.04 either side of the last k
K_RANSAC = (-0.08, 0.0, -0.16, 0.08, -0.24, -0.32)
K_FINE = np.round(np.arange(-0.04, 0.0401, 0.005), 4)
RANSAC_GRID_PX = 4.0  # what k up to 0.04 off the grid's can move a diamond (px)
#: mm: a blob this close (edge to edge) to another as bright is a letter among letters,
#: not a diamond (sponsor lettering sets its letters 1-8 mm apart, and no maker puts
#: it that close to a sight)
TEXT_GAP_MM = 4.5


#: what the cloth quadrilateral given to :func:`locate_diamonds` outlines: the cloth
#: (its edge somewhat beyond the cushion noses) or the rails' outer edge
OUTLINES = ("cloth", "rails")
#: what a sight's top-hat takes as its background (:func:`locate_diamonds`): the
#: square opening, that with the rails' grain taken out, or the local median
BACKGROUNDS = ("square", "grain", "lettering")


def table_corners(table: Table, c: float = 0.0) -> np.ndarray:
    """Playing-surface corners grown by ``c`` mm on every side (head-left first)."""
    L, W = table.length, table.width
    return np.array([[-c, -c], [L + c, -c], [L + c, W + c], [-c, W + c]], float)


def cloth_outline_mm(table: Table) -> float:
    """How far (mm) beyond the noses the cloth's outline is taken to lie: the cushion
    tops, which the cloth's colour covers."""
    return max(20.0, 2 * table.diamond_offset - table.rail_width)


def outline_mm(table: Table, outline: str = "cloth") -> float:
    """How far (mm) beyond the noses a quadrilateral that outlines ``outline``
    (:data:`OUTLINES`) lies: the cloth's outline, or the rails' outer edge."""
    if outline not in OUTLINES:
        raise ValueError(f"unknown outline {outline!r}; known: {', '.join(OUTLINES)}")
    return table.rail_width if outline == "rails" else cloth_outline_mm(table)


def px_per_mm(quad: np.ndarray, table: Table, c0: float) -> float:
    """Rough image scale from the cloth quadrilateral (grown by ``c0`` mm)."""
    sides = [np.linalg.norm(quad[(i + 1) % 4] - quad[i]) for i in range(4)]
    return float(np.mean([(sides[0] + sides[2]) / 2 / (table.length + 2 * c0),
                          (sides[1] + sides[3]) / 2 / (table.width + 2 * c0)]))


def start_index(quad: np.ndarray) -> int:
    """Index of the quad corner taken as table corner 0 (a long side comes first)."""
    sides = [np.linalg.norm(quad[(i + 1) % 4] - quad[i]) for i in range(4)]
    return 0 if sides[0] + sides[2] >= sides[1] + sides[3] else 1


def diamond_tophat(gray: np.ndarray, ppm: float, cache: dict) -> np.ndarray:
    """Top-hat image for diamonds: bright details that hold no square of ~40 mm (the
    rails, the cloth, the floor's large patches vanish; a 22 x 11 mm diamond stays).
    A square is separable, so this is ~6x faster than a disc of the same size at
    1920 px, and it runs once per profile; cached per scale."""
    k = int(max(5, round(40 * ppm))) | 1
    if k not in cache:
        se = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
        cache[k] = cv2.morphologyEx(gray, cv2.MORPH_TOPHAT, se).astype(np.float32)
    return cache[k]


def lettering_tophat(gray: np.ndarray, ppm: float, cache: dict) -> np.ndarray:
    """Bright details over the median of the ~40 mm around them: sights set between
    the dark letters of a sponsor's name on a light rail.

    There the square top-hat's opening takes the letters' dark as the background, and
    the wood between the strokes is as bright as a pearl sight over it (benchmark scenes
    711 and 958: "GRAND PRIX", "BILLIARD CLUB" 6-10 px from each sight; 0 and 9 of 18
    sights found). The median of the window is the wood, letters and all, and a sight
    stands out of it alone. ``gray`` is 8-bit (the median filter's fast path); cached
    per scale."""
    k = min(int(max(5, round(40 * ppm))) | 1, 255)
    key = ("lettering", k)
    if key not in cache:
        cache[key] = cv2.subtract(gray, cv2.medianBlur(gray, k)).astype(np.float32)
    return cache[key]


#: mm: a line this long along a rail fits in its grain's streaks, not in a sight (22 mm)
GRAIN_LINE_MM = 45.0


def _line_kernel(length: int, angle: float) -> np.ndarray:
    """A one-pixel digital line ``length`` px long at ``angle`` (radians), centred."""
    k = np.zeros((length, length), np.uint8)
    c = (length - 1) / 2
    d = np.array([np.cos(angle), np.sin(angle)]) * c
    cv2.line(k, (int(round(c - d[0])), int(round(c - d[1]))),
             (int(round(c + d[0])), int(round(c + d[1]))), 1, 1)
    return k


def grain_tophat(gray: np.ndarray, ppm: float, H: np.ndarray, table: Table,
                 cache: dict) -> np.ndarray:
    """:func:`diamond_tophat` with the rails' grain taken out: on each rail, what also
    holds a line of :data:`GRAIN_LINE_MM` along that rail is background.

    Light wood (maple, beech) is streaked along the rail, and its streaks are as
    bright and as narrow as a pearl sight across the rail: in the square top-hat a
    sight is one bright spot among many (benchmark scenes 218 and 367, 1280 px: 10
    and 6 of the sights found well). A streak holds a line along the rail; a sight,
    22 mm long, does not. ``H`` maps the rail-top plane (table mm) to pixels roughly
    (the cloth outline's homography): it gives each rail's direction and band. Its
    centroids are a little looser than the square top-hat's on plain rails, so it is
    a fallback (:func:`calibration.fit._find_sights`)."""
    square = diamond_tophat(gray, ppm, cache)  # gray less its square opening
    th = square.copy()
    length = int(max(5, round(GRAIN_LINE_MM * ppm))) | 1
    h, w = gray.shape
    L, W, off = table.length, table.width, table.diamond_offset
    reach = min(0.3 * min(W / 4, L / 8), 90.0) + CONTEXT_MM + GRAIN_LINE_MM
    # each rail: its diamond line (mm) and the band around it
    rails = [((0.0, -off), (L, -off)), ((0.0, W + off), (L, W + off)),
             ((-off, 0.0), (-off, W)), ((L + off, 0.0), (L + off, W))]
    for a, b in rails:
        a, b = np.array(a), np.array(b)
        along = (b - a) / np.linalg.norm(b - a)
        across = np.array([-along[1], along[0]])
        ends = cv2.perspectiveTransform(np.array([a, b], float).reshape(-1, 1, 2),
                                        H).reshape(-1, 2)
        v = ends[1] - ends[0]
        angle = float(np.arctan2(v[1], v[0]))
        band = np.array([a + reach * (across - along), b + reach * (across + along),
                         b - reach * (across - along), a - reach * (across + along)])
        poly = cv2.perspectiveTransform(band.reshape(-1, 1, 2), H).reshape(-1, 2)
        x0, y0 = np.clip(np.floor(poly.min(axis=0)).astype(int) - length, 0, (w, h))
        x1, y1 = np.clip(np.ceil(poly.max(axis=0)).astype(int) + length + 1, 0, (w, h))
        if x1 - x0 < length or y1 - y0 < length:
            continue
        roi = gray[y0:y1, x0:x1]
        opened = cv2.morphologyEx(roi, cv2.MORPH_OPEN, _line_kernel(length, angle))
        level = roi.astype(np.float32)
        grainless = level - np.maximum(opened, level - square[y0:y1, x0:x1])
        mask = np.zeros(roi.shape, np.uint8)
        cv2.fillConvexPoly(mask, np.round((poly - (x0, y0)) * 16).astype(np.int32), 1,
                           shift=4)
        th[y0:y1, x0:x1][mask > 0] = grainless[mask > 0]
    return th


def tolerance_px(ppm: float) -> float:
    """How far (px) a diamond may lie from the rail-plane model: the model's own error
    (up to ~1.6 px at 1920 px with tangential distortion), a blob centroid's, and a
    few mm for diamonds set slightly off their nominal places."""
    return 2.5 + 4.0 * ppm


# ------------------------------------------------------------------ rail-plane model
def _undistort(px: np.ndarray, k: float, size: tuple[int, int]) -> np.ndarray:
    c = (np.asarray(size, float) - 1) / 2
    s = size[0] / 2
    u = (np.asarray(px, float).reshape(-1, 2) - c) / s
    return c + s * u / (1.0 + k * np.sum(u * u, axis=1, keepdims=True))


def _distort(px: np.ndarray, k: float, size: tuple[int, int]) -> np.ndarray:
    """Inverse of :func:`_undistort` (fixed-point iteration; |k r^2| is small)."""
    c = (np.asarray(size, float) - 1) / 2
    s = size[0] / 2
    u = (np.asarray(px, float).reshape(-1, 2) - c) / s
    x = u.copy()
    for _ in range(8):
        x = u * (1.0 + k * np.sum(x * x, axis=1, keepdims=True))
    return c + s * x


@dataclass
class RailModel:
    """Rail-top plane (table mm) -> px: a homography after a radial undistortion."""

    H: np.ndarray  # table mm -> undistorted px
    k: float
    size: tuple[int, int]

    def project(self, mm: np.ndarray) -> np.ndarray:
        u = cv2.perspectiveTransform(np.asarray(mm, float).reshape(-1, 1, 2), self.H)
        return _distort(u.reshape(-1, 2), self.k, self.size)

    def residuals(self, mm: np.ndarray, px: np.ndarray) -> np.ndarray:
        """Distance (px, in the undistorted frame: nearly the same) of each point."""
        u = cv2.perspectiveTransform(np.asarray(mm, float).reshape(-1, 1, 2), self.H)
        return np.linalg.norm(u.reshape(-1, 2) - _undistort(px, self.k, self.size), axis=1)


def _normalizer(p: np.ndarray) -> np.ndarray:
    """Similarity taking points (..., N, 2) to zero mean and RMS distance sqrt(2)."""
    c = p.mean(axis=-2)
    d = np.sqrt(np.mean(np.sum((p - c[..., None, :]) ** 2, axis=-1), axis=-1)) + 1e-12
    s = np.sqrt(2) / d
    T = np.zeros(p.shape[:-2] + (3, 3))
    T[..., 0, 0] = T[..., 1, 1] = s
    T[..., 0, 2] = -s * c[..., 0]
    T[..., 1, 2] = -s * c[..., 1]
    T[..., 2, 2] = 1.0
    return T


def _apply(H: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Homographies (..., 3, 3) applied to points (..., N, 2)."""
    q = p @ H[..., :2, :2].swapaxes(-1, -2) + H[..., None, :2, 2]
    w = p @ H[..., 2, :2, None] + H[..., None, 2, 2:3]
    return q / w


def _fit_k(src: np.ndarray, dst: np.ndarray, size, ks: np.ndarray
           ) -> tuple[float, np.ndarray | None, float]:
    """Normalised DLT homography after undistortion by each k of ``ks``, all at once;
    the k with the lowest RMS residual: (k, H, rms px)."""
    ks = np.asarray(ks, float)
    c = (np.asarray(size, float) - 1) / 2
    half = size[0] / 2
    d = (dst - c) / half
    U = c + half * d[None] / (1.0 + ks[:, None, None] * np.sum(d * d, axis=1)[None, :, None])
    Ts = _normalizer(src[None])[0]
    Tu = _normalizer(U)
    sn = _apply(Ts, src)
    un = _apply(Tu, U)
    n = len(src)
    A = np.zeros((len(ks), 2 * n, 9))
    x, y = sn[:, 0], sn[:, 1]
    u, v = un[..., 0], un[..., 1]
    A[:, 0::2, 0], A[:, 0::2, 1], A[:, 0::2, 2] = x, y, 1.0
    A[:, 0::2, 6], A[:, 0::2, 7], A[:, 0::2, 8] = -u * x, -u * y, -u
    A[:, 1::2, 3], A[:, 1::2, 4], A[:, 1::2, 5] = x, y, 1.0
    A[:, 1::2, 6], A[:, 1::2, 7], A[:, 1::2, 8] = -v * x, -v * y, -v
    Hn = np.linalg.eigh(A.swapaxes(1, 2) @ A)[1][..., 0].reshape(-1, 3, 3)
    H = np.linalg.inv(Tu) @ Hn @ Ts
    r = np.linalg.norm(_apply(H, src) - U, axis=-1)
    rms = np.sqrt(np.mean(r * r, axis=-1))
    rms[~np.isfinite(rms)] = np.inf
    j = int(np.argmin(rms))
    if not np.isfinite(rms[j]):
        return 0.0, None, float("inf")
    return float(ks[j]), H[j] / H[j, 2, 2], float(rms[j])


def _one_per_diamond(r: np.ndarray, ok: np.ndarray, ids: np.ndarray | None) -> np.ndarray:
    """``ok`` keeping, of several blobs matched to one diamond, the nearest to the model."""
    if ids is None:
        return ok
    out = np.zeros_like(ok)
    seen = set()
    for j in np.argsort(r):
        if ok[j] and ids[j] not in seen:
            out[j] = True
            seen.add(int(ids[j]))
    return out


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cross products over the last axis (np.cross's checks cost more than the sum)."""
    return np.stack([a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
                     a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
                     a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]], axis=-1)


def _four_point_homographies(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Homographies (..., S, 3, 3) taking each sample's four points ``src`` (S, 4, 2)
    onto ``dst`` (..., S, 4, 2: several sets of targets for the same samples), up to
    scale; all zero where three points of a sample lie on a line (a rail's diamonds
    do). Each side's basis map is built with cross products, so no sample's solve can
    fail the batch."""
    def basis(p: np.ndarray) -> np.ndarray:
        h = np.concatenate([p, np.ones(p.shape[:-1] + (1,))], axis=-1)  # (..., S, 4, 3)
        a, b, c, d = h[..., 0, :], h[..., 1, :], h[..., 2, :], h[..., 3, :]
        lam = np.stack([np.einsum("...i,...i->...", _cross(b, c), d),
                        np.einsum("...i,...i->...", _cross(c, a), d),
                        np.einsum("...i,...i->...", _cross(a, b), d)], axis=-1)
        scale = np.abs(np.einsum("...i,...i->...", _cross(a, b), c))
        ok = (np.abs(lam) > 1e-6 * scale[..., None]).all(axis=-1) & (scale > 0)
        return np.stack([a, b, c], axis=-1) * lam[..., None, :], ok  # columns a, b, c

    def adjugate(m: np.ndarray) -> np.ndarray:
        c0, c1, c2 = m[..., 0], m[..., 1], m[..., 2]
        return np.stack([_cross(c1, c2), _cross(c2, c0), _cross(c0, c1)], axis=-2)

    Bs, ok_s = basis(src)
    Bd, ok_d = basis(dst)
    H = Bd @ adjugate(Bs)
    H[~(ok_s & ok_d)] = 0.0
    return H


def ransac_homography(src: np.ndarray, dst: np.ndarray, tol_px: float, samples: int,
                      ids: np.ndarray | None = None, seed: int = 0
                      ) -> np.ndarray | None:
    """RANSAC homography from ``src`` to ``dst`` (N, 2), its samples drawn and scored
    all at once: each sample is four distinct diamonds (``ids``: a diamond per pair,
    several blobs per diamond allowed), one blob each; a sample's score is how many
    diamonds have a blob within ``tol_px`` (ties: the smaller sum of their distances).
    The best sample's inliers (nearest blob per diamond) are then fitted by least
    squares. Seeded: the same input gives the same answer. OpenCV's RANSAC draws one
    sample at a time (3000 for several blobs per diamond: 40 ms a call, a third of a
    hard frame's calibration), counts two blobs of one diamond twice and draws samples
    that repeat a diamond."""
    return ransac_homographies(src, np.asarray(dst, float).reshape(1, -1, 2), tol_px,
                               samples, ids, seed)[0]


def ransac_homographies(src: np.ndarray, dsts: np.ndarray, tol_px: float, samples: int,
                        ids: np.ndarray | None = None, seed: int = 0
                        ) -> list[np.ndarray | None]:
    """:func:`ransac_homography` from ``src`` to each of ``dsts`` (K, N, 2: the same
    points undistorted by each k of a grid), the same samples drawn for all and scored
    in one batch: one call's overhead instead of K (most calls draw only 200)."""
    src = np.asarray(src, float).reshape(-1, 2)
    dsts = np.asarray(dsts, float).reshape(len(dsts), -1, 2)
    ids = np.arange(len(src)) if ids is None else np.asarray(ids)
    order = np.argsort(ids, kind="stable")  # work with each diamond's blobs together
    src, dsts, ids = src[order], dsts[:, order], ids[order]
    uniq, first, count = np.unique(ids, return_index=True, return_counts=True)
    if len(uniq) < 4:
        return [None] * len(dsts)
    rng = np.random.default_rng(seed)
    pick = np.argsort(rng.random((samples, len(uniq))), axis=1)[:, :4]  # distinct ids
    chosen = first[pick] + (rng.random((samples, 4)) * count[pick]).astype(int)
    # normalised coordinates keep the products of the basis maps well scaled
    Ts, Td = _normalizer(src), _normalizer(dsts)
    sn, dn = _apply(Ts, src), _apply(Td, dsts)
    Hn = _four_point_homographies(sn[chosen], dn[:, chosen])  # (K, S, 3, 3)
    valid = np.abs(Hn).sum(axis=(-2, -1)) > 0  # degenerate ones: all zero
    Hn = Hn.astype(np.float32)
    x, y = sn[:, 0].astype(np.float32), sn[:, 1].astype(np.float32)

    def row(i: int) -> np.ndarray:  # (K, S, N): one row of each H applied to every point
        return Hn[..., i, 0, None] * x + Hn[..., i, 1, None] * y + Hn[..., i, 2, None]

    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        w = row(2)
        dx = row(0) / w - dn[:, None, :, 0].astype(np.float32)
        dy = row(1) / w - dn[:, None, :, 1].astype(np.float32)
        d2_all = dx * dx + dy * dy
    several = ids if len(uniq) < len(ids) else None
    out: list[np.ndarray | None] = []
    for dst, T, ok, d2 in zip(dsts, Td, valid, d2_all, strict=True):
        if not ok.any():
            out.append(None)
            continue
        d2 = d2[ok]
        inlier = d2 < np.float32((tol_px * T[0, 0]) ** 2)  # NaN: out
        per_id = np.maximum.reduceat(inlier, first, axis=1).sum(axis=1)
        tied = np.flatnonzero(per_id == per_id.max())
        if per_id[tied[0]] < 4:
            out.append(None)
            continue
        spread = np.where(inlier[tied], np.sqrt(d2[tied]), 0).sum(axis=1)
        best = int(tied[np.argmin(spread)])
        r = np.sqrt(d2[best].astype(float)) / T[0, 0]
        mask = _one_per_diamond(r, inlier[best], several)
        out.append(cv2.findHomography(src[mask], dst[mask], 0)[0])
    return out


def _refine(src: np.ndarray, dst: np.ndarray, size, tol_px: float, mask: np.ndarray,
            k0: float, ids: np.ndarray | None = None
            ) -> tuple[RailModel, np.ndarray] | None:
    """Fit the model (k within 0.04 of the last one's, starting at ``k0``) to the points
    in ``mask``, drop the worst while one is beyond ``tol_px``, then take back every
    point within it (one per diamond of ``ids``, when a diamond has several blobs);
    until the set stays the same."""
    mask = mask.copy()
    k = k0
    for _ in range(2 * len(src) + 2):
        if mask.sum() < 5:
            return None
        k, H, _ = _fit_k(src[mask], dst[mask], size, k + K_FINE)
        if H is None:
            return None
        model = RailModel(H, k, size)
        r = model.residuals(src, dst)
        if r[mask].max() > tol_px:
            mask[np.flatnonzero(mask)[np.argmax(r[mask])]] = False
            continue
        new = _one_per_diamond(r, r < tol_px, ids)
        if (new == mask).all():
            return model, mask
        mask = new
    return None


def fit_rail_model(src_mm: np.ndarray, dst_px: np.ndarray, size: tuple[int, int],
                   tol_px: float, ids: np.ndarray | None = None
                   ) -> tuple[RailModel, np.ndarray] | None:
    """Robust fit of the rail-plane model to matched diamonds: (model, inlier mask).

    RANSAC homographies after undistortion by each k of a coarse grid (a plain
    homography is up to 0.7% of the frame width off at the corners: a tolerance that
    wide lets mismatches in and can leave a whole rail out). Each one's set is refined
    (:func:`_refine`: the model fitted, the worst point dropped while any lies beyond
    ``tol_px``, every point within it taken back); the refined set with the most
    points, then the lowest residual, wins. Judging the coarse sets themselves would
    favour a k far off, whose looser fit takes a mismatch in.

    ``ids`` (diamond index of each pair) allows several blobs per diamond: the inlier
    set then keeps one per diamond, and RANSAC draws more samples (most pairs are
    wrong)."""
    src = np.asarray(src_mm, float).reshape(-1, 2)
    dst = np.asarray(dst_px, float).reshape(-1, 2)
    n_diamonds = len(src) if ids is None else len(set(ids.tolist()))
    if n_diamonds < 5:
        return None
    iters = 200 if ids is None else 3000
    best, best_fit = None, None
    us = np.stack([_undistort(dst, k, size) for k in K_RANSAC])
    Hs = ransac_homographies(src, us, tol_px + RANSAC_GRID_PX, iters, ids)
    for k, u, H in zip(K_RANSAC, us, Hs, strict=True):
        if H is None:
            continue
        r = np.linalg.norm(_apply(H, src) - u, axis=1)
        mask = _one_per_diamond(r, r < tol_px + RANSAC_GRID_PX, ids)
        fit = _refine(src, dst, size, tol_px, mask, k, ids) if mask.sum() >= 5 else None
        if fit is None:
            continue
        r = fit[0].residuals(src[fit[1]], dst[fit[1]])
        score = (int(fit[1].sum()), -float(np.sqrt(np.mean(r * r))))
        if best is None or score > best:
            best, best_fit = score, fit
        if score[0] == n_diamonds:
            break  # every diamond agrees: no other k can do better
    return best_fit


# ------------------------------------------------------------------ searching
def blob_candidates(th: np.ndarray, p: np.ndarray, radius_px: float, ppm: float,
                    min_peak: float = MIN_PEAK, max_n: int = 3, judged: dict | None = None
                    ) -> list[tuple[np.ndarray, float]]:
    """Up to ``max_n`` small bright blobs within ``radius_px`` of ``p`` in the top-hat
    image ``th`` that stand out of the rail around them: (centre px, peak), strongest
    first.

    Standing out is judged on a ring around the blob (the blob itself left out) out to
    :data:`CONTEXT_MM`, whatever the search radius: the peak is 5 robust deviations
    above the ring's median (a plain rail), or 1.5 times its 99th percentile (a rail
    whose wood grain shows in the top-hat: its deviation is large, yet no grain is
    nearly as bright as a diamond). Near the frame's edge the window is cut, not
    refused; a blob the edge cuts is refused (its centre would be off). A refused blob
    does not hide the weaker ones: a sponsor's letter beside a diamond may be the
    brightest thing in the window, and the diamond the second. ``judged``: a memo of
    ``th``'s blobs judged so far, by window and peak (a search looks again and again
    around the same predictions: a third of its blobs were judged before)."""
    judged = {} if judged is None else judged
    h, w = th.shape
    ctx = CONTEXT_MM * ppm
    reach = int(np.ceil(radius_px + ctx))
    cx, cy = float(p[0]), float(p[1])
    if not (0.0 <= cx <= w - 1 and 0.0 <= cy <= h - 1):
        return []
    x0, y0 = max(0, int(round(cx)) - reach), max(0, int(round(cy)) - reach)
    x1, y1 = min(w, int(round(cx)) + reach + 1), min(h, int(round(cy)) + reach + 1)
    win = th[y0:y1, x0:x1]
    # blobs are looked for in the search circle's box (a pixel more each side), the
    # window round it being only the context they are judged in
    r = radius_px
    bx0, by0 = max(x0, int(np.floor(cx - r)) - 1), max(y0, int(np.floor(cy - r)) - 1)
    bx1, by1 = min(x1, int(np.ceil(cx + r)) + 2), min(y1, int(np.ceil(cy + r)) + 2)
    yy, xx = np.arange(by0, by1)[:, None], np.arange(bx0, bx1)  # (np.ogrid costs more)
    inside = (xx - cx) ** 2 + (yy - cy) ** 2 <= radius_px ** 2
    if not inside.any():
        return []
    cand = np.where(inside, th[by0:by1, bx0:bx1], -1.0)
    ox, oy = bx0 - x0, by0 - y0  # the box's place in the window
    out: list[tuple[np.ndarray, float]] = []
    rim = max(2, int(round(3.0 * ppm)))
    for _ in range(max_n + 4):  # a few refused blobs may come before the diamond
        jb = int(np.argmax(cand))
        peak = float(cand.flat[jb])
        if peak < min_peak:
            break
        row, col = divmod(jb, cand.shape[1])
        j = (row + oy) * win.shape[1] + col + ox  # the peak's index in the window
        key = (x0, y0, x1, y1, j, ppm)
        if key not in judged:
            blob = _Blob(win, peak, j)
            # this blob is judged once: its fainter rim (under half its peak) goes with it
            sl, comp = blob.mask(rim)
            rimmed = cv2.dilate(comp, np.ones((2 * rim + 1, 2 * rim + 1), np.uint8)) > 0
            judged[key] = sl, rimmed, _judge_blob(blob, (x0, y0, x1, y1), (w, h), ppm, ctx,
                                                  peak)
        sl, rimmed, centre = judged[key]
        _clear(cand, (oy, ox), sl, rimmed)
        if centre is not None:
            out.append((centre, peak))
            if len(out) >= max_n:
                break
    return out


def _clear(cand: np.ndarray, at: tuple[int, int], sl: tuple[slice, slice],
           mask: np.ndarray) -> None:
    """Set to -1 the pixels of ``cand`` (a box at ``at``, row and column, in a window)
    where ``mask``, over the window's slices ``sl``, is set."""
    r0, r1 = max(sl[0].start, at[0]), min(sl[0].stop, at[0] + cand.shape[0])
    c0, c1 = max(sl[1].start, at[1]), min(sl[1].stop, at[1] + cand.shape[1])
    if r0 < r1 and c0 < c1:
        part = mask[r0 - sl[0].start:r1 - sl[0].start, c0 - sl[1].start:c1 - sl[1].start]
        cand[r0 - at[0]:r1 - at[0], c0 - at[1]:c1 - at[1]][part] = -1.0


class _Blob:
    """One connected blob (8-connected) of a window's pixels over half a peak, flood
    filled from the peak: the window's masks are then taken only around it, and its
    neighbours filled only when the letter test asks for them (labelling the whole
    window for each blob took most of the search's time)."""

    def __init__(self, win: np.ndarray, peak: float, j: int):
        self.win = win
        self.hi = np.greater_equal(win, 0.5 * peak).view(np.uint8)  # 1: over half; filled: 2...
        self.py, self.px = divmod(j, win.shape[1])
        self.label = 1
        self.filled: dict[int, tuple[int, tuple[int, int, int, int]]] = {}
        self.own = self.fill(self.px, self.py)
        self.area, (self.x, self.y, self.w, self.h) = self.filled[self.own]

    def fill(self, x: int, y: int) -> int:
        """Label the blob holding pixel (x, y) of the window; its label."""
        self.label += 1
        area, _, _, rect = cv2.floodFill(self.hi, None, (int(x), int(y)), self.label,
                                         flags=8)
        self.filled[self.label] = (int(area), tuple(int(v) for v in rect))
        return self.label

    def mask(self, grow: int, box: tuple[int, int, int, int] | None = None
             ) -> tuple[tuple[slice, slice], np.ndarray]:
        """The window's slices around the blob's box grown by ``grow`` px (or around
        ``box``: x0, y0, x1, y1 in the window), and the blob's uint8 mask there."""
        H, W = self.hi.shape
        if box is None:
            box = (self.x, self.y, self.x + self.w, self.y + self.h)
        bx0, by0 = max(0, box[0] - grow), max(0, box[1] - grow)
        bx1, by1 = min(W, box[2] + grow), min(H, box[3] + grow)
        sl = (slice(by0, by1), slice(bx0, bx1))
        return sl, (self.hi[sl] == self.own).view(np.uint8)

    def neighbours(self, sl: tuple[slice, slice], near: np.ndarray
                   ) -> list[tuple[int, float]]:
        """(area, brightest value) of each other blob with a pixel where ``near`` (a
        mask over the slices ``sl``) is set."""
        out = []
        hi = self.hi[sl]
        while True:
            left = np.flatnonzero(near & (hi == 1))
            if not len(left):
                return out
            y, x = divmod(int(left[0]), hi.shape[1])
            label = self.fill(x + sl[1].start, y + sl[0].start)
            area, (bx, by, bw, bh) = self.filled[label]
            part = (slice(by, by + bh), slice(bx, bx + bw))
            out.append((area, float(self.win[part][self.hi[part] == label].max())))


def median(v: np.ndarray) -> float:
    """np.median of a 1-D array, by partition alone (np.median's checks cost more than
    the partition on the few hundred values of a blob's ring)."""
    h = len(v) // 2
    if len(v) % 2:
        return np.partition(v, h)[h]
    part = np.partition(v, (h - 1, h))
    return (part[h - 1] + part[h]) / 2


def _judge_blob(blob: _Blob, box: tuple[int, int, int, int], size: tuple[int, int],
                ppm: float, ctx: float, peak: float) -> np.ndarray | None:
    """The blob's weighted centre (px) if it is diamond-sized, whole, alone (not a
    letter: no blob nearly as bright and a quarter as large within :data:`TEXT_GAP_MM`,
    as a rail's grain can be) and stands out. ``box``: the window's place in the frame
    (x0, y0, x1, y1)."""
    x0, y0, x1, y1 = box
    w, h = size
    win = blob.win
    if max(blob.w, blob.h) > 40 * ppm + 4:
        return None  # a line, a logo, a ball: larger than a diamond
    if ((blob.x == 0 and x0 == 0) or (blob.y == 0 and y0 == 0)
            or (blob.x + blob.w == win.shape[1] and x1 == w)
            or (blob.y + blob.h == win.shape[0] and y1 == h)):
        return None  # cut by the frame's edge
    r = max(1, int(round(TEXT_GAP_MM * ppm)))
    sl, comp = blob.mask(r)
    reach = cv2.dilate(comp, cv2.getStructuringElement(cv2.MORPH_ELLIPSE,
                                                       (2 * r + 1, 2 * r + 1))) > 0
    for area, brightest in blob.neighbours(sl, reach):
        if area >= 0.25 * blob.area and brightest >= 0.75 * peak:
            return None  # a letter among letters
    # the context ring: within ctx of the peak, beyond 15 mm, off the blob's 5x5 dilation
    c = int(np.ceil(ctx))
    ring_box = (blob.px - c, blob.py - c, blob.px + c + 1, blob.py + c + 1)
    sl, comp = blob.mask(2, ring_box)  # 2 px more: the dilation reaches in from there
    near = cv2.dilate(comp, np.ones((5, 5), np.uint8)) > 0
    ry0, rx0 = sl[0].start, sl[1].start
    ys0, xs0 = max(0, ring_box[1]), max(0, ring_box[0])
    ys1, xs1 = min(win.shape[0], ring_box[3]), min(win.shape[1], ring_box[2])
    inner = (slice(ys0 - ry0, ys1 - ry0), slice(xs0 - rx0, xs1 - rx0))
    yy, xx = np.arange(ys0, ys1)[:, None], np.arange(xs0, xs1)
    d2 = (xx - blob.px) ** 2 + (yy - blob.py) ** 2
    ring = win[ys0:ys1, xs0:xs1][(d2 <= ctx ** 2) & (d2 >= (15.0 * ppm) ** 2)
                                 & ~near[inner]]
    if len(ring) < 20:
        return None
    i50, i99 = len(ring) // 2, int(0.99 * (len(ring) - 1))
    part = np.partition(ring, (i50, i99))
    med, q99 = float(part[i50]), float(part[i99])
    if peak <= 1.5 * q99 and peak <= med + 5.0 * 1.4826 * median(np.abs(ring - med)):
        return None
    sl, comp = blob.mask(0)
    ys, xs = np.nonzero(comp)
    wgt = win[sl][ys, xs] - 0.5 * peak
    ys, xs = ys + sl[0].start, xs + sl[1].start
    return np.array([(xs * wgt).sum() / wgt.sum() + x0, (ys * wgt).sum() / wgt.sum() + y0])


def find_diamond(th: np.ndarray, p: np.ndarray, radius_px: float, ppm: float,
                 min_peak: float = MIN_PEAK, judged: dict | None = None) -> np.ndarray | None:
    """Centre (px) of the blob nearest ``p`` among the three strongest that pass
    :func:`blob_candidates` within ``radius_px``, if any: near a good prediction the
    diamond is the nearest blob, where a letter beside it may be the brightest."""
    cands = blob_candidates(th, p, radius_px, ppm, min_peak, judged=judged)
    if not cands:
        return None
    return min(cands, key=lambda c: float(np.hypot(*(c[0] - np.asarray(p, float)))))[0]


def grow_diamonds(th: np.ndarray, predicted_px: np.ndarray, radius_px: float, ppm: float,
                  min_peak: float = MIN_PEAK, judged: dict | None = None
                  ) -> dict[int, np.ndarray]:
    """Diamond index -> blob centre (px) within ``radius_px`` of its predicted place
    (:func:`find_diamond`; ``judged``: :func:`blob_candidates`')."""
    out = {}
    for i, p in enumerate(np.asarray(predicted_px, float).reshape(-1, 2)):
        hit = find_diamond(th, p, radius_px, ppm, min_peak, judged)
        if hit is not None:
            out[i] = hit
    return out


@dataclass
class DiamondSearch:
    """What :func:`locate_diamonds` found for one profile."""

    found: dict[int, np.ndarray]  # diamond index -> px
    homography: np.ndarray  # rail-top plane (table mm) -> px (plain, lens ignored)
    ppm: float  # rough px per mm
    tophat: np.ndarray  # the image the diamonds were found in
    start: int  # quad corner taken as table corner 0
    c0: float  # mm the cloth outline is taken to lie beyond the noses
    model: RailModel | None = None  # the distortion-aware model the set agrees with
    rms_px: float = float("nan")  # the found diamonds' RMS distance from it


def _model_search(th: np.ndarray, table: Table, model: RailModel, ppm: float,
                  tol: float, judged: dict
                  ) -> tuple[RailModel, dict[int, np.ndarray]] | None:
    """Look again around the model's predictions, refit, keep the agreeing ones."""
    dia = np.array(table.diamonds, float)
    found = grow_diamonds(th, model.project(dia), tol + 8.0 * ppm, ppm, judged=judged)
    if len(found) < MIN_DIAMONDS:
        return None
    idx = sorted(found)
    src, dst = dia[idx], np.array([found[i] for i in idx])
    fit = _refine(src, dst, model.size, tol, model.residuals(src, dst) < tol, model.k)
    if fit is None:
        return None
    model, mask = fit
    found = {i: found[i] for i, m in zip(idx, mask, strict=True) if m}
    return (model, found) if len(found) >= MIN_DIAMONDS else None


#: when the strongest blob near each predicted diamond leaves fewer than this share of
#: the diamonds in one rail-plane model, every blob near each is tried (sponsor
#: lettering between the diamonds: benchmark scene 155 matched 7 letters of "PRO TOUR"
#: to one another, and 1 diamond)
MULTI_BELOW = 0.8
MAX_BLOBS = 5  # blobs kept near each diamond's rough place
#: px RMS from the rail model within which a set of diamonds sits well (the right
#: geometry 0.1-0.4 px in the benchmark, the others 1.4-2.5 px); a set that found most
#: diamonds but sits more loosely than this is not settled: every blob near each is
#: tried too, and the set tightened (:func:`_tighten`; benchmark scene 6404: sponsor
#: letters brighter than the sights, 9 px beside three of them, got into a set of 16 of
#: 20 at 1.5 px, which ended the search)
PRUNE_RMS_PX = 0.8


def _settle(th: np.ndarray, table: Table, model: RailModel, n_agree: int,
            ppm: float, tol: float, judged: dict
            ) -> tuple[RailModel, dict[int, np.ndarray]]:
    """Search again around the model's predictions (``n_agree`` diamonds agree with it)
    while that finds more diamonds."""
    found: dict[int, np.ndarray] = {}
    for _ in range(2):  # a second round finds what the refined model now reaches
        again = _model_search(th, table, model, ppm, tol, judged)
        if again is None or len(again[1]) <= len(found):
            break
        (model, found), grew = again, len(again[1]) > n_agree
        n_agree = len(found)
        if not grew:
            break
    return model, found


#: a found diamond further from the rail model than this many times the others' typical
#: distance, and than TRIM_MIN_PX, is dropped (:func:`_trim`)
TRIM_SIGMAS = 4.0
TRIM_MIN_PX = 2.0


def _trim(table: Table, model: RailModel, found: dict[int, np.ndarray]
          ) -> tuple[RailModel, dict[int, np.ndarray]]:
    """Drop, one at a time, a diamond that sits far off the model the others agree on,
    and refit. The tolerance that lets a diamond into the set is wide (the model's own
    error near a bent frame's corners): a blob in a score graphic across a rail, 5 px
    from the diamond under it, got in at 2.6 px, pulled its neighbours off by as much
    and left the set too loose to be trusted (benchmark scene 3310: 19 diamonds at
    1.16 px, 17 at 0.19 px once the graphic's two were dropped)."""
    dia = np.array(table.diamonds, float)
    while len(found) > MIN_DIAMONDS:
        idx = sorted(found)
        src, dst = dia[idx], np.array([found[i] for i in idx])
        r = model.residuals(src, dst)
        j = int(np.argmax(r))
        if r[j] <= max(TRIM_MIN_PX, TRIM_SIGMAS * 1.4826 * float(np.median(r))):
            break
        keep = np.arange(len(idx)) != j
        k, H, _ = _fit_k(src[keep], dst[keep], model.size, model.k + K_FINE)
        if H is None:
            break
        model = RailModel(H, k, model.size)
        del found[idx[j]]
    return model, found


def _fit_candidates(th: np.ndarray, table: Table, pairs: list[tuple[int, np.ndarray]],
                    size, ppm: float, tol: float, judged: dict
                    ) -> tuple[RailModel, dict[int, np.ndarray]] | None:
    """The rail model and diamonds from (diamond index, blob px) pairs, one or several
    blobs per diamond."""
    dia = np.array(table.diamonds, float)
    ids = np.array([i for i, _ in pairs])
    if len(set(ids.tolist())) < MIN_DIAMONDS:
        return None
    several = len(ids) > len(set(ids.tolist()))
    fit = fit_rail_model(dia[ids], np.array([c for _, c in pairs]), size, tol,
                         ids if several else None)
    if fit is None or fit[1].sum() < MIN_DIAMONDS:
        return None
    model, found = _settle(th, table, fit[0], int(fit[1].sum()), ppm, tol, judged)
    return (model, found) if len(found) >= MIN_DIAMONDS else None


def locate_diamonds(gray: np.ndarray, th_cache: dict, quad: np.ndarray, table: Table,
                    size: tuple[int, int], thorough: bool = True,
                    outline: str = "cloth", background: str = "square"
                    ) -> DiamondSearch | None:
    """The diamonds of ``table`` around the cloth quadrilateral ``quad`` (px, as found
    by :func:`calibration.detect.find_cloth`), or None when too few are seen.

    The strongest blob near each diamond's rough place usually is the diamond; where
    that set leaves many out, the search is tried again with every blob near each, and
    the set that puts more diamonds in one rail-plane model wins. ``thorough=False``
    stops after the strongest blobs (a caller trying several geometries tries the
    others harder only when none of them is found that way). ``outline="rails"``: the
    quadrilateral is the rails' outer edge (rails of the cloth's own colour, which the
    cloth's region took in). ``background`` (:data:`BACKGROUNDS`): the top-hat's
    square opening (:func:`diamond_tophat`), with the rails' grain taken out
    (``grain``, :func:`grain_tophat`), or the local median (``lettering``,
    :func:`lettering_tophat`)."""
    key = ("located", np.asarray(quad, float).tobytes(), table.name, tuple(size), thorough,
           outline, background)
    if key not in th_cache:  # ``th_cache`` is ``gray``'s: the same search, the same answer
        th_cache[key] = _locate(gray, th_cache, quad, table, size, thorough, outline,
                                background)
    return th_cache[key]


def _locate(gray: np.ndarray, th_cache: dict, quad: np.ndarray, table: Table,
            size: tuple[int, int], thorough: bool, outline: str, background: str
            ) -> DiamondSearch | None:
    """:func:`locate_diamonds`, not memoised (the cascade of
    :func:`calibration.fit._find_sights` asks some searches twice)."""
    if background not in BACKGROUNDS:
        raise ValueError(f"unknown background {background!r}; known: "
                         f"{', '.join(BACKGROUNDS)}")
    c0 = outline_mm(table, outline)
    start = start_index(quad)
    q = np.roll(quad, -start, axis=0)
    H0, _ = cv2.findHomography(table_corners(table, c0), q)
    if H0 is None:
        return None
    ppm = px_per_mm(q, table, c0)
    if background == "grain":
        key = ("grain", int(max(5, round(40 * ppm))) | 1, outline, table.name)
        if key not in th_cache:
            th_cache[key] = grain_tophat(gray, ppm, H0, table, th_cache)
        th = th_cache[key]
    elif background == "lettering":
        th = lettering_tophat(gray, ppm, th_cache)
    else:
        th = diamond_tophat(gray, ppm, th_cache)
    judged = th_cache.setdefault(("judged", id(th)), {})  # th lives in th_cache too
    spacing = min(table.width / 4, table.length / 8)
    pts = cv2.perspectiveTransform(np.array(table.diamonds, float).reshape(-1, 1, 2),
                                   H0).reshape(-1, 2)
    radius = min(0.3 * spacing, 90.0) * ppm

    def candidates(max_n: int) -> dict[int, list[tuple[np.ndarray, float]]]:
        out = {}
        for i, p in enumerate(pts):
            c = blob_candidates(th, p, radius, ppm, max_n=max_n, judged=judged)
            if c:
                out[i] = c
        return out

    # the strongest blob near each rough place (a window's first candidate: the
    # full lists below start with it, so judging only it first changes nothing); a
    # thorough search after a quick one starts where that ended
    tol = tolerance_px(ppm)
    quick = ("strongest", id(th), table.name, c0, q.tobytes())
    if quick not in th_cache:
        cands = candidates(1)
        strongest = [(i, c[0][0]) for i, c in sorted(cands.items())]
        fit = (_fit_candidates(th, table, strongest, size, ppm, tol, judged)
               if len(cands) >= MIN_DIAMONDS else None)
        th_cache[quick] = strongest, fit
    strongest, best = th_cache[quick]
    if len(strongest) < MIN_DIAMONDS:
        return None

    def settled(fit) -> bool:  # most diamonds found, sitting well on the model
        return fit is not None and len(fit[1]) >= MULTI_BELOW * len(table.diamonds) and (
            _rms(table, *fit) <= PRUNE_RMS_PX)

    def better(fit, than) -> bool:  # a set sitting well before a looser one, then more
        return than is None or (_rms(table, *fit) <= PRUNE_RMS_PX, len(fit[1])) > (
            _rms(table, *than) <= PRUNE_RMS_PX, len(than[1]))

    if thorough and not settled(best):
        # many left out, or loose: the blob nearest each rough place; else every blob
        # near each
        cands = candidates(MAX_BLOBS)
        nearest = [(i, min(c, key=lambda b, p=pts[i]: float(np.hypot(*(b[0] - p))))[0])
                   for i, c in sorted(cands.items())]
        every = [(i, b[0]) for i, c in sorted(cands.items()) for b in c]
        for pairs in (nearest, every):
            if settled(best):
                break
            if len(pairs) == len(strongest) and all(
                    np.array_equal(a[1], b[1]) for a, b in zip(pairs, strongest, strict=True)):
                continue  # one blob per diamond: nothing new to try
            other = _fit_candidates(th, table, pairs, size, ppm, tol, judged)
            if other is not None and better(other, best):
                best = other
        if best is not None and not settled(best):
            tight = _tighten(th, table, best, ppm, tol, judged)
            if tight is not None and better(tight, best):
                best = tight
    if best is None:
        return None
    model, found = _trim(table, best[0], dict(best[1]))
    dia = np.array(table.diamonds, float)
    idx = sorted(found)
    H1, _ = cv2.findHomography(dia[idx], np.array([found[i] for i in idx]), 0)
    if H1 is None:
        return None
    return DiamondSearch(found, H1, ppm, th, start, c0, model, _rms(table, model, found))


def _tighten(th: np.ndarray, table: Table, fit: tuple[RailModel, dict[int, np.ndarray]],
             ppm: float, tol: float, judged: dict
             ) -> tuple[RailModel, dict[int, np.ndarray]] | None:
    """The found diamonds' subset that sits within twice :data:`PRUNE_RMS_PX` of one
    model, searched again from it (:func:`_settle`). A set that sits loosely may hold a
    few blobs beside their diamonds that pulled the model toward them, so that the
    search around its predictions took them again: benchmark scene 6404, sponsor
    letters 9 px beside three sights of one rail, brighter than them (16 of 20 at 1.5
    px; the 13 sights among them within 0.2 px of one model, from which 19 are found
    at 0.17 px)."""
    model, found = fit
    idx = sorted(found)
    src, dst = np.array(table.diamonds, float)[idx], np.array([found[i] for i in idx])
    tight = 2 * PRUNE_RMS_PX
    # undistorted by the loose model's k (a coarser grid of k moves a diamond by more
    # than the tolerance), then refined with k free again
    undistorted = _undistort(dst, model.k, model.size)
    H = ransac_homography(src, undistorted, tight, 200)
    if H is None:
        return None
    inlier = np.linalg.norm(_apply(H, src) - undistorted, axis=1)
    core = _refine(src, dst, model.size, tight, inlier < tight, model.k)
    if core is None or core[1].sum() < MIN_DIAMONDS:
        return None
    model, found = _settle(th, table, core[0], int(core[1].sum()), ppm, tol, judged)
    return (model, found) if len(found) >= MIN_DIAMONDS else None


def _rms(table: Table, model: RailModel, found: dict[int, np.ndarray]) -> float:
    """The found diamonds' RMS distance (px) from the rail model."""
    idx = sorted(found)
    r = model.residuals(np.array(table.diamonds, float)[idx], np.array([found[i] for i in idx]))
    return float(np.sqrt(np.mean(r * r)))
