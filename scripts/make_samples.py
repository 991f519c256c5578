"""Make sample_videos/: simulated shots filmed by the renderer, with all their truth.

Every clip has fixed seeds, so running this again gives the same files:

* ``NAME.mp4``             H.264 video (yuv420p, faststart, plays in browsers)
* ``NAME.truth.json``      the renderer's truth (camera, per-frame boxes, lux; docs/renderer.md)
* ``NAME.trajectory.json`` the simulator's trajectory (docs/trajectory.md)
* ``NAME.events.jsonl``    the simulator's events (docs/events.md)

Run: ``python scripts/make_samples.py [--only NAME ...] [--docs-images]``.
``--docs-images`` also redraws the comparison frames in docs/img/.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from equipment import get_discipline  # noqa: E402
from simworld.render import Look, make_camera, random_setup, render_video  # noqa: E402
from tracking import Trajectory, write_events  # noqa: E402

MAX_SECONDS = 12.0  # clips stay under 15 s
FPS = 25.0
SIZE = (1280, 720)


@dataclass(frozen=True)
class Sample:
    name: str
    scenario: str
    seed: int
    look: Look
    camera: dict  # make_camera keyword arguments
    description: str
    fail_lamp: tuple[int, float] | None = None  # lamp index, time (s) it goes off
    actions: tuple[dict, ...] = ()  # with ``scenario`` a discipline: simulate this stroke


CLUB = Look(crf=21)
BROADCAST = Look(cloth="tournament_blue", graphics=True, lamps=Look().lamps, crf=21,
                 other_tables=0, people=5, two_whites=True, vignette=0.05)

SAMPLES = (
    Sample("three_cushion_point", "three_cushion_point", 0, CLUB,
           dict(tilt_deg=5, azimuth_deg=80, roll_deg=0.5, hfov_deg=62, k1=-0.09, k2=0.012),
           "three-cushion: a valid point, club camera almost overhead"),
    Sample("missed_carom", "missed_carom", 1, BROADCAST,
           dict(tilt_deg=14, azimuth_deg=260, roll_deg=-1.5, hfov_deg=58, k1=-0.05, k2=0.0),
           "free game: the carom is missed; broadcast look with score bar, "
           "two whites (the opener's dotted)"),
    Sample("goriziana_pins_foul", "goriziana", 2,
           replace(CLUB, cloth="grey", lamp_tint=(1.08, 1.0, 0.82), cloth_wear=0.5),
           dict(tilt_deg=9, azimuth_deg=180, roll_deg=1.0, hfov_deg=66, k1=-0.14, k2=0.02),
           "Goriziana (9 pins) from the opening: the player's ball knocks pins before the "
           "opponent's ball, a foul [002 Art. 24.3.d]; more pins go down",
           actions=({"type": "stroke", "ball": "white", "speed": 4000.0, "aim": "yellow",
                     "offset": 35.0, "height": 0.0},)),
    Sample("pyramid_pot", "pyramid_pot", 4, replace(CLUB, cloth="green", wood=(0.05, 0.02, 0.01)),
           dict(tilt_deg=11, azimuth_deg=95, roll_deg=0.0, hfov_deg=64, k1=-0.1, k2=0.01),
           "Russian pyramid: a ball is potted"),
    Sample("pyramid_cue_pocketed", "pyramid_cue_pocketed", 5, replace(CLUB, cloth="wine"),
           dict(tilt_deg=6, azimuth_deg=270, roll_deg=1.0, hfov_deg=60, k1=-0.07, k2=0.0),
           "Russian pyramid: the cue ball goes into a pocket"),
    Sample("pool51_break", "pool51_break", 6, replace(BROADCAST, cloth="blue", graphics=False),
           dict(tilt_deg=18, azimuth_deg=10, roll_deg=2.0, hfov_deg=60, k1=-0.12, k2=0.02),
           "Pool 51: the break, strong tilt"),
    Sample("lamp_failure", "three_cushion_point", 7, CLUB,
           dict(tilt_deg=2, azimuth_deg=90, roll_deg=0.0, hfov_deg=62, k1=-0.08, k2=0.01),
           "three-cushion: the foot lamp fails at 1.5 s and the light drops under 520 lux",
           fail_lamp=(2, 1.5)),
)


def trim(traj: Trajectory, seconds: float) -> Trajectory:
    n = min(traj.n_frames, int(seconds * traj.fps))
    return replace(traj, positions=traj.positions[:n], states=traj.states[:n],
                   visible=traj.visible[:n],
                   heights=None if traj.heights is None else traj.heights[:n],
                   strokes=tuple(s for s in traj.strokes if s.t < n / traj.fps))


def make(sample: Sample, out: Path) -> dict:
    if sample.actions:
        from simworld.physics import simulate
        from simworld.scenes import opening_layout

        result = simulate(sample.scenario, opening_layout(sample.scenario),
                          [dict(a) for a in sample.actions], fps=50, seed=sample.seed)
    else:
        from simworld.scenarios import run_scenario

        result = run_scenario(sample.scenario, fps=50, seed=sample.seed)
    traj = trim(result.trajectory, MAX_SECONDS)
    traj.meta = {**traj.meta, "scenario": sample.scenario, "seed": sample.seed,
                 "description": sample.description}
    end = traj.n_frames / traj.fps
    events = [e for e in result.events if e.t <= end]
    disc = get_discipline(traj.discipline)
    camera = make_camera(disc.table, SIZE, **sample.camera)
    look = sample.look
    if sample.fail_lamp is not None:
        look = look.with_failure(*sample.fail_lamp)
    base = out / sample.name
    traj.save(base.with_suffix(".trajectory.json"))
    write_events(base.with_suffix(".events.jsonl"), events)
    t0 = time.perf_counter()
    truth_path = render_video(traj, base.with_suffix(".mp4"), camera=camera, look=look,
                              seed=sample.seed, fps=FPS)
    truth = json.loads(truth_path.read_text())
    for suffix in (".trajectory.json", ".events.jsonl"):
        base.with_suffix(suffix).chmod(0o644)
    info = {"name": sample.name, "seconds": round(truth["n_frames"] / FPS, 2),
            "mp4_kb": round(base.with_suffix(".mp4").stat().st_size / 1024),
            "truth_kb": round(truth_path.stat().st_size / 1024),
            "render_s": round(time.perf_counter() - t0, 1),
            "min_lux": min(s["min_lux"] for s in truth["lux"])}
    if sample.fail_lamp is not None and info["min_lux"] >= 520:
        raise SystemExit(f"{sample.name}: the lamp failure did not drop the light under 520 lux")
    return info


def docs_images(folder: Path) -> None:
    """Side-by-side frames for docs/renderer.md: cloths, cameras, lamps, occluders."""
    import cv2

    from simworld.render.api import TrajectorySampler
    from simworld.render.renderer import ActiveStroke, ClipRenderer, ObjectPose
    from tracking import Stroke

    folder.mkdir(parents=True, exist_ok=True)
    tiles = []
    setups = [("three_cushion", None, "default look, club camera, player striking"),
              ("pool51", 21, "random look and camera"),
              ("russian_pyramid", 5, "random look and camera"),
              ("goriziana", 13, "random look and camera, pins down")]
    for discipline, seed, _ in setups:
        d = get_discipline(discipline)
        if seed is None:
            camera, look = make_camera(d.table, SIZE, tilt_deg=5, azimuth_deg=80,
                                       hfov_deg=62), Look()
        else:
            camera, look = random_setup(d, seed, SIZE)
            look = replace(look, player=True)
        r = ClipRenderer(d, camera, look, seed or 0)
        layout = dict(d.opening)
        poses = []
        rng = np.random.default_rng(seed or 0)
        for b in d.balls:
            x, y = layout[b.id]
            c = np.array([x, y, b.radius])
            poses.append(ObjectPose(b.id, "ball", "resting", True,
                                    lambda _t, c=c: (c, np.eye(3)), (x, y)))
        for k, p in enumerate(d.pins):
            fallen = k % 3 == 1
            xy = (p.position[0] + 20 * fallen, p.position[1] + 15 * fallen)
            poses.append(ObjectPose(p.id, "pin", "fallen" if fallen else "standing", True,
                                    lambda _t: (np.zeros(3), np.eye(3)), xy, not fallen,
                                    float(rng.uniform(0, 6.28))))
        cue = d.balls[0]
        cx, cy = layout[cue.id]
        target = np.array(layout[d.balls[-1].id]) - (cx, cy)
        direction = tuple(target / np.linalg.norm(target))
        stroke = ActiveStroke(Stroke(0.0, cue.id, direction, 2000.0), (cx, cy), cue.radius)
        img, _ = r.render(0, -0.05, poses, [stroke])
        tiles.append(cv2.resize(img, (640, 360), interpolation=cv2.INTER_AREA))
    grid = np.vstack([np.hstack(tiles[:2]), np.hstack(tiles[2:])])
    cv2.imwrite(str(folder / "render_looks.jpg"), grid, [cv2.IMWRITE_JPEG_QUALITY, 82])
    # a lamp failure: the same frame before and after, and a close view of motion blur
    d = get_discipline("three_cushion")
    look = Look().with_failure(2, 0.5)
    r = ClipRenderer(d, make_camera(d.table, SIZE, tilt_deg=3, azimuth_deg=90), look, 1)
    from tracking import STATES, TrackedObject

    objs = tuple(TrackedObject(b.id, "ball", b.diameter) for b in d.balls)
    pos = np.array([[dict(d.opening)[o.id] for o in objs]] * 60, float)
    t = np.arange(60) / 50
    pos[:, 0, 0] += np.clip(t - 0.2, 0, None) * 2500
    states = np.zeros((60, 3), np.int8)
    states[:, 0] = np.where(t >= 0.2, STATES.index("moving"), 0)
    traj = Trajectory("three_cushion", "carom", 50.0, objs, pos, states, np.ones((60, 3), bool))
    sampler = TrajectorySampler(traj, d, 1)
    before, _ = r.render(0, 0.3, sampler.poses(0.3))
    after, _ = r.render(1, 0.6, sampler.poses(0.6))
    pair = np.hstack([cv2.resize(before, (640, 360), interpolation=cv2.INTER_AREA),
                      cv2.resize(after, (640, 360), interpolation=cv2.INTER_AREA)])
    cv2.imwrite(str(folder / "render_lamp_failure.jpg"), pair, [cv2.IMWRITE_JPEG_QUALITY, 82])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="*", help="sample names to (re)make")
    ap.add_argument("--out", default=str(ROOT / "sample_videos"))
    ap.add_argument("--docs-images", action="store_true", help="also redraw docs/img/render_*")
    ap.add_argument("--no-videos", action="store_true", help="skip the sample videos")
    args = ap.parse_args()
    if args.docs_images:
        docs_images(ROOT / "docs" / "img")
    if args.no_videos:
        return 0
    try:
        import simworld.scenarios  # noqa: F401
    except ImportError:
        print("make_samples: simworld.scenarios is not there yet (the simulator's scenario "
              "API); no videos made", file=sys.stderr)
        return 1
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    known = {s.name for s in SAMPLES}
    for name in args.only or ():
        if name not in known:
            raise SystemExit(f"unknown sample {name!r}; known: {', '.join(sorted(known))}")
    for sample in SAMPLES:
        if args.only and sample.name not in args.only:
            continue
        info = make(sample, out)
        print(json.dumps(info), flush=True)
    write_readme(out)
    return 0


def write_readme(out: Path) -> None:
    lines = ["# Sample videos", "",
             "Made by `python scripts/make_samples.py` (fixed seeds: rerunning it gives the "
             "same clips). Each clip `NAME` comes with `NAME.truth.json` (the renderer's "
             "truth, docs/renderer.md), `NAME.trajectory.json` (the simulator's trajectory, "
             "docs/trajectory.md) and `NAME.events.jsonl` (the simulator's events, "
             "docs/events.md). 1280x720, 25 fps, H.264.", "",
             "| clip | simulated | what it shows |", "|---|---|---|"]
    for s in SAMPLES:
        source = f"`{s.scenario}` scenario" if not s.actions else f"`{s.scenario}` opening shot"
        lines.append(f"| [{s.name}.mp4]({s.name}.mp4) | {source}, seed {s.seed} | "
                     f"{s.description} |")
    (out / "README.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
