"""Turn an events file (JSON Lines) into calls and warnings (JSON Lines).

Reads EVENTS (or - for standard input, streaming) and writes one call per shot and
the warnings, in the schema of docs/calls.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

NAME = "adjudicate"
HELP = "events -> calls: points, fouls with their articles, respots, score"
ORDER = 40


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("events", help="events JSON Lines file, or - to read standard input")
    p.add_argument("--game", required=True, help="game name (see `cueref games`)")
    p.add_argument("--match", metavar="SETTINGS", help="match settings JSON file")
    p.add_argument("-o", "--output", help="calls JSON Lines file (default: standard output)")


def run(args: argparse.Namespace) -> int:
    from adjudicate import adjudicate_stream, get_game
    from equipment.files import atomic_path, check_writable
    from tracking.events import parse_events

    game = get_game(args.game)
    settings = {}
    if args.match:
        mp = Path(args.match)
        if not mp.is_file():
            raise FileNotFoundError(f"match settings file {mp} does not exist")
        try:
            settings = json.loads(mp.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{mp}: not valid JSON ({exc.msg})") from None
        if not isinstance(settings, dict):
            raise ValueError(f"{mp}: match settings must be a JSON object")
    if args.events == "-":
        records = adjudicate_stream(parse_events(sys.stdin, "stdin"), game, settings)
        out = sys.stdout if not args.output else None
        if out is not None:
            for r in records:
                out.write(r.to_json() + "\n")
                out.flush()
            return 0
    else:
        src = Path(args.events)
        if not src.is_file():
            raise FileNotFoundError(f"events file {src} does not exist")
        records = adjudicate_stream(parse_events(src.open(encoding="utf-8"), str(src)),
                                    game, settings)
    if args.output:
        check_writable(args.output)
        with atomic_path(args.output) as tmp, tmp.open("w", encoding="utf-8") as fh:
            for r in records:
                fh.write(r.to_json() + "\n")
    else:
        for r in records:
            sys.stdout.write(r.to_json() + "\n")
    return 0
