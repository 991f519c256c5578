"""List the games cueref can referee, with their discipline and rulebook."""

from __future__ import annotations

import argparse

NAME = "games"
HELP = "list the games and disciplines cueref knows"
ORDER = 90


def add_arguments(p: argparse.ArgumentParser) -> None:
    pass


def run(args: argparse.Namespace) -> int:
    from adjudicate import available_games
    from equipment import DISCIPLINES

    games = available_games()
    for name, d in sorted(DISCIPLINES.items(), key=lambda kv: (kv[1].family, kv[0])):
        rules = "rules" if name in games else "no rules yet"
        print(f"{name:18s} {d.family:8s} table {d.table_name:18s} rulebook {d.rulebook}  "
              f"{d.title} ({rules})")
    return 0
