"""Find the diamonds on the rail tops, given the cloth's outline.

The cloth quadrilateral predicts, for a table profile, where each diamond should be;
each is looked for as a small bright blob (a top-hat image) in a window around that
place, a RANSAC homography of the rail-top plane throws out mismatches, and a second
search around the homography's predictions finds the rest. The camera fit
(:mod:`calibration.fit`) later predicts, with its lens model, the ones still missed
(:func:`grow_diamonds`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from equipment.tables import Table

from .detect import find_blob_near, tophat

MIN_PEAK = 10.0  # grey levels a diamond must stand above the top-hat background
MIN_DIAMONDS = 6  # fewer than this: the profile does not fit the view


def table_corners(table: Table, c: float = 0.0) -> np.ndarray:
    """Playing-surface corners grown by ``c`` mm on every side (head-left first)."""
    L, W = table.length, table.width
    return np.array([[-c, -c], [L + c, -c], [L + c, W + c], [-c, W + c]], float)


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
    """Top-hat image for diamonds (bright details under ~45 mm), cached per scale."""
    key = round(ppm * 45)
    if key not in cache:
        cache[key] = tophat(gray, 45 * ppm)
    return cache[key]


def match_diamonds(th: np.ndarray, table: Table, H: np.ndarray, radius_px: float,
                   ppm: float, min_peak: float = MIN_PEAK) -> dict[int, np.ndarray]:
    """Diamond index -> blob centre (px) near where the rail-plane homography ``H``
    puts each diamond."""
    pts = cv2.perspectiveTransform(np.array(table.diamonds, float).reshape(-1, 1, 2), H)
    return grow_diamonds(th, pts.reshape(-1, 2), radius_px, ppm, min_peak)


def grow_diamonds(th: np.ndarray, predicted_px: np.ndarray, radius_px: float, ppm: float,
                  min_peak: float = MIN_PEAK) -> dict[int, np.ndarray]:
    """Diamond index -> blob centre (px) within ``radius_px`` of its predicted place."""
    out = {}
    for i, p in enumerate(np.asarray(predicted_px, float).reshape(-1, 2)):
        hit = find_blob_near(th, p, radius_px, min_peak, max_size=40 * ppm + 4)
        if hit is not None:
            out[i] = hit[0]
    return out


@dataclass
class DiamondSearch:
    """What :func:`locate_diamonds` found for one profile."""

    found: dict[int, np.ndarray]  # diamond index -> px
    homography: np.ndarray  # rail-top plane (table mm) -> px
    ppm: float  # rough px per mm
    tophat: np.ndarray  # the image the diamonds were found in
    start: int  # quad corner taken as table corner 0
    c0: float  # mm the cloth outline is taken to lie beyond the noses


def locate_diamonds(gray: np.ndarray, th_cache: dict, quad: np.ndarray, table: Table,
                    size: tuple[int, int]) -> DiamondSearch | None:
    """The diamonds of ``table`` around the cloth quadrilateral ``quad`` (px, as found
    by :func:`calibration.detect.find_cloth`), or None when too few are seen."""
    c0 = max(20.0, 2 * table.diamond_offset - table.rail_width)
    start = start_index(quad)
    q = np.roll(quad, -start, axis=0)
    H0, _ = cv2.findHomography(table_corners(table, c0), q)
    if H0 is None:
        return None
    ppm = px_per_mm(q, table, c0)
    th = diamond_tophat(gray, ppm, th_cache)
    spacing = min(table.width / 4, table.length / 8)
    found = match_diamonds(th, table, H0, min(0.3 * spacing, 90.0) * ppm, ppm)
    if len(found) < MIN_DIAMONDS:
        return None
    idx = sorted(found)
    src = np.array([table.diamonds[i] for i in idx], float)
    dst = np.array([found[i] for i in idx], float)
    H1, inl = cv2.findHomography(src, dst, cv2.RANSAC, max(3.0, 0.008 * size[0]))
    if H1 is None or inl.sum() < MIN_DIAMONDS:
        return None
    found = match_diamonds(th, table, H1, max(4.0, 25 * ppm), ppm)
    if len(found) < MIN_DIAMONDS:
        return None
    return DiamondSearch(found, H1, ppm, th, start, c0)
