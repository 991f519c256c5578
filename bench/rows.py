"""Per-scene rows of the calibration benchmarks: kept as JSON Lines while a run goes
(``--jsonl``), read back to summarise runs split over sessions (``--summarise``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from equipment.files import atomic_write_text


def read_rows(paths: list[str]) -> list[dict]:
    rows = []
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            rows += [json.loads(line) for line in fh if line.strip()]
    return rows


def keep_row(path: str | None, row: dict) -> None:
    """Append ``row`` to ``path`` at once, so a run stopped midway loses nothing."""
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")


def write_summary(path: str, text: str, n_rows: int) -> None:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out, text)
    print(f"wrote {out} from {n_rows} scenes", file=sys.stderr)
