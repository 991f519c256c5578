"""Named scenario scripts: each a rule situation from the rulebooks, as a simulated clip.

A scenario is a discipline, a starting layout (None: the discipline's opening) and a
list of actions in the JSON form of docs/simulator.md. The stroke parameters were
found by searching with the simulator itself and frozen here; tests/test_simulator.py
checks that each scenario's events really show its situation.

Random scenarios (``random_<family>``) draw their layout and stroke from the seed.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from equipment import DISCIPLINES, get_discipline, get_table

from .physics import MU_ROLL, G, SimResult, simulate
from .scenes import opening_layout, random_layout

Point = tuple[float, float]
Layout = dict[str, Point]


@dataclass(frozen=True)
class Scenario:
    """A named script: discipline, description (with the article), layout, actions."""

    name: str
    discipline: str
    description: str
    actions: tuple[dict[str, Any], ...] = ()
    layout: Layout | None = None  # None: the discipline's opening layout
    build: Callable[[int], tuple[Layout, list[dict[str, Any]]]] | None = field(
        default=None, compare=False)

    def setup(self, seed: int = 0) -> tuple[Layout, list[dict[str, Any]]]:
        """The layout and the actions this scenario runs with ``seed``."""
        if self.build is not None:
            return self.build(seed)
        layout = dict(self.layout) if self.layout else opening_layout(self.discipline)
        return layout, [dict(a) for a in self.actions]


def _stroke(ball: str, speed: float, **kw: Any) -> dict[str, Any]:
    return {"type": "stroke", "ball": ball, "speed": speed, **kw}


# ----------------------------------------------------------------- openings

def _opening(discipline: str) -> Scenario:
    disc = get_discipline(discipline)
    fam = disc.family
    if fam == "carom":
        act = _stroke("white", 3500.0, aim="red", offset=-50.0, height=0.3, side=-0.3)
        what = "opening shot from the starting spots [000 Posizione di partenza]"
    elif fam == "pins":
        act = _stroke("white", 3000.0, aim="yellow", offset=30.0, height=0.3)
        what = "opening shot: the player's ball toward the opponent's [002]"
    elif fam == "pyramid":
        act = _stroke("cue", 7000.0, aim="1", offset=4.0, height=0.2)
        what = "break from the house into the rack [001 §2, §5]"
    else:
        act = _stroke("cue", 8000.0, aim="red_1", offset=5.0, height=0.1)
        what = "break from the D into the rack [003 Art. 6.3]"
    return Scenario(f"opening_{discipline}", discipline, f"{disc.title}: {what}", (act,))


# ----------------------------------------------------------------- random scenes

RANDOM_FAMILIES = {"carom": "three_cushion", "pins": "five_pins",
                   "pyramid": "russian_pyramid", "pool": "pool51"}


def _random_builder(discipline: str) -> Callable[[int], tuple[Layout, list[dict[str, Any]]]]:
    def build(seed: int) -> tuple[Layout, list[dict[str, Any]]]:
        rng = np.random.default_rng(seed)
        layout = random_layout(discipline, rng)
        struck = "white" if "white" in layout else "cue"
        targets = sorted(b for b in layout if b != struck)
        target = targets[int(rng.integers(len(targets)))]
        disc = get_discipline(discipline)
        reach = disc.ball(struck).radius + disc.ball(target).radius
        act = _stroke(struck, round(float(rng.uniform(1500.0, 5000.0)), 1), aim=target,
                      offset=round(float(rng.uniform(-0.8, 0.8)) * reach, 1),
                      height=round(float(rng.uniform(-0.3, 0.5)), 2),
                      side=round(float(rng.uniform(-0.3, 0.3)), 2))
        return layout, [act]
    return build


# ----------------------------------------------------------------- named scripts

def _touching_layout() -> tuple[Layout, list[dict[str, Any]]]:
    """White rolls (natural roll from the first instant) and stops 0.05 mm from red."""
    white, red = (1100.0, 500.0), (1600.0, 780.0)
    radius = get_discipline("free_game").ball("white").radius
    travel = math.dist(white, red) - 2 * radius - 0.05
    speed = math.sqrt(2.0 * MU_ROLL * G * travel)  # rolling: v^2 = 2 a d
    layout = {"white": white, "red": red, "yellow": (400.0, 1100.0)}
    return layout, [_stroke("white", speed, aim="red", height=0.4)]


def _castle_diagonal() -> Layout:
    """Yellow and white on the 45° diagonal through the castle: no ring pin within reach."""
    c = get_table("italian_pins").size
    cx, cy = c[0] / 2, c[1] / 2
    u = 1.0 / math.sqrt(2.0)
    return {"yellow": (round(cx - 300 * u, 1), round(cy - 300 * u, 1)),
            "white": (round(cx - 600 * u, 1), round(cy - 600 * u, 1)),
            "red": (500.0, 1100.0)}


PYRAMID_HANG = {"cue": (1775.0, 600.0), "5": (1775.0, 300.0), "9": (800.0, 1200.0),
                "14": (2900.0, 1000.0)}
HANG_SPEED = 724.5  # found by bisection: ball 5 stops 30 mm from the side cushion line


def _named() -> list[Scenario]:
    touching_layout, touching_actions = _touching_layout()
    return [
        Scenario("three_cushion_point", "three_cushion",
                 "three-cushion point: the cue ball touches three cushions before the "
                 "second object ball [000 Tre sponde 1]",
                 (_stroke("white", 3500.0, aim="red", offset=-50.0, height=0.3, side=-0.3),)),
        Scenario("three_cushion_near_miss", "three_cushion",
                 "three-cushion miss: only two cushions before the second object ball, "
                 "no point [000 Tre sponde 1]",
                 (_stroke("white", 4500.0, aim="red", offset=20.0, height=0.3),)),
        Scenario("missed_carom", "free_game",
                 "missed carom: the cue ball hits the red but not the other ball "
                 "[000 Falli 2: carambola non riuscita]",
                 (_stroke("white", 1500.0, aim="red", offset=0.0, height=-0.2),)),
        Scenario("carom_off_table", "three_cushion",
                 "ball off the table: the cue ball jumps over a cushion after hitting "
                 "the red [000 Falli 2; respot: 000 Bilie saltate]",
                 (_stroke("white", 4000.0, aim="red", offset=-20.0, height=0.3, jump=1),)),
        Scenario("carom_balls_touching", "free_game",
                 "balls in contact: the cue ball stops touching the red (gap 0.05 mm) "
                 "[000 Bilie in contatto]",
                 tuple(touching_actions), touching_layout),
        Scenario("touched_ball", "free_game",
                 "touched ball: while the balls roll, the player's hand moves the "
                 "resting yellow [000 Falli 2: tocca una bilia]",
                 (_stroke("white", 2500.0, aim="red", offset=10.0, height=0.2),
                  {"type": "touch", "ball": "yellow", "displacement": [0.0, 12.0],
                   "during": 0.8}),
                 {"white": (700.0, 400.0), "red": (2000.0, 600.0),
                  "yellow": (600.0, 1200.0)}),
        Scenario("carom_two_shots", "free_game",
                 "two shots in one clip: the player's ball misses its carom, then the "
                 "opponent plays his own ball [000 Falli 2: the turn passes]",
                 (_stroke("white", 1500.0, aim="red", height=-0.2),
                  _stroke("yellow", 2000.0, aim="red", offset=15.0, height=0.3, pause=2.0)),
                 {"white": (700.0, 400.0), "red": (1500.0, 700.0),
                  "yellow": (2300.0, 1100.0)}),
        Scenario("five_pins_fair", "five_pins",
                 "fair 5-pin shot: the player's ball hits the opponent's ball, which "
                 "knocks pins [002 Art. 24]",
                 (_stroke("white", 3000.0, aim="yellow", offset=30.0, height=0.3),)),
        Scenario("pins_own_ball_knocks", "five_pins",
                 "own ball knocks pins after a fair contact: the pins go to the opponent "
                 "[002 Art. 24.2]",
                 (_stroke("white", 4000.0, aim="yellow", offset=25.0, height=0.0),)),
        Scenario("pallino_first", "five_pins",
                 "the player's ball hits the pallino before the opponent's ball "
                 "[002 Art. 24.3.c]",
                 (_stroke("white", 3000.0, aim="red", offset=-60.0, height=0.3),)),
        Scenario("pins_missed_opponent_ball", "five_pins",
                 "the player's ball does not hit the opponent's ball [002 Art. 24.3.a]",
                 (_stroke("white", 2000.0, angle=200.0, height=0.2),)),
        Scenario("goriziana_indirect", "goriziana",
                 "indirect shot: the player's ball touches a cushion before the "
                 "opponent's ball, which knocks pins: points doubled [002 Art. 28]",
                 (_stroke("white", 4500.0, angle=27.0, height=0.3),)),
        Scenario("goriziana_centre_pin_alone", "goriziana",
                 "only the red centre pin falls, knocked by the opponent's ball "
                 "[002 Art. 29]",
                 (_stroke("white", 1000.0, aim="yellow", height=-0.4),), _castle_diagonal()),
        Scenario("pyramid_pot", "russian_pyramid",
                 "a pot: the object ball 3 into the head-left corner pocket [001]",
                 (_stroke("cue", 2500.0, aim="3", height=-0.4),),
                 {"cue": (600.0, 600.0), "3": (300.0, 300.0), "7": (1800.0, 900.0),
                  "12": (2600.0, 400.0)}),
        Scenario("pyramid_cue_pocketed", "russian_pyramid",
                 "the cue ball follows the object ball into the pocket [001 §14]",
                 (_stroke("cue", 2500.0, aim="3", height=0.5),),
                 {"cue": (600.0, 600.0), "3": (300.0, 300.0), "7": (1800.0, 900.0),
                  "12": (2600.0, 400.0)}),
        Scenario("pyramid_hanging_late", "russian_pyramid",
                 "a ball hangs on the side pocket's jaw and falls 6 s after the shot "
                 "ended: the referee puts it back [001 §13]",
                 (_stroke("cue", HANG_SPEED, aim="5", height=-0.3),
                  {"type": "fall", "ball": "5", "delay": 6.0}), PYRAMID_HANG),
        Scenario("pyramid_hanging_early", "russian_pyramid",
                 "a ball hangs on the side pocket's jaw and falls 2 s after the shot "
                 "ended: it counts as pocketed [001 §13]",
                 (_stroke("cue", HANG_SPEED, aim="5", height=-0.3),
                  {"type": "fall", "ball": "5", "delay": 2.0}), PYRAMID_HANG),
        Scenario("pool51_break", "pool51",
                 "a legal break: at least two object balls reach a cushion or one is "
                 "potted [003 Art. 6.3]",
                 (_stroke("cue", 8000.0, aim="red_1", offset=5.0, height=0.1),)),
        Scenario("pool51_break_black", "pool51",
                 "the black is potted on the break: re-rack, no penalty [003 Art. 6.7]",
                 BREAK_BLACK_ACTIONS, BREAK_BLACK_LAYOUT),
        Scenario("pool51_black_and_cue", "pool51",
                 "the black and the cue ball are potted in the same shot: game lost "
                 "[003 Art. 8.1.b]",
                 (_stroke("cue", 2500.0, aim="black", height=0.5),),
                 {"cue": (500.0, 500.0), "black": (250.0, 250.0), "red_3": (1200.0, 700.0),
                  "yellow_2": (1500.0, 300.0)}),
        Scenario("pool51_cue_pocketed", "pool51",
                 "the cue ball is potted after hitting a red: foul, free shot "
                 "[003 Art. 7.1.a]",
                 (_stroke("cue", 2500.0, aim="red_3", height=0.5),),
                 {"cue": (500.0, 500.0), "red_3": (250.0, 250.0), "black": (1485.0, 495.0),
                  "yellow_2": (1500.0, 300.0)}),
    ]


# Found by a search over cue positions in the D and break strokes (docs/simulator.md).
BREAK_BLACK_LAYOUT: Layout = {**opening_layout("pool51"), "cue": (374.5, 385.9)}
BREAK_BLACK_ACTIONS: tuple[dict[str, Any], ...] = (
    _stroke("cue", 8000.0, aim="red_1", offset=-34.8, height=0.38, side=0.26),)


def _build_all() -> dict[str, Scenario]:
    out: dict[str, Scenario] = {}
    for name in DISCIPLINES:
        sc = _opening(name)
        out[sc.name] = sc
    for fam, disc in RANDOM_FAMILIES.items():
        build = _random_builder(disc)
        layout, actions = build(0)  # shown for seed 0; run_scenario draws from its seed
        out[f"random_{fam}"] = Scenario(
            f"random_{fam}", disc,
            f"random plausible {fam} position and stroke (drawn from the seed)",
            tuple(actions), layout, build=build)
    for sc in _named():
        out[sc.name] = sc
    return out


SCENARIOS: dict[str, Scenario] = _build_all()


def get_scenario(name: str) -> Scenario:
    """The scenario called ``name``; an unknown name lists the known ones."""
    try:
        return SCENARIOS[name]
    except KeyError:
        raise KeyError(f"unknown scenario {name!r}; known: "
                       f"{', '.join(sorted(SCENARIOS))}") from None


def run_scenario(name: str, fps: float = 50, seed: int = 0) -> SimResult:
    """Simulate the named scenario; ``seed`` varies the random scenarios."""
    sc = get_scenario(name)
    layout, actions = sc.setup(seed)
    return simulate(sc.discipline, layout, actions, fps=fps, seed=seed,
                    meta={"scenario": sc.name, "description": sc.description})
