"""Audit of Pool 51 against rulebook 003 (RFEB), article by article.

Situations the first tests did not cover: fouls together with pots and with the black,
the free shot after a foul on the break, balls in contact (Art. 5.6) on the limit of
contact, referee entries that cancel camera calls or lose the frame on the break.
Expected calls come from the article quoted in each test and from the balls' sizes
(Art. 1.f, 1.g), never from a run of the code.
"""

from __future__ import annotations

import pytest

from equipment.tables import POOL_BALL, POOL_CUE_BALL
from tests.streams import Stream
from tests.test_rules_pool51 import REDS, YELLOWS, calls, legal_break_red, pot, rack, spread

GROUPS = {"A": "red", "B": "yellow"}
CONTACT = (POOL_CUE_BALL + POOL_BALL) / 2  # centre distance of cue ball and object ball


def _codes(call) -> list[str]:
    return [f.code for f in call.fouls]


def _endgame(own_left: tuple[str, ...] = ()) -> dict[str, tuple[float, float]]:
    """A mid-frame table: A (red) has ``own_left`` on the table, B one yellow, the black."""
    layout = {"cue": (600.0, 300.0), "black": (1000.0, 800.0), "yellow_1": (1200.0, 200.0)}
    for k, b in enumerate(own_left):
        layout[b] = (900.0 + 100.0 * k, 500.0)
    return layout


# ---------------------------------------------------------------- free shot after a break foul

def test_pots_on_the_free_shot_after_a_break_foul_do_not_choose_the_group():  # 6.5, 5.2
    # 6.5: "entrará a jugar con un tiro libre, después del cual, deberá elegir el grupo";
    # 5.2: on the free shot he plays "sin hacer selección del grupo de bolas".
    s = Stream(rack())
    s.shot("cue").hit("cue", "red_1").cushion("red_6", "foot").cushion("yellow_7", "right")
    s.pocket("cue", "foot_left").end()
    s.layout = spread()
    s.shot("cue").hit("cue", "red_2").pocket("red_2", "foot_right").end()
    s.referee("group", shot=3, player="B", group="yellow")  # declared after the free shot
    s.shot("cue").hit("cue", "yellow_2").pocket("yellow_2", "foot_right").end()
    c1, c2, c3 = calls(s)
    assert _codes(c1) == ["7.1.a"] and c1.free_shot and c1.extra["declare_group"] == "B"
    assert c2.fouls == [] and c2.extra["group"] == {} and c2.next_player == "B"
    assert c2.extra["declare_group"] == "B"
    assert c3.extra["group"] == {"B": "yellow", "A": "red"} and c3.fouls == []
    assert c3.next_player == "B" and c3.score == {"A": 1, "B": 1}  # red_2 is A's


# ---------------------------------------------------------------- Art. 5.6 balls in contact

@pytest.mark.parametrize("gap,foul", [(0.0, False), (1.0, False), (3.0, True)])
def test_cue_ball_touching_an_own_ball_may_play_any_ball(gap, foul):  # 5.6, 7.1.b
    layout = spread()
    red = layout["red_1"]
    layout["cue"] = (red[0] - CONTACT - gap, red[1])
    s = Stream(layout)
    s.shot("cue").hit("cue", "yellow_1").end(cue=(800.0, 400.0))
    (c,) = calls(s, breaking=False, groups=GROUPS)
    assert (_codes(c) == ["7.1.b"]) is foul
    assert c.next_player == "B" and c.free_shot is foul


def test_cue_ball_touching_an_opponents_ball_must_play_toward_an_own_ball():  # 5.6
    layout = spread()
    yellow = layout["yellow_1"]
    layout["cue"] = (yellow[0] - CONTACT, yellow[1])
    s = Stream(layout)
    s.shot("cue").hit("cue", "yellow_1").end()  # played into the touching yellow
    s2 = Stream(dict(layout))
    s2.shot("cue").cushion("cue", "left").hit("cue", "red_1").end()  # by a cushion: fair
    assert _codes(calls(s, breaking=False, groups=GROUPS)[0]) == ["7.1.b"]
    assert calls(s2, breaking=False, groups=GROUPS)[0].fouls == []


def test_touching_rule_does_not_apply_to_the_free_shot_player_it_frees_anyway():  # 5.6
    # "Si el jugador dispone de un tiro libre podrá tirar a cualquier bola que esté
    # tocando a la blanca sin riesgo de penalización."
    s = legal_break_red(Stream(rack()))
    s.shot("cue").cushion("cue", "left").end()  # A: 7.1.c, B has the free shot
    s.layout["cue"] = (s.layout["red_2"][0] - CONTACT, s.layout["red_2"][1])
    s.shot("cue").hit("cue", "red_2").end()  # B (yellow) plays the touching red
    c = calls(s)[-1]
    assert c.player == "B" and c.fouls == [] and c.next_player == "B"


# ---------------------------------------------------------------- fouls together

def test_two_fouls_in_one_shot_give_one_free_shot():  # 7.1
    s = Stream(spread())
    s.shot("cue").hit("cue", "yellow_1").pocket("cue", "side_left").end()
    (c,) = calls(s, breaking=False, groups=GROUPS)
    assert sorted(_codes(c)) == ["7.1.a", "7.1.b"]
    assert c.next_player == "B" and c.free_shot and c.extra["cue_ball_in"] == "d"


def test_foul_with_an_own_pot_the_ball_stays_down_and_the_turn_passes():  # 7.1, 6.8
    s = Stream(spread())
    s.shot("cue").hit("cue", "red_1").pocket("red_1", "foot_left").pocket("cue", "side_left")
    s.end()
    (c,) = calls(s, breaking=False, groups=GROUPS)
    assert _codes(c) == ["7.1.a"] and c.score == {"A": 1, "B": 0}
    assert c.next_player == "B" and c.free_shot and "red_1" in c.extra["balls_down"]


def test_black_off_the_table_with_the_cue_ball_potted_is_a_foul_not_a_loss():  # 7.1.i, a
    s = Stream(_endgame())
    s.shot("cue").hit("cue", "black").off_table("black").pocket("cue", "foot_left").end()
    (c,) = calls(s, breaking=False, groups=GROUPS)
    assert sorted(_codes(c)) == ["7.1.a", "7.1.i"] and not c.extra.get("frame_over")
    assert [(r.ball, r.spot) for r in c.respots] == [("black", "black")]
    assert c.next_player == "B" and c.free_shot and c.extra["cue_ball_in"] == "d"


def test_black_potted_on_a_free_shot_with_the_group_cleared_wins():  # 5.2, 4
    # 5.2: "no deberá embolsar la bola negra ... a menos que ... sólo necesitase
    # embolsar la negra".
    s = Stream(_endgame())
    s.shot("cue").hit("cue", "yellow_1").end()  # A's shot: B's ball first (his group done)
    s.shot("cue").cushion("cue", "left").end()  # B misses everything: A has a free shot
    s.shot("cue").hit("cue", "black").pocket("black", "side_right").end()
    c1, c2, c3 = calls(s, breaking=False, groups=GROUPS)
    assert _codes(c1) == ["7.1.b"] and _codes(c2) == ["7.1.c"] and c2.free_shot
    assert c3.player == "A" and c3.fouls == [] and c3.extra["frame_winner"] == "A"


def test_the_last_ball_of_the_frame_counts_in_the_final_score():  # 4, 8.1.a
    # The last red drops before the black in the same shot (pocket times): the group
    # is down before the black, so the frame is won (docs: 8.1.a by the pocket times),
    # and the final score has all seven reds.
    s = Stream(_endgame(("red_7",)))
    s.shot("cue").hit("cue", "red_7").pocket("red_7", "foot_right")
    s.hit("cue", "black").pocket("black", "foot_left").end()
    (c,) = calls(s, breaking=False, groups=GROUPS)
    assert c.fouls == [] and c.extra["frame_winner"] == "A"
    assert c.score == {"A": len(REDS), "B": len(YELLOWS) - 1}
    assert c.points == {"A": 1, "B": 0}


# ---------------------------------------------------------------- referee entries

def test_referee_cancelling_the_black_loss_lets_the_black_win():  # 8.1.a, referee
    # The camera thinks red_7 is still on the table; the referee finds the group cleared
    # and cancels both the loss and the black-first foul: the black was potted correctly.
    s = Stream(_endgame(("red_7",)))
    s.shot("cue").hit("cue", "black").pocket("black", "foot_left")
    s.referee("cancel_foul", code="8.1.a").referee("cancel_foul", code="7.1.e").end()
    (c,) = calls(s, breaking=False, groups=GROUPS)
    assert c.fouls == [] and c.extra["frame_winner"] == "A"


def test_referee_cancelling_a_touch_after_the_shot():  # 5.5, 7.1.g, referee
    s = Stream(spread())
    pot(s, "red_1")
    s.disturbed("yellow_3").referee("cancel_foul", code="7.1.g")
    (c,) = calls(s, breaking=False, groups=GROUPS)
    assert c.fouls == [] and c.next_player == "A"


@pytest.mark.parametrize("black_down", [False, True])
def test_referee_loss_on_the_break_loses_the_frame(black_down):  # 8.1.d, 6.7
    # 8.1 lists the ways to lose the frame without exempting the break; 6.7 spares only
    # the black potted on the break.
    s = Stream(rack())
    s.shot("cue").hit("cue", "red_1").cushion("red_6", "foot").cushion("yellow_7", "right")
    if black_down:
        s.pocket("black", "foot_left")
    s.referee("foul", code="8.1.d").end()
    (c,) = calls(s)
    assert _codes(c) == ["8.1.d"] and c.extra["frame_winner"] == "B" and c.match["over"]


def test_match_over_after_the_frames_needed_and_the_next_shot_is_not_judged():  # 6.2
    s = Stream(_endgame())
    s.shot("cue").hit("cue", "black").pocket("black", "foot_left").end()
    s.shot("cue").hit("cue", "yellow_1").end()
    c1, c2 = calls(s, breaking=False, groups=GROUPS, frames=1)
    assert c1.match["over"] and c1.match["winner"] == "A"
    assert c2.fouls == [] and c2.points == {"A": 0, "B": 0}
    assert c2.match["winner"] == "A"


# ---------------------------------------------------------------- 6.2 who breaks the next frame

def test_toss_winner_handing_the_break_over_then_breaks_the_next_frame():  # 6.2
    # "teniendo el ganador, la opción de abrir el juego o hacérselo abrir a su oponente
    # ... abrirá el juego un jugador cada vez de forma alternativa": B opened frame 1, so
    # A opens frame 2.
    s = Stream(rack())
    s.referee("shooter", shot=1, player="B").referee("foul", shot=1, code="8.1.c")
    s.shot("cue").hit("cue", "red_1").cushion("red_6", "foot").cushion("yellow_7", "right")
    s.end()
    (c,) = calls(s, frames=2)
    assert c.player == "B" and c.extra["frame_winner"] == "A"
    assert c.next_player == "A" and c.extra["breaking"] and not c.match["over"]


def test_re_rack_inside_a_frame_does_not_change_the_alternation():  # 6.4, 6.2
    # A opens frame 1 and fails (6.4): B breaks again inside frame 1. Frame 2 is
    # opened by B, the other of the player who opened frame 1.
    s = Stream(rack())
    s.shot("cue").hit("cue", "red_1").end()  # A: no cushions, no colour
    s.referee("foul", shot=2, code="8.1.c")
    s.shot("cue").hit("cue", "red_1").cushion("red_6", "foot").cushion("yellow_7", "right")
    s.end()
    c1, c2 = calls(s, frames=2)
    assert _codes(c1) == ["6.4"] and c1.next_player == "B"
    assert c2.player == "B" and c2.extra["frame_winner"] == "A"
    assert c2.next_player == "B"


def test_black_dropping_before_the_last_own_ball_in_one_shot_loses():  # 8.1.a
    # "embolsa la bola negra antes de haber embolsado todas las bolas de su propio grupo"
    s = Stream(_endgame(("red_7",)))
    s.shot("cue").hit("cue", "red_7").hit("red_7", "black").pocket("black", "foot_left")
    s.pocket("red_7", "foot_right").end()
    (c,) = calls(s, breaking=False, groups=GROUPS)
    assert _codes(c) == ["8.1.a"] and c.extra["frame_winner"] == "B"


def test_referee_cancelling_a_break_foul_makes_the_break_legal():  # 6.4, 6.6, referee
    s = Stream(rack())
    s.shot("cue").hit("cue", "red_1").cushion("red_6", "foot")  # one cushion seen
    s.referee("cancel_foul", code="6.4").end(cue=(800.0, 500.0))
    (c,) = calls(s)
    assert c.fouls == [] and not c.extra.get("rerack") and not c.extra["breaking"]
    assert c.next_player == "B" and c.extra["declare_group"] == "B"  # 6.6
