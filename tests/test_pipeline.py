"""The main job on a bundled sample video, checked against the renderer's truth."""

from __future__ import annotations

import json
import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from adjudicate import ShotCall, Warning, adjudicate_stream, get_game
from cueref.cli import main
from cueref.pipeline import merge_events, referee_video
from simworld.render.renderer import GAMMA
from tracking.events import Event, read_events

SAMPLES = Path(__file__).resolve().parents[1] / "sample_videos"
CLIP = SAMPLES / "lamp_failure"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    truth = json.loads(CLIP.with_suffix(".truth.json").read_text())
    start_mean = truth["lux"][0]["mean_lux"]  # the one lux-meter reading, at calibration
    out = tmp_path_factory.mktemp("referee")
    result = referee_video(CLIP.with_suffix(".mp4"), "three_cushion", out / "run",
                           CLIP.with_suffix(".events.jsonl"), lux=start_mean,
                           gamma=GAMMA)  # the renderer's output curve, as README says
    return truth, result


def test_calibration_on_the_video_maps_the_cloth_within_3mm(run):
    truth, result = run
    from calibration import Calibration

    calib = Calibration.load(result.files["calib.json"])
    cam = truth["camera"]
    gx, gy = np.meshgrid(np.linspace(0, 2840, 15), np.linspace(0, 1420, 8))
    xy = np.column_stack([gx.ravel(), gy.ravel()])
    px, _ = cv2.projectPoints(np.column_stack([xy, np.zeros(len(xy))]).reshape(-1, 1, 3),
                              np.array(cam["rvec"]), np.array(cam["tvec"]),
                              np.array(cam["K"]), np.array(cam["dist"]))
    err = np.linalg.norm(calib.image_to_table(px.reshape(-1, 2)) - xy, axis=1)
    assert calib.ok and err.max() < 3.0, err.max()


def test_light_warning_only_after_the_lamp_fails(run):
    truth, result = run
    failed = [s for s in truth["lux"] if s["min_lux"] < 520]
    t_fail = failed[0]["frames"][0] / truth["fps"]
    low = [w for w in result.warnings if w.code == "light_low"]
    assert len(low) == 1 and low[0].t >= t_fail and low[0].article == "000 Tavolo 9"
    light = [e for e in read_events(result.files["events.jsonl"]) if e.type == "light"
             and "lux_min" in e.extra]
    before = [e for e in light if e.t < t_fail]
    assert before and all(e.extra["lux_min"] >= 520 for e in before)


def test_the_failing_lamp_is_named_where_it_hangs(run):
    """The light warning says which lamp failed: the renderer's lamp that goes off is
    the one named, its place within 50 mm of where it hangs, and the calibration saved
    keeps the lamps the meter fitted (a person checks them in calib.png)."""
    truth, result = run
    hung = np.array([lamp["position_mm"] for lamp in truth["lamps"]])  # x, y, height
    off = [i for i, lamp in enumerate(truth["lamps"]) if lamp["off_at"] is not None]
    assert len(off) == 1
    low = [w for w in result.warnings if w.code == "light_low"][0]
    named = [tuple(map(float, m)) for m in
             re.findall(r"lamp over x (\d+), y (\d+) mm gives (\d+) lux", low.message)]
    assert len(named) == 1, low.message
    x, y, lux = named[0]
    assert np.hypot(*(hung[off[0], :2] - (x, y))) < 50.0, (x, y, hung[off[0]])
    assert lux < 0.1 * truth["lux"][0]["mean_lux"]
    from calibration import Calibration

    saved = Calibration.load(result.files["calib.json"]).photometry["lamps"]
    got = np.array([[lamp["x_mm"], lamp["y_mm"], lamp["height_mm"]] for lamp in saved])
    assert len(got) == len(hung)
    got, hung = got[np.argsort(got[:, 0])], hung[np.argsort(hung[:, 0])]
    assert np.abs(got[:, :2] - hung[:, :2]).max() < 50.0, got
    assert np.abs(got[:, 2] - hung[:, 2]).max() < 100.0, got  # a 30 cm lamp, not a point


def test_calls_are_those_of_the_events_and_files_are_complete(run):
    _, result = run
    direct = [r for r in adjudicate_stream(read_events(CLIP.with_suffix(".events.jsonl")),
                                           get_game("three_cushion"))
              if isinstance(r, ShotCall)]
    assert [c.to_dict() for c in result.calls] == [c.to_dict() for c in direct]
    lines = result.files["calls.jsonl"].read_text().splitlines()
    assert len(lines) == len(result.calls) + len(result.warnings)
    assert all(isinstance(w, Warning) for w in result.warnings)
    assert not list(result.outdir.glob(".*part*"))


def test_merge_keeps_time_order_observations_first():
    table = [Event(1.0, "shot_start", ("white",)), Event(2.0, "shot_end")]
    obs = [Event(1.0, "light", extra={"lux_min": 600}), Event(0.5, "calibration",
                                                             extra={"status": "ok"})]
    merged = merge_events(table, obs)
    assert [e.type for e in merged] == ["calibration", "light", "shot_start", "shot_end"]


def test_bad_inputs_fail_before_any_work(tmp_path, capsys):
    rc = main(["referee", str(tmp_path / "none.mp4"), "--game", "three_cushion",
               "--events", str(CLIP.with_suffix(".events.jsonl")), "-o", str(tmp_path / "o")])
    assert rc == 2 and "does not exist" in capsys.readouterr().err
    rc = main(["referee", str(CLIP.with_suffix(".mp4")), "--game", "snooker",
               "--events", str(CLIP.with_suffix(".events.jsonl")), "-o", str(tmp_path / "o")])
    assert rc == 2 and "known:" in capsys.readouterr().err
    broken = tmp_path / "broken.mp4"
    broken.write_bytes(b"\x00" * 2048)
    rc = main(["referee", str(broken), "--game", "three_cushion",
               "--events", str(CLIP.with_suffix(".events.jsonl")), "-o", str(tmp_path / "o")])
    assert rc == 2 and "broken.mp4" in capsys.readouterr().err
    assert not (tmp_path / "o" / "calls.jsonl").exists()


def test_referee_with_the_lens_measured_once(tmp_path, capsys):
    """The installer measures the clip's camera once with a checkerboard (`cueref lens`);
    `cueref referee --lens` holds the calibration to it: trusted, within 3 mm, the lens
    fitting the view, and written into calib.json for the recalibrations. A lens file
    that is not there fails before any work."""
    from calibration import Calibration
    from simworld.render import Camera
    from simworld.render.board import checkerboard_views

    truth = json.loads(CLIP.with_suffix(".truth.json").read_text())
    cam = Camera.from_dict(truth["camera"])
    for k, v in enumerate(checkerboard_views(cam, 12, seed=3)):
        cv2.imwrite(str(tmp_path / f"board{k:02d}.png"), v)
    lens_json = tmp_path / "lens.json"
    assert main(["lens", *sorted(str(p) for p in tmp_path.glob("board*.png")),
                 "-o", str(lens_json)]) == 0
    args = ["referee", str(CLIP.with_suffix(".mp4")), "--game", "three_cushion",
            "--events", str(CLIP.with_suffix(".events.jsonl")), "--gamma", str(GAMMA)]
    assert main([*args, "--lens", str(tmp_path / "none.json"), "-o", str(tmp_path / "x")]) == 2
    assert "does not exist" in capsys.readouterr().err and not (tmp_path / "x").exists()
    assert main([*args, "--lens", str(lens_json), "-o", str(tmp_path / "run")]) == 0
    calib = Calibration.load(tmp_path / "run" / "calib.json")
    assert calib.ok and calib.lens is not None and calib.quality["lens_chi2"] < 24.3
    gx, gy = np.meshgrid(np.linspace(0, 2840, 15), np.linspace(0, 1420, 8))
    xy = np.column_stack([gx.ravel(), gy.ravel()])
    px = cam.project(np.column_stack([xy, np.zeros(len(xy))]))
    assert np.linalg.norm(calib.image_to_table(px) - xy, axis=1).max() < 3.0
