"""Carom games of seed 000 (FIBiS): each article's fair case, its foul and its edge case.

Expected values come from the articles (quoted by their 000 chapter and number) and
from the table geometry in ``equipment``, never from a run of the code.
"""

from __future__ import annotations

import json
import math

import pytest
from simcalls import cli_calls, simulated
from streams import Stream

from adjudicate import AdjudicationError, ShotCall, adjudicate_stream, get_game
from adjudicate.games.carom import in_zone, interdiction_zones
from cueref.cli import main
from equipment import get_table
from equipment.tables import CAROM_BALL
from tracking.events import write_events

OPEN = {"white": (710.0, 892.5), "yellow": (710.0, 710.0), "red": (2130.0, 710.0)}
THREE = ("right", "foot", "left")  # three cushion contacts
SPOTS = get_table("carom").spots


def calls(s: Stream, game: str, **settings) -> list[ShotCall]:
    return [c for c in adjudicate_stream(s.events, get_game(game), settings)
            if isinstance(c, ShotCall)]


def carom(s: Stream, ball: str, first: str = "red", cushions: tuple[str, ...] = (),
          cushions_between: tuple[str, ...] = (), **end) -> Stream:
    """A shot where ``ball`` meets ``first`` then the other object ball."""
    return s.carom(ball, first, cushions, cushions_between).end(**end)


def three(s: Stream, ball: str, **end) -> Stream:
    return carom(s, ball, cushions=THREE, **end)


def miss(s: Stream, ball: str, **end) -> Stream:
    return s.shot(ball).cushion(ball, "left").end(**end)


def codes(call: ShotCall) -> list[str]:
    return [f.code for f in call.fouls]


# ----------------------------------------------------------------------- Carambola


def test_carom_scores_one_point_and_the_run_goes_on_a_miss_passes_the_hand():
    s = Stream(OPEN)
    carom(s, "white")
    carom(s, "white", first="yellow")
    miss(s, "white")
    miss(s, "yellow")
    c = calls(s, "free_game")
    assert [x.points["A"] for x in c[:3]] == [1, 1, 0]  # 000 Carambola 2
    assert [x.next_player for x in c] == ["A", "A", "B", "A"]  # 000 Falli 2: miss
    assert c[-1].score == {"A": 2, "B": 0} and c[-1].innings == {"A": 1, "B": 1}
    assert c[2].fouls == []  # a miss passes the hand but is not reported as a foul


def test_only_the_players_ball_makes_the_carom():
    s = Stream(OPEN)
    s.shot("white").hit("white", "red").hit("red", "yellow").end()  # red meets yellow
    c = calls(s, "free_game")[0]
    assert c.points["A"] == 0 and c.next_player == "B"


def test_three_cushions_before_the_second_ball_vs_only_two():
    s = Stream(OPEN)
    three(s, "white")  # right, foot, left, then the two balls
    carom(s, "white", cushions=("right", "foot"))  # only two
    c = calls(s, "three_cushion")
    assert c[0].points["A"] == 1 and c[0].extra["cushions"] == 3  # 000 Tre sponde 1
    assert c[1].points["A"] == 0 and c[1].next_player == "B"


def test_the_same_cushion_three_times_counts():
    s = Stream(OPEN)
    carom(s, "white", cushions=("left", "left", "left"))
    assert calls(s, "three_cushion")[0].points["A"] == 1


def test_cushions_count_only_before_the_second_ball():
    s = Stream(OPEN)
    # two cushions, the first ball, one cushion, the second ball: 3 before -> counts
    carom(s, "white", cushions=("right", "foot"), cushions_between=("left",))
    # two cushions, both balls, then a third cushion: too late
    s.shot("white").cushion("white", "right").cushion("white", "foot")
    s.hit("white", "red").hit("white", "yellow").cushion("white", "left").end()
    c = calls(s, "three_cushion")
    assert c[0].points["A"] == 1
    assert c[1].points["A"] == 0 and c[1].next_player == "B"


def test_one_cushion_needs_a_cushion_before_the_carom_is_completed():
    s = Stream(OPEN)
    carom(s, "white", cushions_between=("foot",))  # red, cushion, yellow: valid
    carom(s, "white")  # no cushion
    miss(s, "yellow")
    carom(s, "white", cushions=())  # again none
    c = calls(s, "one_cushion")
    assert c[0].points["A"] == 1  # 000 Una sponda 1
    assert c[1].points["A"] == 0 and c[1].next_player == "B"
    s2 = Stream(OPEN)
    s2.shot("white").hit("white", "red").hit("white", "yellow").cushion("white", "foot")
    s2.end()
    assert calls(s2, "one_cushion")[0].points["A"] == 0  # the cushion came after


# ----------------------------------------------------------------------- opening


def test_opening_shot_must_go_to_the_red_first_directly_or_off_a_cushion():
    s = Stream(OPEN)
    carom(s, "white", first="yellow")  # opening shot into the opponent's ball
    c = calls(s, "free_game")[0]
    assert codes(c) == ["opening_not_red"] and c.points["A"] == 0
    assert c.fouls[0].article == "000 Tiro d'inizio 2" and c.next_player == "B"
    s = Stream(OPEN)
    carom(s, "white", first="red", cushions=("right",))  # off a cushion to the red
    carom(s, "white", first="yellow")  # no longer the opening: fine
    c = calls(s, "free_game")
    assert [x.points["A"] for x in c] == [1, 1] and all(not x.fouls for x in c)


def test_a_stream_that_starts_mid_match_is_not_an_opening():
    s = Stream({"white": (1000.0, 300.0), "yellow": (1500.0, 700.0), "red": (2000.0, 900.0)})
    carom(s, "yellow", first="white")  # not the opening position: no opening rule
    c = calls(s, "free_game")[0]
    assert c.fouls == [] and c.points["A"] == 1 and not c.extra["opening"]
    assert c.extra["balls"] == {"A": "yellow", "B": "white"}  # the ball A struck


def test_the_opening_player_gets_the_white():
    s = Stream(OPEN)
    miss(s, "white")
    c = calls(s, "free_game", players=["Ann", "Bob"], first="Bob")[0]
    assert c.player == "Bob" and c.extra["balls"] == {"Bob": "white", "Ann": "yellow"}
    assert c.next_player == "Ann"


# ----------------------------------------------------------------------- Falli


def test_ball_off_the_table_is_a_foul_and_the_carom_does_not_count():
    s = Stream(OPEN)
    s.shot("white").hit("white", "red").hit("white", "yellow").off_table("red")
    s.end(white=(1500.0, 400.0), yellow=(900.0, 1000.0))
    c = calls(s, "free_game")[0]
    assert codes(c) == ["ball_off_table"] and c.points["A"] == 0  # 000 Falli 1, 2
    assert c.next_player == "B"
    # free game: all balls to the starting position, B's ball on a starting spot
    # [000 Bilie fuori 1.a]
    placed = {r.ball: r.spot for r in c.respots}
    assert placed == {"red": "foot", "white": "head", "yellow": "start_right"}


def test_three_cushion_respots_only_the_ball_off_the_table_with_the_occupied_spot_rule():
    s = Stream({"white": (1000.0, 300.0), "yellow": SPOTS["foot"], "red": (1800.0, 400.0)})
    s.shot("white").cushion("white", "right").hit("white", "red").off_table("red")
    s.end(white=(1200.0, 900.0))
    c = calls(s, "three_cushion", opening=False)[0]
    assert codes(c) == ["ball_off_table"] and c.next_player == "B"
    # the red's spot (foot) is taken by yellow: the red goes to yellow's spot; yellow is
    # the incoming player's ball, whose spot is the lower (head) spot
    assert [(r.ball, r.spot) for r in c.respots] == [("red", "head")]
    assert c.respots[0].pos == SPOTS["head"]


def test_shooting_while_balls_move():
    s = Stream(OPEN)
    s.shot("white").hit("white", "red").hit("white", "yellow")  # no shot_end yet
    s.shot("white").hit("white", "red").hit("white", "yellow").end()
    c = calls(s, "free_game")
    assert codes(c[1]) == ["shot_while_moving"] and c[1].points["A"] == 0
    assert c[1].next_player == "B"
    s = Stream(OPEN)
    carom(s, "white")
    carom(s, "white")
    assert [codes(x) for x in calls(s, "free_game")] == [[], []]


def test_a_touched_ball_is_a_foul_and_stays_where_it_is():
    s = Stream(OPEN)
    s.shot("white").hit("white", "red").disturbed("yellow").hit("white", "yellow")
    s.end(yellow=(800.0, 700.0))
    c = calls(s, "free_game")[0]
    assert codes(c) == ["touched_ball"] and c.points["A"] == 0 and c.respots == []


def test_a_ball_touched_after_the_balls_stopped_keeps_the_carom_and_ends_the_run():
    s = Stream(OPEN)
    carom(s, "white").disturbed("red")  # after shot_end, during A's run
    miss(s, "white")
    s2 = Stream(OPEN)
    miss(s2, "white").disturbed("red")  # after a miss: whose hand? the referee's call
    c = calls(s, "free_game")[0]
    assert c.points["A"] == 1 and codes(c) == ["touched_ball"] and c.next_player == "B"
    c2 = calls(s2, "free_game")[0]
    assert c2.fouls == [] and c2.extra["referee_needed"] is True


def test_push_into_the_ball_in_contact():
    d = CAROM_BALL
    layout = {"white": (1000.0, 500.0), "red": (1000.0 + d, 500.0), "yellow": (1800.0, 900.0)}
    s = Stream(layout)
    s.shot("white").hit("white", "red").cushion("white", "foot").hit("white", "yellow")
    s.end()
    c = calls(s, "free_game", opening=False)[0]
    assert codes(c) == ["push_ball"] and c.points["A"] == 0  # 000 Falli 2, carrozza b
    # detaché: the ball played away from the touching red, which does not move
    s = Stream(layout)
    s.shot("white").cushion("white", "head").hit("white", "yellow").hit("white", "red")
    s.end(white=(900.0, 300.0))
    assert codes(calls(s, "free_game", opening=False)[0]) == []
    # the red moved along with no contact seen: pushed
    s = Stream(layout)
    s.shot("white").cushion("white", "foot").hit("white", "yellow").end(red=(1150.0, 500.0))
    assert codes(calls(s, "free_game", opening=False)[0]) == ["push_ball"]


def test_push_into_the_cushion_the_ball_is_touching():
    layout = {"white": (1000.0, CAROM_BALL / 2), "red": (1500.0, 700.0),
              "yellow": (1800.0, 900.0)}
    s = Stream(layout)
    s.shot("white").cushion("white", "left").hit("white", "red").hit("white", "yellow").end()
    c = calls(s, "free_game", opening=False)[0]
    assert codes(c) == ["push_cushion"]  # 000 Falli 2, carrozza c
    s = Stream(layout)
    s.shot("white").hit("white", "red").cushion("white", "left").hit("white", "yellow").end()
    assert codes(calls(s, "free_game", opening=False)[0]) == []


def test_playing_the_opponents_ball_keeps_the_earlier_points():
    s = Stream(OPEN)
    carom(s, "white")
    carom(s, "white")
    carom(s, "yellow", yellow=(1500.0, 300.0))  # A plays B's ball: carom made
    c = calls(s, "free_game")
    assert codes(c[2]) == ["wrong_ball"] and c[2].points["A"] == 0
    assert c[2].score == {"A": 2, "B": 0}  # 000 Falli 2: points of the run stay
    assert c[2].next_player == "B" and c[2].respots == []  # balls stay where they are


def test_fouls_the_camera_cannot_see_enter_only_by_referee():
    table = get_game("three_cushion").fouls
    assert not table["foot_off_floor"].observable and not table["rail_marks"].observable
    assert not table["push_tip"].observable
    s = Stream(OPEN)
    three(s, "white").referee("foul", code="foot_off_floor")
    c = calls(s, "three_cushion")[0]
    assert codes(c) == ["foot_off_floor"] and c.fouls[0].source == "referee"
    assert c.points["A"] == 0 and c.next_player == "B" and c.score["A"] == 0


def test_referee_cancels_a_foul_cueref_called():
    s = Stream(OPEN)
    s.shot("white").hit("white", "red").disturbed("yellow").hit("white", "yellow").end()
    s.referee("cancel_foul", code="touched_ball")
    c = calls(s, "free_game")[0]
    assert c.fouls == [] and c.points["A"] == 1 and c.next_player == "A"


def test_referee_entry_with_an_unknown_code_names_the_known_ones():
    s = Stream(OPEN)
    three(s, "white").referee("foul", code="scratch")
    with pytest.raises(AdjudicationError, match="known: .*ball_off_table"):
        calls(s, "three_cushion")


def test_referee_overrules_the_carom_and_the_shooter():
    s = Stream(OPEN)
    carom(s, "white", cushions=("right", "foot")).referee("carom", valid=True)
    s.shot("yellow").referee("shooter", player="B").cushion("yellow", "left").end()
    c = calls(s, "three_cushion")
    assert c[0].points["A"] == 1
    assert c[1].player == "B" and codes(c[1]) == []


# ----------------------------------------------------------------------- zones


def _zone_layout(yellow, red, white=(1400.0, 700.0)):
    return {"white": white, "yellow": yellow, "red": red}


def test_zones_are_the_rulebooks():
    z47 = interdiction_zones(get_table("carom_balkline_47"))
    assert "field_11" not in z47 and "field_00" in z47  # the centre box is free
    assert sum(k.startswith("anchor_") for k in z47) == 8
    z71 = interdiction_zones(get_table("carom_balkline_71"))
    assert sum(k.startswith("field_") for k in z71) == 6
    corners = interdiction_zones(get_table("carom_free"))
    assert set(corners) == {f"corner_{a}_{b}" for a in ("head", "foot")
                            for b in ("left", "right")}


def test_balkline_47_2_two_caroms_in_a_zone_without_a_ball_leaving_is_a_foul():
    s = Stream(_zone_layout((200.0, 200.0), (300.0, 300.0)))
    carom(s, "white")
    carom(s, "white")
    c = calls(s, "balkline_47_2", opening=False)
    assert c[0].points["A"] == 1 and codes(c[0]) == []
    assert codes(c[1]) == ["interdiction_zone"] and c[1].points["A"] == 0
    assert c[1].fouls[0].article == "000 Quadro 47/2 1" and c[1].next_player == "B"


def test_balkline_47_1_one_carom_in_a_zone_without_a_ball_leaving_is_a_foul():
    s = Stream(_zone_layout((200.0, 200.0), (300.0, 300.0)))
    carom(s, "white")
    c = calls(s, "balkline_47_1", opening=False)[0]
    assert codes(c) == ["interdiction_zone"] and c.fouls[0].article == "000 Quadro 47/1 1"
    s = Stream(_zone_layout((200.0, 200.0), (300.0, 300.0)))
    carom(s, "white", yellow=(700.0, 200.0))  # yellow driven out of the zone
    carom(s, "white")  # the balls are in different zones now
    c = calls(s, "balkline_47_1", opening=False)
    assert [x.points["A"] for x in c] == [1, 1] and all(not x.fouls for x in c)


def test_a_ball_exactly_on_the_line_is_inside_the_zone():
    on_line = (470.0, 200.0)  # on the 47 cm line between field_00 and field_10
    assert in_zone(on_line, get_table("carom_balkline_47").zones["field_00"])
    s = Stream(_zone_layout(on_line, (300.0, 300.0)))
    carom(s, "white")
    carom(s, "white")
    c = calls(s, "balkline_47_2", opening=False)
    assert codes(c[1]) == ["interdiction_zone"]  # against the player
    # a ball that ends exactly on the line has not left the zone
    s = Stream(_zone_layout((200.0, 200.0), (300.0, 300.0)))
    carom(s, "white", yellow=on_line)
    carom(s, "white", yellow=(200.0, 200.0))
    assert codes(calls(s, "balkline_47_2", opening=False)[1]) == ["interdiction_zone"]
    # 5 mm past the line the ball is out: each carom starts outside a common zone
    s = Stream(_zone_layout((475.0, 200.0), (300.0, 300.0)))
    carom(s, "white")
    carom(s, "white")
    carom(s, "white")
    assert all(not codes(x) for x in calls(s, "balkline_47_2", opening=False))


def test_leaving_and_re_entering_the_zone_restores_the_right():
    s = Stream(_zone_layout((200.0, 200.0), (300.0, 300.0)))
    carom(s, "white")  # 1st carom in the zone
    s.shot("white").hit("white", "red")
    s.layout["red"] = (300.0, 0.0 + 700.0)  # the red out of field_00 ...
    s.cushion("red", "right")
    s.layout["red"] = (300.0, 300.0)
    s.hit("white", "yellow").end(red=(300.0, 300.0))  # ... and back in
    carom(s, "white")  # a first carom again: allowed
    carom(s, "white")  # the second without leaving: foul
    c = calls(s, "balkline_47_2", opening=False)
    assert [codes(x) for x in c] == [[], [], [], ["interdiction_zone"]]
    assert [x.points["A"] for x in c] == [1, 1, 1, 0]


def test_anchor_squares_are_zones_too():
    # astride the 71 cm line: different fields, the same anchor square
    s = Stream(_zone_layout((670.0, 60.0), (740.0, 100.0)))
    carom(s, "white")
    carom(s, "white")
    c = calls(s, "balkline_71_2", opening=False)
    assert codes(c[1]) == ["interdiction_zone"]
    assert "anchor_balk_head_left" in c[0].extra["zones"]
    s = Stream(_zone_layout((670.0, 60.0), (820.0, 100.0)))  # red beyond the anchor
    carom(s, "white")
    carom(s, "white")
    assert all(not codes(x) for x in calls(s, "balkline_71_2", opening=False))


def test_free_game_corner_zones_and_the_open_table():
    s = Stream(_zone_layout((100.0, 80.0), (150.0, 120.0)))  # head-left corner triangle
    carom(s, "white")
    carom(s, "white")
    c = calls(s, "free_game", opening=False)
    assert codes(c[1]) == ["interdiction_zone"] and c[1].fouls[0].article == "000 Libera 2"
    s = Stream(_zone_layout((1000.0, 500.0), (1100.0, 520.0)))  # open table: no limit
    for _ in range(4):
        carom(s, "white")
    assert [x.score["A"] for x in calls(s, "free_game", opening=False)] == [1, 2, 3, 4]
    s = Stream(_zone_layout((1000.0, 600.0), (1100.0, 650.0)))  # 47's centre box is free
    for _ in range(3):
        carom(s, "white")
    assert all(not codes(x) for x in calls(s, "balkline_47_1", opening=False))


def test_referee_cancel_of_a_zone_foul_gives_the_carom():
    s = Stream(_zone_layout((200.0, 200.0), (300.0, 300.0)))
    carom(s, "white").referee("cancel_foul", code="interdiction_zone")
    c = calls(s, "balkline_47_1", opening=False)[0]
    assert c.fouls == [] and c.points["A"] == 1


# ----------------------------------------------------------------------- contact


def test_balls_in_contact_free_game_go_back_to_the_starting_position():
    d = CAROM_BALL
    s = Stream(OPEN)
    carom(s, "white", white=(1000.0, 500.0), red=(1000.0 + d + 0.4, 500.0))
    c = calls(s, "free_game")[0]
    assert c.points["A"] == 1 and c.next_player == "A"
    got = {r.ball: r.pos for r in c.respots}
    assert got == {"red": SPOTS["foot"], "yellow": SPOTS["head"],
                   "white": SPOTS["start_right"]}  # 000 Bilie in contatto 1.a


def test_balls_a_millimetre_apart_are_not_in_contact():
    s = Stream(OPEN)
    carom(s, "white", white=(1000.0, 500.0), red=(1000.0 + CAROM_BALL + 1.0, 500.0))
    assert calls(s, "free_game")[0].respots == []


def test_balls_in_contact_three_cushion_only_those_with_the_occupied_spot_rule():
    d = CAROM_BALL
    s = Stream(OPEN)
    three(s, "white", white=(1000.0, 500.0), red=(1000.0 + d, 500.0), yellow=(2000.0, 300.0))
    c = calls(s, "three_cushion")[0]
    got = {r.ball: r.spot for r in c.respots}
    assert got == {"white": "head", "red": "foot"}  # yellow stays: 000 Bilie in contatto 1.b
    # the yellow sits on white's spot: white goes to the yellow's spot (centre)
    s = Stream(OPEN)
    three(s, "white", white=(1000.0, 500.0), red=(1000.0 + d, 500.0), yellow=SPOTS["head"])
    got = {r.ball: r.spot for r in calls(s, "three_cushion")[0].respots}
    assert got == {"white": "centre", "red": "foot"}
    # a ball 20 mm off the spot still hides it
    s = Stream(OPEN)
    three(s, "white", white=(1000.0, 500.0), red=(1000.0 + d, 500.0),
          yellow=(SPOTS["foot"][0] + 20.0, SPOTS["foot"][1]))
    got = {r.ball: r.spot for r in calls(s, "three_cushion")[0].respots}
    assert got == {"white": "head", "red": "centre"}


# ----------------------------------------------------------------------- the lag


LAG_LAYOUT = {"white": (710.0, 200.0), "yellow": (710.0, 1220.0), "red": SPOTS["foot"]}


def lag_round(s: Stream, white_end: float, yellow_end: float, late: bool = False,
              **extra_events) -> Stream:
    s.shot("white")
    if late:
        s.cushion("white", "foot")
    s.shot("yellow")
    if not late:
        s.cushion("white", "foot")
    s.cushion("yellow", "foot")
    for name, args in extra_events.items():
        getattr(s, name)(*args)
    return s.end(white=(white_end, 200.0), yellow=(yellow_end, 1220.0))


def test_lag_closer_to_the_lower_cushion_wins_and_opens():
    s = Stream(LAG_LAYOUT)
    lag_round(s, 150.0, 300.0)
    s.layout.update(OPEN)
    carom(s, "white")
    c = calls(s, "free_game", lag=True)
    assert c[1].extra["lag"]["winner"] == "A" and c[1].next_player == "A"
    assert c[1].points == {"A": 0, "B": 0} and c[1].match["phase"] == "play"
    assert c[2].player == "A" and c[2].points["A"] == 1 and c[2].extra["opening"]
    s = Stream(LAG_LAYOUT)
    lag_round(s, 400.0, 300.0)
    assert calls(s, "free_game", lag=True)[1].extra["lag"]["winner"] == "B"


def test_lag_ball_that_touches_the_red_loses_the_lag():
    s = Stream(LAG_LAYOUT)
    lag_round(s, 400.0, 100.0, hit=("yellow", "red"))  # yellow closer but hit the red
    lag = calls(s, "free_game", lag=True)[1].extra["lag"]
    assert lag["status"] == "won" and lag["winner"] == "A"


@pytest.mark.parametrize("event", [("hit", ("white", "yellow")),
                                   ("cushion", ("white", "left"))])
def test_lag_repeated_when_the_balls_touch_or_a_long_cushion_is_hit(event):
    s = Stream(LAG_LAYOUT)
    lag_round(s, 150.0, 300.0, **{event[0]: event[1]})
    c = calls(s, "free_game", lag=True)
    assert c[1].extra["lag"]["status"] == "repeat" and c[1].match["phase"] == "lag"


def test_lag_equal_distance_is_repeated():
    s = Stream(LAG_LAYOUT)
    lag_round(s, 200.0, 200.0)
    assert calls(s, "free_game", lag=True)[1].extra["lag"]["status"] == "repeat"


def test_lag_struck_late_is_an_error_repeated_once_then_lost():
    s = Stream(LAG_LAYOUT)
    lag_round(s, 300.0, 100.0, late=True)  # B struck after white reached the cushion
    lag_round(s, 300.0, 100.0, late=True)  # B again: second error loses the lag
    c = calls(s, "free_game", lag=True)
    assert c[1].extra["lag"]["status"] == "repeat"
    assert c[3].extra["lag"] == {**c[3].extra["lag"], "status": "won", "winner": "A"}


def test_lag_declared_by_the_referee():
    s = Stream(OPEN)
    s.referee("lag", winner="B", first="A")
    carom(s, "white")
    c = calls(s, "three_cushion", lag=False)[0]
    assert c.player == "A" and c.extra["balls"]["A"] == "white"


# ----------------------------------------------------------------------- match


def test_match_over_at_the_distance_with_the_equalising_inning():
    s = Stream(OPEN)
    three(s, "white")
    three(s, "white")  # A reaches 2 in his first inning
    s.layout.update(yellow=SPOTS["start_right"], white=SPOTS["head"], red=SPOTS["foot"])
    three(s, "yellow")  # B's equalising inning, from the opening position
    miss(s, "yellow")
    c = calls(s, "three_cushion", distance=2)
    assert c[1].match["over"] is False and c[1].next_player == "B"
    assert c[1].match["phase"] == "equalising"  # 000 Conclusione 1.b
    assert {r.ball: r.spot for r in c[1].respots} == {
        "yellow": "start_right", "white": "head", "red": "foot"}
    assert c[2].extra["opening"] is True
    assert c[3].match["over"] and c[3].match["winner"] == "A"
    assert c[3].innings == {"A": 1, "B": 1} and c[3].score == {"A": 2, "B": 1}


def test_equalising_inning_reaching_the_distance_is_a_draw_or_a_tie_break():
    s = Stream(OPEN)
    three(s, "white")
    three(s, "yellow")  # B equalises
    c = calls(s, "three_cushion", distance=1)
    assert c[1].match["over"] and c[1].match["winner"] is None and c[1].match["draw"]
    s.shot("white")  # tie-break: white first
    s.cushion("white", "right").cushion("white", "foot").cushion("white", "left")
    s.hit("white", "red").hit("white", "yellow").end()
    miss(s, "white")
    miss(s, "yellow")
    c = calls(s, "three_cushion", distance=1, tie_break=True)
    assert c[1].match["phase"] == "tiebreak" and c[1].next_player == "A"
    assert c[3].next_player == "B" and c[3].match["tie_break"] == {"A": 1, "B": 0}
    assert c[4].match["over"] and c[4].match["winner"] == "A"
    assert c[4].score == {"A": 1, "B": 1}  # tie-break caroms are not match points


def test_second_player_reaching_the_distance_wins_at_once():
    s = Stream(OPEN)
    miss(s, "white")
    three(s, "yellow")
    c = calls(s, "three_cushion", distance=1)
    assert c[1].match["over"] and c[1].match["winner"] == "B"
    assert c[1].innings == {"A": 1, "B": 1}


def test_innings_limit_with_equalising_inning():
    s = Stream(OPEN)
    carom(s, "white")
    miss(s, "white")
    miss(s, "yellow")
    miss(s, "white")  # A's second inning: the limit
    miss(s, "yellow")  # B's equalising inning
    c = calls(s, "free_game", innings_limit=2)
    assert c[3].match["phase"] == "equalising" and not c[3].match["over"]
    assert c[4].match["over"] and c[4].match["winner"] == "A"
    assert c[4].innings == {"A": 2, "B": 2}


def test_sets_best_of_three_alternate_openers_and_the_first_inning_equaliser():
    s = Stream(OPEN)
    three(s, "white")  # set 1: A closes it in his first inning
    miss(s, "yellow")  # B's equalising inning fails: A wins set 1
    miss(s, "yellow")  # set 2 opened by B [000 Partita 6]
    three(s, "white")  # A wins set 2 and the match
    c = calls(s, "three_cushion", distance=1, sets=3)
    assert c[0].match["phase"] == "equalising"  # 000 Conclusione 2.d
    assert c[1].match["sets"] == {"A": 1, "B": 0} and c[1].next_player == "B"
    assert {r.ball: r.spot for r in c[1].respots}["yellow"] == "start_right"
    assert c[1].score == {"A": 1, "B": 0}  # the set's final score
    assert c[2].player == "B" and c[2].score == {"A": 0, "B": 0}
    assert c[3].match["over"] and c[3].match["winner"] == "A"
    assert c[3].match["sets"] == {"A": 2, "B": 0}


def test_set_tied_by_the_first_inning_equaliser_goes_to_a_tie_break():
    s = Stream(OPEN)
    three(s, "white")
    three(s, "yellow")
    c = calls(s, "three_cushion", distance=1, sets=3)
    assert c[1].match["phase"] == "tiebreak" and c[1].next_player == "A"


def test_even_number_of_sets_is_refused():
    s = Stream(OPEN)
    miss(s, "white")
    with pytest.raises(AdjudicationError, match="odd"):
        calls(s, "three_cushion", sets=2)


def test_average_and_high_run():
    s = Stream(OPEN)
    carom(s, "white")
    carom(s, "white")
    miss(s, "white")  # run 2
    miss(s, "yellow")
    carom(s, "white")
    miss(s, "white")  # run 1
    c = calls(s, "free_game")[-1]
    assert c.extra["high_run"] == {"A": 2, "B": 0}
    assert math.isclose(c.extra["average"]["A"], 3 / 2)  # points / innings
    assert c.innings == {"A": 2, "B": 1}


def test_shot_after_the_match_is_over_counts_nothing():
    s = Stream(OPEN)
    miss(s, "white")
    three(s, "yellow")
    three(s, "yellow")
    c = calls(s, "three_cushion", distance=1)
    assert c[2].points == {"A": 0, "B": 0} and c[2].score == {"A": 0, "B": 1}


def test_judge_does_not_change_the_state_it_gets():
    game = get_game("three_cushion")
    state = game.new_state({})
    s = Stream(OPEN)
    three(s, "white")
    from adjudicate.engine import Shot
    shot = Shot(1, s.events)
    before = repr(state)
    new, _ = game.judge(state, shot)
    assert repr(state) == before and new.score["A"] == 1


# ----------------------------------------------------------------------- command line


def test_cueref_adjudicate_with_match_file(tmp_path, capsys):
    s = Stream(OPEN)
    three(s, "white")
    three(s, "white")
    miss(s, "yellow")
    ev, match, out = tmp_path / "e.jsonl", tmp_path / "m.json", tmp_path / "c.jsonl"
    write_events(ev, s.events)
    match.write_text(json.dumps({"players": ["Ann", "Bob"], "distance": 2}))
    assert main(["adjudicate", str(ev), "--game", "three_cushion", "--match", str(match),
                 "-o", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["type"] for r in rows] == ["call"] * 3
    assert rows[-1]["match"]["winner"] == "Ann" and rows[-1]["score"] == {"Ann": 2, "Bob": 0}
    match.write_text(json.dumps({"sets": 4}))
    assert main(["adjudicate", str(ev), "--game", "three_cushion", "--match",
                 str(match)]) == 2
    assert "odd" in capsys.readouterr().err


# ----------------------------------------------------------------------- more edges


def test_tie_break_second_player_stops_once_ahead_and_a_tie_repeats():
    s = Stream(OPEN)
    three(s, "white")
    three(s, "yellow")  # draw at distance 1 -> tie-break
    miss(s, "white")  # A: 0
    three(s, "yellow")  # B: 1, ahead: the tie-break is decided
    c = calls(s, "three_cushion", distance=1, tie_break=True)
    assert c[3].match["over"] and c[3].match["winner"] == "B"
    s = Stream(OPEN)
    three(s, "white")
    three(s, "yellow")
    miss(s, "white")
    miss(s, "yellow")  # 0-0: repeated in the same order, white first
    c = calls(s, "three_cushion", distance=1, tie_break=True)
    assert c[3].match["phase"] == "tiebreak" and c[3].next_player == "A"
    assert {r.ball: r.spot for r in c[3].respots}["white"] == "start_right"


def test_shot_end_of_the_previous_shot_arriving_late_is_not_taken_as_this_shots():
    s = Stream(OPEN)
    s.shot("white").hit("white", "red").hit("white", "yellow")
    s.shot("white")
    s.layout["red"] = (2000.0, 600.0)
    s._add("shot_end", (), extra={"layout": s._snapshot()})  # shot 1 stops in shot 2
    s.hit("white", "red").end(white=(1234.0, 567.0))
    miss(s, "yellow")
    c = calls(s, "free_game")
    assert codes(c[1]) == ["shot_while_moving"]
    assert c[2].player == "B" and codes(c[2]) == []


def test_sets_innings_limit_ends_the_set_after_its_openers_last_inning():
    s = Stream(OPEN)
    three(s, "white")
    miss(s, "white")  # A: 1 point, inning 1 of 1
    c = calls(s, "three_cushion", distance=5, sets=3, innings_limit=1)
    assert c[1].match["sets"] == {"A": 1, "B": 0} and c[1].match["set"] == 2
    assert c[1].next_player == "B"  # 000 Conclusione 2.c: no equalising inning


def test_one_cushion_and_balkline_respot_the_whole_starting_position():
    d = CAROM_BALL
    s = Stream(OPEN)
    carom(s, "white", cushions=("left",), white=(1000.0, 500.0), yellow=(1000.0, 500.0 + d))
    c = calls(s, "one_cushion")[0]
    assert {r.ball: r.spot for r in c.respots} == {
        "white": "start_right", "yellow": "head", "red": "foot"}
    s = Stream(_zone_layout((1000.0, 600.0), (1100.0, 650.0)))
    s.shot("white").hit("white", "red").off_table("white").end()
    c = calls(s, "balkline_47_2", opening=False)[0]
    assert codes(c) == ["ball_off_table"]
    assert {r.ball: r.spot for r in c.respots} == {
        "yellow": "start_right", "white": "head", "red": "foot"}


def test_wrong_ball_found_later_by_the_referee_takes_only_that_shots_point():
    s = Stream(OPEN)
    carom(s, "white")
    carom(s, "white").referee("foul", code="wrong_ball")
    c = calls(s, "free_game")
    assert c[1].points["A"] == 0 and c[1].score["A"] == 1 and c[1].next_player == "B"
    assert c[1].fouls[0].source == "referee"


def test_lag_result_entered_by_the_referee_during_the_lag():
    s = Stream(LAG_LAYOUT)
    s.shot("white").referee("lag", winner="B")
    s.end()
    c = calls(s, "free_game", lag=True)
    assert c[0].extra["lag"]["winner"] == "B" and c[0].next_player == "B"
    assert c[0].match["phase"] == "play"


def test_zone_fouls_cite_their_games_article():
    for game, art in (("balkline_71_2", "000 Quadro 71/2 1"), ("balkline_47_1",
                                                              "000 Quadro 47/1 1")):
        s = Stream(_zone_layout((200.0, 200.0), (300.0, 300.0)))
        carom(s, "white")
        carom(s, "white")
        fouls = [f for x in calls(s, game, opening=False) for f in x.fouls]
        assert fouls and fouls[0].article == art
    assert "interdiction_zone" not in get_game("three_cushion").fouls


# ----------------------------------------------------------------------- physics
# Event streams from the simulator's physics (simworld.physics): the situation is
# first read off the events, then the call is checked against the article.


def _simulate(game: str, layout: dict, actions: list) -> list:
    try:
        from simworld.physics import simulate
    except Exception as exc:  # the simulator is optional for these tests
        pytest.skip(f"simulator not available: {exc}")
    return list(simulate(game, layout, actions).events)


def _situation(events: list, ball: str = "white") -> tuple[list[str], int | None]:
    """The object balls ``ball`` met (in order) and its cushion contacts before the
    second one, read straight off shot 1's events."""
    met: list[str] = []
    cushions, before_second = 0, None
    for e in events:
        if e.shot != 1 or e.type == "shot_end":
            continue
        if e.type == "ball_cushion" and e.ids[0] == ball:
            cushions += 1
        if e.type == "ball_ball" and ball in e.ids:
            other = e.ids[0] if e.ids[1] == ball else e.ids[1]
            if other not in met:
                met.append(other)
                if len(met) == 2:
                    before_second = cushions
    return met, before_second


def _judge(events: list, game: str, **settings) -> list[ShotCall]:
    return [c for c in adjudicate_stream(events, get_game(game), settings)
            if isinstance(c, ShotCall)]


def _stroke(angle: float, side: float, speed: float, **more) -> dict:
    return {"type": "stroke", "ball": "white", "angle": angle, "side": side,
            "speed": speed, **more}


def test_physics_three_cushion_point_from_the_opening():
    events = _simulate("three_cushion", OPEN, [_stroke(24.0, -0.5, 6000)])
    met, before = _situation(events)
    if met != ["red", "yellow"] or before is None or before < 3:
        pytest.skip("the simulator no longer plays this three-cushion point")
    c = _judge(events, "three_cushion")[0]
    assert c.points["A"] == 1 and c.fouls == [] and c.next_player == "A"
    assert c.extra["cushions"] == before  # 000 Tre sponde 1


def test_physics_two_cushion_carom_counts_in_one_cushion_and_free_game_only():
    events = _simulate("three_cushion", OPEN, [_stroke(-32.0, -0.4, 5000)])
    met, before = _situation(events)
    if met != ["red", "yellow"] or before != 2:
        pytest.skip("the simulator no longer plays this two-cushion carom")
    assert _judge(events, "three_cushion")[0].points["A"] == 0  # 000 Tre sponde 1
    assert _judge(events, "one_cushion")[0].points["A"] == 1  # 000 Una sponda 1
    assert _judge(events, "free_game")[0].points["A"] == 1  # 000 Carambola 1


def test_physics_opening_shot_into_the_opponents_ball_first():
    events = _simulate("three_cushion", OPEN, [_stroke(-13.5, 0.5, 6000)])
    met, before = _situation(events)
    if met != ["yellow", "red"] or before is None or before < 3:
        pytest.skip("the simulator no longer plays this shot")
    c = _judge(events, "three_cushion")[0]
    assert codes(c) == ["opening_not_red"] and c.points["A"] == 0  # 000 Tiro d'inizio 2
    # the same shot from the same place later in the game is a fair point
    later = _judge(events, "three_cushion", opening=False)[0]
    assert later.points["A"] == 1 and later.fouls == []


def test_physics_ball_off_the_table_and_its_respot():
    events = _simulate("three_cushion", OPEN, [_stroke(24.0, -0.5, 6000, jump=1)])
    offs = [e.ids[0] for e in events if e.type == "off_table"]
    if offs != ["white"]:
        pytest.skip("the simulator no longer sends the white off the table")
    c = _judge(events, "three_cushion")[0]
    assert codes(c) == ["ball_off_table"] and c.points["A"] == 0 and c.next_player == "B"
    after = [e for e in events if e.type == "shot_end"][-1].extra["layout"]
    assert "white" not in after
    # three-cushion: only the ball that left, on its own spot (the opponent's: centre)
    # unless that spot is taken [000 Bilie fuori 1.b]
    [r] = c.respots
    taken = any(math.dist(p, SPOTS["centre"]) <= CAROM_BALL + 0.5 for p in after.values())
    assert r.ball == "white" and (r.spot != "centre" if taken else r.spot == "centre")


def test_physics_ball_touched_while_the_others_roll():
    layout = {"white": (700.0, 400.0), "yellow": (2400.0, 1200.0), "red": (1500.0, 700.0)}
    events = _simulate("free_game", layout, [
        _stroke(0.0, 0.0, 3000),
        {"type": "touch", "ball": "yellow", "displacement": [0, -40], "during": 0.3}])
    kinds = [e.type for e in events if e.shot == 1]
    if "ball_disturbed" not in kinds or kinds.index("ball_disturbed") > kinds.index("shot_end"):
        pytest.skip("the touch no longer lands while the balls roll")
    c = _judge(events, "free_game", opening=False)[0]
    assert "touched_ball" in codes(c) and c.points["A"] == 0  # 000 Falli 2
    assert all(r.ball != "yellow" for r in c.respots)  # the touched ball stays


def test_a_touch_the_referee_does_not_charge_is_undone():
    s = Stream(OPEN)
    carom(s, "white", white=(1500.0, 300.0)).disturbed("red")
    s.layout["red"] = (2000.0, 650.0)  # moved by a third person after the shot
    s.referee("cancel_foul", code="touched_ball")
    c = calls(s, "free_game")[0]
    assert c.fouls == [] and c.next_player == "A"  # 000 Falli 3
    assert [(r.ball, r.spot, r.pos) for r in c.respots] == [("red", "restored",
                                                              SPOTS["foot"])]


# ----------------------------------------------------------------------- simulator scenarios
# The simulator's named scenarios, judged through `cueref adjudicate`; each call is
# checked against what the scenario's events show (skipped when the simulator or the
# scenario is missing).

CAROM_GAMES = ("free_game", "balkline_47_2", "balkline_47_1", "balkline_71_2",
               "one_cushion", "three_cushion")
NEEDED_CUSHIONS = {"one_cushion": 1, "three_cushion": 3}


def _scenario_calls(name: str, tmp_path) -> tuple[str, list, list[dict]]:
    sim = simulated(name)
    game = sim.trajectory.discipline
    if game not in CAROM_GAMES:
        pytest.skip(f"scenario {name!r} is not a carom game ({game})")
    return game, list(sim.events), cli_calls(sim.events, game, tmp_path)


def _shot_situation(events: list, number: int) -> dict:
    """What shot ``number``'s own events show, read independently of the rules code."""
    mine = [e for e in events if e.shot == number]
    start = next(e for e in mine if e.type == "shot_start")
    ball = start.ids[0]
    ends = [i for i, e in enumerate(mine) if e.type == "shot_end"]
    moving = mine[:ends[-1]] if ends else mine
    met, before_second, cushions = [], None, 0
    for e in moving:
        if e.type == "ball_cushion" and e.ids[0] == ball:
            cushions += 1
        elif e.type == "ball_ball" and ball in e.ids:
            other = e.ids[1] if e.ids[0] == ball else e.ids[0]
            if other not in met:
                met.append(other)
                if len(met) == 2:
                    before_second = cushions
    return {"ball": ball, "met": met, "before_second": before_second,
            "off": any(e.type == "off_table" for e in mine),
            "touched": any(e.type == "ball_disturbed" for e in moving)}


def _check_calls_against_events(game: str, events: list, rows: list[dict]) -> None:
    numbers = sorted({e.shot for e in events if e.type == "shot_start"})
    assert [r["shot"] for r in rows] == numbers  # one call per shot
    for r in rows:
        s = _shot_situation(events, r["shot"])
        carom = len(s["met"]) == 2 and s["before_second"] >= NEEDED_CUSHIONS.get(game, 0)
        fouls = {f["code"] for f in r["fouls"]}
        if not carom:
            assert r["points"][r["player"]] == 0, r  # 000 Carambola 1, Tre/Una sponda 1
        if s["off"]:
            assert "ball_off_table" in fouls and r["points"][r["player"]] == 0
        if s["touched"]:
            assert "touched_ball" in fouls and r["points"][r["player"]] == 0
        if carom and not fouls:
            assert r["points"][r["player"]] == 1 and r["next_player"] == r["player"]


def test_simulated_three_cushion_point(tmp_path):
    game, events, rows = _scenario_calls("three_cushion_point", tmp_path)
    _check_calls_against_events(game, events, rows)
    s = _shot_situation(events, rows[0]["shot"])
    assert len(s["met"]) == 2 and s["before_second"] >= 3, "the scenario is a point"
    assert rows[0]["points"][rows[0]["player"]] == 1 and rows[0]["fouls"] == []


def test_every_simulated_carom_scenario_is_judged_as_its_events_show(tmp_path):
    scenarios = pytest.importorskip("simworld.scenarios").SCENARIOS
    names = [n for n, sc in scenarios.items()
             if getattr(sc, "discipline", None) in CAROM_GAMES]
    if not names:
        pytest.skip("no carom scenario in simworld.scenarios")
    for name in names:
        game, events, rows = _scenario_calls(name, tmp_path)
        _check_calls_against_events(game, events, rows)


def test_simulated_three_cushion_near_miss(tmp_path):
    game, events, rows = _scenario_calls("three_cushion_near_miss", tmp_path)
    _check_calls_against_events(game, events, rows)
    s = _shot_situation(events, rows[0]["shot"])
    assert len(s["met"]) == 2 and s["before_second"] < 3, "the scenario is a near miss"
    assert rows[0]["points"]["A"] == 0 and rows[0]["next_player"] == "B"
    assert rows[0]["fouls"] == []  # a miss passes the hand, it is no foul


def test_simulated_missed_carom(tmp_path):
    game, events, rows = _scenario_calls("missed_carom", tmp_path)
    _check_calls_against_events(game, events, rows)
    assert len(_shot_situation(events, rows[0]["shot"])["met"]) < 2
    assert rows[0]["points"]["A"] == 0 and rows[0]["next_player"] == "B"


def test_simulated_ball_off_the_table(tmp_path):
    game, events, rows = _scenario_calls("carom_off_table", tmp_path)
    _check_calls_against_events(game, events, rows)
    offs = {e.ids[0] for e in events if e.type == "off_table"}
    assert offs, "a ball leaves the table"
    c = rows[0]
    assert "ball_off_table" in {f["code"] for f in c["fouls"]} and c["next_player"] == "B"
    placed = {r["ball"] for r in c["respots"]}
    if game == "three_cushion":  # 000 Bilie fuori 1.b: only the balls that left
        assert placed == offs
    else:  # 1.a: the whole starting position
        assert placed == {"white", "yellow", "red"}


def test_simulated_balls_touching(tmp_path):
    game, events, rows = _scenario_calls("carom_balls_touching", tmp_path)
    _check_calls_against_events(game, events, rows)
    layout = [e for e in events if e.type == "shot_end"][-1].extra["layout"]
    pairs = [(a, b) for a in layout for b in layout
             if a < b and math.dist(layout[a], layout[b]) <= CAROM_BALL + 0.5]
    assert pairs, "two balls stop in contact"
    placed = {r["ball"]: r["spot"] for r in rows[-1]["respots"]}
    if game == "three_cushion":  # 000 Bilie in contatto 1.b
        assert set(placed) == {x for p in pairs for x in p}
    else:  # 1.a: the starting position, the incoming player's ball on a starting spot
        mine = rows[-1]["balls"][rows[-1]["next_player"]]
        assert placed["red"] == "foot" and placed[mine].startswith("start_")
        assert placed[({"white", "yellow"} - {mine}).pop()] == "head"


def test_simulated_touched_ball(tmp_path):
    game, events, rows = _scenario_calls("touched_ball", tmp_path)
    _check_calls_against_events(game, events, rows)
    touched = [e.ids[0] for e in events if e.type == "ball_disturbed"]
    assert touched, "a ball is touched"
    c = rows[0]
    assert "touched_ball" in {f["code"] for f in c["fouls"]} and c["points"]["A"] == 0
    assert touched[0] not in {r["ball"] for r in c["respots"]}  # it stays where it is


@pytest.mark.parametrize("game", CAROM_GAMES)
def test_simulated_opening_shot(game, tmp_path):
    _, events, rows = _scenario_calls(f"opening_{game}", tmp_path)
    _check_calls_against_events(game, events, rows)
    s = _shot_situation(events, rows[0]["shot"])
    fouls = {f["code"] for f in rows[0]["fouls"]}
    if s["met"] and s["met"][0] != "red":  # 000 Tiro d'inizio 2
        assert "opening_not_red" in fouls and rows[0]["points"]["A"] == 0
    else:
        assert "opening_not_red" not in fouls


def test_a_ball_moved_before_the_first_shot_is_no_foul():
    s = Stream(OPEN)
    s.disturbed("red")  # before any shot: the referee is still placing the balls
    three(s, "white")
    c = calls(s, "three_cushion")[0]
    assert c.fouls == [] and c.points["A"] == 1
    assert any("before the first shot" in r for r in c.reasons)
