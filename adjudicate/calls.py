"""Calls and warnings: the records the rules engine writes (schema in docs/calls.md)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

Point = tuple[float, float]


@dataclass(frozen=True)
class FoulRule:
    """One entry of a discipline's foul table: data, with the article it comes from."""

    code: str  # short and stable, e.g. "24.3.c" or "ball_off_table"
    article: str  # e.g. "002 Art.24.3.c", "000 Falli 2"
    description: str
    penalty: int = 0  # penalty points given to the opponent (pins games), else 0
    ball_in_hand: bool = False  # the opponent gets ball in hand / free shot
    observable: bool = True  # False: the camera cannot see it; referee input only


@dataclass
class Foul:
    """A foul called on a shot."""

    code: str
    article: str
    description: str
    penalty: int = 0
    source: str = "camera"  # "camera" or "referee"

    @classmethod
    def of(cls, rule: FoulRule, source: str = "camera", penalty: int | None = None) -> Foul:
        return cls(rule.code, rule.article, rule.description,
                   rule.penalty if penalty is None else penalty, source)


@dataclass
class Respot:
    """A ball the referee puts back: which ball, which spot (by name) and where."""

    ball: str
    spot: str
    pos: Point


@dataclass
class ShotCall:
    """The decision on one shot."""

    shot: int
    t: float  # time of the shot start, s
    player: str
    ball: str | None  # the struck ball
    points: dict[str, int]  # points this shot gave each player (fouls included)
    fouls: list[Foul]
    next_player: str
    ball_in_hand: bool = False  # next player places the cue ball (house, D, half...)
    free_shot: bool = False  # next shot is a free shot (tiro libre, bilia libera)
    respots: list[Respot] = field(default_factory=list)
    score: dict[str, int] = field(default_factory=dict)  # running score
    innings: dict[str, int] = field(default_factory=dict)
    match: dict[str, Any] = field(default_factory=dict)  # over, winner, sets, frames...
    reasons: list[str] = field(default_factory=list)  # short, with article citations
    extra: dict[str, Any] = field(default_factory=dict)  # discipline-specific fields

    def to_dict(self) -> dict[str, Any]:
        d = {"type": "call", **asdict(self)}
        d["t"] = round(self.t, 6)
        d["respots"] = [{"ball": r.ball, "spot": r.spot,
                         "pos": [round(r.pos[0], 1), round(r.pos[1], 1)]}
                        for r in self.respots]
        extra = d.pop("extra")
        d.update(extra)
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)


@dataclass
class Warning:
    """Something the referee must know that is not a call on a shot."""

    t: float
    code: str  # light_low, light_changed, calibration_lost, unobservable, referee_needed...
    message: str
    article: str | None = None
    shot: int | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": "warning", "t": round(self.t, 6), "code": self.code,
                             "message": self.message}
        if self.article:
            d["article"] = self.article
        if self.shot is not None:
            d["shot"] = self.shot
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)
