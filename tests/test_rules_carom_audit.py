"""Audit of the carom games against seed 000 (FIBiS), article by article.

Each test builds the situation an article names (combinations of fouls and points,
edge positions, the order of contacts, match ends, referee entries) and checks the
call against the article's text; positions come from ``equipment``'s spots and zones.
"""

from __future__ import annotations

from streams import Stream

from adjudicate import ShotCall, adjudicate_stream, get_game
from equipment import get_table
from equipment.tables import CAROM_BALL

SPOTS = get_table("carom").spots
CORNER = get_table("carom_free").zones["corner_head_left"]  # (0,0), (355,0), (0,355)
R = CAROM_BALL / 2
OPEN = {"white": SPOTS["start_right"], "yellow": SPOTS["head"], "red": SPOTS["foot"]}
MID = {"white": (1000.0, 300.0), "yellow": (1500.0, 900.0), "red": (2000.0, 500.0)}


def calls(s: Stream, game: str, **settings) -> list[ShotCall]:
    return [c for c in adjudicate_stream(s.events, get_game(game), settings)
            if isinstance(c, ShotCall)]


def carom(s: Stream, ball: str, first: str = "red", cushions: tuple[str, ...] = (),
          between: tuple[str, ...] = ()) -> Stream:
    """``ball`` meets ``first`` then the other object ball (no ``end`` yet)."""
    return s.carom(ball, first, cushions, between)


def miss(s: Stream, ball: str) -> Stream:
    return s.shot(ball).cushion(ball, "left").end()


def opening_for(s: Stream, ball: str) -> Stream:
    """Put the balls in the opening position of the player of ``ball`` [Tiro d'inizio 1]."""
    other = "yellow" if ball == "white" else "white"
    s.layout = {ball: SPOTS["start_right"], other: SPOTS["head"], "red": SPOTS["foot"]}
    return s


def codes(call: ShotCall) -> list[str]:
    return sorted(f.code for f in call.fouls)


# ------------------------------------------------------------ Falli 1-2: combinations

def test_two_fouls_in_one_shot_are_both_called_and_the_carom_is_lost():
    # Falli 1: a carom is acquired only with no foul; Falli 2: touched ball and ball off.
    s = Stream(MID)
    carom(s, "white").disturbed("yellow").off_table("red").end()
    [c] = calls(s, "free_game", opening=False)
    assert codes(c) == ["ball_off_table", "touched_ball"]
    assert c.points == {"A": 0, "B": 0} and c.next_player == "B"
    # Bilie fuori 1 a: all balls to the starting position of the next player (B: yellow)
    assert {r.ball: r.spot for r in c.respots} == {"yellow": "start_right",
                                                    "white": "head", "red": "foot"}


def test_the_turn_after_a_foul_is_a_new_inning_for_the_other_player():
    s = Stream(MID)
    carom(s, "white").disturbed("red").end()
    carom(s, "yellow").end()
    carom(s, "yellow").end()
    c = calls(s, "free_game", opening=False)
    assert [x.player for x in c] == ["A", "B", "B"]
    assert c[2].innings == {"A": 1, "B": 1} and c[2].score == {"A": 0, "B": 2}
    assert c[2].extra["run"] == 2 and c[2].next_player == "B"


def test_a_foul_on_the_last_point_does_not_end_the_game():
    s = Stream(MID)
    carom(s, "white").end()
    carom(s, "white").off_table("yellow").end()
    c = calls(s, "free_game", opening=False, distance=2)
    assert c[1].points["A"] == 0 and not c[1].match["over"] and c[1].next_player == "B"
    assert c[1].score == {"A": 1, "B": 0}


def test_wrong_ball_on_the_opening_shot_passes_the_hand_and_leaves_the_balls():
    # Falli 2: the opponent's ball -> the hand passes, the balls stay where they are.
    s = Stream(OPEN)
    carom(s, "yellow").end(yellow=(1500.0, 300.0))
    [c] = calls(s, "free_game")
    assert "wrong_ball" in codes(c) and c.points["A"] == 0 and c.next_player == "B"
    assert c.respots == [] and c.extra["balls"] == {"A": "white", "B": "yellow"}


def test_wrong_ball_keeps_the_points_of_the_run_made_before():
    s = Stream(MID)
    carom(s, "white").end()
    carom(s, "white").end()
    carom(s, "red").end()
    c = calls(s, "free_game", opening=False)
    assert c[2].score == {"A": 2, "B": 0} and codes(c[2]) == ["wrong_ball"]
    assert c[2].next_player == "B"


# ------------------------------------------------------------ order of contacts

def test_three_cushion_cushions_only_after_the_second_ball_do_not_count():
    s = Stream(MID)
    carom(s, "white").cushion("white", "left").cushion("white", "foot")
    s.cushion("white", "right").end()
    [c] = calls(s, "three_cushion", opening=False)
    assert c.points["A"] == 0 and c.extra["cushions"] == 0 and c.next_player == "B"


def test_three_cushion_two_contacts_on_one_cushion_and_one_on_another_count_three():
    # Tre sponde 1: "tre sponde o tre volte una stessa sponda"; read as three cushion
    # contacts (a referee counts contacts: left, left, foot is three).
    s = Stream(MID)
    carom(s, "white", cushions=("left",), between=("left", "foot")).end()
    [c] = calls(s, "three_cushion", opening=False)
    assert c.points["A"] == 1 and c.extra["cushions"] == 3


def test_one_cushion_cushion_between_the_balls_counts_after_the_second_does_not():
    s = Stream(MID)
    carom(s, "white", between=("left",)).end()
    carom(s, "white").cushion("white", "left").end()
    c = calls(s, "one_cushion", opening=False)
    assert c[0].points["A"] == 1 and c[1].points["A"] == 0 and c[1].next_player == "B"


def test_object_balls_touching_each_other_is_not_a_carom():
    s = Stream(MID)
    s.shot("white").hit("white", "red").hit("red", "yellow").end()
    [c] = calls(s, "free_game", opening=False)
    assert c.points["A"] == 0 and c.next_player == "B" and not c.extra["carom"]


def test_opening_shot_off_a_cushion_to_the_red_is_fair_to_the_yellow_is_not():
    s = Stream(OPEN)
    carom(s, "white", cushions=("foot",)).end()
    [c] = calls(s, "free_game")
    assert c.points["A"] == 1 and c.fouls == []
    s = Stream(OPEN)
    carom(s, "white", first="yellow", cushions=("foot",)).end()
    [c] = calls(s, "free_game")
    assert codes(c) == ["opening_not_red"] and c.points["A"] == 0 and c.next_player == "B"


# ------------------------------------------------------------ edge positions

def test_carrozza_c_ball_touching_the_cushion_shot_into_it_and_just_clear():
    touching = {"white": (1000.0, R), "yellow": (1500.0, 900.0), "red": (2000.0, 500.0)}
    s = Stream(touching)
    carom(s, "white", cushions=("left",)).end()
    [c] = calls(s, "free_game", opening=False)
    assert codes(c) == ["push_cushion"] and c.points["A"] == 0
    clear = dict(touching, white=(1000.0, R + 2.0))  # 2 mm off the cushion
    s = Stream(clear)
    carom(s, "white", cushions=("left",)).end()
    [c] = calls(s, "free_game", opening=False)
    assert c.fouls == [] and c.points["A"] == 1


def test_ball_touching_the_cushion_played_away_from_it_is_fair():
    s = Stream({"white": (1000.0, R), "yellow": (1500.0, 900.0), "red": (2000.0, 500.0)})
    carom(s, "white", cushions=("right",)).end()
    [c] = calls(s, "one_cushion", opening=False)
    assert c.fouls == [] and c.points["A"] == 1


def test_object_ball_exactly_on_the_free_game_corner_diagonal_is_inside():
    # Zone d'interdizione 2: a ball astride a line is inside (against the player).
    on_diagonal = (177.5, 177.5)  # on the line from (355, 0) to (0, 355)
    layout = {"white": (1400.0, 700.0), "yellow": on_diagonal, "red": (80.0, 80.0)}
    s = Stream(layout)
    carom(s, "white").end()
    carom(s, "white").end()
    c = calls(s, "free_game", opening=False)
    assert c[0].points["A"] == 1 and c[0].fouls == []
    assert codes(c[1]) == ["interdiction_zone"] and c[1].fouls[0].article == "000 Libera 2"
    # just outside the line (3 mm): the corner holds one ball only, no limit
    outside = dict(layout, yellow=(179.5 + 1.0, 179.5 + 1.0))
    s = Stream(outside)
    carom(s, "white").end()
    carom(s, "white").end()
    assert [x.points["A"] for x in calls(s, "free_game", opening=False)] == [1, 1]


def test_zone_count_starts_afresh_in_a_new_inning():
    # Libera 2 limits consecutive caroms "nel corso di una serie": a new inning resets.
    layout = {"white": (1400.0, 700.0), "yellow": (100.0, 100.0), "red": (80.0, 200.0)}
    s = Stream(layout)
    carom(s, "white").end()
    miss(s, "white")
    miss(s, "yellow")
    carom(s, "white").end()
    c = calls(s, "free_game", opening=False)
    assert c[3].points["A"] == 1 and c[3].fouls == []


def test_balls_exactly_touching_at_rest_after_a_carom_are_respotted_the_player_goes_on():
    touching = (SPOTS["centre"][0] + CAROM_BALL, SPOTS["centre"][1])
    s = Stream(MID)
    carom(s, "white").end(red=SPOTS["centre"], yellow=touching)
    [c] = calls(s, "free_game", opening=False)
    assert c.points["A"] == 1 and c.next_player == "A"
    assert {r.ball: r.spot for r in c.respots} == {"white": "start_right",
                                                    "yellow": "head", "red": "foot"}


# ------------------------------------------------------------ referee entries

def test_referee_cancelling_a_ball_off_the_table_leaves_the_balls_where_they_are():
    # The referee rules that no ball left the table: no foul, so no respot either
    # (Bilie fuori 1 applies to balls off the table only).
    s = Stream(MID)
    carom(s, "white").off_table("red").end()
    s.referee("cancel_foul", shot=1, code="ball_off_table")
    [c] = calls(s, "free_game", opening=False)
    assert c.fouls == [] and c.points["A"] == 1 and c.next_player == "A"
    assert c.respots == []


def test_referee_foul_on_the_last_point_keeps_the_game_going():
    s = Stream(MID)
    carom(s, "white").end()
    s.referee("foul", shot=1, code="foot_off_floor")
    [c] = calls(s, "free_game", opening=False, distance=1)
    assert c.points["A"] == 0 and not c.match["over"] and c.next_player == "B"
    assert c.fouls[0].source == "referee"


def test_referee_cancel_of_one_foul_leaves_the_other():
    s = Stream(MID)
    carom(s, "white").disturbed("yellow").off_table("red").end()
    s.referee("cancel_foul", shot=1, code="touched_ball")
    [c] = calls(s, "free_game", opening=False)
    assert codes(c) == ["ball_off_table"] and c.points["A"] == 0


def test_referee_shooter_entry_gives_the_inning_to_the_named_player():
    s = Stream(MID)
    miss(s, "white")
    carom(s, "white").end().referee("shooter", shot=2, player="A")
    c = calls(s, "free_game", opening=False)
    assert c[1].player == "A" and c[1].points["A"] == 1 and c[1].fouls == []


# ------------------------------------------------------------ match ends

def test_equalising_inning_second_player_short_of_the_distance_loses():
    s = Stream(OPEN)
    carom(s, "white").end()
    opening_for(s, "yellow")
    miss(s, "yellow")
    c = calls(s, "free_game", distance=1)
    assert c[0].match["phase"] == "equalising" and c[0].next_player == "B"
    assert c[1].match["over"] and c[1].match["winner"] == "A"
    assert c[1].innings == {"A": 1, "B": 1}


def test_equalising_inning_opening_shot_must_still_go_to_the_red():
    s = Stream(OPEN)
    carom(s, "white").end()
    opening_for(s, "yellow")
    carom(s, "yellow", first="white").end()
    c = calls(s, "free_game", distance=1)
    assert c[1].extra["opening"] and codes(c[1]) == ["opening_not_red"]
    assert c[1].match["winner"] == "A"


def test_innings_limit_second_player_ends_the_game_at_equal_innings():
    s = Stream(MID)
    carom(s, "white").end()
    miss(s, "white")
    carom(s, "yellow").end()
    carom(s, "yellow").end()
    miss(s, "yellow")
    c = calls(s, "free_game", opening=False, innings_limit=1, equalising=True,
              balls={"A": "white", "B": "yellow"})
    # A reached the limit with one inning more -> B's equalising inning
    assert c[1].match["phase"] == "equalising"
    assert c[-1].match["over"] and c[-1].match["winner"] == "B"
    assert c[-1].score == {"A": 1, "B": 2}


def test_draw_at_the_innings_limit_without_tie_break():
    s = Stream(MID)
    carom(s, "white").end()
    miss(s, "white")
    opening_for(s, "yellow")
    carom(s, "yellow").end()
    miss(s, "yellow")
    c = calls(s, "free_game", opening=False, innings_limit=1,
              balls={"A": "white", "B": "yellow"})
    assert c[-1].match["over"] and c[-1].match.get("draw") and c[-1].match["winner"] is None


def test_set_with_innings_limit_opener_behind_loses_at_his_last_inning():
    # Conclusione 2.c: the set ends at the limit; no equalising inning in a set.
    s = Stream(MID)
    miss(s, "white")
    carom(s, "yellow").end()
    miss(s, "yellow")
    miss(s, "white")
    c = calls(s, "free_game", opening=False, sets=3, distance=5, innings_limit=2,
              balls={"A": "white", "B": "yellow"})
    assert c[3].match["sets"] == {"A": 0, "B": 1} and c[3].match["set"] == 2
    assert c[3].match["set_scores"] == [{"A": 0, "B": 1}]
    # set 2 is opened by the other player (Partita 6)
    assert c[3].next_player == "B"


def test_referee_foul_the_camera_already_called_is_listed_once():
    s = Stream(MID)
    carom(s, "white").off_table("red").end()
    s.referee("foul", shot=1, code="ball_off_table")
    [c] = calls(s, "free_game", opening=False)
    assert codes(c) == ["ball_off_table"] and c.points["A"] == 0


def test_after_a_respot_to_the_starting_position_the_red_first_is_not_required():
    # Tiro d'inizio 2 binds the opening shot (match, set, equalising, tie-break); a
    # respot for balls in contact (Bilie in contatto 1.a) is not an opening [assumed]
    touching = (SPOTS["centre"][0] + CAROM_BALL, SPOTS["centre"][1])
    s = Stream(MID)
    carom(s, "white").end(red=SPOTS["centre"], yellow=touching)
    s.layout = dict(OPEN)
    carom(s, "white", first="yellow").end()
    c = calls(s, "free_game", opening=False)
    assert not c[1].extra["opening"] and c[1].fouls == [] and c[1].points["A"] == 1


def test_leaving_the_anchor_square_but_not_the_field_keeps_the_fields_count():
    # Quadro 47/2 1-3: the limit holds in each zone, the anchor squares included. The
    # red leaves anchor_balk_head_left (381-559 x 0-178) but stays in field_00 (0-470)
    zones = get_table("carom_balkline_47").zones
    start = {"white": (1400.0, 700.0), "yellow": (460.0, 100.0), "red": (440.0, 150.0)}
    s = Stream(start)
    carom(s, "white").end(red=(300.0, 300.0))
    carom(s, "white").end()
    c = calls(s, "balkline_47_2", opening=False)
    assert c[0].fouls == [] and c[0].extra["zones"]["field_00"] == 1
    assert c[0].extra["zones"]["anchor_balk_head_left"] == 0
    assert codes(c[1]) == ["interdiction_zone"] and c[1].points["A"] == 0
    assert "field_00" in zones and "anchor_balk_head_left" in zones
