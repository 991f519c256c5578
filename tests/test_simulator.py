"""The shot simulator against physics and geometry, and every scenario's situation.

The ground truth here is not the simulator's own output copied back: contacts are
checked against the table geometry (centres r1 + r2 apart, one radius from the
cushion nose), conservation laws (momentum along the contact normal, energy that
never rises), closed-form results of the model (5/7 of the speed at natural roll,
v^2 = 2 a d) and the rule situation each scenario claims.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from equipment import PinSpec, get_discipline
from simworld.physics import (
    E_BALL,
    MU_ROLL,
    G,
    SimulationError,
    _cushions,
    simulate,
)
from simworld.scenarios import SCENARIOS, run_scenario
from simworld.scenes import opening_layout, random_layout
from tracking import Trajectory, frame_of, read_events, write_events

ALL = sorted(SCENARIOS)


@pytest.fixture(scope="module")
def results():
    """Every scenario at seed 0, simulated once for the module."""
    return {name: run_scenario(name) for name in ALL}


def _on_table_pairs(res, times):
    ids = list(res.radii)
    samples = {b: res.sample(b, times) for b in ids}
    for a in range(len(ids)):
        for c in range(a + 1, len(ids)):
            yield ids[a], ids[c], samples[ids[a]], samples[ids[c]]


# ----------------------------------------------------------------- contacts and laws

@pytest.mark.parametrize("name", ALL)
def test_no_interpenetration_on_a_fine_grid(results, name):
    res = results[name]
    times = np.arange(0.0, res.end_time, 0.001)
    for a, c, (pa, on_a), (pc, on_c) in _on_table_pairs(res, times):
        both = on_a & on_c
        if not both.any():
            continue
        gap = np.hypot(*(pa[both] - pc[both]).T) - res.radii[a] - res.radii[c]
        assert gap.min() > -0.01, f"{a} and {c} overlap by {-gap.min():.4f} mm"


def _escapes(res, times):
    """Balls on the table whose centre leaves the cloth away from every pocket mouth."""
    table = get_discipline(res.trajectory.discipline).table
    out = []
    for ball, r in res.radii.items():
        pos, on = res.sample(ball, times)
        p = pos[on]
        beyond = ((p[:, 0] < r - 0.01) | (p[:, 0] > table.length - r + 0.01)
                  | (p[:, 1] < r - 0.01) | (p[:, 1] > table.width - r + 0.01))
        for q in p[beyond]:
            if all(math.dist(q, pk.centre) > pk.drop_radius + 2 * r for pk in table.pockets):
                out.append((ball, tuple(q)))
    return out


@pytest.mark.parametrize("name", ALL)
def test_balls_stay_on_the_cloth_unless_pocketed_or_off(results, name):
    res = results[name]
    assert not _escapes(res, np.arange(0.0, res.end_time, 0.002))


@pytest.mark.slow
@pytest.mark.parametrize("family", ["carom", "pins", "pyramid", "pool"])
def test_many_random_scenes_keep_the_laws(family):
    """On demand (`pytest -m slow`): 60 seeds per family, the same invariants."""
    for seed in range(60):
        res = run_scenario(f"random_{family}", seed=seed)
        times = np.arange(0.0, res.end_time, 0.002)
        assert not _escapes(res, times), seed
        for a, c, (pa, on_a), (pc, on_c) in _on_table_pairs(res, times):
            both = on_a & on_c
            if both.any():
                gap = np.hypot(*(pa[both] - pc[both]).T) - res.radii[a] - res.radii[c]
                assert gap.min() > -0.01, (seed, a, c)


@pytest.mark.parametrize("name", ALL)
def test_kinetic_energy_never_rises_between_strokes(results, name):
    res = results[name]
    kicks = [e.t for e in res.events if e.type in ("shot_start", "ball_disturbed")]
    times = np.unique(np.concatenate([np.arange(0.0, res.end_time, 0.004),
                                      [e.t for e in res.events],
                                      [e.t + 1e-7 for e in res.events]]))
    energy = np.array([res.kinetic_energy(float(t)) for t in times])
    for k in range(1, len(times)):
        if any(times[k - 1] < t <= times[k] for t in kicks):
            continue
        assert energy[k] <= energy[k - 1] * (1 + 1e-9) + 1e-6, (
            f"energy rose at t={times[k]:.6f}: {energy[k - 1]:.1f} -> {energy[k]:.1f}")


@pytest.mark.parametrize("name", ALL)
def test_momentum_conserved_in_every_ball_contact(results, name):
    res = results[name]
    seen: set[tuple[str, float]] = set()
    for c in res.contacts:
        vel_before = list(c.before)
        for axis in range(2):
            before = sum(m * v[axis] for m, v in zip(c.masses, c.before, strict=True))
            after = sum(m * v[axis] for m, v in zip(c.masses, c.after, strict=True))
            assert after == pytest.approx(before, abs=1e-6 * (1 + abs(before)))
        if c.kind == "merge":  # a slow pushing cluster moves on as one
            assert all(v == c.after[0] for v in c.after)
            continue
        n = c.normal
        (v1, v2), (w1, w2) = vel_before, c.after
        # the velocities on record are the balls' real motion just before the contact
        # (a ball's first contact at that instant; a rack can chain several at once)
        for ball, v in zip(c.ids, (v1, v2), strict=True):
            if (ball, c.t) not in seen:
                assert np.allclose(res.velocity(ball, c.t - 1e-9), v, atol=1e-3)
            seen.add((ball, c.t))
        approach = (v1[0] - v2[0]) * n[0] + (v1[1] - v2[1]) * n[1]
        recede = (w2[0] - w1[0]) * n[0] + (w2[1] - w1[1]) * n[1]
        assert approach > 0
        assert recede == pytest.approx(E_BALL * approach, rel=1e-9)


def test_unequal_masses_head_on_matches_the_restitution_law():
    """Pool 51: the 115 g cue ball into a 140 g ball, both velocities from 1-D impact."""
    disc = get_discipline("pool51")
    res = simulate("pool51", {"cue": (500.0, 495.0), "red_1": (700.0, 495.0)},
                   [{"type": "stroke", "ball": "cue", "aim": "red_1", "speed": 2000.0}])
    c = res.contacts[0]
    m1, m2 = disc.ball("cue").mass, disc.ball("red_1").mass
    assert m1 != m2 and c.masses == (m1, m2)
    u = c.before[0][0]
    assert c.after[0][0] == pytest.approx((m1 - E_BALL * m2) / (m1 + m2) * u, rel=1e-9)
    assert c.after[1][0] == pytest.approx((1 + E_BALL) * m1 / (m1 + m2) * u, rel=1e-9)
    assert c.after[0][0] < 0  # the lighter cue ball bounces back


def test_pallino_is_lighter_and_takes_more_speed(results):
    """The smaller pallino leaves faster along the normal than the white arrived."""
    res = results["pallino_first"]
    c = next(c for c in res.contacts if "red" in c.ids)
    k = c.ids.index("red")
    m_ball, m_red = c.masses[1 - k], c.masses[k]
    assert m_red < m_ball
    n = c.normal if k == 1 else (-c.normal[0], -c.normal[1])  # from the white to the red
    approach = c.before[1 - k][0] * n[0] + c.before[1 - k][1] * n[1]
    leave = c.after[k][0] * n[0] + c.after[k][1] * n[1]
    assert c.before[k] == (0.0, 0.0)
    assert leave == pytest.approx((1 + E_BALL) * m_ball / (m_ball + m_red) * approach)
    assert leave > approach


def test_sliding_ball_reaches_natural_roll_at_five_sevenths():
    speed = 2000.0
    res = simulate("three_cushion", {"white": (500.0, 710.0), "red": (2500.0, 300.0),
                                     "yellow": (2500.0, 1100.0)},
                   [{"type": "stroke", "ball": "white", "angle": 0.0, "speed": speed}])
    log = res.motions["white"]
    slide = next(m for m in log if m.mode == "slide")
    roll = next(m for m in log if m.mode == "roll")
    assert roll.t0 == pytest.approx(slide.t_end)
    assert math.hypot(roll.vx, roll.vy) == pytest.approx(5 / 7 * speed, rel=1e-9)
    # slide time 2 u / (7 mu g) with u = v for a ball struck at its centre
    assert slide.t_end - slide.t0 == pytest.approx(2 * speed / (7 * 0.2 * G), rel=1e-9)


def test_draw_brings_the_cue_ball_back_and_follow_takes_it_on():
    layout = {"white": (800.0, 710.0), "red": (1100.0, 710.0), "yellow": (200.0, 200.0)}
    after = {}
    for height in (-0.5, 0.5):
        res = simulate("free_game", layout, [{"type": "stroke", "ball": "white",
                                              "aim": "red", "speed": 2500.0,
                                              "height": height}])
        hit = next(e for e in res.events if e.type == "ball_ball")
        after[height] = res.position("white", hit.t + 0.5)[0] - hit.pos[0][0]
    assert after[-0.5] < -20.0 < 20.0 < after[0.5]


def test_rolling_ball_stops_after_v2_over_2a():
    speed = 600.0
    res = simulate("free_game", {"white": (500.0, 300.0), "red": (2500.0, 1200.0),
                                 "yellow": (2600.0, 200.0)},
                   [{"type": "stroke", "ball": "white", "angle": 20.0, "speed": speed,
                     "height": 0.4}])
    rest = next(e for e in res.events if e.type == "ball_rest")
    travelled = math.dist(rest.pos[0], (500.0, 300.0))
    assert travelled == pytest.approx(speed ** 2 / (2 * MU_ROLL * G), rel=1e-6)


def test_cushion_rebound_obeys_restitution_and_coulomb_friction():
    """Normal speed -> -e_c vn; the cushion's friction slows the slide along it by at
    most mu_c (1 + e_c) vn (Coulomb); running english (side toward the direction of
    travel along the cushion) keeps more of it, reverse english less."""
    from simworld.physics import E_CUSHION, MU_CUSHION

    layout = {"white": (2000.0, 500.0), "red": (300.0, 300.0), "yellow": (300.0, 1100.0)}
    out = {}
    for side in (0.0, 0.4, -0.4):
        res = simulate("free_game", layout, [{"type": "stroke", "ball": "white",
                                              "direction": [0.8, 0.6], "speed": 1500.0,
                                              "height": 0.4, "side": side}])
        hit = next(e for e in res.events if e.type == "ball_cushion")
        assert hit.cushion == "foot"
        before = res.velocity("white", hit.t - 1e-9)
        after = res.velocity("white", hit.t + 1e-9)
        assert after[0] == pytest.approx(-E_CUSHION * before[0], rel=1e-6)
        assert abs(after[1] - before[1]) <= MU_CUSHION * (1 + E_CUSHION) * before[0] + 1e-6
        out[side] = after[1]
    assert 0 < out[0.0] < 1500.0 * 0.6
    # travelling toward +y along the foot cushion: right english (side > 0) runs
    assert out[0.4] > out[0.0] > out[-0.4]


# ----------------------------------------------------------------- events vs geometry

def _nose_distance(table, stretches, jaws, name, p):
    """Distance from p to the named cushion's nose (its stretches and jaw points)."""
    best = math.inf
    for c in stretches:
        if c.name != name:
            continue
        along = p[1 - c.axis]
        q = [0.0, 0.0]
        q[c.axis] = c.value
        q[1 - c.axis] = min(max(along, c.lo), c.hi)
        best = min(best, math.dist(p, q))
    for jname, j in jaws:
        if jname == name:
            best = min(best, math.dist(p, j))
    return best


@pytest.mark.parametrize("name", ALL)
def test_events_agree_with_geometry_and_trajectory(results, name):
    res = results[name]
    traj = res.trajectory
    table = get_discipline(traj.discipline).table
    stretches, jaws = _cushions(table)
    times = [e.t for e in res.events]
    assert times == sorted(times)
    for e in res.events:
        assert e.frame == frame_of(e.t, traj.fps)
        assert e.t == pytest.approx(round(e.t, 6), abs=1e-6)
        if e.type == "ball_ball":
            a, b = e.ids
            assert abs(math.dist(*e.pos) - res.radii[a] - res.radii[b]) <= 0.5
        if e.type == "ball_cushion":
            r = res.radii[e.ids[0]]
            d = _nose_distance(table, stretches, jaws, e.cushion, e.pos[0])
            assert abs(d - r) <= 0.5, f"{e.ids[0]} {d:.3f} mm from the {e.cushion} nose"
        if e.type == "ball_pin":
            pin = next(p for p in get_discipline(traj.discipline).pins if p.id == e.ids[1])
            assert math.dist(e.pos[0], pin.position) <= res.radii[e.ids[0]] + pin.radius + 0.5
        if e.type == "pocket":
            k = traj.index(e.ids[0])
            f = min(e.frame + 1, traj.n_frames - 1)
            assert traj.state_name(f, e.ids[0]) == "pocketed" and not traj.visible[f, k]
        if e.type in ("ball_ball", "ball_cushion", "ball_rest"):
            # the sampled trajectory brackets the event position within one frame's travel
            for bid, p in zip(e.ids, e.pos, strict=True):
                k = traj.index(bid)
                step = (e.speed or 0.0) / traj.fps + 1e-6
                near = [np.hypot(*(traj.positions[f, k] - p)) for f in
                        (e.frame, min(e.frame + 1, traj.n_frames - 1))]
                assert min(near) <= step + 0.02


@pytest.mark.parametrize("name", ALL)
def test_shot_records_hold_the_layouts(results, name):
    res = results[name]
    starts = [e for e in res.events if e.type == "shot_start"]
    ends = [e for e in res.events if e.type == "shot_end"]
    assert starts and len(starts) == len(ends)
    assert [e.shot for e in starts] == list(range(1, len(starts) + 1))
    disc = get_discipline(res.trajectory.discipline)
    for e in starts + ends:
        layout = e.extra["layout"]
        for bid, (x, y) in layout.items():
            assert np.allclose(res.position(bid, e.t), (x, y), atol=0.01)
        if disc.family == "pins":
            assert set(e.extra["standing"]) <= {p.id for p in disc.pins}
    for s, e in zip(starts, ends, strict=True):
        assert e.t > s.t
        for bid in e.extra["layout"]:
            assert res.mode(bid, e.t + 1e-6) == "rest"


def test_trajectory_states_and_pins(results):
    res = results["five_pins_fair"]
    traj = res.trajectory
    downs = [e for e in res.events if e.type == "pin_down"]
    assert downs
    for e in downs:
        k = traj.index(e.ids[0])
        assert traj.state_name(traj.n_frames - 1, e.ids[0]) == "fallen"
        assert traj.state_name(0, e.ids[0]) == "standing"
        assert e.ids[0] in traj.pin_fall
        assert traj.visible[:, k].all()
    standing = set(res.events[-1].extra["standing"])
    assert standing == {p.id for p in get_discipline("five_pins").pins} - {
        e.ids[0] for e in downs}


def test_falling_pin_knocks_the_pins_within_its_height():
    """A castle squeezed to 20 mm spacing: the struck pin topples into its neighbour."""
    disc = get_discipline("five_pins")
    pins = (PinSpec("pin_centre", (1420.0, 710.0), "red", "centre"),
            PinSpec("pin_foot", (1440.0, 710.0), "white", "inner"),
            PinSpec("pin_right", (1420.0, 900.0), "white", "inner"))
    tight = replace(disc, pins=pins)
    res = simulate(tight, {"white": (1000.0, 710.0), "yellow": (300.0, 300.0),
                           "red": (300.0, 1100.0)},
                   [{"type": "stroke", "ball": "white", "angle": 0.0, "speed": 1500.0}])
    downs = {e.ids[0]: e for e in res.events if e.type == "pin_down"}
    assert downs["pin_centre"].by == "white"
    assert downs["pin_foot"].by == "pin_centre"
    assert downs["pin_foot"].t > downs["pin_centre"].t
    assert "pin_right" not in downs  # 190 mm away: beyond a 25 mm pin's reach


# ----------------------------------------------------------------- determinism, files

def test_deterministic_for_a_seed_and_varied_across_seeds():
    a = run_scenario("random_pool", seed=3)
    b = run_scenario("random_pool", seed=3)
    assert [e.to_dict() for e in a.events] == [e.to_dict() for e in b.events]
    assert np.array_equal(a.trajectory.positions, b.trajectory.positions)
    c = run_scenario("random_pool", seed=4)
    assert a.events[0].extra["layout"] != c.events[0].extra["layout"]


def test_round_trip_through_the_file_formats(results, tmp_path):
    res = results["carom_off_table"]
    traj = res.trajectory
    traj.save(tmp_path / "t.trajectory.json")
    back = Trajectory.load(tmp_path / "t.trajectory.json")
    assert back.ids == traj.ids and back.fps == traj.fps
    assert np.allclose(back.positions, traj.positions, atol=0.006)
    assert np.array_equal(back.states, traj.states)
    assert np.array_equal(back.visible, traj.visible)
    assert back.heights is not None and np.allclose(back.heights, traj.heights, atol=0.006)
    assert back.strokes[0].ball == traj.strokes[0].ball
    write_events(tmp_path / "e.jsonl", res.events)
    again = read_events(tmp_path / "e.jsonl")
    assert [e.to_dict() for e in again] == [e.to_dict() for e in res.events]


def test_random_layouts_are_plausible():
    rng = np.random.default_rng(11)
    for name in ("three_cushion", "five_pins", "russian_pyramid", "pool51"):
        disc = get_discipline(name)
        for _ in range(5):
            layout = random_layout(name, rng)
            for bid, p in layout.items():
                r = disc.ball(bid).radius
                assert disc.table.contains(p, margin=r)
                for pk in disc.table.pockets:
                    assert math.dist(p, pk.centre) > pk.drop_radius + r
                for pin in disc.pins:
                    assert math.dist(p, pin.position) > r + pin.radius
            ids = list(layout)
            for i in range(len(ids)):
                for j in range(i + 1, len(ids)):
                    gap = math.dist(layout[ids[i]], layout[ids[j]])
                    assert gap > disc.ball(ids[i]).radius + disc.ball(ids[j]).radius
            simulate(name, layout, [{"type": "wait", "duration": 0.1}])  # accepted


def test_bad_input_names_the_field():
    with pytest.raises(SimulationError, match="overlap"):
        simulate("free_game", {"white": (500.0, 500.0), "red": (520.0, 500.0)},
                 [{"type": "wait", "duration": 1}])
    with pytest.raises(SimulationError, match=r"actions\[0\].*speed"):
        simulate("free_game", opening_layout("free_game"),
                 [{"type": "stroke", "ball": "white", "angle": 0, "speed": "fast"}])
    with pytest.raises(SimulationError, match=r"actions\[1\].*hanging"):
        simulate("russian_pyramid", opening_layout("russian_pyramid"),
                 [{"type": "stroke", "ball": "cue", "aim": "1", "speed": 500},
                  {"type": "fall", "ball": "1", "delay": 1}])
    with pytest.raises(KeyError, match="known"):
        run_scenario("no_such_scenario")


def test_multi_shot_script_numbers_its_shots():
    layout = {"white": (700.0, 400.0), "red": (2000.0, 600.0), "yellow": (600.0, 1200.0)}
    res = simulate("free_game", layout, [
        {"type": "stroke", "ball": "white", "aim": "red", "speed": 1500.0},
        {"type": "stroke", "ball": "yellow", "aim": "white", "speed": 1500.0, "pause": 2.0},
    ])
    starts = [e for e in res.events if e.type == "shot_start"]
    ends = [e for e in res.events if e.type == "shot_end"]
    assert [e.shot for e in starts] == [1, 2]
    assert starts[1].t == pytest.approx(ends[0].t + 2.0)
    assert len(res.trajectory.strokes) == 2


# ----------------------------------------------------------------- the situations

def _ball_contacts(events, ball):
    """The objects ``ball`` touched, in order: other balls, pins, cushions (as 'cushion')."""
    out = []
    for e in events:
        if e.type in ("ball_ball", "ball_pin") and ball in e.ids:
            out.append([i for i in e.ids if i != ball][0])
        elif e.type == "ball_cushion" and e.ids[0] == ball:
            out.append("cushion")
    return out


def _cushions_before_second_ball(events, ball, objects):
    seq = [c for c in _ball_contacts(events, ball) if c == "cushion" or c in objects]
    hit: list[str] = []
    cushions = 0
    for c in seq:
        if c == "cushion":
            cushions += 1
        elif c not in hit:
            hit.append(c)
            if len(hit) == 2:
                return cushions
    return None


def _types(events, typ, ball=None):
    return [e for e in events if e.type == typ and (ball is None or e.ids[0] == ball)]


def _first_ball(events, ball, balls):
    return next((c for c in _ball_contacts(events, ball) if c in balls), None)


def check_situation(name, res):  # noqa: C901 - one branch per scenario, on purpose
    ev = res.events
    if name == "three_cushion_point":
        assert _cushions_before_second_ball(ev, "white", ("red", "yellow")) >= 3
    elif name == "three_cushion_near_miss":
        assert _cushions_before_second_ball(ev, "white", ("red", "yellow")) == 2
    elif name == "missed_carom":
        touched = set(_ball_contacts(ev, "white"))
        assert "red" in touched and "yellow" not in touched
    elif name == "carom_off_table":
        off = _types(ev, "off_table")
        assert off
        ball = off[0].ids[0]
        k = res.trajectory.index(ball)
        assert res.trajectory.heights[:, k].max() > 30.0
        assert res.trajectory.state_name(res.trajectory.n_frames - 1, ball) == "off_table"
        assert ball not in ev[-1].extra["layout"]
    elif name == "carom_balls_touching":
        layout = ev[-1].extra["layout"]
        gap = math.dist(res.position("white", ev[-1].t), res.position("red", ev[-1].t))
        gap -= res.radii["white"] + res.radii["red"]
        assert 0.0 <= gap < 0.1 and "white" in layout
    elif name == "touched_ball":
        dist = _types(ev, "ball_disturbed", "yellow")
        assert dist
        assert not [c for c in _ball_contacts(ev, "yellow") if c != "cushion"]
        t = dist[0].t
        assert res.mode("yellow", t - 1e-6) == "rest"
        assert math.dist(res.position("yellow", t), ev[-1].extra["layout"]["yellow"]) > 5.0
        assert any(res.mode(b, t) != "rest" for b in ("white", "red"))  # during the shot
    elif name == "carom_two_shots":
        starts, ends = _types(ev, "shot_start"), _types(ev, "shot_end")
        assert [e.ids[0] for e in starts] == ["white", "yellow"]
        assert starts[1].t == pytest.approx(ends[0].t + 2.0)
        assert all(e.shot == 2 for e in ev if e.t > starts[1].t)
        assert "yellow" not in _ball_contacts(ev[:ev.index(ends[0])], "white")
    elif name == "five_pins_fair":
        assert _first_ball(ev, "white", ("yellow", "red")) == "yellow"
        assert _types(ev, "ball_pin", "yellow") and not _types(ev, "ball_pin", "white")
    elif name == "pins_own_ball_knocks":
        seq = _ball_contacts(ev, "white")
        first_yellow = seq.index("yellow")
        assert _first_ball(ev, "white", ("yellow", "red")) == "yellow"
        assert any(c.startswith("pin_") for c in seq[first_yellow:])
        assert not any(c.startswith("pin_") for c in seq[:first_yellow])
    elif name == "pallino_first":
        assert _first_ball(ev, "white", ("yellow", "red")) == "red"
    elif name == "pins_missed_opponent_ball":
        assert "yellow" not in _ball_contacts(ev, "white")
    elif name == "goriziana_indirect":
        seq = _ball_contacts(ev, "white")
        assert seq[0] == "cushion" and _first_ball(ev, "white", ("yellow", "red")) == "yellow"
        assert not any(c.startswith("pin_") for c in seq[:seq.index("yellow")])
        assert _types(ev, "ball_pin", "yellow")
    elif name == "goriziana_centre_pin_alone":
        assert [e.ids[0] for e in _types(ev, "pin_down")] == ["pin_centre"]
        assert _types(ev, "pin_down")[0].by == "yellow"
    elif name == "pyramid_pot":
        pots = _types(ev, "pocket")
        assert pots and all(e.ids[0] != "cue" for e in pots)
    elif name == "pyramid_cue_pocketed":
        assert _types(ev, "pocket", "cue")
    elif name in ("pyramid_hanging_late", "pyramid_hanging_early"):
        hang = [e for e in _types(ev, "ball_rest") if e.hanging]
        assert hang
        ball, pocket = hang[-1].ids[0], hang[-1].hanging
        end = _types(ev, "shot_end")[-1]
        drop = _types(ev, "pocket", ball)
        assert drop and drop[0].pocket == pocket
        delay = 6.0 if name.endswith("late") else 2.0
        assert drop[0].t - end.t == pytest.approx(delay, abs=1e-6)
        pk = get_discipline("russian_pyramid").table.pocket(pocket)
        d = math.dist(hang[-1].pos[0], pk.centre)
        assert pk.drop_radius < d < pk.drop_radius + res.radii[ball]  # on the lip
    elif name == "pool51_break":
        cushioned = {e.ids[0] for e in _types(ev, "ball_cushion") if e.ids[0] != "cue"}
        potted = [e for e in _types(ev, "pocket") if e.ids[0] != "cue"]
        assert len(cushioned) >= 2 or potted
    elif name == "pool51_break_black":
        assert _types(ev, "pocket", "black")
        assert ev[0].extra["layout"].keys() == opening_layout("pool51").keys()
    elif name == "pool51_black_and_cue":
        assert _types(ev, "pocket", "black") and _types(ev, "pocket", "cue")
    elif name == "pool51_cue_pocketed":
        assert _types(ev, "pocket", "cue") and not _types(ev, "pocket", "black")
        assert _types(ev, "ball_ball")[0].t < _types(ev, "pocket", "cue")[0].t
    elif name.startswith("opening_"):
        struck = ev[0].ids[0]
        assert ev[0].extra["layout"] == {
            k: [round(x, 2), round(y, 2)]
            for k, (x, y) in opening_layout(name[len("opening_"):]).items()}
        assert _first_ball(ev, struck, set(res.radii) - {struck}) is not None
    elif name.startswith("random_"):
        assert _types(ev, "shot_start") and _types(ev, "shot_end")
    else:  # pragma: no cover - a new scenario must say what it shows
        raise AssertionError(f"no situation check for scenario {name!r}")


@pytest.mark.parametrize("name", ALL)
def test_every_scenario_shows_its_situation(results, name):
    check_situation(name, results[name])


def test_every_discipline_has_an_opening_and_every_family_a_random_scene():
    from equipment import DISCIPLINES

    for name in DISCIPLINES:
        assert f"opening_{name}" in SCENARIOS
    for fam in ("carom", "pins", "pyramid", "pool"):
        assert f"random_{fam}" in SCENARIOS
