"""The benchmark comparisons count what moved, scene by scene, from the rows the
benchmarks keep."""

from __future__ import annotations

from bench.compare_calibration import compare as compare_calibration
from bench.compare_light import compare as compare_light
from bench.opencv_versions import compare as compare_opencv
from bench.opencv_versions import default_out


def _light(seed: int, worst: float, flagged: bool = False, under: bool = False,
           over: int = 0, time: float = 0.1) -> dict:
    return {"seed": seed, "cloth": "green", "lux_rel_max": worst, "lux_cells_over_10": over,
            "flagged": flagged, "truth_under": under, "time": time}


def test_light_runs_compared_scene_by_scene():
    old = [_light(1, 0.05), _light(2, 0.02), _light(3, 0.03, over=2), _light(4, 0.04),
           _light(5, 0.02, flagged=False, under=True), {"seed": 6, "auto_exposure": True}]
    new = [_light(1, 0.02, time=0.2), _light(2, 0.03), _light(3, 0.0302), _light(4, 0.041),
           _light(5, 0.02, flagged=True, under=True), {"seed": 6, "auto_exposure": True}]
    lines, changed = compare_light(old, new, tol=0.5)
    text = "\n".join(lines)
    assert "scenes read by both runs: 5" in text  # the auto-exposure scene is not read
    assert "1 better, 1 worse (at most by 1.00)" in text
    assert "cells over 10%: 2 -> 0" in text
    assert "flags right: 4 -> 5 of 5" in text
    # listed: 1 better, 2 worse, 5 whose flag changed; not 3 nor 4 (under half a point)
    assert [c.split()[2] for c in changed] == ["1", "2", "5"]


def test_calibration_runs_compared_scene_by_scene():
    def row(seed, ok, err, chosen="carom", time=1.0):
        return {"seed": seed, "ok": ok, "err_max": err, "chosen": chosen, "time": time,
                "size": [1920, 1080]}

    old = [row(1, True, 1.0), row(2, False, None), row(3, True, 2.0), row(4, True, 0.5)]
    new = [row(1, True, 1.0, time=0.5), row(2, True, 1.5), row(3, True, 2.5),
           row(4, True, 0.5, chosen="pool")]
    lines, changed = compare_calibration(old, new, tol=0.01)
    text = "\n".join(lines)
    assert "calibrated within 3 mm: 3 -> 4" in text
    assert "worst error by more than 0.01 mm): 3" in text
    assert [c.split()[2].rstrip(":") for c in changed] == ["2", "3", "4"]
    assert "median 1.00" in text and "range 0.50-1.00" in text


def test_two_opencv_releases_compared_scene_by_scene():
    """`bench/opencv_versions.py compare`: the same outcome counted, the mappings' and
    the focal lengths' distances between the releases, scenes only one run has left
    out."""
    def row(seed, version, ok=True, shift=0.0, focal=1500.0):
        r = {"seed": seed, "discipline": "pool51", "opencv": version, "ok": ok}
        if ok:
            r |= {"err_max": 0.3 + shift, "focal_px": focal,
                  "mapped": [[0.0, 0.0], [100.0 + shift, 50.0]]}
        return r

    a = [row(1, "5.0.0"), row(2, "5.0.0"), row(3, "5.0.0"), row(4, "5.0.0")]
    b = [row(1, "5.1.0"), row(2, "5.1.0", shift=0.2, focal=1500.5),
         row(3, "5.1.0", ok=False)]
    text = compare_opencv(a, b)
    assert "# The same frames under OpenCV 5.0.0 and 5.1.0" in text
    assert "- scenes: 3; the same outcome (trusted or not) in 2" in text
    assert "median 0.1000 mm, largest 0.2000 mm (both calibrated: 2)" in text
    assert "median 0.2500 px, largest 0.5000 px" in text
    assert "| 3 | pool51 | True / False | 0.300 | - | - | - |" in text
    # the summary's file is named by the two releases, as the docs' are
    assert default_out("5.0.0", "4.10.0").endswith("/opencv_versions_5.0_4.10.md")


def test_the_outline_benchmark_keeps_how_far_another_revisions_corners_moved():
    """`bench/bench_cloth_outline.py --against REV`: each scene's outline against REV's
    package's: the corners' largest move, 0 for the same quad or both refused, and None
    where only one refused; the report lists those that moved."""
    from types import SimpleNamespace

    import numpy as np

    from bench.bench_cloth_outline import _against, summarise
    from calibration.detect import CalibrationError

    quad = np.array([[0.0, 0.0], [100.0, 0.0], [100.0, 50.0], [0.0, 50.0]])

    def package(found):
        def find_cloth(img):
            if found is None:
                raise CalibrationError("no table found")
            return SimpleNamespace(quad=found)
        return SimpleNamespace(detect=SimpleNamespace(find_cloth=find_cloth,
                                                      CalibrationError=CalibrationError))

    img = np.zeros((4, 4, 3), np.uint8)
    assert _against(package(quad.copy()), img, quad) == {"moved_px": 0.0}
    assert _against(package(quad + [0.0, 2.5]), img, quad) == {"moved_px": 2.5}
    assert _against(package(None), img, quad) == {"moved_px": None}
    assert _against(package(None), img, None) == {"moved_px": 0.0}
    base = {"discipline": "pool51", "cloth": "grey", "size": [1920, 1080], "covered": 1.0,
            "by_brightness": False, "corner_px": 3.0}
    rows = [base | {"seed": 1, "moved_px": 0.0}, base | {"seed": 2, "moved_px": 140.0},
            {k: v for k, v in base.items() if k != "corner_px"}
            | {"seed": 3, "refused": "no table found", "moved_px": None}]
    text = summarise(rows, "")
    assert "## Moved from the other revision's outline (3 scenes compared)" in text
    assert "- seed 2 pool51 (grey, 1920 px): corners moved 140.0 px, now 3.0 px" in text
    assert "- seed 3 pool51 (grey, 1920 px): found by one, refused by the other" in text
    assert "seed 1 " not in text.split("## Moved")[1].split("## Refused")[0]


def test_the_calibration_summary_says_when_every_scene_was_calibrated():
    """A batch with no refusal says so under its heading, not an empty list; one with a
    refusal lists it with its reason."""
    from bench.bench_calibration import summarise

    scene = {"size": [1280, 720], "camera_size": [1280, 720], "lens": None,
             "truth_under": False, "auto_exposure": False}
    calibrated = scene | {
        "seed": 1, "discipline": "free_game", "table": "carom_free", "time": 0.6, "ok": True,
        "chosen": "carom", "reasons": [], "err_median": 0.1, "err_max": 0.3, "err_p99": 0.27,
        "err_all": [0.1, 0.3], "ball_err_max": 0.32, "ball_err_all": [0.1, 0.32],
        "predicted": 1.07, "predicted_ball": 1.07, "lux_rel_max": 0.02,
        "lux_rel_median": 0.01, "lux_cells_over_10": 0, "lux_cells": 200, "flagged": False}
    refused = scene | {"seed": 2, "discipline": "five_pins", "table": "italian_pins",
                       "time": 0.5, "ok": False, "refused": "no table found"}
    tail = summarise([calibrated]).split("## Scenes not calibrated")[1]
    assert "None: every scene was calibrated." in tail
    tail = summarise([calibrated, refused]).split("## Scenes not calibrated")[1]
    assert "- seed 2 five_pins 1280: no table found" in tail and "None" not in tail
    # the command a summary quotes runs the same scenes again: a range by --n, scenes
    # picked here and there (an earlier batch's refusals) by --seeds
    assert "bench_calibration.py --n 2`" in summarise([calibrated, refused])
    far = refused | {"seed": 7}
    assert "bench_calibration.py --seeds 1 7`" in summarise([calibrated, far])


def test_orientation_votes_are_counted_per_discipline_and_way_round():
    """``bench_orientation``'s summary: each scene votes twice (its true camera as it is,
    and turned round); a wrong vote and a missing one are listed by seed and way round,
    and a scene whose cloth was not found is named apart, not counted."""
    from bench.bench_orientation import summarise

    def row(seed, disc, as_is, turned, by=("markings", "markings")):
        return {"seed": seed, "discipline": disc,
                "as_is": {"vote": as_is, "by": by[0]}, "turned": {"vote": turned, "by": by[1]}}

    rows = [row(1, "pool51", "right", "right"),
            row(2, "balkline_71_2", "right", "wrong"),
            row(3, "balkline_71_2", "none", "none", ("", "")),
            row(4, "balkline_71_2", "right", "right", ("balls on spots", "markings")),
            {"seed": 5, "discipline": "pool51", "error": "no table found"}]
    text = summarise(rows, "")
    assert "| balkline_71_2 | 3 | 3 | 1 | 2 | 3 / 1 / 0 |" in text
    assert "| pool51 | 1 | 2 | 0 | 0 | 2 / 0 / 0 |" in text
    assert "Votes wrong: 2 (balkline_71_2, turned)." in text
    assert "Votes none: 3 (balkline_71_2, as_is and turned)." in text
    assert "Cloth not found: 5 (no table found)." in text


def test_the_sights_summary_finds_the_offset_a_rails_sights_share():
    """`bench/bench_sights.py`'s summary splits a rail's mean offset into what its
    sights' independent scatter gives and what they share: the grain fallback's scenes
    get their own column, and their rails, drawn with a known shared offset (SD 0.1 px
    across, none along) over a scatter of 0.2 px, give back about 0.1 across and 0
    along."""
    import numpy as np

    from bench.bench_sights import _rail_summary, summarise

    rng = np.random.default_rng(3)

    def scene(seed, shared, grain):
        rails = {}
        for rail, n in (("left", 6), ("right", 6), ("head", 3), ("foot", 2)):
            off = rng.normal(0.0, 0.2, (n, 2)) + [rng.normal(0.0, shared), 0.0]
            rails[rail] = _rail_summary(off)
        return {"seed": seed, "table": "pyramid", "size": [1280, 720], "ok": True,
                "err_max": 1.0, "predicted": 2.0, "grain": grain, "lettering": False,
                "sights": [["left_1", 0.0, 0.0]], "rails": rails}

    rows = [scene(s, 0.1, True) for s in range(300)] + [scene(s, 0.0, False)
                                                         for s in range(300, 600)]
    text = summarise(rows, "")
    head = next(line for line in text.splitlines() if line.startswith("| figure"))
    assert head == "| figure | all scenes | on the grain fallback's sights |"
    row = next(line for line in text.splitlines()
               if line.startswith("| rails of 2+ diamonds, their mean offset across"))
    shared = [float(cell.split(" / ")[2].split()[0]) for cell in row.split(" | ")[1:]]
    assert abs(shared[1] - 0.1) < 0.03  # the fallback's scenes
    along = next(line for line in text.splitlines()
                 if line.startswith("| rails of 2+ diamonds, their mean offset along"))
    assert float(along.split(" | ")[2].split(" / ")[2].split()[0]) < 0.04  # none shared
