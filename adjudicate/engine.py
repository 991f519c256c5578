"""The rules engine: cut the event stream into shots and fold them into game state.

A game (one module in ``adjudicate/games/``) is data plus small pure functions:
``new_state(settings)`` and ``judge(state, shot) -> (state, call)``. The engine knows
nothing of any game: it finds them by scanning that folder, so adding a discipline
means adding a file that defines ``GAMES``.

Shots: a shot holds every table event from its ``shot_start`` up to the next
``shot_start`` (so a hanging ball that drops after ``shot_end`` belongs to the shot
that left it hanging) plus the referee entries for it. Its call is emitted when the
next shot starts or the stream ends.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from tracking.events import Event

from .calls import FoulRule, ShotCall, Warning

LUX_MIN = 520.0  # [000 Tavolo 9: at least 520 lux over the whole surface]
LIGHT_ARTICLE = "000 Tavolo 9"
#: a lamp whose light under it moved by more than this share between two readings is
#: named in the light warning (the meter's lamps: docs/events.md)
LAMP_NEWS = 0.3


class AdjudicationError(ValueError):
    """The stream cannot be judged (unknown game, bad settings, bad referee entry)."""


@dataclass
class Shot:
    """One shot: its events in time order and the referee's entries for it."""

    number: int
    events: list[Event]
    referee: list[Event] = field(default_factory=list)
    prelude: list[Event] = field(default_factory=list)  # table events before shot 1

    @property
    def start(self) -> Event:
        return self.events[0]

    @property
    def t(self) -> float:
        return self.events[0].t

    @property
    def struck_ball(self) -> str | None:
        return self.events[0].ids[0] if self.events[0].ids else None

    def of_type(self, *types: str) -> list[Event]:
        return [e for e in self.events if e.type in types]

    @property
    def end(self) -> Event | None:
        """The shot's own ``shot_end``: the one numbered for it, else the last one (a shot
        started while balls still moved also holds the previous shot's end)."""
        ends = self.of_type("shot_end")
        own = [e for e in ends if e.shot == self.number]
        return (own or ends or [None])[-1]

    def layout_before(self) -> dict[str, tuple[float, float]]:
        """Every ball on the table at the shot start (``layout`` of shot_start)."""
        return _layout(self.start)

    def layout_after(self) -> dict[str, tuple[float, float]]:
        """Every ball on the table when all came to rest (``layout`` of shot_end)."""
        end = self.end
        return _layout(end) if end is not None else {}

    def referee_actions(self, action: str) -> list[Event]:
        return [e for e in self.referee if e.extra.get("action") == action]


def _layout(e: Event) -> dict[str, tuple[float, float]]:
    raw = e.extra.get("layout", {})
    return {k: (float(v[0]), float(v[1])) for k, v in raw.items()}


class Game(Protocol):
    """What a discipline module provides (one instance per game name)."""

    name: str  # the --game name, e.g. "three_cushion"
    title: str
    discipline: str  # equipment discipline name (table, balls, opening)
    fouls: dict[str, FoulRule]  # the foul table: code -> rule with its article

    def new_state(self, settings: dict[str, Any]) -> Any: ...

    def judge(self, state: Any, shot: Shot) -> tuple[Any, ShotCall]: ...


def available_games() -> dict[str, Game]:
    """Every game defined by a module in ``adjudicate/games/`` (its ``GAMES`` list)."""
    from . import games as pkg

    found: dict[str, Game] = {}
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"{pkg.__name__}.{info.name}")
        for game in getattr(mod, "GAMES", ()):
            found[game.name] = game
    return found


def get_game(name: str) -> Game:
    games = available_games()
    if name not in games:
        raise AdjudicationError(f"unknown game {name!r}; known: {', '.join(sorted(games))}")
    return games[name]


class _Observer:
    """Warnings from camera observations, the same for every game.

    The light is reported when it changes state (under 520 lux, near it, back above it,
    no longer measurable), not at every reading, so that a referee is told once, not
    every second. A reading's ``lux_tolerance`` (the meter's own error, a share) sets
    the band round 520 lux where it cannot tell: "near", which a hand meter settles,
    neither under nor over (a hand meter's reading, without one, is taken as exact).
    """

    def __init__(self) -> None:
        self.light: str | None = None  # ok | near | low | auto_exposure
        self.lamps: list[dict] | None = None  # the lamps of the last calibrated reading

    def see(self, e: Event, shot: int | None) -> Warning | None:
        if e.type == "light":
            return self._light(e, shot)
        if e.type == "calibration" and e.extra.get("status") in ("moved", "lost"):
            return Warning(e.t, f"calibration_{e.extra['status']}",
                           f"calibration {e.extra['status']}: positions are unreliable until "
                           "a calibrated view returns or the camera is recalibrated",
                           None, shot)
        if e.type == "unobservable":
            t_end = e.extra.get("t_end", e.t)
            return Warning(e.t, "unobservable", f"table not observable from {e.t:.2f} s to "
                           f"{t_end:.2f} s: calls in that stretch need the referee", None, shot)
        return None

    def _light(self, e: Event, shot: int | None) -> Warning | None:
        lux_min = e.extra.get("lux_min")
        if e.extra.get("status") == "auto_exposure":
            state = "auto_exposure"
        elif isinstance(lux_min, int | float):
            tol = float(e.extra.get("lux_tolerance") or 0.0)
            state = ("low" if lux_min < LUX_MIN * (1 - tol) else
                     "near" if lux_min < LUX_MIN * (1 + tol) else "ok")
        else:
            return None  # an uncalibrated reading: only the shape of the light is known
        before, self.light = self.light, state
        lamps = e.extra.get("lamps")  # none in an auto-exposure record
        news = lamp_news(self.lamps, lamps)
        if lamps is not None:
            self.lamps = lamps
        if state == "auto_exposure" and before != state:
            return Warning(e.t, "light_unmeasurable",
                           "camera in auto-exposure: illuminance cannot be measured",
                           LIGHT_ARTICLE, shot)
        if state == "low" and before != "low":
            return Warning(e.t, "light_low",
                           f"light {lux_min:.0f} lux somewhere on the cloth, under the "
                           f"{LUX_MIN:.0f} lux required{news}", LIGHT_ARTICLE, shot)
        if state == "near" and before != "near":
            at = e.extra.get("lux_min_at_mm")
            where = f" (darkest at x {at[0]:.0f}, y {at[1]:.0f} mm)" if at else ""
            return Warning(e.t, "light_near",
                           f"light {lux_min:.0f} lux somewhere on the cloth{where}, within "
                           f"the camera meter's {tol:.0%} of the {LUX_MIN:.0f} lux required: "
                           f"check it there with a lux meter{news}", LIGHT_ARTICLE, shot)
        if state == "ok" and before in ("low", "near"):
            return Warning(e.t, "light_restored", f"light back to {lux_min:.0f} lux or more "
                           f"over the whole cloth{news}", LIGHT_ARTICLE, shot)
        if state == "ok" and e.extra.get("changed"):
            return Warning(e.t, "light_changed", "the light on the cloth changed"
                           + (news or " (a lamp failing?)"), LIGHT_ARTICLE, shot)
        return None


def lamp_news(before: list[dict] | None, now: list[dict] | None) -> str:
    """``": the lamp over x 2358, y 708 mm gives 0 lux under it (1490 before)"`` for
    each lamp of a ``light`` record whose light moved by LAMP_NEWS or more since the
    last one; empty when the records do not name the same lamps."""
    if not before or not now or len(before) != len(now):
        return ""
    said = []
    for a, b in zip(before, now, strict=True):
        place = [(a.get(k), b.get(k)) for k in ("x_mm", "y_mm")]
        lux = (a.get("lux"), b.get("lux"))
        if any(p != q for p, q in place) or not all(isinstance(v, int | float) for v in lux):
            return ""  # other lamps (a new fit), or not calibrated
        if abs(lux[1] - lux[0]) > LAMP_NEWS * max(lux[0], 1.0):
            said.append(f"the lamp over x {b['x_mm']:.0f}, y {b['y_mm']:.0f} mm gives "
                        f"{lux[1]:.0f} lux under it ({lux[0]:.0f} before)")
    return (": " + "; ".join(said)) if said else ""


def adjudicate_stream(events: Iterable[Event], game: Game,
                      settings: dict[str, Any] | None = None
                      ) -> Iterator[ShotCall | Warning]:
    """Fold the event stream into calls and warnings, lazily (works on a live stream).

    ``match`` records in the stream update the settings before the first shot.
    """
    settings = dict(settings or {})
    state: Any = None
    current: Shot | None = None
    pending_ref: list[Event] = []  # referee entries seen before their shot starts
    prelude: list[Event] = []  # table events before the first shot (a touched ball)
    observer = _Observer()
    finished: list[Shot] = []

    def close(shot: Shot) -> Iterator[ShotCall]:
        nonlocal state
        if state is None:
            state = game.new_state(settings)
        state, call = game.judge(state, shot)
        yield call

    for e in events:
        if e.type == "match":
            if current is not None:
                raise AdjudicationError(f"t={e.t}: match settings after the first shot")
            settings.update({k: v for k, v in e.extra.items()})
            continue
        if e.type in ("light", "calibration", "unobservable"):
            w = observer.see(e, current.number if current else None)
            if w is not None:
                yield w
            continue
        if e.type == "referee":
            target = e.shot
            if current is not None and (target is None or target == current.number):
                current.referee.append(e)
            elif target is not None and any(s.number == target for s in finished):
                yield Warning(e.t, "referee_late", f"referee entry for shot {target} came "
                              "after its call; it was not applied", None, target)
            else:
                pending_ref.append(e)
            continue
        if e.type == "shot_start":
            if current is not None:
                yield from close(current)
                finished.append(current)
            number = e.shot if e.shot is not None else (current.number + 1 if current else 1)
            current = Shot(number, [e])
            mine = [r for r in pending_ref if r.shot in (None, number)]
            current.referee.extend(mine)
            pending_ref = [r for r in pending_ref if r not in mine]
            if number == 1 or not finished:
                current.prelude, prelude = prelude, []
            continue
        if current is None:
            prelude.append(e)
            continue
        current.events.append(e)
    if current is not None:
        yield from close(current)
