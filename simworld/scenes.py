"""Starting positions for the simulator: each discipline's opening and random scenes.

Random scenes are *plausible* mid-game positions: every ball wholly on the playing
surface, no two balls closer than a few millimetres, none over a pocket mouth, and in
the pins games none inside the castle, so every stroke starts from a legal table.
"""

from __future__ import annotations

import math

import numpy as np

from equipment import Discipline, get_discipline

Point = tuple[float, float]

GAP = 3.0  # mm: the closest two balls of a random scene may lie
POCKET_CLEAR = 20.0  # mm beyond drop radius + ball radius kept free near each pocket
CASTLE_CLEAR = 25.0  # mm beyond the outermost pin kept free in the pins games


def opening_layout(discipline: str) -> dict[str, Point]:
    """Every ball's opening position (the rulebook's, from equipment.disciplines)."""
    return {bid: (float(x), float(y)) for bid, (x, y) in get_discipline(discipline).opening}


def _castle_radius(disc: Discipline) -> tuple[Point, float]:
    if not disc.pins:
        return (0.0, 0.0), 0.0
    cx = sum(p.position[0] for p in disc.pins) / len(disc.pins)
    cy = sum(p.position[1] for p in disc.pins) / len(disc.pins)
    reach = max(math.hypot(p.position[0] - cx, p.position[1] - cy) + p.radius
                for p in disc.pins)
    return (cx, cy), reach


def random_layout(discipline: str, rng: np.random.Generator | int) -> dict[str, Point]:
    """A plausible random position of the discipline's balls.

    Carom and pins games keep their three balls; the pocket games keep the cue ball
    (and the black in Pool 51) plus a random number of object balls, as mid-game.
    """
    if not isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(rng)
    disc = get_discipline(discipline)
    table = disc.table
    balls = list(disc.balls)
    if disc.family in ("pyramid", "pool"):
        keep = {"cue", "black"}
        others = [b for b in balls if b.id not in keep]
        n = int(rng.integers(4, len(others) + 1))
        chosen = set(rng.choice(len(others), size=n, replace=False).tolist())
        balls = [b for b in balls if b.id in keep] + [b for k, b in enumerate(others)
                                                       if k in chosen]
    centre, castle = _castle_radius(disc)
    placed: dict[str, Point] = {}
    radii = {b.id: b.radius for b in disc.balls}
    for b in balls:
        for _ in range(10_000):
            x = float(rng.uniform(b.radius + 1.0, table.length - b.radius - 1.0))
            y = float(rng.uniform(b.radius + 1.0, table.width - b.radius - 1.0))
            if any(math.dist((x, y), pk.centre) < pk.drop_radius + b.radius + POCKET_CLEAR
                   for pk in table.pockets):
                continue
            if castle and math.dist((x, y), centre) < castle + b.radius + CASTLE_CLEAR:
                continue
            if any(math.dist((x, y), q) < b.radius + radii[o] + GAP
                   for o, q in placed.items()):
                continue
            placed[b.id] = (round(x, 1), round(y, 1))
            break
        else:  # pragma: no cover - the tables are far from full
            raise RuntimeError(f"could not place {b.id} on {table.name}")
    return placed
