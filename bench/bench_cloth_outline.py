"""The cloth's outline alone, against the renderer's cushions, over benchmark scenes.

    python bench/bench_cloth_outline.py --start 0 --n 4000 --jsonl rows.jsonl
    python bench/bench_cloth_outline.py --start 0 --n 7700 --cloth black --against REV
    python bench/bench_cloth_outline.py --summarise a.jsonl b.jsonl --out report.md

Each scene of ``bench_calibration.py`` (the same seeds, 20 deg tilt, opening balls) is
rendered and :func:`calibration.detect.find_cloth` run on it: the largest distance of
the outline's corners from the cushion tops' outer edge (px, the renderer's
:func:`simworld.render.truth.cushion_outline`), the share of its quad its mask covers,
and whether it was grown by brightness (a dark cloth whose colour is noise) or by
colour. A refusal is kept with its reason. Step 1 of the calibration, about a tenth of
a full calibration's time: a change to it can be checked over every scene ever
benchmarked, and only the scenes whose outline moved calibrated again. The corner
error measures the outline only: the diamonds, not the corners, decide the mapping.

``--against REV``: git revision REV's ``calibration`` package (unpacked beside this
checkout's, as ``bench/time_calibration.py --against`` does) outlines each scene too,
and each row keeps how far its quad's corners moved from REV's (px, 0 when the same to
the bit) or that one of the two refused: a change to step 1 shows every scene it moves.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from calibration.detect import CalibrationError, find_cloth  # noqa: E402
from simworld.render import calibration_scene  # noqa: E402
from simworld.render.truth import corner_error, cushion_outline  # noqa: E402


def _against(other, img: np.ndarray, quad: np.ndarray | None) -> dict:
    """How another calibration package's outline of ``img`` differs from ``quad``
    (None: refused here)."""
    try:
        theirs = other.detect.find_cloth(img).quad
    except other.detect.CalibrationError:
        theirs = None
    if quad is None and theirs is None:
        return {"moved_px": 0.0}  # both refused
    if quad is None or theirs is None:
        return {"moved_px": None}  # one found it, the other refused
    return {"moved_px": round(float(np.abs(quad - theirs).max()), 3)}


def evaluate(seed: int, other=None) -> dict:
    """One scene's outline: corner error (px), covered share, how it was grown;
    ``other``: a calibration package whose outline it is compared with (``--against``)."""
    disc, cam, look, img, _ = calibration_scene(seed, 20.0, "opening")
    row = {"seed": seed, "discipline": disc.name, "cloth": look.cloth,
           "size": [img.shape[1], img.shape[0]]}
    t0 = time.perf_counter()
    try:
        region = find_cloth(img)
    except CalibrationError as exc:
        row.update(refused=str(exc), time=time.perf_counter() - t0)
        if other is not None:
            row.update(_against(other, img, None))
        return row
    elapsed = time.perf_counter() - t0
    if other is not None:
        row.update(_against(other, img, region.quad))
    truth = np.array([side[0] for side in cushion_outline(disc.table, cam)])
    row.update(time=elapsed, corner_px=round(corner_error(region.quad, truth), 2),
               covered=round(region.covered, 4), by_brightness=region.by_brightness)
    return row


def summarise(rows: list[dict], label: str) -> str:
    """A markdown report: how many outlines within a few px, the worst, those grown."""
    found = [r for r in rows if "corner_px" in r]
    err = np.array([r["corner_px"] for r in found])
    lines = [f"# Cloth outline ({len(rows)} scenes)", "",
             "`python bench/bench_cloth_outline.py` — the outline of step 1 alone, its "
             "corners against the renderer's cushion tops (px).", "", label, "",
             "| figure | measured |", "|---|---|",
             f"| refused | {len(rows) - len(found)} |",
             f"| corner error, median / 90th pct / max (px) | {np.median(err):.1f} / "
             f"{np.percentile(err, 90):.1f} / {err.max():.1f} |" if len(err) else
             "| corner error | — |",
             f"| over 20 px / over 50 px (the rails' outer edge, or not the cloth) | "
             f"{int((err > 20).sum())} / {int((err > 50).sum())} |",
             f"| grown by brightness | {sum(r['by_brightness'] for r in found)} |",
             f"| covering under 0.95 of its quad | "
             f"{sum(r['covered'] < 0.95 for r in found)} |", ""]
    grown = [r for r in found if r["by_brightness"]]
    if grown:
        lines += ["## Grown by brightness", ""]
        lines += [f"- seed {r['seed']} {r['discipline']} ({r['cloth']}, {r['size'][0]} px): "
                  f"corners within {r['corner_px']:.1f} px, covering {r['covered']:.3f}"
                  for r in grown]
        lines.append("")
    worst = sorted(found, key=lambda r: -r["corner_px"])[:10]
    lines += ["## The ten worst outlines", ""]
    lines += [f"- seed {r['seed']} {r['discipline']} ({r['cloth']}, {r['size'][0]} px): "
              f"{r['corner_px']:.1f} px, covering {r['covered']:.3f}" for r in worst]
    compared = [r for r in rows if "moved_px" in r]
    moved = [r for r in compared if r["moved_px"] is None or r["moved_px"] > 0]
    if compared:
        lines += ["", f"## Moved from the other revision's outline ({len(compared)} scenes "
                  "compared)", ""]
        lines += [f"- seed {r['seed']} {r['discipline']} ({r['cloth']}, {r['size'][0]} px): "
                  + ("found by one, refused by the other" if r["moved_px"] is None
                     else f"corners moved {r['moved_px']:.1f} px")
                  + (f", now {r['corner_px']:.1f} px from the truth" if "corner_px" in r
                     else "") for r in moved] or ["- none"]
    refused = [r for r in rows if "refused" in r]
    if refused:
        lines += ["", "## Refused", ""]
        lines += [f"- seed {r['seed']} {r['discipline']} ({r['cloth']}): {r['refused']}"
                  for r in refused]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--jsonl", type=Path, help="append one row per scene here")
    ap.add_argument("--summarise", type=Path, nargs="+", metavar="JSONL",
                    help="report on rows written before instead of running")
    ap.add_argument("--out", type=Path, help="write the markdown report here")
    ap.add_argument("--label", default="", help="a line saying what was run, and where")
    ap.add_argument("--cloth", metavar="NAMES",
                    help="only the scenes whose cloth is one of these (comma-separated "
                    "names of simworld.render.look.CLOTHS): their looks are drawn first, "
                    "without rendering, so a change that can reach only dark cloths is "
                    "checked over many seeds quickly")
    ap.add_argument("--against", metavar="REV",
                    help="also outline each scene with git revision REV's calibration "
                    "package, and keep how far the corners moved")
    args = ap.parse_args()
    if args.summarise:
        rows = []
        for path in args.summarise:
            if not path.is_file():
                ap.error(f"no such file: {path}")
            rows += [json.loads(line) for line in path.read_text().splitlines() if line]
    else:
        rows = []
        other = None
        if args.against:
            from bench.time_calibration import package_at

            other = package_at(args.against, Path(tempfile.mkdtemp()))
        out = args.jsonl.open("a") if args.jsonl else None
        seeds = list(range(args.start, args.start + args.n))
        if args.cloth:
            from simworld.render.look import CLOTHS, random_look

            wanted = set(args.cloth.split(","))
            if wanted - set(CLOTHS):
                ap.error(f"unknown cloth {sorted(wanted - set(CLOTHS))}; known: "
                         + ", ".join(CLOTHS))
            seeds = [s for s in seeds if random_look(s).cloth in wanted]
        for k, seed in enumerate(seeds):
            row = evaluate(seed, other)
            rows.append(row)
            if out:
                out.write(json.dumps(row) + "\n")
                out.flush()
            what = row.get("refused") or (f"{row['corner_px']:.1f} px, covering "
                                         f"{row['covered']:.3f}"
                                         + (", by brightness" if row["by_brightness"] else ""))
            print(f"[{k + 1}/{len(seeds)}] seed {seed} {row['cloth']}: {what}", flush=True)
        if out:
            out.close()
    report = summarise(rows, args.label)
    if args.out:
        args.out.write_text(report)
        print(f"wrote {args.out} from {len(rows)} scenes")
    else:
        print(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
