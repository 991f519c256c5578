"""Adjudication: turn events into calls (points, fouls with their articles, respots, score).

Public API: :func:`adjudicate_stream`, :func:`available_games`, :func:`get_game`, the
records :class:`ShotCall`, :class:`Foul`, :class:`FoulRule`, :class:`Respot`,
:class:`Warning`, and :class:`Shot` which games receive.
"""

from .calls import Foul, FoulRule, Respot, ShotCall, Warning
from .engine import AdjudicationError, Shot, adjudicate_stream, available_games, get_game

__all__ = [
    "AdjudicationError", "Foul", "FoulRule", "Respot", "Shot", "ShotCall", "Warning",
    "adjudicate_stream", "available_games", "get_game",
]
