"""Compare two light-meter benchmark runs of the same scenes, scene by scene.

    python bench/compare_light.py --old OLD.jsonl --new NEW.jsonl [--tol 0.5] [--out X.md]

The rows are those ``bench_light.py --jsonl`` keeps (several files per side for a run
split by seed). For each scene read by both: its worst cell's error, old and new; the
scenes whose worst cell moved by more than ``--tol`` points either way; cells over
10%; the 520 lux call (under, near, over) where it changed; and the time ratio, a fair
figure only for two runs made side by side.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.bench_light import light_call  # noqa: E402
from bench.rows import compare_main  # noqa: E402


def compare(old: list[dict], new: list[dict], tol: float) -> tuple[list[str], list[str]]:
    """Summary lines and one line per scene whose worst cell moved by over ``tol``
    points or whose flag changed."""
    a = {r["seed"]: r for r in old if "lux_rel_max" in r}
    b = {r["seed"]: r for r in new if "lux_rel_max" in r}
    seeds = sorted(a.keys() & b.keys())
    if not seeds:
        return ["- no scene read by both runs"], []
    worst_a = np.array([a[s]["lux_rel_max"] for s in seeds]) * 100
    worst_b = np.array([b[s]["lux_rel_max"] for s in seeds]) * 100
    moved = worst_b - worst_a
    changed = []
    for s, wa, wb in zip(seeds, worst_a, worst_b, strict=True):
        call_a, call_b = light_call(a[s]), light_call(b[s])
        if abs(wb - wa) > tol or call_a != call_b:
            changed.append(f"- seed {s} ({b[s]['cloth']}): worst cell {wa:.2f}% -> {wb:.2f}%"
                           + (f", {call_a} -> {call_b} 520 lux (truth "
                              f"{'under' if b[s]['truth_under'] else 'not under'} 520)"
                              if call_a != call_b else ""))
    ratio = [b[s]["time"] / a[s]["time"] for s in seeds if a[s].get("time")]
    # right: a dim scene not passed without a word, a bright one not flagged under
    flags = {k: sum(light_call(r[s]) != ("over" if r[s]["truth_under"] else "under")
                    for s in seeds) for k, r in (("old", a), ("new", b))}
    lines = [
        f"- scenes read by both runs: {len(seeds)}",
        f"- cells over 10%: {sum(a[s]['lux_cells_over_10'] for s in seeds)} -> "
        f"{sum(b[s]['lux_cells_over_10'] for s in seeds)}",
        f"- worst cell of all: {worst_a.max():.2f}% -> {worst_b.max():.2f}%",
        f"- per scene worst cell, median: {np.median(worst_a):.2f}% -> "
        f"{np.median(worst_b):.2f}%; 90th percentile {np.percentile(worst_a, 90):.2f}% -> "
        f"{np.percentile(worst_b, 90):.2f}%",
        f"- scenes whose worst cell moved by over {tol} points: {int((moved < -tol).sum())} "
        f"better, {int((moved > tol).sum())} worse (at most by {max(moved.max(), 0):.2f})",
        f"- flags right: {flags['old']} -> {flags['new']} of {len(seeds)}",
        f"- time per reading, new / old per scene: median {np.median(ratio):.2f}"
        if ratio else "- time: not recorded",
    ]
    return lines, changed


def main() -> int:
    return compare_main(__doc__, "compare_light.py", "Light-meter runs compared, scene by scene",
                        compare, 0.5,
                        "points (per cent) a scene's worst cell may move unlisted")

if __name__ == "__main__":
    sys.exit(main())
