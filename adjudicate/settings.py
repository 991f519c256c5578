"""Match settings files (docs/calls.md): read with one clear error for a bad file."""

from __future__ import annotations

import os
from typing import Any

from equipment.files import read_json


def load_settings(path: str | os.PathLike | None) -> dict[str, Any]:
    """The match settings JSON object at ``path``, or ``{}`` when no path is given."""
    if not path:
        return {}
    d = read_json(path, "match settings")
    if not isinstance(d, dict):
        raise ValueError(f"{path}: match settings must be a JSON object")
    return d


def players_and_first(settings: dict[str, Any]) -> tuple[tuple[str, str], str]:
    """The two players (default ``A``, ``B``) and who opens (default the first)."""
    from .engine import AdjudicationError

    players = settings.get("players", ["A", "B"])
    if (not isinstance(players, list | tuple) or len(players) != 2
            or not all(isinstance(p, str) and p for p in players) or players[0] == players[1]):
        raise AdjudicationError("match setting 'players' must list two different names "
                                "(one against one, or pair against pair)")
    pair = (players[0], players[1])
    first = settings.get("first", pair[0])
    if first not in pair:
        raise AdjudicationError(f"match setting 'first' is {first!r}; known players: "
                                f"{', '.join(pair)}")
    return pair, first


def int_setting(settings: dict[str, Any], key: str, default: int | None,
                minimum: int = 1) -> int | None:
    """An integer setting of at least ``minimum`` (``None`` allowed as the default)."""
    from .engine import AdjudicationError

    v = settings.get(key, default)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or v < minimum:
        raise AdjudicationError(f"match setting {key!r} must be a whole number >= {minimum}, "
                                f"got {v!r}")
    return v


def other_player(players: tuple[str, str], player: str) -> str:
    """The opponent of ``player``."""
    return players[1] if player == players[0] else players[0]
