"""The command line: every subcommand has help, user errors are one line and exit 2."""

from __future__ import annotations

import pytest

from cueref.cli import _command_modules, build_parser, main


def test_every_subcommand_has_help(capsys):
    names = [m.NAME for m in _command_modules()]
    assert "adjudicate" in names and len(names) == len(set(names))
    for name in names:
        with pytest.raises(SystemExit) as ex:
            main([name, "--help"])
        assert ex.value.code == 0
        assert "usage: cueref " + name in capsys.readouterr().out


def test_unknown_game_lists_known_ones(tmp_path, capsys):
    ev = tmp_path / "e.jsonl"
    ev.write_text("")
    rc = main(["adjudicate", str(ev), "--game", "snooker"])
    err = capsys.readouterr().err
    assert rc == 2 and "unknown game 'snooker'" in err and "Traceback" not in err


def test_missing_events_file_is_one_line(tmp_path, capsys):
    rc = main(["adjudicate", str(tmp_path / "none.jsonl"), "--game", "three_cushion"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "does not exist" in err[0]


def test_no_command_prints_help(capsys):
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().out
    assert build_parser().prog == "cueref"
