"""Shortcuts in the camera fit and the sights' images (calibration/fit.py, detect.py)
against the plain computations they stand for: each must give the same numbers."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from opencv4 import as_opencv4

from calibration.camera import CameraModel
from calibration.detect import sight_image
from calibration.fit import N_CAMERA, N_PARAMS, _backproject, _line_fit, _params


def test_a_jacobian_batch_casts_each_row_as_alone():
    """The Jacobian's rows are the first with one parameter stepped; rows stepped in an
    edge offset alone share the first's rays, those stepped in the pose its lens. Each
    row's back-projection is the one it gets alone, bit for bit."""
    rng = np.random.default_rng(2)
    p = np.array([1500.0, -0.08, 0.01, 0.001, -0.0005, 3.1, 0.05, -0.02,
                  -1400.0, -700.0, 3000.0, 960.0, 540.0, 5.0, 6.0, 7.0, 8.0])
    assert len(p) == N_PARAMS
    P = np.repeat(p[None], N_PARAMS + 1, axis=0)
    P[1:] += np.diag(1e-6 * np.maximum(np.abs(p), 1.0))
    px = rng.uniform([0, 0], [1920, 1080], (60, 2))
    z = rng.choice([0.0, -37.0, -44.0], 60)
    batch = _backproject(px, P, z)
    assert batch.shape == (N_PARAMS + 1, 60, 2)
    for row, q in zip(P, batch, strict=True):
        assert np.array_equal(q, _backproject(px, row[None], z)[0])
    # the edge-offset rows (the last four) cast the first row's rays
    assert all(np.array_equal(batch[0], batch[1 + i]) for i in range(N_CAMERA, N_PARAMS))


def test_the_fits_rays_are_eight_fixed_point_steps_and_land_where_the_camera_looks():
    """The fit undistorts with OpenCV: the same eight fixed-point steps as the plain
    NumPy loop it replaced, to rounding; and the points it casts onto the cloth and the
    rail tops are where a camera model with that lens projected them from."""
    cam = CameraModel(np.array([[1500.0, 0, 955.0], [0, 1500.0, 548.0], [0, 0, 1]]),
                      np.array([-0.14, 0.03, 0.0012, -0.0007, 0.0]),
                      np.array([0.12, -0.06, 0.03]), np.array([-1420.0, -710.0, 3100.0]),
                      (1920, 1080))
    rng = np.random.default_rng(5)
    xy = rng.uniform([-100, -100], [2940, 1520], (80, 2))
    height = rng.choice([0.0, 37.0, 44.0], 80)
    px = cam.table_to_image(xy, height)
    P = _params(cam, np.zeros(4))[None]
    got = _backproject(px, P, -height)[0]
    assert np.abs(got - xy).max() < 0.01  # mm: eight steps suffice for this lens
    # the plain loop, over the same pixels
    f, (k1, k2, p1, p2), (cx, cy) = cam.K[0, 0], cam.dist[:4], cam.K[:2, 2]
    xd, yd = (px[:, 0] - cx) / f, (px[:, 1] - cy) / f
    x, y = xd, yd
    for _ in range(8):
        r2 = x * x + y * y
        rad = 1 + r2 * (k1 + r2 * k2)
        x, y = ((xd - (2 * p1 * x * y + p2 * (r2 + 2 * x * x))) / rad,
                (yd - (p1 * (r2 + 2 * y * y) + 2 * p2 * x * y)) / rad)
    R = cv2.Rodrigues(cam.rvec)[0]
    rays = np.column_stack([x, y, np.ones(len(x))]) @ R
    centre = -R.T @ cam.tvec
    plain = centre[:2] + rays[:, :2] * ((-height - centre[2]) / rays[:, 2])[:, None]
    assert np.abs(got - plain).max() < 1e-9


def test_the_fits_rays_are_the_same_under_opencv_4s_names(monkeypatch):
    """OpenCV 4's undistortPoints refuses the stopping criteria (every fit failed and
    every frame was refused there, before the fit asked for the name the release has):
    under OpenCV 4's names the rays are the same, bit for bit."""
    rng = np.random.default_rng(3)
    p = np.array([1500.0, -0.14, 0.03, 0.0012, -0.0007, 3.1, 0.05, -0.02,
                  -1400.0, -700.0, 3000.0, 955.0, 548.0, 0.0, 0.0, 0.0, 0.0])
    px = rng.uniform([0, 0], [1920, 1080], (40, 2))
    z = np.zeros(40)
    before = _backproject(px, p[None], z)
    as_opencv4(monkeypatch)
    with pytest.raises(cv2.error):  # OpenCV 4's undistortPoints, asked for 8 steps
        cv2.undistortPoints(px.reshape(-1, 1, 2), np.eye(3), np.zeros(5), None, None,
                            None, (cv2.TERM_CRITERIA_COUNT, 8, 0.0))
    assert np.array_equal(_backproject(px, p[None], z), before)


def test_the_ridge_line_fit_is_polyfits():
    rng = np.random.default_rng(8)
    for n in (4, 9, 30):
        x = np.sort(rng.uniform(-15, 15, n))
        for dtype in (np.float32, np.float64):
            y = rng.normal(90, 15, n).astype(dtype)
            assert tuple(np.polyfit(x, y, 1)) == _line_fit(x, y)


def test_the_sights_images_are_the_channels_min_and_inverted_max():
    img = np.random.default_rng(1).integers(0, 256, (37, 53, 3), np.uint8)
    assert np.array_equal(sight_image(img, "pale"), img.min(axis=2))
    assert np.array_equal(sight_image(img, "dark"), 255 - img.max(axis=2))
    # a view of a larger frame (a crop) as well
    crop = img[5:30, 7:40]
    assert np.array_equal(sight_image(crop, "pale"), crop.min(axis=2))


@pytest.mark.parametrize("way", ["across", "along"])
def test_a_rails_shared_offset_moves_the_mapping_as_the_self_check_reckons(way):
    """The self-check's rail term (fit._rail_shifts, for the cascade's fallbacks) is the
    Gauss-Newton step of the fit: a pyramid table's foot-rail sights all seen half a
    pixel further out (or along the rail), refitted, move the cloth's mapping as that
    step says."""
    from calibration.fit import (
        ROBUST_SCALE,
        Observations,
        _camera,
        _cloth_grid,
        _rail_shifts,
        fit_camera,
        weighted_fit,
    )
    from equipment import get_table
    from simworld.render.camera import random_camera

    table, size = get_table("pyramid"), (1280, 720)
    sim = random_camera(table, np.random.default_rng(4), size, max_tilt_deg=18.0)
    cam = CameraModel(sim.K, sim.dist, sim.rvec, sim.tvec, size)
    dia, top = np.array(table.diamonds, float), table.rail_top_height
    seen = cam.table_to_image(dia, top)
    assert np.allclose(seen, sim.project(np.column_stack([dia, np.full(len(dia), top)])))
    seen += np.random.default_rng(5).normal(0.0, 0.15, seen.shape)
    obs = Observations(diamonds=dict(enumerate(seen)))
    f = float(cam.K[0, 0])
    cam1, offs, (res, prob, obs) = fit_camera(table, size, obs, cam, np.zeros(4), f)
    cam1, offs, (res, prob, obs) = weighted_fit(table, size, obs, cam1, offs, prob, res.x)
    shift = 0.5
    sd = (shift, 0.0) if way == "across" else (0.0, shift)
    column = _rail_shifts(table, size, res, prob, sd)["foot", way]
    J = res.jac[:-4]
    step = -np.linalg.pinv(J.T @ J) @ (J.T @ column)
    # the refit: the foot rail's sights moved by `shift` px in the image, outward (+x on
    # the table) or along the rail (+y)
    foot = [k for k, (x, _) in enumerate(dia) if x > table.length]
    unit = [10.0, 0.0] if way == "across" else [0.0, 10.0]
    out = cam1.table_to_image(dia[foot] + unit, top) - cam1.table_to_image(dia[foot], top)
    moved = dict(obs.diamonds)
    for k, u in zip(foot, out / np.linalg.norm(out, axis=1, keepdims=True), strict=True):
        moved[k] = moved[k] + shift * u
    cam2, _, _ = fit_camera(table, size, Observations(diamonds=moved), cam1, offs, f,
                            max_nfev=100, passes=1, weights=prob.weights, f_scale=ROBUST_SCALE)
    xy = _cloth_grid(table)
    px = cam1.table_to_image(xy)
    refit = cam2.image_to_table(px) - xy
    stepped = _camera(res.x + np.pad(step, (0, len(res.x) - len(step))), size)
    stepped = stepped.image_to_table(px) - xy
    assert np.abs(refit).max() > 0.5  # mm: half a pixel at the foot moves the foot end
    assert np.abs(stepped - refit).max() < 0.1 * np.abs(refit).max()


def test_the_chalk_lines_residuals_are_whitened_for_an_offset_each_line_shares(monkeypatch):
    """fit._Problem.lines_whitened stands for the chalk-line points' covariance, sigma^2
    per point and tau^2 shared by the points of one line (fit.LINE_SD_MM): its squared
    norm is r^T C^-1 r, and a whole line moved by d mm costs (d / tau)^2 at most,
    however many points it has (with tau = 0, the points alone: n (d / sigma)^2)."""
    from calibration import fit
    from calibration.fit import LINE_SD_MM, Observations, _Problem
    from equipment import get_table

    table = get_table("carom_balkline_47")
    rng = np.random.default_rng(7)
    line = np.repeat([0, 1, 2], [40, 25, 9])
    n = len(line)
    obs = Observations(lines=(rng.uniform(0, 1000, (n, 2)), np.zeros((n, 2)),
                              np.tile([0.0, 1.0], (n, 1)), line))
    prob = _Problem(table, (1920, 1080), obs, 1500.0)
    sigma, tau = 0.8, LINE_SD_MM
    r = rng.normal(0.0, 1.0, (1, n)) + np.array([1.3, -0.4, 0.9])[line]
    C = sigma ** 2 * np.eye(n) + tau ** 2 * (line[:, None] == line[None, :])
    w = prob.lines_whitened(r, 1.0 / sigma)[0]
    assert np.isclose(w @ w, r[0] @ np.linalg.solve(C, r[0]))
    moved = np.where(line == 0, 2.0, 0.0)[None]  # line 0 chalked 2 mm off, exactly
    cost = float(np.sum(prob.lines_whitened(moved, 1.0 / sigma) ** 2))
    assert (2.0 / tau) ** 2 * 0.9 < cost < (2.0 / tau) ** 2
    monkeypatch.setattr(fit, "LINE_SD_MM", 0.0)
    alone = float(np.sum(prob.lines_whitened(moved, 1.0 / sigma) ** 2))
    assert np.isclose(alone, 40 * (2.0 / sigma) ** 2)


def test_the_weighted_fits_take_a_sights_scatter_alike_in_pixels():
    """fit._Problem.diamond_scales: sights seen with the same pixel noise everywhere
    scatter more, in table mm, on the far side of a tilted view (seen smaller); taken
    times their scale they scatter alike, as the self-check's one sigma for all
    diamonds assumes (benchmark scene 12370, a pyramid at 1280 px and 19 deg: the truth
    had come to its promise)."""
    from calibration.fit import Observations, _Problem
    from equipment import get_table
    from simworld.render.camera import random_camera

    table, size = get_table("pyramid"), (1280, 720)
    sim = random_camera(table, np.random.default_rng(4), size, max_tilt_deg=18.0)
    cam = CameraModel(sim.K, sim.dist, sim.rvec, sim.tvec, size)
    assert cam.tilt_deg() > 10.0
    dia, top = np.array(table.diamonds, float), table.rail_top_height
    seen = cam.table_to_image(dia, top)
    rng = np.random.default_rng(8)
    raw, scaled = [], []
    for _ in range(200):
        obs = Observations(diamonds=dict(enumerate(seen + rng.normal(0.0, 0.3, seen.shape))))
        prob = _Problem(table, size, obs, float(cam.K[0, 0]), scale_cam=cam)
        rd = prob.parts(_params(cam, np.zeros(4)))[0]
        raw.append(np.linalg.norm(rd, axis=1))
        scaled.append(np.linalg.norm(rd * prob.d_scale[:, None], axis=1))
    p = _params(cam, np.zeros(4))  # the fit's diamond rows are those scaled residuals
    assert np.allclose(prob(p)[:2 * prob.nd],
                       prob.weights[0] * (prob.parts(p)[0] * prob.d_scale[:, None]).ravel())
    order = np.argsort(prob.d_scale)
    far, near = order[: len(order) // 2], order[len(order) // 2:]

    def far_over_near(r) -> float:
        r = np.array(r)
        return float(np.sqrt(np.mean(r[:, far] ** 2)) / np.sqrt(np.mean(r[:, near] ** 2)))

    assert prob.d_scale.max() / prob.d_scale.min() > 1.3  # the view is tilted
    assert far_over_near(raw) > 1.15
    assert 0.93 < far_over_near(scaled) < 1.07
