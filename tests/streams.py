"""Build event streams by hand for rules tests: a shot at a time, in table order.

Example::

    s = Stream(layout={"white": (700, 500), "yellow": (710, 710), "red": (2130, 710)})
    s.shot("white")
    s.cushion("white", "right").cushion("white", "foot").cushion("white", "left")
    s.hit("white", "yellow").hit("white", "red")
    s.end(white=(1500, 300))          # moves white; the others stay where they were
    events = s.events                 # list[tracking.Event], times increasing

Positions come from the running layout; ``end`` updates it and writes the
``layout`` snapshot that ``shot_end`` carries (docs/events.md).
"""

from __future__ import annotations

from tracking.events import Event

Point = tuple[float, float]


class Stream:
    def __init__(self, layout: dict[str, Point], fps: float = 50.0, dt: float = 0.2) -> None:
        self.layout: dict[str, Point] = dict(layout)
        self.events: list[Event] = []
        self.fps = fps
        self.dt = dt
        self.t = 0.0
        self.shot_no = 0

    # ---------------------------------------------------------------- internals
    def _add(self, type_: str, ids: tuple[str, ...] = (), **fields) -> Stream:
        self.t += self.dt
        extra = fields.pop("extra", {})
        pos = tuple(self.layout.get(i, (0.0, 0.0)) for i in ids if not i.startswith("pin_"))
        if len(pos) != len(ids):
            pos = ()
        self.events.append(Event(t=round(self.t, 6), type=type_, ids=ids, pos=pos,
                                 frame=int(self.t * self.fps),
                                 shot=self.shot_no or None, extra=extra, **fields))
        return self

    def _snapshot(self) -> dict[str, list[float]]:
        return {k: [v[0], v[1]] for k, v in self.layout.items()}

    # ---------------------------------------------------------------- table events
    def shot(self, ball: str, speed: float = 3000.0) -> Stream:
        self.shot_no += 1
        return self._add("shot_start", (ball,), speed=speed,
                         extra={"layout": self._snapshot()})

    def hit(self, a: str, b: str) -> Stream:
        return self._add("ball_ball", (a, b))

    def carom(self, ball: str, first: str = "red", cushions: tuple[str, ...] = (),
              between: tuple[str, ...] = ()) -> Stream:
        """A carom shot (no ``end`` yet): ``ball`` touches ``cushions``, meets ``first``,
        touches ``between``, then meets the third ball of white, yellow and red."""
        second = next(b for b in ("white", "yellow", "red") if b not in (ball, first))
        self.shot(ball)
        for c in cushions:
            self.cushion(ball, c)
        self.hit(ball, first)
        for c in between:
            self.cushion(ball, c)
        return self.hit(ball, second)

    def cushion(self, ball: str, name: str) -> Stream:
        return self._add("ball_cushion", (ball,), cushion=name)

    def pocket(self, ball: str, pocket: str) -> Stream:
        self._add("pocket", (ball,), pocket=pocket)
        self.layout.pop(ball, None)
        return self

    def off_table(self, ball: str) -> Stream:
        self._add("off_table", (ball,))
        self.layout.pop(ball, None)
        return self

    def pin(self, ball: str, pin: str) -> Stream:
        return self._add("ball_pin", (ball, pin))

    def pin_down(self, pin: str, by: str) -> Stream:
        return self._add("pin_down", (pin,), by=by)

    def disturbed(self, ball: str) -> Stream:
        return self._add("ball_disturbed", (ball,))

    def hang(self, ball: str, pocket: str) -> Stream:
        """The ball stops on a pocket's jaw (ball_rest with ``hanging``)."""
        return self._add("ball_rest", (ball,), hanging=pocket)

    def at(self, **positions: Point) -> Stream:
        """Move balls mid-shot (no event), so later events carry where they happened."""
        self.layout.update(positions)
        return self

    def wait(self, seconds: float) -> Stream:
        self.t += seconds
        return self

    def end(self, **moved: Point) -> Stream:
        """All at rest: ball_rest for each moved ball, then shot_end with the layout."""
        for ball, p in moved.items():
            self.layout[ball] = p
            self._add("ball_rest", (ball,))
        return self._add("shot_end", (), extra={"layout": self._snapshot()})

    # ---------------------------------------------------------------- other records
    def referee(self, action: str, shot: int | None = None, **fields) -> Stream:
        self.t += 0.01
        self.events.append(Event(t=round(self.t, 6), type="referee", shot=shot,
                                 extra={"action": action, **fields}))
        return self

    def match(self, **settings) -> Stream:
        self.events.insert(0, Event(t=0.0, type="match", extra=settings))
        return self

    def light(self, lux_min: float, lux_mean: float) -> Stream:
        self.t += 0.01
        self.events.append(Event(t=round(self.t, 6), type="light",
                                 extra={"lux_min": lux_min, "lux_mean": lux_mean,
                                        "uniformity": lux_min / lux_mean}))
        return self
