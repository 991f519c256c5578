"""A broadcast's video cuts between cameras: the re-check remembers the views it has
calibrated, writes one record per change of state and does not recalibrate at every
check while the table is out of view."""

from __future__ import annotations

import cv2
import pytest

import calibration.video as video
from adjudicate import Warning, adjudicate_stream, get_game
from equipment import get_discipline
from simworld import render

SIZE = (1280, 720)


@pytest.fixture(scope="module")
def frames():
    """Two overhead table cameras (both calibrate) and a close-up cut-away."""
    disc = get_discipline("three_cushion")
    look = render.Look.default()
    cams = [render.make_camera(disc.table, SIZE, tilt_deg=12.0, azimuth_deg=az, k1=-0.08)
            for az in (20.0, 200.0)]
    layout = {oid: xy for (oid, _), xy in zip(
        disc.opening, [(500.0, 400.0), (1700.0, 1000.0), (2300.0, 600.0)], strict=True)}
    a, b = (render.render_still(disc, layout, camera=c, look=look, seed=4)[0] for c in cams)
    _, _, _, close, _ = render.broadcast_scene("close", 3)  # odd seeds are 1280x720
    assert close.shape[1::-1] == SIZE
    return {"a": a, "b": b, "close": close}


def _clip(tmp_path, frames, names) -> str:
    path = tmp_path / "cuts.avi"
    out = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 1.0, SIZE)
    out.set(cv2.VIDEOWRITER_PROP_QUALITY, 100)
    for n in names:
        out.write(frames[n])
    out.release()
    return str(path)


def _run(monkeypatch, path):
    tries = []
    real = video._recalibrate

    def counted(frame, calib):
        tries.append(calib.table)
        return real(frame, calib)

    monkeypatch.setattr(video, "_recalibrate", counted)
    events = video.video_events(path, check_every_s=1.0, retry_every_s=5.0)
    status = [(e.t, e.extra["status"], e.extra["view"]) for e in events
              if e.type == "calibration"]
    return events, status, tries


def test_a_cut_away_is_one_record_and_the_view_is_restored(tmp_path, monkeypatch, frames):
    path = _clip(tmp_path, frames, ["a"] * 3 + ["close"] * 4 + ["a"] * 2)
    events, status, tries = _run(monkeypatch, path)
    assert status[0] == (0.0, "ok", 0)
    assert len(status) == 3, status
    assert status[1][0] == 3.0 and status[1][1] in ("lost", "moved") and status[1][2] == 0
    assert status[2] == (7.0, "restored", 0)
    # one try where the cut starts; the next would be 5 s later, after the cut
    assert len(tries) == 1, tries
    # the referee is warned once for the whole cut-away
    out = adjudicate_stream(events, get_game("three_cushion"))
    warned = [w for w in out if isinstance(w, Warning) and w.code.startswith("calibration")]
    assert len(warned) == 1 and warned[0].t == 3.0


def test_a_second_table_camera_is_calibrated_once_and_recognised(tmp_path, monkeypatch,
                                                                 frames):
    path = _clip(tmp_path, frames, ["a", "a", "b", "b", "a", "a", "b"])
    _, status, tries = _run(monkeypatch, path)
    kinds = [(t, s, v) for t, s, v in status]
    assert kinds[0] == (0.0, "ok", 0)
    assert kinds[1][:1] == (2.0,) and kinds[1][1] in ("moved", "lost")
    assert kinds[2] == (2.0, "recalibrated", 1)
    assert kinds[3:] == [(4.0, "restored", 0), (6.0, "restored", 1)], kinds
    assert len(tries) == 1, tries  # camera b calibrated once, then recognised

