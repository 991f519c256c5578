"""Benchmark the light meter alone, on every fixed-exposure scene of the calibration
benchmark, with the renderer's true camera.

    python bench/bench_light.py [--n 200] [--balls opening|random] [--out docs/bench/light.md]
    python bench/bench_light.py --seeds 7611 --look cloth_wear=0 jpeg_quality=none

``--look`` replaces fields of every scene's look: the same scenes without wear, noise or
JPEG, to tell which of them a meter's error comes from.

``bench_calibration.py`` reads the light only where its own calibration is trusted
(143 of 200 scenes unaided), so wear, compression and lamps on the scenes it refuses
were never read. Here each scene of ``simworld.render.calibration_scene`` gets its
true camera as the calibration: what is measured is the meter, not the pose. As in
``bench_calibration.py``: one lux-meter reading at the measurable cell nearest the
centre, the camera's output curve and lens fall-off given as its photometric
calibration, auto-exposure scenes counted apart (no lux is due there), and every
fourth scene dimmed so that part of its cloth is under 520 lux.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.rows import add_row_options, add_seed_options, seed_rows, write_summary  # noqa: E402
from calibration import Calibration, CameraModel, LightMeter  # noqa: E402
from calibration.light import MIN_LUX, NEAR_MIN_SHARE, minimum_call  # noqa: E402
from simworld.render import BALL_LAYOUTS, Look, calibration_scene  # noqa: E402
from simworld.render.renderer import GAMMA  # noqa: E402


def read_light(meter: LightMeter, img: np.ndarray, truth) -> dict:
    """One lux-meter reading at the measurable cell nearest the centre (as an installer
    would hold the meter there; where the meter refuses the place, being near clipping,
    the next nearest), then every cell against the renderer's lux map, and whether the
    under-520-lux flag is raised."""
    lux = np.asarray(truth.lux, float)
    vals = meter._cell_values(img)
    ii, jj = np.nonzero(np.isfinite(vals))
    if not len(ii):
        return {"lux_error": "no cloth cell measurable"}
    order = np.argsort((ii - lux.shape[0] / 2) ** 2 + (jj - lux.shape[1] / 2) ** 2,
                       kind="stable")
    for k in order:  # where the meter refuses a place (near clipping), the next one
        i, j = int(ii[k]), int(jj[k])
        try:
            meter.reference(img, float(lux[i, j]), at=(truth.lux_x[i], truth.lux_y[j]))
            break
        except ValueError as exc:
            error = str(exc)
    else:
        return {"lux_error": error}
    reading = meter.measure(img)
    rel = np.abs(reading.cells / lux - 1.0)
    return {"lux_rel_max": float(np.nanmax(rel)), "lux_rel_median": float(np.nanmedian(rel)),
            "lux_cells_over_10": int(np.nansum(rel > 0.10)),
            "lux_cells": int(np.isfinite(rel).sum()), "flagged": bool(reading.under_minimum),
            "near": bool(reading.near_minimum), "lux_min_read": round(reading.lux_min, 1),
            "lux_min_truth": round(float(lux.min()), 1)}


def light_call(row: dict) -> str:
    """What the meter said of the 520 lux minimum in a row: ``under``, ``near`` (within
    its own error, either side) or ``over``, by today's band
    (:func:`calibration.light.minimum_call`) from the darkest cell's reading; rows kept
    before the reading was recorded give their flags as they were."""
    if "lux_min_read" in row:
        return minimum_call(row["lux_min_read"])
    return "under" if row.get("flagged") else "near" if row.get("near") else "over"


def flag_counts(rows: list[dict]) -> dict[str, int]:
    """Dim scenes (some cell truly under 520 lux) flagged under, said near, or passed
    without a word; bright scenes flagged under (falsely) or said near."""
    calls = [(r["truth_under"], light_call(r)) for r in rows]
    return {"dim_under": calls.count((True, "under")), "dim_near": calls.count((True, "near")),
            "dim_passed": calls.count((True, "over")),
            "bright_under": calls.count((False, "under")),
            "bright_near": calls.count((False, "near"))}


def flag_misses(rows: list[dict]) -> str:
    """The scenes whose light call is wrong (a dim scene passed without a word, a bright
    one flagged under 520 lux) and those said near 520 lux, each with its darkest
    cell's truth and reading: rows kept before the reading was recorded give the seed
    alone."""
    def one(r: dict) -> str:
        if "lux_min_read" not in r:
            return str(r["seed"])
        return f"{r['seed']} ({r['lux_min_truth']:.1f} lux, read {r['lux_min_read']:.1f})"

    def listed(what: str, pick) -> str:
        seeds = [one(r) for r in rows if pick(r["truth_under"], light_call(r))]
        return f"{what}: {', '.join(seeds)}" if seeds else ""

    return "; ".join(part for part in (
        listed("missed", lambda dim, call: dim and call == "over"),
        listed("flagged falsely", lambda dim, call: not dim and call == "under"),
        listed("near 520 lux, dim", lambda dim, call: dim and call == "near"),
        listed("near 520 lux, not dim", lambda dim, call: not dim and call == "near"))
        if part)


def flag_lines(flags: dict[str, int]) -> list[str]:
    """The benchmark table's rows for the 520 lux calls (:func:`flag_counts`)."""
    band = f"{NEAR_MIN_SHARE:.0%}"
    return [
        f"| dim scenes (under 520 lux): flagged under / near 520 (within the meter's "
        f"{band}) / passed | none passed | {flags['dim_under']} / {flags['dim_near']} / "
        f"{flags['dim_passed']} |",
        f"| other scenes: flagged under / near 520 | none flagged | "
        f"{flags['bright_under']} / {flags['bright_near']} |",
    ]


def look_change(text: str) -> tuple[str, object]:
    """``FIELD=VALUE`` of ``--look``: a number, ``true``/``false``, or ``none``."""
    field, sep, value = text.partition("=")
    if not sep or field not in Look.__dataclass_fields__:
        raise argparse.ArgumentTypeError(
            f"{text!r}: expected FIELD=VALUE with FIELD a field of the look "
            f"(simworld.render.Look), e.g. cloth_wear=0")
    words = {"none": None, "true": True, "false": False}
    if value.lower() in words:
        return field, words[value.lower()]
    for number in (int, float):
        try:
            return field, number(value)
        except ValueError:
            pass
    raise argparse.ArgumentTypeError(f"{text!r}: {value!r} is not a number, true, false "
                                     "or none")


def evaluate(seed: int, balls: str = "opening", look_changes: dict | None = None) -> dict:
    """One scene's row: the meter's error per cell against the renderer's lux map.
    ``look_changes``: fields of the scene's look replaced (``--look``)."""
    disc, cam, look, img, truth = calibration_scene(seed, balls=balls, look_changes=look_changes)
    out = {"seed": seed, "balls": balls, "discipline": disc.name, "cloth": look.cloth,
           "wear": round(float(look.cloth_wear), 3), "jpeg": look.jpeg_quality,
           "auto_exposure": bool(truth.auto_exposure)}
    if truth.auto_exposure:
        return out
    camera = CameraModel(truth.K, truth.dist, truth.rvec, truth.tvec, cam.size)
    lux = np.asarray(truth.lux, float)
    meter = LightMeter(Calibration(disc.table.name, camera), vignette=float(look.vignette),
                       cells=lux.shape, gamma=GAMMA)
    t0 = time.perf_counter()
    out.update(read_light(meter, img, truth), truth_under=bool(lux.min() < MIN_LUX),
               time=(time.perf_counter() - t0) / 3)  # three readings of the frame
    return out


def summarise(rows: list[dict], label: str) -> str:
    fixed = [r for r in rows if not r["auto_exposure"]]
    read = [r for r in fixed if "lux_rel_max" in r]
    n_cells = sum(r["lux_cells"] for r in read)
    over = sum(r["lux_cells_over_10"] for r in read)
    worst = sorted(read, key=lambda r: -r["lux_rel_max"])[:5]
    flags = flag_counts(read)
    maxes = [r["lux_rel_max"] for r in read]
    wrong = flag_misses(read)
    head = [f"# Light meter benchmark ({len(rows)} scenes, balls: {rows[0]['balls']})", "",
            *([label, ""] if label else [])]
    if not read:  # every scene in auto exposure, or none readable: no figures to give
        return "\n".join([*head, f"No scene read: {len(rows) - len(fixed)} of {len(rows)} "
                           "in auto exposure, the rest unreadable.", ""])
    lines = [
        *head,
        "`python bench/bench_light.py` (the true camera as the calibration: the meter "
        "alone). One lux-meter reading at the measurable cell nearest the centre that the "
        "meter accepts (not near clipping).", "",
        "| figure | target | measured |", "|---|---|---|",
        f"| fixed-exposure scenes read (auto exposure apart) | — | {len(read)} of "
        f"{len(fixed)} ({len(rows) - len(fixed)} in auto exposure) |",
        f"| cells within 10% | all | {n_cells - over} of {n_cells} |",
        f"| worst cell | < 10% | {max(maxes):.2%} |",
        f"| per scene worst cell, median / 99th percentile | — | "
        f"{np.median(maxes):.2%} / {np.percentile(maxes, 99):.2%} |",
        f"| cell error, median of scenes' medians | — | "
        f"{np.median([r['lux_rel_median'] for r in read]):.2%} |",
        *flag_lines(flags),
        f"| time per reading, median | — | "
        f"{np.median([r['time'] for r in read]) * 1000:.0f} ms |", "",
        *([f"Light calls: {wrong}.", ""] if wrong else []),
        "Worst scenes: " + ", ".join(
            f"{r['seed']} ({r['cloth']}, wear {r['wear']:.2f}, JPEG {r['jpeg']}: "
            f"{r['lux_rel_max']:.2%})" for r in worst), "",
    ]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_seed_options(ap, 200)
    ap.add_argument("--balls", choices=BALL_LAYOUTS, default="opening")
    ap.add_argument("--look", nargs="+", type=look_change, default=[], metavar="FIELD=VALUE",
                    help="replace these fields of every scene's look (cloth_wear=0, "
                    "noise=false, jpeg_quality=none): what a meter's error comes from")
    add_row_options(ap, "docs/bench/light.md")
    args = ap.parse_args()
    changes = dict(args.look)
    if changes and not args.label:
        args.label = "Looks changed: " + ", ".join(f"{k}={v}" for k, v in changes.items()) + "."
    rows = seed_rows(args, lambda seed: evaluate(seed, args.balls, changes),
                     lambda r: f"seed {r['seed']}: "
                     f"lux={r.get('lux_rel_max', float('nan')):.3f}")
    write_summary(args.out, summarise(rows, args.label), len(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
