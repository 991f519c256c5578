"""Match settings files (docs/calls.md): read with one clear error for a bad file."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def load_settings(path: str | os.PathLike | None) -> dict[str, Any]:
    """The match settings JSON object at ``path``, or ``{}`` when no path is given."""
    if not path:
        return {}
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"match settings file {p} does not exist")
    try:
        d = json.loads(p.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{p}: not valid JSON ({exc.msg})") from None
    if not isinstance(d, dict):
        raise ValueError(f"{p}: match settings must be a JSON object")
    return d
