"""Events: the JSON Lines contract between tracking, rules, overlay and report.

One JSON object a line; the schema is documented in docs/events.md. The simulator
writes ground truth in this schema, the tracker writes what it saw, referees add
their entries to the same stream, and the rules engine reads it.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from equipment.files import atomic_write_text

Point = tuple[float, float]

#: Physical events: what happened on the table.
TABLE_EVENTS = (
    "shot_start",  # the struck ball starts moving: ids = [struck ball]
    "ball_ball",  # ids = [ball, other ball]
    "ball_cushion",  # ids = [ball], cushion = head | foot | left | right
    "pocket",  # ids = [ball], pocket = pocket name
    "off_table",  # ids = [ball]
    "ball_pin",  # ids = [ball, pin]
    "pin_down",  # ids = [pin], by = ball or pin that knocked it
    "ball_rest",  # ids = [ball]; hanging = pocket name when it rests on a jaw
    "shot_end",  # every object at rest: ids = []
    "ball_disturbed",  # ids = [ball]: a resting ball moved with no contact to explain it
)
#: Observation records: what the camera and the referee add.
OBSERVATION_EVENTS = (
    "light",  # lux_min, lux_mean, uniformity [, lux_tolerance, lux_min_at_mm, cells]
    "calibration",  # status = ok | moved | lost | recalibrated
    "unobservable",  # t .. t_end: the table could not be seen (occlusion, cut)
    "referee",  # action = ..., an entry made by hand (docs/events.md)
    "match",  # match settings carried in the stream (docs/calls.md)
)
EVENT_TYPES = TABLE_EVENTS + OBSERVATION_EVENTS

_CUSHIONS = ("head", "foot", "left", "right")
_CORE = ("t", "type", "frame", "shot", "ids", "pos")
_OPTIONAL = ("cushion", "pocket", "by", "speed", "hanging")


class EventError(ValueError):
    """An event record that does not follow the schema; names the line and field."""


@dataclass
class Event:
    """One record of the stream. Optional fields are omitted from JSON when unset."""

    t: float  # seconds from the start of the video, sub-frame precision
    type: str
    ids: tuple[str, ...] = ()
    pos: tuple[Point, ...] = ()  # table mm of each id at time t
    frame: int | None = None  # floor(t * fps): the frame whose interval holds t
    shot: int | None = None  # 1-based shot number
    cushion: str | None = None
    pocket: str | None = None
    by: str | None = None
    speed: float | None = None  # mm/s of ids[0] just before the event
    hanging: str | None = None  # ball_rest on a pocket's jaw: that pocket
    extra: dict[str, Any] = field(default_factory=dict)  # type-specific fields

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"t": round(self.t, 6), "type": self.type}
        if self.frame is not None:
            d["frame"] = self.frame
        if self.shot is not None:
            d["shot"] = self.shot
        if self.ids or self.type in TABLE_EVENTS:
            d["ids"] = list(self.ids)
        if self.pos:
            d["pos"] = [[round(x, 2), round(y, 2)] for x, y in self.pos]
        for name in _OPTIONAL:
            v = getattr(self, name)
            if v is not None:
                d[name] = round(v, 2) if isinstance(v, float) else v
        d.update(self.extra)
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False)

    @classmethod
    def from_dict(cls, d: Any, where: str = "event") -> Event:
        """Build an event, raising :class:`EventError` that names the bad field."""
        if not isinstance(d, dict):
            raise EventError(f"{where}: expected a JSON object, got {type(d).__name__}")
        for key in ("t", "type"):
            if key not in d:
                raise EventError(f"{where}: missing field {key!r}")
        t = d["t"]
        if isinstance(t, bool) or not isinstance(t, int | float) or not math.isfinite(t):
            raise EventError(f"{where}: field 't' must be a finite number of seconds")
        typ = d["type"]
        if typ not in EVENT_TYPES:
            raise EventError(f"{where}: field 'type' is {typ!r}; known: {', '.join(EVENT_TYPES)}")
        ids = d.get("ids", [])
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            raise EventError(f"{where}: field 'ids' must be a list of strings")
        pos = d.get("pos", [])
        if (not isinstance(pos, list) or any(
                not isinstance(p, list) or len(p) != 2
                or not all(isinstance(c, int | float) and not isinstance(c, bool) for c in p)
                for p in pos)):
            raise EventError(f"{where}: field 'pos' must be a list of [x, y] in mm")
        if pos and len(pos) != len(ids):
            raise EventError(f"{where}: field 'pos' has {len(pos)} points for {len(ids)} ids")
        for key in ("frame", "shot"):
            v = d.get(key)
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
                raise EventError(f"{where}: field {key!r} must be a non-negative integer")
        _check_type_fields(typ, d, len(ids), where)
        speed = d.get("speed")
        if speed is not None and (isinstance(speed, bool) or not isinstance(speed, int | float)):
            raise EventError(f"{where}: field 'speed' must be a number (mm/s)")
        extra = {k: v for k, v in d.items() if k not in _CORE + _OPTIONAL}
        return cls(
            t=float(t), type=typ, ids=tuple(ids),
            pos=tuple((float(x), float(y)) for x, y in pos),
            frame=d.get("frame"), shot=d.get("shot"), cushion=d.get("cushion"),
            pocket=d.get("pocket"), by=d.get("by"),
            speed=None if speed is None else float(speed), hanging=d.get("hanging"),
            extra=extra,
        )


_ARITY = {"shot_start": 1, "ball_ball": 2, "ball_cushion": 1, "pocket": 1, "off_table": 1,
          "ball_pin": 2, "pin_down": 1, "ball_rest": 1, "ball_disturbed": 1, "shot_end": 0}


def _check_type_fields(typ: str, d: dict, n_ids: int, where: str) -> None:
    if typ in _ARITY and n_ids != _ARITY[typ]:
        raise EventError(f"{where}: a {typ} event needs {_ARITY[typ]} id(s) in 'ids', "
                         f"got {n_ids}")
    if typ == "ball_cushion" and d.get("cushion") not in _CUSHIONS:
        raise EventError(f"{where}: field 'cushion' must be one of {', '.join(_CUSHIONS)}")
    if typ == "pocket" and not isinstance(d.get("pocket"), str):
        raise EventError(f"{where}: field 'pocket' must name the pocket")
    if typ == "pin_down" and not isinstance(d.get("by"), str | None):
        raise EventError(f"{where}: field 'by' must be a ball or pin id")
    if typ == "unobservable":
        t_end = d.get("t_end")
        if not isinstance(t_end, int | float) or t_end < d["t"]:
            raise EventError(f"{where}: field 't_end' must be a time not before 't'")
    if typ == "referee" and not isinstance(d.get("action"), str):
        raise EventError(f"{where}: field 'action' must name the referee's entry")


def frame_of(t: float, fps: float) -> int:
    """The frame whose interval [k/fps, (k+1)/fps) holds time ``t``."""
    return int(math.floor(t * fps + 1e-9))


def parse_events(lines: Iterable[str], source: str = "events") -> Iterator[Event]:
    """Parse JSON Lines lazily (streaming); blank lines are skipped."""
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"{source} line {n}"
        try:
            d = json.loads(line)
        except json.JSONDecodeError as exc:
            raise EventError(f"{where}: not valid JSON ({exc.msg})") from None
        yield Event.from_dict(d, where)


def read_events(path: str | os.PathLike) -> list[Event]:
    """Read an events file; a missing file or a bad line raises a clear error."""
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"events file {p} does not exist")
    with p.open(encoding="utf-8") as fh:
        return list(parse_events(fh, str(p)))


def dumps_events(events: Iterable[Event]) -> str:
    return "".join(e.to_json() + "\n" for e in events)


def write_events(path: str | os.PathLike, events: Iterable[Event]) -> Path:
    """Write events as JSON Lines, atomically."""
    return atomic_write_text(path, dumps_events(events))
