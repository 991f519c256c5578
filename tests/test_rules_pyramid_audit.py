"""Audit of the pyramid games against rulebook 001, article by article.

Situations the first tests did not cover: combinations of fouls with pots, the last
ball of a frame, referee entries against camera calls, and positions exactly on the
limits the articles set (half a radius, 45 degrees, the house line, the centre line).
Expected calls come from the article text quoted in each test and from the table's
and the balls' geometry, never from a run of the code.
"""

from __future__ import annotations

import math

import pytest

from equipment.tables import PYRAMID_BALL
from tests.streams import Stream
from tests.test_rules_pyramid import BACK, HOUSE_X, MID_Y, calls, spread

R = PYRAMID_BALL / 2


def _codes(call) -> list[str]:
    return [f.code for f in call.fouls]


# ---------------------------------------------------------------- §14 with pots and the frame

def test_foul_on_the_eighth_ball_does_not_win_the_frame():  # §14 н, §14 last ¶, frame
    # "Шары, забитые с нарушениями правил, не засчитываются": the 8th ball potted with
    # the cue ball in a pocket (Russian) does not count, and a penalty ball is taken.
    s = Stream(spread())
    s.shot("cue").hit("cue", "1").pocket("1", "foot_left").pocket("cue", "foot_right").end()
    (c,) = calls(s, from_hand=False, score={"A": 7, "B": 7})
    assert _codes(c) == ["14.н"]
    assert c.score == {"A": 6, "B": 7} and c.points == {"A": -1, "B": 0}
    assert not c.match.get("frame_over") and not c.match["over"]
    assert c.next_player == "B" and c.extra["from_hand"] == "house"  # §5, §7
    assert {r.ball for r in c.respots} >= {"1"}  # the foul pot goes back on the table


def test_the_eighth_ball_won_by_the_opponent_stopping_it():  # §17, frame
    # "шар считается сыгранным": a ball stopped by the opponent on its way to the pocket
    # counts, so it can be the eighth ball.
    s = Stream(spread())
    s.shot("cue").hit("cue", "1").referee("interference", ball="1").end(cue=(700.0, 700.0))
    (c,) = calls(s, from_hand=False, score={"A": 7, "B": 2})
    assert c.fouls == [] and c.score["A"] == 8
    assert c.match["frame_over"] and c.match["frame_winner"] == "A" and c.match["over"]


def test_a_counted_stopped_ball_leaves_the_table_before_respotting():  # §17, §7, §8
    # Ball 1 is stopped by the opponent right on the back spot and counted: it is taken
    # off, so a ball jumped off the table in the same stroke goes on the free back spot.
    s = Stream(spread())
    s.shot("cue").hit("cue", "1").hit("1", "2").off_table("2")
    s.referee("interference", ball="1").end(cue=(700.0, 700.0), **{"1": BACK})
    (c,) = calls(s, from_hand=False)
    assert c.fouls == [] and c.score["A"] == 1 and c.next_player == "A"
    assert [(r.ball, r.spot) for r in c.respots] == [("2", "back")]
    assert c.respots[0].pos == pytest.approx(BACK)


def test_referee_cancels_an_interference_foul():  # §14 р, referee entries
    s = Stream(spread())
    s.shot("cue").hit("cue", "1").referee("foul", code="14.р")
    s.referee("cancel_foul", code="14.р").end(cue=(700.0, 700.0))
    (c,) = calls(s, from_hand=False, score={"A": 3, "B": 3})
    assert c.fouls == [] and c.score == {"A": 3, "B": 3}
    assert c.next_player == "B"  # §12: no ball counted, the opponent plays


def test_interference_with_a_striker_foul_penalises_both():  # §14 а + р
    # The striker's foul costs him one ball and the turn; the opponent's interference
    # costs the opponent one ball: two offenders, one penalty each.
    s = Stream(spread())
    s.shot("cue").referee("foul", code="14.р").end(cue=(700.0, 700.0))
    (c,) = calls(s, from_hand=False, score={"A": 3, "B": 3})
    assert sorted(_codes(c)) == ["14.а", "14.р"]
    assert c.score == {"A": 2, "B": 2} and c.next_player == "B"


def test_referee_foul_and_camera_foul_of_the_same_stroke_cost_one_ball():  # §14 last ¶
    s = Stream(spread())
    s.shot("cue").referee("foul", code="14.г").end(cue=(700.0, 700.0))
    (c,) = calls(s, from_hand=False, score={"A": 3, "B": 0})
    assert sorted(_codes(c)) == ["14.а", "14.г"] and c.score["A"] == 2


def test_turn_after_a_foul_is_the_opponents_and_he_may_pot():  # §12
    s = Stream(spread())
    s.shot("cue").end()  # 14.а
    s.shot("cue").hit("cue", "3").pocket("3", "foot_left").end(cue=(900.0, 900.0))
    c1, c2 = calls(s, from_hand=False, score={"A": 2, "B": 0})
    assert c1.next_player == "B" and not c1.ball_in_hand  # Russian: cue on the table
    assert c2.player == "B" and c2.fouls == [] and c2.score == {"A": 1, "B": 1}
    assert c2.next_player == "B"


# ---------------------------------------------------------------- §11 on its limits

def _near(gap: float, cut_deg: float | None = None) -> Stream:
    """Cue ball and ball 1 ``gap`` apart; the cue ball runs on past ball 1's centre."""
    layout = spread()
    c0 = (1500.0, 800.0)
    layout["cue"] = c0
    if cut_deg is None:
        layout["1"] = (c0[0] + 2 * R + gap, c0[1])
        contact = (layout["1"][0] - 2 * R, c0[1])
    else:
        contact = (c0[0] + 10.0, c0[1])  # 10 mm of travel along x, then the contact
        a = math.radians(cut_deg)
        layout["1"] = (contact[0] + 2 * R * math.cos(a), contact[1] + 2 * R * math.sin(a))
    s = Stream(layout)
    s.shot("cue").at(cue=contact).hit("cue", "1")
    return s.end(cue=(2400.0, 600.0), **{"1": (3000.0, 1500.0)})


@pytest.mark.parametrize("gap,near", [(0.5 * R, True), (0.5 * R + 0.05, False)])
def test_half_a_radius_is_the_limit_of_a_near_ball(gap, near):  # §11 "не более 1/2"
    c = calls(_near(gap), from_hand=False)[-1]
    assert ("14.ж" in _codes(c)) is near


@pytest.mark.parametrize("cut,foul", [(45.0, False), (50.0, False), (44.5, True)])
def test_a_cut_of_45_degrees_and_more_is_fair(cut, foul):  # §11 "45 градусов, и более"
    s = _near(0.0, cut)
    start = next(e for e in s.events if e.type == "shot_start").extra["layout"]
    gap = math.dist(start["cue"], start["1"]) - 2 * R
    assert gap <= 0.5 * R  # the situation is a near ball
    assert ("14.ж" in _codes(calls(s, from_hand=False)[-1])) is foul


# ---------------------------------------------------------------- §5, §9, §14 л from hand

def test_moscow_cue_ball_pocketed_from_hand_off_a_ball_in_the_house_does_not_count():
    # §5 from hand only balls outside the house; §14 л: foul, so the свояк and the pot
    # do not count and the opponent plays from hand (§7, §14 last ¶).
    layout = spread()
    layout["3"] = (HOUSE_X - 100.0, 400.0)
    s = Stream(layout)
    s.shot("cue").hit("cue", "3").pocket("3", "head_left").pocket("cue", "side_left").end()
    (c,) = calls(s, "moscow_pyramid")
    assert _codes(c) == ["14.л"] and c.score == {"A": 0, "B": 0}
    assert c.next_player == "B" and c.extra["from_hand"] == "house"
    assert "remove_ball" not in c.extra


def test_from_hand_a_ball_exactly_on_the_house_line_may_be_played():  # §9, §14 л
    layout = spread()
    layout["3"] = (HOUSE_X, 400.0)  # centre on the line: outside the house
    s = Stream(layout)
    s.shot("cue").hit("cue", "3").pocket("3", "foot_left").end(cue=(600.0, 600.0))
    (c,) = calls(s)
    assert c.fouls == [] and c.score["A"] == 1 and c.next_player == "A"


def test_from_hand_after_the_opponents_cue_ball_went_off():  # §7, §5, §14 б, л
    # Russian: the cue ball off the table is a foul; the opponent plays from hand and
    # may not touch a ball standing in the house.
    layout = spread()
    layout["3"] = (HOUSE_X - 200.0, 300.0)
    s = Stream(layout)
    s.shot("cue").hit("cue", "1").off_table("cue").end()
    s.layout["cue"] = (HOUSE_X - 400.0, MID_Y)
    s.shot("cue").hit("cue", "3").end(cue=(HOUSE_X - 100.0, 500.0))
    c1, c2 = calls(s, from_hand=False)
    assert _codes(c1) == ["14.б"] and c1.extra["from_hand"] == "house"
    assert c2.player == "B" and _codes(c2) == ["14.л"] and c2.next_player == "A"


# ---------------------------------------------------------------- §4 the lag on its limit

def test_lag_ball_stopping_exactly_on_the_centre_line_stays_in_its_half():  # §4, §9
    # "зашел на половину соперника": a centre on the long centre line has not entered
    # the other half (a ball is where its centre is, §9).
    s = Stream({"cue": (300.0, MID_Y - 400.0), "1": (300.0, MID_Y + 400.0)})
    s.shot("cue").cushion("cue", "foot").end(cue=(200.0, MID_Y))
    s.shot("1").cushion("1", "foot").end(**{"1": (500.0, MID_Y + 300.0)})
    c = calls(s, lag=True)[-1]
    assert c.extra["lag"]["errors"] == {} and c.extra["lag"]["winner"] == "A"


# ---------------------------------------------------------------- frames and the match

def test_frame_won_then_the_next_frame_opens_from_hand_with_the_other_player():  # §4, §5
    s = Stream(spread())
    s.shot("cue").hit("cue", "1").pocket("1", "foot_left").end(cue=(700.0, 700.0))
    s.layout["cue"] = (HOUSE_X - 300.0, MID_Y)
    s.shot("cue").hit("cue", "2").pocket("2", "foot_left").end(cue=(700.0, 700.0))
    c1, c2 = calls(s, from_hand=False, frames=2, score={"A": 7, "B": 5})
    assert c1.match["frame_over"] and c1.match["frames"] == {"A": 1, "B": 0}
    assert not c1.match["over"] and c1.next_player == "B"  # A opened frame 1
    assert c2.player == "B" and c2.score == {"A": 0, "B": 1}
    assert c2.match["frame"] == 2


# ---------------------------------------------------------------- §7 a ball that came back

def test_ball_back_off_a_cue_or_clothes_is_jumped_by_referee_entry():  # §7 ¶1
    # "Если же шар задевает за пределами стола какой-либо иной объект (кий, мел,
    # одежду...), то он считается выскочившим даже в том случае, если ... возвращается".
    s = Stream(spread())
    s.shot("cue").hit("cue", "1").hit("1", "2").pocket("2", "foot_left").off_table("1")
    s.referee("off_table", ball="1").end(cue=(700.0, 700.0), **{"1": (2000.0, 900.0)})
    (c,) = calls(s, from_hand=False)
    assert c.fouls == [] and c.score["A"] == 1  # an object ball: respotted, pots count
    assert [(r.ball, r.spot) for r in c.respots] == [("1", "back")]
    s = Stream(spread())
    s.shot("cue").hit("cue", "1").off_table("cue")
    s.referee("off_table", ball="cue").end(cue=(700.0, 700.0))
    (c,) = calls(s, from_hand=False)
    assert [f.code for f in c.fouls] == ["14.б"] and c.extra["from_hand"] == "house"
