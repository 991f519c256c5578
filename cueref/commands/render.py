"""Film a trajectory file as an overhead camera would: an H.264 MP4 and, beside it,
its exact truth (CLIP.truth.json: camera, per-frame boxes and centres, visibility,
lux maps). See docs/renderer.md."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NAME = "render"
HELP = "trajectory -> MP4 video + truth (camera, boxes, centres, lux)"
ORDER = 20


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("trajectory", help="trajectory JSON file (docs/trajectory.md)")
    p.add_argument("-o", "--output", required=True, help="video file to write (.mp4)")
    p.add_argument("--seed", type=int, default=0, help="seed of noise and random choices")
    p.add_argument("--resolution", default="1280x720",
                   help="WIDTHxHEIGHT, 1280x720 to 1920x1080 (default 1280x720)")
    p.add_argument("--fps", type=float, help="video frame rate, 25-60 (default: the "
                   "trajectory's, clamped to that range)")
    p.add_argument("--random-look", action="store_true",
                   help="random camera pose, lens, cloth, lamps, sensor and occluders "
                        "drawn from --seed (domain randomisation)")
    p.add_argument("--quiet", action="store_true", help="no frame counter on stderr")


def parse_resolution(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise ValueError(f"resolution {text!r} is not WIDTHxHEIGHT, e.g. 1280x720") from None
    return w, h


def run(args: argparse.Namespace) -> int:
    from equipment import get_discipline
    from simworld.render import default_camera, random_setup, render_video
    from simworld.render.api import check_fps
    from simworld.render.camera import check_size
    from tracking import Trajectory

    size = check_size(parse_resolution(args.resolution))
    if args.fps is not None:
        check_fps(args.fps)
    src = Path(args.trajectory)
    traj = Trajectory.load(src)
    disc = get_discipline(traj.discipline)
    if args.random_look:
        camera, look = random_setup(disc, args.seed, size)
    else:
        camera, look = default_camera(disc.table, size), None

    def progress(k: int, n: int) -> None:
        if not args.quiet:
            end = "\n" if k == n else ""
            print(f"\rcueref render: frame {k}/{n}", end=end, file=sys.stderr, flush=True)

    truth = render_video(traj, args.output, camera=camera, look=look, seed=args.seed,
                         fps=args.fps, progress=progress)
    if not args.quiet:
        print(f"cueref render: wrote {args.output} and {truth}", file=sys.stderr)
    return 0
