"""Find the table in an image: the cloth region, its straight edges, diamonds and spots.

Nothing here assumes a cloth colour: the cloth is the large, nearly convex, uniformly
coloured four-sided region of the frame, found by clustering the frame's own colours
in brightness-free chromaticity (so lamps, vignetting and shadows do not split it).
What still would, and how it is met: glare clips the cloth (clipped pixels have no
colour of their own; each clipped patch joins the colour around it), a lamp's pool of
light splits one cloth into clusters of nearly one chromaticity (such clusters are
also tried together), chalk lines cut it into pieces (bridged), a floor of the cloth's
hue and black pockets pass its colour test (the chosen region bounds the cloth when
the floor runs out of the frame; much darker than the cloth is not cloth), and a
bystander leaning over a rail bulges its outline (the sides are the outline's long
straight runs).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

WORK_WIDTH = 480  # px: the cloth is segmented on a copy this wide
CLIP_LEVEL = 245  # work-copy value from which a channel counts as clipped


class CalibrationError(ValueError):
    """The frame cannot be calibrated; the message says why (a user-facing reason)."""


@dataclass
class ClothModel:
    """The cloth's colour, estimated from the frame: chromaticity mean and spread."""

    mean: np.ndarray  # (r, g) chromaticity
    inv_cov: np.ndarray  # 2x2
    log_intensity: float
    log_intensity_sd: float

    def distance(self, bgr: np.ndarray) -> np.ndarray:
        """Mahalanobis distance in chromaticity, plus an intensity term; same shape[:2]."""
        d2, s = self._chroma_d2(bgr)
        li = (np.log(s) - self.log_intensity) / max(self.log_intensity_sd * 6.0, 1.6)
        return np.sqrt(d2 + np.maximum(np.abs(li) - 1.0, 0.0) ** 2 * 9.0)

    def chroma_distance(self, bgr: np.ndarray) -> np.ndarray:
        """Mahalanobis distance in chromaticity alone, whatever the brightness."""
        return np.sqrt(self._chroma_d2(bgr)[0])

    def _chroma_d2(self, bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The squared chromaticity distance, and the channels' sum (the brightness)."""
        f = bgr.astype(np.float32) + 1.0
        s = f.sum(axis=-1)
        r = f[..., 2] / s - self.mean[0]
        g = f[..., 1] / s - self.mean[1]
        ic = self.inv_cov
        return ic[0, 0] * r * r + 2 * ic[0, 1] * r * g + ic[1, 1] * g * g, s

    def to_dict(self) -> dict:
        return {"mean": self.mean.tolist(), "inv_cov": self.inv_cov.tolist(),
                "log_intensity": self.log_intensity, "log_intensity_sd": self.log_intensity_sd}

    @classmethod
    def from_dict(cls, d: dict) -> ClothModel:
        return cls(np.array(d["mean"]), np.array(d["inv_cov"]), float(d["log_intensity"]),
                   float(d["log_intensity_sd"]))


@dataclass
class ClothRegion:
    """The cloth (bed and cushion tops) as seen: quad corners and edge points in px."""

    model: ClothModel
    quad: np.ndarray  # (4, 2) full-resolution px, order with positive shoelace area
    edges: list[np.ndarray]  # per quad side i (corner i -> i+1): (N, 2) px on the edge
    mask: np.ndarray  # uint8 work-resolution mask of the cloth
    scale: float  # full px per work px
    covered: float = 1.0  # share of the quad the mask covers (a ragged outline: less)
    by_brightness: bool = False  # grown by brightness, not colour (:func:`_brightness_ringed`)
    # share of the table's area clipped in a channel, when over BLOWN_OUT: a vivid cloth
    # clipping in its own channel, found by :func:`find_cloth`'s second look (its light
    # cannot be metered, and a refusal names the exposure)
    clipped: float = 0.0


def _features(bgr: np.ndarray) -> np.ndarray:
    f = bgr.reshape(-1, 3).astype(np.float32) + 1.0
    s = f.sum(axis=1)
    return np.column_stack([f[:, 2] / s * 12.0, f[:, 1] / s * 12.0, np.log(s) * 0.6])


def _largest_component(mask: np.ndarray) -> tuple[np.ndarray, int]:
    n, lab, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 1:
        return np.zeros_like(mask), 0
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    return (lab == k).astype(np.uint8) * 255, int(stats[k, cv2.CC_STAT_AREA])


def _component_most_in(mask: np.ndarray, region: np.ndarray) -> np.ndarray:
    """The connected part of ``mask`` that covers most of ``region``."""
    n, lab = cv2.connectedComponents(mask, connectivity=8)
    if n <= 1:
        return np.zeros_like(mask)
    overlap = np.bincount(lab[region > 0], minlength=n)
    overlap[0] = 0
    return (lab == int(np.argmax(overlap))).astype(np.uint8) * 255


def _touches_border(mask: np.ndarray, frac: float = 0.02) -> bool:
    """Whether more than ``frac`` of the frame's edge pixels are in ``mask``."""
    edge = np.concatenate([mask[0], mask[-1], mask[:, 0], mask[:, -1]])
    return bool(np.count_nonzero(edge) > frac * len(edge))


def _sides_touched(mask: np.ndarray, frac: float = 0.15) -> list[str]:
    """The frame's sides along more than ``frac`` of which ``mask`` lies."""
    edges = {"top": mask[0], "bottom": mask[-1], "left": mask[:, 0], "right": mask[:, -1]}
    return [name for name, e in edges.items() if np.count_nonzero(e) > frac * len(e)]


def _grown_hull(region: np.ndarray, margin: int) -> np.ndarray:
    """The convex hull of ``region``, grown by ``margin`` px (uint8 mask)."""
    cnts, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros_like(region)
    cv2.fillConvexPoly(out, cv2.convexHull(np.vstack(cnts)), 255)
    if margin <= 0:
        return out
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * margin + 1,) * 2)
    return cv2.dilate(out, k)


def _trunk(region: np.ndarray, width: int) -> np.ndarray:
    """``region`` without the limbs narrower than ``width`` px that hang from it (the
    part of it an opening of that width keeps, most in it); ``region`` itself when the
    opening keeps nothing."""
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (width | 1,) * 2)
    opened = cv2.morphologyEx(region, cv2.MORPH_OPEN, k)
    if not cv2.countNonZero(opened):
        return region
    return _component_most_in(opened, region)


def _fill_holes(mask: np.ndarray, max_frac: float = 1.0) -> np.ndarray:
    """Fill holes smaller than ``max_frac`` of the region (balls, worn patches, lines);
    a large hole (the table inside the floor around it) stays a hole."""
    cnts, hier = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE)
    out = mask.copy()
    if hier is None:
        return out
    hier = hier[0]
    for i, c in enumerate(cnts):
        parent = hier[i][3]
        if parent >= 0 and cv2.contourArea(c) < max_frac * cv2.contourArea(cnts[parent]):
            cv2.drawContours(out, cnts, i, 255, -1)
    return out


def _quad_from_hull(hull: np.ndarray, outline: np.ndarray, tol: float) -> np.ndarray | None:
    """Four corners of a convex outline: of the candidates (4-gon approximations, and
    the lines of the hull's four longest edges, for when dark or pocketed corners or a
    graphic cut the outline's corners off), the one whose sides most outline points
    (``outline``: (N, 2)) lie on, within ``tol`` px (lens distortion bows the sides)."""
    peri = cv2.arcLength(hull, True)
    candidates = []
    for eps in np.linspace(0.01, 0.12, 23):
        ap = cv2.approxPolyDP(hull, eps * peri, True)
        if len(ap) == 4:
            candidates.append(ap.reshape(4, 2).astype(float))
        if len(ap) <= 4:
            break
    ap = cv2.approxPolyDP(hull, 0.008 * peri, True).reshape(-1, 2).astype(float)
    if len(ap) >= 4:
        edges = [(ap[i], ap[(i + 1) % len(ap)]) for i in range(len(ap))]
        lengths = [np.linalg.norm(b - a) for a, b in edges]
        keep = sorted(np.argsort(lengths)[-4:])
        lines = [(edges[i][0], (edges[i][1] - edges[i][0]) / lengths[i]) for i in keep]
        try:
            candidates.append(np.array([_intersect(*lines[i - 1], *lines[i])
                                        for i in range(4)]))
        except np.linalg.LinAlgError:
            pass
    straight = _quad_from_straight_runs(outline)
    if straight is not None:
        candidates.append(straight)
    if not candidates:
        return None
    support = [np.mean(_distance_to_outline(outline, q) < tol) for q in candidates]
    return candidates[int(np.argmax(support))]


def _quad_from_straight_runs(outline: np.ndarray, tol: float = 2.0,
                             tries: int = 300) -> np.ndarray | None:
    """Four corners from the four straightest, longest runs of the outline, found one
    after the other (RANSAC): the hull follows a bystander leaning over a rail, these
    lines do not."""
    pts = outline.astype(float)
    if len(pts) < 40:
        return None
    rng = np.random.default_rng(0)  # the same outline always gives the same quad
    extent = float(np.linalg.norm(pts.max(axis=0) - pts.min(axis=0)))
    left = np.ones(len(pts), bool)
    lines = []
    for _ in range(4):
        cand = pts[left]
        if len(cand) < 10:
            return None
        pairs = rng.integers(0, len(cand), size=(tries, 2))
        a, b = cand[pairs[:, 0]], cand[pairs[:, 1]]
        seg = b - a
        length = np.linalg.norm(seg, axis=1)
        ok = length > 0.1 * extent
        if not ok.any():
            return None
        a, seg, length = a[ok], seg[ok], length[ok]
        normal = np.column_stack([-seg[:, 1], seg[:, 0]]) / length[:, None]
        dist = np.abs((cand[None, :, :] - a[:, None, :]) @ normal[..., None])[..., 0]
        best = int(np.argmax((dist < tol).sum(axis=1)))
        on_line = cand[dist[best] < tol]
        c, d = _line_fit(on_line)
        lines.append((c, d, on_line.mean(axis=0)))
        idx = np.flatnonzero(left)
        left[idx[dist[best] < 3 * tol]] = False
    centre = pts.mean(axis=0)
    order = np.argsort([np.arctan2(m[1] - centre[1], m[0] - centre[0]) for _, _, m in lines])
    lines = [lines[i] for i in order]
    try:
        return np.array([_intersect(lines[i - 1][0], lines[i - 1][1], lines[i][0], lines[i][1])
                         for i in range(4)])
    except np.linalg.LinAlgError:
        return None


def _distance_to_outline(pts: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Each point's distance to the nearest side (segment) of ``quad``."""
    out = np.full(len(pts), np.inf)
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        seg = b - a
        t = np.clip((pts - a) @ seg / max(float(seg @ seg), 1e-9), 0.0, 1.0)
        out = np.minimum(out, np.linalg.norm(pts - (a + t[:, None] * seg), axis=1))
    return out


def _order_positive(quad: np.ndarray) -> np.ndarray:
    x, y = quad[:, 0], quad[:, 1]
    area = np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y)
    return quad if area > 0 else quad[::-1].copy()


def _line_fit(pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Total least squares line: (point, unit direction)."""
    c = pts.mean(axis=0)
    d = pts - c
    _, vecs = np.linalg.eigh(d.T @ d)  # 2x2: a full SVD of (N, 2) would build N x N
    return c, vecs[:, 1]


def _intersect(p1, d1, p2, d2) -> np.ndarray:
    a = np.column_stack([d1, -d2])
    s = np.linalg.solve(a, p2 - p1)
    return p1 + s[0] * d1


def _clipped(small: np.ndarray, channels: int = 1) -> np.ndarray:
    """Pixels with ``channels`` or more clipped channels, and their rim: their colour is
    not the surface's.

    Glare under the lamps clips the cloth (one channel first, then all three), which
    bends its chromaticity toward white in rings; such pixels may belong to any region.
    """
    clip = ((small >= CLIP_LEVEL).sum(axis=2) >= channels).astype(np.uint8)
    return cv2.dilate(clip, np.ones((3, 3), np.uint8)) > 0


def _cluster_labels(small: np.ndarray, clipped: np.ndarray, k: int = 6
                    ) -> tuple[np.ndarray, np.ndarray]:
    """k-means labels of the work copy and the cluster centres.

    Clipped pixels take no part in the clustering; each clipped patch is then given
    the label that surrounds it most (glare on the cloth is ringed by cloth)."""
    sh, sw = small.shape[:2]
    feats = _features(small)
    valid = ~clipped.ravel()
    if valid.sum() < 0.1 * sh * sw:
        raise CalibrationError("no table found: the frame is blown out (clipped nearly "
                               "everywhere)")
    sub = feats[valid][:: 7]
    crit = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_MAX_ITER, 30, 1e-3)
    cv2.setRNGSeed(12345)  # the same frame always gives the same answer
    _, _, centres = cv2.kmeans(sub, k, None, crit, 3, cv2.KMEANS_PP_CENTERS)
    # nearest centre: |f - c|^2 = |f|^2 - 2 f.c + |c|^2, and |f|^2 is the same for all c
    d = (centres * centres).sum(axis=1)[None, :] - 2.0 * (feats @ centres.T)
    labels = d.argmin(axis=1).reshape(sh, sw)
    if not clipped.any():
        return labels, centres
    n, patch = cv2.connectedComponents(clipped.astype(np.uint8), connectivity=8)
    grown = cv2.dilate(patch.astype(np.float32), np.ones((5, 5), np.uint8))
    rim = (grown > 0) & ~clipped
    votes = np.bincount(grown[rim].astype(np.int64) * k + labels[rim],
                        minlength=n * k).reshape(n, k)
    owner = votes.argmax(axis=1)
    labels[clipped] = owner[patch[clipped]]
    return labels, centres


#: chromaticity (the work features' scale) within which two clusters are one surface
#: split by brightness (:func:`_colour_groups`)
CHROMA_STEP = 0.5
#: the same where pixels clipped in one channel keep their colour (a vivid cloth
#: clipping in its own channel, :func:`find_cloth`'s second look): with that channel
#: held at 255 while the others rise toward the lamps, the cloth's chromaticity moves
#: with its brightness, and k-means splits it into rings further apart (benchmark scene
#: 6256, a red cloth at 255 red over 90% of the table: lamp-lit middle, ring and rim
#: 0.54 and 0.60 apart, the middle alone taken and refused). [tuned: the six scenes
#: known to clip so, 284, 1309, 2310, 5204, 6256 and 6362: the cloth's clusters
#: 0.38-0.63 apart, the nearest off the cloth 1.04 or more;
#: bench/clipped_cloth_clusters.py]
CLIPPED_CHROMA_STEP = 0.8


def _colour_groups(centres: np.ndarray, max_chroma_step: float = CHROMA_STEP
                   ) -> list[list[int]]:
    """Each cluster alone, and each set of clusters linked by nearly equal chromaticity.

    k-means also splits one surface by brightness (a lamp's pool of light, a tinted
    lamp, vignetting): the union of such clusters is a candidate too."""
    k = len(centres)
    chroma = centres[:, :2]
    near = np.linalg.norm(chroma[:, None] - chroma[None], axis=2) < max_chroma_step
    group = list(range(k))
    for i in range(k):
        for j in range(k):
            if near[i, j] and group[j] != group[i]:
                old = group[j]
                group = [group[i] if g == old else g for g in group]
    groups = [[c] for c in range(k)]
    for g in sorted(set(group)):
        members = [c for c in range(k) if group[c] == g]
        if len(members) > 1:
            groups.append(members)
    return groups


#: a chosen cloth region this much clipped at white is an overexposed frame: the
#: cloth's colour and outline are lost in it, whatever else is wrong
BLOWN_OUT = 0.25


class _Overexposed(CalibrationError):
    """No table found in a frame whose table clips (``share`` of its area)."""

    def __init__(self, message: str, share: float):
        super().__init__(message)
        self.share = share


def _refusal(clipped: np.ndarray, region: np.ndarray, reason: str) -> CalibrationError:
    """The error for a cloth region that gave no table: the reason found, unless the
    region is mostly blown out, which is then the reason to give (the exposure is the
    user's to fix)."""
    cnts, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    hull = np.zeros_like(region)
    if cnts:
        cv2.fillPoly(hull, [cv2.convexHull(max(cnts, key=cv2.contourArea))], 255)
    share = float(clipped[hull > 0].mean()) if hull.any() else 0.0
    if share > BLOWN_OUT:
        return _Overexposed(
            f"no table found: the frame is overexposed ({share:.0%} of the table's area "
            "clips): lower the camera's exposure or gain", share)
    return CalibrationError(reason)


def find_cloth(image: np.ndarray) -> ClothRegion:
    """Segment the cloth and find its four straight sides; raise if there is no table.

    A near-black cloth's chromaticity is mostly noise at the work copy's scale: its
    region comes out ragged, its sides unseen (benchmark scene 410). When the cloth is
    not found, it is looked for again in a copy smoothed further
    (:data:`DARK_CLOTH_BLUR`), where the noise averages out; the first reason stands
    when that fails too. So it is when the outline found covers too little of its own
    quad (:data:`SOLID_OUTLINE`): the smoother copy's is taken if it covers more, for
    a cloth that clips as for any other."""
    try:
        region = _find_cloth(image, BLUR)
    except _Overexposed as blown:
        # a vivid cloth under bright lamps may clip in its own channel up to the
        # cushions (benchmark scene 284: blue at 255 over 82% of the table): that is
        # its colour, not glare, and only pixels clipped in two channels or more are
        # taken as colourless (the rings it splits into joined by CLIPPED_CHROMA_STEP,
        # scene 6256). Where the clipping bent the lamp-lit middle's colour
        # away from the rim's, the middle alone may be taken (1309): the diamonds
        # then do not fit, and the calibration refuses
        try:
            region = _find_cloth(image, BLUR, clip_channels=2)
        except CalibrationError:
            raise blown from None
        # the lamp-lit middle's clipped colour may part from the rim's and still make
        # four sides (benchmark scene 2310: a tournament-blue cloth, the quad 140-150
        # px off at two corners): in the smoother copy the rim may join it
        return replace(_solid_outline(image, region, clip_channels=2), clipped=blown.share)
    except CalibrationError as first:
        try:
            return _find_cloth(image, DARK_CLOTH_BLUR)
        except CalibrationError:
            raise first from None
    # a ragged outline that still made four sides: a black cloth's lamp-lit middle, its
    # dim rim lost in noise (benchmark scene 1734: an oval, the quad 40-80 px inside the
    # cushions' edge, no diamond where it put them)
    return _solid_outline(image, region)


def _solid_outline(image: np.ndarray, region: ClothRegion, clip_channels: int = 1
                   ) -> ClothRegion:
    """``region``, or where its outline covers less of its quad than
    :data:`SOLID_OUTLINE`, the smoother copy's outline if that covers more."""
    if region.covered >= SOLID_OUTLINE:
        return region
    try:
        smoother = _find_cloth(image, DARK_CLOTH_BLUR, clip_channels)
    except CalibrationError:
        return region
    return smoother if smoother.covered > region.covered else region


#: px (work copy): the smoothing of the work copy, and of the second look for the
#: cloth (:func:`find_cloth`)
BLUR = 3
DARK_CLOTH_BLUR = 9
#: a cloth outline whose quad its mask covers less than this is looked for again in
#: the smoother copy (:func:`find_cloth`): a cloth's mask covers 0.95-1.0 of its quad
#: (benchmark seeds 0-1799, but for scene 1734's ragged oval at 0.90; of the six that
#: clip, 1309's lamp-lit middle at 0.86; later, 2310's at 0.87)
SOLID_OUTLINE = 0.93
#: a cloth outline whose quad its mask covers less than this is grown by brightness as
#: well (:func:`_brightness_ringed`), and the outline covering more taken
RAGGED_OUTLINE = 0.95
#: share of the cloth's mask that the closing joined to it from beyond the chosen
#: region, over which (and under BRIDGED_MAX) the mask closed less is taken
#: (:func:`_outline`) [tuned: scene 4516's banner 0.09 of it, scene 1734's notches
#: 0.002; an arm across the cloth, the chosen region one side of it: 0.37-0.39]
BRIDGED_SHARE = 0.02
BRIDGED_MAX = 0.25


def _cloth_model(pixels: np.ndarray) -> ClothModel:
    """The colour model of the cloth's pixels (N, 3): chromaticity median and spread."""
    px = pixels.astype(np.float32) + 1.0
    s = px.sum(axis=1)
    rg = np.column_stack([px[:, 2] / s, px[:, 1] / s])
    mean = np.median(rg, axis=0)
    cov = np.cov((rg - mean).T) + np.eye(2) * 2e-5
    li = np.log(s)
    return ClothModel(mean, np.linalg.inv(cov), float(np.median(li)),
                      float(1.4826 * np.median(np.abs(li - np.median(li)))))


def _work_copy(image: np.ndarray, blur: int) -> tuple[np.ndarray, np.ndarray, float]:
    """The frame's copy the cloth is segmented on (at most :data:`WORK_WIDTH` across),
    that copy smoothed by ``blur`` px, and frame px per copy px."""
    h, w = image.shape[:2]
    scale = w / WORK_WIDTH if w > WORK_WIDTH else 1.0
    work = cv2.resize(image, (round(w / scale), round(h / scale)),
                      interpolation=cv2.INTER_AREA) if scale > 1 else image.copy()
    return work, cv2.GaussianBlur(work, (blur, blur), 0), scale


def _find_cloth(image: np.ndarray, blur: int, clip_channels: int = 1) -> ClothRegion:
    """The cloth region (:func:`find_cloth`); pixels with ``clip_channels`` or more
    channels clipped have no colour of their own."""
    work, small, scale = _work_copy(image, blur)
    sh, sw = small.shape[:2]
    clipped = _clipped(small, clip_channels)
    labels, centres = _cluster_labels(small, clipped)
    best, best_score, fills_frame, cut_sides = None, 0.0, False, []
    fallback, fallback_score, fallback_members = None, 0.0, []
    singles: dict[int, tuple[float, float]] = {}  # cluster: (score, hull area) alone
    single_regions: dict[int, np.ndarray] = {}
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    step = CLIPPED_CHROMA_STEP if clip_channels > 1 else CHROMA_STEP
    for members in _colour_groups(centres, step):
        m = np.isin(labels, members).astype(np.uint8) * 255
        # closing first bridges chalk lines (another cluster) that would otherwise
        # cut the cloth into pieces
        m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, kernel)
        m = cv2.morphologyEx(m, cv2.MORPH_OPEN, kernel)
        comp, area = _largest_component(m)
        if len(members) > 1 and _touches_border(comp):
            # clusters joined by hue may take a floor of the cloth's hue along (a black
            # cloth on a grey floor, benchmark scene 419): where the rails part them,
            # the union's part around its most cloth-like cluster may be the cloth
            inner = max((c for c in members if c in single_regions),
                        key=lambda c: singles[c][0], default=None)
            if inner is None:
                continue
            comp = _component_most_in(m, single_regions[inner])
            area = cv2.countNonZero(comp)
            if _touches_border(comp):
                continue
        if area < 0.06 * sh * sw:
            continue
        # worn patches, balls and markings are holes inside the cloth: fill them
        comp = _fill_holes(comp, 0.2)
        area = cv2.countNonZero(comp)
        if area > 0.85 * sh * sw:
            fills_frame = True
            cut_sides = _sides_touched(comp)
            continue
        cnts, _ = cv2.findContours(comp, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        hull_area = max(cv2.contourArea(cv2.convexHull(max(cnts, key=cv2.contourArea))), 1.0)
        solidity = area / hull_area
        score = area * solidity ** 4
        if len(members) == 1:
            singles[members[0]] = (score, hull_area)
            single_regions[members[0]] = comp
        elif hull_area > 1.08 * max(singles.get(c, (0.0, 0.0)) for c in members)[1]:
            # a lamp's pool of light lies inside the cloth (the most cloth-like of the
            # clusters); one that pushes the outline outward is another surface of a
            # near hue (a tan cloth's wooden rails). Unless no single cluster is the
            # cloth: a frame cut tight to the rails splits a cloth lit unevenly into
            # clusters none of which is solid alone.
            if solidity > 0.75 and score > fallback_score:
                fallback, fallback_score, fallback_members = comp, score, members
            continue
        if solidity > 0.75 and score > best_score:
            best, best_score, best_members = comp, score, members
    if best is None and fallback is not None:
        best, best_members, fallback = fallback, fallback_members, None
    ringed = False
    if best is None and not fills_frame:
        best, best_members = _ringed(single_regions)
        ringed = best is not None
    if best is None and fills_frame:
        if 0 < len(cut_sides) < 4:  # a table framed too tight: say where
            raise CalibrationError(
                "no table found: the cloth runs out of the frame at the "
                + " and ".join(cut_sides) + " (the whole table, rails included, must be "
                "in view)")
        raise CalibrationError("no table found: one colour fills the frame (a blank "
                               "frame, or a close-up: the whole table, rails included, "
                               "must be in view)")
    if best is None:
        raise CalibrationError("no table found: no large, uniformly coloured four-sided "
                               "region (the cloth) in the frame")
    found = _Found(image, work, small, labels, clipped, scale, blur)
    try:
        return _outline(found, best, best_members, by_brightness=ringed)
    except CalibrationError as exc:
        if isinstance(exc, _Overexposed):
            raise
        # the most cloth-like region was not the table: a lamp's pool of light on a
        # cloth whose colour the floor shares (the clusters joined by hue, if any), or
        # on a black cloth whose dim rim is one colour with the rails round it (scene
        # 7563: the pool an oval; the rim and rails a ring round it, :func:`_ringed`)
        others = [(fallback, fallback_members, False)] if fallback is not None else []
        if not ringed:
            ring, ring_members = _ringed(single_regions)
            if ring is not None:
                others.append((ring, ring_members, True))
        for region, members, bright in others:
            try:
                return _outline(found, region, members, by_brightness=bright)
            except CalibrationError:
                continue
        raise exc from None  # the most cloth-like region's reason


#: share of the band along the inside of a cluster region's convex hull that the
#: region must cover to be a ring round another surface (:func:`_ringed`), and the
#: band's width (share of the work copy's diagonal)
RING_COVER = 0.9
RING_BAND = 0.015
#: a ring covers at most this share of its convex hull (the middle is another colour)
RING_FILL = 0.8


def _ringed(regions: dict[int, np.ndarray]) -> tuple[np.ndarray | None, list[int]]:
    """The cloth as a ring of one colour round a middle of another (its convex hull),
    or None: the innermost such ring.

    A lamp's pool of light may give a dark cloth's middle the floor's colour (benchmark
    scene 4686: a black cloth on a dark grey floor, the lit middle and the floor one
    cluster, the dimmer rim another): no cluster alone is solid, and the union runs out
    of the frame. The rim alone, which need not close (the pool reaches a cushion),
    covers the band along the inside of its hull, and the hull is the cloth. Only when
    nothing else is found: a wooden rail is a ring round the cloth too (hence the
    innermost)."""
    best, best_area, members = None, np.inf, []
    for c, comp in regions.items():
        if _touches_border(comp):  # the floor round the table
            continue
        hull = _grown_hull(comp, 0)
        area = cv2.countNonZero(hull)
        if cv2.countNonZero(comp) > RING_FILL * area:
            continue  # no middle of another colour: a solid region, not a ring
        band_px = max(3, round(RING_BAND * np.hypot(*comp.shape)))
        k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * band_px + 1,) * 2)
        # the band starts a pixel inside the hull: the hull's edge runs straight past
        # a ragged outline's notches, a pixel-wide miss all round (with a rail's glare
        # notching one side, it left scene 7563's ring under RING_COVER)
        inset = cv2.erode(hull, np.ones((3, 3), np.uint8))
        band = (inset > 0) & (cv2.erode(hull, k) == 0)
        if np.count_nonzero(band & (comp > 0)) >= RING_COVER * np.count_nonzero(band) \
                and area < best_area:
            best, best_area, members = hull, area, [c]
    return best, members


@dataclass
class _Found:
    """The work copies and clusters a cloth region is outlined in."""

    image: np.ndarray  # the frame
    work: np.ndarray  # its work copy
    small: np.ndarray  # the work copy smoothed
    labels: np.ndarray  # colour cluster of each work pixel
    clipped: np.ndarray  # work pixels clipped (no colour of their own)
    scale: float  # frame px per work px
    blur: int  # the smoothing of ``small``


def _outline(found: _Found, best: np.ndarray, best_members: list[int],
             by_brightness: bool = False) -> ClothRegion:
    """The cloth's four sides from the chosen cluster region, or CalibrationError;
    ``by_brightness``: its sides are placed by brightness (a ring round a lamp-lit
    middle, :func:`_ringed`)."""
    small, labels, clipped = found.small, found.labels, found.clipped
    sh, sw = small.shape[:2]
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
    # the cloth's colour statistics, from the chosen region (eroded away from edges)
    core = ((cv2.erode(best, kernel, iterations=2) > 0) & np.isin(labels, best_members)
            & ~clipped)
    if np.count_nonzero(core) < 20:
        raise _refusal(clipped, best, "no table found: the cloth's colour is not seen "
                                      "(glare)")
    model = _cloth_model(small[core])
    dist = model.distance(small)
    # glare on the cloth (clipped patches the cloth surrounds) is cloth; where it spills
    # over a cushion onto a rail the edge is not seen: those outline points are left out
    glare = clipped & np.isin(labels, best_members)
    # nor is anything much darker than the darkest of the chosen region (the colour
    # test allows for lamps and vignetting; a grey cloth's black pockets pass it)
    log_level = np.log(small.astype(np.float32).sum(axis=2) + 3.0)
    p5, p50 = np.percentile(log_level[(best > 0) & ~clipped], [5, 50])
    lit = log_level >= p5 - max(1.0, 3.0 * (p50 - p5))
    raw = (((dist < CLOTH_LIKE) & lit & ~clipped) | glare).astype(np.uint8) * 255
    close = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (max(5, sw // 40) | 1,) * 2)

    def cloth_part(m: np.ndarray, close: np.ndarray = close) -> np.ndarray:
        m = cv2.morphologyEx(m, cv2.MORPH_OPEN, kernel)
        m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, close)
        return _component_most_in(m, best)

    held = False  # to the chosen region's grown hull
    margin = max(3, round(0.015 * np.hypot(sw, sh)))  # the growth of that hull
    mask = cloth_part(raw)
    if _touches_border(mask):
        # a floor of the cloth's hue (grey on grey, green on green) passes the colour
        # test and runs out of the frame. The rails part them, unless the closing
        # bridged narrow rails: closed less, the cloth may stand alone (benchmark scene
        # 848: a grey cloth's lamp-lit middle chosen, its dimmer rim the floor's grey,
        # navy rails 9 work px wide). Else keep to the chosen region's outline, grown a
        # little (dark corners, the cushion band).
        mask = cloth_part(raw, kernel)
        if _touches_border(mask):
            held = True
            mask = cloth_part(raw & _grown_hull(_trunk(best, 2 * margin), margin))
    else:
        # a banner of the cloth's colour on the floor, against a rail, is joined to the
        # cloth by the closing across the rail and makes a side of the outline beyond the
        # rail (benchmark scene 4516: a grey "CUEREF OPEN" banner under a grey cloth's
        # near-black rail). Closed less, the rail parts them: where what the closing
        # joined lies beyond the chosen region, and is more than a notch but less than a
        # large part of the cloth, the cloth is the part closed less. (An arm across the
        # cloth parts it too when closed less, and where the chosen region was one side
        # of it the other is "beyond" it: a third of the cloth and more, synthetic scenes
        # of tests/test_calibration.py)
        area = np.count_nonzero(mask)
        beyond = (mask > 0) & (_grown_hull(best, margin) == 0)
        if np.count_nonzero(beyond) > BRIDGED_SHARE * area:  # (else nothing to part)
            parted = cloth_part(raw, kernel)
            joined = np.count_nonzero(beyond & (parted == 0))
            if BRIDGED_SHARE * area < joined < BRIDGED_MAX * area:
                mask = parted

    try:
        region = _region_of(found, mask, best, model, core, by_brightness)
    except CalibrationError as exc:
        # a dark cloth whose dim rim its colour lost: grown by brightness to the rails
        # (not a frame refused as overexposed: its fix is the exposure, said as such)
        if not isinstance(exc, _Overexposed):
            grown = _grown_by_brightness(found, log_level, best, model, core, kernel)
            if grown is not None:
                return grown
        if not held:
            raise
        # held to the lamp-lit middle's hull, a grey cloth beside grey cushions, grey
        # rails and a grey floor is an oval (benchmark scene 1354): the floor is
        # darker by more than the cloth's rim is, and the table (rails and all)
        # stands out of it. Its outline may be the rails' outer edge: the diamonds'
        # search then takes it so (calibration.fit._rails_outlined)
        lighter = log_level >= p5 - max(0.35, 1.5 * (p50 - p5))
        table_mask = cloth_part(((raw > 0) & lighter).astype(np.uint8) * 255, kernel)
        if _touches_border(table_mask):
            raise
        try:
            return _region_of(found, table_mask, best, model, core)
        except CalibrationError:
            raise exc from None  # the first outline's reason
    if region.covered < RAGGED_OUTLINE:
        # a ragged outline that still made four sides: a dark cloth's lamp-lit middle,
        # its dim rim lost (benchmark scene 2592: the quad 90 px off, skewed) may be
        # grown to the rails as well, and that outline is taken if it is more solid
        grown = _grown_by_brightness(found, log_level, best, model, core, kernel)
        if grown is not None and grown.covered > region.covered:
            return grown
    return region


def _grown_by_brightness(found: _Found, log_level: np.ndarray, best: np.ndarray,
                         model: ClothModel, core: np.ndarray, kernel: np.ndarray
                         ) -> ClothRegion | None:
    """The cloth grown by brightness to the rails (:func:`_brightness_ringed`) and
    outlined, its sides placed by brightness; None when it cannot be grown or outlined.
    A cloth darker than its rails is tried first, then, for a colourless cloth (whose
    colour does not part it from dark rails), one lighter."""
    grey = float(np.hypot(*(model.mean - 1.0 / 3.0))) < COLOURLESS
    for lighter in (False, True) if grey else (False,):
        # grown down, it takes in nothing lighter than its lit middle but of its colour:
        # light wood round a grey cloth stays out (benchmark scene 7162, whose rails and
        # a banner beyond them were taken in without it)
        like = model.chroma_distance(found.small) < CLOTH_LIKE if lighter else None
        ring = _brightness_ringed(log_level, best, kernel, like)
        if ring is None:
            continue
        try:
            return _region_of(found, ring, best, model, core, by_brightness=True)
        except CalibrationError:
            continue
    return None


#: log-brightness steps from the chosen region's median at which a cloth's region is
#: grown to the rails round it, and the growth per step (share of the area, holes
#: filled) under which a step is on the plateau between the two
#: (:func:`_brightness_ringed`; benchmark scene 3510: 0.1-0.2% a step; 1563, a
#: lamp-lit black cloth in light wood: 0.1-0.4%, the shaded cushion band creeping in;
#: 2592, a floor as dark as the cloth: 0.2-0.4%, three steps before the floor), and how
#: many such steps make one. Steps of 0.05, not 0.1: 2592's plateau is 0.2 wide
RING_STEPS = np.arange(0.05, 2.01, 0.05)
RING_STABLE = 0.02
RING_MIN_STEPS = 3
#: Mahalanobis distance in the cloth's colour model under which a pixel is of the
#: cloth's colour
CLOTH_LIKE = 4.0
#: chromaticity distance from grey under which a cloth is colourless, and grown down
#: in brightness as well (:func:`_grown_by_brightness`; the renderer's grey cloth under
#: its lamps' tints, through the camera's curve: 0.007-0.025; its tan and olive, the
#: least coloured of the rest: 0.08-0.09)
COLOURLESS = 0.05


def _brightness_ringed(log_level: np.ndarray, best: np.ndarray, kernel: np.ndarray,
                       like: np.ndarray | None = None) -> np.ndarray | None:
    """The cloth grown in brightness up to the rails that ring it, or None: rails
    lighter than the cloth, or (``like`` given: the pixels of the cloth's colour, the
    only ones lighter than its lit middle it takes in) darker.

    A near-black cloth's chromaticity is noise, and the colour test may keep its
    lamp-lit middle alone (benchmark scene 3510: an oval, the dim rim lost). Cloth and
    cushions are darker than the rails round them: every threshold between the two
    levels gives the same region (a plateau), and the region runs out to the floor only
    above the rails' level. The middle one of the steps on the plateau is taken;
    without three such steps (dark rails, a cloth lit unevenly up to the rails) there
    is nothing to take. Its outline is refined by brightness (:func:`_refine_edges`).

    A grey cloth is the mirror (benchmark scene 9994, 1280 px: near-black rails by the
    camera's curve as grey as the floor, as colourless as the cloth, whose dim rim is
    a quarter brighter than they; the colour test took rails on three sides, and the
    quad ran 2,000 px out of the frame): grown down in brightness from its lamp-lit
    middle, it stops at the darker rails."""
    level = log_level if like is None else -log_level  # grown down: the mirror
    p50 = float(np.median(level[best > 0]))
    # past the lit middle the way it is grown down, only the cloth's colour is cloth
    allowed = True if like is None else like | (level >= p50)
    areas, comps = [], []
    for step in RING_STEPS:
        m = ((level <= p50 + step) & allowed).astype(np.uint8) * 255
        comp = _component_most_in(cv2.morphologyEx(m, cv2.MORPH_OPEN, kernel), best)
        if _touches_border(comp):
            break
        comp = _fill_holes(comp)  # a lamp's pool of light, balls: inside the cloth
        areas.append(cv2.countNonZero(comp))
        comps.append(comp)
    stable = [i for i in range(len(areas) - 1)
              if areas[i + 1] - areas[i] < RING_STABLE * areas[i]]
    if len(stable) < RING_MIN_STEPS or areas[stable[0]] < cv2.countNonZero(best):
        return None
    return comps[stable[len(stable) // 2]]


def _region_of(found: _Found, mask: np.ndarray, best: np.ndarray, model: ClothModel,
               core: np.ndarray, by_brightness: bool = False) -> ClothRegion:
    """The cloth's four sides from its mask (work copy), or CalibrationError: ``best``
    is the chosen cluster region (for the refusal's reason), ``model`` the cloth's
    colour, ``core`` the pixels it was measured on; ``by_brightness``: the mask was
    grown by brightness, and its sides are placed so (:func:`_refine_edges`)."""
    image, work, clipped = found.image, found.work, found.clipped
    scale, blur = found.scale, found.blur
    sh, sw = found.small.shape[:2]
    mask = _fill_holes(mask)
    cnts, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    contour = max(cnts, key=cv2.contourArea).reshape(-1, 2)
    unseen = cv2.dilate(clipped.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    contour = contour[~unseen[contour[:, 1], contour[:, 0]]]
    if len(contour) < 20:
        raise _refusal(clipped, best, "no table found: the cloth's outline is not seen "
                                      "(glare)")
    hull = cv2.convexHull(contour.reshape(-1, 1, 2))
    quad = _quad_from_hull(hull, contour.astype(float), 0.03 * np.hypot(sw, sh))
    if quad is None or cv2.contourArea(hull) < 0.06 * sh * sw:
        raise _refusal(clipped, best, "no table found: the cloth-coloured region is not a "
                               "four-sided playing surface (not an overhead view?)")
    quad = _order_positive(quad)
    # contour points near each side (away from the corners, pockets live there)
    pts = contour.reshape(-1, 2).astype(float)
    diag = np.hypot(sw, sh)
    edges_small: list[np.ndarray] = []
    lines = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        seg = b - a
        length = np.linalg.norm(seg)
        u = seg / length
        nrm = np.array([-u[1], u[0]])
        t = (pts - a) @ u
        dn = (pts - a) @ nrm
        sel = (t > 0.07 * length) & (t < 0.93 * length) & (np.abs(dn) < 0.03 * diag)
        e = pts[sel]
        if len(e) < 10:
            raise _refusal(clipped, best, "no table found: a side of the cloth is not visible")
        # robust line through the side's points (an arm or a logo bites into the edge)
        keep = np.ones(len(e), bool)
        for _ in range(3):
            c, dvec = _line_fit(e[keep])
            res = np.abs((e - c) @ np.array([-dvec[1], dvec[0]]))
            thr = max(1.5, 3.0 * np.median(res[keep]) * 1.4826)
            keep = res < thr
        edges_small.append(e[keep])
        lines.append((c, dvec))
    quad = np.array([_intersect(*lines[(i - 1) % 4], *lines[i]) for i in range(4)])
    # the quad must be mostly cloth, and little cloth colour may lie beyond it (a
    # bystander leaning over a rail, yes; a second surface, no)
    inside = np.zeros_like(mask)
    cv2.fillPoly(inside, [np.round(quad).astype(np.int32)], 255)
    q_area = max(cv2.countNonZero(inside), 1)
    covered = cv2.countNonZero(mask & inside) / q_area
    beyond = cv2.countNonZero(mask & ~inside) / q_area
    if covered < 0.85 or beyond > 0.25:
        raise _refusal(clipped, best, "no table found: the cloth's outline is not four "
                                      "straight sides (not an overhead view of a table?)")
    full_quad = (quad + 0.5) * scale - 0.5
    colour = model
    if blur != BLUR:  # the colour's spread as the full frame shows it, not the smoothed
        colour = _cloth_model(cv2.GaussianBlur(work, (BLUR, BLUR), 0)[core])
    edges = [_refine_edges(image, colour, (e + 0.5) * scale - 0.5, scale, by_brightness)
             for e in edges_small]
    return ClothRegion(model=colour, quad=full_quad, edges=edges, mask=mask, scale=scale,
                       covered=covered, by_brightness=by_brightness)


#: log brightness, scaled to the colour distance's units, at which a dark cloth's edge
#: is found (:func:`_refine_edges`): a contrast of 0.2 (22%) at least
BRIGHTNESS_UNITS = 10.0


def _refine_edges(image: np.ndarray, model: ClothModel, pts: np.ndarray,
                  scale: float, by_brightness: bool = False, n_max: int = 60
                  ) -> np.ndarray:
    """Move coarse edge points onto the sub-pixel cloth boundary, along local normals:
    where the colour turns from the cloth's, or (``by_brightness``, a dark cloth whose
    colour is noise) where the brightness turns to the rails'."""
    if len(pts) > n_max:
        pts = pts[np.linspace(0, len(pts) - 1, n_max).astype(int)]
    if len(pts) < 3:
        return pts
    half = int(np.ceil(2.5 * scale + 3))
    # local normals from neighbours along the (ordered) contour
    tang = np.gradient(pts, axis=0)
    tang /= np.linalg.norm(tang, axis=1, keepdims=True) + 1e-9
    nrm = np.column_stack([-tang[:, 1], tang[:, 0]])
    offs = np.arange(-half, half + 1, 0.5)
    sx = (pts[:, 0:1] + nrm[:, 0:1] * offs[None, :]).astype(np.float32)
    sy = (pts[:, 1:2] + nrm[:, 1:2] * offs[None, :]).astype(np.float32)
    prof = cv2.remap(image, sx, sy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if by_brightness:
        like = BRIGHTNESS_UNITS * np.log(prof.astype(np.float32).sum(axis=2) + 3.0)
    else:
        like = np.clip(model.distance(prof), 0, 10.0)  # low on cloth, high off it
    like = cv2.GaussianBlur(like.astype(np.float32), (5, 1), 0)
    out = []
    lows, highs = np.percentile(like, [15, 85], axis=1)
    for i in range(len(pts)):
        p = like[i]
        lo, hi = lows[i], highs[i]
        if hi - lo < 2.0:
            continue
        mid = (lo + hi) / 2
        inside_low = p[: len(p) // 2].mean() < p[len(p) // 2:].mean()
        q = p if inside_low else p[::-1]
        o = offs if inside_low else offs[::-1]
        idx = np.nonzero((q[:-1] < mid) & (q[1:] >= mid))[0]
        if len(idx) == 0:
            continue
        j = idx[np.argmin(np.abs(o[idx]))]
        frac = (mid - q[j]) / (q[j + 1] - q[j] + 1e-9)
        s = o[j] + frac * (o[j + 1] - o[j])
        out.append(pts[i] + nrm[i] * s)
    return np.array(out) if out else pts


# ---------------------------------------------------------------------- blobs
#: what the rails' sights look like (:func:`sight_image`)
SIGHTS = ("light", "pale", "dark")


def sight_image(image: np.ndarray, sights: str = "light") -> np.ndarray:
    """The image the rails' sights are looked for in, as bright details.

    * ``light``: grey. White or pearl sights on a darker rail (dark wood, laminate).
    * ``pale``: each pixel's darkest channel. Pearl sights on a light wooden rail:
      sights are neutral and wood is dark in blue, so a sight stands out there (in
      grey, blue weighs 11%: on maple, whose red is near clipping, the sight is lost in
      the grain). Not the default: a colour channel carries the video's halved chroma
      resolution and more noise, and moves the centroids of small sights.
    * ``dark``: the inverse of each pixel's brightest channel. Black sights on a light
      rail (a light rail is bright in at least one channel)."""
    if sights == "light":
        return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    if sights == "pale":  # (OpenCV's per-channel min and max: numpy's axis=2 is 5x slower)
        b, g, r = cv2.split(np.ascontiguousarray(image))
        return cv2.min(cv2.min(b, g), r)
    if sights == "dark":
        b, g, r = cv2.split(np.ascontiguousarray(image))
        return cv2.bitwise_not(cv2.max(cv2.max(b, g), r))
    raise ValueError(f"unknown sights {sights!r}; known: {', '.join(SIGHTS)}")


def tophat(gray: np.ndarray, size_px: float, min_width_px: float = 0.0) -> np.ndarray:
    """Bright details smaller than ``size_px`` (diamonds, spots) over their surroundings;
    ``min_width_px`` first removes thinner ones (chalk lines running through a spot)."""
    k = int(max(5, round(size_px))) | 1
    se = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    if min_width_px >= 2.0:
        m = int(round(min_width_px)) | 1
        gray = cv2.morphologyEx(gray, cv2.MORPH_OPEN,
                                cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (m, m)))
    return cv2.morphologyEx(gray, cv2.MORPH_TOPHAT, se).astype(np.float32)


def find_blob_near(th: np.ndarray, p: np.ndarray, radius: float, min_peak: float,
                   max_size: float, context: float | None = None
                   ) -> tuple[np.ndarray, float] | None:
    """The strongest small bright blob within ``radius`` px of ``p``: (centroid, peak).

    It must stand out of its surroundings within ``context`` px (default ``radius``).
    """
    h, w = th.shape
    ctx = max(radius, context or radius)
    r = int(np.ceil(ctx))
    x0, y0 = int(round(p[0])) - r, int(round(p[1])) - r
    x1, y1 = x0 + 2 * r + 1, y0 + 2 * r + 1
    if x0 < 1 or y0 < 1 or x1 > w - 1 or y1 > h - 1:
        return None
    win = th[y0:y1, x0:x1]
    yy, xx = np.mgrid[y0:y1, x0:x1]
    d2 = (xx - p[0]) ** 2 + (yy - p[1]) ** 2
    inside = d2 <= radius ** 2
    wv = np.where(inside, win, 0)
    j = int(np.argmax(wv))
    peak = float(wv.flat[j])
    vals = win[d2 <= ctx ** 2]
    med = float(np.median(vals))
    mad = float(np.median(np.abs(vals - med))) * 1.4826
    if peak < min_peak or peak < med + 5.0 * mad:  # must stand out of its surroundings
        return None
    m = (win >= 0.5 * peak).astype(np.uint8)
    n, lab = cv2.connectedComponents(m, connectivity=8)
    comp = lab == lab.flat[j]
    ys, xs = np.nonzero(comp)
    if (xs.max() - xs.min() + 1) > max_size or (ys.max() - ys.min() + 1) > max_size:
        return None
    wgt = win[comp] - 0.5 * peak
    c = np.array([(xs * wgt).sum() / wgt.sum() + x0, (ys * wgt).sum() / wgt.sum() + y0])
    return c, peak
