"""The rules engine's own work: cutting the stream into shots and observation warnings."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from streams import Stream

from adjudicate import AdjudicationError, Shot, ShotCall, Warning, adjudicate_stream
from tracking.events import Event


@dataclass
class Recorder:
    """A game that calls nothing and remembers the shots it was given."""

    name: str = "recorder"
    title: str = "records shots"
    discipline: str = "three_cushion"
    fouls: dict = field(default_factory=dict)
    shots: list[Shot] = field(default_factory=list)
    settings: dict = field(default_factory=dict)

    def new_state(self, settings):
        self.settings = dict(settings)
        return 0

    def judge(self, state, shot):
        self.shots.append(shot)
        return state + 1, ShotCall(shot.number, shot.t, "A", shot.struck_ball, {}, [], "A")


LAYOUT = {"white": (700.0, 900.0), "yellow": (710.0, 710.0), "red": (2130.0, 710.0)}


def test_events_after_shot_end_belong_to_the_shot_before():
    s = Stream(LAYOUT)
    s.shot("white").hit("white", "red").hang("red", "foot_left").end(white=(900.0, 300.0))
    s.wait(6.0).pocket("red", "foot_left")  # a hanging ball drops after the shot ended
    s.shot("yellow").cushion("yellow", "left").end(yellow=(800.0, 60.0))
    game = Recorder()
    calls = [r for r in adjudicate_stream(s.events, game) if isinstance(r, ShotCall)]
    assert [c.shot for c in calls] == [1, 2]
    first, second = game.shots
    assert first.of_type("pocket") and not second.of_type("pocket")
    assert first.end.t < first.of_type("pocket")[0].t
    assert second.struck_ball == "yellow" and second.layout_before()["white"] == (900.0, 300.0)


def test_referee_entries_reach_the_shot_they_name():
    s = Stream(LAYOUT)
    s.referee("foul", shot=2, code="foot_off_floor")  # entered ahead of its shot
    s.shot("white").end(white=(800.0, 800.0))
    s.referee("shooter", player="B")  # no shot number: the shot in progress
    s.shot("yellow").end(yellow=(900.0, 700.0))
    s.referee("foul", shot=1, code="late")  # after shot 1 was called
    game = Recorder()
    out = list(adjudicate_stream(s.events, game))
    one, two = game.shots
    assert [r.extra["action"] for r in one.referee] == ["shooter"]
    assert [r.extra["code"] for r in two.referee] == ["foot_off_floor"]
    late = [w for w in out if isinstance(w, Warning)]
    assert [w.code for w in late] == ["referee_late"] and late[0].shot == 1


def test_a_shot_keeps_its_own_end_when_the_next_started_early():
    s = Stream(LAYOUT)
    s.shot("white").hit("white", "red")
    s.shot("yellow")  # shot 2 starts while shot 1's balls still roll
    s.events.append(Event(s.t + 0.1, "shot_end", shot=1, extra={"layout": {}}))
    s.t += 0.2
    s.end(yellow=(1000.0, 500.0))
    game = Recorder()
    list(adjudicate_stream(s.events, game))
    second = game.shots[1]
    assert second.end.shot == 2 and len(second.of_type("shot_end")) == 2


def test_table_events_before_the_first_shot_are_its_prelude():
    s = Stream(LAYOUT)
    s.disturbed("red")
    s.shot("white").end()
    game = Recorder()
    list(adjudicate_stream(s.events, game))
    assert [e.type for e in game.shots[0].prelude] == ["ball_disturbed"]


def test_light_warns_on_changes_of_state_not_every_reading():
    s = Stream(LAYOUT)
    s.light(700, 900).shot("white").light(450, 800).light(440, 790).light(430, 780)
    s.end().light(600, 850)
    s.events.append(Event(s.t + 1, "light", extra={"status": "auto_exposure"}))
    codes = [w.code for w in adjudicate_stream(s.events, Recorder()) if isinstance(w, Warning)]
    assert codes == ["light_low", "light_restored", "light_unmeasurable"]


def test_light_within_the_meters_error_of_520_is_near_not_under():
    """A camera meter's reading within its own error of 520 lux, either side, is
    "near": a hand meter settles it, where the meter says. Under by more is low; a hand
    meter's reading (no tolerance given) is taken as exact."""
    def light(t: float, lux_min: float, tol: float | None = 0.05) -> Event:
        extra = {"lux_min": lux_min, "lux_mean": 900.0, "lux_min_at_mm": [2662, 71]}
        if tol is not None:
            extra["lux_tolerance"] = tol
        return Event(t, "light", extra=extra)

    s = Stream(LAYOUT)
    s.shot("white").end()
    s.events += [light(10, 700), light(11, 516), light(12, 530), light(13, 480),
                 light(14, 505), light(15, 560), light(16, 516, tol=None)]
    out = [w for w in adjudicate_stream(s.events, Recorder()) if isinstance(w, Warning)]
    assert [(w.code, w.t) for w in out] == [
        ("light_near", 11), ("light_low", 13), ("light_near", 14), ("light_restored", 15),
        ("light_low", 16)]
    assert "516 lux" in out[0].message and "x 2662, y 71 mm" in out[0].message
    assert "5%" in out[0].message and out[0].article == "000 Tavolo 9"


def test_light_warning_names_the_lamp_that_changed():
    """A lamp's light under it falling by more than a third is named in the warning; a
    lamp that moved a little is not news, and lamps fitted again elsewhere (another
    view's meter) are not compared."""
    def lamps(*lux, x0=500.0):
        return [{"x_mm": x0 + 900.0 * k, "y_mm": 710.0, "height_mm": 850.0, "lux": v}
                for k, v in enumerate(lux)]

    s = Stream(LAYOUT)
    s.light(900, 1700).shot("white").end()
    s.events[0].extra["lamps"] = lamps(1500, 1500, 1500)
    s.events.append(Event(s.t + 1, "light", extra={"lux_min": 280, "lux_mean": 1200,
                                                   "changed": True,
                                                   "lamps": lamps(1450, 1480, 3)}))
    s.events.append(Event(s.t + 2, "light", extra={"lux_min": 850, "lux_mean": 1600,
                                                   "changed": True,
                                                   "lamps": lamps(1440, 1470, 1400)}))
    s.events.append(Event(s.t + 3, "light", extra={"lux_min": 700, "lux_mean": 1300,
                                                   "changed": True,
                                                   "lamps": lamps(900, 1470, 1400, x0=650)}))
    out = [w for w in adjudicate_stream(s.events, Recorder()) if isinstance(w, Warning)]
    assert [w.code for w in out] == ["light_low", "light_restored", "light_changed"]
    assert out[0].message.endswith("the lamp over x 2300, y 710 mm gives 3 lux under it "
                                   "(1500 before)")
    assert "lamp over x 2300" in out[1].message and "1400 lux" in out[1].message
    assert "x 500," not in out[0].message and "x 1400," not in out[0].message
    assert out[2].message.endswith("(a lamp failing?)")


def test_calibration_and_blind_stretches_are_warned():
    s = Stream(LAYOUT)
    s.shot("white").end()
    s.events += [Event(s.t + 1, "calibration", extra={"status": "moved"}),
                 Event(s.t + 2, "calibration", extra={"status": "ok"}),
                 Event(s.t + 3, "unobservable", extra={"t_end": s.t + 5})]
    out = [w for w in adjudicate_stream(s.events, Recorder()) if isinstance(w, Warning)]
    assert [w.code for w in out] == ["calibration_moved", "unobservable"]
    assert all(w.shot == 1 for w in out)


def test_match_settings_in_the_stream_and_too_late():
    s = Stream(LAYOUT).match(players=["Ada", "Bo"], distance=15)
    s.shot("white").end()
    game = Recorder()
    list(adjudicate_stream(s.events, game, {"distance": 40, "innings": 50}))
    assert game.settings == {"players": ["Ada", "Bo"], "distance": 15, "innings": 50}
    s.events.append(Event(s.t + 1, "match", extra={"distance": 3}))
    s.t += 2
    s.shot("yellow").end()
    with pytest.raises(AdjudicationError, match="after the first shot"):
        list(adjudicate_stream(s.events, Recorder()))
