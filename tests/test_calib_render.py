"""Calibration and the light meter against the renderer's exact truth (simworld.render).

The renderer films the table as a real camera above it would (the z-down frame of
docs/coordinates.md), so its scenes calibrate with the defaults.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

render = pytest.importorskip("simworld.render")

from calibration import LightMeter, calibrate_image  # noqa: E402
from calibration.detect import CalibrationError  # noqa: E402
from calibration.lens import calibrate_lens  # noqa: E402
from equipment import get_discipline  # noqa: E402
from simworld.render.board import checkerboard_views  # noqa: E402
from simworld.render.renderer import GAMMA  # noqa: E402


def grid_truth(table, cam):
    gx, gy = np.meshgrid(np.linspace(0, table.length, 29), np.linspace(0, table.width, 15))
    xy = np.column_stack([gx.ravel(), gy.ravel()])
    return xy, cam.project(np.column_stack([xy, np.zeros(len(xy))]))


def measured_height(cam) -> float:
    """The camera's height over the cloth (mm) as an installer's tape gives it, 30 mm
    long: what a near-vertical view needs besides its sights when its chalk lines may
    be drawn a little off (calibration.fit.LINE_SD_MM)."""
    return float(cam.position[2]) + 30.0


def assert_mapped_within_prediction(calib, table, cam) -> None:
    """The calibration maps the cloth within 3 mm of the renderer's truth everywhere,
    and within the error it predicts for itself."""
    xy, px = grid_truth(table, cam)
    err = np.linalg.norm(calib.image_to_table(px) - xy, axis=1).max()
    assert err < 3.0 and err <= calib.quality["predicted_max_error_mm"], err


def true_and_turned(table, cam, truth):
    """The scene's true camera, and the same turned half round the table (head for
    foot), as the calibration's CameraModel."""
    from calibration.camera import CameraModel
    from calibration.fit import flip_pose

    return (CameraModel(truth.K, truth.dist, truth.rvec, truth.tvec, cam.size),
            CameraModel(truth.K, truth.dist, *flip_pose(truth.rvec, truth.tvec, table),
                        cam.size))


def with_measured_lens(img, cam, seed: int, strict: bool = True):
    """Scene ``seed``'s frame ``img`` calibrated with the lens of its camera ``cam``
    measured first, as the benchmark's ``--lens`` does (15 checkerboard views)."""
    from calibration.lens import calibrate_lens
    from simworld.render.board import checkerboard_views

    lens, _ = calibrate_lens(checkerboard_views(cam, 15, seed=seed))
    return calibrate_image(img, lens=lens, strict=strict)


@pytest.mark.parametrize("discipline,seed,tilt", [
    ("three_cushion", 3, 12.0), ("russian_pyramid", 4, 6.0), ("pool51", 5, 17.0)])
def test_rendered_mapping_within_3mm_or_refused(discipline, seed, tilt):
    disc = get_discipline(discipline)
    rng = np.random.default_rng(seed)
    cam = render.make_camera(disc.table, (1280, 720), tilt_deg=tilt,
                             azimuth_deg=float(rng.uniform(0, 360)), k1=-0.12, k2=0.02)
    look = render.random_look(seed)
    img, truth = render.render_still(disc, dict(disc.opening), camera=cam, look=look, seed=seed)
    assert cam.position[2] > 0  # a height above the cloth
    try:
        calib = calibrate_image(img)
    except CalibrationError as exc:  # refusing is allowed; a wrong mapping is not
        pytest.skip(f"refused: {exc}")
    xy, px = grid_truth(disc.table, cam)
    err = np.linalg.norm(calib.image_to_table(px) - xy, axis=1)
    assert np.median(err) < 1.0 and err.max() < 3.0, (np.median(err), err.max())
    assert calib.table == disc.table.name or disc.table.name.startswith("carom")
    assert abs(calib.camera.dist[0] - truth.dist[0]) < 0.05


@pytest.mark.parametrize("discipline,centre", [("three_cushion", False),
                                               ("russian_pyramid", True)])
def test_rendered_lux_within_10_percent(discipline, centre):
    """One lux-meter reading, then every cell within 10%. On the 3.5 m pyramid table,
    read at the centre under the middle lamp: a smooth surface too stiff for three lamp
    pools once passed 8% under it there and put every other cell 8% high."""
    disc = get_discipline(discipline)
    cam = render.make_camera(disc.table, (1280, 720), tilt_deg=8.0, azimuth_deg=30.0)
    look = render.Look.default()
    assert not look.auto_exposure
    img, truth = render.render_still(disc, dict(disc.opening), camera=cam, look=look, seed=1)
    # the lens measured once, as installed (an 8-degree view unaided shows its height
    # too little to promise 2.5 mm on the pyramid table)
    lens, _ = calibrate_lens(checkerboard_views(cam, 15, seed=1))
    calib = calibrate_image(img, strict=False, lens=lens)
    assert calib.ok, calib.quality["reasons"]
    lux = np.asarray(truth.lux, float)
    meter = LightMeter(calib, vignette=float(look.vignette), cells=lux.shape, gamma=GAMMA)
    # one lux-meter reading near the middle of the cloth, then every cell
    i, j = lux.shape[0] // 2 - (0 if centre else 3), lux.shape[1] // 2
    meter.reference(img, float(lux[i, j]), at=(truth.lux_x[i], truth.lux_y[j]))
    reading = meter.measure(img)
    rel = np.abs(reading.cells / lux - 1.0)
    assert np.isfinite(rel).mean() > 0.8  # balls and players hide a few cells at most
    assert np.nanmax(rel) < 0.10, np.nanmax(rel)
    assert reading.under_minimum == bool(lux.min() < 520)


def test_lamp_failure_sample_video_events():
    """The renderer's lamp-failure clip (H.264): the failure is seen as a change of the
    light, the new level and minimum follow the truth, and no auto exposure is claimed."""
    import json
    from pathlib import Path

    from calibration import video_events

    clip = Path(__file__).resolve().parents[1] / "sample_videos" / "lamp_failure.mp4"
    truth_path = clip.with_suffix(".truth.json")
    if not clip.exists() or not truth_path.exists():
        pytest.skip("sample_videos/lamp_failure.mp4 not made yet")
    truth = json.loads(truth_path.read_text())
    if truth["look"].get("auto_exposure") or len(truth["lux"]) < 2:
        pytest.skip("the sample clip is not a fixed-exposure lamp failure")
    before, after = truth["lux"][0], truth["lux"][1]
    events = video_events(clip, reference_lux=float(np.mean(before["lux"])), gamma=GAMMA)
    assert events[0].type == "calibration" and events[0].extra["status"] == "ok"
    light = [e for e in events if e.type == "light"]
    assert all(e.extra.get("status") != "auto_exposure" for e in light)
    t_fail = after["frames"][0] / truth["fps"]
    # before the failure: the minimum right too, though the player's dark sleeve lies
    # over a corner of the cloth (a gate let its near-black pixels in: 123 lux for 800).
    # Its shadow's soft edge pulled the corner down, continued from the cells beside
    # it: 17% low until the lamps were fitted (4% now)
    first = light[0].extra
    assert light[0].t < t_fail
    assert abs(first["lux_min"] / float(np.min(before["lux"])) - 1.0) < 0.10, first
    assert (first["lux_min"] < 520) == (float(np.min(before["lux"])) < 520)
    changed = [e for e in light if e.extra.get("changed")]
    assert changed and t_fail <= changed[0].t <= t_fail + 1.0 + 1e-6
    got = changed[0].extra
    assert abs(got["lux_mean"] / float(np.mean(after["lux"])) - 1.0) < 0.10
    assert (got["lux_min"] < 520) == (float(np.min(after["lux"])) < 520)
    # the dark end's minimum too: a smooth surface free to swing over the cells an arm
    # hides once read 49 lux for 300
    assert abs(got["lux_min"] / float(np.min(after["lux"])) - 1.0) < 0.15


def test_near_vertical_pyramid_seed_130_within_3mm_or_refused():
    """The benchmark's scene 130 (American pyramid, camera 1 deg off vertical): a
    cushion edge mistaken on one side once bent the pose to a 3.7 mm error while the
    self-check predicted 1.5 mm. Whatever the fit does, it must be right or say no."""
    disc, cam, _, img, _ = render.calibration_scene(130)
    try:
        calib = calibrate_image(img)
    except CalibrationError:
        return  # refused: allowed
    xy, px = grid_truth(disc.table, cam)
    err = np.linalg.norm(calib.image_to_table(px) - xy, axis=1)
    assert err.max() < 3.0, err.max()
    # and the self-check's prediction is not wildly optimistic about it
    assert err.max() < 2.0 * calib.quality["predicted_max_error_mm"] + 0.5


def test_clipping_camera_gives_no_lux_where_it_clips():
    """Benchmark scene 89: the exposure clips the blue cloth over the middle of the
    table. Cells that clip in part once read up to 40% low; they must now be left
    without a lux value (and said so), and every cell measured within 10%."""
    disc, cam, look, img, truth = render.calibration_scene(89)
    assert not look.auto_exposure
    calib = calibrate_image(img)
    lux = np.asarray(truth.lux, float)
    meter = LightMeter(calib, vignette=float(look.vignette), cells=lux.shape, gamma=GAMMA)
    i, j = 1, 1  # a lux-meter reading near the head-left corner, out of the glare
    meter.reference(img, float(lux[i, j]), at=(truth.lux_x[i], truth.lux_y[j]))
    reading = meter.measure(img)
    rel = np.abs(reading.cells / lux - 1.0)
    assert np.isnan(reading.cells).sum() >= 10  # the clipped middle is not measured...
    assert any("clips" in w for w in reading.warnings)  # ...and the user is told
    assert np.isfinite(rel).sum() >= lux.size // 3
    assert np.nanmax(rel) < 0.10, np.nanmax(rel)


def _hidden_markings_look():
    """The default look with the chalked spots and lines painted in the cloth's colour."""
    from dataclasses import replace

    look = render.Look.default()
    return replace(look, markings=tuple(float(v) for v in look.cloth_rgb()))


@pytest.mark.parametrize("discipline,tilt", [
    ("russian_pyramid", 0.5), ("pool51", 3.0), ("three_cushion", 0.5)])
def test_hidden_markings_never_turn_the_table_round(discipline, tilt):
    """With every spot and chalk line invisible, only the balls on the starting spots
    (the opening) may tell the head from the foot. A 3-grey-level ripple in the cloth
    once decided it, the wrong way round (every ball mapped to the other end)."""
    disc = get_discipline(discipline)
    cam = render.make_camera(disc.table, (1280, 720), tilt_deg=tilt, azimuth_deg=30.0,
                             k1=-0.1, k2=0.01)
    img, _ = render.render_still(disc, dict(disc.opening), camera=cam,
                                 look=_hidden_markings_look(), seed=1)
    calib = calibrate_image(img, strict=False)
    xy, px = grid_truth(disc.table, cam)
    err = np.linalg.norm(calib.image_to_table(px) - xy, axis=1)
    undecided = any("head and foot" in r for r in calib.quality["reasons"])
    if not undecided:
        assert err.max() < 50.0, f"head and foot decided the wrong way ({err.max():.0f} mm)"
    assert not calib.ok or err.max() < 3.0


def test_one_free_starting_spot_pins_a_near_vertical_view():
    """A camera 1 degree off vertical sees the rails all at about one height: only
    marks on the cloth pin its height. At the opening of three-cushion two of the five
    spots are under balls and the centre one may be under the pins; the one free
    starting spot must be found and used: the same view with the markings hidden
    predicts a far larger error, and both mappings are within 3 mm or not trusted."""
    disc = get_discipline("three_cushion")
    cam = render.make_camera(disc.table, (1920, 1080), tilt_deg=1.0, azimuth_deg=30.0,
                             k1=-0.1, k2=0.01)
    xy, px = grid_truth(disc.table, cam)
    predicted = {}
    for name, look in (("seen", render.Look.default()), ("hidden", _hidden_markings_look())):
        img, _ = render.render_still(disc, dict(disc.opening), camera=cam, look=look, seed=1)
        calib = calibrate_image(img, strict=False)
        err = np.linalg.norm(calib.image_to_table(px) - xy, axis=1)
        assert not calib.ok or err.max() < 3.0
        predicted[name] = calib.quality["predicted_max_error_mm"]
        if name == "seen":
            assert calib.quality["spots_found"] >= 1
            assert err.max() < 3.0 and err.max() <= predicted[name]
    assert predicted["hidden"] > 2.0 * predicted["seen"], predicted


@pytest.mark.parametrize("seed", [74, 116])
def test_lettered_rails_calibrate_within_3mm(seed):
    """Benchmark scenes with sponsor lettering on the rails (74: Pool 51, 9 mm round
    sights, a maker's name on the cloth; 116: three words and a chalk cube on the
    rails), both refused before the diamond search passed over letters: now trusted
    and within 3 mm over the whole cloth (the camera's height given: 116, at 6.8 deg,
    promises 2.50 mm unaided)."""
    disc, cam, look, img, _ = render.calibration_scene(seed)
    assert look.rail_text
    calib = calibrate_image(img, camera_height=measured_height(cam))
    assert calib.ok, calib.quality["reasons"]
    xy, px = grid_truth(disc.table, cam)
    err = np.linalg.norm(calib.image_to_table(px) - xy, axis=1)
    assert err.max() < 3.0, err.max()


def test_broadcast_framing_cut_at_the_rails_calibrates():
    # a broadcast frame framed tight: the cloth whole, the rails' outer edges just past
    # the frame. Lit unevenly, the cloth falls into colour clusters none of which is
    # solid alone, and their union reaches the frame's edges (refused before)
    disc, cam, _, img, _ = render.broadcast_scene("snug", 3)
    corners = cam.project(np.column_stack([disc.table.corners, np.zeros(4)]))
    assert corners.min() >= 0 and (corners.max(axis=0) < cam.size).all()  # cloth whole
    outer = cam.project(render.camera.table_outline(disc.table)[:4])
    assert (outer.min(axis=0) < 0).any() or (outer.max(axis=0) >= cam.size).any()  # rails cut
    calib = calibrate_image(img)
    assert calib.table == disc.table.name
    xy, px = grid_truth(disc.table, cam)
    assert np.linalg.norm(calib.image_to_table(px) - xy, axis=1).max() < 3.0


@pytest.mark.parametrize("kind,seed", [("close", 5), ("close", 14), ("side", 0), ("side", 4),
                                       ("side", 17)])
def test_broadcast_cutaways_are_right_or_refused(kind, seed):
    # what a broadcast cuts to besides the overhead view: a close-up of part of the
    # table, a low camera beside it. A right mapping of what is seen, or a refusal
    disc, cam, _, img, _ = render.broadcast_scene(kind, seed)
    try:
        calib = calibrate_image(img, strict=False)
    except CalibrationError as exc:
        assert str(exc).startswith(("no table found", "table not recognised")), exc
        return
    xy, px = grid_truth(disc.table, cam)
    seen = ((px >= 0) & (px < np.array(cam.size))).all(axis=1)
    err = np.linalg.norm(calib.image_to_table(px[seen]) - xy[seen], axis=1)
    assert not calib.ok or err.max() < 3.0, (calib.table, err.max())
    if not calib.ok:
        assert calib.quality["reasons"]


def test_broadcast_framing_names_are_checked():
    with pytest.raises(ValueError, match="unknown broadcast framing 'aerial'; known: snug"):
        render.broadcast_scene("aerial", 0)


def test_a_table_framed_too_tight_is_refused_naming_the_cut_sides():
    from simworld.render.scene import CUSHION_BAND

    disc, cam, _, img, _ = render.broadcast_scene("tight", 0)
    with pytest.raises(CalibrationError, match="runs out of the frame at the") as info:
        calibrate_image(img)
    named = str(info.value).split("frame at the ")[1].split(" (")[0].split(" and ")
    # where the cloth and its cushions truly reach the frame's edges
    t, b = disc.table, CUSHION_BAND
    band = np.array([[-b, -b, 0], [t.length + b, -b, 0], [t.length + b, t.width + b, 0],
                     [-b, t.width + b, 0]], float)
    edge = np.concatenate([band[i] + (band[(i + 1) % 4] - band[i]) * f
                           for i in range(4) for f in np.linspace(0, 1, 50)[:, None]])
    px = cam.project(edge)
    w, h = cam.size
    reach = {"left": px[:, 0].min() < 0.02 * w, "right": px[:, 0].max() > 0.98 * w,
             "top": px[:, 1].min() < 0.02 * h, "bottom": px[:, 1].max() > 0.98 * h}
    assert named and all(reach[side] for side in named), (named, reach)
    assert "whole table, rails included" in str(info.value)


@pytest.mark.parametrize("sight,expect", [((0.04, 0.04, 0.04), "dark"),
                                          ((0.85, 0.85, 0.82), "light")])
def test_light_wood_rails_with_black_or_pearl_sights(sight, expect):
    """Maple rails: black sights are found as dark details (and the re-check looks for
    them so), pearl sights in each pixel's darkest channel, where they stand out of
    the wood; either way the mapping is within 3 mm."""
    from calibration import Calibration, check

    disc = get_discipline("three_cushion")
    cam = render.make_camera(disc.table, (1280, 720), tilt_deg=10.0, azimuth_deg=70.0,
                             k1=-0.08)
    look = render.Look(wood=(0.6, 0.4, 0.2), diamond=sight, diamond_size=16.0,
                       rail_text=("GRAND PRIX",), rail_text_colour=(0.03, 0.03, 0.03))
    layout = {oid: xy for (oid, _), xy in zip(
        disc.opening, [(600.0, 300.0), (1500.0, 1000.0), (2200.0, 500.0)], strict=True)}
    img, _ = render.render_still(disc, layout, camera=cam, look=look, seed=6)
    calib = calibrate_image(img)
    assert calib.sights == expect
    xy, px = grid_truth(disc.table, cam)
    assert np.linalg.norm(calib.image_to_table(px) - xy, axis=1).max() < 3.0
    assert check(img, calib).ok
    again = Calibration.from_dict(calib.to_dict())
    assert again.sights == expect and check(img, again).ok
    # four corners given by hand find the same sights, and the re-check follows them
    t = disc.table
    z = t.cushion_height  # where the noses meet
    corners = cam.project(np.array([[0, 0, z], [t.length, 0, z], [t.length, t.width, z],
                                    [0, t.width, z]], float))
    by_hand = calibrate_image(img, corners=corners)
    assert by_hand.method == "corners"
    assert by_hand.sights == expect if expect == "dark" else by_hand.sights != "dark"
    assert check(img, by_hand).ok


def test_a_chalk_line_on_a_tan_cloth_under_a_lamps_slope_is_found():
    """Benchmark scene 0: a near-vertical opening of a pyramid table, the rack over the
    spots, the house line free. The line stands 10 grey levels above a tan cloth whose
    light slopes across the search window; read against the window's plain spread it
    was not found, the camera's height went 39% wrong and the cloth 10 mm off (refused,
    at 19 mm predicted). Read against the cloth either side of it, it pins the height."""
    disc, cam, look, img, _ = render.calibration_scene(0)
    assert look.cloth == "tan" and disc.table.lines
    calib = calibrate_image(img, strict=False)
    q = calib.quality
    xy, px = grid_truth(disc.table, cam)
    err = np.linalg.norm(calib.image_to_table(px) - xy, axis=1).max()
    assert q["line_points"] >= 20
    assert abs(q["camera_height_mm"] - cam.position[2]) < 0.1 * cam.position[2]
    assert err < 1.5 and err <= q["predicted_max_error_mm"] < 5.0


def test_pearl_sights_on_maple_seen_from_afar_are_found():
    """Benchmark scene 15: a maple rail at 0.4 px/mm, its pearl sights found only in each
    pixel's darkest channel, where the grain moves them by a millimetre: no geometry is
    clean enough to pick an image on its own. The sights are still taken from there
    (refused before, for the error the fit could promise, 2.7 mm: its height had leaned
    on chalk lines taken as drawn, 2.4 mm off; trusted since their shared offset)."""
    disc, cam, _, img, _ = render.calibration_scene(15)
    calib = calibrate_image(img)
    q = calib.quality
    assert calib.sights == "pale" and q["diamonds_found"] >= 12
    xy, px = grid_truth(disc.table, cam)
    assert np.linalg.norm(calib.image_to_table(px) - xy, axis=1).max() <= q[
        "predicted_max_error_mm"]


def test_rails_of_the_cloths_colour_are_not_taken_for_cloth():
    """Benchmark scene 178: a charcoal laminate beside a grey cloth falls in the cloth's
    colour cluster, so the region found is outlined by the rails' outer edge. Its
    diamonds are then found inside that outline, and the mapping is right (the camera's
    height given: at 1.8 deg, unaided, it promises 2.8 mm)."""
    disc, cam, look, img, _ = render.calibration_scene(178)
    assert look.cloth == "grey"
    calib = calibrate_image(img, camera_height=measured_height(cam))
    assert calib.table == disc.table.name and calib.quality["diamonds_found"] >= 16
    assert_mapped_within_prediction(calib, disc.table, cam)


def centre_read_errors(calib, look, img, truth) -> np.ndarray:
    """Each cell's relative lux error after one lux-meter reading at the centre cell."""
    lux = np.asarray(truth.lux, float)
    meter = LightMeter(calib, vignette=float(look.vignette), cells=lux.shape, gamma=GAMMA)
    i, j = lux.shape[0] // 2, lux.shape[1] // 2
    meter.reference(img, float(lux[i, j]), at=(truth.lux_x[i], truth.lux_y[j]))
    return np.abs(meter.measure(img).cells / lux - 1.0)


@pytest.mark.parametrize("seed", [40, 43])
def test_lux_beside_a_ball_in_a_border_cell(seed):
    """Benchmark scenes with the balls in mid-game positions: a ball in a border cell
    (40: the yellow in the head-left corner cell) casts its shadow over a quarter of
    the cell, whose low quantile read that shadow, 41% low. Every cell within 10%."""
    disc, cam, look, img, truth = render.calibration_scene(seed, balls="random")
    calib = calibrate_image(img)
    rel = centre_read_errors(calib, look, img, truth)
    assert np.isfinite(rel).mean() > 0.9
    assert np.nanmax(rel) < 0.10, np.nanmax(rel)


def test_lux_on_a_worn_dark_cloth_read_at_its_worn_centre():
    """Benchmark scene 111: a dark purple cloth, heavily worn (lighter and greyer along
    the middle and round the spots), through JPEG at quality 57. The lux-meter reading
    is taken at the worn centre, where wear lifts the luminance, so every unworn cell
    read 4-8% low and one 10.9% (a cell's 25th percentile, uncorrected for wear). Read
    through the colour's shift toward grey, every cell within 10%."""
    disc, cam, look, img, truth = render.calibration_scene(111)
    assert look.cloth == "purple" and look.cloth_wear > 0.7
    calib = calibrate_image(img)
    rel = centre_read_errors(calib, look, img, truth)
    assert np.isfinite(rel).mean() > 0.9
    assert np.nanmax(rel) < 0.10, np.nanmax(rel)


def test_a_principal_point_far_off_the_centre_is_not_promised_more_than_it_shows():
    """Benchmark scene 164 with 40 px cut off its left and top: the lens's principal
    point lies about 50 px (2.6% of the width) left of and above the frame's centre,
    five times the fit's prior (``fit.PRINCIPAL_SD``). The fit moves it that way, and the
    self-check, which carries the prior, promises no more than the view shows: the
    calibration is refused, its true error within the prediction. (Held at the centre,
    as before 8365bcd, such lenses gave 30 false accepts in 200 scenes.)"""
    disc, cam, _, img, _ = render.calibration_scene(164)
    cut = 40
    img = np.ascontiguousarray(img[cut:, cut:])
    xy, px = grid_truth(disc.table, cam)
    px = px - cut
    calib = calibrate_image(img, strict=False)
    err = np.linalg.norm(calib.image_to_table(px) - xy, axis=1).max()
    assert not calib.ok
    assert err <= calib.quality["predicted_max_error_mm"]
    centre = (np.array([img.shape[1], img.shape[0]]) - 1) / 2
    truth = cam.K[:2, 2] - cut
    assert np.linalg.norm(calib.camera.K[:2, 2] - truth) < np.linalg.norm(centre - truth)


def test_pearl_sights_on_light_wood_are_taken_where_most_are_found():
    """Benchmark scene 332 (a pyramid table, light wood, 1280 px): no image shows a
    geometry cleanly. Grey found 9 of 18 sights, the darkest channel 14; with grey's the
    view was refused (3.6 mm predicted with the lens measured). The image that finds
    most is taken now, and the mapping is right. Unaided, its prediction lies near the
    2.5 mm bar, on which side by the machine's floating point (under it on the machines
    of earlier sessions, 2.8 mm on the eighteenth's), so the test reads the fit whether
    trusted or not."""
    disc, cam, _, img, _ = render.calibration_scene(332)
    calib = calibrate_image(img, strict=False)
    assert calib.sights == "pale" and calib.quality["diamonds_found"] >= 13
    assert_mapped_within_prediction(calib, disc.table, cam)


def test_a_racked_opening_tells_the_head_from_the_foot():
    """Benchmark scene 260: a house line on a tan cloth too faint to vote, no asymmetric
    spot, and the view was refused as "head and foot cannot be told apart". The rack
    stands at the foot, and a half turn puts its places on bare cloth: the table is
    turned the right way (a wrong guess maps every ball to the other end). (The camera's
    height given: unaided, it promises 2.6 mm.)"""
    disc, cam, look, img, _ = render.calibration_scene(260)
    assert look.cloth == "tan" and disc.table.name == "pyramid"
    calib = calibrate_image(img, camera_height=measured_height(cam))
    xy, px = grid_truth(disc.table, cam)
    assert np.linalg.norm(calib.image_to_table(px) - xy, axis=1).max() < 3.0


@pytest.mark.parametrize("balls,expect", [("opening", 1), ("random", 0)])
def test_the_rack_votes_only_at_the_opening(balls, expect):
    """With the renderer's true camera: the opening's rack votes for the way round it
    stands (+1 as given, -1 turned), and balls where a game leaves them vote nothing."""
    from calibration.detect import find_cloth
    from calibration.fit import _rack_vote

    disc, cam, _, img, truth = render.calibration_scene(260, balls=balls)
    right, turned = true_and_turned(disc.table, cam, truth)
    cloth = find_cloth(img).model
    assert _rack_vote(img, right, turned, disc.table, cloth) == expect
    assert _rack_vote(img, turned, right, disc.table, cloth) == -expect


def test_a_grey_table_on_a_grey_floor_is_outlined_by_its_rails():
    """Benchmark scene 1354: a grey cloth, grey cushions as bright as its dim rim, grey
    rails as bright as its lamp-lit middle, on a darker grey floor. The colour test
    runs out of the frame, and held to the lamp-lit middle's hull the outline was an
    oval (refused). The floor is darker than all of the table: the table's outline,
    its rails' outer edge, is taken, and the diamonds are searched from there."""
    disc, cam, _, img, _ = render.calibration_scene(1354)
    calib = calibrate_image(img)
    xy, px = grid_truth(disc.table, cam)
    err = np.linalg.norm(calib.image_to_table(px) - xy, axis=1)
    assert err.max() < 3.0, err.max()


def test_black_sights_among_dark_rail_lettering_are_found():
    """Benchmark scene 291: black sights on light wood, each between two words of a
    dark "OPEN 2026" printed along every rail. The strongest blob near each sight is a
    letter as often as not (8 of 20 found, sitting 1.4 px off a rail model); every blob
    near each, the letters refused by their neighbours, finds the sights, and the
    mapping is right."""
    disc, cam, look, img, _ = render.calibration_scene(291)
    assert look.rail_text
    calib = calibrate_image(img, strict=False)
    assert calib.sights == "dark" and calib.quality["diamonds_found"] >= 16
    assert_mapped_within_prediction(calib, disc.table, cam)


def test_black_sights_among_dark_letters_are_searched_for_when_grey_saw_no_geometry():
    """Benchmark scene 11807: small black sights on light wood, each between two words
    of a dark "PRO TOUR" along every rail, seen from almost straight above. Grey's
    search found 16 of the carom table's 20 "sights" among the letters and their halos,
    2.3 px off any rail model: no geometry, yet it had been taken for light sights found
    a little loosely, the black sights' every-blob search was skipped, and the scene was
    refused (a diamond residual of 13 mm). That search finds all 20. (The camera's
    height is given, as measured at installation: unaided, so near-vertical a view
    promises 2.65 mm, over the unaided bar, its balklines chalked off the drawing.)"""
    disc, cam, look, img, _ = render.calibration_scene(11807)
    assert look.rail_text and max(look.diamond) < 0.1  # black sights, lettered rails
    calib = calibrate_image(img, strict=False, camera_height=float(cam.position[2]) + 30.0)
    assert calib.sights == "dark" and calib.quality["diamonds_found"] >= 18
    assert calib.table == disc.table.name
    assert_mapped_within_prediction(calib, disc.table, cam)


@pytest.mark.parametrize("seed", [777, 816])
def test_black_sights_on_rails_of_the_cloths_colour_are_found(seed):
    """Benchmark scenes 777 and 816: a tan cloth, light-wood rails of nearly its colour,
    small black sights. The cloth's region takes the rails in. White sights are then
    looked for with its outline taken for the rails' outer edge; black ones were looked
    for only inside it taken for the cloth's (10 of the pyramid's 20 found, refused at
    11 and 25 mm predicted). They are looked for the same way now, and the mapping is
    right."""
    disc, cam, look, img, _ = render.calibration_scene(seed)
    assert look.diamond[0] < 0.1 and look.cloth == "tan"
    calib = with_measured_lens(img, cam, seed)
    assert calib.sights == "dark" and calib.table == disc.table.name
    assert calib.quality["diamonds_found"] >= 15
    assert_mapped_within_prediction(calib, disc.table, cam)


def test_a_lux_reading_is_refused_where_the_camera_is_near_clipping():
    """Benchmark scene 269: a bright green cloth that clips over most of the table; the
    border cells are read. One of them is near clipping, its clipped pixels smoothed
    back under the clip level by JPEG: a reference reading there read the other cells
    7-13% high. The meter refuses it; taken at the next cell, every cell is within
    10%."""
    from calibration.camera import CameraModel
    from calibration.result import Calibration

    disc, cam, look, img, truth = render.calibration_scene(269)
    lux = np.asarray(truth.lux, float)
    camera = CameraModel(truth.K, truth.dist, truth.rvec, truth.tvec, cam.size)
    meter = LightMeter(Calibration(disc.table.name, camera), vignette=float(look.vignette),
                       cells=lux.shape, gamma=GAMMA)
    with pytest.raises(ValueError, match="near clipping"):
        meter.reference(img, float(lux[15, 0]), at=(truth.lux_x[15], truth.lux_y[0]))
    meter.reference(img, float(lux[17, 0]), at=(truth.lux_x[17], truth.lux_y[0]))
    rel = np.abs(meter.measure(img).cells / lux - 1.0)
    assert np.isfinite(rel).sum() >= 20
    assert np.nanmax(rel) < 0.10, np.nanmax(rel)


def test_the_recheck_takes_the_grain_out_where_the_calibration_did():
    """Benchmark scene 367: pearl sights among maple's grain, found only with the grain
    along each rail taken out. The once-a-second re-check must look for them the same
    way: with the square top-hat it saw 1 of 20 on the very frame it was calibrated
    on and said "moved" (a false alarm every second of the match), and 10 of 20 with
    lettering refused as the diamond search refuses it. Given the renderer's true
    camera, it sees nearly all and says ok; shifted 6 px, it says moved."""
    import cv2

    from calibration import Calibration, check
    from calibration.camera import CameraModel

    disc, cam, _, img, truth = render.calibration_scene(367)
    true_cam = CameraModel(truth.K, truth.dist, truth.rvec, truth.tvec, cam.size)
    calib = Calibration(disc.table.name, true_cam, grain=True)
    seen = check(img, calib)
    assert seen.status == "ok" and seen.diamonds_seen >= 0.9 * len(disc.table.diamonds)
    without = check(img, Calibration(disc.table.name, true_cam))
    assert without.diamonds_seen <= 0.5 * len(disc.table.diamonds)
    shifted = cv2.warpAffine(img, np.float32([[1, 0, 6], [0, 1, 0]]),
                             (img.shape[1], img.shape[0]), borderMode=cv2.BORDER_REPLICATE)
    assert check(shifted, calib).status == "moved"


@pytest.mark.parametrize("seed", [410, 418, 419])
def test_a_black_cloth_is_found_and_mapped(seed):
    """Benchmark scenes with a black cloth (albedo 0.02), refused as "a side of the cloth
    is not visible" or "not four straight sides". 418 and 419: the floor is grey like
    the cloth, so the clusters of the cloth's hue ran out of the frame, and the lamps'
    pool alone, an oval, was taken; the union's part inside the rails is the cloth. 410:
    the cloth's chromaticity is mostly noise at the work copy's scale and its outline
    came out ragged; a second look in a smoother copy finds it."""
    disc, cam, look, img, _ = render.calibration_scene(seed)
    assert look.cloth == "black"
    calib = calibrate_image(img)
    xy, px = grid_truth(disc.table, cam)
    assert np.linalg.norm(calib.image_to_table(px) - xy, axis=1).max() < 3.0


def test_a_black_cloths_ragged_lamp_lit_middle_is_not_taken_for_its_outline():
    """Benchmark scene 1734: a black cloth under one lamp, through JPEG at quality 37,
    blurred by motion. At the first smoothing its dim rim's colour is lost in noise and
    the lamp-lit middle, an oval, still made four sides, 40-80 px inside the cushions'
    edge: no diamond where they put them, refused. Such an outline covers 0.90 of its
    quad (a cloth's 0.95-1.0): the cloth is looked for again in the smoother copy,
    whose outline is the cushions' edge, and the mapping is right."""
    from calibration.detect import SOLID_OUTLINE, find_cloth
    from simworld.render.scene import CUSHION_BAND

    disc, cam, look, img, _ = render.calibration_scene(1734)
    assert look.cloth == "black"
    region = find_cloth(img)
    t, c = disc.table, CUSHION_BAND
    corners = np.array([[-c, -c, t.cushion_height], [t.length + c, -c, t.cushion_height],
                        [t.length + c, t.width + c, t.cushion_height],
                        [-c, t.width + c, t.cushion_height]])
    truth = cam.project(corners)
    off = np.linalg.norm(region.quad[:, None] - truth[None], axis=2).min(axis=1)
    assert region.covered >= SOLID_OUTLINE and off.max() < 12.0, off
    assert_mapped_within_prediction(with_measured_lens(img, cam, 1734), t, cam)


def test_the_recheck_refuses_rail_lettering_as_the_diamond_search_does():
    """Benchmark scene 14: "CAROM CUP" printed on the rails 50 mm from the sights,
    brighter than them in each pixel's darkest channel. The re-check took the strongest
    blob near each sight and said "moved" (50 mm) on the frame it was calibrated on;
    with the diamond search's test (a letter among letters is refused, the nearest of
    the rest taken) it says ok, and moved when the frame is shifted 6 px."""
    import cv2

    from calibration import check

    _, _, look, img, _ = render.calibration_scene(14)
    assert look.rail_text
    calib = calibrate_image(img)
    seen = check(img, calib)
    assert seen.status == "ok" and seen.shift_mm < 1.0
    shifted = cv2.warpAffine(img, np.float32([[1, 0, 6], [0, 1, 0]]),
                             (img.shape[1], img.shape[0]), borderMode=cv2.BORDER_REPLICATE)
    assert check(shifted, calib).status == "moved"


def test_halos_beside_black_sights_are_not_taken_for_white_ones():
    """Benchmark scene 620: black sights on a light-wood rail. Grey's top-hat shows a
    bright halo beside each (the square opening dips round a dark blob), and the halos
    made the wrong geometry cleanly enough (18 at 0.72 px) to be taken: the view was
    refused with 5 mm predicted. A loose clean fit in grey is compared with the black
    sights' search, which fits at 0.26 px."""
    disc, cam, look, img, _ = render.calibration_scene(620)
    assert look.diamond[0] < 0.1  # black sights
    calib = calibrate_image(img)
    assert calib.sights == "dark" and calib.table == disc.table.name
    xy, px = grid_truth(disc.table, cam)
    assert np.linalg.norm(calib.image_to_table(px) - xy, axis=1).max() < 3.0


def test_most_diamonds_found_loosely_beat_a_few_found_well():
    """Benchmark scene 668: a strongly bent 1920-px view (k1 -0.18), a score graphic
    over half a rail. Grey finds 18 of the 20 sights, but the rail model leaves them at
    1.2 px; the black sights' image finds 6 stray blobs at 0.8 px, and was taken for
    sitting better: refused for 6 diamonds. A fit on fewer than half the diamonds is
    refused anyway, so grey's is taken (`_best_of`). Since 7996ecf the last search, over
    the darkest channel's local median, finds the sights cleanly and is taken before
    either (with the lens measured 0.51 mm true; grey's gave 0.14 mm): the stray blobs
    are still not, and the mapping is right."""
    from calibration import fit
    from calibration.diamonds import DiamondSearch

    disc, cam, _, img, _ = render.calibration_scene(668)
    calib = calibrate_image(img, strict=False)
    assert calib.sights != "dark"
    assert calib.quality["diamonds_found"] >= 0.6 * calib.quality["diamonds_expected"]
    xy, px = grid_truth(disc.table, cam)
    assert np.linalg.norm(calib.image_to_table(px) - xy, axis=1).max() < 3.0

    def found(n: int, rms: float) -> dict:
        return {"carom": DiamondSearch({i: np.zeros(2) for i in range(n)}, np.eye(3), 0.5,
                                       np.zeros((2, 2), np.float32), 0, 0.0, rms_px=rms)}
    # 668's own counts: grey 18 of 20 loosely, the black sights' image 6 well
    tried = {"light": found(18, 1.2), "dark": found(6, 0.8), "pale": {}}
    assert fit._best_of(tried) == "light"
    tried["light"] = found(8, 1.2)  # neither half found well: the one sitting well
    assert fit._best_of(tried) == "dark"


def test_sights_between_rail_lettering_calibrate_and_recheck_alike():
    """Benchmark scene 958: pool 51 on light wood at 1920 px, pearl sights beside
    "PRO TOUR" and "BILLIARD CLUB". Found only over the darkest channel's local median
    (9 of 18 otherwise: refused, one long rail held by 1), it is calibrated, says so
    (`lettering`), and the re-check on the same frame looks the same way and says ok
    (with the square top-hat it saw 10 of 18)."""
    from dataclasses import replace

    from calibration import Calibration, check

    disc, cam, _, img, _ = render.calibration_scene(958)
    calib = calibrate_image(img)
    assert calib.lettering and not calib.grain and calib.table == disc.table.name
    xy, px = grid_truth(disc.table, cam)
    assert np.linalg.norm(calib.image_to_table(px) - xy, axis=1).max() < 3.0
    seen = check(img, calib)
    assert seen.status == "ok" and seen.diamonds_seen >= 0.8 * len(disc.table.diamonds)
    assert Calibration.from_dict(calib.to_dict()).lettering  # the JSON keeps it
    square = check(img, replace(calib, lettering=False))
    assert square.diamonds_seen < seen.diamonds_seen - 4


@pytest.mark.parametrize("seed", [1840, 2194])
def test_sights_on_rails_the_cloth_took_in_are_found_with_the_grain_taken_out(
        seed, monkeypatch):
    """Benchmark scenes 1840 (a tan cloth, white sights on maple of nearly its colour)
    and 2194 (a tan cloth, "BILLIARD CLUB" along every rail between the sights, a score
    graphic over one): the cloth's region took the rails in, and every search in it
    as the cloth's outline found too few sights (9 and 11 of 20 and 18: refused). With
    the outline taken for the rails' outer edge and the rails' lengthwise streaks (the
    grain, the rows of letters) taken out, the sights are found, the mapping is right,
    and the re-check on the same frame looks the same way and says ok. (2194's sights
    are found earlier now, where a loose set is searched further: the test after
    next; here a set is taken however loosely it sits, as it was.)"""
    from calibration import check
    from calibration import diamonds as dmod

    monkeypatch.setattr(dmod, "PRUNE_RMS_PX", float("inf"))
    disc, cam, _, img, _ = render.calibration_scene(seed)
    calib = with_measured_lens(img, cam, seed)
    assert calib.grain and calib.table == disc.table.name
    assert calib.quality["diamonds_found"] >= 0.8 * calib.quality["diamonds_expected"]
    assert_mapped_within_prediction(calib, disc.table, cam)
    assert check(img, calib).status == "ok"


def test_sights_beside_brighter_letters_on_rails_the_cloth_took_in_are_found():
    """Benchmark scene 5935: a Russian pyramid at 1920 px, grey laminate rails round a
    grey cloth (the cloth's region took them in), "GRAND PRIX", "WORLD SERIES" and
    "OPEN 2026" along every rail in letters brighter than the dim sights beside them.
    Near each rough place the strongest blob was a letter (7 of 20 found with the
    outline as the rails' edge; refused, a wrong fit at 11 mm RMS). Every blob near
    each finds the sights: the mapping is right and the re-check says ok."""
    from calibration import check

    disc, cam, look, img, _ = render.calibration_scene(5935)
    assert look.rail_text and max(look.rail_text_colour) > max(look.diamond)
    calib = with_measured_lens(img, cam, 5935)
    assert calib.table == disc.table.name
    assert calib.quality["diamonds_found"] >= 0.8 * calib.quality["diamonds_expected"]
    assert_mapped_within_prediction(calib, disc.table, cam)
    assert check(img, calib).status == "ok"


@pytest.mark.parametrize("seed", [6404, 2194])
def test_sights_among_letters_are_found_from_those_sitting_well(seed, monkeypatch):
    """Benchmark scene 6404: one-cushion at 1280 px, grey sights 9 mm across on brown
    wood, "CAROM CUP", "BILLIARD CLUB" along every rail in letters brighter than the
    sights, 8-10 px beside them; the cloth's outline 9 px off the rails' true place.
    Every blob near each rough place put three letters into a set of 16 of 20 sights
    at 1.5 px RMS, and the search stopped there, most sights found: too loose to
    trust, and no other search did better (refused, the pool table's sights chosen).
    A set that sits loosely is now searched further: the 13 sights among the 16 sit
    within 0.2 px of one model, and searched again from it 19 are found at 0.17 px
    (the local median's search, tried on, finds 20 at 0.15 px): calibrated, the
    table right, the mapping within its prediction. 2194 (rows of "BILLIARD CLUB"
    between the sights, nearly as bright, the cloth's region taking the rails in) so
    too, before the grain searches."""
    from calibration import diamonds as dmod

    disc, cam, look, img, _ = render.calibration_scene(seed)
    assert look.rail_text
    assert max(look.rail_text_colour) > (1.0 if seed == 6404 else 0.9) * max(look.diamond)
    calib = with_measured_lens(img, cam, seed)
    assert calib.table == disc.table.name and not calib.grain
    assert calib.quality["diamonds_found"] >= 0.8 * calib.quality["diamonds_expected"]
    assert_mapped_within_prediction(calib, disc.table, cam)
    monkeypatch.setattr(dmod, "PRUNE_RMS_PX", float("inf"))  # most found: settled
    as_before = with_measured_lens(img, cam, seed, strict=False)
    if seed == 6404:
        assert not as_before.quality["ok"]
    else:
        assert as_before.grain


def test_a_ball_on_a_starting_spot_is_seen_round_its_tilted_outline():
    """Benchmark scene 1849: a 71 cm balkline table at the opening, the cue ball on a
    starting spot, which the balkline runs through; the only asymmetric marking. Seen
    on the cloth's plane, the ring 48 mm round the spot took in the top of the ball,
    thrown outwards by the view's tilt, and its shadow: 7 of 12 points cloth where 8
    are asked, and head and foot were not told apart (refused). Seen at the height of
    the ball's centre the ring is round the ball's outline: with the renderer's true
    camera the balls vote for the way round they stand, and the table is calibrated."""
    from calibration.fit import _balls_on_spots_vote

    disc, cam, _, img, truth = render.calibration_scene(1849)
    assert disc.table.name == "carom_balkline_71"
    right, turned = true_and_turned(disc.table, cam, truth)
    assert _balls_on_spots_vote(img, right, turned, disc.table) == 1
    assert _balls_on_spots_vote(img, turned, right, disc.table) == -1
    calib = with_measured_lens(img, cam, 1849)
    assert_mapped_within_prediction(calib, disc.table, cam)


def test_a_racked_table_is_not_turned_round_by_a_spot_at_the_racks_edge():
    """Benchmark scene 11280: Pool 51 on a pale tan cloth at 1280 px, the opening's rack
    at the foot, no marking read. Turned round, the D's centre falls at the rack's back
    edge, covered with cloth round it, and read as a ball on a starting spot, while the
    black's spot, under the rack among balls, did not; the table was mapped turned
    round, 2214 mm off, and trusted. On a racked table the balls on spots vote nothing
    (the rack decides, and here cannot): the frame is refused, head and foot unknown."""
    from calibration.fit import ORIENTATION_UNKNOWN, _balls_on_spots_vote, _racks

    disc, cam, _, img, truth = render.calibration_scene(11280)
    assert disc.name == "pool51" and _racks(disc.table)
    right, turned = true_and_turned(disc.table, cam, truth)
    assert _balls_on_spots_vote(img, right, turned, disc.table) == 0
    assert _balls_on_spots_vote(img, turned, right, disc.table) == 0
    calib = with_measured_lens(img, cam, 11280, strict=False)
    xy, px = grid_truth(disc.table, cam)
    err = np.linalg.norm(calib.image_to_table(px) - xy, axis=1).max()
    assert not calib.ok or err < min(3.0, calib.quality["predicted_max_error_mm"])
    assert ORIENTATION_UNKNOWN in calib.warnings


@pytest.mark.parametrize("balls,expect", [("opening", 1), ("random", 0)])
def test_a_ball_on_a_starting_spot_of_a_near_black_cloth_votes(balls, expect, monkeypatch):
    """Benchmark scene 3515: free game at 1920 px, a near-black cloth, the opening's
    white on a starting spot. Pixel by pixel the cloth's chromaticity is mostly noise:
    bare cloth read as largely not cloth, the ring round the ball as under the share
    asked, and a fit true to 0.15 mm was refused as "head and foot cannot be told
    apart". Through a pixel's blur, with the renderer's true camera, the ball votes for
    the way round it stands; balls where a game leaves them vote nothing."""
    from calibration import fit

    disc, cam, look, img, truth = render.calibration_scene(3515, balls=balls)
    assert look.cloth == "black" and not disc.table.pockets
    right, turned = true_and_turned(disc.table, cam, truth)
    assert fit._balls_on_spots_vote(img, right, turned, disc.table) == expect
    assert fit._balls_on_spots_vote(img, turned, right, disc.table) == -expect
    if balls == "opening":
        # no blur, and a fixed bar of colour (not the cloth's own scatter, as since
        # 13115 below): the vote lost
        monkeypatch.setattr(fit, "SPOT_VOTE_BLUR_PX", 1e-3)
        monkeypatch.setattr(fit, "RING_SCATTER", 0.0)
        assert fit._balls_on_spots_vote(img, right, turned, disc.table) == 0
        monkeypatch.undo()
        calib = with_measured_lens(img, cam, 3515)
        assert_mapped_within_prediction(calib, disc.table, cam)


def test_a_ball_on_a_starting_spot_of_a_worn_compressed_cloth_votes():
    """Benchmark scene 13115: three-cushion at the opening, 1280 px, a green cloth worn
    0.7 through JPEG at quality 37. The cloth's colour scatters by 0.019 round the white
    ball on its starting spot, and five of the twelve points 48 mm round the ball read
    0.043-0.048 from the cloth around, over a fixed bar of 0.04: 7 of 12 cloth where 8
    are asked, and a fit true to 0.2 mm was refused, head and foot not told apart. The
    bar is now the wider ring's own scatter, three times over, where that is more: with
    the renderer's true camera the ball votes for the way round it stands, and the
    table is calibrated."""
    from calibration import fit

    disc, cam, look, img, truth = render.calibration_scene(13115)
    assert disc.name == "three_cushion" and look.jpeg_quality < 40 and look.cloth_wear > 0.6
    right, turned = true_and_turned(disc.table, cam, truth)
    assert fit._balls_on_spots_vote(img, right, turned, disc.table) == 1
    assert fit._balls_on_spots_vote(img, turned, right, disc.table) == -1
    calib = with_measured_lens(img, cam, 13115)
    assert_mapped_within_prediction(calib, disc.table, cam)


def test_white_sights_on_black_rails_are_not_handed_to_the_black_sights_image():
    """Benchmark scene 2102: pool 51, white sights on black rails lit grey, a score
    graphic. Grey finds all 18 cleanly but loosely (0.68 px), so the black sights'
    image is searched as well (scene 620's halos); the white sights show there too,
    at 0.67 px, on another geometry, which was taken: 6 of 18 diamonds, refused. That
    image is taken only when it fits within `HALO_RMS_PX`, and grey's sights map the
    table."""
    from calibration.fit import HALO_RMS_PX

    disc, cam, look, img, _ = render.calibration_scene(2102)
    assert look.diamond[0] > 0.5 and max(look.wood) < 0.1  # white sights, black rails
    calib = with_measured_lens(img, cam, 2102)
    assert calib.sights == "light" and calib.table == disc.table.name
    assert calib.quality["diamonds_found"] >= len(disc.table.diamonds) - 1  # (one pruned)
    assert_mapped_within_prediction(calib, disc.table, cam)
    assert HALO_RMS_PX < 0.67


def test_a_clipping_cloths_rim_is_outlined_with_its_lamp_lit_middle():
    """Benchmark scene 2310: a tournament-blue cloth clipping in blue over the whole
    table. Its colour is read from pixels clipped in two channels or more, and the
    lamp-lit middle's colour, bent by the clipping, parted from the rim's: the middle
    alone made four sides, 140-150 px off at two corners, and the frame was refused.
    Its outline covers too little of its quad (`detect.SOLID_OUTLINE`), so it is
    looked for again in the smoother copy, where the rim joins it."""
    from calibration.detect import BLUR, SOLID_OUTLINE, _find_cloth, find_cloth

    disc, cam, look, img, _ = render.calibration_scene(2310)
    assert look.cloth == "tournament_blue"
    assert _find_cloth(img, BLUR, clip_channels=2).covered < SOLID_OUTLINE
    assert find_cloth(img).covered >= SOLID_OUTLINE
    calib = with_measured_lens(img, cam, 2310)
    assert calib.table == disc.table.name
    assert_mapped_within_prediction(calib, disc.table, cam)


def test_the_rings_a_cloth_clipping_in_its_own_channel_splits_into_are_one_cloth(
        monkeypatch):
    """Benchmark scene 6256: a red cloth at 255 red over 90% of the table. With red held
    at 255 while green and blue rise toward the lamps, the cloth's chromaticity moves
    with its brightness: k-means split it into a lamp-lit middle, a ring and a rim
    further apart than one surface's clusters are joined, the middle alone made no four
    straight sides, and the frame was refused as overexposed. Where pixels clipped in
    one channel keep their colour, the clusters are joined by a longer step
    (`detect.CLIPPED_CHROMA_STEP`) and the table is calibrated."""
    import calibration.detect as detect

    disc, cam, look, img, _ = render.calibration_scene(6256)
    assert look.cloth == "red"
    xy, px = grid_truth(disc.table, cam)
    inside = np.round(px).astype(int)
    red_only = (img[inside[:, 1], inside[:, 0]] >= 250).sum(axis=1) == 1
    assert red_only.mean() > 0.5  # the scene is what it claims: red alone clips
    monkeypatch.setattr(detect, "CLIPPED_CHROMA_STEP", detect.CHROMA_STEP)
    # (and without the ring round the middle, tried since e38bbff when the middle's
    # outline is refused)
    monkeypatch.setattr(detect, "_ringed", lambda *args: (None, []))
    with pytest.raises(CalibrationError, match="overexposed"):
        detect.find_cloth(img)
    monkeypatch.undo()
    calib = with_measured_lens(img, cam, 6256)
    assert calib.table == disc.table.name
    assert_mapped_within_prediction(calib, disc.table, cam)


def test_a_refusal_of_a_cloth_clipping_in_its_own_channel_names_the_exposure_first():
    """Benchmark scene 5204: five pins on a red cloth at 255 red over 81% of the table.
    Its rings are one cloth since `detect.CLIPPED_CHROMA_STEP`, and its outline is
    found, but the pearl sights on the lit maple fit no profile well enough (a wrong
    fit, thousands of millimetres off, refused on its residuals). Before, the frame was
    refused as overexposed: the refusal still says that first, with its remedy."""
    disc, cam, look, img, _ = render.calibration_scene(5204)
    assert look.cloth == "red"
    with pytest.raises(CalibrationError, match=r"^calibration not trusted: the cloth is "
                       r"overexposed \(8\d% of the table's area clips in its own colour "
                       r"channel\): lower the camera's exposure or gain; diamond residual"):
        with_measured_lens(img, cam, 5204)


def test_a_refusal_names_rails_and_cloth_overexposed_with_the_remedy_once():
    """Benchmark scene 1309: a green cloth at 255 green beside near-white maple rails.
    Both clip, both are said, rails first (their sights are lost), and the remedy
    once."""
    disc, cam, look, img, _ = render.calibration_scene(1309)
    calib = with_measured_lens(img, cam, 1309, strict=False)
    assert not calib.ok
    first, second = calib.quality["reasons"][:2]
    assert first.startswith("the rails are overexposed (")
    assert second.startswith("the cloth is overexposed too (")
    assert " ".join(calib.quality["reasons"]).count("lower the camera's exposure") == 1


def test_head_and_foot_lost_to_a_cloth_lit_white_names_the_exposure_first(monkeypatch):
    """Benchmark scene 9832: five pins on a tan cloth lit to 255 in red and green over
    half of it. The fit is right (0.5 mm), but the starting spots' dots and the white
    ball on one are lost in the clipping, and head and foot are not told apart. The
    refusal says first that the cloth is overexposed, with the remedy; a cloth that
    does not clip is refused for the markings alone."""
    import calibration.fit as fit

    disc, cam, look, img, _ = render.calibration_scene(9832)
    assert look.cloth == "tan" and disc.name == "five_pins"
    calib = with_measured_lens(img, cam, 9832, strict=False)
    assert not calib.ok
    first, second = calib.quality["reasons"][:2]
    assert first.startswith("the cloth is overexposed (5") and first.endswith(
        "lower the camera's exposure or gain")
    assert second.startswith("head and foot cannot be told apart")
    monkeypatch.setattr(fit, "_cloth_clipped", lambda image, region: 0.0)
    calib = with_measured_lens(img, cam, 9832, strict=False)
    assert calib.quality["reasons"][0].startswith("head and foot cannot be told apart")


def test_a_fallback_search_that_half_found_its_sights_is_fitted_over_a_weak_best():
    """Benchmark scene 7172: Pool 51 at 1920 px, pearl sights 10 mm across on maple lit
    near white (red and green at 255, the sights a few levels up in blue alone). No
    search was clean: with the grain taken out 15 of 18 at 0.92 px, over the local
    median 14 at 0.79 px, and grey's best had 7 sitting well: its fit, 15 mm RMS off,
    was refused. A fallback with half a geometry's sights sitting well is now fitted
    when no image's plain search has that, and the self-check judges it: calibrated,
    the table right, the mapping within its prediction."""
    from calibration.fit import MIN_FOUND

    disc, cam, look, img, _ = render.calibration_scene(7172)
    assert look.wood[0] > 0.5 and min(look.diamond) > 0.8  # light wood, pale sights
    calib = with_measured_lens(img, cam, 7172)
    assert calib.table == disc.table.name and calib.sights == "pale"
    assert calib.quality["diamonds_found"] >= MIN_FOUND * calib.quality["diamonds_expected"]
    assert_mapped_within_prediction(calib, disc.table, cam)


def test_a_balklines_ripple_is_not_read_as_a_starting_spot():
    """Benchmark scene 8271: balkline 71/2, whose starting spots lie on the head
    balkline. With the table turned round, the foot balkline's ripple (a thin line
    crossing the pixel grid) read as a dot 4.2 grey levels up where a starting spot
    would be, against 1.3 on bare cloth; the true spot, on a worn patch, counted for
    nothing, and the view was accepted turned round, 3.2 m off. The dots must now stand
    clear of the line's own ripple: with the true camera, the dots vote neither way
    wrongly, and the calibration maps the cloth within its prediction."""
    from calibration.fit import (
        VOTE_OPEN_MM,
        _marking_noise,
        _marking_score,
        _orientation_vote,
        tophat,
    )

    disc, cam, look, img, truth = render.calibration_scene(8271)
    assert disc.name == "balkline_71_2"
    right, turned = true_and_turned(disc.table, cam, truth)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    g = cv2.GaussianBlur(gray, (3, 3), 0).astype(np.float32)
    for fitted, other, wrong in ((right, turned, -1), (turned, right, 1)):
        ppm = fitted.K[0, 0] / abs(fitted.centre[2])
        dots = tophat(gray, 30 * ppm, min_width_px=max(2.0, VOTE_OPEN_MM * ppm))
        vote = _orientation_vote(_marking_score(dots, g, fitted, disc.table, img),
                                 _marking_score(dots, g, other, disc.table, img),
                                 _marking_noise(dots, g, fitted, disc.table, img))
        assert vote != wrong
    calib = with_measured_lens(img, cam, 8271, strict=False)
    if calib.ok:
        assert_mapped_within_prediction(calib, disc.table, cam)


def test_a_starting_spot_on_a_grey_cloths_balkline_still_votes():
    """Benchmark scene 8388: balkline 71/2 on a grey cloth at 1920 px, a sharp white line
    whose ripple reads 20 grey levels as a dot; its true starting spot reads 32. Judged
    at twice the ripple, as a dot on bare cloth is, neither way round was voted and the
    frame was refused; at 1.5 times it the spot votes, the right way round, whether the
    fit came out as it is or turned."""
    from calibration.detect import find_cloth
    from calibration.fit import head_foot_vote

    disc, cam, look, img, truth = render.calibration_scene(8388)
    assert disc.name == "balkline_71_2" and look.cloth == "grey"
    right, turned = true_and_turned(disc.table, cam, truth)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    cloth = find_cloth(img).model
    assert head_foot_vote(img, gray, right, turned, disc.table, cloth) == (1, "markings")
    assert head_foot_vote(img, gray, turned, right, disc.table, cloth) == (-1, "markings")


def test_a_chalk_line_through_a_starting_spot_is_opened_away_before_the_vote():
    """Benchmark scene 796: balkline 71/2 on a grey cloth at 1920 px (0.57 px/mm). The
    head balkline through the starting spots stayed in part after the 5 mm opening, so
    the rings the spot is judged against crossed it: the spot read 30.7 grey levels
    against a ripple of 20.8 along the lines, neither way was voted and the frame was
    refused. Opened at VOTE_OPEN_MM the line goes and the spot stays: it reads many
    times the lines' ripple, and votes the right way round either way the fit came
    out."""
    from calibration.detect import find_cloth
    from calibration.fit import head_foot_vote

    disc, cam, look, img, truth = render.calibration_scene(796)
    assert disc.name == "balkline_71_2" and look.cloth == "grey" and cam.size[0] == 1920
    right, turned = true_and_turned(disc.table, cam, truth)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    cloth = find_cloth(img).model
    scores: dict = {}
    assert head_foot_vote(img, gray, right, turned, disc.table, cloth, scores) == (
        1, "markings")
    assert scores["as_fitted"][0] > 4 * scores["bare"][0]  # 1.48 times at 5 mm
    assert scores["turned"][0] < 0.5 * scores["bare"][0]
    assert head_foot_vote(img, gray, turned, right, disc.table, cloth) == (-1, "markings")


def test_a_small_frames_outline_is_kept_at_its_pixel_scatter():
    """Benchmark scene 9288: Goriziana at 1280 px (about 0.3 px/mm), pale sights on
    maple. Its cloth outline, four straight sides whose offsets agree to 3 mm, sat at
    2.04 mm RMS from the diamonds' camera, 0.6 px: under a bar of 2 mm it was dropped,
    and the diamonds alone promised 3.01 mm, refused (true 1.44 mm). Judged by what a
    pixel comes to on the cloth (fit.MAX_EDGE_RMS_PX) the outline stays in the fit,
    and the mapping is within its prediction. Its sights are the lettering fallback's:
    with the offset a rail's sights share there (fit.RAIL_SD_PX, since d666d2a) the
    promise is over the 3 mm bar again, and that is the only reason it is refused."""
    disc, cam, _, img, _ = render.calibration_scene(9288)
    assert cam.size == (1280, 720) and disc.name == "goriziana"
    calib = with_measured_lens(img, cam, 9288, strict=False)
    assert calib.lettering
    assert calib.quality["edge_points"] > 0  # 0 under the 2 mm bar
    assert_mapped_within_prediction(calib, disc.table, cam)
    reasons = calib.quality["reasons"]
    assert reasons and all(r.startswith("predicted error") for r in reasons), reasons
