"""Where the calibration saw each diamond, against where the renderer inlaid it.

    python bench/bench_sights.py --start 0 --n 100 --lens --jsonl rows.jsonl
    python bench/bench_sights.py --seeds 2731 3832 --lens --true-lens
    python bench/bench_sights.py --start 0 --n 10900 --light-wood 1280 --lens --jsonl rows.jsonl
    python bench/bench_sights.py --summarise a.jsonl b.jsonl --out report.md

Each scene of ``bench_calibration.py`` (the same seeds, 20 deg tilt, opening balls) is
calibrated (``--lens``: its lens measured first, as there) and each diamond it found
(``Calibration.diamonds_px``) is compared with the renderer's own sight
(:func:`simworld.render.sights_as_drawn`, projected by the renderer's camera): the
offset in px, split across the rail (positive outward, away from the cloth) and along
it. The self-check counts the diamonds' scatter as independent from one to the next;
an offset shared by a rail's diamonds (its light, the lettering beside them) moves the
mapping more than that scatter says. So per rail: the mean offset across and along,
and the summary compares the spread of those means with what independent scatter
alone would give (each rail's per-diamond variance over its count).

``--true-lens``: give the renderer's own lens (with the measured lens's covariance)
instead of the measured one: whether a scene's error is the lens's or the sights'.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_calibration import LENS_VIEWS, cloth_grid, measure_lens  # noqa: E402
from bench.rows import (  # noqa: E402
    add_row_options,
    add_seed_options,
    run_rows,
    seed_rows,
    write_summary,
)
from calibration import calibrate_image  # noqa: E402
from calibration.detect import CalibrationError  # noqa: E402
from calibration.fit import diamond_names, rail_outward  # noqa: E402
from simworld.render import calibration_scene, sights_as_drawn  # noqa: E402

#: rails with fewer diamonds found are left out of the per-rail means
MIN_PER_RAIL = 3
#: ``--light-wood``: the rails' grey, the sights' grey, the wood's grain contrast above
#: these (simworld.render.Look; a laminate's grain is 0.01-0.05)
LIGHT_WOOD, LIGHT_SIGHTS, GRAINED = 0.35, 0.5, 0.15
#: mm: a fit this far off somewhere has not found the camera (sights taken for others
#: hundreds of px off): the sights' offsets it gives are not a centroid's
LOST_MM = 20.0


def _grey(rgb) -> float:
    return float(np.dot(rgb, (0.299, 0.587, 0.114)))


def light_wood_seeds(seeds, width: int) -> list[int]:
    """Those of ``seeds`` whose scene is light grained wood (grey over
    :data:`LIGHT_WOOD`) with light sights (grey over :data:`LIGHT_SIGHTS`) in a frame
    ``width`` px across: where the cascade's fallbacks (grain, lettering) find the
    sights. Read from the looks alone, nothing rendered."""
    from simworld.render.api import random_look

    out = []
    for seed in seeds:
        look = random_look(seed)
        # the frame's width as simworld.render.calibration_scene draws it, first
        size = [1280, 1920][int(np.random.default_rng([seed, 77]).integers(2))]
        if (size == width and look.rail_grain >= GRAINED and _grey(look.wood) > LIGHT_WOOD
                and _grey(look.diamond) > LIGHT_SIGHTS):
            out.append(seed)
    return out


def evaluate(seed: int, lens: bool = False, true_lens: bool = False) -> dict:
    """One scene: each found diamond's offset (px) from the renderer's, per-rail means,
    and the calibration's true and predicted worst error on the cloth."""
    disc, cam, look, img, _ = calibration_scene(seed, 20.0, "opening")
    drawn = sights_as_drawn(disc, cam, look, seed)  # before the board views: still cached
    table = disc.table
    row = {"seed": seed, "discipline": disc.name, "table": table.name,
           "size": [img.shape[1], img.shape[0]],
           "tolerance_mm": round(float(look.table_tolerance), 3)}
    given = {}
    if lens or true_lens:
        from calibration.lens import Lens, LensError

        try:
            measured, _ = measure_lens(cam, seed)
        except LensError as exc:
            row["lens_error"] = str(exc)
        else:
            given["lens"] = measured if not true_lens else Lens(
                measured.size, cam.K, cam.dist, measured.cov, measured.rms_px, measured.views)
    try:
        calib = calibrate_image(img, strict=False, **given)
    except CalibrationError as exc:
        row["refused"] = str(exc)
        return row
    xy = cloth_grid(table)
    px = cam.project(np.column_stack([xy, np.zeros(len(xy))]))
    err = np.linalg.norm(calib.image_to_table(px) - xy, axis=1)
    row.update(ok=calib.ok, chosen=calib.table, err_max=round(float(err.max()), 3),
               predicted=calib.quality.get("predicted_max_error_mm"),
               diamond_rms=calib.quality.get("diamond_rms_mm"), sights_image=calib.sights,
               grain=calib.grain, lettering=calib.lettering)
    if calib.profile.diamonds != table.diamonds:
        row["other_geometry"] = True  # its diamond names are another table's
        return row
    names = diamond_names(table)
    z = table.rail_top_height
    at = cam.project(np.column_stack([drawn, np.full(len(drawn), z)]))
    out = rail_outward(drawn, table)
    ahead = cam.project(np.column_stack([drawn + 10.0 * out, np.full(len(drawn), z)]))
    rails: dict[str, list] = {}
    sights = []
    for k, name in enumerate(names):
        seen = calib.diamonds_px.get(name)
        if seen is None:
            continue
        u = (ahead[k] - at[k]) / np.linalg.norm(ahead[k] - at[k])  # outward, in the image
        d = np.asarray(seen, float) - at[k]
        across, along = float(d @ u), float(d @ np.array([-u[1], u[0]]))
        sights.append([name, round(across, 3), round(along, 3)])
        rails.setdefault(name.rsplit("_", 1)[0], []).append((across, along))
    row["sights"] = sights
    row["rails"] = {rail: _rail_summary(np.array(v)) for rail, v in rails.items()}
    return row


def _rail_summary(off: np.ndarray) -> dict:
    """One rail's diamonds' offsets (rows of across, along px): their count, means and
    sample SDs (None for a lone diamond)."""
    out: dict = {"n": len(off)}
    for j, axis in enumerate(("across", "along")):
        out[axis] = round(float(off[:, j].mean()), 3)
        out[f"sd_{axis}"] = round(float(off[:, j].std(ddof=1)), 3) if len(off) > 1 else None
    return out


def _rail_spread(rows: list[dict], axis: str, min_n: int) -> tuple[float, float, int]:
    """Over the rails of ``min_n`` or more diamonds: the RMS of their mean offset
    ``axis`` (px), what independent scatter alone gives it (each rail's sample variance
    over its count), and how many rails."""
    means, expect = [], []
    for r in rows:
        for v in r["rails"].values():
            if v["n"] >= min_n and v[f"sd_{axis}"] is not None:
                means.append(v[axis])
                expect.append(v[f"sd_{axis}"] ** 2 / v["n"])
    if not means:
        return float("nan"), float("nan"), 0
    return (float(np.sqrt(np.mean(np.square(means)))), float(np.sqrt(np.mean(expect))),
            len(means))


def _column(done: list[dict]) -> list[str]:
    """One column of the summary's table: the figures of the scenes ``done``."""
    off = np.array([[s[1], s[2]] for r in done for s in r["sights"]]).reshape(-1, 2)
    dist = np.hypot(off[:, 0], off[:, 1])
    col = [str(len(done)), str(len(off))]
    col += [f"{np.median(dist):.2f} / {np.percentile(dist, 90):.2f} / {dist.max():.2f}",
            f"{off[:, 0].mean():+.3f} / {off[:, 1].mean():+.3f}"] if len(off) else ["", ""]
    for axis in ("across", "along"):
        for min_n in (MIN_PER_RAIL, 2):
            rms, indep, n = _rail_spread(done, axis, min_n)
            shared = np.sqrt(max(rms ** 2 - indep ** 2, 0.0)) if n else float("nan")
            col.append(f"{rms:.3f} / {indep:.3f} / {shared:.3f} ({n} rails)" if n else "")
    ok = [r for r in done if r.get("ok") and r.get("predicted")]
    ratio = np.array([r["err_max"] / r["predicted"] for r in ok])
    col.append(f"{np.median(ratio):.2f} / {ratio.max():.2f} ({len(ok)})" if len(ok) else "")
    return col


def summarise(rows: list[dict], label: str) -> str:
    """A markdown report: the sights' offsets, and how much of them a rail shares, over
    all scenes and over those whose sights a fallback of the cascade found (grain,
    lettering: where the self-check adds a shared offset, calibration.fit.RAIL_SD_PX)."""
    done = [r for r in rows if "sights" in r and r["err_max"] < LOST_MM]
    groups = [("all scenes", done)] + [
        (f"on the {name} fallback's sights", part) for name, part in
        (("grain", [r for r in done if r.get("grain")]),
         ("lettering", [r for r in done if r.get("lettering")])) if part]
    names = ["scenes compared", "diamonds compared",
             "offset, median / 90th pct / max (px)", "mean offset across / along (px)"]
    for axis in ("across", "along"):
        for min_n in (MIN_PER_RAIL, 2):
            names.append(f"rails of {min_n}+ diamonds, their mean offset {axis}: RMS / what "
                         "independent scatter gives / the shared part, the root of the "
                         "difference of squares (px)")
    names.append("trusted scenes: true worst error / predicted, median / max (scenes)")
    columns = [_column(part) for _, part in groups]
    lines = [f"# Sights seen against the renderer's ({len(rows)} scenes)", "",
             "`python bench/bench_sights.py` — each diamond found, its offset from where "
             "the renderer inlaid it (px; across the rail positive outward).", "", label, "",
             f"Scenes not compared (refused, another table's diamonds, or a camera not "
             f"found: {LOST_MM:.0f} mm off or more): {len(rows) - len(done)}.", "",
             "| figure | " + " | ".join(name for name, _ in groups) + " |",
             "|---|" + "---|" * len(groups)]
    for k, name in enumerate(names):
        lines.append(f"| {name} | " + " | ".join(c[k] for c in columns) + " |")
    lines.append("")
    ok = [r for r in done if r.get("ok") and r.get("predicted")]
    top = sorted(ok, key=lambda r: -r["err_max"] / r["predicted"])[:10]
    if top:
        lines += ["## The trusted scenes nearest their prediction", ""]
        for r in top:
            worst = max(r["rails"].items(), key=lambda kv: abs(kv[1]["across"]))
            lines.append(f"- seed {r['seed']} {r['table']} ({r['size'][0]} px"
                         f"{', grain fallback' if r.get('grain') else ''}"
                         f"{', lettering fallback' if r.get('lettering') else ''}): "
                         f"{r['err_max']:.2f} mm true, {r['predicted']:.2f} predicted "
                         f"({r['err_max'] / r['predicted']:.2f}); its {worst[0]} rail's "
                         f"{worst[1]['n']} diamonds {worst[1]['across']:+.2f} px across "
                         f"on average")
        lines.append("")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_seed_options(ap, 100)
    ap.add_argument("--lens", action="store_true",
                    help=f"measure each scene's lens on {LENS_VIEWS} rendered checkerboard "
                    "views first and give it to the calibration")
    ap.add_argument("--true-lens", action="store_true",
                    help="give the renderer's own lens (the measured one's covariance)")
    ap.add_argument("--light-wood", type=int, metavar="WIDTH",
                    help="only the scenes of light grained wood with light sights in frames "
                    "WIDTH px across (1280 or 1920) among --start/--n or --seeds: where the "
                    "cascade's fallbacks find the sights")
    add_row_options(ap, "docs/bench/sights.md")
    args = ap.parse_args()
    if args.light_wood and not args.summarise:
        args.seeds = light_wood_seeds(args.seeds or range(args.start, args.start + args.n),
                                      args.light_wood)
        if not args.seeds:
            ap.error(f"no scene of light wood at {args.light_wood} px among those seeds")

    def one(seed: int) -> dict:
        return evaluate(seed, args.lens, args.true_lens)

    def describe(r: dict) -> str:
        if "sights" not in r:
            return f"seed {r['seed']}: {r.get('refused') or 'another geometry'}"
        worst = max((abs(v["across"]) for v in r["rails"].values()), default=0.0)
        return (f"seed {r['seed']} {r['table']}: {len(r['sights'])} diamonds, largest rail "
                f"mean across {worst:.2f} px, true {r['err_max']:.2f} mm, predicted "
                f"{r['predicted']}")

    if args.seeds and not args.summarise:
        rows = run_rows(args.seeds, one, describe, args.jsonl)
    else:
        rows = seed_rows(args, one, describe)
    write_summary(args.out, summarise(rows, args.label), len(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
