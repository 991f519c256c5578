"""Benchmark the head-and-foot vote alone, on the calibration benchmark's scenes, with
the renderer's true camera.

    python bench/bench_orientation.py --disciplines balkline_71_2 pool51 --start 0 --n 8300
    python bench/bench_orientation.py --seeds 796 874 8271

The diamonds lie alike at both ends of a table, so every fit comes out one way round
or the other, and :func:`calibration.fit.head_foot_vote` decides which: a wrong vote
maps every ball to the other end (benchmark scene 8271, accepted 3.2 m off). Here each
scene's true camera is given as the fit, once as it is and once turned round
(:func:`calibration.fit.flip_pose`), and each vote is counted right, wrong or none
(none: the calibration says "head and foot cannot be told apart" and is refused). What
is measured is the vote, not the pose: a fit a fraction of a millimetre off may vote
otherwise where a margin is thin. ``--disciplines``: only those scenes (a discipline
in turn, :func:`simworld.render.scene_discipline`); ``--n`` counts seeds, not scenes.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.rows import (  # noqa: E402
    add_row_options,
    add_seed_options,
    read_seed_rows,
    run_rows,
    write_summary,
)
from calibration import CameraModel  # noqa: E402
from calibration.detect import CalibrationError, find_cloth  # noqa: E402
from calibration.fit import flip_pose, head_foot_vote  # noqa: E402
from equipment import DISCIPLINES  # noqa: E402
from simworld.render import calibration_scene, scene_discipline  # noqa: E402


def evaluate(seed: int) -> dict:
    """One scene's row: the vote with its true camera as the fit, and turned round."""
    disc, cam, look, img, truth = calibration_scene(seed)
    table = disc.table
    right = CameraModel(truth.K, truth.dist, truth.rvec, truth.tvec, cam.size)
    turned = CameraModel(truth.K, truth.dist, *flip_pose(truth.rvec, truth.tvec, table),
                         cam.size)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    try:
        cloth = find_cloth(img).model
    except CalibrationError as exc:
        return {"seed": seed, "discipline": disc.name, "error": str(exc)}
    row = {"seed": seed, "discipline": disc.name, "cloth": look.cloth,
           "size": list(cam.size)}
    for name, fitted, other, truly in (("as_is", right, turned, 1),
                                       ("turned", turned, right, -1)):
        scores: dict = {}
        vote, by = head_foot_vote(img, gray, fitted, other, table, cloth, scores)
        row[name] = {"vote": "none" if vote == 0 else "right" if vote == truly else "wrong",
                     "by": by, **{k: [round(float(v), 2) for v in pair]
                                  for k, pair in scores.items()}}
    return row


#: a run of this many scenes or fewer lists what each one's dots read
SCORES_LISTED = 20


def _scores(way: dict) -> str:
    """What the markings read, where the row kept it: the dots as fitted and turned
    round, against the same read where there is no marking."""
    if "bare" not in way:
        return ""
    return (f"; dots {way['as_fitted'][0]:g} as fitted, {way['turned'][0]:g} turned, "
            f"{way['bare'][0]:g} bare")


def summarise(rows: list[dict], label: str) -> str:
    lines = [f"# Head-and-foot vote benchmark ({len(rows)} scenes)", "",
             *([label, ""] if label else []),
             "`python bench/bench_orientation.py`: each scene's true camera given as the "
             "fit, as it is and turned round; the vote counted right, wrong (the table "
             "mapped turned round) or none (refused: head and foot cannot be told apart).",
             "", "| discipline | scenes | votes right | wrong | none | decided by markings "
             "/ balls on spots / rack |", "|---|---|---|---|---|---|"]
    for disc in sorted({r["discipline"] for r in rows}):
        mine = [r for r in rows if r["discipline"] == disc and "error" not in r]
        votes = Counter(r[k]["vote"] for r in mine for k in ("as_is", "turned"))
        by = Counter(r[k]["by"] for r in mine for k in ("as_is", "turned"))
        lines.append(f"| {disc} | {len(mine)} | {votes['right']} | {votes['wrong']} | "
                     f"{votes['none']} | {by['markings']} / {by['balls on spots']} / "
                     f"{by['rack']} |")
    lines.append("")
    for kind in ("wrong", "none"):
        seeds = []
        for r in rows:
            ways = [k for k in ("as_is", "turned") if "error" not in r and r[k]["vote"] == kind]
            if ways:
                seeds.append(f"{r['seed']} ({r['discipline']}, {' and '.join(ways)}"
                             f"{_scores(r[ways[0]])})")
        lines += [f"Votes {kind}: " + (", ".join(seeds) if seeds else "none") + ".", ""]
    read = [r for r in rows if "error" not in r and "bare" in r["as_is"]]
    if read and len(read) <= SCORES_LISTED:
        lines += ["What the dots read (grey levels), with the true camera as the fit:", "",
                  "| seed | way round | vote | by | as fitted | turned | bare |",
                  "|---|---|---|---|---|---|---|"]
        lines += [f"| {r['seed']} | {k} | {r[k]['vote']} | {r[k]['by'] or '-'} | "
                  f"{r[k]['as_fitted'][0]:g} | {r[k]['turned'][0]:g} | {r[k]['bare'][0]:g} |"
                  for r in read for k in ("as_is", "turned")]
        lines.append("")
    failed = [f"{r['seed']} ({r['error']})" for r in rows if "error" in r]
    if failed:
        lines += ["Cloth not found: " + ", ".join(failed) + ".", ""]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_seed_options(ap, 200)
    ap.add_argument("--disciplines", nargs="+", choices=sorted(DISCIPLINES),
                    metavar="NAME", help="only these disciplines' scenes")
    add_row_options(ap, "docs/bench/orientation.md")
    args = ap.parse_args()
    if args.summarise:
        rows = read_seed_rows(args.summarise)
    else:
        seeds = args.seeds or list(range(args.start, args.start + args.n))
        if args.disciplines:
            seeds = [s for s in seeds if scene_discipline(s) in args.disciplines]
        rows = run_rows(seeds, evaluate, lambda r: f"seed {r['seed']} {r['discipline']}: "
                        + " ".join(f"{k}={r[k]['vote']}" for k in ("as_is", "turned")
                                   if k in r), args.jsonl)
    write_summary(args.out, summarise(rows, args.label), len(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
