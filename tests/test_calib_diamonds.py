"""The diamond search (calibration/diamonds.py) against the renderer's exact truth.

Every expected place is the renderer's own: ``Camera.project`` of ``Table.diamonds`` at
the rail-top height. The scenes are benchmark scenes (``render.calibration_scene``) in
which the search once failed, each for the reason its test names.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

render = pytest.importorskip("simworld.render")

from calibration import diamonds as dmod  # noqa: E402
from calibration.detect import find_cloth, sight_image  # noqa: E402
from calibration.fit import GEOMETRY_GROUPS, PRUNE_RMS_PX  # noqa: E402
from equipment import DISCIPLINES  # noqa: E402
from equipment.tables import TABLES  # noqa: E402


def true_diamonds(table, cam) -> np.ndarray:
    d = np.array(table.diamonds, float)
    return cam.project(np.column_stack([d, np.full(len(d), table.rail_top_height)]))


def geometry_of(table_name: str) -> str:
    return next(rep for rep, names in GEOMETRY_GROUPS.items() if table_name in names)


def search(seed: int, geometry: str | None = None):
    """Render benchmark scene ``seed`` and look for the diamonds of ``geometry`` (the
    scene's own by default): (search result, true diamond px, frame size, disc)."""
    disc, cam, _, img, _ = render.calibration_scene(seed)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    quad = find_cloth(img).quad
    table = TABLES[geometry or geometry_of(disc.table.name)]
    size = (img.shape[1], img.shape[0])
    found = dmod.locate_diamonds(gray, {}, quad, table, size)
    return found, true_diamonds(disc.table, cam), size, (disc, cam, gray, quad)


def distance_to_truth(found: dict, truth_px: np.ndarray) -> np.ndarray:
    """Each found diamond's distance (px) to the nearest true one (the search may have
    taken the table the other way round: the diamonds are symmetric under a half turn)."""
    pts = np.array(list(found.values()))
    return np.min(np.linalg.norm(pts[:, None] - truth_px[None], axis=2), axis=1)


def test_textured_rail_and_barrel_lens_seed_31():
    """Free game, 1920 px, a strongly grained light rail, barrel distortion. The old
    stand-out test (5 robust deviations over the window) failed on the grain in small
    windows, and a plain homography at 0.8% of the width kept two mismatches while
    leaving diamonds out: 12 found, 2 of them wrong."""
    res, truth, _, _ = search(31)
    assert res is not None
    err = distance_to_truth(res.found, truth)
    assert err.max() < 1.5, err
    assert len(res.found) >= 16, len(res.found)
    assert res.model.k < -0.03  # the barrel distortion was modelled, not ignored


def test_score_graphic_over_the_rail_seed_20():
    """Moscow pyramid, 1280 px, a broadcast score bar over three diamonds of a long
    rail. Where they hide, a chalk line's end at the cushion and a letter of the bar
    were taken for diamonds (22 and 10 px off) and kept by the loose homography."""
    res, truth, _, _ = search(20)
    assert res is not None
    err = distance_to_truth(res.found, truth)
    assert err.max() < 1.5, err
    assert len(res.found) >= 14, len(res.found)


def test_small_search_radius_still_finds_the_diamonds_seed_0():
    """American pyramid, 1920 px. The camera fit asks for each diamond within 12 mm of
    where it predicts it; the stand-out test used to look only that far, where a window
    holds little but the diamond itself, and found 1 of 17."""
    disc, cam, _, img, _ = render.calibration_scene(0)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    truth = true_diamonds(disc.table, cam)
    ppm = np.linalg.norm(truth[1] - truth[0]) / np.linalg.norm(
        np.subtract(disc.table.diamonds[1], disc.table.diamonds[0]))
    th = dmod.diamond_tophat(gray, ppm, {})
    near = dmod.grow_diamonds(th, truth + 1.0, 12 * ppm, ppm)  # predicted 1 px off
    assert len(near) >= 15, len(near)
    err = np.array([np.linalg.norm(p - truth[i]) for i, p in near.items()])
    assert err.max() < 1.5, err


def test_wrong_profile_finds_no_consistent_set_on_a_carom_view():
    """Pool-table diamonds looked for on a carom table (benchmark seed 1): the pool
    pattern nearly matches a subset of the carom one, but not to the pixel: its set
    lies several times farther from the best rail-plane model than the carom set."""
    right, truth, _, (_, _, gray, quad) = search(1)
    assert right is not None and len(right.found) == 20
    assert distance_to_truth(right.found, truth).max() < 1.5
    size = (gray.shape[1], gray.shape[0])
    wrong = dmod.locate_diamonds(gray, {}, quad, TABLES["pool51"], size)
    assert wrong is None or wrong.rms_px > max(1.0, 4 * right.rms_px), \
        (wrong.rms_px, right.rms_px)


def test_rail_model_rejects_mismatches_over_random_cameras():
    """The model (homography after a radial undistortion) fits the true diamonds of the
    benchmark's random cameras (tilt, roll, k1, k2, p1, p2) within its tolerance, and
    mismatches 12-40 px off are thrown out while every true diamond is kept."""
    names = sorted(DISCIPLINES)
    rng_bad = np.random.default_rng(7)
    for seed in range(40):
        disc = DISCIPLINES[names[seed % len(names)]]
        rng = np.random.default_rng([seed, 77])
        size = [(1280, 720), (1920, 1080)][int(rng.integers(2))]
        cam = render.random_camera(disc.table, rng, size=size, max_tilt_deg=20.0)
        table = disc.table
        px = true_diamonds(table, cam)
        d = np.array(table.diamonds, float)
        ppm = np.linalg.norm(px[1] - px[0]) / np.linalg.norm(d[1] - d[0])
        dst = px + rng_bad.normal(0, 0.15, px.shape)  # blob centroids
        bad = rng_bad.choice(len(d), 3, replace=False)
        ang = rng_bad.uniform(0, 2 * np.pi, 3)
        dst[bad] += rng_bad.uniform(12, 40, (3, 1)) * np.column_stack([np.cos(ang), np.sin(ang)])
        fit = dmod.fit_rail_model(d, dst, size, dmod.tolerance_px(ppm))
        assert fit is not None, seed
        model, inl = fit
        assert not inl[bad].any(), (seed, bad, inl)
        assert inl.sum() == len(d) - 3, (seed, inl)
        good = np.setdiff1d(np.arange(len(d)), bad)
        assert np.abs(model.project(d[good]) - px[good]).max() < 2.0, seed


def test_rail_model_picks_one_blob_per_diamond_among_many():
    """Given several blobs per diamond (the diamond and letters or chalk around it, in
    random order), the model keeps the true one of each and no second one."""
    disc = DISCIPLINES["three_cushion"]
    rng = np.random.default_rng([5, 77])
    cam = render.random_camera(disc.table, rng, size=(1920, 1080), max_tilt_deg=20.0)
    d = np.array(disc.table.diamonds, float)
    px = true_diamonds(disc.table, cam)
    ppm = np.linalg.norm(px[1] - px[0]) / np.linalg.norm(d[1] - d[0])
    rng_bad = np.random.default_rng(11)
    ids, dst, true = [], [], []
    for i, p in enumerate(px):
        blobs = [p + rng_bad.normal(0, 0.15, 2)] + [
            p + rng_bad.uniform(15, 45) * ppm * np.array([np.cos(a), np.sin(a)])
            for a in rng_bad.uniform(0, 2 * np.pi, 2)]
        for j in rng_bad.permutation(3):
            ids.append(i)
            dst.append(blobs[j])
            true.append(j == 0)
    ids, true = np.array(ids), np.array(true)
    fit = dmod.fit_rail_model(d[ids], np.array(dst), (1920, 1080), dmod.tolerance_px(ppm), ids)
    assert fit is not None
    _, inl = fit
    assert (inl == true).all(), np.flatnonzero(inl != true)


def test_ransac_homography_finds_the_diamonds_among_four_blobs_each():
    """The batched RANSAC recovers a camera's rail-plane homography when each diamond
    has four blobs and one is right (the every-blob search's case), gives the same
    answer twice, and returns nothing from diamonds that all lie on one rail."""
    disc = DISCIPLINES["russian_pyramid"]
    rng = np.random.default_rng([9, 77])
    cam = render.random_camera(disc.table, rng, size=(1920, 1080), max_tilt_deg=20.0)
    d = np.array(disc.table.diamonds, float)
    px = true_diamonds(disc.table, cam)  # lens included: tolerance covers it
    H_true, _ = cv2.findHomography(d, px, 0)
    rng_bad = np.random.default_rng(3)
    ids = np.repeat(np.arange(len(d)), 4)
    dst = px[ids] + rng_bad.normal(0, 0.2, (len(ids), 2))
    wrong = np.arange(len(ids)) % 4 != 0
    dst[wrong] += rng_bad.uniform(12, 60, (wrong.sum(), 1)) * np.column_stack(
        [np.cos(a := rng_bad.uniform(0, 2 * np.pi, wrong.sum())), np.sin(a)])
    perm = rng_bad.permutation(len(ids))
    H = dmod.ransac_homography(d[ids][perm], dst[perm], 6.0, 3000, ids[perm])
    assert H is not None
    off = cv2.perspectiveTransform(d.reshape(-1, 1, 2), H).reshape(-1, 2) \
        - cv2.perspectiveTransform(d.reshape(-1, 1, 2), H_true).reshape(-1, 2)
    assert np.abs(off).max() < 2.0, np.abs(off).max()
    again = dmod.ransac_homography(d[ids][perm], dst[perm], 6.0, 3000, ids[perm])
    assert np.array_equal(H, again)
    one_rail = np.isclose(d[:, 1], d[:, 1].min())
    assert one_rail.sum() >= 4
    assert dmod.ransac_homography(d[one_rail], px[one_rail], 6.0, 200) is None


def test_ransac_batch_over_the_k_grid_matches_one_k_at_a_time():
    """The rail model's RANSAC scores one draw of samples for every k of its grid at
    once: each k's homography is the one a call for that k alone gives, bit for bit,
    with letters among the diamonds (several blobs each) and with one blob each."""
    disc = DISCIPLINES["three_cushion"]
    cam = render.random_camera(disc.table, np.random.default_rng([4, 77]), size=(1920, 1080),
                               max_tilt_deg=20.0)
    d = np.array(disc.table.diamonds, float)
    px = true_diamonds(disc.table, cam)
    rng = np.random.default_rng(5)
    ids = np.concatenate([np.arange(len(d)), rng.integers(0, len(d), 15)])
    dst = px[ids] + rng.normal(0, 0.3, (len(ids), 2))
    dst[len(d):] += rng.uniform(-40, 40, (15, 2))  # letters near the diamonds
    for src, pts, pair_ids, samples in ((d[ids], dst, ids, 3000), (d, px, None, 200)):
        us = np.stack([dmod._undistort(pts, k, (1920, 1080)) for k in dmod.K_RANSAC])
        batch = dmod.ransac_homographies(src, us, 6.0, samples, pair_ids)
        assert len(batch) == len(dmod.K_RANSAC)
        assert any(H is not None for H in batch)
        for u, H in zip(us, batch, strict=True):
            one = dmod.ransac_homography(src, u, 6.0, samples, pair_ids)
            assert (H is None and one is None) or np.array_equal(H, one)


def test_median_by_partition_is_numpys():
    """:func:`calibration.diamonds.median` gives np.median's value and type, odd and
    even lengths, float32 and float64."""
    rng = np.random.default_rng(11)
    for n in (1, 2, 3, 20, 21, 400):
        for dtype in (np.float32, np.float64):
            v = (rng.random(n) * 300).astype(dtype)
            a, b = np.median(v), dmod.median(v)
            assert a == b and a.dtype == b.dtype


@pytest.mark.parametrize("seed", [14, 79, 116, 129, 173])
def test_sponsor_lettering_between_the_diamonds(seed):
    """Benchmark scenes with light sponsor lettering in the gaps between the diamonds
    on dark rails (79: 15 mm rhombi dimmer than the letters; 173: 1280 px at 0.3
    px/mm). The strongest blob near each rough place was a letter, and 6-11 letters
    fitted one rail-plane model with at most one diamond; each scene was refused. Now
    each letter beside another is no diamond, and every diamond is found where it is.
    (Scene 155, "PRO TOUR" in every gap, was one; since rails have finishes its rails
    are maple with dark letters.)

    Scene 129 keeps one miss: its centre-top diamond is the bullet of "GRAND - CLUB",
    a letter on either side, since the world's lenses have their principal points off
    the frame's centre (the framing moved 29 px); a diamond there is, to a referee's
    eye too, part of the lettering."""
    res, truth, _, (disc, _, _, _) = search(seed)
    assert res is not None
    err = distance_to_truth(res.found, truth)
    assert err.max() < 1.5, err
    assert len(res.found) >= len(disc.table.diamonds) - (seed == 129)


@pytest.mark.parametrize("seed", [218, 367])
def test_pearl_sights_among_maple_grain_are_found_with_the_grain_taken_out(seed):
    """Light wood at 1280 px: pearl sights 10-11 mm across (3 px) among streaks as
    bright across the rail. With the square top-hat the strongest blobs put no more
    than 12 of the sights on one rail model; with the grain along each rail taken out
    (`grain_tophat`), every one of them, each on its true place."""
    disc, cam, look, img, _ = render.calibration_scene(seed)
    assert look.rail_grain >= 0.15 and min(look.wood) > 0.1  # a grained light rail
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    quad = find_cloth(img).quad
    table = TABLES[geometry_of(disc.table.name)]
    size = (img.shape[1], img.shape[0])
    truth = true_diamonds(disc.table, cam)
    plain = dmod.locate_diamonds(gray, {}, quad, table, size, thorough=False)
    grained = dmod.locate_diamonds(gray, {}, quad, table, size, thorough=False,
                                   background="grain")
    assert plain is None or len(plain.found) <= 0.7 * len(table.diamonds)
    assert len(grained.found) == len(table.diamonds)
    ppm = grained.ppm
    # each within 6 mm of its true place (3 px diamonds among grain: a few mm is the
    # centroid's scatter), none a grain streak taken elsewhere on the rail
    assert distance_to_truth(grained.found, truth).max() < 6.0 * ppm


@pytest.mark.parametrize("seed", [711, 958])
def test_pearl_sights_between_dark_letters_are_found_over_the_local_median(seed):
    """Pool 51 on light wood, each pearl sight 6-10 px from a sponsor's dark letters
    ("GRAND PRIX" at 1280 px, "BILLIARD CLUB" at 1920 px). The square top-hat's opening
    takes the letters' dark as the background, and the wood between the strokes is as
    bright as a sight: every blob near each put at most half the sights on one rail
    model. Over the local median (`lettering_tophat`), every blob near each puts nearly
    all of them there, each on its true place."""
    disc, cam, look, img, _ = render.calibration_scene(seed)
    assert min(look.wood) > 0.1 and look.rail_text  # lettering on a light rail
    pale = img.min(axis=2)
    quad = find_cloth(img).quad
    table = TABLES[geometry_of(disc.table.name)]
    size = (img.shape[1], img.shape[0])
    truth = true_diamonds(disc.table, cam)
    square = dmod.locate_diamonds(pale, {}, quad, table, size)
    lettered = dmod.locate_diamonds(pale, {}, quad, table, size, background="lettering")
    assert square is None or len(square.found) <= 0.5 * len(table.diamonds)
    assert len(lettered.found) >= 0.9 * len(table.diamonds)
    assert distance_to_truth(lettered.found, truth).max() < 1.5


def test_a_thorough_search_after_a_quick_one_finds_what_a_fresh_one_does():
    """A thorough search reuses the quick search's strongest-blob fit and every blob
    judged before (by window and peak) from the top-hat cache they share: what it
    finds must not depend on what ran before it, and it must judge fewer blobs anew.
    Scene 79: sponsor lettering, so the thorough search runs its every-blob passes."""
    disc, _, _, img, _ = render.calibration_scene(79)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    quad = find_cloth(img).quad
    size = (img.shape[1], img.shape[0])

    def judged(cache: dict) -> int:
        return sum(len(v) for k, v in cache.items() if isinstance(k, tuple) and k[0] == "judged")

    shared: dict = {}
    table = TABLES[geometry_of(disc.table.name)]
    other = TABLES["pyramid" if table.name != "pyramid" else "carom"]
    for t in (table, other):  # another geometry's windows and scale share the cache
        dmod.locate_diamonds(gray, shared, quad, t, size, thorough=False)
    before = judged(shared)
    again = dmod.locate_diamonds(gray, shared, quad, table, size, thorough=True)
    fresh_cache: dict = {}
    fresh = dmod.locate_diamonds(gray, fresh_cache, quad, table, size, thorough=True)
    assert again is not None and fresh is not None
    assert again.found.keys() == fresh.found.keys()
    for i in fresh.found:
        np.testing.assert_array_equal(again.found[i], fresh.found[i])
    assert again.rms_px == fresh.rms_px
    assert judged(shared) - before < judged(fresh_cache)
    # what one window and peak were judged to be stands for the same window only
    th = fresh.tophat
    memo: dict = {}
    for p in true_diamonds(disc.table, render.calibration_scene(79)[1])[:6]:
        for ppm in (fresh.ppm, 1.4 * fresh.ppm):
            remembered = dmod.blob_candidates(th, p, 30 * ppm, ppm, max_n=5, judged=memo)
            plain = dmod.blob_candidates(th, p, 30 * ppm, ppm, max_n=5)
            assert [(tuple(c), v) for c, v in remembered] == [(tuple(c), v) for c, v in plain]


def test_a_search_asked_again_of_the_same_image_is_not_run_again(monkeypatch):
    """The cascade of ``fit._find_sights`` asks some searches twice (the rails' outline,
    every blob near each: its first geometry, then again among the others). The
    image's cache answers the second with the first's result; another geometry or
    thoroughness is searched."""
    disc, _, _, img, _ = render.calibration_scene(79)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    quad = find_cloth(img).quad
    size = (img.shape[1], img.shape[0])
    table = TABLES[geometry_of(disc.table.name)]
    other = TABLES["pyramid" if table.name != "pyramid" else "carom"]
    runs = []
    real = dmod._locate
    monkeypatch.setattr(dmod, "_locate", lambda *a: runs.append(a[3].name) or real(*a))
    cache: dict = {}
    first = dmod.locate_diamonds(gray, cache, quad, table, size, thorough=True)
    again = dmod.locate_diamonds(gray, cache, quad.copy(), table, size, thorough=True)
    assert first is not None and again is first
    dmod.locate_diamonds(gray, cache, quad, table, size, thorough=False)
    dmod.locate_diamonds(gray, cache, quad, other, size, thorough=True)
    assert runs == [table.name, table.name, other.name]


def test_blobs_of_a_score_graphic_over_a_rail_are_trimmed_off_the_rail_model(monkeypatch):
    """Benchmark scene 3310: one-cushion at 1280 px, black sights on brown wood, a score
    bar across the foot of a long rail. Two of the bar's letters, 5 px from the diamonds
    under them, got into the rail model within its wide tolerance, pulled their
    neighbours off and left 19 diamonds at 1.16 px RMS: too loose to be trusted, so the
    calibration took a looser image's sights and the wrong table. Trimmed, every diamond
    kept lies on its true place and the set is tight."""
    disc, cam, _, img, _ = render.calibration_scene(3310)
    dark = sight_image(img, "dark")
    quad = find_cloth(img).quad
    table = TABLES[geometry_of(disc.table.name)]
    size = (img.shape[1], img.shape[0])
    truth = true_diamonds(disc.table, cam)
    res = dmod.locate_diamonds(dark, {}, quad, table, size)
    assert len(res.found) >= 0.8 * len(table.diamonds)
    assert distance_to_truth(res.found, truth).max() < 1.0
    assert res.rms_px <= PRUNE_RMS_PX
    monkeypatch.setattr(dmod, "TRIM_MIN_PX", float("inf"))  # the search untrimmed
    # the thorough search tightens a loose set itself: its diamonds that sit well on
    # one model, searched again from it, leave the letters out as trimming does
    tightened = dmod.locate_diamonds(dark, {}, quad, table, size)
    assert distance_to_truth(tightened.found, truth).max() < 1.0
    assert tightened.rms_px <= PRUNE_RMS_PX
    assert len(tightened.found) >= len(res.found)
    monkeypatch.setattr(dmod, "_tighten", lambda *args: None)  # nor tightened
    loose = dmod.locate_diamonds(dark, {}, quad, table, size)
    assert distance_to_truth(loose.found, truth).max() > 3.0
    assert loose.rms_px > PRUNE_RMS_PX


def test_the_sights_image_whose_diamonds_sit_nearest_a_rail_model_is_taken():
    """Benchmark scene 1293 (Goriziana, 1280 px): pearl sights on maple near clipping, a
    score bar across a long rail. No sights' image shows a geometry cleanly: the darkest
    channel finds 14 of the carom table's 20 at 0.81 px, just over the bar, and the
    black sights' image, searched blob by blob, 10 at 2.4 px (letters of the score bar,
    grain). Both found half a geometry's, and the tie went to the black sights: the
    pool table was fitted to them, wrong by metres. The tie now goes to the image whose
    diamonds sit within twice the bar, and its sights are the true diamonds. The fit
    then takes the search over the local median (15 of the carom table's 20 at 0.74
    px, :func:`calibration.fit._find_sights`' fallback over a weak best): the scene's
    own geometry, refused by its self-check, two sights on the long rail the score bar
    hides (unaided: 6.0 mm promised)."""
    from calibration import calibrate_image
    from calibration.fit import _find_sights

    disc, cam, _, img, _ = render.calibration_scene(1293)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    sights, _, searches = _find_sights(img, gray, find_cloth(img), (img.shape[1], img.shape[0]))
    assert sights == "pale"
    err = distance_to_truth(searches["carom"].found, true_diamonds(disc.table, cam))
    assert len(err) >= 12 and np.median(err) < 1.0 and err.max() < 3.0, err
    calib = calibrate_image(img, strict=False)
    assert calib.table in GEOMETRY_GROUPS["carom"]  # the scene's own geometry, and
    # refused for what its own fit promises, not for a wrong table's residuals
    assert not calib.ok and any("predicted error" in r for r in calib.quality["reasons"])
    assert calib.quality["diamond_rms_mm"] < 1.5


def test_the_sights_are_seen_where_the_renderer_inlaid_them():
    """Benchmark scene 2731 (balkline, 1280 px, near-vertical, sights between "OPEN 2026"
    letters): its worst cloth error came to its whole prediction (1.10 mm), the highest
    ratio of any trusted scene. The sights were not found off: each lies within a quarter
    of a pixel of where the renderer inlaid it, and those places are off the
    table's drawing by its build tolerance (``Look.table_tolerance``), which is what the
    fit follows. ``Calibration.diamonds_px`` says where each was seen."""
    from calibration import calibrate_image
    from calibration.fit import diamond_names

    disc, cam, look, img, _ = render.calibration_scene(2731)
    calib = calibrate_image(img, strict=False)
    table = disc.table
    names = diamond_names(table)
    z = np.full(len(table.diamonds), table.rail_top_height)
    inlaid = cam.project(np.column_stack([render.sights_as_drawn(disc, cam, look, 2731), z]))
    drawing = true_diamonds(table, cam)
    seen = [(np.asarray(calib.diamonds_px[n]), k) for k, n in enumerate(names)
            if n in calib.diamonds_px]
    assert len(seen) == len(names)
    off_inlaid = np.array([np.linalg.norm(p - inlaid[k]) for p, k in seen])
    off_drawing = np.array([np.linalg.norm(p - drawing[k]) for p, k in seen])
    assert off_inlaid.max() < 0.25 < off_drawing.max(), (off_inlaid, off_drawing)
