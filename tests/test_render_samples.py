"""The committed sample videos agree with their own simulator trajectories."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from equipment import get_discipline
from tracking import Trajectory, read_events

SAMPLES = Path(__file__).resolve().parents[1] / "sample_videos"
CLIPS = sorted(p.name[:-len(".truth.json")] for p in SAMPLES.glob("*.truth.json"))


@pytest.mark.skipif(not CLIPS, reason="sample_videos/ not made yet")
@pytest.mark.parametrize("name", CLIPS)
def test_sample_truth_matches_its_trajectory(name):
    truth = json.loads((SAMPLES / f"{name}.truth.json").read_text())
    traj = Trajectory.load(SAMPLES / f"{name}.trajectory.json")
    events = read_events(SAMPLES / f"{name}.events.jsonl")
    assert events and max(e.t for e in events) <= traj.duration + 1e-6
    mp4 = SAMPLES / f"{name}.mp4"
    assert mp4.stat().st_size < 3 * 1024 * 1024
    n = truth["n_frames"]
    assert n / truth["fps"] < 15.0
    cap = cv2.VideoCapture(str(mp4))
    decoded = 0
    while cap.grab():
        decoded += 1
    assert decoded == n
    cam = truth["camera"]
    K, dist = np.array(cam["K"]), np.array(cam["dist"])
    rvec, tvec = np.array(cam["rvec"]), np.array(cam["tvec"])
    disc = get_discipline(traj.discipline)
    radius = {b.id: b.radius for b in disc.balls}
    frames = np.arange(n)
    t = frames / truth["fps"]
    f = np.minimum(t * traj.fps, traj.n_frames - 1)
    k0 = np.floor(f).astype(int)
    k1 = np.minimum(k0 + 1, traj.n_frames - 1)
    a = (f - k0)[:, None]
    for j, obj in enumerate(traj.objects):
        if obj.kind != "ball":
            continue
        xy = traj.positions[k0, j] * (1 - a) + traj.positions[k1, j] * a
        z = np.full(n, radius[obj.id])
        if traj.heights is not None:
            z += traj.heights[k0, j] * (1 - a[:, 0]) + traj.heights[k1, j] * a[:, 0]
        pts = np.column_stack([xy, -z])  # the z-down table frame
        ref, _ = cv2.projectPoints(pts.reshape(-1, 1, 3), rvec, tvec, K, dist)
        got = np.array(truth["objects"][obj.id]["centre"])
        assert np.abs(got - ref.reshape(-1, 2)).max() < 0.5, obj.id
        # a ball the trajectory has pocketed has no box; one on the cloth and in view has
        boxes = truth["objects"][obj.id]["box"]
        kn = np.round(f).astype(int)
        for k in range(0, n, 5):
            if not traj.visible[kn[k], j]:
                assert boxes[k] is None
    if name == "lamp_failure":
        assert truth["lux"][0]["min_lux"] >= 520 > truth["lux"][-1]["min_lux"]
