"""Russian billiards, the pyramid games (rulebook 001): Russian, Moscow and "American".

One engine, three variants that differ only where 001 says they do:

* which ball may be struck: only ``cue`` in Russian and Moscow (§14 м); any ball in
  the "American" (the struck ball is ``shot_start.ids[0]``);
* the struck ball in a pocket: a foul in Russian (§14 н); in Moscow a counted ball
  (*свояк*) with the next shot from hand from the house (§5); in the "American" a
  counted ball like any other;
* the struck ball off the table (§7, §14 б): a foul in all three; the opponent plays
  from hand from the house in Russian and Moscow, the ball is respotted in the
  "American".

A ball is where its centre is, and a centre exactly on the house line is outside the
house (§9). Every foul of a stroke costs one penalty ball, however many there were
(§14, last paragraph). Where 001 says "according to the rules of each game" without
saying them (the penalty ball, where balls are respotted), the choice is data marked
``[assumed: ...]``.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from typing import Any

from equipment.tables import PYRAMID_BALL, Table, get_table

from ..calls import Foul, FoulRule, Respot, ShotCall
from ..engine import AdjudicationError, Shot
from ..settings import int_setting, other_player, players_and_first

RULEBOOK = "001"
WIN_BALLS = 8  # [001: first to 8 balls; the Moscow variant text "first to score 8"]
HANGING_SECONDS = 5.0  # [001 §13]
NEAR_GAP_FRACTION = 0.5  # [001 §11: not more than 1/2 of the ball's radius]
NEAR_CUT_DEG = 45.0  # [001 §11]
ANGLE_TOLERANCE_DEG = 1e-6  # "45 degrees and more": exactly 45 is fair despite rounding
MIN_TRAVEL_FOR_ANGLE = 5.0  # mm of cue-ball travel before contact to measure a cut
PENALTY_BALLS = 1  # [assumed: one ball per stroke, §14 "в одинарном размере"]
RESPOT_CLEARANCE = 0.5  # mm between a respotted ball and its neighbour


def _rule(code: str, section: str, text: str, observable: bool = True) -> FoulRule:
    return FoulRule(code, f"{RULEBOOK} §{section}", text, 0, False, observable)


FOULS: dict[str, FoulRule] = {r.code: r for r in (
    _rule("14.а", "14 а", "the cue ball touched no object ball"),
    _rule("14.б", "14 б", "the cue ball jumped off the table"),
    _rule("14.в", "14 в", "stroke played before the previous stroke ended"),
    _rule("14.г", "14 г", "no foot on the floor", observable=False),
    _rule("14.д", "14 д", "a ball on the table touched with the cue, hand, clothes..."),
    _rule("14.е", "14 е", "the cue ball not struck with the tip (§3)", observable=False),
    _rule("14.ж", "14 ж", "wrong stroke at a near object ball (§11)"),
    _rule("14.з", "14 з", "push stroke at a ball more than half a radius away",
          observable=False),
    _rule("14.и", "14 и", "double hit: the tip touched the cue ball twice", observable=False),
    _rule("14.к", "14 к", "press stroke squeezing a ball off the cushion", observable=False),
    _rule("14.л", "14 л", "from hand, the cue ball touched an object ball in the house"),
    _rule("14.м", "14 м", "a ball other than the cue ball was struck"),
    _rule("14.н", "14 н", "the cue ball fell into a pocket"),
    _rule("14.о", "14 о", "wrong safety stroke (otygrysh)", observable=False),
    _rule("14.п", "14 п", "from hand: cue ball beyond the house line, body beyond the long "
          "cushion or shot from the opposite side, despite the referee's warning",
          observable=False),
    _rule("14.р", "14 р", "the opponent interfered with play (penalty on the opponent)",
          observable=False),
)}

#: Fouls each variant does not have (§14 м, н only Russian/Moscow; о only American).
_NOT_IN = {
    "russian": {"14.о"},
    "moscow": {"14.н", "14.о"},
    "american": {"14.м", "14.н"},
}


@dataclass
class PyramidState:
    """Everything the next call depends on; ``judge`` works on a copy."""

    players: tuple[str, str]
    first: str
    frames_to_win: int
    win_balls: int
    frame: int = 1
    frames_won: dict[str, int] = field(default_factory=dict)
    breaker: str = ""
    turn: str = ""
    counts: dict[str, int] = field(default_factory=dict)  # balls credited this frame
    pocketed: dict[str, list[str]] = field(default_factory=dict)  # ids, in order
    debt: dict[str, int] = field(default_factory=dict)  # penalty balls owed (§14)
    from_hand: bool = True  # opening stroke from the house [001 §5]
    prev_ended: bool = True  # the previous stroke reached shot_end [001 §10]
    hanging: dict[str, tuple[str, tuple[float, float]]] = field(default_factory=dict)
    remove_for_cue: bool = False  # Moscow: an object ball to take off for the свояк
    last_layout: dict[str, tuple[float, float]] = field(default_factory=dict)
    innings: dict[str, int] = field(default_factory=dict)
    last_shooter: str | None = None
    lag: bool = False  # setting: frame 1 (and a deciding frame) begin with a lag (§4)
    phase: str = "play"  # "lag" or "play"
    # the first lag ball: (ball, player, start position, its events)
    lag_half: tuple[str, str, tuple[float, float], list] | None = None
    frame_shots: int = 0  # strokes played in this frame
    over: bool = False
    winner: str | None = None


class PyramidGame:
    """One variant of the pyramid: ``russian``, ``moscow`` or ``american``."""

    discipline_family = "pyramid"

    def __init__(self, variant: str, title: str) -> None:
        self.variant = variant
        self.name = f"{variant}_pyramid"
        self.discipline = self.name
        self.title = title
        self.fouls = {c: r for c, r in FOULS.items() if c not in _NOT_IN[variant]}
        self.table: Table = get_table("pyramid")
        self.house_x = self.table.lines["house"][0][0]
        self.back_x = self.table.spots["back"][0]
        self.radius = PYRAMID_BALL / 2

    # ------------------------------------------------------------------ settings
    def new_state(self, settings: dict[str, Any]) -> PyramidState:
        players, first = players_and_first(settings)
        frames = int_setting(settings, "frames", 1)
        win = int_setting(settings, "win_balls", WIN_BALLS)
        lag = settings.get("lag", False)
        from_hand = settings.get("from_hand", True)
        for key, v in (("lag", lag), ("from_hand", from_hand)):
            if not isinstance(v, bool):
                raise AdjudicationError(f"match setting {key!r} must be true or false")
        zero = {p: 0 for p in players}
        score = settings.get("score", zero)
        if (not isinstance(score, dict) or set(score) - set(players)
                or any(isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < win
                       for v in score.values())):
            raise AdjudicationError("match setting 'score' must give each player a count of "
                                    f"balls from 0 to {win - 1}")
        counts = {p: int(score.get(p, 0)) for p in players}
        return PyramidState(players, first, frames, win, frames_won=dict(zero),
                            breaker=first, turn=first, counts=counts,
                            pocketed={p: [] for p in players}, debt=dict(zero),
                            innings=dict(zero), lag=lag, phase="lag" if lag else "play",
                            from_hand=from_hand)

    # ------------------------------------------------------------------ geometry
    def in_house(self, p: tuple[float, float], temporary: bool = False) -> bool:
        """Inside the house by the centre; on the line is outside [001 §9]. The
        temporary house at the foot end is bounded by the back line [001 §5]."""
        return p[0] > self.back_x if temporary else p[0] < self.house_x

    def _occupied(self, p: tuple[float, float], balls: dict[str, tuple[float, float]]) -> bool:
        d = 2 * self.radius + RESPOT_CLEARANCE
        return any(math.hypot(p[0] - q[0], p[1] - q[1]) < d for q in balls.values())

    def respot_place(self, balls: dict[str, tuple[float, float]]) -> tuple[float, float]:
        """[assumed: 001 §8 leaves it to each game; as federation practice: the back
        spot, else on the long axis as near as possible toward the foot cushion, else
        toward the centre spot.]"""
        x0, y = self.table.spots["back"]
        if not self._occupied((x0, y), balls):
            return (x0, y)
        x = x0
        while x <= self.table.length - self.radius:
            if not self._occupied((x, y), balls):
                return (x, y)
            x += 1.0
        x = x0
        while x >= self.radius:
            if not self._occupied((x, y), balls):
                return (x, y)
            x -= 1.0
        return (x0, y)

    # ------------------------------------------------------------------ judging
    def judge(self, state: PyramidState, shot: Shot) -> tuple[PyramidState, ShotCall]:
        st = copy.deepcopy(state)
        reasons: list[str] = []
        player = st.turn
        overridden = False
        for e in shot.referee_actions("shooter"):
            who = e.extra.get("player")
            if who not in st.players:
                raise AdjudicationError(f"t={e.t}: referee 'shooter' names {who!r}; known: "
                                        f"{', '.join(st.players)}")
            player, overridden = who, True
            reasons.append(f"{who} shoots (referee entry)")
        opponent = other_player(st.players, player)
        struck = shot.struck_ball or "cue"
        if st.over:
            return st, self._call(st, shot, player, struck, {}, [], player, [],
                                  ["the match is over; shot not judged"], {})
        if st.phase == "lag":
            return self._judge_lag(st, shot, player, struck, reasons)
        if st.frame_shots == 0 and overridden:
            st.breaker = player  # the lag winner gave the opening stroke away (§4)
        st.frame_shots += 1
        if player != st.last_shooter:
            st.innings[player] += 1
        st.last_shooter = player

        if shot.referee_actions("replay"):
            return self._replay(st, shot, player, struck,
                                "outside interference: position restored, stroke replayed "
                                "without penalty (001 §16)")
        fell = self._hanging_fell_first(st, shot)
        contacts = [e for e in shot.of_type("ball_ball") if struck in e.ids]
        first = None
        if contacts:
            first = contacts[0].ids[1] if contacts[0].ids[0] == struck else contacts[0].ids[0]
        shaken: list[Respot] = []
        stroke_end = shot.end.t if shot.end is not None else math.inf
        for ball, (pocket, pos) in fell.items():
            fell_t = next(e.t for e in shot.of_type("pocket") if e.ids[0] == ball)
            if first in (None, ball) and fell_t <= stroke_end:
                # struck at it (the cue ball's first ball, or none as it fell): §13 ¶3
                return self._replay(st, shot, player, struck,
                                    f"ball {ball} hanging over {pocket} fell before the cue "
                                    "ball reached it: position restored, stroke replayed "
                                    "without penalty (001 §13)",
                                    [Respot(ball, "hanging", pos)])
            shaken.append(Respot(ball, "hanging", pos))
            reasons.append(f"ball {ball} hanging over {pocket} fell untouched: put back where "
                           "it hung, play goes on (001 §13)")
        if shot.referee_actions("rerack"):
            return self._rerack(st, shot, player, struck)

        before = shot.layout_before()
        after = shot.layout_after()
        removed = None
        if st.remove_for_cue:
            removed = self._moscow_removed(st, before, reasons)
            st.remove_for_cue = False
        end_t = shot.end.t if shot.end is not None else None
        from_hand = st.from_hand
        temporary = False
        if from_hand:
            objects = [p for b, p in before.items() if b != struck]
            temporary = bool(objects) and all(self.in_house(p) for p in objects)
            cue_pos = before.get(struck)
            if cue_pos is not None and not self.in_house(cue_pos, temporary):
                reasons.append("cue ball placed outside the house (centre on or beyond the "
                               "line is outside, 001 §9): the referee must warn (§14 п)")
            if temporary:
                reasons.append("every object ball is in the house: from hand from the "
                               "opposite end, bounded by the back line (001 §5)")

        fouls: list[Foul] = []
        opp_fouls: list[Foul] = []

        def call_foul(code: str, why: str) -> None:
            if code in self.fouls and all(f.code != code for f in fouls):
                fouls.append(Foul.of(self.fouls[code]))
                reasons.append(f"{why} ({self.fouls[code].article})")

        if not st.prev_ended:
            call_foul("14.в", "stroke played before the previous one ended")
        if self.variant != "american" and struck != "cue":
            call_foul("14.м", f"ball {struck} struck instead of the cue ball")

        pots, hang_respots, still_hanging = self._pots(st, shot, end_t)
        pots = [b for b in pots if b not in fell]
        hang_respots += shaken
        off = [e.ids[0] for e in shot.of_type("off_table")]
        off = [b for b in dict.fromkeys(off) if b not in after]  # returned by itself: in play
        for e in shot.referee_actions("off_table"):
            b = e.extra.get("ball")
            if b not in before:
                raise AdjudicationError(f"t={e.t}: referee 'off_table' needs 'ball', one of "
                                        f"{', '.join(before)}")
            if b not in off:
                off.append(b)
                reasons.append(f"ball {b} touched something off the table: jumped, even "
                               "though it came back (001 §7, referee)")

        if first is None:
            call_foul("14.а", "the cue ball touched no object ball")
        if struck in off:
            call_foul("14.б", "the cue ball jumped off the table")
        if struck in pots and self.variant == "russian":
            call_foul("14.н", "the cue ball fell into a pocket")
        if from_hand:
            ball = self._house_ball_touched(struck, before, shot, temporary)
            if ball is not None:
                call_foul("14.л", f"from hand, the cue ball touched ball {ball} in the house")
        for e in shot.prelude + shot.of_type("ball_disturbed"):
            if e.type != "ball_disturbed":
                continue
            if e in shot.prelude and from_hand and e.ids[0] == struck:
                continue  # the cue ball placed in the house by hand (§5)
            if end_t is not None and e.t > end_t:
                reasons.append(f"ball {e.ids[0]} moved between strokes: the referee decides "
                               "who touched it (001 §14 д)")
                continue
            call_foul("14.д", f"ball {e.ids[0]} touched")
        near = self._near_ball(struck, first, before, after, contacts, shot)
        if near == "foul":
            call_foul("14.ж", f"near ball {first}: neither cut at 45 degrees nor the cue ball "
                      "kept out of the penalty zone")
        elif near == "unknown":
            reasons.append(f"near ball {first} (within half a radius): the cut angle cannot "
                           "be measured, referee to judge (001 §11)")
        for e in shot.referee_actions("foul"):
            code = e.extra.get("code")
            if code not in self.fouls:
                raise AdjudicationError(f"t={e.t}: referee foul code {code!r}; known: "
                                        f"{', '.join(self.fouls)}")
            target = opp_fouls if code == "14.р" else fouls
            if all(f.code != code for f in target):
                target.append(Foul.of(self.fouls[code], source="referee"))
                reasons.append(f"{self.fouls[code].description} ({self.fouls[code].article},"
                               " referee)")
        for e in shot.referee_actions("cancel_foul"):
            code = e.extra.get("code")
            if any(f.code == code for f in fouls + opp_fouls):
                fouls = [f for f in fouls if f.code != code]
                opp_fouls = [f for f in opp_fouls if f.code != code]
                reasons.append(f"foul {code} cancelled by the referee")

        not_counted = {e.extra.get("ball") for e in shot.referee_actions("not_counted")}
        interfered = [e.extra.get("ball") for e in shot.referee_actions("interference")]

        # ---- what stays on the table, what is respotted, what counts
        table_now = dict(after or before)  # no shot_end: where they stood, best guess
        for b in pots + off:
            table_now.pop(b, None)
        respots: list[Respot] = list(hang_respots)
        for r in hang_respots:
            table_now[r.ball] = r.pos

        def respot(ball: str) -> None:
            pos = self.respot_place(table_now)
            table_now[ball] = pos
            respots.append(Respot(ball, "back", pos))

        points = {p: 0 for p in st.players}
        extra: dict[str, Any] = {"variant": self.variant}
        cue_out = struck in pots or struck in off
        counted: list[str] = []
        for b in interfered:
            if b and b not in pots:
                pots.append(b)
                table_now.pop(b, None)  # counted: the referee takes it off the table
                reasons.append(f"ball {b} stopped by the opponent: counted (001 §17)")
        if fouls:
            # §14: balls pocketed on a foul do not count and are respotted; §7, §8.
            for b in pots + off:
                if b == struck and self.variant != "american":
                    continue
                respot(b)
            pen_from = player
            self._penalise(st, pen_from, points, respot, reasons)
            if len(fouls) > 1:
                reasons.append(f"{len(fouls)} fouls in one stroke: one penalty (001 §14)")
            next_player = opponent
            st.from_hand = self.variant != "american" and cue_out
            if st.from_hand:
                reasons.append("opponent plays from hand from the house (001 §5, §7)")
        else:
            for b in off:
                if b == struck and self.variant != "american":
                    continue
                respot(b)
                reasons.append(f"ball {b} jumped off the table: respotted, no penalty "
                               "(001 §7)")
            for b in pots:
                if b in not_counted:
                    respot(b)
                    reasons.append(f"ball {b} rolled in along the cushion: not counted, "
                                   "respotted, no penalty (001 §6)")
                    continue
                counted.append(b)
            if struck in counted and self.variant == "moscow":
                extra["remove_ball"] = True
                st.remove_for_cue = True
                reasons.append("cue ball pocketed off an object ball counts; the player takes "
                               "an object ball of his choice off the table and plays from "
                               "hand (001 §5) [assumed: Moscow rules]")
            st.from_hand = self.variant != "american" and cue_out
            st.counts[player] += len(counted)
            st.pocketed[player].extend(counted)
            points[player] += len(counted)
            if counted:
                reasons.append(f"{len(counted)} ball(s) pocketed: {', '.join(counted)} "
                               "(001 §6)")
            while st.debt[player] > 0 and st.counts[player] > 0:
                st.debt[player] -= 1
                self._give_back(st, player, points, respot)
                reasons.append("penalty ball owed from an earlier foul now returned to the "
                               "table (001 §14) [assumed: debt]")
            next_player = player if counted or interfered else opponent
            if not counted:
                reasons.append("no ball pocketed: the opponent plays (001 §12)")
        if opp_fouls:
            self._penalise(st, opponent, points, respot, reasons)
            if not fouls:
                next_player = player
        st.hanging = still_hanging
        st.last_layout = table_now
        if removed is not None:
            extra["removed"] = removed
        for b in still_hanging:
            reasons.append(f"ball {b} hangs over {still_hanging[b][0]} (001 §13)")
        st.prev_ended = shot.end is not None
        extra["pocketed"] = counted
        if st.from_hand:
            extra["from_hand"] = "house"
        extra["debt"] = dict(st.debt)

        match_info = self._maybe_end_frame(st, player, reasons)
        if match_info.get("frame_over"):
            next_player = st.turn
            respots = []
        else:
            st.turn = next_player
        return st, self._call(st, shot, player, struck, points, fouls + opp_fouls,
                              next_player, respots, reasons, extra, match_info)

    # ------------------------------------------------------------------ pieces
    def _pots(self, st: PyramidState, shot: Shot, end_t: float | None
              ) -> tuple[list[str], list[Respot], dict[str, tuple[str, tuple[float, float]]]]:
        """Pocketed balls of this stroke with the hanging-ball rule [001 §13]."""
        hung: dict[str, tuple[str, tuple[float, float], float]] = {}
        after = shot.layout_after()
        for e in shot.of_type("ball_rest"):
            if e.hanging:
                b = e.ids[0]
                pos = e.pos[0] if e.pos else after.get(b, self.table.pocket(e.hanging).centre)
                hung[b] = (e.hanging, pos, e.t)
        pots: list[str] = []
        respots: list[Respot] = []
        for e in shot.of_type("pocket"):
            b = e.ids[0]
            if b in pots:
                continue
            h = hung.get(b)
            if h is not None and h[2] < e.t and end_t is not None and e.t - end_t >= \
                    HANGING_SECONDS:
                respots.append(Respot(b, "hanging", h[1]))
                hung.pop(b)
                continue
            hung.pop(b, None)
            pots.append(b)
        # balls left hanging at an earlier stroke that fell now, not first struck:
        # handled before judging (_hanging_fell_first); those struck and fallen are pots.
        still = {b: (p, pos) for b, (p, pos, _t) in hung.items()}
        for b, v in st.hanging.items():
            q = after.get(b)
            if b not in pots and b not in still and q is not None and \
                    math.hypot(q[0] - v[1][0], q[1] - v[1][1]) < 1.0:
                still[b] = v  # still on the jaw, where it hung
        return pots, respots, still

    def _house_ball_touched(self, struck: str, before: dict[str, tuple[float, float]],
                            shot: Shot, temporary: bool) -> str | None:
        """§14 л: the cue ball touches an object ball standing in the house.

        A ball still untouched in this stroke is where it stood at the start, so its
        start position says whether it is in the house when the cue ball reaches it.
        """
        moved: set[str] = set()
        for e in shot.of_type("ball_ball"):
            if struck in e.ids:
                other = e.ids[1] if e.ids[0] == struck else e.ids[0]
                p = before.get(other)
                if other not in moved and p is not None and self.in_house(p, temporary):
                    return other
            moved.update(e.ids)
        return None

    def _moscow_removed(self, st: PyramidState, before: dict[str, tuple[float, float]],
                        reasons: list[str]) -> str | None:
        """The object ball taken off for a Moscow свояк: gone from the table since."""
        gone = [b for b in st.last_layout if b not in before and b != "cue"]
        if len(gone) == 1:
            reasons.append(f"ball {gone[0]} taken off the table for the pocketed cue ball")
            return gone[0]
        reasons.append("the object ball taken off for the pocketed cue ball is not seen: "
                       "referee to check (001 §5) [assumed: Moscow rules]")
        return None

    def _hanging_fell_first(self, st: PyramidState, shot: Shot
                            ) -> dict[str, tuple[str, tuple[float, float]]]:
        """Balls left hanging that drop in this stroke before any ball touches them."""
        out: dict[str, tuple[str, tuple[float, float]]] = {}
        for b, v in st.hanging.items():
            for e in shot.events[1:]:
                if e.type == "ball_ball" and b in e.ids:
                    break
                if e.type == "pocket" and e.ids and e.ids[0] == b:
                    out[b] = v
                    break
        return out

    def _near_ball(self, struck: str, first: str | None,
                   before: dict[str, tuple[float, float]],
                   after: dict[str, tuple[float, float]], contacts: list, shot: Shot
                   ) -> str | None:
        """§11 for a first ball within half a radius: None (not near), fair, foul, unknown.

        Fair when the cue ball does not end beyond the line through the object ball's
        centre square to the line of centres (it stopped, came back or went aside), or
        when the cut is 45 degrees or more: the angle between the cue ball's travel
        before the contact and the line of centres at the contact (``ball_ball.pos``).
        """
        if first is None or struck not in before or first not in before:
            return None
        c, o = before[struck], before[first]
        dist = math.hypot(o[0] - c[0], o[1] - c[1])
        if dist - 2 * self.radius > NEAR_GAP_FRACTION * self.radius or dist == 0:
            return None
        ux, uy = (o[0] - c[0]) / dist, (o[1] - c[1]) / dist
        end = after.get(struck)
        if end is not None and (end[0] - o[0]) * ux + (end[1] - o[1]) * uy <= 0:
            return "fair"
        hit = contacts[0]
        if len(hit.pos) != 2:
            return "unknown"
        cpos = hit.pos[hit.ids.index(struck)]
        opos = hit.pos[1 - hit.ids.index(struck)]
        tx, ty = cpos[0] - c[0], cpos[1] - c[1]
        travel = math.hypot(tx, ty)
        if travel < MIN_TRAVEL_FOR_ANGLE:
            return "unknown"
        nx, ny = opos[0] - cpos[0], opos[1] - cpos[1]  # line of centres at the contact
        norm = math.hypot(nx, ny)
        if norm > 0:
            ux, uy = nx / norm, ny / norm
        cos = (tx * ux + ty * uy) / travel
        angle = math.degrees(math.acos(max(-1.0, min(1.0, cos))))
        return "fair" if angle >= NEAR_CUT_DEG - ANGLE_TOLERANCE_DEG else "foul"

    def _give_back(self, st: PyramidState, who: str, points: dict[str, int], respot) -> None:
        # the last object ball he pocketed (a Moscow свояк stands for a ball he chose)
        balls = [b for b in st.pocketed[who] if b != "cue"]
        ball = balls[-1] if balls else "any"
        if ball in st.pocketed[who]:
            st.pocketed[who].remove(ball)
        elif st.pocketed[who]:
            st.pocketed[who].pop()
        st.counts[who] -= 1
        points[who] -= 1
        respot(ball)

    def _penalise(self, st: PyramidState, who: str, points: dict[str, int], respot,
                  reasons: list[str]) -> None:
        """One penalty ball: from the offender's balls back to the table, else owed.

        [assumed: 001 §14 does not state the penalty; federation practice: one of the
        offender's pocketed balls is put back on the table (back spot, §8); with none,
        the ball is owed and returned after his next pocketed ball.]
        """
        for _ in range(PENALTY_BALLS):
            if st.counts[who] > 0:
                self._give_back(st, who, points, respot)
                reasons.append(f"penalty: one of {who}'s balls goes back on the table "
                               "(001 §14)")
            else:
                st.debt[who] += 1
                reasons.append(f"penalty: {who} has no ball, one is owed (001 §14) "
                               "[assumed: debt]")

    def _replay(self, st: PyramidState, shot: Shot, player: str, struck: str, why: str,
                respots: list[Respot] | None = None) -> tuple[PyramidState, ShotCall]:
        layout = shot.layout_before()
        restore = [Respot(b, "restore", p) for b, p in layout.items()]
        st.hanging = {}
        st.prev_ended = True
        extra = {"variant": self.variant, "replay": True, "debt": dict(st.debt)}
        if st.from_hand:
            extra["from_hand"] = "house"
        return st, self._call(st, shot, player, struck, {p: 0 for p in st.players}, [],
                              player, (respots or []) + restore, [why], extra)

    def _rerack(self, st: PyramidState, shot: Shot, player: str, struck: str
                ) -> tuple[PyramidState, ShotCall]:
        st.from_hand = True
        st.hanging = {}
        st.prev_ended = True
        return st, self._call(st, shot, player, struck, {p: 0 for p in st.players}, [],
                              player, [], ["dead position: the remaining balls are racked "
                                           "at the back spot, play from hand, first shot by "
                                           "lag (referee 'shooter' entry) (001 §15)"],
                              {"variant": self.variant, "rerack": True, "from_hand": "house"})

    # ------------------------------------------------------------------ the lag §4
    def _judge_lag(self, st: PyramidState, shot: Shot, player: str, struck: str,
                   reasons: list[str]) -> tuple[PyramidState, ShotCall]:
        """One half of the lag, or the decision once both balls were played [001 §4].

        The two balls are struck at about the same time: the first ``shot_start`` is
        the first player's (``players[0]`` unless a ``shooter`` entry says otherwise),
        the second the other's; their events are judged together.
        """
        extra: dict[str, Any] = {"variant": self.variant}
        st.prev_ended = True
        for e in shot.referee_actions("lag"):
            winner = e.extra.get("winner")
            if winner not in st.players:
                raise AdjudicationError(f"t={e.t}: referee 'lag' needs 'winner', one of "
                                        f"{', '.join(st.players)}")
            reasons.append(f"lag won by {winner} (referee entry, 001 §4)")
            return self._lag_won(st, shot, player, struck, winner, reasons, extra)
        start = shot.layout_before().get(struck, (0.0, self.table.width / 2))
        if st.lag_half is None or st.lag_half[0] == struck:
            who = player if shot.referee_actions("shooter") else st.players[0]
            st.lag_half = (struck, who, start, list(shot.events))
            extra["lag"] = {"status": "waiting"}
            reasons.append(f"lag: {who} played ball {struck}; waiting for the other ball "
                           "(001 §4)")
            return st, self._call(st, shot, who, struck, {}, [], other_player(st.players, who), [],
                                  reasons, extra)
        ball1, p1, start1, events1 = st.lag_half
        p2 = other_player(st.players, p1)
        st.lag_half = None
        events = events1 + list(shot.events)
        after = shot.layout_after()
        halves = {ball1: (p1, start1), struck: (p2, start)}
        errors: dict[str, str] = {}
        mid = self.table.width / 2
        for b, (p, s0) in halves.items():
            mine = [e for e in events if b in e.ids]
            side = math.copysign(1.0, s0[1] - mid)
            seen = [q for e in mine for i, q in zip(e.ids, e.pos, strict=False) if i == b]
            if b in after:
                seen.append(after[b])
            if any(e.type == "pocket" for e in mine if e.ids[0] == b):
                errors[p] = "fell into a pocket"
            elif any(e.type == "off_table" for e in mine if e.ids[0] == b):
                errors[p] = "jumped off the table"
            elif not any(e.type == "ball_cushion" and e.ids[0] == b and e.cushion == "foot"
                         for e in mine):
                errors[p] = "did not reach the back cushion"
            elif any((q[1] - mid) * side < 0 for q in seen):
                errors[p] = "crossed into the opponent's half"
        lag: dict[str, Any] = {"errors": errors}
        if len(errors) == 2:
            lag["status"] = "repeat"
            reasons.append("lag: both players broke its rules; repeated (001 §4)")
        elif len(errors) == 1:
            loser = next(iter(errors))
            winner = other_player(st.players, loser)
            reasons.append(f"lag: {loser}'s ball {errors[loser]}: lag lost (001 §4)")
            extra["lag"] = {**lag, "status": "won", "winner": winner}
            return self._lag_won(st, shot, p2, struck, winner, reasons, extra)
        elif not all(b in after for b in halves):
            lag["status"] = "repeat"
            reasons.append("lag: the final positions are not seen; referee 'lag' entry "
                           "(001 §4)")
        else:
            dist = {halves[b][0]: after[b][0] for b in halves}  # from the front cushion
            if abs(dist[p1] - dist[p2]) <= 0.5:
                lag["status"] = "repeat"
                reasons.append("lag: both balls at the same distance; repeated (001 §4)")
            else:
                winner = min(dist, key=lambda p: dist[p])
                reasons.append(f"lag won by {winner}: {dist[winner]:.0f} mm from the front "
                               f"cushion against {dist[other_player(st.players, winner)]:.0f} mm "
                               "(001 §4)")
                extra["lag"] = {**lag, "status": "won", "winner": winner,
                                "distance_mm": {p: round(d, 1) for p, d in dist.items()}}
                return self._lag_won(st, shot, p2, struck, winner, reasons, extra)
        extra["lag"] = lag
        return st, self._call(st, shot, p2, struck, {}, [], st.players[0], [], reasons,
                              extra)

    def _lag_won(self, st: PyramidState, shot: Shot, player: str, struck: str, winner: str,
                 reasons: list[str], extra: dict[str, Any]) -> tuple[PyramidState, ShotCall]:
        st.phase, st.lag_half = "play", None
        st.breaker = st.turn = winner
        st.from_hand, st.frame_shots, st.last_shooter = True, 0, None
        extra.setdefault("lag", {"status": "won", "winner": winner})
        extra["from_hand"] = "house"
        reasons.append(f"{winner} opens, or gives the opening stroke away (referee "
                       "'shooter' entry on it) (001 §4)")
        return st, self._call(st, shot, player, struck, {}, [], winner, [], reasons, extra)

    def _maybe_end_frame(self, st: PyramidState, player: str, reasons: list[str]
                         ) -> dict[str, Any]:
        info: dict[str, Any] = {"frame": st.frame, "frames_to_win": st.frames_to_win}
        winner = next((p for p in st.players if st.counts[p] >= st.win_balls), None)
        if winner is not None:
            st.frames_won[winner] += 1
            info.update(frame_over=True, frame_winner=winner)
            reasons.append(f"{winner} has {st.counts[winner]} balls: frame won")
            if st.frames_won[winner] >= st.frames_to_win:
                st.over, st.winner = True, winner
                st.turn = other_player(st.players, player)
            else:
                # §4: later frames are opened in turn.
                st.frame += 1
                st.breaker = other_player(st.players, st.breaker)
                st.turn = st.breaker
                st.counts = {p: 0 for p in st.players}
                st.pocketed = {p: [] for p in st.players}
                st.debt = {p: 0 for p in st.players}
                st.from_hand, st.hanging, st.last_shooter = True, {}, None
                st.frame_shots = 0
                need = st.frames_to_win - 1
                if st.lag and all(v == need for v in st.frames_won.values()):
                    st.phase = "lag"  # §4: the lag is played again before the decider
                    st.turn = st.players[0]
                    reasons.append(f"frame {st.frame} decides the match: a new lag (001 §4)")
                else:
                    reasons.append(f"frame {st.frame}: {st.breaker} opens from hand "
                                   "(001 §4, §5)")
        info["frames"] = dict(st.frames_won)
        info["over"] = st.over
        info["winner"] = st.winner
        return info

    def _call(self, st: PyramidState, shot: Shot, player: str, struck: str,
              points: dict[str, int], fouls: list[Foul], next_player: str,
              respots: list[Respot], reasons: list[str], extra: dict[str, Any],
              match: dict[str, Any] | None = None) -> ShotCall:
        if match is None:
            match = {"frame": st.frame, "frames_to_win": st.frames_to_win,
                     "frames": dict(st.frames_won), "over": st.over, "winner": st.winner}
        full = {p: points.get(p, 0) for p in st.players}
        return ShotCall(shot=shot.number, t=shot.t, player=player, ball=struck, points=full,
                        fouls=fouls, next_player=next_player,
                        ball_in_hand=bool(extra.get("from_hand")), free_shot=False,
                        respots=respots, score=dict(st.counts), innings=dict(st.innings),
                        match=match, reasons=reasons, extra=extra)


russian_pyramid = PyramidGame("russian", "Russian pyramid")
moscow_pyramid = PyramidGame("moscow", "Moscow pyramid")
american_pyramid = PyramidGame("american", "\"American\" pyramid")

GAMES = [russian_pyramid, moscow_pyramid, american_pyramid]
