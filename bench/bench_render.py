"""Renderer speed: static precompute, frames per second, stills per second, video encode.

Run: ``python bench/bench_render.py [--frames N]``; writes docs/bench/render.md.
Trajectories here are synthetic straight-line motions (no physics): they exercise the
drawing of resting and moving (motion-blurred) balls, the player and the encoder.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from equipment import get_discipline  # noqa: E402
from simworld.render import (  # noqa: E402
    Look,
    default_camera,
    random_setup,
    render_still,
    render_video,
)
from simworld.render.api import TrajectorySampler  # noqa: E402
from simworld.render.renderer import ActiveStroke, ClipRenderer  # noqa: E402
from tracking import STATES, Stroke, TrackedObject, Trajectory  # noqa: E402


def synthetic(discipline: str, n_frames: int, fps: float, moving: int, seed: int = 0
              ) -> Trajectory:
    """Opening layout; the first ``moving`` balls roll in straight lines from 0.2 s."""
    d = get_discipline(discipline)
    rng = np.random.default_rng(seed)
    objs = tuple(TrackedObject(b.id, "ball", b.diameter) for b in d.balls)
    opening = dict(d.opening)
    pos = np.array([[opening[o.id] for o in objs]] * n_frames, float)
    states = np.zeros((n_frames, len(objs)), np.int8)
    t = np.arange(n_frames) / fps
    for j in range(moving):
        ang = rng.uniform(0, 2 * np.pi)
        speed = rng.uniform(800, 3000)
        s = np.clip(t - 0.2, 0, None) * speed
        pos[:, j, 0] = np.clip(pos[:, j, 0] + np.cos(ang) * s, 40, d.table.length - 40)
        pos[:, j, 1] = np.clip(pos[:, j, 1] + np.sin(ang) * s, 40, d.table.width - 40)
        states[:, j] = np.where(t >= 0.2, STATES.index("moving"), 0)
    return Trajectory(discipline, d.table_name, fps, objs, pos, states,
                      np.ones(pos.shape[:2], bool),
                      strokes=(Stroke(0.2, objs[0].id, (1.0, 0.0), 2000.0),))


def bench_frames(discipline: str, size, n: int, moving: int, player: bool) -> tuple[float, float]:
    d = get_discipline(discipline)
    traj = synthetic(discipline, n + 10, 50.0, moving)
    look = Look(player=player)
    t0 = time.perf_counter()
    r = ClipRenderer(d, default_camera(d.table, size), look, 0)
    static = time.perf_counter() - t0
    sampler = TrajectorySampler(traj, d, 0)
    strokes = [ActiveStroke(s, tuple(traj.positions[0, 0]), 30.0) for s in traj.strokes]
    t0 = time.perf_counter()
    for k in range(n):
        tt = 0.3 + k / 50.0  # balls moving from the first frame
        r.render(k, tt, sampler.poses(tt), strokes if player else [])
    return static, n / (time.perf_counter() - t0)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--frames", type=int, default=40)
    ap.add_argument("--out", default=str(ROOT / "docs" / "bench" / "render.md"))
    args = ap.parse_args()
    rows = []
    for discipline, moving, player in (("three_cushion", 1, True), ("three_cushion", 3, False),
                                       ("pool51", 0, False), ("pool51", 16, False)):
        for size in ((1280, 720), (1920, 1080)):
            static, fps = bench_frames(discipline, size, args.frames, moving, player)
            rows.append((discipline, f"{size[0]}x{size[1]}", moving, player, static, fps))
            print(rows[-1], flush=True)
    # stills for training: one camera/look, many layouts
    d = get_discipline("pool51")
    cam, look = random_setup(d, 11)
    rng = np.random.default_rng(0)
    render_still(d, dict(d.opening), camera=cam, look=look, seed=1)
    n_still = args.frames
    t0 = time.perf_counter()
    for _ in range(n_still):
        layout = {b.id: (float(rng.uniform(60, d.table.length - 60)),
                         float(rng.uniform(60, d.table.width - 60))) for b in d.balls}
        render_still(d, layout, camera=cam, look=look, seed=1)
    stills = n_still / (time.perf_counter() - t0)
    # end to end: render + H.264 encode + truth
    traj = synthetic("three_cushion", 150, 50.0, 3)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        truth = render_video(traj, Path(tmp) / "bench.mp4", fps=50.0)
        video_s = time.perf_counter() - t0
        mp4_kb = (Path(tmp) / "bench.mp4").stat().st_size / 1024
        truth_kb = truth.stat().st_size / 1024
    lines = [
        "# Renderer speed",
        "",
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} with "
        f"`python bench/bench_render.py --frames {args.frames}` on {platform.machine()}, "
        f"{os.cpu_count()} cores (shared with other work: expect ±30%), Python "
        f"{platform.python_version()}.",
        "",
        "Frames: one `ClipRenderer.render` call (scene compose, sprites, shadows, player, "
        "sensor noise, truth), no encoding. Static: the once-per-clip precompute (ray "
        "casting of every pixel, textures, per-lamp light).",
        "",
        "| discipline | size | moving balls | player | static (s) | frames/s |",
        "|---|---|---|---|---|---|",
    ]
    for disc, size, moving, player, static, fps in rows:
        lines.append(f"| {disc} | {size} | {moving} | {'yes' if player else 'no'} | "
                     f"{static:.2f} | {fps:.1f} |")
    lines += [
        "",
        f"Training stills (`render_still`, pool51, 16 balls at random places, one random "
        f"camera and look reused, 1280x720): **{stills:.1f} images/s** "
        f"({stills * 60:.0f} per minute).",
        "",
        f"End to end `render_video` (three-cushion, 3 balls moving, player, 150 frames "
        f"at 50 fps, 1280x720, H.264 CRF 23 veryfast): {video_s:.1f} s = "
        f"**{150 / video_s:.1f} frames/s**, video {mp4_kb:.0f} KB, truth {truth_kb:.0f} KB.",
        "",
    ]
    Path(args.out).write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
