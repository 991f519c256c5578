"""Trajectories: per frame, every object's table position, state and visibility.

The simulator writes them as ground truth, the renderer films them, and the tracker
will write the same format for what it saw. The file format (JSON, documented in
docs/trajectory.md) is columnar per object, with states and visibility run-length
encoded so that a 20 s clip of 16 balls stays small and readable.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from equipment.files import atomic_write_text, read_json

FORMAT = "cueref.trajectory/1"
STATES = ("resting", "moving", "pocketed", "off_table", "standing", "fallen")
STATE_CODE = {s: i for i, s in enumerate(STATES)}
BALL_STATES = ("resting", "moving", "pocketed", "off_table")
PIN_STATES = ("standing", "fallen")


class TrajectoryError(ValueError):
    """A trajectory file that does not follow the format; names the field."""


@dataclass(frozen=True)
class TrackedObject:
    id: str
    kind: str  # "ball" or "pin"
    diameter: float  # mm (a pin's base)


@dataclass(frozen=True)
class Stroke:
    """The cue striking a ball: lets the renderer draw the cue and the arm."""

    t: float
    ball: str
    direction: tuple[float, float]  # unit vector in table coordinates
    speed: float  # mm/s given to the ball


@dataclass
class Trajectory:
    """Positions ``(n_frames, n_objects, 2)`` in mm, sampled at ``t = k / fps``."""

    discipline: str
    table: str
    fps: float
    objects: tuple[TrackedObject, ...]
    positions: np.ndarray  # float64 (n_frames, n_objects, 2), mm
    states: np.ndarray  # int8 (n_frames, n_objects), codes into STATES
    visible: np.ndarray  # bool (n_frames, n_objects)
    heights: np.ndarray | None = None  # float (n_frames, n_objects): z mm above the cloth
    pin_fall: dict[str, float] = field(default_factory=dict)  # pin id -> fall angle (rad)
    strokes: tuple[Stroke, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)  # seed, scenario, ...

    @property
    def n_frames(self) -> int:
        return int(self.positions.shape[0])

    @property
    def duration(self) -> float:
        return self.n_frames / self.fps

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(o.id for o in self.objects)

    def index(self, object_id: str) -> int:
        try:
            return self.ids.index(object_id)
        except ValueError:
            raise KeyError(f"trajectory has no object {object_id!r}") from None

    def times(self) -> np.ndarray:
        return np.arange(self.n_frames) / self.fps

    def state_name(self, frame: int, object_id: str) -> str:
        return STATES[int(self.states[frame, self.index(object_id)])]

    # ------------------------------------------------------------------ file format

    def to_dict(self) -> dict[str, Any]:
        tracks: dict[str, Any] = {}
        for k, obj in enumerate(self.objects):
            tr: dict[str, Any] = {
                "x": [round(float(v), 2) for v in self.positions[:, k, 0]],
                "y": [round(float(v), 2) for v in self.positions[:, k, 1]],
                "state": run_lengths([STATES[c] for c in self.states[:, k]]),
                "visible": run_lengths([bool(v) for v in self.visible[:, k]]),
            }
            if self.heights is not None and np.any(self.heights[:, k] != 0):
                tr["z"] = [round(float(v), 2) for v in self.heights[:, k]]
            if obj.id in self.pin_fall:
                tr["fall_angle"] = round(self.pin_fall[obj.id], 4)
            tracks[obj.id] = tr
        return {
            "format": FORMAT,
            "discipline": self.discipline,
            "table": self.table,
            "fps": self.fps,
            "n_frames": self.n_frames,
            "objects": [{"id": o.id, "kind": o.kind, "diameter": o.diameter}
                        for o in self.objects],
            "strokes": [{"t": round(s.t, 6), "ball": s.ball,
                         "direction": [round(s.direction[0], 5), round(s.direction[1], 5)],
                         "speed": round(s.speed, 1)} for s in self.strokes],
            "meta": self.meta,
            "tracks": tracks,
        }

    def save(self, path: str | os.PathLike) -> Path:
        """Write the trajectory file atomically."""
        return atomic_write_text(path, json.dumps(self.to_dict(), separators=(",", ":")))

    @classmethod
    def from_dict(cls, d: Any, source: str = "trajectory") -> Trajectory:
        return _parse(d, source)

    @classmethod
    def load(cls, path: str | os.PathLike) -> Trajectory:
        return _parse(read_json(path, "trajectory", TrajectoryError), str(path))


def run_lengths(values: list) -> list[list]:
    """Run-length encode: [[first_frame, value], ...] at each change."""
    out: list[list] = []
    for i, v in enumerate(values):
        if not out or out[-1][1] != v:
            out.append([i, v])
    return out


def _unruns(runs: Any, n: int, allowed: tuple | None, where: str) -> list:
    if not isinstance(runs, list) or not runs:
        raise TrajectoryError(f"{where}: must be a non-empty list of [frame, value] runs")
    out: list = []
    prev = -1
    for item in runs:
        if not isinstance(item, list) or len(item) != 2 or not isinstance(item[0], int):
            raise TrajectoryError(f"{where}: each run must be [frame, value]")
        start, value = item
        if start <= prev or (not out and start != 0) or start >= n:
            raise TrajectoryError(f"{where}: runs must start at frame 0 and increase within "
                                  f"the {n} frames")
        if allowed is not None and value not in allowed:
            raise TrajectoryError(f"{where}: value {value!r} is not one of "
                                  f"{', '.join(map(str, allowed))}")
        if out:
            out.extend([out[-1]] * (start - len(out)))
        out.append(value)
        prev = start
    out.extend([out[-1]] * (n - len(out)))
    return out


def _need(d: dict, key: str, kind: type | tuple, where: str) -> Any:
    if key not in d:
        raise TrajectoryError(f"{where}: missing field {key!r}")
    v = d[key]
    if not isinstance(v, kind) or isinstance(v, bool) and kind is not bool:
        raise TrajectoryError(f"{where}: field {key!r} has the wrong type")
    return v


def _parse(d: Any, source: str) -> Trajectory:
    from equipment import DISCIPLINES, TABLES  # data only; no cycle

    if not isinstance(d, dict):
        raise TrajectoryError(f"{source}: expected a JSON object")
    fmt = d.get("format")
    if fmt != FORMAT:
        raise TrajectoryError(f"{source}: field 'format' is {fmt!r}, expected {FORMAT!r}")
    discipline = _need(d, "discipline", str, source)
    if discipline not in DISCIPLINES:
        raise TrajectoryError(f"{source}: field 'discipline' is {discipline!r}; known: "
                              f"{', '.join(sorted(DISCIPLINES))}")
    table = _need(d, "table", str, source)
    if table not in TABLES:
        raise TrajectoryError(f"{source}: field 'table' is {table!r}; known: "
                              f"{', '.join(sorted(TABLES))}")
    fps = _need(d, "fps", (int, float), source)
    if not (1 <= fps <= 1000):
        raise TrajectoryError(f"{source}: field 'fps' must be between 1 and 1000")
    n = _need(d, "n_frames", int, source)
    if n < 1:
        raise TrajectoryError(f"{source}: field 'n_frames' must be at least 1")
    objs_raw = _need(d, "objects", list, source)
    known = set(DISCIPLINES[discipline].object_ids)
    objects = []
    for i, o in enumerate(objs_raw):
        w = f"{source}: objects[{i}]"
        if not isinstance(o, dict):
            raise TrajectoryError(f"{w}: expected an object")
        oid = _need(o, "id", str, w)
        if oid not in known:
            raise TrajectoryError(f"{w}: id {oid!r} is not an object of {discipline}; "
                                  f"known: {', '.join(sorted(known))}")
        kind = _need(o, "kind", str, w)
        if kind not in ("ball", "pin"):
            raise TrajectoryError(f"{w}: field 'kind' must be 'ball' or 'pin'")
        dia = _need(o, "diameter", (int, float), w)
        objects.append(TrackedObject(oid, kind, float(dia)))
    if len({o.id for o in objects}) != len(objects):
        raise TrajectoryError(f"{source}: field 'objects' lists an id twice")
    tracks = _need(d, "tracks", dict, source)
    pos = np.zeros((n, len(objects), 2))
    states = np.zeros((n, len(objects)), np.int8)
    visible = np.zeros((n, len(objects)), bool)
    heights = np.zeros((n, len(objects)))
    pin_fall: dict[str, float] = {}
    for k, obj in enumerate(objects):
        w = f"{source}: tracks[{obj.id!r}]"
        tr = tracks.get(obj.id)
        if not isinstance(tr, dict):
            raise TrajectoryError(f"{w}: missing track")
        for axis, col in (("x", 0), ("y", 1)):
            arr = _need(tr, axis, list, w)
            if len(arr) != n:
                raise TrajectoryError(f"{w}.{axis}: has {len(arr)} values for {n} frames")
            try:
                pos[:, k, col] = np.asarray(arr, float)
            except (TypeError, ValueError):
                raise TrajectoryError(f"{w}.{axis}: values must be numbers (mm)") from None
            if not np.all(np.isfinite(pos[:, k, col])):
                raise TrajectoryError(f"{w}.{axis}: values must be finite")
        allowed = BALL_STATES if obj.kind == "ball" else PIN_STATES
        st = _unruns(tr.get("state"), n, allowed, f"{w}.state")
        states[:, k] = [STATE_CODE[s] for s in st]
        visible[:, k] = _unruns(tr.get("visible"), n, (True, False), f"{w}.visible")
        if "z" in tr:
            z = tr["z"]
            if not isinstance(z, list) or len(z) != n:
                raise TrajectoryError(f"{w}.z: must hold one height per frame")
            heights[:, k] = np.asarray(z, float)
        if "fall_angle" in tr:
            a = tr["fall_angle"]
            if not isinstance(a, int | float) or not math.isfinite(a):
                raise TrajectoryError(f"{w}.fall_angle: must be an angle in radians")
            pin_fall[obj.id] = float(a)
    strokes = []
    for i, s in enumerate(d.get("strokes", [])):
        w = f"{source}: strokes[{i}]"
        if not isinstance(s, dict):
            raise TrajectoryError(f"{w}: expected an object")
        ball = _need(s, "ball", str, w)
        if ball not in {o.id for o in objects}:
            raise TrajectoryError(f"{w}: ball {ball!r} is not in 'objects'")
        dvec = _need(s, "direction", list, w)
        if len(dvec) != 2:
            raise TrajectoryError(f"{w}: field 'direction' must be [dx, dy]")
        strokes.append(Stroke(float(_need(s, "t", (int, float), w)), ball,
                              (float(dvec[0]), float(dvec[1])),
                              float(_need(s, "speed", (int, float), w))))
    meta = d.get("meta", {})
    if not isinstance(meta, dict):
        raise TrajectoryError(f"{source}: field 'meta' must be an object")
    return Trajectory(discipline, table, float(fps), tuple(objects), pos, states, visible,
                      heights if np.any(heights) else None, pin_fall, tuple(strokes), meta)
