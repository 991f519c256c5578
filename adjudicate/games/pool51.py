"""Pool 51 (blackball, RFEB; rulebook 003): break, groups, free shot, fouls, loss, frames.

A frame starts with a break from the D (Art. 6.3). A player owns a group (``red_*`` or
``yellow_*``), pots it in any order and then the black (Art. 4). A foul gives the
opponent a free shot (*tiro libre*, Art. 5.2) and then his normal visit (Art. 7.1);
the cue ball may then be played where it lies or from the D, and must be placed in
the D when it was potted or left the table (Art. 5.4, 7.1.i). A stalemate (three
shots each without progress) replays the frame (Art. 8.2, 9.9.a).

Choices where 003 is silent are marked ``[assumed: ...]`` and documented in
docs/rules/pool51.md.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from typing import Any

from equipment.tables import POOL_BALL, POOL_CUE_BALL, Table, get_table

from ..calls import Foul, FoulRule, Respot, ShotCall
from ..engine import AdjudicationError, Shot
from ..settings import int_setting, other_player, players_and_first

RULEBOOK = "003"
GROUPS = ("red", "yellow")
COLOURS = {g: tuple(f"{g}_{k}" for k in range(1, 8)) for g in GROUPS}
OBJECT_BALLS = COLOURS["red"] + COLOURS["yellow"] + ("black",)
BREAK_CUSHION_BALLS = 2  # [003 Art. 6.3: at least two balls to a cushion]
STALEMATE_SHOTS_EACH = 3  # [003 Art. 9.9.a: three shots each]
STALEMATE_MM = 100.0  # [assumed: "aproximadamente" = no object ball moved > 100 mm]
TOUCH_MM = 1.0  # [assumed: balls "in contact" (Art. 5.6) when the gap is at most 1 mm]
RESPOT_CLEARANCE = 0.5  # mm, so a respotted ball does not touch its neighbour


def _rule(code: str, text: str, observable: bool = True, ball_in_hand: bool = True
          ) -> FoulRule:
    return FoulRule(code, f"{RULEBOOK} Art.{code}", text, 0, ball_in_hand, observable)


FOULS: dict[str, FoulRule] = {r.code: r for r in (
    _rule("6.4", "break: fewer than two balls to a cushion and no colour potted "
          "(re-rack, the opponent breaks, no free shot)", ball_in_hand=False),
    _rule("7.1.a", "cue ball potted"),
    _rule("7.1.b", "an opponent's ball hit first"),
    _rule("7.1.c", "no ball hit by the cue ball"),
    _rule("7.1.d", "jump shot over a ball before the first contact", observable=False),
    _rule("7.1.e", "black hit first before the group was cleared"),
    _rule("7.1.f", "an opponent's ball potted (not by combination)"),
    _rule("7.1.g", "a ball touched by the player's body or clothes"),
    _rule("7.1.h", "no foot on the floor", observable=False),
    _rule("7.1.i", "a ball left the table"),
    _rule("7.1.k", "shot out of turn", observable=False),
    _rule("7.1.l", "shot before the balls stopped"),
    _rule("7.1.m", "shot before the balls dropped", observable=False),
    _rule("7.1.n", "shot before a ball was respotted on the black spot"),
    _rule("7.1.o", "cue ball struck with a part of the cue other than the tip",
          observable=False),
    _rule("7.1.p", "cue ball struck more than once", observable=False),
    _rule("7.1.r", "push or drag stroke", observable=False),
    _rule("7.1.s", "a colour or the black moved with balls in contact", observable=False),
    _rule("7.1.t", "cloth or table moved to cause a movement", observable=False),
    FoulRule("not_cue", f"{RULEBOOK} Art.5.2", "a ball other than the cue ball struck "
             "(the player plays the cue ball, Art. 5.2, 5.4)", 0, True, True),
    _rule("5.6", "cue ball touching an opponent's ball not played toward an own ball",
          observable=False),
    _rule("8.1.a", "black potted before the own group was cleared: frame lost"),
    _rule("8.1.b", "cue ball and black potted: frame lost"),
    _rule("8.1.c", "clearly avoided playing an own ball: frame lost", observable=False),
    _rule("8.1.d", "touched a moving ball or returned a potted ball: frame lost",
          observable=False),
    _rule("8.1.e", "repeated marks with cue or chalk: frame lost", observable=False),
)}
LOSS_CODES = ("8.1.a", "8.1.b", "8.1.c", "8.1.d", "8.1.e")


def group_of(ball: str) -> str | None:
    for g in GROUPS:
        if ball in COLOURS[g]:
            return g
    return None


@dataclass
class Pool51State:
    """Everything the next call depends on; ``judge`` works on a copy."""

    players: tuple[str, str]
    first: str
    frames_to_win: int
    stalemate_mm: float
    frame: int = 1
    frames_won: dict[str, int] = field(default_factory=dict)
    breaker: str = ""  # who opened this frame: the next frame is the other's (6.2)
    frame_shots: int = 0  # shots judged in this frame (a 'shooter' entry on the first
    # one is the toss winner handing the break over, 6.2)
    turn: str = ""
    breaking: bool = True  # the next shot is a break (Art. 6.3)
    rebreak: bool = False  # that break is the supplementary shot after a failed one (6.4)
    mid_frame: bool = False  # the stream starts after the break: balls missing are down
    groups: dict[str, str] = field(default_factory=dict)  # player -> red | yellow
    down: list[str] = field(default_factory=list)  # object balls potted this frame
    free_shot: bool = False
    to_respot: list[str] = field(default_factory=list)  # balls the referee must put back
    cue_ball_in: str | None = None  # "d" (must) or "d_or_in_place" (may)
    declare_by: str | None = None  # who must declare a group to the referee
    prev_ended: bool = True
    quiet: dict[str, int] = field(default_factory=dict)  # shots without progress, each
    quiet_since: str | None = None  # who played the first of them
    quiet_layout: dict[str, tuple[float, float]] = field(default_factory=dict)
    innings: dict[str, int] = field(default_factory=dict)
    last_shooter: str | None = None
    over: bool = False
    winner: str | None = None


class Pool51Game:
    name = "pool51"
    title = "Pool 51 (blackball, RFEB)"
    discipline = "pool51"
    fouls = FOULS

    def __init__(self) -> None:
        self.table: Table = get_table("pool51")
        self.radius = POOL_BALL / 2

    # ------------------------------------------------------------------ settings
    def new_state(self, settings: dict[str, Any]) -> Pool51State:
        players, first = players_and_first(settings)
        frames = int_setting(settings, "frames", 1)
        tol = settings.get("stalemate_mm", STALEMATE_MM)
        if isinstance(tol, bool) or not isinstance(tol, int | float) or tol <= 0:
            raise AdjudicationError("match setting 'stalemate_mm' must be a positive number")
        breaking = settings.get("breaking", True)
        if not isinstance(breaking, bool):
            raise AdjudicationError("match setting 'breaking' must be true or false")
        groups = settings.get("groups", {})
        if (not isinstance(groups, dict) or any(p not in players for p in groups)
                or any(g not in GROUPS for g in groups.values())
                or len(set(groups.values())) != len(groups)):
            raise AdjudicationError("match setting 'groups' must map the players to "
                                    f"different groups ({', '.join(GROUPS)})")
        zero = {p: 0 for p in players}
        st = Pool51State(players, first, frames, float(tol), frames_won=dict(zero),
                         breaker=first, turn=first, innings=dict(zero), breaking=breaking,
                         mid_frame=not breaking)
        if groups:
            p, g = next(iter(groups.items()))
            self._set_groups(st, p, g)
        return st

    # ------------------------------------------------------------------ geometry
    def in_d(self, p: tuple[float, float]) -> bool:
        """Inside the D (the baulk line and the semicircle included)."""
        poly = self.table.zones["d"]
        bx = self.table.lines["baulk"][0][0]
        cx, cy = self.table.spots["d_centre"]
        radius = max(math.hypot(x - cx, y - cy) for x, y in poly)
        return p[0] <= bx + 1e-9 and math.hypot(p[0] - cx, p[1] - cy) <= radius + 1e-9

    def respot_place(self, balls: dict[str, tuple[float, float]]) -> tuple[float, float]:
        """The black spot, else as near as possible on the line toward the centre of the
        D without touching another ball [003 Art. 7.1.i]."""
        sx, sy = self.table.spots["black"]
        dx, dy = self.table.spots["d_centre"]
        length = math.hypot(sx - dx, sy - dy)
        ux, uy = (dx - sx) / length, (dy - sy) / length
        d = 2 * self.radius + RESPOT_CLEARANCE
        step = 0.0
        while step <= length:
            p = (sx + ux * step, sy + uy * step)
            if all(math.hypot(p[0] - q[0], p[1] - q[1]) >= d for q in balls.values()):
                return p
            step += 1.0
        return (sx, sy)

    # ------------------------------------------------------------------ judging
    def judge(self, state: Pool51State, shot: Shot) -> tuple[Pool51State, ShotCall]:
        st = copy.deepcopy(state)
        reasons: list[str] = []
        player = st.turn
        for e in shot.referee_actions("shooter"):
            who = e.extra.get("player")
            if who not in st.players:
                raise AdjudicationError(f"t={e.t}: referee 'shooter' names {who!r}; known: "
                                        f"{', '.join(st.players)}")
            player = who
            reasons.append(f"{who} shoots (referee entry)")
        opponent = other_player(st.players, player)
        struck = shot.struck_ball or "cue"
        extra: dict[str, Any] = {}
        if st.over:
            return st, self._call(st, shot, player, struck, {}, [], player, [],
                                  ["the match is over; shot not judged"], extra)
        if st.frame_shots == 0 and st.breaking and player != st.breaker:
            st.breaker = player  # 6.2: the toss winner let the other open the frame
        st.frame_shots += 1
        if player != st.last_shooter:
            st.innings[player] += 1
        st.last_shooter = player
        if not st.breaking:
            self._apply_group_entries(st, shot, reasons)

        before, after = shot.layout_before(), shot.layout_after()
        if st.mid_frame:
            st.mid_frame = False
            if before:
                st.down = [b for b in OBJECT_BALLS if b not in before]
                if st.down:
                    reasons.append(f"stream starts mid-frame: {', '.join(st.down)} already "
                                   "potted")
        pocket_events = [e for e in shot.of_type("pocket") if e.ids]
        pots = list(dict.fromkeys(e.ids[0] for e in pocket_events))
        pot_time = {}
        for e in pocket_events:
            pot_time.setdefault(e.ids[0], e.t)
        off_all = list(dict.fromkeys(e.ids[0] for e in shot.of_type("off_table") if e.ids))
        off = [b for b in off_all if b not in after]  # came back by itself: stays
        contacts = [e for e in shot.of_type("ball_ball") if "cue" in e.ids]
        first = None
        if contacts:
            first = contacts[0].ids[1] if contacts[0].ids[0] == "cue" else contacts[0].ids[0]
        touched_by_cue = {b for e in contacts for b in e.ids if b != "cue"}

        fouls: list[Foul] = []
        n_before_fouls = len(reasons)

        # a referee 'cancel_foul' overrides the camera whenever the camera calls it
        cancelled = {e.extra.get("code") for e in shot.referee_actions("cancel_foul")}

        def call_foul(code: str, why: str, source: str = "camera") -> None:
            if source == "camera" and code in cancelled:
                reasons.append(f"{why}: foul {code} cancelled by the referee")
                return
            if all(f.code != code for f in fouls):
                fouls.append(Foul.of(FOULS[code], source=source))
                reasons.append(f"{why} ({FOULS[code].article}"
                               + (", referee)" if source == "referee" else ")"))

        cue_pos = before.get("cue")
        if cue_pos is not None and (st.breaking or st.cue_ball_in == "d") \
                and not self.in_d(cue_pos):
            reasons.append("the cue ball was not placed in the D (003 Art. 5.4, 6.3): "
                           "referee to check")
        if not st.prev_ended:
            call_foul("7.1.l", "shot before the balls stopped")
        missing = [b for b in st.to_respot if before and b not in before]
        if missing:
            call_foul("7.1.n", f"shot before {', '.join(missing)} was respotted")
        st.to_respot = []
        st.prev_ended = shot.end is not None
        if struck != "cue":
            call_foul("not_cue", f"ball {struck} struck instead of the cue ball")
        if first is None:
            call_foul("7.1.c", "the cue ball hit no ball")
        if "cue" in pots:
            call_foul("7.1.a", "cue ball potted")
        if off_all:
            call_foul("7.1.i", f"{', '.join(off_all)} left the table")
        end_t = shot.end.t if shot.end is not None else math.inf
        post_touch: list[str] = []  # after the shot ended: judged once the outcome is known
        for e in [*shot.prelude, *shot.events]:
            if e.type != "ball_disturbed" or not e.ids:
                continue
            if e in shot.prelude and e.ids[0] == "cue":
                continue  # the breaker placing the cue ball in the D (6.3)
            if e.t > end_t:
                post_touch.append(e.ids[0])
            else:
                call_foul("7.1.g", f"ball {e.ids[0]} touched")

        # ---------------------------------------------------------------- break
        if st.breaking:
            return self._judge_break(st, shot, player, opponent, struck, pots, pot_time,
                                     off, fouls, reasons, call_foul, after, n_before_fouls,
                                     post_touch)

        own = st.groups.get(player)
        free = st.free_shot
        own_left_at_start = [b for b in COLOURS[own] if b not in st.down] if own else None
        touching = self._touching_own(before, own)
        if touching is not None and first is not None and not free:
            reasons.append(f"the cue ball touches his own {touching}: he may play any ball "
                           "in any direction (003 Art. 5.6)")
        if first is not None and not free and touching is None:
            fg = group_of(first)
            if first == "black" and (own is None or own_left_at_start):
                call_foul("7.1.e", "black hit first before the group was cleared")
            elif own is not None and fg is not None and fg != own:
                call_foul("7.1.b", f"opponent's ball {first} hit first")
            elif own is not None and not own_left_at_start and first != "black":
                call_foul("7.1.b", f"{first} hit first while only the black was left")
        if own is not None and not free:
            theirs = [b for b in pots if group_of(b) not in (None, own)]
            direct = [b for b in theirs if b in touched_by_cue]
            if direct:
                call_foul("7.1.f", f"opponent's ball {', '.join(direct)} potted by the cue "
                          "ball (a combination shot is allowed, 003 Art. 6.9)")
        self._referee_fouls(st, shot, fouls, reasons, call_foul)

        # ---------------------------------------------------------------- the black
        loser = None
        if "black" in pots:
            t_black = pot_time["black"]
            own_now = st.groups.get(player)
            cleared = own_now is not None and all(
                b in st.down or (b in pot_time and pot_time[b] < t_black)
                for b in COLOURS[own_now])
            if "cue" in pots:
                call_foul("8.1.b", "cue ball and black potted together")
            if not cleared and all(f.code != "8.1.b" for f in fouls):
                why = ("black potted on a free shot with the group not cleared (003 Art. "
                       "5.2)" if free else "black potted before the group was cleared")
                call_foul("8.1.a", why)
            if not any(f.code in LOSS_CODES for f in fouls) and fouls:
                reasons.append("black potted with a foul: not potted correctly, the frame "
                               "ends against the player (003 Art. 4, 5.9)")
                loser = player
        for f in fouls:
            if f.code in LOSS_CODES:
                loser = player
        if loser is not None or ("black" in pots):
            winner = opponent if loser is not None else player
            if loser is None:
                reasons.append("group cleared and black potted correctly: frame won "
                               "(003 Art. 4)")
            return self._end_frame(st, shot, player, struck, winner, fouls, reasons,
                                   extra, pots)

        self._touches_after_the_end(post_touch, fouls, call_foul)

        # ---------------------------------------------------------------- pots & groups
        down_now = [b for b in pots if b in OBJECT_BALLS]
        st.down.extend(b for b in down_now if b not in st.down)
        colours_potted = [b for b in sorted(down_now, key=lambda b: pot_time[b])
                          if group_of(b)]
        if not st.groups and colours_potted and not fouls and free:
            reasons.append("pots on a free shot do not choose a group (003 Art. 5.2, 6.5)")
        elif not st.groups and colours_potted and not fouls:
            g = group_of(colours_potted[0])
            self._set_groups(st, player, g)
            reasons.append(f"first colour potted after the break: {player} takes "
                           f"{g} (003 Art. 6.3)")
        own = st.groups.get(player)
        own_potted = [b for b in down_now if own is not None and group_of(b) == own]
        respots: list[Respot] = []
        table_now = {b: p for b, p in (after or shot.layout_before()).items()
                     if b not in pots and b not in off}
        for b in off:
            if b == "cue":
                continue
            pos = self.respot_place(table_now)
            table_now[b] = pos
            respots.append(Respot(b, "black", pos))
            reasons.append(f"{b} left the table: respotted on the black spot line "
                           "(003 Art. 7.1.i)")

        if fouls:
            next_player = opponent
            st.free_shot = True
            st.cue_ball_in = "d" if ("cue" in pots or "cue" in off) else "d_or_in_place"
            reasons.append(f"foul: {opponent} has a free shot, then his visit (003 Art. 7.1, "
                           "5.2)")
        else:
            st.free_shot = False
            st.cue_ball_in = None
            if free:
                next_player = player
                reasons.append("after the free shot the player starts his visit (003 Art. "
                               "5.2)")
            elif own_potted:
                next_player = player
                reasons.append(f"own ball(s) potted: {', '.join(own_potted)}; the player "
                               "continues (003 Art. 6.8)")
            else:
                next_player = opponent
                reasons.append("no own ball potted: the turn passes (003 Art. 6.8)")
        if st.declare_by == player and not st.groups:
            reasons.append(f"{player} must declare a group to the referee (003 Art. 6.5, "
                           "6.6): referee entry 'group'")

        stale = self._stalemate(st, player, down_now, fouls, after, reasons)
        for e in shot.referee_actions("stalemate"):
            stale = e.extra.get("player") or st.quiet_since or player
            if stale not in st.players:
                raise AdjudicationError(f"t={e.t}: referee 'stalemate' names {stale!r}; "
                                        f"known: {', '.join(st.players)}")
        if stale:
            return self._replay_frame(st, shot, player, struck, fouls, reasons, extra,
                                      stale)
        st.turn = next_player
        st.to_respot = [r.ball for r in respots]
        points = self._points(st, down_now)
        return st, self._call(st, shot, player, struck, points, fouls, next_player,
                              respots, reasons, extra)

    # ------------------------------------------------------------------ the break
    def _judge_break(self, st: Pool51State, shot: Shot, player: str, opponent: str,
                     struck: str, pots: list[str], pot_time: dict[str, float],
                     off: list[str], fouls: list[Foul], reasons: list[str], call_foul,
                     after: dict[str, tuple[float, float]], n_before_fouls: int,
                     post_touch: list[str]) -> tuple[Pool51State, ShotCall]:
        extra: dict[str, Any] = {"break": True}
        self._referee_fouls(st, shot, fouls, reasons, call_foul)
        if any(f.code in LOSS_CODES for f in fouls):
            # Art. 8.1.c-e lose the frame on any shot, the break included; 6.7 spares
            # only the black potted on the break.
            return self._end_frame(st, shot, player, struck, opponent, fouls, reasons,
                                   extra, pots)
        if "black" in pots:
            # Art. 6.7: re-rack, same breaker, no sanction, whatever else was potted.
            fouls.clear()
            del reasons[n_before_fouls:]
            reasons.append("black potted on the break: re-rack, the same player breaks "
                           "again without penalty (003 Art. 6.7)")
            self._rerack(st, player)
            extra["rerack"] = True
            return st, self._call(st, shot, player, struck, {}, [], player, [], reasons,
                                  extra)
        cushion_balls = {e.ids[0] for e in shot.of_type("ball_cushion")
                         if e.ids and e.ids[0] in OBJECT_BALLS}
        colours_potted = sorted((b for b in pots if group_of(b)), key=lambda b: pot_time[b])
        legal = len(cushion_balls) >= BREAK_CUSHION_BALLS or bool(colours_potted)
        if not legal and any(e.extra.get("code") == "6.4"
                             for e in shot.referee_actions("cancel_foul")):
            legal = True  # the referee saw the cushions the camera missed
            reasons.append("break foul 6.4 cancelled by the referee: the break is legal")
        if not legal:
            fouls.clear()
            call_foul("6.4", f"break with {len(cushion_balls)} ball(s) to a cushion and no "
                      "colour potted")
            reasons.append(f"re-rack: {opponent} breaks, not a free shot (003 Art. 6.4)")
            self._rerack(st, opponent)
            st.rebreak = True
            extra["rerack"] = True
            return st, self._call(st, shot, player, struck, {}, fouls, opponent, [], reasons,
                                  extra)
        self._touches_after_the_end(post_touch, fouls, call_foul)
        reasons.append(f"legal break: {len(cushion_balls)} ball(s) to a cushion, "
                       f"{len(colours_potted)} colour(s) potted (003 Art. 6.3)")
        st.breaking = False
        down_now = [b for b in pots if b in OBJECT_BALLS]
        st.down.extend(down_now)
        table_now = {b: p for b, p in (after or shot.layout_before()).items()
                     if b not in pots and b not in off}
        respots: list[Respot] = []
        for b in off:
            if b != "cue":
                pos = self.respot_place(table_now)
                table_now[b] = pos
                respots.append(Respot(b, "black", pos))
        if fouls:
            # Art. 6.5: pots do not decide the group; free shot, then the opponent chooses.
            st.free_shot, st.declare_by = True, opponent
            st.cue_ball_in = "d" if ("cue" in pots or "cue" in off) else "d_or_in_place"
            reasons.append(f"foul on a legal break: potted balls do not decide the group; "
                           f"{opponent} has a free shot, then chooses a group (003 Art. 6.5)")
            next_player = opponent
        elif colours_potted:
            kinds = {group_of(b) for b in colours_potted}
            g = group_of(colours_potted[0])
            self._set_groups(st, player, g)
            if len(kinds) > 1:
                reasons.append(f"both colours potted: {player} must declare a group (003 "
                               f"Art. 6.3); {g} (potted first) assumed until the referee's "
                               "'group' entry")
            else:
                reasons.append(f"{player} potted {g}: that is his group (003 Art. 6.3)")
            next_player = player
        elif st.rebreak:
            st.declare_by = player
            reasons.append(f"supplementary break legal, no colour potted: {player} chooses "
                           "his group (referee entry 'group') and starts his visit "
                           "(003 Art. 6.4)")
            next_player = player
        else:
            st.declare_by = opponent
            reasons.append(f"no colour potted: {opponent} declares a group to the referee "
                           "(003 Art. 6.6)")
            next_player = opponent
        st.rebreak = False
        self._apply_group_entries(st, shot, reasons)
        st.turn = next_player
        st.to_respot = [r.ball for r in respots]
        st.quiet, st.quiet_since, st.quiet_layout = {}, None, {}
        points = self._points(st, down_now)
        return st, self._call(st, shot, player, struck, points, fouls, next_player, respots,
                              reasons, extra)

    # ------------------------------------------------------------------ pieces
    def _touching_own(self, before: dict[str, tuple[float, float]], own: str | None
                      ) -> str | None:
        """Art. 5.6: a ball of the player's group that the cue ball touches at the start
        (centres no farther apart than the two radii plus ``TOUCH_MM``), else None."""
        cue = before.get("cue")
        if own is None or cue is None:
            return None
        reach = (POOL_CUE_BALL + POOL_BALL) / 2 + TOUCH_MM
        return next((b for b in COLOURS[own] if b in before
                     and math.hypot(before[b][0] - cue[0], before[b][1] - cue[1]) <= reach),
                    None)

    def _referee_fouls(self, st: Pool51State, shot: Shot, fouls: list[Foul],
                       reasons: list[str], call_foul) -> None:
        for e in shot.referee_actions("foul"):
            code = e.extra.get("code")
            if code not in FOULS:
                raise AdjudicationError(f"t={e.t}: referee foul code {code!r}; known: "
                                        f"{', '.join(FOULS)}")
            call_foul(code, FOULS[code].description, source="referee")
        for e in shot.referee_actions("cancel_foul"):
            code = e.extra.get("code")
            if any(f.code == code for f in fouls):
                fouls[:] = [f for f in fouls if f.code != code]
                reasons.append(f"foul {code} cancelled by the referee")

    def _touches_after_the_end(self, balls: list[str], fouls: list[Foul], call_foul) -> None:
        """Art. 5.5: the player stays in control until his opponent comes to the table,
        so a ball touched after the shot is his foul (7.1.g), except the cue ball picked
        up by the opponent who has it in hand after a foul (5.2, 5.4)."""
        for b in balls:
            if b == "cue" and fouls:
                continue
            call_foul("7.1.g", f"ball {b} touched after the shot ended (003 Art. 5.5)")

    def _apply_group_entries(self, st: Pool51State, shot: Shot, reasons: list[str]) -> None:
        for e in shot.referee_actions("group"):
            who, g = e.extra.get("player", st.declare_by or st.turn), e.extra.get("group")
            if who not in st.players or g not in GROUPS:
                raise AdjudicationError(f"t={e.t}: referee 'group' needs player (one of "
                                        f"{', '.join(st.players)}) and group (red or yellow)")
            self._set_groups(st, who, g)
            st.declare_by = None
            reasons.append(f"{who} declared {g} (003 Art. 6.3-6.6, referee entry)")

    def _set_groups(self, st: Pool51State, player: str, g: str) -> None:
        other = GROUPS[1] if g == GROUPS[0] else GROUPS[0]
        st.groups = {player: g, other_player(st.players, player): other}
        st.declare_by = None

    def _points(self, st: Pool51State, down_now: list[str]) -> dict[str, int]:
        points = {p: 0 for p in st.players}
        for p, g in st.groups.items():
            points[p] = sum(1 for b in down_now if group_of(b) == g)
        return points

    def _stalemate(self, st: Pool51State, player: str, down_now: list[str],
                   fouls: list[Foul], after: dict[str, tuple[float, float]],
                   reasons: list[str]) -> str | None:
        """Art. 9.9.a: three shots each, no ball potted, the balls about where they were.

        Returns who restarts the frame (the player whose shot began the run, Art. 8.2)
        when the stalemate is reached, else None. A referee 'stalemate' entry is handled
        by the caller.
        """
        objects = {b: p for b, p in after.items() if b in OBJECT_BALLS}
        moved = any(b not in objects or math.hypot(p[0] - objects[b][0],
                                                   p[1] - objects[b][1]) > st.stalemate_mm
                    for b, p in st.quiet_layout.items()) if st.quiet_layout else False
        if down_now or fouls or not objects:
            st.quiet, st.quiet_since, st.quiet_layout = {}, None, {}
            return None
        if moved or not st.quiet:  # a new run starts with this shot
            st.quiet, st.quiet_since, st.quiet_layout = {}, player, objects
        st.quiet[player] = st.quiet.get(player, 0) + 1
        each = STALEMATE_SHOTS_EACH
        if all(st.quiet.get(p, 0) >= each for p in st.players):
            return st.quiet_since
        if sum(st.quiet.values()) >= 2 * each - 2:
            reasons.append(f"shots without progress: {st.quiet} (003 Art. 9.9.a)")
        return None

    def _rerack(self, st: Pool51State, breaker: str, new_frame: bool = False) -> None:
        """Rack again; ``breaker`` breaks. Only a new frame changes who opened the frame:
        a re-rack inside a frame (6.4, 6.7, 9.9.a) leaves the alternation of 6.2 alone."""
        st.breaking, st.turn, st.rebreak = True, breaker, False
        if new_frame:
            st.breaker, st.frame_shots = breaker, 0
        st.groups, st.down, st.declare_by = {}, [], None
        st.free_shot, st.cue_ball_in = False, "d"
        st.quiet, st.quiet_since, st.quiet_layout = {}, None, {}

    def _replay_frame(self, st: Pool51State, shot: Shot, player: str, struck: str,
                      fouls: list[Foul], reasons: list[str], extra: dict[str, Any],
                      breaker: str) -> tuple[Pool51State, ShotCall]:
        reasons.append(f"stalemate: three shots each without progress, the frame is void "
                       f"and re-racked; {breaker} breaks (003 Art. 9.9.a, 8.2)")
        self._rerack(st, breaker)
        extra.update(rerack=True, stalemate=True)
        return st, self._call(st, shot, player, struck, {}, fouls, breaker, [], reasons,
                              extra)

    def _end_frame(self, st: Pool51State, shot: Shot, player: str, struck: str,
                   winner: str, fouls: list[Foul], reasons: list[str],
                   extra: dict[str, Any], pots: list[str]) -> tuple[Pool51State, ShotCall]:
        down_now = [b for b in pots if b in OBJECT_BALLS]
        st.down.extend(b for b in down_now if b not in st.down)
        points = self._points(st, down_now)
        st.frames_won[winner] += 1
        extra.update(frame_over=True, frame_winner=winner)
        reasons.append(f"frame {st.frame} to {winner}")
        if st.frames_won[winner] >= st.frames_to_win:
            st.over, st.winner = True, winner
            next_player = other_player(st.players, player)
            st.turn = next_player
        else:
            st.frame += 1
            breaker = other_player(st.players, st.breaker)  # Art. 6.2: breaks alternate
            self._rerack(st, breaker, new_frame=True)
            st.last_shooter = None
            next_player = breaker
            need = st.frames_to_win - 1
            if all(v == need for v in st.frames_won.values()):
                reasons.append("deciding frame: the break is tossed for (003 Art. 6.2); "
                               f"{breaker} assumed until a referee 'shooter' entry")
            else:
                reasons.append(f"frame {st.frame}: {breaker} breaks (003 Art. 6.2)")
        return st, self._call(st, shot, player, struck, points, fouls, next_player, [],
                              reasons, extra)

    def _call(self, st: Pool51State, shot: Shot, player: str, struck: str,
              points: dict[str, int], fouls: list[Foul], next_player: str,
              respots: list[Respot], reasons: list[str], extra: dict[str, Any]
              ) -> ShotCall:
        full = {p: points.get(p, 0) for p in st.players}
        score = {p: sum(1 for b in st.down if group_of(b) == st.groups.get(p))
                 if p in st.groups else 0 for p in st.players}
        extra = {**extra, "group": dict(st.groups), "balls_down": list(st.down),
                 "cue_ball_in": st.cue_ball_in, "breaking": st.breaking}
        if st.declare_by:
            extra["declare_group"] = st.declare_by
        match = {"frame": st.frame, "frames_to_win": st.frames_to_win,
                 "frames": dict(st.frames_won), "over": st.over, "winner": st.winner}
        return ShotCall(shot=shot.number, t=shot.t, player=player, ball=struck, points=full,
                        fouls=fouls, next_player=next_player,
                        ball_in_hand=st.cue_ball_in is not None, free_shot=st.free_shot,
                        respots=respots, score=score, innings=dict(st.innings),
                        match=match, reasons=reasons, extra=extra)


pool51 = Pool51Game()

GAMES = [pool51]
