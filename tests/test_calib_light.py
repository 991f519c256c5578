"""The light meter against the renderer's lux map in the dark parts of the cloth.

The benchmark's last cells more than 10% off were dim corners far from the lamps. Two
causes: the renderer's camera writes ``linear ** (1 / 2.2)`` while the meter decoded
sRGB, and JPEG moved a dim cloth's colour out of the meter's cloth gate.
"""

from __future__ import annotations

import numpy as np
import pytest

render = pytest.importorskip("simworld.render")

from calibration import Calibration, CameraModel, LightMeter  # noqa: E402
from calibration.light import (  # noqa: E402
    CODE_ERROR,
    CODE_ERROR_MAX,
    LUMA_BGR,
    WEAR_GREY,
    brightness_split,
    compression_codes,
    fit_lamps,
    lamp_light,
    lamp_shapes,
    linear_light,
    shadowed_cells,
    smooth_cells,
    wear_factor,
    wear_share,
)
from simworld.render.renderer import GAMMA  # noqa: E402


def bench_scene(seed: int):
    """The benchmark's scene ``seed`` (bench/bench_calibration.py; every fourth one
    dimmed), with the true camera: these tests are about the light, not the pose."""
    disc, cam, look, img, truth = render.calibration_scene(seed)
    camera = CameraModel(truth.K, truth.dist, truth.rvec, truth.tvec, cam.size)
    return Calibration(disc.table.name, camera), look, img, truth


def lux_errors(calib, look, img, truth, gamma: float | None) -> np.ndarray:
    """Relative error per cell after one lux-meter reading at the centre cell."""
    calib.photometry.clear()
    lux = np.asarray(truth.lux, float)
    meter = LightMeter(calib, vignette=float(look.vignette), cells=lux.shape, gamma=gamma)
    i, j = lux.shape[0] // 2, lux.shape[1] // 2
    meter.reference(img, float(lux[i, j]), at=(truth.lux_x[i], truth.lux_y[j]))
    reading = meter.measure(img)
    assert reading.under_minimum == bool(lux.min() < 520)
    return reading.cells / lux - 1.0


def compressed_errors(seed: int, cloth: str) -> np.ndarray:
    """:func:`lux_errors` of benchmark scene ``seed``, a ``cloth`` cloth at a fixed
    exposure through JPEG under quality 50, with most of its cells read."""
    calib, look, img, truth = bench_scene(seed)
    assert look.cloth == cloth and look.jpeg_quality < 50 and not look.auto_exposure
    rel = lux_errors(calib, look, img, truth, gamma=GAMMA)
    assert np.isfinite(rel).mean() > 0.9
    return rel


def test_linear_light_inverts_a_power_law_camera():
    lin = np.linspace(0.0, 1.0, 101)
    codes = np.round(255.0 * lin ** (1 / GAMMA))
    back = linear_light(codes, GAMMA)
    assert np.allclose(back, (codes / 255.0) ** GAMMA)
    # decoded as sRGB, a dim code reads far too bright, a mid-grey one about right
    srgb = linear_light(np.array([40, 100]))
    assert srgb[0] / (40 / 255) ** GAMMA > 1.2
    assert abs(srgb[1] / (100 / 255) ** GAMMA - 1.0) < 0.01


def test_dim_corners_with_the_cameras_curve():
    """Benchmark scene 185: a black cloth (codes 40-60) lit 2.7 times less in the corners
    than at the centre, no JPEG, hardly any vignetting. Decoded as sRGB the corners
    read 10-12% high; with the camera's own curve every cell is within 10%, and the
    curve is kept with the calibration for later readings."""
    calib, look, img, truth = bench_scene(185)
    assert not look.auto_exposure and look.jpeg_quality is None
    wrong = lux_errors(calib, look, img, truth, gamma=None)
    assert np.nanmax(wrong) > 0.10  # the cause: sRGB assumed
    right = lux_errors(calib, look, img, truth, gamma=GAMMA)
    assert np.isfinite(right).mean() > 0.8
    assert np.nanmax(np.abs(right)) < 0.10, np.nanmax(np.abs(right))
    assert calib.photometry["gamma"] == GAMMA
    assert LightMeter(calib).gamma == GAMMA


def test_dim_corners_of_a_compressed_grey_cloth_are_measured():
    """Benchmark scene 117: a grey cloth through JPEG at quality 37. In the dim corners
    (codes near 62) a code or two of compression moves the colour 0.03 off the cloth's,
    twice the gate: the corners went unmeasured and the smooth surface, extrapolated
    there, read 18-23% low. In the cells it leaves unmeasured the gate now widens by
    what a code or two can do."""
    calib, look, img, truth = bench_scene(117)
    assert not look.auto_exposure and look.jpeg_quality == 37 and look.cloth == "grey"
    rel = lux_errors(calib, look, img, truth, gamma=GAMMA)
    assert np.nanmax(np.abs(rel)) < 0.10, np.nanmax(np.abs(rel))


def test_worn_cloth_takes_the_smooth_surface():
    """Benchmark scene 77: a blue cloth worn lighter along the middle (wear 0.66). Cells
    within 6% of the smooth surface once kept their own value, so a worn cell beside a
    surface already pulled up by the wear read 11% off; every cell is now the surface."""
    calib, look, img, truth = bench_scene(77)
    assert not look.auto_exposure and look.cloth_wear > 0.6
    rel = lux_errors(calib, look, img, truth, gamma=GAMMA)
    assert np.isfinite(rel).mean() > 0.8
    assert np.nanmax(np.abs(rel)) < 0.10, np.nanmax(np.abs(rel))


@pytest.mark.parametrize("cloth", ["purple", "green", "red", "tournament_blue"])
def test_wear_factor_undoes_a_mix_toward_grey(cloth):
    """Cloth worn by mixing its dye with a grey fibre WEAR_GREY times its mean channel:
    the colour's shift toward grey, measured, gives back the lift in luminance."""
    rgb = np.asarray(render.look.CLOTHS[cloth], float)
    bgr = rgb[::-1]
    grey = WEAR_GREY * bgr.mean()
    chroma = bgr[1:] / bgr.sum()
    for worn in (0.05, 0.1, 0.2):
        mixed = (1.0 - worn) * bgr + worn * grey
        lift = (LUMA_BGR @ mixed) / (LUMA_BGR @ bgr)
        share = wear_share(mixed[1:] / mixed.sum(), chroma)
        assert 0.0 < share < 0.5
        assert wear_factor(np.array([share]), chroma)[0] == pytest.approx(lift, rel=1e-9)
    assert wear_factor(np.array([0.0]), chroma)[0] == pytest.approx(1.0)


def test_wear_factor_leaves_a_grey_cloth_alone():
    """A grey or black cloth's colour does not show wear: no correction is guessed."""
    for cloth in ("grey", "black"):
        bgr = np.asarray(render.look.CLOTHS[cloth], float)[::-1]
        assert wear_factor(np.array([0.3]), bgr[1:] / bgr.sum())[0] == 1.0


def lamps_lux(lamps: list[tuple[float, float]], nx: int = 20, ny: int = 10,
              height: float = 1000.0) -> np.ndarray:
    """Lux over a carom table's 20 x 10 cells under lamps ``height`` mm up on its long
    axis, each ``(x mm, power)`` (inverse square and cosine law), and 60 lux of ambient
    light."""
    length, width = 2840.0, 1420.0
    gx, gy = np.meshgrid((np.arange(nx) + 0.5) * length / nx,
                         (np.arange(ny) + 0.5) * width / ny, indexing="ij")
    lux = np.full((nx, ny), 60.0)
    for x, power in lamps:
        lux += power * 1e9 * height / ((gx - x) ** 2 + (gy - width / 2) ** 2 + height ** 2) ** 1.5
    return lux


@pytest.mark.parametrize("power", [1.6, 0.35])  # the lamp over the corner: on, failing
@pytest.mark.parametrize("shadowed", [True, False])
def test_a_players_shadow_is_left_out_and_a_dim_corner_is_not(power, shadowed):
    """The lamp-failure clip at its start: a sleeve reaching in over a corner, its
    shadow on the cells beside it (12-87% of the light). The robust surface followed
    the shadow into the corner (114 lux read for 941). Without a shadow the same cells
    under the same arm, lit or dimmed by a failing lamp, keep their readings."""
    truth = lamps_lux([(710.0, power), (2130.0, 1.6)])
    arm = np.zeros(truth.shape, bool)
    for cell in [(0, 9), (1, 8), (1, 7), (2, 7), (2, 6), (3, 6)]:
        arm[cell] = True
    shade = np.ones(truth.shape)
    if shadowed:
        for cell, f in {(0, 9): 0.12, (1, 8): 0.37, (0, 8): 0.78, (0, 7): 0.87, (1, 7): 0.8,
                        (2, 7): 0.66, (2, 6): 0.85, (3, 6): 0.85, (4, 6): 0.8}.items():
            shade[cell] = f
    seen = truth * shade * np.random.default_rng(0).normal(1.0, 0.015, truth.shape)
    assert smooth_cells(seen).min() < 0.85 * truth.min() or not shadowed  # the cause
    shadow = shadowed_cells(seen, arm)
    assert shadow[shade < 0.5].all() and not shadow[shade == 1.0].any()
    got = smooth_cells(np.where(shadow, np.nan, seen))
    assert np.abs(got / truth - 1.0).max() < 0.05



def _cell_centres(nx: int = 20, ny: int = 10) -> tuple[np.ndarray, np.ndarray]:
    return (np.arange(nx) + 0.5) * 2840.0 / nx, (np.arange(ny) + 0.5) * 1420.0 / ny


def test_the_lamps_are_found_where_they_hang():
    """Two lamps 1 m over a carom table's long axis (lamps_lux, not the renderer's
    850 mm): the fit puts them within 5 cm and their light within 1% of every cell."""
    x, y = _cell_centres()
    truth = lamps_lux([(710.0, 1.6), (2130.0, 1.2)])
    seen = truth * np.random.default_rng(1).normal(1.0, 0.01, truth.shape)
    lamps = fit_lamps(seen, x, y)
    assert len(lamps) == 2
    lamps = lamps[np.argsort(lamps[:, 0])]
    assert np.abs(lamps - [[710.0, 710.0, 1000.0], [2130.0, 710.0, 1000.0]]).max() < 50.0
    got = lamp_light(seen, lamp_shapes(x, y, lamps))
    assert np.abs(got / truth - 1.0).max() < 0.01
    # light that no lamp above the cloth makes (stripes across the table) has none
    u = np.arange(20)[:, None] * np.ones((1, 10))
    assert len(fit_lamps(500.0 * (1.0 + 0.3 * np.sin(u * 1.3)), x, y)) == 0


@pytest.mark.parametrize("xs", [(382.0, 1029.0, 1755.0, 2386.0), (473.0, 1420.0, 2367.0)])
def test_as_many_lamps_are_fitted_as_hang_over_a_noisy_cloth(xs):
    """Benchmark scene 5039: four lamps 850 mm up, the weave and wear 2% per cell. What
    three lamps leave of them is no larger than that, so asked to take a fifth off the
    spread the fit stopped at three, and the cells under the middle two read 4% low. Ten
    draws of the noise: as many lamps found as hang in each (three not taken for four),
    and the median draw's worst cell within 2% (fitted as three it is not)."""
    x, y = _cell_centres()
    truth = lamps_lux([(lx, 2.0 / len(xs)) for lx in xs], height=850.0)
    worst = []
    for draw in range(10):
        seen = truth * np.random.default_rng(draw).normal(1.0, 0.02, truth.shape)
        lamps = fit_lamps(seen, x, y)
        assert len(lamps) == len(xs), draw
        worst.append(np.abs(smooth_cells(seen, lamp_shapes(x, y, lamps)) / truth - 1.0).max())
    assert np.median(worst) < 0.02


def test_a_corner_under_an_arm_follows_the_lamps_not_the_shadows_edge():
    """The lamp-failure clip at its start: the sleeve over a corner, its shadow on the
    cells under it (12-87% of the light) and, soft, on those around them (2-9% less:
    the clip's cells read so against its lux map): too little to be told from the
    light's own fall-off. Continued from them, the light's bend took the corner 17% low
    (785 lux for 941). With the lamps fitted (from the cells away from the arm) the
    corner is their light, and a lamp failing later is followed by their brightness."""
    x, y = _cell_centres()
    truth = lamps_lux([(710.0, 1.6), (2130.0, 1.6)])
    noise = np.random.default_rng(2).normal(1.0, 0.01, truth.shape)
    arm = np.zeros(truth.shape, bool)
    for cell in [(0, 9), (1, 8), (1, 7), (2, 7), (2, 6), (3, 6)]:
        arm[cell] = True
    shade = np.ones(truth.shape)
    for cell, f in {(0, 9): 0.12, (1, 8): 0.37, (0, 8): 0.78, (0, 7): 0.87, (1, 7): 0.8,
                    (2, 7): 0.66, (4, 6): 0.8,  # under the arm; then its soft edge
                    (1, 9): 0.91, (2, 6): 0.95, (0, 5): 0.96, (0, 6): 0.98, (1, 5): 0.98,
                    (2, 5): 0.98, (3, 6): 0.98, (2, 8): 0.98, (2, 9): 0.98,
                    (3, 9): 0.98}.items():
        shade[cell] = f
    seen = truth * shade * noise

    def read(shapes):
        return smooth_cells(np.where(shadowed_cells(seen, arm, None, shapes), np.nan, seen),
                            shapes)

    assert read(None)[0, 9] < 0.9 * truth[0, 9]  # the cause
    beside = np.zeros(truth.shape, bool)
    beside[:5, 5:] = True  # what the meter leaves out: the arm's cells and their neighbours
    lamps = fit_lamps(np.where(beside, np.nan, seen), x, y)
    assert len(lamps) == 2
    shapes = lamp_shapes(x, y, lamps)
    # the residual still follows the soft edge a little: 5% low at the corner
    assert np.abs(read(shapes) / truth - 1.0).max() < 0.07
    # the lamp over the corner failing: the same lamps, less of one
    failed = lamps_lux([(710.0, 0.3), (2130.0, 1.6)])
    got = smooth_cells(np.where(beside, np.nan, failed * noise), shapes)
    assert np.abs(got / failed - 1.0).max() < 0.05
    # a lamp the fit did not see (off then, on now) is not forced into the two
    third = lamps_lux([(710.0, 1.6), (2130.0, 1.6), (1420.0, 1.6)])
    assert lamp_light(third * noise, shapes) is None


def test_light_just_over_the_minimum_is_called_near_it():
    """Benchmark scene 487: the darkest cell is 514 lux, 1% under the 520 of 000 Tavolo
    9, and the meter (read as the benchmark reads it, with the renderer's camera)
    puts it at 527, 1.4% over: within its own error, so the scene is neither flagged as
    under nor passed. It says the light is near the minimum, and where, so a hand meter
    there settles it."""
    from bench.bench_light import flag_misses, read_light

    disc, cam, look, img, truth = render.calibration_scene(487)
    lux = np.asarray(truth.lux, float)
    assert 500 < lux.min() < 520  # the truth: just under
    camera = CameraModel(truth.K, truth.dist, truth.rvec, truth.tvec, cam.size)
    meter = LightMeter(Calibration(disc.table.name, camera), vignette=float(look.vignette),
                       cells=lux.shape, gamma=GAMMA)
    row = read_light(meter, img, truth)
    reading = meter.measure(img)
    assert not reading.under_minimum and reading.near_minimum
    # the benchmark's row keeps it, and its summary names the scene as near, not missed
    assert row["near"] and not row["flagged"]
    assert row["lux_min_truth"] == round(float(lux.min()), 1) < 520 <= row["lux_min_read"]
    said = flag_misses([{**row, "seed": 487, "truth_under": True}])
    assert said == (f"near 520 lux, dim: 487 ({row['lux_min_truth']:.1f} lux, read "
                    f"{row['lux_min_read']:.1f})")
    i, j = np.unravel_index(np.argmin(lux), lux.shape)
    where = f"at x {truth.lux_x[i]:.0f} mm, y {truth.lux_y[j]:.0f} mm"
    assert any("near 520 lux" in w and where in w for w in reading.warnings)


def test_light_benchmark_lists_wrong_calls_old_rows_by_seed():
    """A dim scene passed without a word is missed, a bright one read under the band is
    flagged falsely, and those read within the meter's error of 520 lux are named near,
    by today's band from the reading kept; rows kept before the darkest cell was
    recorded are named by seed alone, as flagged then. A scene called rightly is not
    named."""
    from bench.bench_light import flag_counts, flag_misses

    rows = [{"seed": 1, "truth_under": True, "flagged": True},
            {"seed": 2, "truth_under": False, "flagged": False},
            {"seed": 3, "truth_under": True, "flagged": False},
            {"seed": 4, "truth_under": False, "flagged": True, "near": False,
             "lux_min_read": 480.4, "lux_min_truth": 521.3},
            # flagged under when run (the band was then over 520 alone): near by today's
            {"seed": 5, "truth_under": False, "flagged": True, "near": False,
             "lux_min_read": 516.4, "lux_min_truth": 521.3},
            {"seed": 6, "truth_under": True, "flagged": False, "near": True,
             "lux_min_read": 520.5, "lux_min_truth": 506.7},
            {"seed": 7, "truth_under": True, "flagged": True, "near": False,
             "lux_min_read": 301.0, "lux_min_truth": 310.2}]
    assert flag_misses(rows) == ("missed: 3; flagged falsely: 4 (521.3 lux, read 480.4); "
                                 "near 520 lux, dim: 6 (506.7 lux, read 520.5); "
                                 "near 520 lux, not dim: 5 (521.3 lux, read 516.4)")
    assert flag_misses(rows[:2]) == ""
    assert flag_counts(rows) == {"dim_under": 2, "dim_near": 1, "dim_passed": 1,
                                 "bright_under": 1, "bright_near": 1}


def test_a_reading_within_the_meters_error_of_520_is_near_either_side():
    """Under 520 lux is said only when the reading is under by more than the meter's
    own error (NEAR_MIN_SHARE); within it, either side, the reading is near, and says
    where its darkest cell is; the light event carries the band for the rules engine."""
    from calibration.light import NEAR_MIN_SHARE, LightReading, minimum_call

    def reading(darkest: float) -> LightReading:
        cells = np.full((4, 2), 900.0)
        cells[3, 0] = darkest
        x, y = np.array([355.0, 1065.0, 1775.0, 2485.0]), np.array([355.0, 1065.0])
        return LightReading(cells, x, y, cells / cells.mean(), 0.4, True)

    low, band = 520.0 * (1 - NEAR_MIN_SHARE), 520.0 * (1 + NEAR_MIN_SHARE)
    assert [minimum_call(v) for v in (low - 0.1, low, 516.0, 520.0, band - 0.1, band)] == [
        "under", "near", "near", "near", "near", "over"]
    for lux, under, near in ((480.0, True, False), (516.0, False, True),
                             (530.0, False, True), (600.0, False, False)):
        r = reading(lux)
        assert (r.under_minimum, r.near_minimum) == (under, near), lux
    rec = reading(516.0).record()
    assert rec["lux_min"] == 516.0 and rec["lux_tolerance"] == NEAR_MIN_SHARE
    assert rec["lux_min_at_mm"] == [2485, 355]
    uncalibrated = LightReading(np.full((4, 2), 0.3), np.zeros(4), np.zeros(2),
                                np.ones((4, 2)), 0.3, False)
    assert not uncalibrated.under_minimum and not uncalibrated.near_minimum
    assert "lux_tolerance" not in uncalibrated.record()


def test_light_benchmark_look_changes_are_parsed_and_bad_ones_named():
    """``--look FIELD=VALUE`` replaces a field of each scene's look (what a diagnosis
    compares: the same scene without wear, JPEG or noise); a field the look lacks, or a
    value that is not a number, true, false or none, is refused by name."""
    import argparse

    from bench.bench_light import look_change

    assert look_change("cloth_wear=0") == ("cloth_wear", 0)
    assert look_change("vignette=0.05") == ("vignette", 0.05)
    assert look_change("jpeg_quality=None") == ("jpeg_quality", None)
    assert look_change("noise=false") == ("noise", False)
    for bad, said in (("cloth_waer=0", "'cloth_waer=0'"), ("cloth_wear", "FIELD=VALUE"),
                      ("noise=maybe", "'maybe' is not a number")):
        with pytest.raises(argparse.ArgumentTypeError, match=said):
            look_change(bad)


def test_light_benchmark_summary_of_auto_exposure_scenes_only_says_nothing_was_read():
    """A run whose every scene is in auto exposure has no lux to summarise: the summary
    says so instead of failing on an empty list (it did, with ``--n 1 --start 3``)."""
    from bench.bench_light import summarise

    rows = [{"seed": s, "balls": "opening", "auto_exposure": True} for s in (3, 4)]
    text = summarise(rows, "")
    assert "No scene read: 2 of 2 in auto exposure" in text
    assert "worst cell" not in text


def test_lettering_printed_on_the_cloth_is_not_read_as_light():
    """Benchmark scene 1231 (dimmed): "MASTERS" printed across the head end, a shade
    lighter than a worn green cloth, over more than half of four cells' middles. The
    middle half of those cells was the print, read 12-17% high; the cloth's own
    population, the one the cells around agree with, is read now."""
    calib, look, img, truth = bench_scene(1231)
    assert look.cloth_logo and not look.auto_exposure
    rel = lux_errors(calib, look, img, truth, gamma=GAMMA)
    assert np.isfinite(rel).mean() > 0.9
    assert np.nanmax(np.abs(rel)) < 0.10, np.nanmax(np.abs(rel))


def test_brightness_split_finds_print_and_leaves_a_plain_cell_whole():
    """Two populations (cloth and print 1.3 times as bright, each with the weave's 4%
    noise) are split, the darker one returned; one population under a light gradient
    across the cell, or with a few bright specks, is not split."""
    rng = np.random.default_rng(0)
    cloth = np.ones((4, 225), bool)
    lum = np.exp(rng.normal(0.0, 0.04, (4, 225)))
    printed = rng.random(225) < 0.55
    lum[0, printed] *= 1.3  # print over 55% of the cell
    lum[1] *= np.linspace(0.93, 1.07, 225)  # a lamp's slope across the cell
    lum[2, :10] *= 1.5  # chalk specks
    split, darker = brightness_split(lum, cloth)
    assert split.tolist() == [True, False, False, False]
    assert (darker[0] == ~printed).mean() > 0.95


def test_a_dark_near_grey_cloth_through_jpeg_is_not_read_as_worn():
    """Benchmark scene 1541: a black cloth 0.05 from grey in chromaticity, noisy and
    through JPEG at quality 42. Its dim ends' pixels moved toward grey by their codes
    alone, were read as worn and 10-16% low (42 cells over 10%). Its wear cannot be read
    through such codes, and is left alone now: within 10% everywhere."""
    rel = compressed_errors(1541, "black")
    assert np.nanmax(np.abs(rel)) < 0.10, np.nanmax(np.abs(rel))


def test_a_cloth_lit_in_two_colours_is_gated_around_each_cells_own_colour():
    """Benchmark scene 1483: a grey cloth under bluish lamps and a dimmer hall light of
    another colour, through JPEG at quality 40. Its colour drifts 0.02 from the middle
    to the rim, beyond the cloth-colour gate: none of some border cells' pixels passed,
    and of others only the darker ones, read 10-11% low. Each cell is gated around its
    own median colour now: within 10% everywhere."""
    rel = compressed_errors(1483, "grey")
    assert np.nanmax(np.abs(rel)) < 0.10, np.nanmax(np.abs(rel))


def test_compression_codes_follow_the_cloths_scatter_around_a_cell_not_a_ball_in_it():
    """The gate widens where the cloth's colour scatters by more codes (a dim border
    through strong JPEG), within CODE_ERROR and CODE_ERROR_MAX; a ball filling most of
    one cell scatters that cell's colours far more, and must not widen its own gate."""
    rng = np.random.default_rng(0)
    nx, ny, m = 6, 5, 400
    sigma = np.full((nx, ny), 0.3)  # codes of scatter: a clean, bright middle
    sigma[-2:, :] = 2.0  # a dim, blocky far end
    dev = np.abs(rng.normal(0.0, 1.0, (nx, ny, m))) * sigma[..., None]
    per_code = np.full((nx, ny, m), 0.01)
    dev = dev * per_code
    ball = (2, 2)
    dev[ball][: int(0.6 * m)] = 0.5  # a ball's colour, far from the cloth's
    cloth = np.ones((nx, ny, m), bool)
    codes = compression_codes(dev, per_code, cloth)
    assert codes[ball] == CODE_ERROR  # its neighbours' scatter, not its own
    assert np.all(codes[:2] == CODE_ERROR)
    assert np.all(codes[-1] > 4.0) and np.all(codes[-1] <= CODE_ERROR_MAX)
    dev[-2:] *= 10  # a scatter no compression makes: held at the bound
    assert np.all(compression_codes(dev, per_code, cloth)[-1] == CODE_ERROR_MAX)


def test_compression_blocks_on_a_dim_border_are_not_taken_for_balls():
    """Benchmark scene 12620: a black cloth at gain 3.8 through JPEG at quality 42, seen
    at 19 deg. Its dim border cells' colour blocks scattered by about 2.7 codes: up to
    half of their pixels failed a gate of two codes, in blocks as large as a ball, and
    the cells, dropped as a ball's shadow, left the far corner to an extrapolation
    16% high. The gate now widens by the scatter around each cell: within 10%."""
    rel = compressed_errors(12620, "black")
    assert np.nanmax(np.abs(rel)) < 0.10, np.nanmax(np.abs(rel))


def test_two_levels_of_a_jpeg_lattice_are_not_taken_for_print():
    """Benchmark scene 8099: a black cloth under dimmed lamps through JPEG at quality
    42. Its blocks' means sit on a DC lattice 2.4 codes apart, and 39 cells' pixels
    split in two populations 1.9-3.4 codes apart, as a print in the cloth's colour
    does: each such cell was read from one of them, 10% high or low, and the worst cell
    10.06% off, half the cells over 3%. A print stands further apart than two
    steps of the lattice (the lettering of scene 1231: 13 codes)."""
    rel = compressed_errors(8099, "black")
    assert np.nanmax(np.abs(rel)) < 0.09, np.nanmax(np.abs(rel))
    assert np.nanmedian(np.abs(rel)) < 0.025, np.nanmedian(np.abs(rel))
