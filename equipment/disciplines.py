"""Disciplines: which table, which balls and pins, and the opening position.

Object ids are fixed per family and documented in docs/events.md:

* carom and Italian pins: ``white`` (the opening player's ball; in a two-white set the
  one marked with two dots, 000 Tiro d'inizio 3), ``yellow`` (the opponent's; in a
  two-white set the plain white), ``red``
  (the carom red; in the pins games the smaller *pallino*);
* pins: ``pin_centre``, ``pin_head``, ``pin_foot``, ``pin_left``, ``pin_right`` and,
  with nine pins, ``pin_head_outer`` ... (see :func:`equipment.tables.castle`);
* Russian pyramid: ``cue`` and ``1`` ... ``15``;
* Pool 51: ``cue``, ``red_1`` ... ``red_7``, ``yellow_1`` ... ``yellow_7``, ``black``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .tables import (
    CAROM_BALL,
    CAROM_BALL_MASS,
    PALLINO,
    POOL_BALL,
    POOL_BALL_MASS,
    POOL_CUE_BALL,
    POOL_CUE_BALL_MASS,
    PYRAMID_BALL,
    PYRAMID_BALL_MASS,
    BallSpec,
    PinSpec,
    Point,
    Table,
    castle,
    get_table,
)


@dataclass(frozen=True)
class Discipline:
    """A game cueref referees: its table, its objects and its opening position."""

    name: str
    title: str
    family: str  # carom, pins, pyramid, pool
    table_name: str
    balls: tuple[BallSpec, ...]
    pins: tuple[PinSpec, ...] = ()
    opening: tuple[tuple[str, Point], ...] = ()  # ball id -> position

    @property
    def table(self) -> Table:
        return get_table(self.table_name)

    @property
    def rulebook(self) -> str:
        return self.table.rulebook

    def ball(self, ball_id: str) -> BallSpec:
        for b in self.balls:
            if b.id == ball_id:
                return b
        raise KeyError(f"{self.name} has no ball {ball_id!r}; "
                       f"known: {', '.join(b.id for b in self.balls)}")

    @property
    def object_ids(self) -> tuple[str, ...]:
        return tuple(b.id for b in self.balls) + tuple(p.id for p in self.pins)


def _carom_balls() -> tuple[BallSpec, ...]:
    return (
        BallSpec("white", CAROM_BALL, CAROM_BALL_MASS, "white"),
        BallSpec("yellow", CAROM_BALL, CAROM_BALL_MASS, "yellow"),
        BallSpec("red", CAROM_BALL, CAROM_BALL_MASS, "red"),
    )


def _pins_balls() -> tuple[BallSpec, ...]:
    pallino_mass = CAROM_BALL_MASS * (PALLINO / CAROM_BALL) ** 3  # same material
    return (
        BallSpec("white", CAROM_BALL, CAROM_BALL_MASS, "white"),
        BallSpec("yellow", CAROM_BALL, CAROM_BALL_MASS, "yellow"),
        BallSpec("red", PALLINO, round(pallino_mass, 1), "red"),
    )


def _rack(apex: Point, diameter: float, ids: list[str]) -> list[tuple[str, Point]]:
    """A triangle of 15 balls, apex toward the head, rows growing toward the foot."""
    gap = 0.2  # mm between neighbours, so the rack starts without contact overlap
    d = diameter + gap
    dx = d * math.sqrt(3) / 2
    out: list[tuple[str, Point]] = []
    k = 0
    for row in range(5):
        for j in range(row + 1):
            out.append((ids[k], (apex[0] + row * dx, apex[1] + (j - row / 2) * d)))
            k += 1
    return out


def _carom_opening(table: Table) -> tuple[tuple[str, Point], ...]:
    """[000 Posizione di partenza 1]: red on the upper spot, the opponent's ball on the
    lower centre spot, the player's ball on a starting spot (right chosen here)."""
    s = table.spots
    return (("white", s["start_right"]), ("yellow", s["head"]), ("red", s["foot"]))


def _pins_opening(table: Table) -> tuple[tuple[str, Point], ...]:
    """[assumed: the seed excerpt does not describe the opening; the opponent's ball on
    the foot spot, the pallino on the head spot, the player's ball in the head half]."""
    s = table.spots
    return (("white", s["start_right"]), ("yellow", s["foot"]), ("red", s["head"]))


def _pyramid_opening(table: Table) -> tuple[tuple[str, Point], ...]:
    """[001 §2]: 15 balls, apex on the back spot; cue ball in the house [001 §5]."""
    back = table.spots["back"]
    rack = _rack(back, PYRAMID_BALL, [str(n) for n in range(1, 16)])
    house_x = table.spots["front"][0]
    return (("cue", (house_x - 250.0, table.width / 2 + 120.0)), *rack)


POOL_RACK_ORDER = [  # row by row from the apex; black in the middle of row 3 [003 Art. 6.1]
    "red_1",
    "yellow_1", "red_2",
    "red_3", "black", "yellow_2",
    "yellow_3", "red_4", "yellow_4", "red_5",
    "red_6", "yellow_5", "red_7", "yellow_6", "yellow_7",
]


def _pool_opening(table: Table) -> tuple[tuple[str, Point], ...]:
    black = table.spots["black"]
    d = POOL_BALL + 0.2
    apex = (black[0] - 2 * d * math.sqrt(3) / 2, black[1])
    rack = _rack(apex, POOL_BALL, POOL_RACK_ORDER)
    dc = table.spots["d_centre"]
    return (("cue", (dc[0] - 40.0, dc[1] + 60.0)), *rack)


def _pyramid_balls() -> tuple[BallSpec, ...]:
    cue = BallSpec("cue", PYRAMID_BALL, PYRAMID_BALL_MASS, "red")  # the coloured cue ball
    return (cue,) + tuple(BallSpec(str(n), PYRAMID_BALL, PYRAMID_BALL_MASS, "ivory",
                                   "number", n) for n in range(1, 16))


def _pool_balls() -> tuple[BallSpec, ...]:
    balls = [BallSpec("cue", POOL_CUE_BALL, POOL_CUE_BALL_MASS, "white")]
    balls += [BallSpec(f"red_{k}", POOL_BALL, POOL_BALL_MASS, "red") for k in range(1, 8)]
    balls += [BallSpec(f"yellow_{k}", POOL_BALL, POOL_BALL_MASS, "yellow") for k in range(1, 8)]
    balls.append(BallSpec("black", POOL_BALL, POOL_BALL_MASS, "black", "number", 8))
    return tuple(balls)


def _build() -> dict[str, Discipline]:
    out: dict[str, Discipline] = {}
    carom = [
        ("free_game", "Free game (libera)", "carom_free"),
        ("balkline_47_2", "Balkline quadro 47/2", "carom_balkline_47"),
        ("balkline_47_1", "Balkline quadro 47/1", "carom_balkline_47"),
        ("balkline_71_2", "Balkline quadro 71/2", "carom_balkline_71"),
        ("one_cushion", "One-cushion (una sponda)", "carom"),
        ("three_cushion", "Three-cushion (tre sponde)", "carom"),
    ]
    for name, title, table in carom:
        out[name] = Discipline(name, title, "carom", table, _carom_balls(),
                               opening=_carom_opening(get_table(table)))
    pins_table = get_table("italian_pins")
    for name, title, kind in (("five_pins", "Italian 5 pins", "five"),
                              ("goriziana", "9 pins Goriziana", "nine"),
                              ("tutti_doppi", "9 pins Tutti doppi", "nine")):
        out[name] = Discipline(name, title, "pins", "italian_pins", _pins_balls(),
                               pins=castle(kind), opening=_pins_opening(pins_table))
    pyr = get_table("pyramid")
    for name, title in (("russian_pyramid", "Russian pyramid"),
                        ("moscow_pyramid", "Moscow pyramid"),
                        ("american_pyramid", "\"American\" pyramid")):
        out[name] = Discipline(name, title, "pyramid", "pyramid", _pyramid_balls(),
                               opening=_pyramid_opening(pyr))
    out["pool51"] = Discipline("pool51", "Pool 51 (blackball, RFEB)", "pool", "pool51",
                               _pool_balls(), opening=_pool_opening(get_table("pool51")))
    return out


DISCIPLINES: dict[str, Discipline] = _build()


def get_discipline(name: str) -> Discipline:
    """The discipline called ``name``; an unknown name lists the known ones."""
    try:
        return DISCIPLINES[name]
    except KeyError:
        raise KeyError(f"unknown discipline {name!r}; known: "
                       f"{', '.join(sorted(DISCIPLINES))}") from None
