"""The renderer's truth against independent geometry and physics.

Centres are checked against cv2.projectPoints (not the renderer's own projection),
boxes against the coloured pixels of noise-free renders, lux against the inverse
square law written out here, videos by decoding them back with OpenCV.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace

import cv2
import numpy as np
import pytest
from opencv4 import as_opencv4

from equipment import get_discipline
from simworld.render import Lamp, Look, make_camera, random_camera, render_still, render_video
from simworld.render import api as render_api
from simworld.render.camera import table_outline
from simworld.render.renderer import decode_pixels
from tracking import STATES, Stroke, TrackedObject, Trajectory

CAROM = get_discipline("three_cushion")
CLEAN = Look(noise=False, player=False, vignette=0.0, graphics=False)


DOWN = np.array([1.0, 1.0, -1.0])  # (x, y, height) -> the z-down table frame


def cv2_project(truth, xyz) -> np.ndarray:
    """OpenCV's projection of points (x, y, height above the cloth) with the truth's pose."""
    pts = np.asarray(xyz, float).reshape(-1, 3) * DOWN
    px, _ = cv2.projectPoints(pts.reshape(-1, 1, 3), truth.rvec, truth.tvec,
                              truth.K, truth.dist)
    return px.reshape(-1, 2)


def example_trajectory(n_frames: int = 11, fps: float = 50.0, stroke_t: float = 0.04,
                       direction=(0.8, 0.6), speed: float = 3200.0) -> Trajectory:
    """docs/trajectory.md's example: three-cushion opening, the white struck at stroke_t."""
    objs = tuple(TrackedObject(b.id, "ball", b.diameter) for b in CAROM.balls)
    opening = dict(CAROM.opening)
    pos = np.array([[opening[o.id] for o in objs]] * n_frames, float)
    t = np.arange(n_frames) / fps
    moved = np.clip(t - stroke_t, 0, None) * speed
    pos[:, 0, 0] += direction[0] * moved
    pos[:, 0, 1] += direction[1] * moved
    states = np.zeros((n_frames, len(objs)), np.int8)
    states[:, 0] = np.where(t >= stroke_t, STATES.index("moving"), STATES.index("resting"))
    return Trajectory("three_cushion", "carom", fps, objs, pos, states,
                      np.ones((n_frames, len(objs)), bool),
                      strokes=(Stroke(stroke_t, "white", direction, speed),),
                      meta={"scenario": "example"})


# ----------------------------------------------------------------------- camera


def test_random_cameras_principal_points_spread_and_leave_other_draws_alone():
    """Lenses' principal points lie off the frame's centre by PRINCIPAL_SD of the width
    (1 sigma per axis), drawn from a spawned generator: the caller's stream goes on
    exactly as if no principal point had been drawn."""
    from simworld.render.camera import PRINCIPAL_SD

    table = get_discipline("three_cushion").table
    rng = np.random.default_rng(11)
    offsets = []
    for _ in range(200):
        cam = random_camera(table, rng, size=(1920, 1080), max_tilt_deg=20)
        offsets.append(cam.K[:2, 2] - [959.5, 539.5])
    sd = np.std(offsets, axis=0) / 1920
    assert np.all(np.abs(sd / PRINCIPAL_SD - 1) < 0.15), sd
    # the same draws but the principal point's: the stream after them is the same
    a, b = np.random.default_rng(5), np.random.default_rng(5)
    random_camera(table, a, size=(1280, 720))
    for _ in range(11):  # tilt, azimuth, roll, field, k1, k2, p1, p2, margin, 2 offsets
        b.random()
    b.random()  # the flip
    assert a.random() == b.random()


def test_the_cameras_rays_are_the_same_under_opencv_4s_names(monkeypatch):
    """The world's camera undistorts with OpenCV's iterative inverse, which OpenCV 4 and
    5 name differently (tests/opencv4.py): the same pixels give the same rays, bit for
    bit, under either's names."""
    cam = make_camera(get_discipline("three_cushion").table, size=(1920, 1080),
                      tilt_deg=14.0, k1=-0.2, k2=0.04, p=(0.001, -0.0008))
    px = np.random.default_rng(4).uniform([0, 0], [1919, 1079], (60, 2))
    before = cam.undistort_pixels(px)
    back = cam.distort_normalized(before) @ cam.K[:2, :2].T + cam.K[:2, 2]
    assert np.abs(back - px).max() < 1e-6  # px: they are the pixels' rays
    as_opencv4(monkeypatch)
    assert np.array_equal(cam.undistort_pixels(px), before)


@pytest.mark.parametrize("table_name", ["carom", "italian_pins", "pyramid", "pool51"])
def test_random_cameras_see_the_whole_table_and_match_opencv(table_name):
    disc = next(d for d in map(get_discipline, ["three_cushion", "goriziana",
                                                 "russian_pyramid", "pool51"])
                if d.table_name == table_name)
    rng = np.random.default_rng(7)
    for _ in range(15):
        cam = random_camera(disc.table, rng, size=(1280, 720), max_tilt_deg=20)
        px = cam.project(table_outline(disc.table))
        assert np.all((px >= 0) & (px <= [1279, 719])), "rails out of view"
        axis = cam.R[2]  # optical axis in world
        tilt = math.degrees(math.acos(axis[2]))  # z-down frame: the table is at +z
        assert tilt <= 22.0
        pts = np.column_stack([rng.uniform(0, disc.table.length, 50),
                               rng.uniform(0, disc.table.width, 50), rng.uniform(0, 60, 50)])
        ref, _ = cv2.projectPoints((pts * DOWN).reshape(-1, 1, 3), cam.rvec, cam.tvec, cam.K,
                                   cam.dist)
        assert np.abs(cam.project(pts) - ref.reshape(-1, 2)).max() < 1e-6
        # the homography maps the cloth plane to undistorted pixels
        flat = pts.copy()
        flat[:, 2] = 0
        und = cv2.undistortPoints(cam.project(flat).reshape(-1, 1, 2), cam.K, cam.dist, P=cam.K,
                                  criteria=(cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS,
                                            50, 1e-12)).reshape(-1, 2)
        h = np.column_stack([flat[:, :2], np.ones(len(flat))]) @ cam.homography().T
        assert np.abs(h[:, :2] / h[:, 2:] - und).max() < 0.05


# ----------------------------------------------------------------------- stills


def test_still_centres_match_independent_projection_and_boxes_hold_colour():
    cam = make_camera(CAROM.table, (1280, 720), tilt_deg=17, azimuth_deg=30, roll_deg=3,
                      hfov_deg=70, k1=-0.18, k2=0.03)
    layout = {"white": (300.0, 200.0), "yellow": (2500.0, 1250.0), "red": (1420.0, 700.0)}
    img, truth = render_still(CAROM, layout, camera=cam, look=CLEAN, seed=1)
    assert img.shape == (720, 1280, 3) and img.dtype == np.uint8
    for oid, (x, y) in layout.items():
        r = CAROM.ball(oid).radius
        ref = cv2_project(truth, [x, y, r])[0]
        got = np.array(truth.objects[oid].centre)
        assert np.hypot(*(got - ref)) < 0.5
        assert truth.objects[oid].visible == pytest.approx(1.0)
        # box about one projected diameter wide
        x0, y0, x1, y1 = truth.objects[oid].box
        edge = cv2_project(truth, [[x - r, y, r], [x + r, y, r], [x, y - r, r], [x, y + r, r]])
        diam = max(np.ptp(edge[:, 0]), np.ptp(edge[:, 1]))
        assert 0.8 * diam < max(x1 - x0, y1 - y0) < 1.3 * diam + 2
        assert x0 <= ref[0] <= x1 and y0 <= ref[1] <= y1
    # the drawn ball is where the truth says: centroid of the pixels it changed
    empty, _ = render_still(CAROM, {}, camera=cam, look=CLEAN, seed=1)
    diff = np.abs(img.astype(int) - empty.astype(int)).sum(axis=2)
    for oid in layout:
        x0, y0, x1, y1 = (int(round(v)) for v in truth.objects[oid].box)
        win = diff[y0 - 3:y1 + 4, x0 - 3:x1 + 4]
        ys, xs = np.nonzero(win > 120)  # the ball, not its faint shadow
        centroid = np.array([xs.mean() + x0 - 3, ys.mean() + y0 - 3])
        # (the unlit side blends into the cloth and pulls the centroid toward the lamps
        # by up to ~1 px; a misplaced ball would be off by its radius, ~11 px)
        assert np.hypot(*(centroid - truth.objects[oid].centre)) < 1.5, oid
    b, g, r_ = (img[..., k].astype(int) for k in range(3))
    colour_pixels = {"red": (r_ > 90) & (r_ > 2 * g + 20) & (r_ > 2 * b + 20),
                     "yellow": (r_ > 120) & (g > 90) & (b < 0.45 * g)}
    for oid, mask in colour_pixels.items():
        ys, xs = np.nonzero(mask)
        assert len(xs) > 30, f"no {oid} pixels found"
        x0, y0, x1, y1 = truth.objects[oid].box
        inside = (xs >= x0) & (xs <= x1) & (ys >= y0) & (ys <= y1)
        assert inside.all(), f"{oid} pixels outside its box"


def test_nearer_ball_hides_the_farther_one_on_a_tilted_camera():
    cam = make_camera(CAROM.table, (1280, 720), tilt_deg=20, azimuth_deg=0, hfov_deg=50)
    # the camera leans toward the foot (+x): of two touching balls the one nearer the
    # foot is nearer the camera, and its outline covers a sliver of the other's
    layout = {"white": (1000.0, 700.0), "yellow": (1061.6, 700.0), "red": (2000.0, 300.0)}
    near = np.linalg.norm(cam.to_camera(np.array([[1061.6, 700.0, 30.75]])))
    far = np.linalg.norm(cam.to_camera(np.array([[1000.0, 700.0, 30.75]])))
    assert near < far
    _, truth = render_still(CAROM, layout, camera=cam, look=CLEAN)
    assert truth.objects["yellow"].visible == pytest.approx(1.0)
    assert 0.9 < truth.objects["white"].visible < 0.995
    assert truth.objects["red"].visible == pytest.approx(1.0)


def test_still_is_reproducible_for_a_seed():
    layout = dict(CAROM.opening)
    render_api._STILL_CACHE.clear()
    a, ta = render_still(CAROM, layout, seed=5)
    render_api._STILL_CACHE.clear()
    b, tb = render_still(CAROM, layout, seed=5)
    c, _ = render_still(CAROM, layout, seed=6)
    assert np.array_equal(a, b)
    assert ta.objects["red"].box == tb.objects["red"].box
    assert not np.array_equal(a, c)  # other noise, other texture


def test_pins_standing_and_fallen():
    disc = get_discipline("goriziana")
    fallen = {"pin_head": (1300.0, 690.0, 0.7)}
    img, truth = render_still(disc, dict(disc.opening), look=CLEAN, fallen_pins=fallen,
                              standing_pins=["pin_centre", "pin_foot"])
    assert truth.objects["pin_head"].state == "fallen"
    assert truth.objects["pin_centre"].state == "standing"
    assert "pin_left" not in truth.objects
    x, y, a = fallen["pin_head"]
    lying = [x + 12.5 * math.cos(a), y + 12.5 * math.sin(a), 4.6]  # docs/renderer.md
    assert np.hypot(*(np.array(truth.objects["pin_head"].centre)
                      - cv2_project(truth, lying)[0])) < 0.5
    base = dict((p.id, p.position) for p in disc.pins)["pin_centre"]
    assert np.hypot(*(np.array(truth.objects["pin_centre"].centre)
                      - cv2_project(truth, [*base, 12.5])[0])) < 0.5
    for pid in ("pin_centre", "pin_foot", "pin_head"):
        o = truth.objects[pid]
        assert o.box is not None and o.visible > 0.9
        assert o.box[0] <= o.centre[0] <= o.box[2] and o.box[1] <= o.centre[1] <= o.box[3]


# ----------------------------------------------------------------------- light


def _lamp(h: float, intensity: float, u: float, v: float, size: float = 0.0) -> Lamp:
    return Lamp(u=u, v=v, height=h, intensity=intensity, size=size)


def test_lux_map_follows_inverse_square_and_cosine_law():
    t = CAROM.table
    nx, ny = 20, 10
    u, v = 10.5 / nx, 5.5 / ny  # right above the centre of cell (10, 5)
    h, intensity = 850.0, 1000.0
    look = replace(CLEAN, lamps=(_lamp(h, intensity, u, v),), ambient_lux=0.0)
    _, truth = render_still(CAROM, {}, look=look)
    assert truth.lux.shape == (nx, ny)
    assert truth.lux[10, 5] == pytest.approx(intensity / (h / 1000) ** 2, rel=1e-6)
    for i, j in ((0, 0), (3, 7), (15, 2), (19, 9)):
        dx = truth.lux_x[i] - u * t.length
        dy = truth.lux_y[j] - v * t.width
        d = math.sqrt(dx * dx + dy * dy + h * h) / 1000
        assert truth.lux[i, j] == pytest.approx(intensity * (h / 1000) / d ** 3, rel=1e-6)
    # an area lamp looks like a point lamp from far away, and is dimmer right below
    area = replace(look, lamps=(_lamp(h, intensity, u, v, size=400.0),))
    _, ta = render_still(CAROM, {}, look=area)
    assert ta.lux[10, 5] < truth.lux[10, 5]
    assert ta.lux[0, 0] == pytest.approx(truth.lux[0, 0], rel=0.03)


def test_fixed_exposure_brightness_measures_lux():
    """Cloth pixels of a noise-free fixed-exposure render give back the truth's lux."""
    look = replace(CLEAN, cloth="grey", cloth_texture=0.0, cloth_wear=0.0,
                   lamps=(_lamp(850, 900, 0.25, 0.5, 300), _lamp(820, 700, 0.75, 0.4, 300)),
                   ambient_lux=30.0)
    _, truth = render_still(CAROM, {}, look=look)
    img, _ = render_still(CAROM, {}, look=look)
    albedo = np.array(CLOTHS_GREY) * np.array(look.lamp_tint)
    k = look.sensitivity * look.exposure * look.gain
    errors = []
    for i in range(1, 20, 3):
        for j in (1, 3, 6, 8):
            x, y = truth.lux_x[i], truth.lux_y[j]
            u, v = np.round(cv2_project(truth, [x, y, 0.0])[0]).astype(int)
            patch = img[v - 2:v + 3, u - 2:u + 3, ::-1].reshape(-1, 3)
            lin = decode_pixels(np.median(patch, axis=0))
            est = float(lin[1] / (k * albedo[1]))
            errors.append(est / truth.lux[i, j] - 1)
    assert np.max(np.abs(errors)) < 0.04


CLOTHS_GREY = (0.110, 0.115, 0.120)


def test_auto_exposure_hides_lux_and_records_the_exposure():
    dim = replace(CLEAN, auto_exposure=True, lamps=tuple(replace(lp, intensity=500.0)
                                                         for lp in CLEAN.lamps))
    bright = replace(dim, lamps=tuple(replace(lp, intensity=1500.0) for lp in dim.lamps))
    img_d, td = render_still(CAROM, {}, look=dim)
    img_b, tb = render_still(CAROM, {}, look=bright)
    assert td.auto_exposure and tb.auto_exposure
    assert tb.lux.mean() > 2.5 * td.lux.mean()
    centre = np.round(cv2_project(tb, [1420.0, 500.0, 0.0])[0]).astype(int)
    win = (slice(centre[1] - 10, centre[1] + 10), slice(centre[0] - 10, centre[0] + 10))
    assert img_b[win].mean() == pytest.approx(img_d[win].mean(), rel=0.06)
    assert td.exposure / tb.exposure == pytest.approx(3.0, rel=0.1)


def test_motion_blur_stays_inside_the_box():
    from simworld.render.api import TrajectorySampler
    from simworld.render.renderer import ClipRenderer

    speed = 4000.0
    traj = example_trajectory(n_frames=20, fps=50.0, stroke_t=0.0, direction=(0.0, 1.0),
                              speed=speed)
    red = traj.index("red")
    traj.positions[:, red] = traj.positions[:, 0]  # the red takes the white's path
    traj.positions[:, 0] = (2500.0, 300.0)
    traj.states[:, red], traj.states[:, 0] = traj.states[:, 0].copy(), 0
    look = replace(CLEAN, exposure=1 / 60, sensitivity=0.2 / (250 / 60))
    cam = make_camera(CAROM.table, (1280, 720), tilt_deg=0.0, roll_deg=0.0, k1=-0.05)
    r = ClipRenderer(CAROM, cam, look, 0)
    t = 0.1
    img, truth = r.render(5, t, TrajectorySampler(traj, CAROM, 0).poses(t))
    x0, y0, x1, y1 = truth.objects["red"].box
    b, g, r_ = (img[..., k].astype(int) for k in range(3))
    ys, xs = np.nonzero((r_ > 60) & (r_ > 2 * g + 15) & (r_ > 2 * b + 15))
    assert len(xs) > 30
    assert ((xs >= x0) & (xs <= x1) & (ys >= y0) & (ys <= y1)).all()
    # the streak: one diameter plus the travel during the exposure, along the motion
    f = truth.K[0, 0]
    depth = float(cam.to_camera(np.array([[1420.0, 710.0, 30.0]]))[0, 2])
    diam_px = f * 61.5 / depth
    blur_px = f * speed / 60 / depth
    length = y1 - y0  # table y runs along image rows for this camera
    # coverage ramps up over one diameter at each end of the streak; the box starts where
    # it reaches a quarter of its peak (docs/renderer.md)
    assert blur_px + 0.4 * diam_px < length < blur_px + diam_px + 2
    assert x1 - x0 == pytest.approx(diam_px, rel=0.2)
    assert truth.objects["red"].visible == pytest.approx(1.0)


def test_flicker_integrates_out_over_a_whole_mains_period():
    from types import SimpleNamespace

    from simworld.render.renderer import ClipRenderer

    lamps = (Lamp(0.5, 0.5, flicker=0.2),)
    ts = np.linspace(0, 0.02, 41)

    def weights(exposure):
        fake = SimpleNamespace(look=Look(lamps=lamps), exposure=exposure)
        return np.array([ClipRenderer.lamp_weights(fake, t)[0] for t in ts])

    short = weights(1 / 2000)  # ~ the instantaneous 100 Hz ripple
    assert short.max() - short.min() == pytest.approx(0.4, rel=0.05)
    assert short.mean() == pytest.approx(1.0, abs=0.01)
    assert np.allclose(weights(1 / 100), 1.0)  # one full period: no ripple
    fail = SimpleNamespace(look=Look(lamps=(Lamp(0.5, 0.5, off_at=0.5, on_at=0.8),)),
                           exposure=1 / 250)
    assert [ClipRenderer.lamp_weights(fail, t)[0] for t in (0.4, 0.6, 0.9)] == [1, 0, 1]


def test_still_with_the_player_hides_balls():
    layout = {"white": (900.0, 700.0), "yellow": (610.0, 700.0), "red": (2200.0, 900.0)}
    stroke = Stroke(0.0, "white", (1.0, 0.0), 3000.0)
    _, alone = render_still(CAROM, layout, look=CLEAN)
    _, played = render_still(CAROM, layout, look=CLEAN, stroke=stroke, t=-0.05)
    assert alone.objects["yellow"].visible == pytest.approx(1.0)
    assert played.objects["yellow"].visible < 0.5  # under the bridge hand
    assert played.objects["red"].visible == pytest.approx(1.0)
    assert "player" in played.occluders and "player" not in alone.occluders


# ----------------------------------------------------------------------- video


def _decode(path) -> tuple[int, tuple[int, int]]:
    cap = cv2.VideoCapture(str(path))
    n, size = 0, None
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        n += 1
        size = (frame.shape[1], frame.shape[0])
    cap.release()
    return n, size


@pytest.mark.parametrize("size,fps", [((1280, 720), 25.0), ((1920, 1080), 60.0)])
def test_example_trajectory_renders_to_playable_h264(tmp_path, size, fps):
    import imageio_ffmpeg

    traj = example_trajectory(n_frames=11, fps=50.0)  # 0.2 s
    src = tmp_path / "example.trajectory.json"
    traj.save(src)
    traj = Trajectory.load(src)
    cam = make_camera(CAROM.table, size, tilt_deg=8, azimuth_deg=100, k1=-0.1)
    out = tmp_path / "clip.mp4"
    truth_file = render_video(traj, out, camera=cam, seed=2, fps=fps)
    assert truth_file == tmp_path / "clip.truth.json"
    truth = json.loads(truth_file.read_text())
    expected = int(math.floor(0.2 * fps + 1e-9)) + 1
    assert truth["n_frames"] == expected
    assert _decode(out) == (expected, size)
    reader = imageio_ffmpeg.read_frames(str(out))
    meta = next(reader)
    reader.close()
    assert meta["codec"].startswith("h264") and meta["pix_fmt"].startswith("yuv420p")
    assert out.read_bytes()[:64].find(b"ftyp") >= 0
    assert out.read_bytes().find(b"moov") < out.read_bytes().find(b"mdat")  # faststart
    # resampled centres: the ball's table position at t = k / fps, projected by OpenCV
    c = truth["camera"]
    K, dist = np.array(c["K"]), np.array(c["dist"])
    rvec, tvec = np.array(c["rvec"]), np.array(c["tvec"])
    r = CAROM.ball("white").radius
    for k in range(expected):
        t = k / fps
        x = traj.positions[0, 0, 0] + 0.8 * 3200 * max(t - 0.04, 0)
        y = traj.positions[0, 0, 1] + 0.6 * 3200 * max(t - 0.04, 0)
        ref, _ = cv2.projectPoints(np.array([[x, y, -r]]), rvec, tvec, K, dist)
        got = truth["objects"]["white"]["centre"][k]
        assert np.hypot(*(np.array(got) - ref.ravel())) < 0.5
    corners = np.array([[0, 0, 0], [2840, 0, 0], [2840, 1420, 0], [0, 1420, 0]], float)
    ref, _ = cv2.projectPoints(corners, rvec, tvec, K, dist)
    assert np.abs(np.array(truth["landmarks_px"]["cloth_corners"])
                  - ref.reshape(-1, 2)).max() < 0.01
    diamonds = np.array([[x, y, -42.0] for x, y in CAROM.table.diamonds])
    ref, _ = cv2.projectPoints(diamonds, rvec, tvec, K, dist)
    assert np.abs(np.array(truth["diamonds_px"]) - ref.reshape(-1, 2)).max() < 0.01
    assert not list(tmp_path.glob(".*part*"))


def test_video_frames_keep_the_rendered_levels(tmp_path):
    """A frame decoded from a clip has the levels the renderer drew: FFmpeg's default
    RGB-to-YUV rounding once made every clip 3-5 levels darker and greener than its
    frames (``api.SWS_FLAGS``), a bias no camera's own encoder has."""
    traj = example_trajectory(n_frames=3, fps=25.0, stroke_t=1.0)  # nothing moves yet
    cam = make_camera(CAROM.table, (1280, 720), tilt_deg=5)
    out = tmp_path / "static.mp4"
    render_video(traj, out, camera=cam, look=CLEAN, seed=3, fps=25.0)
    cap = cv2.VideoCapture(str(out))
    ok, frame = cap.read()
    cap.release()
    assert ok
    still, _ = render_still(CAROM, dict(CAROM.opening), camera=cam, look=CLEAN, seed=3)
    # the mean over the frame per channel (bicubic rounding: -2.9, -1.4, -2.4 levels;
    # accurate: -1.3, -1.5, -0.9, the 4:2:0 chroma and the decoder's rounding)
    bias = np.mean(frame.astype(int) - still.astype(int), axis=(0, 1))
    assert np.abs(bias).max() < 2.0, bias


def test_still_as_an_h264_keyframe_keeps_levels_and_replaces_jpeg():
    """``Look.still_h264``: the still is the keyframe of an H.264 clip at its ``crf``
    (a frame grabbed from a stream) instead of a JPEG; flat greys and colours come
    back within the codec's rounding, and the frame is the one ``h264_keyframe`` gives."""
    levels = np.arange(16, 240, 32)
    flat = np.zeros((128, len(levels) * 64, 3), np.uint8)  # greys above, a green below
    flat[:64] = np.repeat(levels, 64)[:, None]
    flat[64:] = (40, 120, 30)
    for crf in (18, 28):
        back = render_api.h264_keyframe(flat, crf).astype(int)
        for i in range(len(levels)):
            patch = back[:, i * 64 + 16:i * 64 + 48]
            assert np.abs(np.median(patch[16:48], axis=(0, 1)) - levels[i]).max() <= 1
            assert np.abs(np.median(patch[80:112], axis=(0, 1)) - [40, 120, 30]).max() <= 2
    look = replace(CLEAN, noise=True, crf=26, jpeg_quality=40)
    layout = dict(CAROM.opening)
    cam = make_camera(CAROM.table, (1280, 720), tilt_deg=5)
    raw, _ = render_still(CAROM, layout, camera=cam, look=replace(look, jpeg_quality=None),
                          seed=5)
    jpeg, _ = render_still(CAROM, layout, camera=cam, look=look, seed=5)
    h264, _ = render_still(CAROM, layout, camera=cam, look=replace(look, still_h264=True),
                           seed=5)
    assert np.array_equal(h264, render_api.h264_keyframe(raw, 26))
    assert not np.array_equal(h264, jpeg) and not np.array_equal(h264, raw)


def test_player_hides_balls_near_the_stroke(tmp_path):
    """The bridge hand and cue come down on a ball right behind the cue ball."""
    traj = example_trajectory(n_frames=9, fps=25.0, stroke_t=0.2, direction=(1.0, 0.0))
    opening = dict(CAROM.opening)
    white = opening["white"]
    red_idx = traj.index("red")
    traj.positions[:, red_idx] = (white[0] - 290.0, white[1])  # under the bridge hand
    out = tmp_path / "occluded.mp4"
    truth = json.loads(render_video(traj, out, look=replace(CLEAN, player=True), fps=25.0)
                       .read_text())
    vis = truth["objects"]["red"]["visible"]
    k_stroke = 5  # t = 0.2 s
    assert vis[k_stroke] < 0.5
    assert truth["objects"]["yellow"]["visible"][k_stroke] == pytest.approx(1.0)
    player = dict((f, on) for f, on in truth["occluders"]["player"])
    assert player.get(0) is True


def test_lamp_failure_drops_lux_under_520(tmp_path):
    look = Look.default().with_failure(0, at=0.1)
    traj = example_trajectory(n_frames=11, fps=50.0)
    out = tmp_path / "fail.mp4"
    truth = json.loads(render_video(traj, out, look=replace(look, player=False), fps=25.0)
                       .read_text())
    states = truth["lux"]
    assert len(states) == 2
    assert states[0]["frames"] == [0, 2] and states[1]["frames"][0] == 3
    assert states[0]["min_lux"] >= 520 > states[1]["min_lux"]
    # the cloth below the failed lamp gets darker on the video too (fixed exposure)
    lamp = truth["lamps"][0]["position_mm"]
    c = truth["camera"]
    px, _ = cv2.projectPoints(np.array([[lamp[0], lamp[1] + 200, 0.0]]), np.array(c["rvec"]),
                              np.array(c["tvec"]), np.array(c["K"]), np.array(c["dist"]))
    u, v = np.round(px.ravel()).astype(int)
    cap = cv2.VideoCapture(str(out))
    means = []
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        means.append(float(frame[v - 4:v + 5, u - 4:u + 5, 1].mean()))
    assert np.mean(means[4:]) < 0.8 * np.mean(means[:2])


# ----------------------------------------------------------------------- bad input


def test_bad_input_fails_before_writing(tmp_path):
    traj = example_trajectory(n_frames=5)
    out = tmp_path / "x.mp4"
    pin = replace(traj, objects=traj.objects[:2] + (TrackedObject("pin_centre", "pin", 7.0),))
    with pytest.raises(ValueError, match="pin_centre"):
        render_video(pin, out)
    with pytest.raises(ValueError, match="frame rate"):
        render_video(traj, out, fps=100)
    with pytest.raises(ValueError, match="resolution"):
        make_camera(CAROM.table, (640, 480))
    with pytest.raises(OSError, match="does not exist"):
        render_video(traj, tmp_path / "missing" / "x.mp4")
    with pytest.raises(ValueError, match=".mp4"):
        render_video(traj, tmp_path / "x.avi")
    assert list(tmp_path.iterdir()) == []


def test_stopped_render_leaves_nothing(tmp_path):
    traj = example_trajectory(n_frames=11)

    def stop(k, n):
        if k == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        render_video(traj, tmp_path / "x.mp4", fps=25.0, progress=stop)
    assert list(tmp_path.iterdir()) == []


def test_cli_reports_bad_input_in_one_line(tmp_path, capsys):
    from cueref.cli import main

    src = tmp_path / "t.trajectory.json"
    example_trajectory(n_frames=5).save(src)
    assert main(["render", str(src), "-o", str(tmp_path / "c.mp4"),
                 "--resolution", "640x480"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "resolution" in err[0]
    assert main(["render", str(tmp_path / "none.json"), "-o", str(tmp_path / "c.mp4")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.trajectory.json"]


@pytest.mark.parametrize("table_name", ["carom_balkline_47", "pyramid", "pool51"])
def test_painted_markings_and_diamonds_sit_where_the_table_says(table_name):
    """The spots, chalk lines and diamonds are the calibration's ground truth: painted
    into the table texture, each must be centred on its table position to a small
    fraction of a texel, with its true area (OpenCV's anti-aliased primitives once
    shifted them by up to half a texel, 0.5-0.7 mm)."""
    from equipment.tables import TABLES
    from simworld.render.scene import LINE_WIDTH, SPOT_RADIUS, TopTexture

    table = TABLES[table_name]
    tex = TopTexture(table, Look.default(), np.random.default_rng(0))
    rng = np.random.default_rng(1)
    for _ in range(5):
        sx, sy = rng.uniform(100, table.length - 100), rng.uniform(100, table.width - 100)
        m = np.zeros(tex.shape, np.float32)
        tex._coverage(m, (sx - 6, sy - 6, sx + 6, sy + 6),
                      lambda x, y, sx=sx, sy=sy: SPOT_RADIUS - np.hypot(x - sx, y - sy))
        ys, xs = np.nonzero(m)
        w = m[ys, xs]
        u, v = tex.px(sx, sy)
        assert abs((w * xs).sum() / w.sum() - u) < 0.05
        assert abs((w * ys).sum() / w.sum() - v) < 0.05
        assert w.sum() * tex.res ** 2 == pytest.approx(math.pi * SPOT_RADIUS ** 2, rel=0.03)
        # a chalk line across the table at x = sx: its profile is centred on sx (to the
        # area sampling's own quantisation of a line about a texel wide)
        m = np.zeros(tex.shape, np.float32)
        half = LINE_WIDTH / 2
        tex._coverage(m, (sx - half, 0.0, sx + half, table.width),
                      lambda x, y, sx=sx, half=half: half - np.abs(x - sx) + 0 * y)
        row = m[int(tex.px(sx, table.width / 2)[1])]
        cols = np.arange(len(row))
        assert abs((row * cols).sum() / row.sum() - u) < 0.1
        assert row.sum() * tex.res == pytest.approx(LINE_WIDTH, rel=0.03)


def test_broadcast_rail_lettering_and_round_sights_stay_on_the_rails():
    """Sponsor lettering sits on the rail tops in the gaps, clear of the diamonds by
    more than the calibration's letter test (calibration.diamonds.TEXT_GAP_MM); a
    maker's name on the cloth stays at the head end; round sights are discs centred on
    the table's diamonds. Nothing else of the texture changes."""
    from equipment.tables import TABLES
    from simworld.render.scene import REGION_CLOTH, REGION_RAIL, TopTexture

    table = TABLES["carom"]
    plain = Look.default()
    lettered = replace(plain, rail_text=("GRAND PRIX", "CUEREF"), cloth_logo="MASTERS")
    a = TopTexture(table, plain, np.random.default_rng(3))
    b = TopTexture(table, lettered, np.random.default_rng(3))
    changed = np.any(np.abs(a.image - b.image) > 1e-4, axis=2)
    assert changed.sum() > 1000
    ys, xs = np.nonzero(changed)
    on_rail = a.codes[ys, xs] == REGION_RAIL
    x_mm, y_mm = xs * a.res + a.x0, ys * a.res + a.y0
    on_cloth = a.codes[ys, xs] == REGION_CLOTH
    assert np.all(on_rail | on_cloth)
    assert on_rail.sum() > 1000 and on_cloth.sum() > 100
    assert x_mm[on_cloth].max() < 0.15 * table.length  # the logo: at the head end
    d = np.array(table.diamonds)
    gap = np.min(np.hypot(x_mm[on_rail, None] - d[None, :, 0],
                          y_mm[on_rail, None] - d[None, :, 1]), axis=1)
    assert gap.min() > plain.diamond_size / 2 + 6.0, gap.min()

    size = 14.0
    c = TopTexture(table, replace(plain, diamond_shape="round", diamond_size=size),
                   np.random.default_rng(3))
    colour = np.asarray(plain.diamond, np.float32)
    for dx, dy in table.diamonds:
        for ox, oy in [(0, 0), (0.4 * size, 0), (0, 0.4 * size), (0.28 * size, 0.28 * size)]:
            u, v = c.px(dx + ox, dy + oy)
            assert np.allclose(c.image[int(round(float(v))), int(round(float(u)))], colour,
                               atol=0.02)
        u, v = c.px(dx + 0.7 * size, dy)  # beyond the disc: the rail's wood
        assert not np.allclose(c.image[int(round(float(v))), int(round(float(u)))], colour,
                               atol=0.1)


def test_varnished_rails_mirror_a_hall_light_where_optics_says():
    # a hall light placed on the mirror ray of a rail-top point must show there, as a
    # bright spot the size the varnish's roughness gives; a matte rail shows nothing
    disc = get_discipline("three_cushion")
    t = disc.table
    cam = make_camera(t, (1280, 720), tilt_deg=8.0, azimuth_deg=100.0)
    point = np.array([0.3 * t.length, -70.0, t.rail_top_height])
    view = (point - cam.position) / np.linalg.norm(point - cam.position)
    mirrored = view * np.array([1.0, 1.0, -1.0])
    light = point + (5000.0 - point[2]) / mirrored[2] * mirrored
    hall = ((light[0] / t.length, light[1] / t.width, 5000.0, 800.0, 80.0),)
    layout = dict(disc.opening)
    matte, _ = render_still(disc, layout, camera=cam, look=replace(Look(), hall_lights=hall))
    plain, _ = render_still(disc, layout, camera=cam, look=Look())
    assert np.abs(matte.astype(int) - plain).max() == 0  # no gloss: the hall is not seen
    glossy, _ = render_still(disc, layout, camera=cam, look=replace(
        Look(), rail_gloss=0.05, rail_roughness=0.004, hall_lights=hall))
    diff = np.abs(glossy.astype(int) - plain).max(axis=2)
    assert diff.max() > 150
    ys, xs = np.nonzero(diff > 0.5 * diff.max())
    expected = cam.project(point[None])[0]
    assert np.hypot(xs.mean() - expected[0], ys.mean() - expected[1]) < 2.0
    # the spot's size: the light's 80 mm blurred by 0.004 rad over its ~5 m path,
    # seen at the rail's scale (px per mm there), a few tens of mm across
    ppm = np.linalg.norm(cam.project((point + [50.0, 0, 0])[None])[0] - expected) / 50.0
    assert 10.0 < np.sqrt(len(xs) / np.pi) * 2 / ppm < 120.0


def test_rail_gloss_is_checked():
    with pytest.raises(ValueError, match="rail gloss"):
        Look(rail_gloss=2.0).check()


def test_rail_finishes_paint_the_rails_and_their_sights():
    """A laminate is the look's colour with almost no grain; a light-wood rail with
    black sights has each sight, at the table's diamond position, darker than the rail
    around it. random_look draws all three finishes."""
    from equipment.tables import TABLES
    from simworld.render.look import RAIL_FINISHES, random_look
    from simworld.render.scene import REGION_RAIL, TopTexture

    table = TABLES["carom"]
    navy = (0.012, 0.025, 0.09)
    lam = TopTexture(table, replace(Look.default(), wood=navy, rail_grain=0.03),
                     np.random.default_rng(5))
    wood = TopTexture(table, Look.default(), np.random.default_rng(5))
    rails = lam.codes == REGION_RAIL
    far = np.ones(rails.shape, bool)  # away from the diamonds
    for dx, dy in table.diamonds:
        u, v = lam.px(dx, dy)
        far[max(int(v) - 40, 0):int(v) + 40, max(int(u) - 40, 0):int(u) + 40] = False
    px = lam.image[rails & far]
    assert np.allclose(np.median(px, axis=0), navy, rtol=0.05)
    spread = np.std(px[:, 2]) / np.mean(px[:, 2])
    grainy = wood.image[rails & far][:, 0]
    assert spread < 0.03 < np.std(grainy) / np.mean(grainy)

    maple = replace(Look.default(), wood=(0.55, 0.36, 0.18), diamond=(0.04, 0.04, 0.04))
    tex = TopTexture(table, maple, np.random.default_rng(5))
    for dx, dy in table.diamonds:
        u, v = tex.px(dx, dy)
        centre = tex.image[int(round(float(v))), int(round(float(u)))]
        assert np.allclose(centre, maple.diamond, atol=0.02)
        side = (dx + maple.diamond_size, dy) if dy < 0 or dy > table.width \
            else (dx, dy + maple.diamond_size)
        u, v = tex.px(*side)
        assert tex.image[int(round(float(v))), int(round(float(u)))].mean() > 5 * centre.mean()
    finishes = set()
    for seed in range(60):
        lk = random_look(seed)
        finishes.add("laminate" if lk.rail_grain < 0.18 else
                      "light_wood" if lk.wood[1] > 0.2 else "wood")
    assert finishes == set(RAIL_FINISHES)


def test_calibration_scene_with_random_balls_keeps_the_scene():
    """``balls="random"`` moves the balls of a benchmark scene and nothing else: the
    same camera, the balls off their opening places; an unknown layout is refused."""
    disc, cam, _, _, opening = render_api.calibration_scene(3)
    disc2, cam2, _, _, moved = render_api.calibration_scene(3, balls="random")
    assert disc2.name == disc.name
    assert np.allclose(opening.K, moved.K) and np.allclose(opening.rvec, moved.rvec)
    assert np.allclose(opening.tvec, moved.tvec)
    shared = set(opening.objects) & set(moved.objects)
    assert shared
    assert all(np.hypot(*np.subtract(opening.objects[k].centre, moved.objects[k].centre)) > 5
               for k in shared)
    with pytest.raises(ValueError, match="ball layout"):
        render_api.calibration_scene(3, balls="rack")
