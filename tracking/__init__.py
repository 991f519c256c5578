"""Tracking: from detections to trajectories and events (the events contract lives here).

Public API: :class:`Event` and the JSON Lines readers/writers, :class:`Trajectory`.
"""

from .events import (
    EVENT_TYPES,
    OBSERVATION_EVENTS,
    TABLE_EVENTS,
    Event,
    EventError,
    dumps_events,
    frame_of,
    parse_events,
    read_events,
    write_events,
)
from .trajectory import STATES, Stroke, TrackedObject, Trajectory, TrajectoryError

__all__ = [
    "EVENT_TYPES", "OBSERVATION_EVENTS", "STATES", "TABLE_EVENTS", "Event", "EventError",
    "Stroke", "TrackedObject", "Trajectory", "TrajectoryError", "dumps_events", "frame_of",
    "parse_events", "read_events", "write_events",
]
