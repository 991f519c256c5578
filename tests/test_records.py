"""The shared vocabulary: tables as the rulebooks describe them, events and trajectory files."""

from __future__ import annotations

import json
import math
from itertools import pairwise

import numpy as np
import pytest

from equipment import DISCIPLINES, TABLES, castle, get_discipline, get_table
from equipment.files import OutputError, atomic_path, check_writable
from tracking import (
    Event,
    EventError,
    Stroke,
    TrackedObject,
    Trajectory,
    TrajectoryError,
    frame_of,
    parse_events,
    read_events,
    write_events,
)
from tracking.trajectory import STATE_CODE

# ----------------------------------------------------------------------------- tables


def test_carom_table_matches_rulebook_000():
    t = get_table("carom")
    assert (t.length, t.width) == (2840.0, 1420.0)  # 000 Tavolo 4
    spots = t.spots
    axis = sorted(p for p in spots.values() if p[1] == t.width / 2)
    assert len(axis) == 3 and [b[0] - a[0] for a, b in pairwise(axis)] == [710.0, 710.0]
    head = min(axis)
    starts = [p for p in spots.values() if p[1] != t.width / 2]
    assert sorted(abs(p[1] - head[1]) for p in starts) == [182.5, 182.5]
    assert all(p[0] == head[0] for p in starts)  # beside the spot nearest the head cushion


def test_diamonds_divide_long_rails_in_eighths():
    for name in ("carom", "pyramid", "pool51"):
        t = get_table(name)
        left = sorted(x for x, y in t.diamonds if y < 0)
        steps = np.diff([0.0, *left, t.length])
        eighth = t.length / 8
        # every gap is a multiple of L/8 (pocket tables skip the side-pocket diamond)
        assert np.allclose(steps / eighth, np.round(steps / eighth))
        assert all(abs(y + t.diamond_offset) < 1e-9 for x, y in t.diamonds if y < 0)


def test_pocket_tables_have_six_pockets_a_bit_wider_than_a_ball():
    for disc in ("russian_pyramid", "pool51"):
        d = get_discipline(disc)
        biggest = max(b.diameter for b in d.balls)
        pockets = d.table.pockets
        assert len(pockets) == 6
        for p in pockets:
            assert biggest < p.mouth < 2 * biggest


def test_pool51_sizes_within_rulebook_003():
    t = get_table("pool51")
    assert 1800 <= t.length <= 2140 and 900 <= t.width <= 1070  # 003 Art. 1.a
    d = get_discipline("pool51")
    assert d.ball("cue").diameter == 47.8 and d.ball("black").diameter == 50.8


def test_castles_are_crosses_with_red_centre():
    for kind, n in (("five", 5), ("nine", 9)):
        pins = castle(kind)
        assert len(pins) == n
        centre = [p for p in pins if p.colour == "red"]
        assert len(centre) == 1 and centre[0].id == "pin_centre"
        cx, cy = centre[0].position
        for p in pins:  # every pin on one of the two axes through the centre
            assert p.position[0] == cx or p.position[1] == cy


def test_openings_do_not_overlap_and_lie_on_the_cloth():
    for d in DISCIPLINES.values():
        pos = dict(d.opening)
        assert set(pos) == {b.id for b in d.balls}
        items = list(pos.items())
        for i, (a, pa) in enumerate(items):
            ra = d.ball(a).radius
            assert d.table.contains(pa, margin=ra)
            for b, pb in items[i + 1:]:
                assert math.dist(pa, pb) >= ra + d.ball(b).radius


def test_unknown_names_list_the_known_ones():
    with pytest.raises(KeyError, match="known: .*carom"):
        get_table("snooker")
    with pytest.raises(KeyError, match="three_cushion"):
        get_discipline("snooker")
    assert set(TABLES) >= {"carom", "italian_pins", "pyramid", "pool51"}


# ----------------------------------------------------------------------------- events


def _sample_events() -> list[Event]:
    return [
        Event(0.5, "shot_start", ("white",), ((710.0, 892.5),), frame=25, shot=1, speed=3000.0,
              extra={"layout": {"white": [710.0, 892.5]}}),
        Event(0.8734, "ball_cushion", ("white",), ((1402.3, 1389.25),), frame=43, shot=1,
              cushion="right"),
        Event(1.2, "pocket", ("3",), ((0.0, 0.0),), shot=1, pocket="head_left"),
        Event(2.0, "pin_down", ("pin_centre",), by="white", shot=1),
        Event(5.0, "shot_end", (), shot=1, extra={"layout": {}}),
        Event(5.1, "referee", extra={"action": "foul", "code": "24.3.q"}),
    ]


def test_events_round_trip(tmp_path):
    path = tmp_path / "e.jsonl"
    write_events(path, _sample_events())
    back = read_events(path)
    assert [e.to_dict() for e in back] == [e.to_dict() for e in _sample_events()]
    assert back[5].extra == {"action": "foul", "code": "24.3.q"}


@pytest.mark.parametrize("line, field", [
    ('{"type": "ball_ball", "ids": ["a", "b"]}', "'t'"),
    ('{"t": 1, "type": "bounce"}', "'type'"),
    ('{"t": 1, "type": "ball_cushion", "ids": ["white"], "cushion": "top"}', "'cushion'"),
    ('{"t": 1, "type": "ball_ball", "ids": ["white"]}', "'ids'"),
    ('{"t": "soon", "type": "shot_end"}', "'t'"),
    ('{"t": 1, "type": "shot_end", "frame": -2}', "'frame'"),
    ('{"t": 1, "type": "unobservable"}', "'t_end'"),
    ('[1, 2]', "JSON object"),
    ('{"t": 1,', "not valid JSON"),
])
def test_bad_event_lines_name_line_and_field(line, field):
    good = '{"t": 0, "type": "shot_end", "ids": []}'
    with pytest.raises(EventError) as err:
        list(parse_events([good, line], "x.jsonl"))
    assert "x.jsonl line 2" in str(err.value) and field in str(err.value)


def test_frame_of_is_the_frame_interval_holding_t():
    fps = 30.0
    for k in range(0, 200, 7):
        assert frame_of(k / fps, fps) == k
        assert frame_of((k + 0.999) / fps, fps) == k


def test_missing_events_file_is_a_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        read_events(tmp_path / "nope.jsonl")


# ----------------------------------------------------------------------------- trajectory


def _trajectory(n: int = 40) -> Trajectory:
    d = get_discipline("five_pins")
    objs = tuple(TrackedObject(b.id, "ball", b.diameter) for b in d.balls) + tuple(
        TrackedObject(p.id, "pin", p.base_diameter) for p in d.pins)
    rng = np.random.default_rng(3)
    pos = rng.uniform(100, 1300, (n, len(objs), 2))
    states = np.zeros((n, len(objs)), np.int8)
    states[:, 3:] = STATE_CODE["standing"]
    states[10:30, 0] = STATE_CODE["moving"]
    states[30:, 0] = STATE_CODE["off_table"]
    states[25:, 4] = STATE_CODE["fallen"]
    visible = np.ones((n, len(objs)), bool)
    visible[30:, 0] = False
    z = np.zeros((n, len(objs)))
    z[28:, 0] = np.linspace(0, 40, n - 28)
    return Trajectory("five_pins", "italian_pins", 50.0, objs, pos, states, visible, z,
                      {"pin_head": 1.25}, (Stroke(0.2, "white", (0.6, 0.8), 2500.0),),
                      {"scenario": "test"})


def test_trajectory_round_trips(tmp_path):
    tr = _trajectory()
    tr.save(tmp_path / "t.json")
    back = Trajectory.load(tmp_path / "t.json")
    assert back.ids == tr.ids and back.fps == tr.fps
    assert np.allclose(back.positions, tr.positions, atol=0.006)
    assert np.array_equal(back.states, tr.states)
    assert np.array_equal(back.visible, tr.visible)
    assert np.allclose(back.heights, tr.heights, atol=0.006)
    assert back.pin_fall == tr.pin_fall and back.strokes == tr.strokes
    assert back.state_name(35, "white") == "off_table"


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d.pop("fps"), "'fps'"),
    (lambda d: d.update(discipline="snooker"), "'discipline'"),
    (lambda d: d["objects"].append({"id": "cue", "kind": "ball", "diameter": 50}), "'cue'"),
    (lambda d: d["tracks"]["red"]["x"].pop(), "tracks['red'].x"),
    (lambda d: d["tracks"]["red"].update(state=[[0, "flying"]]), "tracks['red'].state"),
    (lambda d: d["tracks"]["red"].update(state=[[3, "resting"]]), "tracks['red'].state"),
    (lambda d: d["strokes"][0].update(ball="ghost"), "strokes[0]"),
    (lambda d: d.update(format="other/9"), "'format'"),
])
def test_bad_trajectory_names_the_field(tmp_path, mutate, field):
    d = _trajectory().to_dict()
    mutate(d)
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(d))
    with pytest.raises(TrajectoryError) as err:
        Trajectory.load(p)
    assert field in str(err.value)


# ----------------------------------------------------------------------------- files


def test_atomic_path_leaves_nothing_when_interrupted(tmp_path):
    final = tmp_path / "clip.mp4"
    with pytest.raises(RuntimeError), atomic_path(final) as tmp:
        assert tmp.name.endswith(".mp4") and tmp.parent == tmp_path
        tmp.write_bytes(b"partial")
        raise RuntimeError("stopped")
    assert list(tmp_path.iterdir()) == []


def test_unwritable_outputs_fail_early(tmp_path):
    with pytest.raises(OutputError, match="does not exist"):
        check_writable(tmp_path / "missing" / "x.json")
    with pytest.raises(OutputError, match="directory"):
        check_writable(tmp_path)
