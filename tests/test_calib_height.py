"""The camera height measured at installation, against the renderer's exact camera.

A near-vertical view shows its height only through the few millimetres of parallax
between the rails and the cloth; at the opening the spots that would pin it are under
the balls. A tape measure from the cloth to the lens settles it, and a view that does
show its height must catch a wrong measurement (one taken to the floor, say).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

render = pytest.importorskip("simworld.render")

from calibration import calibrate_image  # noqa: E402
from equipment import get_discipline  # noqa: E402


def _view(tilt: float, hide_markings: bool):
    disc = get_discipline("three_cushion")
    cam = render.make_camera(disc.table, (1280, 720), tilt_deg=tilt, azimuth_deg=30.0,
                             k1=-0.1, k2=0.01)
    look = render.Look.default()
    if hide_markings:  # the spots painted in the cloth's colour: nothing on the cloth
        look = replace(look, markings=tuple(float(v) for v in look.cloth_rgb()))
    img, _ = render.render_still(disc, dict(disc.opening), camera=cam, look=look, seed=1)
    gx, gy = np.meshgrid(np.linspace(0, disc.table.length, 29),
                         np.linspace(0, disc.table.width, 15))
    xy = np.column_stack([gx.ravel(), gy.ravel()])
    px = cam.project(np.column_stack([xy, np.zeros(len(xy))]))
    return img, cam, xy, px


def test_measured_height_pins_a_near_vertical_view_with_nothing_on_the_cloth():
    img, cam, xy, px = _view(1.0, hide_markings=True)
    alone = calibrate_image(img, strict=False)
    assert not alone.ok and alone.quality["predicted_max_error_mm"] > 2.5
    assert any("height" in r for r in alone.quality["reasons"])  # says what would help
    height = float(cam.position[2])
    calib = calibrate_image(img, strict=False, camera_height=height + 40.0,
                            camera_height_sd=50.0)
    err = np.linalg.norm(calib.image_to_table(px) - xy, axis=1)
    assert calib.ok, calib.quality["reasons"]
    assert err.max() < 3.0 and err.max() <= calib.quality["predicted_max_error_mm"]
    assert calib.quality["predicted_max_error_mm"] < 0.6 * alone.quality[
        "predicted_max_error_mm"]
    assert abs(calib.quality["camera_height_mm"] - height) < 100.0


def test_a_height_measured_to_the_floor_is_caught_where_the_view_shows_its_height():
    img, cam, xy, px = _view(10.0, hide_markings=False)
    height = float(cam.position[2])
    right = calibrate_image(img, strict=False, camera_height=height - 30.0)
    assert right.ok, right.quality["reasons"]
    assert right.quality["camera_height_disagreement_sigma"] < 3.0
    floor = calibrate_image(img, strict=False, camera_height=height + 760.0)
    assert not floor.ok
    assert any("disagrees with the image" in r for r in floor.quality["reasons"])


def test_a_bad_height_is_an_error_not_a_guess():
    img, _, _, _ = _view(10.0, hide_markings=False)
    with pytest.raises(ValueError, match="positive"):
        calibrate_image(img, camera_height=-3000.0)


def test_a_video_recalibrates_once_the_balls_uncover_the_spots(tmp_path):
    """At the opening three of the four spots are under balls and a camera 1 degree off
    vertical is not trusted; after the first shot the spots are free, and the video's
    later frames must give a trusted calibration (``recalibrated``) within 3 mm."""
    import cv2

    from calibration import video_events

    disc = get_discipline("three_cushion")
    # 1920 px: at 1280 the free spots pin the cloth to a predicted 2.5 mm, on the limit
    cam = render.make_camera(disc.table, (1920, 1080), tilt_deg=1.0, azimuth_deg=30.0,
                             k1=-0.1, k2=0.01)
    moved = {oid: xy for (oid, _), xy in zip(
        disc.opening, [(400.0, 300.0), (1900.0, 1100.0), (2500.0, 500.0)], strict=True)}
    frames = [render.render_still(disc, layout, camera=cam, look=render.Look.default(),
                                  seed=2)[0] for layout in (dict(disc.opening), moved)]
    path = tmp_path / "opening_then_moved.avi"
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 1.0, (1920, 1080))
    out.set(cv2.VIDEOWRITER_PROP_QUALITY, 100)
    for img in [frames[0]] * 4 + [frames[1]] * 2:  # 4 s at the opening, then 2 s later
        out.write(img)
    out.release()
    events = video_events(path, table="carom", check_every_s=1.0, retry_every_s=2.0)
    status = [(e.t, e.extra["status"]) for e in events if e.type == "calibration"]
    assert status[0] == (0.0, "lost")  # not trusted at the opening
    assert (4.0, "recalibrated") in status, status
    assert not any(s in ("moved", "lost") for t, s in status if t > 0), status
    calib = calibrate_image(frames[1], "carom")
    gx, gy = np.meshgrid(np.linspace(0, disc.table.length, 29),
                         np.linspace(0, disc.table.width, 15))
    xy = np.column_stack([gx.ravel(), gy.ravel()])
    px = cam.project(np.column_stack([xy, np.zeros(len(xy))]))
    assert np.linalg.norm(calib.image_to_table(px) - xy, axis=1).max() < 3.0


def _ball_plane_error(calib, cam, xy, r: float) -> float:
    px = cam.project(np.column_stack([xy, np.full(len(xy), r)]))  # renderer: z up
    return float(np.linalg.norm(calib.image_to_table(px, r) - xy, axis=1).max())


def test_the_self_check_also_predicts_the_error_where_the_balls_are():
    """The rail tops (42 mm) lie nearer the balls' centres (30.75 mm) than the cloth, so
    the height a near-vertical view hides moves the balls' plane less: its own
    prediction is smaller, and still bounds the true error there."""
    from calibration.fit import ball_centre_height

    r = ball_centre_height(get_discipline("three_cushion").table)
    assert r == pytest.approx(30.75)
    img, cam, xy, px = _view(1.0, hide_markings=False)
    calib = calibrate_image(img, strict=False)
    q = calib.quality
    cloth = float(np.linalg.norm(calib.image_to_table(px) - xy, axis=1).max())
    assert not calib.ok and q["predicted_max_error_mm"] > 2.5
    assert cloth <= q["predicted_max_error_mm"]
    assert q["predicted_ball_error_mm"] < 0.5 * q["predicted_max_error_mm"]
    assert _ball_plane_error(calib, cam, xy, r) <= q["predicted_ball_error_mm"]
    # a tilted view is trusted; its height still trades with the principal point, so
    # there too the balls' plane is predicted no worse than the cloth
    img, cam, xy, px = _view(10.0, hide_markings=False)
    tilted = calibrate_image(img, strict=False)
    q = tilted.quality
    assert tilted.ok, q["reasons"]
    assert q["predicted_ball_error_mm"] <= q["predicted_max_error_mm"]
    assert _ball_plane_error(tilted, cam, xy, r) <= q["predicted_ball_error_mm"]
