"""Carom games of the FIBiS rulebook (seed 000): free game, balkline 47/2, 47/1, 71/2,
one-cushion and three-cushion.

The six games share one fold and differ only in data (:class:`CaromRules`): which
cushions the carom needs, which interdiction zones apply and how many caroms a zone
allows, how balls are respotted, the default distance. Articles are cited as
``000 <chapter topic> <number>``: the seed's sections restart at 1 in each chapter
(the chapter names used here are listed in docs/rules/carom.md).

Everything is decided from events; what an overhead camera cannot see (a foot off
the floor, the tip still on the ball, marks on the rail) enters only by referee entry.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from equipment import get_discipline
from equipment.tables import CAROM_BALL, Point, Table
from tracking.events import Event

from ..calls import Foul, FoulRule, Respot, ShotCall
from ..engine import AdjudicationError, Shot
from ..settings import int_setting, players_and_first

BALLS = ("white", "yellow", "red")
CONTACT_TOLERANCE = 0.5  # mm: centres within diameter + this are "in contact" (brief)
LINE_HALF_WIDTH = 0.5  # mm [assumed: a fine chalk line ~1 mm wide, 000 Zone d'interdizione 1]
EQUAL_LAG = 0.5  # mm: lag balls closer than this to equal distance -> repeat
PUSH_MOVE = 5.0  # mm: a touching ball that moved this much with no contact was pushed

# ------------------------------------------------------------------ articles (000)
CAROM = "000 Carambola 1"
CAROM_POINT = "000 Carambola 2"
FALLI_1 = "000 Falli 1"
FALLI = "000 Falli 2"
FALLI_THIRD = "000 Falli 3"
OPENING = "000 Tiro d'inizio 2"
OPENING_POSITION = "000 Tiro d'inizio 1"
OPENING_BALL = "000 Tiro d'inizio 3"
LAG = "000 Partita 5"
START = "000 Partita 6"
SINGLE = "000 Conclusione 1"
SETS = "000 Conclusione 2"
TIE_BREAK = "000 Conclusione 3"
LINE_INSIDE = "000 Zone d'interdizione 2"
CONTACT = "000 Bilie in contatto 1"
OFF_TABLE = "000 Bilie fuori 1"


# ------------------------------------------------------------------ the foul table

def _foul_table(zone_article: str | None) -> dict[str, FoulRule]:
    rules = [
        FoulRule("ball_off_table", FALLI, "a ball left the table (the wooden rail "
                 "counts as off)"),
        FoulRule("shot_while_moving", FALLI, "shot before the balls were still"),
        FoulRule("touched_ball", FALLI, "a ball touched with the hand, the cue or "
                 "anything else (the ball stays where it is)"),
        FoulRule("push_tip", FALLI, "carrozza a: the tip still on the ball when it "
                 "meets another ball or a cushion", observable=False),
        FoulRule("push_ball", FALLI, "carrozza b: shot straight into the ball in "
                 "contact without a detache"),
        FoulRule("push_cushion", FALLI, "carrozza c: shot into the cushion the ball "
                 "is touching"),
        FoulRule("foot_off_floor", FALLI, "no foot on the floor at the stroke",
                 observable=False),
        FoulRule("rail_marks", FALLI, "visible reference marks made on the rail",
                 observable=False),
        FoulRule("wrong_ball", FALLI, "shot with the opponent's ball (or the red): the "
                 "hand passes, the balls stay, earlier points of the run stay"),
        FoulRule("opening_not_red", OPENING, "the opening shot did not go to the red "
                 "first (directly or off a cushion)"),
    ]
    if zone_article:
        rules.append(FoulRule("interdiction_zone", zone_article, "caroms in an "
                              "interdiction zone beyond the allowed number without an "
                              "object ball leaving it"))
    return {r.code: r for r in rules}


# ------------------------------------------------------------------ geometry

def _on_segment_distance(p: Point, a: Point, b: Point) -> float:
    (px, py), (ax, ay), (bx, by) = p, a, b
    dx, dy = bx - ax, by - ay
    n = dx * dx + dy * dy
    u = 0.0 if n == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / n))
    return math.hypot(px - (ax + u * dx), py - (ay + u * dy))


def in_zone(p: Point, polygon: tuple[Point, ...], tolerance: float = LINE_HALF_WIDTH) -> bool:
    """A ball centre inside the polygon; exactly on a line counts as inside
    [000 Zone d'interdizione 2: balls astride a line are judged inside]."""
    n = len(polygon)
    for i in range(n):
        if _on_segment_distance(p, polygon[i], polygon[(i + 1) % n]) <= tolerance:
            return True
    x, y = p
    inside = False
    for i in range(n):
        (x0, y0), (x1, y1) = polygon[i], polygon[(i + 1) % n]
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            inside = not inside
    return inside


def in_contact(a: Point, b: Point, diameter: float = CAROM_BALL) -> bool:
    return math.dist(a, b) <= diameter + CONTACT_TOLERANCE


def _touches_border(poly: tuple[Point, ...], table: Table) -> bool:
    return any(x in (0.0, table.length) or y in (0.0, table.width) for x, y in poly)


def interdiction_zones(table: Table) -> dict[str, tuple[Point, ...]]:
    """The zones where the caroms are limited: the free game's corners; on balkline
    tables every field along a cushion and the anchor squares (the centre box of 47 is
    an artefact of where the lines fall and is never restricted)."""
    out = {}
    for name, poly in table.zones.items():
        if name.startswith("field_") and not _touches_border(poly, table):
            continue
        out[name] = poly
    return out


# ------------------------------------------------------------------ rules as data

@dataclass(frozen=True)
class CaromRules:
    """What differs between the carom games."""

    cushions: int  # cushion contacts of the player's ball needed before the 2nd ball
    cushion_article: str | None
    zone_article: str | None  # the article limiting caroms in a zone, None: no zones
    zone_caroms: int  # caroms allowed from inside a zone without an object ball leaving
    zone_article_restore: str | None
    respot_only_moved: bool  # three-cushion: respot only the balls concerned
    distance: int  # default distance [assumed: common FIBiS categories]


RULES: dict[str, CaromRules] = {
    "free_game": CaromRules(0, None, "000 Libera 2", 1, "000 Quadro 47/2 2", False, 200),
    "balkline_47_2": CaromRules(0, None, "000 Quadro 47/2 1", 1, "000 Quadro 47/2 2",
                                False, 200),
    "balkline_47_1": CaromRules(0, None, "000 Quadro 47/1 1", 0, "000 Quadro 47/1 2",
                                False, 150),
    "balkline_71_2": CaromRules(0, None, "000 Quadro 71/2 1", 1, "000 Quadro 47/2 2",
                                False, 150),
    "one_cushion": CaromRules(1, "000 Una sponda 1", None, 0, None, False, 100),
    "three_cushion": CaromRules(3, "000 Tre sponde 1", None, 0, None, True, 40),
}


# ------------------------------------------------------------------ small pure functions

@dataclass
class CaromCount:
    """What the player's ball touched, in order."""

    first_ball: str | None = None
    balls: list[str] = field(default_factory=list)  # distinct object balls, in order
    cushions: list[str] = field(default_factory=list)  # every cushion contact
    cushions_before_second: int | None = None  # contacts before the 2nd object ball

    @property
    def carom(self) -> bool:
        return len(self.balls) >= 2


def _end_index(shot: Shot) -> int | None:
    """Index of the shot's own ``shot_end``: the last one. A shot started while the
    previous one was still moving can also hold the previous shot's end."""
    ends = [i for i, e in enumerate(shot.events) if e.type == "shot_end"]
    return ends[-1] if ends else None


def _before_end(shot: Shot) -> list[Event]:
    """The shot's events while balls were moving (after its start, before its end)."""
    i = _end_index(shot)
    return list(shot.events[1:i] if i is not None else shot.events[1:])


def _after_end(shot: Shot) -> list[Event]:
    """Events after every ball stopped and before the next shot (a ball touched...)."""
    i = _end_index(shot)
    return [] if i is None else list(shot.events[i + 1:])


def _layout_after(shot: Shot) -> dict[str, Point]:
    i = _end_index(shot)
    if i is None:
        return {}
    raw = shot.events[i].extra.get("layout", {})
    return {k: (float(v[0]), float(v[1])) for k, v in raw.items()}


def count_contacts(ball: str, events: Iterable[Event]) -> CaromCount:
    """The player's ball's contacts with balls and cushions, up to the shot end.

    Cushions count only until the second object ball is touched [000 Tre sponde 1].
    """
    c = CaromCount()
    for e in events:
        if e.type == "ball_cushion" and e.ids and e.ids[0] == ball:
            c.cushions.append(e.cushion or "?")
        elif e.type == "ball_ball" and ball in e.ids:
            other = e.ids[1] if e.ids[0] == ball else e.ids[0]
            if other not in c.balls:
                c.balls.append(other)
                if c.first_ball is None:
                    c.first_ball = other
                if len(c.balls) == 2:
                    c.cushions_before_second = len(c.cushions)
    return c


def carom_made(rules: CaromRules, count: CaromCount) -> bool:
    """A carom: the player's ball meets both other balls [000 Carambola 1] after the
    cushions the game needs [000 Una sponda 1, 000 Tre sponde 1: three cushions, or
    the same cushion three times, before the second ball]."""
    if not count.carom:
        return False
    return (count.cushions_before_second or 0) >= rules.cushions


def spot_pos(table: Table, spot: str) -> Point:
    return table.spots[spot]


def opening_spots(shooter_ball: str) -> dict[str, str]:
    """The starting position [000 Tiro d'inizio 1]: the red on the upper spot, the
    opponent's ball on the lower centre spot, the player's ball on a starting spot."""
    other = "yellow" if shooter_ball == "white" else "white"
    return {"red": "foot", other: "head", shooter_ball: "start_right"}


def own_spots(shooter_ball: str) -> dict[str, str]:
    """Each ball's own spot for respotting single balls (three-cushion) [assumed, as
    UMB: the figure of 000 Bilie in contatto is not in the text]: the red on the upper
    spot, the player's ball on the lower spot, the opponent's ball on the centre spot."""
    other = "yellow" if shooter_ball == "white" else "white"
    return {"red": "foot", shooter_ball: "head", other: "centre"}


def place_balls(to_place: list[str], layout: dict[str, Point], spots: dict[str, str],
                table: Table) -> list[Respot]:
    """Put ``to_place`` on their spots; a spot occupied or hidden by a ball sends the
    ball to the spot that corresponds to the occupying ball [000 Bilie in contatto 1,
    000 Bilie fuori 1]."""
    staying = {b: p for b, p in layout.items() if b not in to_place}
    out: list[Respot] = []
    for ball in sorted(to_place, key=lambda b: BALLS.index(b) if b in BALLS else 9):
        spot = spots[ball]
        seen = {spot}
        while True:
            pos = spot_pos(table, spot)
            occupier = next((b for b, p in staying.items() if in_contact(p, pos)), None)
            if occupier is None:
                break
            nxt = spots.get(occupier)
            if nxt is None or nxt in seen:
                nxt = next((s for s in ("foot", "centre", "head") if s not in seen), None)
                if nxt is None:
                    break
            seen.add(nxt)
            spot = nxt
        pos = spot_pos(table, spot)
        staying[ball] = pos
        out.append(Respot(ball, spot, pos))
    return out


def ball_positions(ball: str, events: Iterable[Event]) -> list[Point]:
    """Every position the events recorded for ``ball`` (cushions, contacts, rest)."""
    out = []
    for e in events:
        if ball in e.ids and e.pos and len(e.pos) == len(e.ids):
            out.append(e.pos[e.ids.index(ball)])
    return out


# ------------------------------------------------------------------ state

@dataclass
class LagHalf:
    ball: str
    player: str
    events: list[Event]


@dataclass
class CaromState:
    """The match so far. ``judge`` copies it before changing anything."""

    players: tuple[str, str]
    distance: int
    innings_limit: int | None
    sets: int
    tie_break: bool
    equalising: bool
    phase: str  # lag, play, equalising, tiebreak, over
    to_play: str
    balls: dict[str, str] | None = None  # player -> ball, fixed at the opening
    opener: str | None = None  # the match opener (white), starts the odd sets
    lag_balls: dict[str, str] = field(default_factory=dict)  # ball -> player in the lag
    lag_pending: LagHalf | None = None
    lag_errors: dict[str, int] = field(default_factory=dict)
    lag_winner: str | None = None
    set_no: int = 1
    set_starter: str | None = None
    opening_next: bool = True
    run_player: str | None = None  # who is at the table in the current inning
    run: int = 0
    score: dict[str, int] = field(default_factory=dict)  # this set (or the match)
    innings: dict[str, int] = field(default_factory=dict)
    total_points: dict[str, int] = field(default_factory=dict)
    total_innings: dict[str, int] = field(default_factory=dict)
    high_run: dict[str, int] = field(default_factory=dict)
    sets_won: dict[str, int] = field(default_factory=dict)
    set_results: list[dict[str, int]] = field(default_factory=list)
    zone_count: dict[str, int] = field(default_factory=dict)
    prev_ended: bool = True
    shots: int = 0
    layout: dict[str, Point] = field(default_factory=dict)
    tb_order: list[str] = field(default_factory=list)  # tie-break innings left
    tb_runs: dict[str, int] = field(default_factory=dict)
    winner: str | None = None
    draw: bool = False

    def other(self, player: str) -> str:
        return self.players[1] if player == self.players[0] else self.players[0]


# ------------------------------------------------------------------ the game

class CaromGame:
    """One carom game: rules as data, the fold shared by the family."""

    def __init__(self, name: str, title: str) -> None:
        self.name = name
        self.title = title
        self.discipline = name
        self.rules = RULES[name]
        self.table = get_discipline(name).table
        self.zones = interdiction_zones(self.table) if self.rules.zone_article else {}
        self.fouls = _foul_table(self.rules.zone_article)
        self.opening_layout = dict(get_discipline(name).opening)

    # -------------------------------------------------------------- settings
    def new_state(self, settings: dict[str, Any]) -> CaromState:
        players, first = players_and_first(settings)
        sets = int_setting(settings, "sets", 1)
        assert sets is not None
        if sets % 2 == 0:
            raise AdjudicationError(f"match setting 'sets' must be odd (best of), got {sets}")
        distance = int_setting(settings, "distance", self.rules.distance)
        assert distance is not None
        st = CaromState(
            players=players, distance=distance,
            innings_limit=int_setting(settings, "innings_limit", None),
            sets=sets, tie_break=bool(settings.get("tie_break", False)),
            equalising=bool(settings.get("equalising", True)),
            phase="lag" if settings.get("lag") else "play", to_play=first,
        )
        balls = settings.get("balls")
        if balls is not None:
            if (not isinstance(balls, dict) or set(balls) != set(players)
                    or sorted(balls.values()) != ["white", "yellow"]):
                raise AdjudicationError("match setting 'balls' must give each player "
                                        "one of white, yellow")
            st.balls = dict(balls)
            st.opener = next(p for p, b in balls.items() if b == "white")
        other = st.other(first)
        st.lag_balls = {"white": first, "yellow": other}
        st.opening_next = bool(settings.get("opening", True))
        for p in players:
            for d in (st.score, st.innings, st.total_points, st.total_innings,
                      st.high_run, st.sets_won, st.tb_runs, st.lag_errors):
                d[p] = 0
        st.layout = dict(self.opening_layout)
        return st

    # -------------------------------------------------------------- judging
    def judge(self, state: CaromState, shot: Shot) -> tuple[CaromState, ShotCall]:
        st = copy.deepcopy(state)
        st.shots += 1
        self._check_referee(shot)
        if st.phase == "lag":
            return self._judge_lag(st, shot)
        return self._judge_play(st, shot)

    def _check_referee(self, shot: Shot) -> None:
        for e in shot.referee_actions("foul") + shot.referee_actions("cancel_foul"):
            code = e.extra.get("code")
            if code not in self.fouls:
                raise AdjudicationError(
                    f"t={e.t}: referee {e.extra.get('action')} code {code!r} is not a "
                    f"{self.name} foul; known: {', '.join(self.fouls)}")
        for e in shot.referee_actions("carom"):
            if not isinstance(e.extra.get("valid"), bool):
                raise AdjudicationError(f"t={e.t}: referee carom entry needs 'valid': "
                                        "true or false")

    # -------------------------------------------------------------- the lag
    def _apply_lag_entry(self, st: CaromState, shot: Shot, reasons: list[str]) -> bool:
        for e in shot.referee_actions("lag"):
            winner = e.extra.get("winner")
            if winner not in st.players:
                raise AdjudicationError(f"t={e.t}: referee lag entry needs 'winner', one "
                                        f"of {', '.join(st.players)}")
            st.lag_winner = winner
            first = e.extra.get("first", winner)
            if first not in st.players:
                raise AdjudicationError(f"t={e.t}: referee lag entry 'first' must be one "
                                        f"of {', '.join(st.players)}")
            st.to_play = first
            st.phase = "play"
            st.lag_pending = None
            st.opening_next = True
            reasons.append(f"lag won by {winner} (referee); {first} makes the opening "
                           f"shot ({LAG}, {START})")
            return True
        return False

    def _judge_lag(self, st: CaromState, shot: Shot) -> tuple[CaromState, ShotCall]:
        ball = shot.struck_ball or ""
        reasons: list[str] = []
        extra: dict[str, Any] = {}
        respots: list[Respot] = []
        st.prev_ended = True
        if self._apply_lag_entry(st, shot, reasons):
            extra["lag"] = {"status": "won", "winner": st.lag_winner, "source": "referee"}
            player = st.lag_balls.get(ball, st.players[0])
            return st, self._call(st, shot, player, ball, {}, [], st.to_play,
                                  self._opening_respots(st, "white"), reasons, extra)
        if ball not in st.lag_balls:
            reasons.append(f"lag: {ball or 'no ball'} struck, not a lag ball; ignored ({LAG})")
            extra["lag"] = {"status": "ignored"}
            return st, self._call(st, shot, st.to_play, ball, {}, [], st.to_play, [],
                                  reasons, extra)
        player = st.lag_balls[ball]
        pending = st.lag_pending
        if pending is None or pending.ball == ball:
            if pending is not None:
                reasons.append(f"lag: {pending.player} struck again before "
                               f"{st.other(pending.player)} lagged; the lag restarts ({LAG})")
            st.lag_pending = LagHalf(ball, player, list(shot.events))
            reasons.append(f"lag: {player} struck {ball}; waiting for the other ball ({LAG})")
            extra["lag"] = {"status": "waiting"}
            return st, self._call(st, shot, player, ball, {}, [], st.other(player),
                                  respots, reasons, extra)
        events = pending.events + list(shot.events)
        result = self._lag_result(st, pending, ball, player, shot, events)
        extra["lag"] = result
        st.lag_pending = None
        reasons.append(result["reason"])
        if result["status"] == "won":
            st.lag_winner = result["winner"]
            st.phase = "play"
            st.to_play = result["winner"]
            st.opening_next = True
            respots = self._opening_respots(st, "white")
            reasons.append(f"{result['winner']} has the choice of the opening shot "
                           f"({START}); a referee 'shooter' entry on the next shot "
                           "records a choice to give it away")
            nxt = result["winner"]
        else:
            nxt = st.players[0]
        return st, self._call(st, shot, player, ball, {}, [], nxt, respots, reasons, extra)

    def _lag_result(self, st: CaromState, first: LagHalf, ball2: str, player2: str,
                    shot: Shot, events: list[Event]) -> dict[str, Any]:
        """Decide one lag round [000 Partita 5]."""
        lagger = {first.ball: first.player, ball2: player2}
        touched_red = [b for b in lagger if any(
            e.type == "ball_ball" and b in e.ids and "red" in e.ids for e in events)]
        if len(touched_red) == 1:
            loser = lagger[touched_red[0]]
            return {"status": "won", "winner": st.other(loser),
                    "reason": f"lag: {loser}'s ball touched the red; the choice of the "
                              f"opening shot goes to {st.other(loser)} ({LAG})"}
        if len(touched_red) == 2:
            return {"status": "repeat", "reason": f"lag: both balls touched the red: "
                                                  f"repeated ({LAG})"}
        errors: list[str] = []
        late = any(e.type == "ball_cushion" and e.ids and e.ids[0] == first.ball
                   and e.cushion == "foot" for e in first.events)
        if late:
            errors.append(player2)
        for b, p in lagger.items():
            if not any(e.type == "ball_cushion" and e.ids and e.ids[0] == b
                       and e.cushion == "foot" for e in events):
                errors.append(p)
        if errors:
            for p in set(errors):
                st.lag_errors[p] += 1
            losers = [p for p in set(errors) if st.lag_errors[p] >= 2]
            why = ("struck after the other ball reached the upper cushion" if late
                   else "did not reach the upper cushion")
            if len(losers) == 1:
                return {"status": "won", "winner": st.other(losers[0]),
                        "reason": f"lag: second error by {losers[0]} ({why}): lag lost "
                                  f"({LAG})"}
            return {"status": "repeat", "errors": dict(st.lag_errors),
                    "reason": f"lag: error by {', '.join(sorted(set(errors)))} ({why}): "
                              f"repeated ({LAG})"}
        if any(e.type == "ball_ball" and set(e.ids) == set(lagger) for e in events):
            return {"status": "repeat", "reason": f"lag: the balls touched each other: "
                                                  f"repeated ({LAG})"}
        long_cushion = [lagger[e.ids[0]] for e in events if e.type == "ball_cushion"
                        and e.ids and e.ids[0] in lagger and e.cushion in ("left", "right")]
        if long_cushion:
            return {"status": "repeat", "reason": f"lag: {long_cushion[0]}'s ball touched "
                                                  f"a long cushion: repeated ({LAG})"}
        after = _layout_after(shot)
        if not all(b in after for b in lagger):
            return {"status": "repeat", "reason": "lag: final positions not seen; the "
                                                  "referee decides (referee 'lag' entry)"}
        d = {b: after[b][0] for b in lagger}  # distance from the lower (head) cushion
        if abs(d[first.ball] - d[ball2]) <= EQUAL_LAG:
            return {"status": "repeat", "reason": f"lag: both balls stopped at the same "
                                                  f"distance: repeated ({LAG})"}
        best = min(lagger, key=lambda b: d[b])
        worst = first.ball if best == ball2 else ball2
        return {"status": "won", "winner": lagger[best],
                "distance_mm": {lagger[b]: round(d[b], 1) for b in lagger},
                "reason": f"lag won by {lagger[best]}: {d[best]:.0f} mm from the lower "
                          f"cushion against {d[worst]:.0f} mm ({LAG})"}

    # -------------------------------------------------------------- play
    def _judge_play(self, st: CaromState, shot: Shot) -> tuple[CaromState, ShotCall]:
        reasons: list[str] = []
        extra: dict[str, Any] = {}
        struck = shot.struck_ball
        shooters = shot.referee_actions("shooter")
        shooter = st.to_play
        if shooters:
            named = shooters[-1].extra.get("player")
            if named not in st.players:
                raise AdjudicationError(f"t={shooters[-1].t}: referee shooter entry names "
                                        f"{named!r}; players: {', '.join(st.players)}")
            if named != shooter:
                reasons.append(f"{named} is shooting (referee)")
            shooter = named
        if st.balls is None and self._apply_lag_entry(st, shot, reasons) and not shooters:
            shooter = st.to_play
        early = [e.ids[0] for e in shot.prelude if e.type == "ball_disturbed"]
        if early:
            reasons.append(f"{', '.join(dict.fromkeys(early))} moved before the first shot: "
                           f"the referee checks the position ({FALLI_THIRD})")
        if st.phase == "over":
            reasons.append("the match is over: shot not counted")
            return st, self._call(st, shot, shooter, struck, {}, [], shooter, [], reasons,
                                  {})
        before = shot.layout_before() or dict(st.layout)
        own = st.balls[shooter] if st.balls else "white"
        opening = st.opening_next and self._in_opening_position(before, own)
        if st.opening_next and not opening:
            reasons.append(f"the balls are not in the opening position: not judged as an "
                           f"opening shot ({OPENING_POSITION})")
        if st.balls is None:
            # the opening shot's player gets the white [000 Tiro d'inizio 3]; a stream
            # that starts mid-match gives the first shooter the ball he struck
            own = struck if not opening and struck in ("white", "yellow") else "white"
            other_ball = "yellow" if own == "white" else "white"
            st.balls = {shooter: own, st.other(shooter): other_ball}
            st.opener = shooter if own == "white" else st.other(shooter)
            st.set_starter = shooter
            reasons.append(f"{shooter} plays the {own}" + (f" ({OPENING_BALL})" if opening
                                                           else ""))
        if st.set_starter is None:
            st.set_starter = st.opener
        if st.run_player != shooter:  # a new inning
            st.run_player = shooter
            st.run = 0
            st.zone_count = {}
            if st.phase != "tiebreak":
                st.innings[shooter] += 1
                st.total_innings[shooter] += 1
        st.opening_next = False
        player_ball = st.balls[shooter]
        during = _before_end(shot)
        count = count_contacts(struck or "", during)
        fouls: list[Foul] = []
        late_touch: list[Foul] = []

        def call_foul(code: str, why: str) -> None:
            fouls.append(Foul.of(self.fouls[code]))
            reasons.append(f"foul: {why} ({self.fouls[code].article})")

        # ---- fouls the camera sees
        if st.shots > 1 and not st.prev_ended:
            call_foul("shot_while_moving", "shot before the balls of the previous shot "
                      "were still (no shot_end)")
        if struck != player_ball:
            call_foul("wrong_ball", f"{shooter} struck {struck}, not his {player_ball}; "
                      "the hand passes and the balls stay")
        offs = [e.ids[0] for e in shot.of_type("off_table")]
        if offs:
            call_foul("ball_off_table", f"{', '.join(dict.fromkeys(offs))} off the table")
        touched = [e.ids[0] for e in during if e.type == "ball_disturbed"]
        if touched:
            call_foul("touched_ball", f"{', '.join(dict.fromkeys(touched))} touched during "
                      "the shot; it stays where it is")
        if struck in before:
            self._push_fouls(struck, before, during, shot, call_foul)
        if opening and count.first_ball not in (None, "red"):
            call_foul("opening_not_red", f"the opening shot met {count.first_ball} first")

        # ---- the carom
        carom = carom_made(self.rules, count)
        self._carom_reason(count, carom, reasons)
        for e in shot.referee_actions("carom"):
            carom = bool(e.extra["valid"])
            reasons.append(f"carom {'given' if carom else 'refused'} by the referee")
        zone_fouls: list[str] = []
        # a shot with the other ball that the referee rules valid (cancel_foul
        # wrong_ball) is still limited by the zones, with the ball struck as the cue ball
        ruled_valid = any(e.extra["code"] == "wrong_ball"
                          for e in shot.referee_actions("cancel_foul"))
        if carom and self.zones and struck is not None and (
                struck == player_ball or ruled_valid):
            zone_fouls = self._zones(st, struck, before, shot, reasons)
            if zone_fouls:
                which = "a second" if self.rules.zone_caroms else "a"
                call_foul("interdiction_zone", f"{which} carom with both object balls in "
                          f"{', '.join(zone_fouls)} without one leaving it")

        # ---- the referee
        for e in shot.referee_actions("cancel_foul"):
            code = e.extra["code"]
            kept = [f for f in fouls if f.code != code]
            if len(kept) == len(fouls):
                reasons.append(f"referee cancelled {code}, which was not called")
            else:
                reasons.append(f"referee cancelled the foul {code}")
                if code == "interdiction_zone":
                    for z in zone_fouls:
                        st.zone_count[z] = 0
            fouls = kept
        for e in shot.referee_actions("foul"):
            rule = self.fouls[e.extra["code"]]
            if any(f.code == rule.code for f in fouls):  # the camera called it already
                reasons.append(f"referee confirmed the foul {rule.code}")
                continue
            fouls.append(Foul.of(rule, source="referee"))
            reasons.append(f"foul entered by the referee: {rule.description} "
                           f"({rule.article})")

        scored = carom and not fouls
        if carom and fouls:
            reasons.append(f"the carom does not count: a foul in the shot ({FALLI_1})")
        # a ball touched after all came to rest: the carom stood, the run ends
        after_touch = [e.ids[0] for e in _after_end(shot) if e.type == "ball_disturbed"]
        cancelled = {e.extra["code"] for e in shot.referee_actions("cancel_foul")}
        if "ball_off_table" in cancelled:  # no ball left the table: nothing to respot
            offs = []
        if after_touch and _end_index(shot) is not None:
            if scored and "touched_ball" not in cancelled:
                late_touch.append(Foul.of(self.fouls["touched_ball"]))
                reasons.append(f"foul: {', '.join(after_touch)} touched after the balls "
                               f"stopped; the carom stands, the run ends ({FALLI})")
            elif not scored:
                extra["referee_needed"] = True
                reasons.append(f"{', '.join(after_touch)} moved between shots: the camera "
                               f"cannot tell who touched it; referee input ({FALLI}, "
                               f"{FALLI_THIRD})")
        fouls += late_touch
        if scored:
            reasons.append(f"carom: 1 point ({CAROM_POINT})")
            if st.phase == "tiebreak":
                st.tb_runs[shooter] += 1
            else:
                st.score[shooter] += 1
                st.total_points[shooter] += 1
                st.run += 1
                st.high_run[shooter] = max(st.high_run[shooter], st.run)
        elif not carom and not fouls:
            reasons.append(f"no carom: the hand passes ({FALLI})")
        continues = scored and not late_touch
        if fouls and not carom and not continues:
            reasons.append("the hand passes")

        # ---- where the balls go
        after = _layout_after(shot) or dict(before)
        for b in offs:
            after.pop(b, None)
        next_player = shooter if continues else st.other(shooter)
        score, innings = dict(st.score), dict(st.innings)  # before a new set resets them
        respots, over_reasons, next_player = self._after_shot(
            st, shooter, continues, next_player)
        if not respots:
            respots = self._respots(st, next_player, after, offs, reasons)
            if respots:
                st.zone_count = {}
        if not respots and "touched_ball" in cancelled:
            respots = self._restore_touched(shot, before, reasons)
        reasons.extend(over_reasons)
        layout = dict(after)
        for r in respots:
            layout[r.ball] = r.pos
        st.layout = layout
        st.prev_ended = _end_index(shot) is not None
        st.to_play = next_player
        if next_player != shooter or st.opening_next:
            st.run_player = None
        points = {shooter: 1} if scored else {}
        extra.update({
            "carom": carom,
            "cushions": count.cushions_before_second
            if count.carom else len(count.cushions),
            "first_ball": count.first_ball,
            "opening": opening,
            "run": st.run,
        })
        if self.zones:
            extra["zones"] = dict(st.zone_count)
        return st, self._call(st, shot, shooter, struck, points, fouls, next_player,
                              respots, reasons, extra, score, innings)

    def _push_fouls(self, ball: str, before: dict[str, Point], during: list[Event],
                    shot: Shot, call_foul: Any) -> None:
        """Carrozza b and c where the camera sees it [000 Falli 2]; be conservative."""
        mine = [e for e in during if ball in e.ids and e.type in ("ball_ball", "ball_cushion")]
        first = mine[0] if mine else None
        after = _layout_after(shot)
        for other, p in before.items():
            if other == ball or not in_contact(before[ball], p):
                continue
            met_first = (first is not None and first.type == "ball_ball"
                         and other in first.ids)
            moved = other in after and math.dist(after[other], p) > PUSH_MOVE
            no_contact = not any(e.type == "ball_ball" and other in e.ids for e in during)
            if met_first or (moved and no_contact):
                call_foul("push_ball", f"{ball} was touching {other} and "
                          + ("met it first" if met_first else "moved it with no contact "
                             "seen"))
                return
        r = CAROM_BALL / 2
        for cushion, dist in self.table.cushion_distance(before[ball]).items():
            if dist <= r + CONTACT_TOLERANCE and first is not None and (
                    first.type == "ball_cushion" and first.cushion == cushion):
                call_foul("push_cushion", f"{ball} was touching the {cushion} cushion and "
                          "was shot into it")
                return

    def _restore_touched(self, shot: Shot, before: dict[str, Point],
                         reasons: list[str]) -> list[Respot]:
        """A touch the referee did not charge to the player (a third person) is undone
        where the events say where the ball was [000 Falli 3]: its ``shot_end``
        position for a touch after the shot, its start position for a touch during the
        shot when nothing else touched it."""
        end = _end_index(shot)
        after = _layout_after(shot)
        out: list[Respot] = []
        for i, e in enumerate(shot.events):
            if e.type != "ball_disturbed" or any(r.ball == e.ids[0] for r in out):
                continue
            ball = e.ids[0]
            if end is not None and i > end:
                pos = after.get(ball)
            else:
                hit = any(x.type in ("ball_ball", "ball_cushion") and ball in x.ids
                          for x in shot.events[1:])
                pos = None if hit else before.get(ball)
            if pos is not None:
                out.append(Respot(ball, "restored", pos))
        if out:
            reasons.append(f"{', '.join(r.ball for r in out)} put back where it was "
                           f"({FALLI_THIRD})")
        return out

    def _carom_reason(self, count: CaromCount, carom: bool, reasons: list[str]) -> None:
        need = self.rules.cushions
        if not count.carom or not need:
            if count.carom:
                reasons.append(f"{' then '.join(count.balls)}: carom ({CAROM})")
            return
        n = count.cushions_before_second or 0
        if carom:
            reasons.append(f"carom after {n} cushion contact(s) before the second ball "
                           f"({self.rules.cushion_article})")
        else:
            reasons.append(f"both balls met but only {n} cushion contact(s) before the "
                           f"second ball, {need} needed ({self.rules.cushion_article})")

    def _zones(self, st: CaromState, player_ball: str, before: dict[str, Point],
               shot: Shot, reasons: list[str]) -> list[str]:
        """Count caroms made with both object balls inside one zone; return the zones
        where this carom is one too many [000 Libera 2, Quadro 47/2 1-3, 47/1 1-3]."""
        objects = [b for b in BALLS if b != player_ball]
        after = _layout_after(shot)
        seen = {b: ball_positions(b, _before_end(shot)) for b in objects}
        too_many: list[str] = []
        counts: dict[str, int] = {}
        for name, poly in self.zones.items():
            if not all(b in before and in_zone(before[b], poly) for b in objects):
                continue
            left = [b for b in objects if (b in after and not in_zone(after[b], poly))
                    or any(not in_zone(p, poly) for p in seen[b])]
            if left:
                counts[name] = 0
                reasons.append(f"{left[0]} left {name}: the right to a first carom in it "
                               f"is restored ({self.rules.zone_article_restore})")
                continue
            n = st.zone_count.get(name, 0) + 1
            if n > self.rules.zone_caroms:
                too_many.append(name)
                counts[name] = 0
            else:
                counts[name] = n
                reasons.append(f"carom {n} with both object balls in {name}; the next "
                               f"must drive one out ({self.rules.zone_article}, "
                               f"{LINE_INSIDE})")
        st.zone_count = counts
        return too_many

    def _respots(self, st: CaromState, next_player: str, after: dict[str, Point],
                 offs: list[str], reasons: list[str]) -> list[Respot]:
        """Balls off the table and balls in contact at rest [000 Bilie fuori 1, Bilie
        in contatto 1]: any two balls whose centres are within a diameter + 0.5 mm."""
        assert st.balls is not None
        ball = st.balls[next_player]
        pairs = [(a, b) for i, a in enumerate(BALLS) for b in BALLS[i + 1:]
                 if a in after and b in after and in_contact(after[a], after[b])]
        touching = list(dict.fromkeys(x for pair in pairs for x in pair))
        if not offs and not touching:
            return []
        why = []
        if offs:
            why.append(f"{', '.join(dict.fromkeys(offs))} off the table ({OFF_TABLE})")
        if pairs:
            why.append(", ".join(f"{a} and {b} in contact" for a, b in pairs)
                       + f" ({CONTACT})")
        if not self.rules.respot_only_moved or len(set(offs)) == 3:
            reasons.append("; ".join(why) + ": all balls to the starting position, "
                           f"{next_player} to play")
            return place_balls(list(BALLS), {}, opening_spots(ball), self.table)
        place = list(dict.fromkeys(offs + touching))
        reasons.append("; ".join(why) + ": " + ", ".join(place) + " to their spots")
        return place_balls(place, after, own_spots(ball), self.table)

    def _in_opening_position(self, layout: dict[str, Point], own: str) -> bool:
        """Red on the upper spot, the other ball on the lower centre spot, the player's
        ball on a starting spot [000 Tiro d'inizio 1], each within a ball's radius."""
        spots = self.table.spots
        other = "yellow" if own == "white" else "white"

        def near(ball: str, spot: str) -> bool:
            return ball in layout and math.dist(layout[ball], spots[spot]) <= CAROM_BALL / 2

        return (near("red", "foot") and near(other, "head")
                and (near(own, "start_right") or near(own, "start_left")))

    def _opening_respots(self, st: CaromState, ball: str) -> list[Respot]:
        return place_balls(list(BALLS), {}, opening_spots(ball), self.table)

    # -------------------------------------------------------------- match end
    def _after_shot(self, st: CaromState, shooter: str, continues: bool,
                    next_player: str) -> tuple[list[Respot], list[str], str]:
        """Distance, inning limit, equalising inning, sets and tie-break
        [000 Conclusione 1-3]."""
        other = st.other(shooter)
        reasons: list[str] = []
        if st.phase == "tiebreak":  # the last player stops once ahead: nothing can change
            ahead = st.tb_order == [shooter] and st.tb_runs[shooter] > st.tb_runs[other]
            if continues and not ahead:
                return [], [], next_player
            return self._tiebreak_turn(st, shooter, reasons)
        reached = st.score[shooter] >= st.distance
        if continues and not reached:
            return [], [], next_player
        if st.phase == "equalising":
            return self._end_game(st, reasons, f"the equalising inning is over ({SINGLE}.b)"
                                  if st.sets == 1 else f"the set's second player played his "
                                  f"inning ({SETS}.d)")
        limit = st.innings_limit
        at_limit = limit is not None and st.innings[shooter] >= limit
        if st.sets == 1:
            ahead = st.innings[shooter] > st.innings[other]
            if (reached or at_limit) and ahead and st.equalising:
                st.phase = "equalising"
                st.opening_next = True
                what = "the distance" if reached else "the innings limit"
                reasons.append(f"{shooter} reached {what} with one inning more: {other} "
                               f"plays the equalising inning from the opening position "
                               f"({SINGLE}.b)")
                return self._opening_respots(st, st.balls[other]), reasons, other
            if reached or at_limit:
                return self._end_game(st, reasons, f"{shooter} reached the distance "
                                      f"({SINGLE}.a)" if reached else
                                      f"innings limit reached ({SINGLE}.a)")
            return [], reasons, next_player
        # sets
        first_inning = (shooter == st.set_starter and st.innings[shooter] == 1
                        and st.innings[other] == 0)
        if reached and first_inning:
            st.phase = "equalising"
            st.opening_next = True
            reasons.append(f"{shooter} closed the set in the first inning: {other} may "
                           f"equal it from the opening position ({SETS}.d)")
            return self._opening_respots(st, st.balls[other]), reasons, other
        if reached:
            return self._end_game(st, reasons, f"{shooter} reached the set distance "
                                  f"({SETS}.b)")
        if at_limit and shooter == st.set_starter:
            return self._end_game(st, reasons, f"set innings limit reached; no equalising "
                                  f"inning in a set ({SETS}.c)")
        return [], reasons, next_player

    def _end_game(self, st: CaromState, reasons: list[str], why: str
                  ) -> tuple[list[Respot], list[str], str]:
        """The game (or set) is decided on the score; a tie is a draw or a tie-break."""
        a, b = st.players
        reasons.append(why)
        if st.score[a] != st.score[b]:
            return self._game_won(st, a if st.score[a] > st.score[b] else b, reasons)
        if st.sets == 1 and not st.tie_break:
            st.phase = "over"
            st.draw = True
            reasons.append(f"the match is a draw ({SINGLE}.c)")
            return [], reasons, st.to_play
        return self._start_tiebreak(st, reasons)

    def _start_tiebreak(self, st: CaromState, reasons: list[str]
                        ) -> tuple[list[Respot], list[str], str]:
        assert st.balls is not None
        white = next(p for p, b in st.balls.items() if b == "white")
        st.phase = "tiebreak"
        st.tb_order = [white, st.other(white)]
        st.tb_runs = {p: 0 for p in st.players}
        st.opening_next = True
        st.run_player = None
        reasons.append(f"tie: tie-break, an opening shot with continuation each, the white "
                       f"first ({TIE_BREAK})")
        return self._opening_respots(st, "white"), reasons, white

    def _tiebreak_turn(self, st: CaromState, shooter: str, reasons: list[str]
                       ) -> tuple[list[Respot], list[str], str]:
        assert st.balls is not None
        if st.tb_order and st.tb_order[0] == shooter:
            st.tb_order.pop(0)
        if st.tb_order:
            nxt = st.tb_order[0]
            st.opening_next = True
            st.run_player = None
            reasons.append(f"tie-break: {shooter} made {st.tb_runs[shooter]}; {nxt} plays "
                           f"from the opening position ({TIE_BREAK})")
            return self._opening_respots(st, st.balls[nxt]), reasons, nxt
        a, b = st.players
        if st.tb_runs[a] == st.tb_runs[b]:
            reasons.append(f"tie-break equal ({st.tb_runs[a]}-{st.tb_runs[b]}): repeated "
                           f"in the same order ({TIE_BREAK})")
            return self._start_tiebreak(st, [])[0], reasons, st.tb_order[0]
        winner = a if st.tb_runs[a] > st.tb_runs[b] else b
        reasons.append(f"tie-break won by {winner} ({TIE_BREAK})")
        return self._game_won(st, winner, reasons)

    def _game_won(self, st: CaromState, winner: str, reasons: list[str]
                  ) -> tuple[list[Respot], list[str], str]:
        assert st.balls is not None and st.opener is not None
        if st.sets == 1:
            st.phase = "over"
            st.winner = winner
            reasons.append(f"{winner} wins the match")
            return [], reasons, st.to_play
        st.sets_won[winner] += 1
        st.set_results.append(dict(st.score))
        reasons.append(f"{winner} wins set {st.set_no}")
        if st.sets_won[winner] > st.sets // 2:
            st.phase = "over"
            st.winner = winner
            reasons.append(f"{winner} wins the match, {st.sets_won[winner]} sets of "
                           f"{st.sets} ({SETS}.a)")
            return [], reasons, st.to_play
        st.set_no += 1
        st.set_starter = st.opener if st.set_no % 2 == 1 else st.other(st.opener)
        st.phase = "play"
        st.opening_next = True
        st.run_player = None
        for p in st.players:
            st.score[p] = 0
            st.innings[p] = 0
        reasons.append(f"set {st.set_no}: {st.set_starter} opens ({START})")
        return (self._opening_respots(st, st.balls[st.set_starter]), reasons,
                st.set_starter)

    # -------------------------------------------------------------- the call
    def _call(self, st: CaromState, shot: Shot, player: str, ball: str | None,
              points: dict[str, int], fouls: list[Foul], next_player: str,
              respots: list[Respot], reasons: list[str], extra: dict[str, Any],
              score: dict[str, int] | None = None,
              innings: dict[str, int] | None = None) -> ShotCall:
        match: dict[str, Any] = {"over": st.phase == "over", "winner": st.winner,
                                 "phase": st.phase, "distance": st.distance}
        if st.draw:
            match["draw"] = True
        if st.innings_limit:
            match["innings_limit"] = st.innings_limit
        if st.sets > 1:
            match.update({"sets": dict(st.sets_won), "set": st.set_no,
                          "best_of": st.sets, "set_scores": list(st.set_results)})
        if st.phase == "tiebreak" or any(st.tb_runs.values()):
            match["tie_break"] = dict(st.tb_runs)
        extra = dict(extra)
        extra["high_run"] = dict(st.high_run)
        extra["average"] = {p: round(st.total_points[p] / st.total_innings[p], 3)
                            if st.total_innings[p] else 0.0 for p in st.players}
        if st.balls:
            extra["balls"] = dict(st.balls)
        return ShotCall(
            shot=shot.number, t=shot.t, player=player, ball=ball,
            points={p: points.get(p, 0) for p in st.players}, fouls=fouls,
            next_player=next_player, respots=respots,
            score=dict(st.score if score is None else score),
            innings=dict(st.innings if innings is None else innings), match=match,
            reasons=reasons, extra=extra)


GAMES = [CaromGame(name, get_discipline(name).title) for name in RULES]
