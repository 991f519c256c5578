"""Event-driven billiards shot simulator: exact ground truth for every later stage.

Between events every ball moves with constant acceleration (sliding friction along
the fixed slip direction, or rolling resistance along the velocity), so positions are
quadratic in time and every contact time is the root of a polynomial of degree at
most four. The simulator finds the *first* time each pair, cushion, jaw, pocket or
pin is reached (polynomial roots, bracketed between the critical points and refined
with Brent's method), jumps straight to the earliest one, applies its impulse and
repeats: no fixed time step, so events are exact to well under a micrometre.

Physics model and parameter sources: docs/simulator.md. Frame of reference: table
millimetres (x toward the foot, y toward the right), z = x × y points *down* into the
cloth, so the cloth contact point of a ball is at ``+R ez``.

Public API::

    simulate(discipline, layout, actions, fps=50, seed=0, pins=None) -> SimResult
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.optimize import brentq

from equipment import Discipline, Table, get_discipline
from tracking.events import Event, frame_of
from tracking.trajectory import STATE_CODE, Stroke, TrackedObject, Trajectory

Point = tuple[float, float]

# ----------------------------------------------------------------- parameters
G = 9810.0  # mm/s^2
MU_SLIDE = 0.2  # ball-cloth sliding friction [Marlow 1995; pooltool default 0.2]
MU_ROLL = 0.01  # rolling resistance [Marlow 1995: 0.005-0.015]
SPIN_DECEL = 10.9  # rad/s^2: decay of spin about the vertical [pooltool u_sp default]
E_BALL = 0.94  # ball-ball restitution [Marlow 1995: 0.92-0.98; phenolic ~0.94]
E_CUSHION = 0.78  # ball-cushion restitution [Mathavan et al. 2010: ~0.7-0.85]
MU_CUSHION = 0.2  # ball-cushion friction [Mathavan et al. 2010]
E_PIN = 0.5  # ball-pin restitution [assumed: light wooden pin]
PIN_TOPPLE = 0.12  # s from a pin's fall to its head reaching a neighbour [assumed]
JUMP_VZ = 1500.0  # mm/s: vertical speed of a ball riding over a cushion [assumed]
FLOOR_DROP = 750.0  # mm: the floor below the cloth [assumed table height]
MAX_TIP = 0.6  # tip offsets beyond 0.6 R miscue [common coaching figure]
HANG_MARGIN = 0.5  # a ball at rest within drop_radius + 0.5 R of a pocket hangs there
MAX_EVENTS = 50_000
SNAP_SLIP = 20.0  # mm/s: slower slip on a slower ball than SNAP_SPEED ends at once
SNAP_SPEED = 50.0
MICRO_CONTACT = 5.0  # mm/s: slower repeated contacts of one pair are one event

_EPS_T = 1e-12


class SimulationError(ValueError):
    """A scenario the simulator cannot run: names the bad field."""


# ----------------------------------------------------------------- roots

def _first_entry(c4: float, c3: float, c2: float, c1: float, c0: float, h: float,
                 touch: float) -> float | None:
    """First s in [0, h] where f(s) = c4 s^4 + ... + c0 goes from > 0 to <= 0.

    ``touch`` is the f value below which f(0) counts as contact already (then the
    answer is 0 when f is decreasing). The interval is cut at the real parts of the
    roots of f' (extra cuts are harmless), so f is monotonic on each piece and a sign
    change brackets the single crossing, which Brent's method refines.
    """
    if h <= 0:
        return None
    if c0 <= touch:  # in contact already
        if c1 < -touch:  # and closing: contact now
            return 0.0
        # resting or separating contact: the next entry is where f falls ``touch``
        # below its present value (a contact deeper by about a micrometre)
        c0 = touch

    def f(s: float) -> float:
        return (((c4 * s + c3) * s + c2) * s + c1) * s + c0

    cuts = [0.0]
    if c4 != 0.0 or c3 != 0.0:
        for r in np.roots((4 * c4, 3 * c3, 2 * c2, c1)):
            x = float(r.real)
            if 0.0 < x < h:
                cuts.append(x)
        cuts.sort()
    elif c2 != 0.0:
        x = -c1 / (2 * c2)
        if 0.0 < x < h:
            cuts.append(x)
    cuts.append(h)
    a, fa = 0.0, c0
    for b in cuts[1:]:
        fb = f(b)
        if fb <= 0.0 < fa:
            return brentq(f, a, b, xtol=1e-13, rtol=4 * np.finfo(float).eps)
        fa, a = fb, b
    return None


# ----------------------------------------------------------------- motion

@dataclass
class Motion:
    """A ball's motion from ``t0`` until its next event: constant acceleration."""

    mode: str  # rest, slide, roll, air, pocketed, off
    t0: float
    px: float
    py: float
    vx: float = 0.0
    vy: float = 0.0
    ax: float = 0.0
    ay: float = 0.0
    wx: float = 0.0
    wy: float = 0.0
    wz: float = 0.0
    dwx: float = 0.0  # angular acceleration while sliding
    dwy: float = 0.0
    t_end: float = math.inf  # slide -> roll, roll -> rest, air -> landed
    vz: float = 0.0  # air: vertical speed at t0 (z up)
    t_exit: float = math.inf  # air: the centre passes the rail's outer edge

    def pos(self, t: float) -> Point:
        s = min(t, self.t_end) - self.t0
        return (self.px + self.vx * s + 0.5 * self.ax * s * s,
                self.py + self.vy * s + 0.5 * self.ay * s * s)

    def vel(self, t: float) -> Point:
        s = min(t, self.t_end) - self.t0
        if self.mode in ("rest", "pocketed", "off") or t >= self.t_end and self.mode == "air":
            return (0.0, 0.0)
        return (self.vx + self.ax * s, self.vy + self.ay * s)

    def spin(self, t: float, radius: float) -> tuple[float, float, float]:
        s = min(t, self.t_end) - self.t0
        wz = math.copysign(max(0.0, abs(self.wz) - SPIN_DECEL * s), self.wz)
        if self.mode == "slide":
            return (self.wx + self.dwx * s, self.wy + self.dwy * s, wz)
        if self.mode == "roll":
            vx, vy = self.vel(t)
            return (vy / radius, -vx / radius, wz)
        if self.mode == "air":
            return (self.wx, self.wy, self.wz)
        return (0.0, 0.0, 0.0)


def _plan(t0: float, p: Point, v: Point, w: tuple[float, float, float],
          radius: float) -> Motion:
    """The motion that follows a state: sliding, rolling or resting."""
    vx, vy = v
    wx, wy, wz = w
    ux, uy = vx + radius * wy, vy - radius * wx  # contact-point slip velocity
    u = math.hypot(ux, uy)
    speed = math.hypot(vx, vy)
    if SNAP_SLIP > u > 1e-6 and speed < SNAP_SPEED:
        # a slow ball with little slip: take the end of its (sub-millimetre) sliding
        # phase at once, as friction would: v -> v - 2/7 u [du/dt = 7/2 dv/dt]
        vx, vy = vx - 2.0 * ux / 7.0, vy - 2.0 * uy / 7.0
        speed, u = math.hypot(vx, vy), 0.0
    if u > 1e-6:
        hx, hy = ux / u, uy / u
        k = 5.0 * MU_SLIDE * G / (2.0 * radius)
        return Motion("slide", t0, p[0], p[1], vx, vy, -MU_SLIDE * G * hx,
                      -MU_SLIDE * G * hy, wx, wy, wz, k * hy, -k * hx,
                      t0 + 2.0 * u / (7.0 * MU_SLIDE * G))
    if speed > 1e-6:
        a = MU_ROLL * G
        return Motion("roll", t0, p[0], p[1], vx, vy, -a * vx / speed, -a * vy / speed,
                      vy / radius, -vx / radius, wz, t_end=t0 + speed / a)
    return Motion("rest", t0, p[0], p[1])


# ----------------------------------------------------------------- world objects

@dataclass
class _Ball:
    id: str
    radius: float
    mass: float
    motion: Motion
    log: list[Motion] = field(default_factory=list)
    version: int = 0
    hanging: str | None = None
    jump_at: int = 0  # leaves the table at this cushion contact (0: never)
    cushions: int = 0

    @property
    def inertia(self) -> float:
        return 0.4 * self.mass * self.radius ** 2

    @property
    def on_table(self) -> bool:
        return self.motion.mode in ("rest", "slide", "roll")

    def set(self, m: Motion) -> None:
        if self.log and self.log[-1].t0 == m.t0:
            self.log[-1] = m
        else:
            self.log.append(m)
        self.motion = m
        self.version += 1


@dataclass
class _Pin:
    id: str
    x: float
    y: float
    radius: float
    head_radius: float
    height: float
    mass: float
    down: bool = False
    t_down: float = math.inf


@dataclass
class _Cushion:
    """A straight stretch of cushion nose: the line ``coord = value``, from lo to hi."""

    name: str
    axis: int  # 0: the line is x = value (head/foot), 1: y = value (left/right)
    value: float
    inward: float  # +1 when the playing surface lies toward larger coordinates
    lo: float
    hi: float


def _cushions(table: Table) -> tuple[list[_Cushion], list[tuple[str, Point]]]:
    """Cushion nose stretches, interrupted at the pocket mouths, and the jaw points."""
    L, W = table.length, table.width
    lines = {"head": (0, 0.0, 1.0, W), "foot": (0, L, -1.0, W),
             "left": (1, 0.0, 1.0, L), "right": (1, W, -1.0, L)}
    out: list[_Cushion] = []
    jaws: list[tuple[str, Point]] = []
    for name, (axis, value, inward, extent) in lines.items():
        gaps: list[tuple[float, float]] = []
        for pk in table.pockets:
            on = [j for j in pk.jaws if abs(j[axis] - value) < 1e-6]
            if not on:
                continue
            along = 1 - axis
            if len(on) == 2:
                a, b = sorted((on[0][along], on[1][along]))
            else:  # a corner pocket: the mouth runs from the jaw to the corner
                a = on[0][along]
                a, b = (0.0, a) if a < extent / 2 else (a, extent)
            gaps.append((a, b))
            jaws.extend((name, j) for j in on)
        gaps.sort()
        start = 0.0
        for a, b in gaps:
            if a > start:
                out.append(_Cushion(name, axis, value, inward, start, a))
            start = max(start, b)
        if start < extent:
            out.append(_Cushion(name, axis, value, inward, start, extent))
    return out, jaws


# ----------------------------------------------------------------- results

@dataclass
class Contact:
    """A ball-ball contact: velocities just before and after (momentum checks).

    ``kind`` is ``impact`` (two balls, restitution along the normal) or ``merge`` (a
    slow pushing cluster of rolling balls that moves on at its common velocity; ids
    then lists the whole cluster, the struck pair first).
    """

    t: float
    ids: tuple[str, ...]
    masses: tuple[float, ...]
    normal: Point
    before: tuple[Point, ...]
    after: tuple[Point, ...]
    kind: str = "impact"


@dataclass
class SimResult:
    """Ground truth: the sampled trajectory, the events, and the exact motion log."""

    trajectory: Trajectory
    events: list[Event]
    contacts: list[Contact]
    radii: dict[str, float]
    masses: dict[str, float]
    motions: dict[str, list[Motion]]
    end_time: float

    def _motion(self, ball: str, t: float) -> Motion:
        log = self.motions[ball]
        i = int(np.searchsorted([m.t0 for m in log], t, side="right")) - 1
        return log[max(i, 0)]

    def position(self, ball: str, t: float) -> Point:
        """Exact centre position at time t (from the motion log, not the samples)."""
        return self._motion(ball, t).pos(t)

    def velocity(self, ball: str, t: float) -> Point:
        return self._motion(ball, t).vel(t)

    def mode(self, ball: str, t: float) -> str:
        m = self._motion(ball, t)
        if m.mode == "air" and t >= m.t_end:
            return "off"
        return m.mode

    def sample(self, ball: str, times: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Exact positions ``(n, 2)`` and on-table flags of ``ball`` at ``times``."""
        pos, states, _ = _sample(self.motions[ball], np.asarray(times, float))
        on = (states == STATE_CODE["resting"]) | (states == STATE_CODE["moving"])
        air = np.array([self.mode(ball, float(t)) == "air" for t in times]) if any(
            m.mode == "air" for m in self.motions[ball]) else np.zeros(len(times), bool)
        return pos, on & ~air

    def kinetic_energy(self, t: float) -> float:
        """Total translational + rotational energy of the balls on the table, g mm²/s²."""
        total = 0.0
        for b in self.motions:
            m = self._motion(b, t)
            if m.mode in ("pocketed", "off", "air"):
                continue
            vx, vy = m.vel(t)
            wx, wy, wz = m.spin(t, self.radii[b])
            mass, r = self.masses[b], self.radii[b]
            total += 0.5 * mass * (vx * vx + vy * vy) + 0.2 * mass * r * r * (
                wx * wx + wy * wy + wz * wz)
        return total


# ----------------------------------------------------------------- the world

class _World:
    def __init__(self, disc: Discipline, layout: dict[str, Point], with_pins: bool,
                 t0: float = 0.0) -> None:
        self.disc = disc
        self.table = disc.table
        self.cushions, self.jaws = _cushions(self.table)
        L, W = self.table.length, self.table.width
        self.nose_lines = ((0, 0.0, 1.0), (0, L, -1.0), (1, 0.0, 1.0), (1, W, -1.0))
        self.balls: list[_Ball] = []
        for spec in disc.balls:
            if spec.id in layout:
                p = layout[spec.id]
                b = _Ball(spec.id, spec.radius, spec.mass,
                          Motion("rest", t0, float(p[0]), float(p[1])))
                b.log.append(b.motion)
                self.balls.append(b)
        self.index = {b.id: i for i, b in enumerate(self.balls)}
        self.pins = [_Pin(p.id, p.position[0], p.position[1], p.radius,
                          p.head_diameter / 2, p.height, p.mass)
                     for p in (disc.pins if with_pins else ())]
        self.pin_fall: dict[str, float] = {}
        self.now = t0
        self.heap: list[tuple] = []
        self.seq = 0
        self.raw: list[dict[str, Any]] = []  # events before conversion
        self.contacts: list[Contact] = []
        self.shot = 0
        self.shot_open = False
        self.n_events = 0
        self.last_contact: dict[tuple[str, str], float] = {}
        self.pins_falling = 0  # pin_chain events still queued

    # ------------------------------------------------------------ helpers
    def layout(self) -> dict[str, list[float]]:
        out = {}
        for b in self.balls:
            if b.on_table:
                x, y = b.motion.pos(self.now)
                out[b.id] = [round(x, 2), round(y, 2)]
        return out

    def standing(self) -> list[str]:
        return [p.id for p in self.pins if not p.down]

    def emit(self, t: float, type_: str, ids: Sequence[str], **fields: Any) -> None:
        self.raw.append({"t": t, "type": type_, "ids": tuple(ids),
                         "shot": self.shot or None, **fields})

    def push(self, t: float, kind: str, payload: tuple, balls: Sequence[int]) -> None:
        self.seq += 1
        heapq.heappush(self.heap, (t, self.seq, kind, payload,
                                   tuple((i, self.balls[i].version) for i in balls)))

    def moving(self) -> bool:
        return self.pins_falling > 0 or any(
            b.motion.mode in ("slide", "roll", "air") for b in self.balls)

    # ------------------------------------------------------------ prediction
    def predict(self, i: int) -> None:
        """Queue ball i's next own events and its next contact with every other ball."""
        b = self.balls[i]
        m = b.motion
        now = self.now
        if m.mode == "air":
            self.push(m.t_end, "land", (), [i])
            if m.t_exit > now:
                self.push(m.t_exit, "exit", (), [i])
            return
        if m.mode in ("pocketed", "off"):
            return
        if m.mode in ("slide", "roll"):
            self.push(m.t_end, "transition", (), [i])
        h = m.t_end - now
        px, py = m.pos(now)
        vx, vy = m.vel(now)
        ax, ay = m.ax, m.ay
        r = b.radius
        if m.mode != "rest":
            for k, c in enumerate(self.cushions):
                s = self._cushion_time(c, px, py, vx, vy, ax, ay, r, h)
                if s is not None:
                    self.push(now + s, "cushion", (k,), [i])
            for k, (_, (jx, jy)) in enumerate(self.jaws):
                s = self._point_time(px - jx, py - jy, vx, vy, ax, ay, r, h)
                if s is not None:
                    self.push(now + s, "jaw", (k,), [i])
            for k, pk in enumerate(self.table.pockets):
                cx, cy = pk.centre
                s = self._point_time(px - cx, py - cy, vx, vy, ax, ay, pk.drop_radius, h)
                if s is not None:
                    self.push(now + s, "pocket", (k,), [i])
            if self.table.pockets:
                # a centre that crosses a nose line is over a pocket's hole: the
                # cushions stop the ball everywhere else
                for k, (axis, value, inward) in enumerate(self.nose_lines):
                    g0, gv, ga = (px, vx, ax) if axis == 0 else (py, vy, ay)
                    s = _first_entry(0.0, 0.0, 0.5 * ga * inward, gv * inward,
                                     (g0 - value) * inward, h, -1.0)
                    if s is not None:
                        self.push(now + s, "mouth", (k,), [i])
            for k, pin in enumerate(self.pins):
                if pin.down:
                    continue
                s = self._point_time(px - pin.x, py - pin.y, vx, vy, ax, ay,
                                     r + pin.radius, h)
                if s is not None:
                    self.push(now + s, "pin", (k,), [i])
        for j, o in enumerate(self.balls):
            if j == i or not o.on_table:
                continue
            om = o.motion
            if m.mode == "rest" and om.mode == "rest":
                continue
            hj = min(h, om.t_end - now)
            qx, qy = om.pos(now)
            wx, wy = om.vel(now)
            s = self._point_time(px - qx, py - qy, vx - wx, vy - wy, ax - om.ax,
                                 ay - om.ay, r + o.radius, hj)
            if s is not None:
                self.push(now + s, "pair", (min(i, j), max(i, j)), [i, j])

    @staticmethod
    def _point_time(dx: float, dy: float, dvx: float, dvy: float, dax: float, day: float,
                    dist: float, h: float) -> float | None:
        """First time the relative position d(s) comes within ``dist``."""
        if h <= 0:
            return None
        reach = math.hypot(dvx, dvy) * h + 0.5 * math.hypot(dax, day) * h * h
        d0 = math.hypot(dx, dy)
        if d0 - dist > reach + 1e-6:
            return None
        c4 = 0.25 * (dax * dax + day * day)
        c3 = dvx * dax + dvy * day
        c2 = dvx * dvx + dvy * dvy + dx * dax + dy * day
        c1 = 2.0 * (dx * dvx + dy * dvy)
        c0 = dx * dx + dy * dy - dist * dist
        return _first_entry(c4, c3, c2, c1, c0, h, 2.0 * dist * 1e-6)

    def _cushion_time(self, c: _Cushion, px: float, py: float, vx: float, vy: float,
                      ax: float, ay: float, r: float, h: float) -> float | None:
        if c.axis == 0:
            g0, gv, ga, along = px, vx, ax, (py, vy, ay)
        else:
            g0, gv, ga, along = py, vy, ay, (px, vx, ax)
        # signed distance beyond one radius from the nose, positive on the table side
        d0 = (g0 - c.value) * c.inward - r
        dv, da = gv * c.inward, ga * c.inward
        if d0 < -r:  # behind this line (in a pocket mouth): no contact from behind
            return None
        s = _first_entry(0.0, 0.0, 0.5 * da, dv, d0, h, 1e-6)
        if s is None:
            return None
        q = along[0] + along[1] * s + 0.5 * along[2] * s * s
        if c.lo <= q <= c.hi:
            return s
        return None

    # ------------------------------------------------------------ running
    def run_until(self, t_stop: float | None) -> None:
        """Process events up to ``t_stop`` (None: until every object is at rest)."""
        while True:
            while self.heap:
                t, _, kind, payload, vers = self.heap[0]
                if any(self.balls[i].version != v for i, v in vers):
                    heapq.heappop(self.heap)
                    continue
                break
            if not self.heap:
                break
            t = self.heap[0][0]
            if t_stop is not None and t > t_stop:
                break
            if t_stop is None and not self.moving():
                break
            t, _, kind, payload, vers = heapq.heappop(self.heap)
            self.now = max(self.now, t)
            self.n_events += 1
            if self.n_events > MAX_EVENTS:
                raise SimulationError("the shot did not settle (too many events)")
            getattr(self, f"_on_{kind}")(payload, [i for i, _ in vers])
        if t_stop is not None:
            self.now = max(self.now, t_stop)

    def rebase(self, i: int, motion: Motion) -> None:
        self.balls[i].set(motion)
        self.predict(i)

    def _state(self, i: int) -> tuple[Point, Point, tuple[float, float, float]]:
        b = self.balls[i]
        return b.motion.pos(self.now), b.motion.vel(self.now), b.motion.spin(self.now, b.radius)

    def _replan(self, i: int, p: Point, v: Point, w: tuple[float, float, float]) -> None:
        b = self.balls[i]
        m = _plan(self.now, p, v, w, b.radius)
        was_moving = b.motion.mode in ("slide", "roll")
        self.rebase(i, m)
        if m.mode == "rest" and was_moving:
            self._rested(i)

    def _rested(self, i: int) -> None:
        b = self.balls[i]
        p = b.motion.pos(self.now)
        b.hanging = None
        for pk in self.table.pockets:
            d = math.hypot(p[0] - pk.centre[0], p[1] - pk.centre[1])
            if d <= pk.drop_radius + HANG_MARGIN * b.radius:
                b.hanging = pk.name
        extra = {"hanging": b.hanging} if b.hanging else {}
        self.emit(self.now, "ball_rest", [b.id], **extra)

    # ------------------------------------------------------------ event handlers
    def _on_transition(self, payload: tuple, balls: list[int]) -> None:
        i = balls[0]
        b = self.balls[i]
        m = b.motion
        p, v = m.pos(self.now), m.vel(self.now)
        if m.mode == "slide":
            w = m.spin(self.now, b.radius)
            wz = w[2]
            self._replan(i, p, v, (v[1] / b.radius, -v[0] / b.radius, wz))
        else:
            self.rebase(i, Motion("rest", self.now, p[0], p[1]))
            self._rested(i)

    def _on_pair(self, payload: tuple, balls: list[int]) -> None:
        i, j = payload
        a, b = self.balls[i], self.balls[j]
        pa, va, wa = self._state(i)
        pb, vb, wb = self._state(j)
        nx, ny = pb[0] - pa[0], pb[1] - pa[1]
        d = math.hypot(nx, ny)
        nx, ny = nx / d, ny / d
        vn = (va[0] - vb[0]) * nx + (va[1] - vb[1]) * ny
        if vn <= 0:  # grazing or separating: nothing to exchange
            self.predict(i)
            return
        if vn < MICRO_CONTACT:
            self._merge(i, j, (nx, ny), vn, va, vb)
            return
        J = (1.0 + E_BALL) * vn / (1.0 / a.mass + 1.0 / b.mass)
        va2 = (va[0] - J / a.mass * nx, va[1] - J / a.mass * ny)
        vb2 = (vb[0] + J / b.mass * nx, vb[1] + J / b.mass * ny)
        self._report_contact(i, j, vn, va, vb)
        self.contacts.append(Contact(self.now, (a.id, b.id), (a.mass, b.mass), (nx, ny),
                                     (va, vb), (va2, vb2)))
        a.hanging = b.hanging = None
        self._replan(i, pa, va2, wa)
        self._replan(j, pb, vb2, wb)

    def _report_contact(self, i: int, j: int, vn: float, va: Point, vb: Point) -> None:
        """Emit ball_ball, the faster ball first; a slow pushing contact only once."""
        a, b = self.balls[i], self.balls[j]
        mover, other = (a, b) if math.hypot(*va) >= math.hypot(*vb) else (b, a)
        key = (min(a.id, b.id), max(a.id, b.id))
        if vn >= MICRO_CONTACT or self.now - self.last_contact.get(key, -1.0) > 0.05:
            self.emit(self.now, "ball_ball", [mover.id, other.id],
                      speed=math.hypot(*(va if mover is a else vb)))
        self.last_contact[key] = self.now

    def _merge(self, i: int, j: int, normal: Point, vn: float, va: Point, vb: Point) -> None:
        """Slow pushing contact of rolling balls: the cluster moves on as one.

        Rolling balls pressed together would otherwise repeat ever smaller collisions
        (their rolling decelerations point along their own velocities). Every rolling
        or resting ball touching the cluster and closing on it slowly joins it, and the
        cluster takes its common velocity, every ball rolling: momentum is kept exactly
        and the energy, 0.7 m v^2 for a rolling ball, can only fall. A sliding ball of
        the pair first ends its slip (what the cloth does to it within milliseconds).
        """
        cluster = [i, j]
        states = {}
        for k in cluster:
            p, v, w = self._state(k)
            if self.balls[k].motion.mode == "slide":
                # a sliding ball pressed on by its own spin: end its slip first, as
                # the cloth would (v -> v - 2/7 u), so the push does not chatter
                r = self.balls[k].radius
                ux, uy = v[0] + r * w[1], v[1] - r * w[0]
                v = (v[0] - 2.0 * ux / 7.0, v[1] - 2.0 * uy / 7.0)
            states[k] = (p, v, w)
        grown = True
        while grown:
            grown = False
            for k, o in enumerate(self.balls):
                if k in states or o.motion.mode not in ("roll", "rest"):
                    continue
                pk, vk, wk = self._state(k)
                for c in cluster:
                    pc, vc, _ = states[c]
                    d = math.dist(pk, pc)
                    if d - o.radius - self.balls[c].radius > 1e-3:
                        continue
                    closing = ((vc[0] - vk[0]) * (pk[0] - pc[0])
                               + (vc[1] - vk[1]) * (pk[1] - pc[1])) / d
                    if 0.0 <= closing < MICRO_CONTACT:
                        cluster.append(k)
                        states[k] = (pk, vk, wk)
                        grown = True
                        break
        mass = sum(self.balls[k].mass for k in cluster)
        vx = sum(self.balls[k].mass * states[k][1][0] for k in cluster) / mass
        vy = sum(self.balls[k].mass * states[k][1][1] for k in cluster) / mass
        self._report_contact(i, j, vn, va, vb)
        self.contacts.append(Contact(  # before: after any slip ended
            self.now, tuple(self.balls[k].id for k in cluster),
            tuple(self.balls[k].mass for k in cluster), normal,
            tuple(states[k][1] for k in cluster), tuple((vx, vy) for _ in cluster), "merge"))
        for k in cluster:
            b = self.balls[k]
            b.hanging = None
            b.set(_plan(self.now, states[k][0], (vx, vy),
                        (vy / b.radius, -vx / b.radius, 0.0), b.radius))
        for k in cluster:
            was_moving = states[k][1] != (0.0, 0.0)
            self.predict(k)
            if self.balls[k].motion.mode == "rest" and was_moving:
                self._rested(k)

    def _cushion_impulse(self, i: int, nx: float, ny: float, name: str) -> None:
        """Rebound from a cushion whose contact lies in direction n from the centre."""
        b = self.balls[i]
        p, v, w = self._state(i)
        vn = v[0] * nx + v[1] * ny
        if vn <= 0:
            self.predict(i)
            return
        b.cushions += 1
        self.emit(self.now, "ball_cushion", [b.id], cushion=name, speed=math.hypot(*v))
        if b.jump_at and b.cushions >= b.jump_at:
            self._jump(i, p, v, w, nx, ny)
            return
        R, m = b.radius, b.mass
        wx, wy, wz = w
        # contact-point velocity v + w x (R n), n horizontal
        cx = v[0] + R * (-wz * ny)
        cy = v[1] + R * (wz * nx)
        cz = R * (wx * ny - wy * nx)
        cn = cx * nx + cy * ny
        sx, sy, sz = cx - cn * nx, cy - cn * ny, cz
        s = math.sqrt(sx * sx + sy * sy + sz * sz)
        Jn = (1.0 + E_CUSHION) * m * vn
        tx = ty = tz = 0.0
        if s > 1e-9:
            jt = min(MU_CUSHION * Jn, 2.0 * m * s / 7.0)
            tx, ty, tz = -jt * sx / s, -jt * sy / s, -jt * sz / s
        v2 = (v[0] - Jn / m * nx + tx / m, v[1] - Jn / m * ny + ty / m)
        I = b.inertia
        # r x Jt with r = R n (the normal part of the impulse has no torque)
        w2 = (wx + R * (ny * tz) / I, wy + R * (-nx * tz) / I, wz + R * (nx * ty - ny * tx) / I)
        self._replan(i, p, v2, w2)

    def _on_cushion(self, payload: tuple, balls: list[int]) -> None:
        c = self.cushions[payload[0]]
        n = (-c.inward, 0.0) if c.axis == 0 else (0.0, -c.inward)
        self._cushion_impulse(balls[0], n[0], n[1], c.name)

    def _on_jaw(self, payload: tuple, balls: list[int]) -> None:
        name, (jx, jy) = self.jaws[payload[0]]
        p = self.balls[balls[0]].motion.pos(self.now)
        d = math.hypot(jx - p[0], jy - p[1])
        self._cushion_impulse(balls[0], (jx - p[0]) / d, (jy - p[1]) / d, name)

    def _on_pocket(self, payload: tuple, balls: list[int]) -> None:
        self._drop(balls[0], self.table.pockets[payload[0]].name)

    def _on_mouth(self, payload: tuple, balls: list[int]) -> None:
        p = self.balls[balls[0]].motion.pos(self.now)
        nearest = min(self.table.pockets, key=lambda pk: math.dist(p, pk.centre))
        self._drop(balls[0], nearest.name)

    def _drop(self, i: int, pocket: str) -> None:
        b = self.balls[i]
        p, v = b.motion.pos(self.now), b.motion.vel(self.now)
        self.emit(self.now, "pocket", [b.id], pocket=pocket, speed=math.hypot(*v),
                  at=p)
        pk = self.table.pocket(pocket)
        b.hanging = None
        self.rebase(i, Motion("pocketed", self.now, pk.centre[0], pk.centre[1]))

    def _jump(self, i: int, p: Point, v: Point, w: tuple[float, float, float],
              nx: float, ny: float) -> None:
        """The ball rides over the cushion: a ballistic arc off the table."""
        vn = v[0] * nx + v[1] * ny
        boost = max(0.0, 600.0 - vn)  # keep it leaving at a visible pace
        vx, vy = v[0] + boost * nx, v[1] + boost * ny
        vn += boost
        t_land = self.now + (JUMP_VZ + math.sqrt(JUMP_VZ ** 2 + 2 * G * FLOOR_DROP)) / G
        m = Motion("air", self.now, p[0], p[1], vx, vy, 0.0, 0.0, *w, t_end=t_land,
                   vz=JUMP_VZ)
        beyond = self.table.rail_width + self.balls[i].radius  # centre past the rail
        m.t_exit = self.now + beyond / vn
        self.rebase(i, m)

    def _on_exit(self, payload: tuple, balls: list[int]) -> None:
        b = self.balls[balls[0]]
        self.emit(self.now, "off_table", [b.id], speed=math.hypot(*b.motion.vel(self.now)),
                  at=b.motion.pos(self.now))

    def _on_land(self, payload: tuple, balls: list[int]) -> None:
        i = balls[0]
        m = self.balls[i].motion
        p = m.pos(self.now)
        landed = Motion("off", self.now, p[0], p[1], vz=0.0)
        self.rebase(i, landed)

    def _on_pin(self, payload: tuple, balls: list[int]) -> None:
        pin = self.pins[payload[0]]
        i = balls[0]
        b = self.balls[i]
        if pin.down:
            self.predict(i)
            return
        p, v, w = self._state(i)
        nx, ny = pin.x - p[0], pin.y - p[1]
        d = math.hypot(nx, ny)
        nx, ny = nx / d, ny / d
        vn = v[0] * nx + v[1] * ny
        self.emit(self.now, "ball_pin", [b.id, pin.id], speed=math.hypot(*v))
        self._knock(pin, b.id, math.atan2(ny, nx), self.now)
        if vn > 0:
            J = (1.0 + E_PIN) * vn / (1.0 / b.mass + 1.0 / pin.mass)
            v = (v[0] - J / b.mass * nx, v[1] - J / b.mass * ny)
        self._replan(i, p, v, w)

    def _knock(self, pin: _Pin, by: str, angle: float, t: float) -> None:
        """The pin falls at ``t`` toward ``angle`` and knocks what its length reaches."""
        pin.down, pin.t_down = True, t
        self.pin_fall[pin.id] = angle
        self.raw.append({"t": t, "type": "pin_down", "ids": (pin.id,), "by": by,
                         "shot": self.shot or None})
        ux, uy = math.cos(angle), math.sin(angle)
        for other in self.pins:
            if other.down:
                continue
            dx, dy = other.x - pin.x, other.y - pin.y
            along = dx * ux + dy * uy
            across = abs(dx * uy - dy * ux)
            if 0 < along <= pin.height + other.radius and across <= pin.head_radius + other.radius:
                other.down = True  # doomed: no ball can knock it again
                self.pins_falling += 1
                self.seq += 1
                heapq.heappush(self.heap, (t + PIN_TOPPLE, self.seq, "pin_chain",
                                           (other.id, pin.id, math.atan2(dy, dx)), ()))

    def _on_pin_chain(self, payload: tuple, balls: list[int]) -> None:
        pid, by, angle = payload
        self.pins_falling -= 1
        pin = next(p for p in self.pins if p.id == pid)
        pin.down = False
        self._knock(pin, by, angle, self.now)

    # ------------------------------------------------------------ actions
    def strike(self, ball: str, direction: Point, speed: float, side: float,
               height: float, jump: int) -> None:
        i = self.index[ball]
        b = self.balls[i]
        if not b.on_table:
            raise SimulationError(f"ball {ball!r} is not on the table at t={self.now:.3f}")
        dx, dy = direction
        R = b.radius
        k = 5.0 * speed / (2.0 * R)
        w = (k * height * dy, -k * height * dx, -k * side)
        p = b.motion.pos(self.now)
        b.jump_at = b.cushions + jump if jump else 0
        b.hanging = None
        self._replan(i, p, (speed * dx, speed * dy), w)

    def roll(self, ball: str, displacement: Point) -> None:
        """Move a resting ball by a hand or cue touch: it rolls ``displacement``."""
        i = self.index[ball]
        b = self.balls[i]
        dist = math.hypot(*displacement)
        speed = math.sqrt(2.0 * MU_ROLL * G * dist)
        ux, uy = displacement[0] / dist, displacement[1] / dist
        p = b.motion.pos(self.now)
        self.emit(self.now, "ball_disturbed", [ball], speed=speed)
        b.hanging = None
        self._replan(i, p, (speed * ux, speed * uy), (speed * uy / b.radius,
                                                      -speed * ux / b.radius, 0.0))

    def fall(self, ball: str) -> None:
        i = self.index[ball]
        b = self.balls[i]
        if b.hanging is None:
            raise SimulationError(f"ball {ball!r} is not hanging on a jaw at "
                                  f"t={self.now:.3f}; only a hanging ball can fall")
        self._drop(i, b.hanging)


# ----------------------------------------------------------------- actions

@dataclass(frozen=True)
class StrokeAction:
    """The cue strikes ``ball``: direction, speed, tip offsets (fractions of R)."""

    ball: str
    speed: float
    direction: Point | None = None  # unit vector; or aim at a ball / point
    angle: float | None = None  # degrees from +x toward +y
    aim: str | Point | None = None
    offset: float = 0.0  # mm: aim point shifted to the player's right (+) or left
    side: float = 0.0  # tip right (+) / left (-) of centre, fraction of R
    height: float = 0.0  # tip above (+, follow) / below (-, draw) centre; 0.4 = roll
    jump: int = 0  # the ball leaves the table at this cushion contact (1 = first)
    pause: float = 1.0  # seconds after everything came to rest


@dataclass(frozen=True)
class TouchAction:
    """A resting ball moved without contact: a hand or the cue touches it."""

    ball: str
    displacement: Point  # mm
    during: float | None = None  # seconds after the last stroke; None: after rest
    pause: float = 0.5


@dataclass(frozen=True)
class FallAction:
    """A ball hanging on a jaw drops ``delay`` s after the shot ended."""

    ball: str
    delay: float


@dataclass(frozen=True)
class WaitAction:
    duration: float


Action = StrokeAction | TouchAction | FallAction | WaitAction


def _num(d: dict, key: str, where: str, default: Any = None, lo: float = -math.inf,
         hi: float = math.inf) -> Any:
    if key not in d:
        if default is None:
            raise SimulationError(f"{where}: missing field {key!r}")
        return default
    v = d[key]
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise SimulationError(f"{where}: field {key!r} must be a number")
    if not lo <= v <= hi:
        raise SimulationError(f"{where}: field {key!r} must be between {lo} and {hi}")
    return float(v)


def _point(v: Any, where: str, key: str) -> Point:
    if (not isinstance(v, list | tuple) or len(v) != 2
            or not all(isinstance(c, int | float) and not isinstance(c, bool) for c in v)):
        raise SimulationError(f"{where}: field {key!r} must be [x, y]")
    return (float(v[0]), float(v[1]))


def parse_action(d: Any, where: str = "action") -> Action:
    """An action from its JSON form (docs/simulator.md); errors name the bad field."""
    if isinstance(d, StrokeAction | TouchAction | FallAction | WaitAction):
        return d
    if not isinstance(d, dict):
        raise SimulationError(f"{where}: expected an object")
    kind = d.get("type")
    known = {"type", "ball", "speed", "direction", "angle", "aim", "offset", "side",
             "height", "jump", "pause", "displacement", "during", "delay", "duration"}
    for k in d:
        if k not in known:
            raise SimulationError(f"{where}: unknown field {k!r}")
    if kind == "wait":
        return WaitAction(_num(d, "duration", where, lo=0, hi=600))
    if not isinstance(d.get("ball"), str):
        raise SimulationError(f"{where}: field 'ball' must name a ball")
    if kind == "stroke":
        aim = d.get("aim")
        direction = None
        if "direction" in d:
            dx, dy = _point(d["direction"], where, "direction")
            n = math.hypot(dx, dy)
            if n == 0:
                raise SimulationError(f"{where}: field 'direction' must not be [0, 0]")
            direction = (dx / n, dy / n)
        if aim is not None and not isinstance(aim, str):
            aim = _point(aim, where, "aim")
        if direction is None and aim is None and "angle" not in d:
            raise SimulationError(f"{where}: a stroke needs 'direction', 'angle' or 'aim'")
        jump = d.get("jump", 0)
        if isinstance(jump, bool):
            jump = int(jump)
        if not isinstance(jump, int) or jump < 0:
            raise SimulationError(f"{where}: field 'jump' must be true/false or a cushion count")
        return StrokeAction(d["ball"], _num(d, "speed", where, lo=1, hi=15000), direction,
                            _num(d, "angle", where, 0.0) if "angle" in d else None, aim,
                            _num(d, "offset", where, 0.0), _num(d, "side", where, 0.0,
                                                                -MAX_TIP, MAX_TIP),
                            _num(d, "height", where, 0.0, -MAX_TIP, MAX_TIP), jump,
                            _num(d, "pause", where, 1.0, 0, 600))
    if kind == "touch":
        during = _num(d, "during", where, 0.0, 0, 600) if "during" in d else None
        disp = _point(d.get("displacement"), where, "displacement")
        if math.hypot(*disp) <= 0:
            raise SimulationError(f"{where}: field 'displacement' must not be [0, 0]")
        return TouchAction(d["ball"], disp, during, _num(d, "pause", where, 0.5, 0, 600))
    if kind == "fall":
        return FallAction(d["ball"], _num(d, "delay", where, lo=0, hi=600))
    raise SimulationError(f"{where}: field 'type' is {kind!r}; known: stroke, touch, fall, "
                          f"wait")


def check_layout(disc: Discipline, layout: Any, where: str = "layout") -> dict[str, Point]:
    """Validate positions: known ids, on the playing surface, not overlapping."""
    if not isinstance(layout, dict) or not layout:
        raise SimulationError(f"{where}: must map ball ids to [x, y]")
    known = {b.id: b for b in disc.balls}
    out: dict[str, Point] = {}
    table = disc.table
    for bid, p in layout.items():
        if bid not in known:
            raise SimulationError(f"{where}: {bid!r} is not a ball of {disc.name}; known: "
                                  f"{', '.join(known)}")
        x, y = _point(p, where, bid)
        r = known[bid].radius
        if not (r - 1e-6 <= x <= table.length - r + 1e-6
                and r - 1e-6 <= y <= table.width - r + 1e-6):
            raise SimulationError(f"{where}: {bid!r} at [{x:.1f}, {y:.1f}] is not on the "
                                  f"playing surface of {table.name}")
        out[bid] = (x, y)
    ids = list(out)
    for a in range(len(ids)):
        for c in range(a + 1, len(ids)):
            pa, pc = out[ids[a]], out[ids[c]]
            s = known[ids[a]].radius + known[ids[c]].radius
            if math.dist(pa, pc) < s - 1e-6:
                raise SimulationError(f"{where}: {ids[a]!r} and {ids[c]!r} overlap")
    return out


def _direction(world: _World, act: StrokeAction) -> Point:
    if act.direction is not None:
        return act.direction
    if act.aim is None:
        a = math.radians(act.angle or 0.0)
        return (math.cos(a), math.sin(a))
    p = world.balls[world.index[act.ball]].motion.pos(world.now)
    if isinstance(act.aim, str):
        if act.aim not in world.index:
            raise SimulationError(f"stroke aim: {act.aim!r} is not a ball on the table")
        q = world.balls[world.index[act.aim]].motion.pos(world.now)
    else:
        q = act.aim
    dx, dy = q[0] - p[0], q[1] - p[1]
    n = math.hypot(dx, dy)
    if n == 0:
        raise SimulationError("stroke aim: the aim point is the ball's own centre")
    dx, dy = dx / n, dy / n
    if act.offset:
        # shift the aim point to the player's right (-dy, dx) by offset mm
        qx, qy = q[0] - dy * act.offset, q[1] + dx * act.offset
        dx, dy = qx - p[0], qy - p[1]
        n = math.hypot(dx, dy)
        dx, dy = dx / n, dy / n
    return (dx, dy)


# ----------------------------------------------------------------- simulate

def simulate(discipline: str | Discipline, layout: dict[str, tuple[float, float]],
             actions: list,
             fps: float = 50, seed: int = 0, pins: bool | None = None,
             meta: dict[str, Any] | None = None, tail: float = 1.0) -> SimResult:
    """Run ``actions`` from ``layout``; return the trajectory and the events.

    ``seed`` is recorded in ``meta`` (the physics has no randomness; random scenes draw
    their layouts and strokes from it). ``pins``: None puts up the castle in the pins
    games only. The first action starts at its ``pause`` (default 1 s) after t = 0 and
    the clip runs ``tail`` s past the last event.
    """
    disc = get_discipline(discipline) if isinstance(discipline, str) else discipline
    if not 25 <= fps <= 60:
        raise SimulationError(f"fps is {fps}; the simulator samples at 25-60 fps")
    pos = check_layout(disc, layout)
    parsed = [parse_action(a, f"actions[{k}]") for k, a in enumerate(actions)]
    if not parsed:
        raise SimulationError("actions: a scenario needs at least one action")
    with_pins = disc.family == "pins" if pins is None else bool(pins)
    world = _World(disc, pos, with_pins)
    strokes: list[Stroke] = []
    last_stroke = 0.0
    last_end = 0.0
    quiet = 0.0
    for k, act in enumerate(parsed):
        where = f"actions[{k}]"
        ball = getattr(act, "ball", None)
        if ball is not None and ball not in world.index:
            raise SimulationError(f"{where}: field 'ball' is {ball!r}, not a ball on the "
                                  f"table; known: {', '.join(world.index)}")
        if isinstance(act, TouchAction) and act.during is not None:
            world.run_until(last_stroke + act.during)
            if world.balls[world.index[act.ball]].motion.mode != "rest":
                raise SimulationError(f"{where}: ball {act.ball!r} is not at rest at "
                                      f"t={world.now:.3f}; a touch moves a resting ball")
            world.roll(act.ball, act.displacement)
            continue
        world.run_until(None)
        if world.shot_open:
            world.emit(world.now, "shot_end", [], layout=world.layout(),
                       standing=world.standing())
            world.shot_open = False
            last_end = world.now
        quiet = max(quiet, world.now)
        if isinstance(act, WaitAction):
            world.run_until(world.now + act.duration)
            quiet = world.now
            continue
        if isinstance(act, FallAction):
            t = max(last_end + act.delay, world.now)
            world.run_until(t)
            try:
                world.fall(act.ball)
            except SimulationError as exc:
                raise SimulationError(f"{where}: {exc}") from None
            continue
        t = max(quiet, world.now) + act.pause
        world.run_until(t)
        if isinstance(act, TouchAction):
            if world.balls[world.index[act.ball]].motion.mode != "rest":
                raise SimulationError(f"{where}: ball {act.ball!r} is not at rest")
            world.roll(act.ball, act.displacement)
            continue
        assert isinstance(act, StrokeAction)
        if not world.balls[world.index[act.ball]].on_table:
            raise SimulationError(f"{where}: ball {act.ball!r} is no longer on the table")
        direction = _direction(world, act)
        world.shot += 1
        world.shot_open = True
        last_stroke = world.now
        world.emit(world.now, "shot_start", [act.ball], speed=act.speed,
                   layout=world.layout(), standing=world.standing())
        strokes.append(Stroke(world.now, act.ball, direction, act.speed))
        world.strike(act.ball, direction, act.speed, act.side, act.height, act.jump)
    world.run_until(None)
    if world.shot_open:
        world.emit(world.now, "shot_end", [], layout=world.layout(),
                   standing=world.standing())
        world.shot_open = False
    end = world.now + tail
    return _result(world, disc, fps, end, strokes,
                   {"discipline": disc.name, "seed": seed, **(meta or {})})


def _result(world: _World, disc: Discipline, fps: float, end: float,
            strokes: list[Stroke], meta: dict[str, Any]) -> SimResult:
    n = int(math.floor(end * fps)) + 1
    times = np.arange(n) / fps
    objs = [TrackedObject(b.id, "ball", 2 * b.radius) for b in world.balls]
    objs += [TrackedObject(p.id, "pin", 2 * p.radius) for p in world.pins]
    m = len(objs)
    pos = np.zeros((n, m, 2))
    states = np.zeros((n, m), np.int8)
    visible = np.ones((n, m), bool)
    heights = np.zeros((n, m))
    off_times = {e["ids"][0]: e["t"] for e in world.raw if e["type"] == "off_table"}
    for k, b in enumerate(world.balls):
        pos[:, k], states[:, k], heights[:, k] = _sample(b.log, times)
        if b.id in off_times:
            gone = times >= off_times[b.id]
            states[gone, k] = STATE_CODE["off_table"]
            visible[gone, k] = False
        visible[states[:, k] == STATE_CODE["pocketed"], k] = False
    for j, p in enumerate(world.pins):
        k = len(world.balls) + j
        pos[:, k] = (p.x, p.y)
        states[:, k] = STATE_CODE["standing"]
        if p.down:
            states[times >= p.t_down, k] = STATE_CODE["fallen"]
    traj = Trajectory(disc.name, disc.table_name, float(fps), tuple(objs), pos, states,
                      visible, heights if np.any(heights) else None,
                      dict(world.pin_fall), tuple(strokes), meta)
    events = _events(world, fps)
    return SimResult(traj, events, world.contacts,
                     {b.id: b.radius for b in world.balls},
                     {b.id: b.mass for b in world.balls},
                     {b.id: list(b.log) for b in world.balls}, end)


def _sample(log: list[Motion], times: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                         np.ndarray]:
    """Positions, state codes and heights of one ball at ``times`` (vectorised)."""
    n = len(times)
    pos = np.zeros((n, 2))
    states = np.zeros(n, np.int8)
    heights = np.zeros(n)
    t0s = np.array([mo.t0 for mo in log])
    seg = np.clip(np.searchsorted(t0s, times, side="right") - 1, 0, None)
    for s, mo in enumerate(log):
        sel = np.nonzero(seg == s)[0]
        if not len(sel):
            continue
        tt = np.minimum(times[sel], mo.t_end) - mo.t0
        if mo.mode in ("off", "rest", "pocketed"):
            pos[sel] = (mo.px, mo.py)
        else:
            pos[sel, 0] = mo.px + mo.vx * tt + 0.5 * mo.ax * tt * tt
            pos[sel, 1] = mo.py + mo.vy * tt + 0.5 * mo.ay * tt * tt
        states[sel] = STATE_CODE[_STATE_OF[mo.mode]]
        if mo.mode == "air":
            heights[sel] = mo.vz * tt - 0.5 * G * tt * tt
            states[sel[times[sel] >= mo.t_end]] = STATE_CODE["off_table"]
        elif mo.mode == "off":
            heights[sel] = -FLOOR_DROP
    return pos, states, heights


_STATE_OF = {"rest": "resting", "slide": "moving", "roll": "moving", "air": "moving",
             "pocketed": "pocketed", "off": "off_table"}


def _events(world: _World, fps: float) -> list[Event]:
    index = world.index
    pins = {p.id: (p.x, p.y) for p in world.pins}
    raw = sorted(enumerate(world.raw), key=lambda kv: (round(kv[1]["t"], 9), kv[0]))
    out: list[Event] = []
    for _, r in raw:
        t = r["t"]
        ids = r["ids"]
        pos: list[Point] = []
        if r["type"] != "pin_down":
            for i in ids:
                if i in pins:
                    pos.append(pins[i])
                elif r["type"] in ("pocket", "off_table"):
                    pos.append(r["at"])
                else:
                    pos.append(_pos_at(world.balls[index[i]], t))
        extra: dict[str, Any] = {}
        if "layout" in r:
            extra["layout"] = r["layout"]
            if world.pins:
                extra["standing"] = r["standing"]
        ev = Event(t=t, type=r["type"], ids=tuple(ids), pos=tuple(pos),
                   frame=frame_of(t, fps), shot=r["shot"], cushion=r.get("cushion"),
                   pocket=r.get("pocket"), by=r.get("by"), speed=r.get("speed"),
                   hanging=r.get("hanging"), extra=extra)
        out.append(ev)
    return out


def _pos_at(b: _Ball, t: float) -> Point:
    log = b.log
    k = len(log) - 1
    while k > 0 and log[k].t0 > t:
        k -= 1
    return log[k].pos(t)
