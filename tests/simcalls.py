"""Rules tests on the simulator's physics: run a scenario, judge it with `cueref adjudicate`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cueref.cli import main
from tracking.events import Event, write_events


def simulated(name: str, **kwargs):
    """The scenario's SimResult; the test is skipped when the simulator or it is missing."""
    try:
        from simworld.scenarios import SCENARIOS, run_scenario
    except Exception as exc:  # the simulator is optional for the rules tests
        pytest.skip(f"simulator not available: {exc}")
    if name not in SCENARIOS:
        pytest.skip(f"scenario {name!r} missing from simworld.scenarios")
    return run_scenario(name, **kwargs)


def cli_calls(events: list[Event], game: str, tmp_path: Path,
              settings: dict | None = None) -> list[dict]:
    """The `call` records `cueref adjudicate` writes for ``events``."""
    ev, out = tmp_path / "events.jsonl", tmp_path / "calls.jsonl"
    write_events(ev, events)
    args = ["adjudicate", str(ev), "--game", game, "-o", str(out)]
    if settings:
        (tmp_path / "match.json").write_text(json.dumps(settings))
        args += ["--match", str(tmp_path / "match.json")]
    assert main(args) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    return [r for r in rows if r["type"] == "call"]
