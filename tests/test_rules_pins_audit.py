"""Audit of the GABS pins games (seed 002) article by article: combinations of fouls
and points, the order of contacts, edge positions, referee entries and match ends.

Expected points are the articles' own arithmetic (values cited next to each sum),
never copied from a run of the code.
"""

from __future__ import annotations

from streams import Stream

from adjudicate import ShotCall, adjudicate_stream, get_game
from equipment import get_discipline

# Goriziana [002 Art.29.1, 30.1]; Tutti doppi [002 Art.31.2-31.6]; 5 pins (seeds README)
G_OUTER, G_INNER, G_CENTRE, G_CENTRE_ALONE, G_PALLINO = 2, 8, 10, 30, 6
T_INNER, T_PALLINO, T_FOUL = 16, 12, 4
F_WHITE, F_PALLINO_TARGET, F_PALLINO_OWN = 2, 3, 4
FOUL = 2  # the basic penalty of Art.24.3
R_BALL = get_discipline("goriziana").ball("white").radius
R_PALLINO = get_discipline("goriziana").ball("red").radius
PALLINO_AT = (700.0, 1200.0)


def opening(**moved: tuple[float, float]) -> Stream:
    layout = {"white": (500.0, 300.0), "yellow": (2200.0, 1000.0), "red": PALLINO_AT}
    layout.update(moved)
    return Stream(layout)


def judge(s: Stream, game: str, **settings) -> list[ShotCall]:
    return [c for c in adjudicate_stream(s.events, get_game(game), settings)
            if isinstance(c, ShotCall)]


def codes(call: ShotCall) -> list[str]:
    return sorted(f.code for f in call.fouls)


# ------------------------------------------------------------ Art.24.1: fouls add up

def test_miss_and_ball_off_the_table_add_up_once_each():
    # 24.3.a (2) + 24.3.h (2, however many balls leave) [24.1: penalties are added]
    s = opening().shot("white").cushion("white", "left").off_table("white")
    s.off_table("red").end()
    [c] = judge(s, "goriziana")
    assert codes(c) == ["24.3.a", "24.3.h"] and c.points == {"A": 0, "B": FOUL + FOUL}
    assert c.ball_in_hand and c.next_player == "B"


def test_touch_and_ball_off_with_pins_in_tutti_doppi():
    # 24.3.q + 24.3.h at Tutti doppi's 4 each, plus the pins made, all to the opponent
    s = opening().shot("white").hit("white", "yellow").pin_down("pin_head", "yellow")
    s.disturbed("red").off_table("yellow").end()
    [c] = judge(s, "tutti_doppi")
    assert codes(c) == ["24.3.h", "24.3.q"]
    assert c.points == {"A": 0, "B": T_INNER + T_FOUL + T_FOUL} and c.ball_in_hand


def test_pallino_first_then_pins_by_the_target_go_to_the_opponent():
    # 24.3.c: 4 (2 + 2) + the pins made in the shot [24.3 heading]
    s = opening().shot("white").hit("white", "red").hit("white", "yellow")
    s.pin_down("pin_left", "yellow").end()
    [c] = judge(s, "goriziana")
    assert codes(c) == ["24.3.c"] and c.points == {"A": 0, "B": 2 + 2 + G_INNER}


def test_pallino_first_then_own_ball_knocks_pins_before_the_target_is_one_foul_c():
    # Assumption (docs): c's 4 points already hold "not hit first"; the pins' value is
    # added, not a second 2-point d.
    s = opening().shot("white").hit("white", "red").pin("white", "pin_left")
    s.pin_down("pin_left", "white").hit("white", "yellow").end()
    [c] = judge(s, "goriziana")
    assert codes(c) == ["24.3.c"] and c.points["B"] == 2 + 2 + G_INNER


def test_pins_first_then_the_target_hits_the_pallino():
    # 24.3.d: 2 + pins, and 2 more when either ball hits the pallino; no pallino value
    s = opening().shot("white").pin("white", "pin_left").pin_down("pin_left", "white")
    s.hit("white", "yellow").hit("yellow", "red").end()
    [c] = judge(s, "goriziana")
    assert codes(c) == ["24.3.d", "24.3.d_pallino"]
    assert c.points == {"A": 0, "B": 2 + G_INNER + 2} and c.extra["pallino_points"] == 0


def test_own_ball_knocks_pins_after_a_fair_indirect_hit():
    # 24.2: only the points made (doubled: 28.2) to the opponent, no penalty, no ball
    # in hand
    s = opening().shot("white").cushion("white", "left").hit("white", "yellow")
    s.pin_down("pin_left", "yellow").pin_down("pin_right", "white").end()
    [c] = judge(s, "goriziana")
    assert codes(c) == ["24.2"] and c.points == {"A": 0, "B": 2 * (G_INNER + G_INNER)}
    assert not c.ball_in_hand and c.next_player == "B"


def test_own_ball_knocks_pins_after_the_hit_and_leaves_the_table():
    # 24.2 (points only) + 24.3.h (2 and ball in hand)
    s = opening().shot("white").hit("white", "yellow").pin_down("pin_right", "white")
    s.off_table("white").end()
    [c] = judge(s, "goriziana")
    assert codes(c) == ["24.2", "24.3.h"] and c.points["B"] == G_INNER + FOUL
    assert c.ball_in_hand


def test_wrong_ball_with_pins_and_pallino():
    # 24.3.b: 2 + all points made (pins, pallino) + ball in hand
    s = opening().shot("yellow").hit("yellow", "white").pin_down("pin_left", "white")
    s.hit("white", "red").end()
    [c] = judge(s, "goriziana")
    assert codes(c) == ["24.3.b"] and c.points["B"] == FOUL + G_INNER + G_PALLINO
    assert c.ball_in_hand


# ------------------------------------------------------------ order and positions

def test_five_pins_pallino_by_the_target_first_is_worth_3():
    s = opening().shot("white").hit("white", "yellow").hit("yellow", "red")
    s.hit("white", "red").end()
    [c] = judge(s, "five_pins")
    assert c.points["A"] == F_PALLINO_TARGET


def test_five_pins_pallino_by_the_players_ball_after_the_hit_is_worth_4():
    s = opening().shot("white").hit("white", "yellow").hit("white", "red").end()
    [c] = judge(s, "five_pins")
    assert c.points["A"] == F_PALLINO_OWN


def test_cushion_before_the_pallino_first_is_no_indirect_shot():
    # 30.5: pallino first -> foul; later pins count simple, to the opponent
    s = opening().shot("white").cushion("white", "left").hit("white", "red")
    s.hit("white", "yellow").cushion("yellow", "foot").pin_down("pin_left", "yellow").end()
    [c] = judge(s, "goriziana")
    assert not c.extra["indirect"] and c.points["B"] == 2 + 2 + G_INNER


def test_ball_ending_exactly_against_the_pallino_scores_and_a_gap_does_not():
    # 30.2: "combaci con il pallino" (within the 2 mm tracking tolerance, docs)
    against = (PALLINO_AT[0] + R_BALL + R_PALLINO, PALLINO_AT[1])
    s = opening().shot("white").hit("white", "yellow").end(yellow=against)
    assert judge(s, "goriziana")[0].points["A"] == G_PALLINO
    apart = (PALLINO_AT[0] + R_BALL + R_PALLINO + 5.0, PALLINO_AT[1])
    s = opening().shot("white").hit("white", "yellow").end(yellow=apart)
    assert judge(s, "goriziana")[0].points["A"] == 0


def test_indirect_shot_ending_against_the_pallino_doubles_it():
    against = (PALLINO_AT[0] + R_BALL + R_PALLINO, PALLINO_AT[1])
    s = opening().shot("white").cushion("white", "left").hit("white", "yellow")
    s.end(yellow=against)
    [c] = judge(s, "goriziana")
    assert c.extra["indirect"] and c.points["A"] == 2 * G_PALLINO  # [30.1, 30.2]


def test_pallino_hit_and_ending_against_it_scores_once():
    against = (PALLINO_AT[0] + R_BALL + R_PALLINO, PALLINO_AT[1])
    s = opening().shot("white").hit("white", "yellow").hit("yellow", "red")
    s.end(yellow=against)
    assert judge(s, "goriziana")[0].points["A"] == G_PALLINO


def test_pins_knocked_by_the_pallino_count_for_the_shot():
    s = opening().shot("white").hit("white", "yellow").hit("yellow", "red")
    s.pin_down("pin_centre", "red").end()
    [c] = judge(s, "goriziana")
    assert c.points["A"] == G_PALLINO + G_CENTRE_ALONE and c.fouls == []


# ------------------------------------------------------------ before the shot (26)

def test_touch_before_the_shot_gives_the_shots_points_to_the_opponent():
    # 26.3-26.4: 2 + the points made in the shot played anyway + ball in hand
    s = opening().shot("white").hit("white", "yellow").end(yellow=(2000.0, 900.0))
    s.disturbed("red")
    s.shot("yellow").hit("yellow", "white").pin_down("pin_left", "white").end()
    c = judge(s, "goriziana")
    assert codes(c[1]) == ["26.4"] and c[1].points == {"A": FOUL + G_INNER, "B": 0}
    assert c[1].ball_in_hand and c[1].next_player == "A"


def test_touch_before_the_shot_knocking_a_pin_adds_its_value():
    s = opening().shot("white").hit("white", "yellow").end(yellow=(2000.0, 900.0))
    s.disturbed("yellow").pin_down("pin_left", "yellow")
    s.shot("yellow").hit("yellow", "white").end()
    c = judge(s, "goriziana")
    assert codes(c[1]) == ["26.4"] and c[1].points["A"] == FOUL + G_INNER


# ------------------------------------------------------------ referee entries

def test_both_players_on_the_wrong_ball_ruled_valid_is_judged_as_a_normal_shot():
    # 27.2: the shots are valid, no foul: an indirect shot still doubles (28.2)
    s = opening().shot("yellow").cushion("yellow", "left").hit("yellow", "white")
    s.pin_down("pin_left", "white").hit("white", "red").end()
    s.referee("cancel_foul", shot=1, code="24.3.b")
    [c] = judge(s, "goriziana")
    assert c.fouls == [] and c.extra["indirect"]
    assert c.points == {"A": 2 * (G_INNER + G_PALLINO), "B": 0}


def test_wrong_ball_ruled_valid_still_judges_the_pallino_first():
    # 27.2 makes the shot valid as a shot; 24.3.c still applies to the ball struck
    s = opening().shot("yellow").hit("yellow", "red").hit("yellow", "white").end()
    s.referee("cancel_foul", shot=1, code="24.3.b")
    [c] = judge(s, "goriziana")
    assert codes(c) == ["24.3.c"] and c.points == {"A": 0, "B": 2 + 2}


def test_referee_foul_on_a_fair_scoring_shot_gives_everything_to_the_opponent():
    s = opening().shot("white").hit("white", "yellow").pin_down("pin_left", "yellow").end()
    s.referee("foul", shot=1, code="24.3.n")
    [c] = judge(s, "goriziana")
    assert c.points == {"A": 0, "B": G_INNER + FOUL} and c.ball_in_hand


def test_third_party_cancels_the_touch_but_not_the_ball_off_the_table():
    s = opening().shot("white").hit("white", "yellow").disturbed("red")
    s.off_table("yellow").end().referee("third_party", shot=1)
    [c] = judge(s, "goriziana")
    assert codes(c) == ["24.3.h"] and c.points["B"] == FOUL


def test_referee_24_3_s_gives_all_points_of_the_play_without_ball_in_hand():
    s = opening().shot("white").hit("white", "yellow").pin_down("pin_left", "yellow").end()
    s.referee("foul", shot=1, code="24.3.s")
    [c] = judge(s, "goriziana")
    assert c.points == {"A": 0, "B": G_INNER} and not c.ball_in_hand


# ------------------------------------------------------------ match ends

def test_foul_points_reaching_the_distance_win_for_the_opponent():
    s = opening().shot("white").cushion("white", "left").end()
    [c] = judge(s, "goriziana", distance=2)
    assert c.match["over"] and c.match["winner"] == "B"


def test_foul_on_the_winning_shot_gives_the_match_to_the_opponent_if_it_reaches():
    s = opening().shot("white").hit("white", "yellow").pin_down("pin_centre", "yellow")
    s.end().referee("foul", shot=1, code="24.3.f")
    [c] = judge(s, "goriziana", distance=30)
    assert c.points == {"A": 0, "B": G_CENTRE_ALONE + FOUL}
    assert c.match["over"] and c.match["winner"] == "B"


def test_manche_won_on_foul_points_the_next_manche_starts_afresh():
    s = opening().shot("white").cushion("white", "left").end()
    s.shot("yellow").hit("yellow", "white").end()
    c = judge(s, "goriziana", sets=3, distance=2)
    assert c[0].match["sets"] == {"A": 0, "B": 1} and not c[0].match["over"]
    assert not c[0].ball_in_hand  # a new manche starts from the opening
    assert c[1].score == {"A": 0, "B": 0} and c[1].match["set"] == 2


# ------------------------------------------------------------ opening shot and pairs

def test_positioning_shot_without_the_opponents_ball_knocking_pins_is_24_3_d():
    # tiro di partenza: no ball to hit (no 24.3.a), but the player's own ball knocking
    # pins is still 24.3.d: 2 + the pins to the opponent
    s = Stream({"white": (500.0, 300.0), "red": PALLINO_AT})
    s.shot("white").cushion("white", "foot").end(white=(2000.0, 700.0))
    s.shot("yellow").hit("yellow", "white").end()
    c = judge(s, "goriziana")
    assert c[0].fouls == [] and c[0].points == {"A": 0, "B": 0}
    s = Stream({"white": (500.0, 300.0), "red": PALLINO_AT})
    s.shot("white").pin_down("pin_left", "white").end(white=(2000.0, 700.0))
    [c] = judge(s, "goriziana")
    assert codes(c) == ["24.3.d"] and c.points["B"] == FOUL + G_INNER


PAIRS = {"pairs": {"A": ["Anna", "Aldo"], "B": ["Bice", "Bruno"]}}


def _pairs_after_a_foul(game: str, foul_shot) -> list[str]:
    s = opening().shot("white").hit("white", "yellow").end()  # Anna: opening, nothing
    s.shot("yellow").hit("yellow", "white").end()  # Bice: nothing
    foul_shot(s)  # Anna fouls
    s.shot("yellow").hit("yellow", "white").end()  # Bice, ball in hand: nothing
    s.shot("white").hit("white", "yellow").end()
    return [c.extra["shooter"] for c in judge(s, game, **PAIRS)]


def test_pairs_bare_basic_foul_in_tutti_doppi_keeps_the_shooter():
    # 32.2: foul points only (Tutti doppi's basic 4) and nothing on the ball in hand
    def miss(s: Stream) -> None:
        s.shot("white").cushion("white", "left").end()
    assert _pairs_after_a_foul("tutti_doppi", miss) == [
        "Anna", "Bice", "Anna", "Bice", "Anna"]


def test_pairs_two_fouls_in_one_shot_are_more_than_the_bare_foul_and_change():
    # 24.3.a + 24.3.h: 4 foul points, more than "i due punti" of 32.2's exception
    def miss_off(s: Stream) -> None:
        s.shot("white").cushion("white", "left").off_table("white").end()
    assert _pairs_after_a_foul("goriziana", miss_off) == [
        "Anna", "Bice", "Anna", "Bice", "Aldo"]


# ------------------------------------------------------------ Art.30.3 frozen target

FROZEN_RED = (2200.0 + R_BALL + R_PALLINO, 1000.0)  # yellow (2200, 1000) touches it


def test_target_against_the_pallino_moving_it_scores_with_no_contact_event():
    # 30.3: the 6 points when the opponent's ball, once hit, moves the pallino; two
    # touching balls give no ball_ball event, the pallino's displacement shows it
    s = opening(red=FROZEN_RED).shot("white").hit("white", "yellow")
    s.end(yellow=(2230.0, 1000.0), red=(2600.0, 1000.0))
    [c] = judge(s, "goriziana")
    assert c.points["A"] == G_PALLINO and c.fouls == []
    s = opening(red=FROZEN_RED).shot("white").cushion("white", "left").hit("white", "yellow")
    s.end(yellow=(2230.0, 1000.0), red=(2600.0, 1000.0))
    assert judge(s, "goriziana")[0].points["A"] == 2 * G_PALLINO  # indirect [30.1]


def test_target_against_the_pallino_that_stays_put_scores_nothing():
    s = opening(red=FROZEN_RED).shot("white").hit("white", "yellow")
    s.end(yellow=(2100.0, 900.0))
    assert judge(s, "goriziana")[0].points["A"] == 0
    s = opening(red=FROZEN_RED).shot("white").hit("white", "yellow")
    s.end(yellow=(2100.0, 900.0), red=(FROZEN_RED[0] + 2.0, FROZEN_RED[1]))  # jitter
    assert judge(s, "goriziana")[0].points["A"] == 0


def test_touch_after_the_shot_charged_by_the_referee_to_the_player_who_shot():
    # 24.3.q covers touches "dopo l'esecuzione del tiro": the referee moves the camera's
    # 26.4 (next player) to the shooter: his points go to the opponent, ball in hand
    s = opening().shot("white").hit("white", "yellow").pin_down("pin_left", "yellow")
    s.end(yellow=(2000.0, 900.0)).disturbed("red")
    s.referee("cancel_foul", shot=1, code="26.4").referee("foul", shot=1, code="24.3.q")
    s.shot("yellow").hit("yellow", "white").end()
    c = judge(s, "goriziana")
    assert codes(c[0]) == ["24.3.q"] and c[0].points == {"A": 0, "B": G_INNER + FOUL}
    assert c[0].ball_in_hand and c[1].fouls == [] and c[1].player == "B"
