"""Turn an events file (JSON Lines) into calls and warnings (JSON Lines).

Reads EVENTS (or - for standard input, streaming) and writes one call per shot and
the warnings, in the schema of docs/calls.md.
"""

from __future__ import annotations

import argparse
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
    from adjudicate.settings import load_settings
    from equipment.files import atomic_path, check_writable
    from tracking.events import parse_events

    game = get_game(args.game)
    settings = load_settings(args.match)
    if args.output:
        check_writable(args.output)
    src = None if args.events == "-" else Path(args.events)
    if src is not None and not src.is_file():
        raise FileNotFoundError(f"events file {src} does not exist")
    with (sys.stdin if src is None else src.open(encoding="utf-8")) as fh:
        records = adjudicate_stream(parse_events(fh, str(src or "stdin")), game, settings)
        if not args.output:  # live: one record a line, flushed as soon as it is made
            for r in records:
                sys.stdout.write(r.to_json() + "\n")
                sys.stdout.flush()
            return 0
        with atomic_path(args.output) as tmp, tmp.open("w", encoding="utf-8") as out:
            for r in records:
                out.write(r.to_json() + "\n")
    return 0
