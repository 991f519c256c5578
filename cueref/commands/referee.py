"""Referee a video: calibrate, meter the light, and judge every shot.

Writes into OUTDIR: calib.json and calib.png (the calibration and the picture to
check it by), events.jsonl (the table events merged with what was measured on the
video: calibration checks and light) and calls.jsonl (docs/calls.md), and prints a
short report. The detector and the tracker are not built yet: until they are, the
table events come from --events (for a sample video, the simulator's ground truth
beside it); the calibration and the light are measured on the video itself.
"""

from __future__ import annotations

import argparse
import sys

from ._camera import add_camera_arguments, camera_gamma, camera_lens

NAME = "referee"
HELP = "video -> calibration, light, calls (the main job)"
ORDER = 5


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("video", help="the overhead video (mp4, ...)")
    p.add_argument("--game", required=True, help="game name (see `cueref games`)")
    p.add_argument("--events", required=True, metavar="EVENTS",
                   help="table events JSON Lines (stands in for the tracker until it lands)")
    p.add_argument("-o", "--outdir", default="out", help="output folder (default: out)")
    p.add_argument("--table", metavar="PROFILE", help="table profile (default: the game's)")
    p.add_argument("--match", metavar="SETTINGS", help="match settings JSON file")
    add_camera_arguments(p)
    p.add_argument("--lux", type=float, metavar="LUX",
                   help="a lux-meter reading of the mean over the cloth at the start "
                        "(photometric calibration of a fixed-exposure camera)")


def run(args: argparse.Namespace) -> int:
    from adjudicate.settings import load_settings
    from cueref.pipeline import print_report, referee_video

    if args.lux is not None and not args.lux > 0:
        raise ValueError(f"--lux must be a positive reading in lux; got {args.lux}")
    result = referee_video(args.video, args.game, args.outdir, args.events,
                           table=args.table, match=load_settings(args.match),
                           lux=args.lux, camera_height=args.camera_height,
                           lens=camera_lens(args),
                           gamma=camera_gamma(args),
                           progress=lambda m: print(m, file=sys.stderr, flush=True))
    print_report(result)
    return 0

