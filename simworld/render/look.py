"""Everything about how a clip looks, as data that one seed can randomise.

``Look.default()`` is a well-kept club table under three lamps filmed by a fixed
camera; ``random_look(seed)`` draws cloths, lamps, sensor, occluders and graphics for
domain-randomised training data. Colours are linear-light albedos (0..1), not sRGB.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace

import numpy as np

CLOTHS: dict[str, tuple[float, float, float]] = {  # linear RGB albedo
    "green": (0.020, 0.200, 0.055),
    "tournament_blue": (0.015, 0.080, 0.300),
    "blue": (0.030, 0.110, 0.230),
    "grey": (0.110, 0.115, 0.120),
    "red": (0.300, 0.025, 0.025),
    "wine": (0.140, 0.012, 0.030),
    "olive": (0.090, 0.120, 0.030),
    "teal": (0.012, 0.150, 0.150),
    "purple": (0.090, 0.030, 0.190),
    "black": (0.018, 0.018, 0.020),
    "tan": (0.300, 0.200, 0.090),
}

BALL_COLOURS: dict[str, tuple[float, float, float]] = {  # linear RGB albedo
    "white": (0.80, 0.80, 0.78),
    "ivory": (0.78, 0.70, 0.52),
    "yellow": (0.85, 0.62, 0.04),
    "red": (0.62, 0.03, 0.025),
    "black": (0.025, 0.025, 0.028),
    "blue": (0.02, 0.06, 0.50),
    "orange": (0.85, 0.25, 0.02),
}


@dataclass(frozen=True)
class Lamp:
    """A lamp over the table: where (fractions of the playing surface), how high, how bright.

    The lamp is a square emitting area of side ``size`` mm facing down; each point of it
    radiates the same intensity into the lower half space, so the illuminance on the
    cloth is ``E = sum I_k cos(theta_k) / d_k^2`` (inverse square and cosine law). A
    point lamp (``size`` 0) straight above a point at height ``h`` gives ``E = I / h^2``.
    """

    u: float  # along the length, 0 = head cushion, 1 = foot cushion
    v: float  # across, 0 = left cushion, 1 = right cushion
    height: float = 850.0  # mm above the cloth [000 Tavolo 9: 80-90 cm]
    intensity: float = 1100.0  # candela, toward the table
    size: float = 300.0  # mm, side of the emitting square (0 = point source)
    off_at: float | None = None  # s: the lamp fails at this time
    on_at: float | None = None  # s: it comes back at this time
    flicker: float = 0.0  # relative amplitude of a 100 Hz mains flicker

    def is_on(self, t: float) -> bool:
        if self.off_at is not None and t >= self.off_at:
            return self.on_at is not None and t >= self.on_at and self.on_at > self.off_at
        return True


def _three_lamps() -> tuple[Lamp, ...]:
    return (Lamp(1 / 6, 0.5), Lamp(0.5, 0.5), Lamp(5 / 6, 0.5))


@dataclass(frozen=True)
class Look:
    """The appearance of a clip: cloth, lamps, surroundings, sensor, occluders, graphics."""

    cloth: str = "green"
    cloth_texture: float = 0.04  # relative albedo noise of the weave
    cloth_wear: float = 0.25  # 0..1: lighter, greyer paths and spots of wear
    cushion_shade: float = 0.85  # cushion cloth albedo relative to the bed
    wood: tuple[float, float, float] = (0.16, 0.065, 0.025)  # the rails' colour
    rail_grain: float = 0.18  # contrast of the rails' grain (wood; a laminate is ~0.03)
    diamond: tuple[float, float, float] = (0.85, 0.84, 0.80)
    diamond_shape: str = "rhombus"  # or "round": inlaid sights come as both
    diamond_size: float = 22.0  # mm: a rhombus's long diagonal, a round sight's diameter
    # sponsor lettering on the rail tops between the diamonds (broadcast tables carry
    # it): light letters as tall as a diamond, the worst look-alike a diamond detector
    # meets on real footage
    rail_text: tuple[str, ...] = ()
    rail_text_colour: tuple[float, float, float] = (0.9, 0.9, 0.88)
    rail_chalk: int = 0  # chalk cubes left lying on the rail tops
    cloth_logo: str = ""  # a maker's name printed on the cloth near the head cushion
    # varnished rail tops mirror the lamps: the share of light reflected (0: matte;
    # about 0.05 for a polished varnish) and the spread of the reflection (rad, 1 sigma)
    rail_gloss: float = 0.0
    rail_roughness: float = 0.03
    # the hall's own lights, seen only as their mirror images on varnished rails (their
    # light on the cloth is in ``ambient_lux``): (u, v, height mm, intensity cd, size mm)
    # with u, v in table lengths and widths from the head-left corner, as lamps
    hall_lights: tuple[tuple[float, float, float, float, float], ...] = ()
    markings: tuple[float, float, float] = (0.60, 0.60, 0.60)  # chalked spots and lines
    floor: tuple[float, float, float] = (0.09, 0.07, 0.06)
    other_tables: int = 2  # neighbouring tables visible beyond the rails
    people: int = 3  # bystanders around the table (seen from above)
    logos: bool = True  # sponsor boards on the floor
    lamps: tuple[Lamp, ...] = field(default_factory=_three_lamps)
    ambient_lux: float = 60.0  # room light reaching the cloth
    lamp_tint: tuple[float, float, float] = (1.0, 1.0, 1.0)  # colour of the light
    # sensor: linear value = sensitivity * exposure * gain * albedo * lux (1.0 = clipping)
    sensitivity: float = 0.2
    exposure: float = 1 / 250  # s
    gain: float = 1.0
    auto_exposure: bool = False
    ae_target: float = 0.16  # mean linear cloth value auto exposure aims at
    full_well: float = 9000.0  # electrons at clipping for gain 1 (shot noise)
    read_noise: float = 6.0  # electrons RMS
    noise: bool = True
    vignette: float = 0.08  # relative fall-off at the frame corners
    lens_blur: float = 0.5  # px, Gaussian sigma of the lens/focus softness
    motion_blur: bool = True
    two_whites: bool = False  # two-white set: `white` marked with two dots, `yellow` plain white
    ball_shine: float = 1.0  # strength of the specular highlights
    ball_age: float = 0.0  # 0..1: older balls are duller and yellower
    chalk_marks: int = 12  # blue chalk smudges on the cloth
    player: bool = True  # arm and cue around each stroke
    sleeve: tuple[float, float, float] = (0.03, 0.03, 0.035)  # shirt of the player
    skin: tuple[float, float, float] = (0.45, 0.28, 0.20)
    cue_wood: tuple[float, float, float] = (0.55, 0.38, 0.20)
    cue_butt: tuple[float, float, float] = (0.06, 0.03, 0.02)
    graphics: bool = False  # broadcast score bar and logo
    crf: int = 23  # H.264 quality (lower is better)
    jpeg_quality: int | None = None  # stills: pass through JPEG at this quality
    # stills: a keyframe of an H.264 stream at ``crf`` instead (a frame grabbed from a
    # broadcast or a recording), JPEG not applied
    still_h264: bool = False
    # mm (1 sigma): how far the stuck-on spots and the chalked lines sit off the table's
    # drawing, and the inlaid diamonds 0.6 times that (installation, not the camera)
    table_tolerance: float = 0.0

    @classmethod
    def default(cls) -> Look:
        return cls()

    def cloth_rgb(self) -> np.ndarray:
        return np.asarray(CLOTHS[self.cloth], np.float32)

    def with_failure(self, lamp: int, at: float) -> Look:
        """This look with lamp ``lamp`` going dark at ``at`` seconds."""
        lamps = list(self.lamps)
        lamps[lamp] = replace(lamps[lamp], off_at=at)
        return replace(self, lamps=tuple(lamps))

    def to_dict(self) -> dict:
        d = asdict(self)
        d["lamps"] = [asdict(lp) for lp in self.lamps]
        return d

    def check(self) -> Look:
        if self.cloth not in CLOTHS:
            raise ValueError(f"unknown cloth {self.cloth!r}; known: {', '.join(CLOTHS)}")
        if not self.lamps:
            raise ValueError("a look needs at least one lamp")
        if not (0.0 <= self.rail_gloss <= 1.0 and self.rail_roughness > 0.0):
            raise ValueError(f"rail gloss must be 0..1 and roughness positive, not "
                             f"{self.rail_gloss}, {self.rail_roughness}")
        if self.diamond_shape not in DIAMOND_SHAPES:
            raise ValueError(f"unknown diamond shape {self.diamond_shape!r}; known: "
                             f"{', '.join(DIAMOND_SHAPES)}")
        return self


def random_look(seed: int) -> Look:
    """A random but plausible appearance (domain randomisation for training)."""
    rng = np.random.default_rng([seed, 0x100C])
    cloth = str(rng.choice(list(CLOTHS), p=_cloth_weights()))
    n_lamps = int(rng.choice([3, 4]))
    height = float(rng.uniform(800.0, 900.0))
    intensity = float(rng.uniform(750.0, 1600.0))
    size = float(rng.choice([0.0, rng.uniform(150.0, 600.0)], p=[0.2, 0.8]))
    spread = float(rng.uniform(0.62, 0.78))
    us = np.linspace(0.5 - spread / 2, 0.5 + spread / 2, n_lamps)
    flicker = float(rng.uniform(0.0, 0.08)) if rng.random() < 0.2 else 0.0
    lamps = [Lamp(float(u + rng.normal(0, 0.01)), float(0.5 + rng.normal(0, 0.02)),
                  height + float(rng.normal(0, 5.0)), intensity * float(rng.uniform(0.9, 1.1)),
                  size, None, None, flicker) for u in us]
    if rng.random() < 0.15:
        k = int(rng.integers(n_lamps))
        lamps[k] = replace(lamps[k], off_at=float(rng.uniform(0.5, 6.0)))
    warm = float(rng.uniform(-1.0, 1.0))
    tint = np.array([1.0 + 0.15 * warm, 1.0, 1.0 - 0.25 * warm])
    tint /= 0.2126 * tint[0] + 0.7152 * tint[1] + 0.0722 * tint[2]
    gain = float(rng.choice([1.0, rng.uniform(1.0, 4.0)], p=[0.5, 0.5]))
    # exposure that puts a typical 1000 lux ball near, not always at, the right level
    exposure = float(np.clip(rng.uniform(0.6, 1.6) * 1.0 / (0.2 * gain * 0.8 * 1000.0 * 1.2),
                             1 / 2000, 1 / 25))
    floor = tuple(float(v) for v in rng.uniform(0.02, 0.25) * rng.uniform(0.5, 1.0, 3))
    wood = tuple(float(v) for v in np.array([0.16, 0.065, 0.025]) * rng.uniform(0.3, 2.2)
                 * rng.uniform(0.8, 1.2, 3))
    look = Look(
        cloth=cloth,
        cloth_texture=float(rng.uniform(0.01, 0.09)),
        cloth_wear=float(rng.uniform(0.0, 0.8)),
        cushion_shade=float(rng.uniform(0.7, 1.0)),
        wood=wood,
        diamond=tuple(float(v) for v in rng.uniform(0.55, 0.95) * np.ones(3)),
        markings=tuple(float(v) for v in rng.uniform(0.25, 0.8) * np.ones(3)),
        floor=floor,
        other_tables=int(rng.integers(0, 5)),
        people=int(rng.integers(0, 7)),
        logos=bool(rng.random() < 0.6),
        lamps=tuple(lamps),
        ambient_lux=float(rng.uniform(10.0, 200.0)),
        lamp_tint=tuple(float(v) for v in tint),
        sensitivity=0.2,
        exposure=exposure,
        gain=gain,
        auto_exposure=bool(rng.random() < 0.25),
        ae_target=float(rng.uniform(0.08, 0.25)),
        full_well=float(rng.uniform(4000.0, 20000.0)),
        read_noise=float(rng.uniform(2.0, 12.0)),
        noise=True,
        vignette=float(rng.uniform(0.0, 0.35)),
        motion_blur=True,
        two_whites=bool(rng.random() < 0.5),
        ball_shine=float(rng.uniform(0.4, 1.5)),
        ball_age=float(rng.uniform(0.0, 0.6)) if rng.random() < 0.4 else 0.0,
        chalk_marks=int(rng.integers(0, 40)),
        lens_blur=float(rng.uniform(0.0, 1.3)),
        player=bool(rng.random() < 0.85),
        sleeve=tuple(float(v) for v in rng.uniform(0.01, 0.5, 3)),
        skin=tuple(float(v) for v in np.array([0.45, 0.28, 0.20]) * rng.uniform(0.2, 1.4)),
        cue_wood=tuple(float(v) for v in np.array([0.55, 0.38, 0.20]) * rng.uniform(0.6, 1.3)),
        cue_butt=tuple(float(v) for v in rng.uniform(0.01, 0.2, 3)),
        graphics=bool(rng.random() < 0.35),
        crf=int(rng.integers(18, 30)),
        table_tolerance=float(rng.uniform(0.1, 0.6)),
        jpeg_quality=int(rng.integers(35, 96)) if rng.random() < 0.7 else None,
    )
    # drawn after the rest, so that the looks above stay what they were
    shape = str(rng.choice(DIAMOND_SHAPES))
    size = float(rng.uniform(14.0, 30.0) if shape == "rhombus" else rng.uniform(9.0, 20.0))
    words = tuple(str(w) for w in rng.choice(SPONSOR_WORDS, size=int(rng.integers(1, 4)),
                                              replace=False)) if rng.random() < 0.35 else ()
    text_colour = tuple(float(v) for v in rng.uniform(0.6, 0.95) * rng.uniform(0.85, 1.0, 3))
    chalk = int(rng.choice([0, 1, 2, 3], p=[0.5, 0.25, 0.15, 0.1]))
    logo = str(rng.choice(SPONSOR_WORDS)) if rng.random() < 0.25 else ""
    gloss = float(rng.uniform(0.01, 0.06)) if rng.random() < 0.5 else 0.0
    roughness = float(rng.uniform(0.01, 0.08))
    hall = tuple((float(rng.uniform(-1.0, 2.0)), float(rng.uniform(-2.0, 3.0)),
                  float(rng.uniform(3500.0, 7000.0)), float(rng.uniform(200.0, 3000.0)),
                  float(rng.choice([rng.uniform(60.0, 150.0), rng.uniform(300.0, 1200.0)])))
                 for _ in range(int(rng.integers(0, 9))))
    look = replace(look, diamond_shape=shape, diamond_size=size, rail_text=words,
                   rail_text_colour=text_colour, rail_chalk=chalk, cloth_logo=logo,
                   rail_gloss=gloss, rail_roughness=roughness, hall_lights=hall)
    # the rails' finish: dark wood (as before), light wood (maple, beech: pearl sights
    # that barely stand out, or black ones, and dark lettering) or a coloured laminate
    # (broadcast carom tables: black, grey, navy, blue beside a blue cloth...)
    finish = str(rng.choice(RAIL_FINISHES, p=[0.6, 0.15, 0.25]))
    if finish == "light_wood":
        tone = np.array([0.55, 0.36, 0.18]) * rng.uniform(0.75, 1.2) * rng.uniform(0.9, 1.1, 3)
        dark = bool(rng.random() < 0.25)
        sight = rng.uniform(0.02, 0.08) if dark else rng.uniform(0.75, 0.95)
        look = replace(look, wood=tuple(float(v) for v in tone),
                       diamond=tuple(float(v) for v in sight * np.ones(3)),
                       rail_text_colour=tuple(float(v) for v in rng.uniform(0.01, 0.08, 3)))
    elif finish == "laminate":
        colour = LAMINATES[int(rng.integers(len(LAMINATES)))]
        tone = np.array(colour) * rng.uniform(0.8, 1.25)
        look = replace(look, wood=tuple(float(v) for v in tone),
                       rail_grain=float(rng.uniform(0.01, 0.05)))
    return look


#: how the rails are finished (:func:`random_look`)
RAIL_FINISHES = ("wood", "light_wood", "laminate")
#: laminated rails, linear RGB albedo: black, charcoal, grey, navy, blue, wine, green
LAMINATES = ((0.02, 0.02, 0.022), (0.06, 0.06, 0.065), (0.2, 0.2, 0.21),
             (0.012, 0.025, 0.09), (0.02, 0.06, 0.22), (0.12, 0.01, 0.025),
             (0.02, 0.09, 0.04))


DIAMOND_SHAPES = ("rhombus", "round")
#: made-up sponsors (no real marks), short and long words for the rails and cloth
SPONSOR_WORDS = ("CAROM CUP", "GRAND PRIX", "MASTERS", "ACE", "BILLIARD CLUB",
                 "WORLD SERIES", "CUEREF", "OPEN 2026", "PRO TOUR", "ARENA")


def _cloth_weights() -> np.ndarray:
    w = {"green": 4.0, "tournament_blue": 2.5, "blue": 1.5, "grey": 1.0, "red": 1.0}
    arr = np.array([w.get(name, 0.5) for name in CLOTHS])
    return arr / arr.sum()
