"""Simulate a shot scenario: exact ground truth as a trajectory and an events stream.

Writes OUTDIR/NAME.trajectory.json (docs/trajectory.md) and OUTDIR/NAME.events.jsonl
(docs/events.md). A scenario is named (see --list), a discipline's opening shot
(--opening), or a JSON file of your own (--scenario-file; format in
docs/simulator.md).
"""

from __future__ import annotations

import argparse
import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

NAME = "simulate"
HELP = "simulate a scenario: trajectory + events ground truth (see --list)"
ORDER = 20


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", nargs="?", help="scenario name (see --list)")
    p.add_argument("--list", action="store_true", help="list the scenarios and exit")
    p.add_argument("--opening", metavar="DISCIPLINE", help="simulate this discipline's opening")
    p.add_argument("--scenario-file", metavar="FILE",
                   help="JSON scenario: discipline, layout, actions (docs/simulator.md)")
    p.add_argument("-o", "--output", metavar="OUTDIR", help="output folder (created if its "
                   "parent exists)")
    p.add_argument("--fps", type=float, default=50.0, help="trajectory sampling rate, 25-60 "
                   "(default 50)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random scenarios "
                   "(default 0)")


def _prepare_outdir(path: str) -> Path:
    """Create OUTDIR when its parent exists; fail now when it cannot be written."""
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise OSError(f"output {out} exists and is not a folder")
    if not out.exists():
        parent = out.parent if str(out.parent) else Path(".")
        if not parent.is_dir():
            raise OSError(f"cannot create output folder {out}: folder {parent} does not exist")
        out.mkdir()
    if not os.access(out, os.W_OK):
        raise OSError(f"cannot write into output folder {out}")
    return out


def _load_scenario_file(path: str) -> tuple[str, str, dict, list, str]:
    """Read a user scenario; one clear error naming the bad field."""
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"scenario file {p} does not exist")
    try:
        d: Any = json.loads(p.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{p}: not valid JSON ({exc})") from None
    if not isinstance(d, dict):
        raise ValueError(f"{p}: expected a JSON object with discipline, layout, actions")
    for key in ("discipline", "layout", "actions"):
        if key not in d:
            raise ValueError(f"{p}: missing field {key!r}")
    from equipment import DISCIPLINES

    if not isinstance(d["discipline"], str) or d["discipline"] not in DISCIPLINES:
        raise ValueError(f"{p}: field 'discipline' is {d['discipline']!r}; known: "
                         f"{', '.join(sorted(DISCIPLINES))}")
    if not isinstance(d["layout"], dict):
        raise ValueError(f"{p}: field 'layout' must map ball ids to [x, y]")
    if not isinstance(d["actions"], list):
        raise ValueError(f"{p}: field 'actions' must be a list of actions")
    name = d.get("name", p.name.removesuffix(".json"))
    if not isinstance(name, str) or not name or "/" in name:
        raise ValueError(f"{p}: field 'name' must be a plain file name")
    return name, d["discipline"], d["layout"], d["actions"], str(d.get("description", ""))


def run(args: argparse.Namespace) -> int:
    from equipment import get_discipline
    from simworld.physics import SimulationError, simulate
    from simworld.scenarios import SCENARIOS, get_scenario
    from tracking import write_events

    if args.list:
        width = max(len(n) for n in SCENARIOS)
        for name in SCENARIOS:
            sc = SCENARIOS[name]
            print(f"{name:<{width}}  {sc.discipline:<16}  {sc.description}")
        return 0
    chosen = [x for x in (args.name, args.opening, args.scenario_file) if x]
    if len(chosen) != 1:
        raise ValueError("give one of: a scenario NAME, --opening DISCIPLINE, "
                         "--scenario-file FILE (or --list)")
    if not args.output:
        raise ValueError("missing -o OUTDIR: the folder to write the files into")
    if not 25 <= args.fps <= 60:
        raise ValueError(f"--fps is {args.fps:g}; the simulator samples at 25-60 fps")
    if args.name:
        sc = get_scenario(args.name)
        name, discipline = sc.name, sc.discipline
        layout, actions = sc.setup(args.seed)
        meta = {"scenario": sc.name, "description": sc.description}
    elif args.opening:
        get_discipline(args.opening)  # an unknown name lists the known ones
        sc = get_scenario(f"opening_{args.opening}")
        name, discipline = sc.name, sc.discipline
        layout, actions = sc.setup(args.seed)
        meta = {"scenario": sc.name, "description": sc.description}
    else:
        name, discipline, layout, actions, desc = _load_scenario_file(args.scenario_file)
        meta = {"scenario": name, "description": desc, "source": str(args.scenario_file)}
    out = _prepare_outdir(args.output)
    traj_path = out / f"{name}.trajectory.json"
    events_path = out / f"{name}.events.jsonl"
    from equipment.files import check_writable

    check_writable(traj_path)
    check_writable(events_path)
    try:
        res = simulate(discipline, layout, actions, fps=args.fps, seed=args.seed, meta=meta)
    except SimulationError as exc:
        where = f"{args.scenario_file}: " if args.scenario_file else ""
        raise ValueError(f"{where}{exc}") from None
    print(f"simulated {name} ({discipline}): {len(res.events)} events, "
          f"{res.trajectory.n_frames} frames at {args.fps:g} fps "
          f"({res.trajectory.duration:.2f} s)")
    print(f"writing {traj_path}")
    res.trajectory.save(traj_path)
    print(f"writing {events_path}")
    write_events(events_path, res.events)
    counts = Counter(e.type for e in res.events)
    for typ, n in counts.items():
        first = next(e for e in res.events if e.type == typ)
        print(f"  {typ:<15} {n:>4}  first at t={first.t:.3f} s")
    return 0
