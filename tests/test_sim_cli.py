"""`cueref simulate`: files written, clear one-line errors, nothing half-written."""

from __future__ import annotations

import json

from cueref.cli import main
from tracking import Trajectory, read_events


def test_simulate_named_scenario_writes_both_files(tmp_path, capsys):
    out = tmp_path / "new"  # created: its parent exists
    assert main(["simulate", "pyramid_pot", "-o", str(out), "--fps", "30"]) == 0
    traj = Trajectory.load(out / "pyramid_pot.trajectory.json")
    events = read_events(out / "pyramid_pot.events.jsonl")
    assert traj.fps == 30 and traj.meta["scenario"] == "pyramid_pot"
    assert any(e.type == "pocket" for e in events)
    printed = capsys.readouterr().out
    assert "writing" in printed and "pocket" in printed
    assert not [p for p in out.iterdir() if ".part" in p.name]


def test_list_and_opening(tmp_path, capsys):
    assert main(["simulate", "--list"]) == 0
    listing = capsys.readouterr().out
    assert "pyramid_hanging_late" in listing and "001 §13" in listing
    assert main(["simulate", "--opening", "three_cushion", "-o", str(tmp_path)]) == 0
    assert (tmp_path / "opening_three_cushion.events.jsonl").is_file()


def test_user_errors_are_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"discipline": "free_game",
                               "layout": {"white": [500, 500], "red": [900, 700]},
                               "actions": [{"type": "stroke", "ball": "white",
                                            "aim": "red", "speed": "fast"}]}))
    assert main(["simulate", "--scenario-file", str(bad), "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "actions[0]" in err and "'speed'" in err and err.count("\n") == 1
    bad.write_text(json.dumps({"discipline": "snooker", "layout": {}, "actions": []}))
    assert main(["simulate", "--scenario-file", str(bad), "-o", str(tmp_path)]) == 2
    assert "field 'discipline'" in capsys.readouterr().err
    assert main(["simulate", "no_such", "-o", str(tmp_path)]) == 2
    assert "known:" in capsys.readouterr().err
    missing_parent = tmp_path / "a" / "b"
    assert main(["simulate", "pyramid_pot", "-o", str(missing_parent)]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert not list(tmp_path.glob("bad*.jsonl"))


def test_user_scenario_file_runs(tmp_path):
    f = tmp_path / "mine.json"
    f.write_text(json.dumps({"discipline": "free_game",
                             "layout": {"white": [500, 500], "red": [1000, 700],
                                        "yellow": [2000, 300]},
                             "actions": [{"type": "stroke", "ball": "white", "aim": "red",
                                          "speed": 2000}]}))
    assert main(["simulate", "--scenario-file", str(f), "-o", str(tmp_path)]) == 0
    events = read_events(tmp_path / "mine.events.jsonl")
    assert events[0].type == "shot_start" and events[-1].type == "shot_end"
