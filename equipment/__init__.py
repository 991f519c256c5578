"""Tables, balls, pins and disciplines as data: the vocabulary every stage shares."""

from .disciplines import DISCIPLINES, Discipline, get_discipline
from .tables import (
    CUSHIONS,
    TABLES,
    BallSpec,
    PinSpec,
    Pocket,
    Point,
    Table,
    castle,
    get_table,
)

__all__ = [
    "CUSHIONS", "DISCIPLINES", "TABLES", "BallSpec", "Discipline", "PinSpec", "Pocket",
    "Point", "Table", "castle", "get_discipline", "get_table",
]
