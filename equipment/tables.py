"""Tables, balls and pins of every discipline cueref referees, as data.

One coordinate system everywhere past calibration (docs/coordinates.md): table
millimetres, origin at the head-left corner of the playing surface measured at the
cushion noses, ``x`` along the long side toward the foot, ``y`` across toward the
right. The head is the end where play starts (carom starting spots, the pool D, the
pyramid house). Cushions are named ``head`` (x = 0), ``foot`` (x = length),
``left`` (y = 0) and ``right`` (y = width).

Every number says where it comes from: ``[000 ...]`` etc. cite a rulebook in
``shared/seeds``; ``[assumed: ...]`` marks a real-world value chosen where the seeds
are silent, with the reason.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

Point = tuple[float, float]

CUSHIONS = ("head", "foot", "left", "right")


@dataclass(frozen=True)
class BallSpec:
    """A ball: its fixed id, diameter, mass and look."""

    id: str
    diameter: float  # mm
    mass: float  # g
    colour: str  # a name the renderer knows: white, yellow, red, ivory, black, ...
    marking: str = ""  # "dots" (white marked with two dots), "number", "stripe", ""
    number: int | None = None

    @property
    def radius(self) -> float:
        return self.diameter / 2.0


@dataclass(frozen=True)
class PinSpec:
    """A standing pin of the Italian castle, named by its place."""

    id: str
    position: Point  # mm, table coordinates of the base centre
    colour: str  # "red" for the centre pin, "white" otherwise
    role: str  # "centre", "inner", "outer"
    base_diameter: float = 7.0  # [assumed: common 5-pin pins, ~7 mm base]
    head_diameter: float = 10.0  # [assumed]
    height: float = 25.0  # [assumed: billiard pins are 2-3 cm tall]
    mass: float = 3.0  # g [assumed]

    @property
    def radius(self) -> float:
        return self.base_diameter / 2.0


@dataclass(frozen=True)
class Pocket:
    """A pocket: its mouth between the two jaw points on the cushion noses."""

    name: str  # head_left, head_right, side_left, side_right, foot_left, foot_right
    jaws: tuple[Point, Point]  # ends of the mouth, on the cushion-nose lines
    centre: Point  # where a ball that drops ends up, outside the nose rectangle
    drop_radius: float  # a ball centre within this of ``centre`` falls

    @property
    def mouth(self) -> float:
        (x0, y0), (x1, y1) = self.jaws
        return math.hypot(x1 - x0, y1 - y0)


@dataclass(frozen=True)
class Table:
    """A table profile: the geometry every call is stated in."""

    name: str
    title: str
    rulebook: str  # seed file prefix: "000", "001", "002", "003"
    length: float  # mm, playing surface between cushion noses, along x
    width: float  # mm, along y
    cushion_height: float  # mm, nose height above the cloth
    rail_width: float  # mm, cushion nose to the outer edge of the wooden rail
    rail_top_height: float  # mm, height of the rail top (diamonds) above the cloth
    diamond_offset: float  # mm, diamonds' distance beyond the cushion nose
    diamonds: tuple[Point, ...]  # table mm, on the rail tops (not the cloth plane)
    spots: dict[str, Point]
    pockets: tuple[Pocket, ...] = ()
    lines: dict[str, tuple[Point, ...]] = field(default_factory=dict)  # polylines
    zones: dict[str, tuple[Point, ...]] = field(default_factory=dict)  # polygons
    sources: dict[str, str] = field(default_factory=dict)

    @property
    def size(self) -> Point:
        return (self.length, self.width)

    @property
    def corners(self) -> tuple[Point, Point, Point, Point]:
        """Playing-surface corners: head-left, foot-left, foot-right, head-right."""
        L, W = self.length, self.width
        return ((0.0, 0.0), (L, 0.0), (L, W), (0.0, W))

    def cushion_distance(self, p: Point) -> dict[str, float]:
        """Distance in mm from a point to each cushion nose line."""
        x, y = p
        return {"head": x, "foot": self.length - x, "left": y, "right": self.width - y}

    def pocket(self, name: str) -> Pocket:
        for p in self.pockets:
            if p.name == name:
                return p
        raise KeyError(f"table {self.name!r} has no pocket {name!r}; "
                       f"known: {', '.join(p.name for p in self.pockets) or 'none'}")

    def contains(self, p: Point, margin: float = 0.0) -> bool:
        """True when ``p`` lies on the playing surface shrunk by ``margin`` mm."""
        x, y = p
        return margin <= x <= self.length - margin and margin <= y <= self.width - margin


# --------------------------------------------------------------------------- helpers

def _diamonds(length: float, width: float, offset: float, long_skip: tuple[int, ...] = (),
              short_divisions: int = 4) -> tuple[Point, ...]:
    """Diamonds at k/8 of the length on the long rails and k/short_divisions of the width.

    Order: left rail head to foot, right rail head to foot, head rail left to right,
    foot rail left to right.
    """
    pts: list[Point] = []
    for k in range(1, 8):
        if k in long_skip:
            continue
        pts.append((k * length / 8, -offset))
    for k in range(1, 8):
        if k in long_skip:
            continue
        pts.append((k * length / 8, width + offset))
    for k in range(1, short_divisions):
        pts.append((-offset, k * width / short_divisions))
    for k in range(1, short_divisions):
        pts.append((length + offset, k * width / short_divisions))
    return tuple(pts)


def _six_pockets(length: float, width: float, corner_mouth: float, side_mouth: float,
                 ball_radius: float) -> tuple[Pocket, ...]:
    """Six pockets of a pocket table.

    A corner mouth spans the corner at 45 degrees; its jaws lie on the two cushion
    lines, ``corner_mouth / sqrt(2)`` from the corner. A side mouth is centred on the
    middle of the long cushion.
    """
    a = corner_mouth / math.sqrt(2.0)
    drop_c = corner_mouth / 2.0
    s = side_mouth / 2.0
    inset = ball_radius * 0.6  # drop point just behind the mouth [assumed]
    k = inset / math.sqrt(2.0)
    return (
        Pocket("head_left", ((a, 0.0), (0.0, a)), (-k, -k), drop_c),
        Pocket("head_right", ((0.0, width - a), (a, width)), (-k, width + k), drop_c),
        Pocket("foot_left", ((length - a, 0.0), (length, a)), (length + k, -k), drop_c),
        Pocket("foot_right", ((length, width - a), (length - a, width)),
               (length + k, width + k), drop_c),
        Pocket("side_left", ((length / 2 - s, 0.0), (length / 2 + s, 0.0)),
               (length / 2, -inset), s),
        Pocket("side_right", ((length / 2 - s, width), (length / 2 + s, width)),
               (length / 2, width + inset), s),
    )


def _rect(x0: float, y0: float, x1: float, y1: float) -> tuple[Point, ...]:
    return ((x0, y0), (x1, y0), (x1, y1), (x0, y1))


# --------------------------------------------------------------------------- carom

CAROM_LENGTH = 2840.0  # [000 Tavolo 4: superficie libera 2,84 x 1,42 m]
CAROM_WIDTH = 1420.0
CAROM_BALL = 61.5  # [000 Bilie 2]
CAROM_BALL_MASS = 210.0  # [000 Bilie 3: 205-215 g]
ANCHOR_SIDE = 178.0  # [assumed: UMB cadre anchors are 17.8 cm squares]


def _balkline_lines(distance: float) -> dict[str, tuple[Point, ...]]:
    """Lines drawn ``distance`` mm from every cushion (quadro 47 and 71)."""
    L, W = CAROM_LENGTH, CAROM_WIDTH
    lines = {
        "balk_head": ((distance, 0.0), (distance, W)),
        "balk_foot": ((L - distance, 0.0), (L - distance, W)),
        "balk_left": ((0.0, distance), (L, distance)),
        "balk_right": ((0.0, W - distance), (L, W - distance)),
    }
    # Dedupe coincident lines (71 cm from both long cushions is the same centre line).
    if abs(distance - (W - distance)) < 1e-6:
        del lines["balk_right"]
        lines["balk_left"] = ((0.0, distance), (L, distance))
    return lines


def _anchor_squares(lines: dict[str, tuple[Point, ...]]) -> dict[str, tuple[Point, ...]]:
    """Anchor squares astride each line where it meets a cushion, one side on the cushion."""
    h = ANCHOR_SIDE / 2.0
    zones: dict[str, tuple[Point, ...]] = {}
    for name, ((x0, y0), (x1, _)) in lines.items():
        if x0 == x1:  # a line across the table: anchors on the left and right cushions
            zones[f"anchor_{name}_left"] = _rect(x0 - h, 0.0, x0 + h, ANCHOR_SIDE)
            zones[f"anchor_{name}_right"] = _rect(x0 - h, CAROM_WIDTH - ANCHOR_SIDE,
                                                  x0 + h, CAROM_WIDTH)
        else:  # along the table: anchors on the head and foot cushions
            zones[f"anchor_{name}_head"] = _rect(0.0, y0 - h, ANCHOR_SIDE, y0 + h)
            zones[f"anchor_{name}_foot"] = _rect(CAROM_LENGTH - ANCHOR_SIDE, y0 - h,
                                                 CAROM_LENGTH, y0 + h)
    return zones


def _balkline_fields(distance: float) -> dict[str, tuple[Point, ...]]:
    """The rectangles (cadres) that the balk lines cut the table into."""
    L, W = CAROM_LENGTH, CAROM_WIDTH
    xs = sorted({0.0, distance, L - distance, L})
    ys = sorted({0.0, distance, W - distance, W})
    out: dict[str, tuple[Point, ...]] = {}
    for i in range(len(xs) - 1):
        for j in range(len(ys) - 1):
            out[f"field_{i}{j}"] = _rect(xs[i], ys[j], xs[i + 1], ys[j + 1])
    return out


FREE_GAME_CORNER = 710.0 / 2  # [assumed: corner triangles reaching the 1st diamond]


def _free_game_corners() -> dict[str, tuple[Point, ...]]:
    """Corner interdiction zones of the free game: triangles at each corner.

    [assumed: the seed (000, Libera) names the corner zones but not their size; drawn
    here as right triangles whose legs run along both cushions to the first diamond
    of the long rail (L/8 = 355 mm) and the first diamond of the short rail (W/4 =
    355 mm). Kept as data so a federation's exact figure is a one-line change.]
    """
    a = FREE_GAME_CORNER
    L, W = CAROM_LENGTH, CAROM_WIDTH
    return {
        "corner_head_left": ((0.0, 0.0), (a, 0.0), (0.0, a)),
        "corner_head_right": ((0.0, W), (0.0, W - a), (a, W)),
        "corner_foot_left": ((L, 0.0), (L, a), (L - a, 0.0)),
        "corner_foot_right": ((L, W), (L - a, W), (L, W - a)),
    }


def _carom_spots() -> dict[str, Point]:
    """Five spots [000 Mouches 3]: three on the long axis 71 cm apart, two starting
    spots 18.25 cm either side of the one nearest the head cushion."""
    c = CAROM_WIDTH / 2
    return {
        "head": (710.0, c),
        "centre": (1420.0, c),
        "foot": (2130.0, c),
        "start_left": (710.0, c - 182.5),
        "start_right": (710.0, c + 182.5),
    }


def _carom_table(name: str, title: str, rulebook: str,
                 lines: dict[str, tuple[Point, ...]] | None = None,
                 zones: dict[str, tuple[Point, ...]] | None = None) -> Table:
    offset = 95.0  # [assumed: frame 3100 x 1677.5 [000 Tavolo 5] leaves 130/129 mm
    # beyond the noses; diamonds sit mid-way on the wooden top]
    return Table(
        name=name,
        title=title,
        rulebook=rulebook,
        length=CAROM_LENGTH,
        width=CAROM_WIDTH,
        cushion_height=37.0,  # [000 Tavolo 3: 36-38 mm]
        rail_width=130.0,  # [000 Tavolo 5: frame 3.10 x 1.6775 m]
        rail_top_height=42.0,  # [assumed: rail top a few mm above the 37 mm nose]
        diamond_offset=offset,
        diamonds=_diamonds(CAROM_LENGTH, CAROM_WIDTH, offset),
        spots=_carom_spots(),
        lines=lines or {},
        zones=zones or {},
        sources={
            "size": "000 Tavolo 4",
            "diamonds": "000 Tavolo 5: 1/8 of the length; on the short rails the same "
                        "355 mm spacing (W/4), as on real tables",
            "spots": "000 Mouches 3",
        },
    )


# --------------------------------------------------------------------------- pins

PIN_SPACING = 63.5  # [assumed: 2.5 in between neighbouring pin centres]
PALLINO = 52.0  # [assumed: the smaller red ball of the Italian game]


def castle(kind: str, centre: Point | None = None) -> tuple[PinSpec, ...]:
    """The pin castle at the table centre: ``five`` (cross) or ``nine`` (Greek cross).

    Pins are named by their place: ``pin_centre`` (red), the inner ring
    ``pin_head``/``pin_foot``/``pin_left``/``pin_right`` (toward that cushion) and, for
    nine pins, the outer ring ``pin_head_outer`` etc. [002 Art. 29: outer 2, inner 8,
    centre 10/30 points].
    """
    if kind not in ("five", "nine"):
        raise ValueError(f"unknown castle {kind!r}; known: five, nine")
    cx, cy = centre or (CAROM_LENGTH / 2, CAROM_WIDTH / 2)
    d = PIN_SPACING
    dirs = {"head": (-1, 0), "foot": (1, 0), "left": (0, -1), "right": (0, 1)}
    pins = [PinSpec("pin_centre", (cx, cy), "red", "centre")]
    for side, (ux, uy) in dirs.items():
        pins.append(PinSpec(f"pin_{side}", (cx + ux * d, cy + uy * d), "white", "inner"))
    if kind == "nine":
        for side, (ux, uy) in dirs.items():
            pins.append(PinSpec(f"pin_{side}_outer", (cx + 2 * ux * d, cy + 2 * uy * d),
                                "white", "outer"))
    return tuple(pins)


def _pins_table() -> Table:
    base = _carom_table("italian_pins", "Italian pins table (GABS, 5 and 9 pins)", "002")
    L, W = base.length, base.width
    return replace(
        base,
        lines={"half": ((L / 2, 0.0), (L / 2, W))},  # [002 Art. 28.4: linea mediana]
        sources={**base.sources, "half line": "002 Art. 28.4",
                 "castle": "assumed spacing 63.5 mm"},
    )


# --------------------------------------------------------------------------- pyramid

PYRAMID_LENGTH = 3550.0  # [assumed: 12 ft Russian table, playing surface 3550 x 1775]
PYRAMID_WIDTH = 1775.0
PYRAMID_BALL = 68.0  # [issue 2 / Russian federation standard]
PYRAMID_BALL_MASS = 285.0  # [assumed: 68 mm cast phenolic ball]


def _pyramid_table() -> Table:
    L, W = PYRAMID_LENGTH, PYRAMID_WIDTH
    house_x = L / 4  # the house line through the front spot [assumed: 1/4 of length]
    offset = 100.0
    return Table(
        name="pyramid",
        title="Russian pyramid 12 ft table",
        rulebook="001",
        length=L,
        width=W,
        cushion_height=46.0,  # [assumed: ~2/3 of the ball diameter]
        rail_width=150.0,
        rail_top_height=52.0,
        diamond_offset=offset,
        diamonds=_diamonds(L, W, offset, long_skip=(4,)),
        spots={"front": (house_x, W / 2), "centre": (L / 2, W / 2),
               "back": (3 * L / 4, W / 2)},
        pockets=_six_pockets(L, W, corner_mouth=73.0, side_mouth=83.0,
                             ball_radius=PYRAMID_BALL / 2),
        lines={"house": ((house_x, 0.0), (house_x, W))},
        zones={"house": _rect(0.0, 0.0, house_x, W)},
        sources={
            "size": "assumed 12 ft standard 3550 x 1775 mm",
            "pockets": "assumed: corner 73 mm, side 83 mm (68 mm balls, narrow pockets)",
            "house": "001 §5, §9: house behind the line through the front spot",
            "rack": "001 §2: apex on the back spot, base parallel to the short cushion",
        },
    )


# --------------------------------------------------------------------------- pool 51

POOL_LENGTH = 1980.0  # [003 Art. 1.a: 180-214 x 90-107 cm; assumed a 7 ft table]
POOL_WIDTH = 990.0
POOL_BALL = 50.8  # [003 Art. 1.f]
POOL_CUE_BALL = 47.8  # [003 Art. 1.g]
POOL_BALL_MASS = 140.0  # [assumed: 2 in phenolic ball]
POOL_CUE_BALL_MASS = 115.0  # [assumed: 1 7/8 in cue ball]


def _d_polygon(baulk_x: float, cy: float, radius: float, n: int = 32) -> tuple[Point, ...]:
    pts = [(baulk_x - radius * math.sin(math.pi * k / n), cy - radius * math.cos(math.pi * k / n))
           for k in range(n + 1)]
    return tuple(pts)


def _pool_table() -> Table:
    L, W = POOL_LENGTH, POOL_WIDTH
    baulk_x = L / 5  # [assumed: baulk line at 1/5 of the length, as on blackball tables]
    d_radius = W / 6  # [assumed: the D's radius is 1/6 of the width]
    offset = 75.0
    d = _d_polygon(baulk_x, W / 2, d_radius)
    return Table(
        name="pool51",
        title="Pool 51 (blackball) 7 ft table",
        rulebook="003",
        length=L,
        width=W,
        cushion_height=31.0,  # [003 Art. 1.c]
        rail_width=110.0,
        rail_top_height=36.0,
        diamond_offset=offset,
        diamonds=_diamonds(L, W, offset, long_skip=(4,)),
        spots={"black": (3 * L / 4, W / 2), "centre": (L / 2, W / 2),
               "d_centre": (baulk_x, W / 2)},
        pockets=_six_pockets(L, W, corner_mouth=88.0, side_mouth=96.0,
                             ball_radius=POOL_BALL / 2),
        lines={"baulk": ((baulk_x, 0.0), (baulk_x, W)), "d": d},
        zones={"d": d},
        sources={
            "size": "003 Art. 1.a (range); 1980 x 990 mm chosen",
            "balls": "003 Art. 1.f-g",
            "d": "assumed: baulk line at L/5, D radius W/6 (blackball tables)",
            "black spot": "assumed: at 3/4 of the length, centre of the rack [003 Art. 6.1]",
            "pockets": "assumed: corner 88 mm, side 96 mm",
        },
    )


# --------------------------------------------------------------------------- registry

def _build_tables() -> dict[str, Table]:
    free = _carom_table("carom_free", "Carom match table, free game", "000",
                        zones=_free_game_corners())
    tables = {
        "carom": _carom_table("carom", "Carom match table (FIBiS)", "000"),
        "carom_free": free,
    }
    for tag, dist in (("47", 470.0), ("71", 710.0)):
        lines = _balkline_lines(dist)
        tables[f"carom_balkline_{tag}"] = _carom_table(
            f"carom_balkline_{tag}", f"Carom match table, balkline {tag} cm", "000",
            lines=lines, zones={**_balkline_fields(dist), **_anchor_squares(lines)})
    tables["italian_pins"] = _pins_table()
    tables["pyramid"] = _pyramid_table()
    tables["pool51"] = _pool_table()
    return tables


TABLES: dict[str, Table] = _build_tables()


def get_table(name: str) -> Table:
    """The table profile called ``name``; an unknown name lists the known ones."""
    try:
        return TABLES[name]
    except KeyError:
        raise KeyError(f"unknown table {name!r}; known: {', '.join(sorted(TABLES))}") from None
