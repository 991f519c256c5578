"""Simulator speed: how long shots take to simulate, written to docs/bench/simulator.md.

Run on demand (not a test): ``python bench/bench_simulator.py [--breaks 30]``. The
target (docs/simulator.md) is a 10 s shot of 16 balls in well under two seconds.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from simworld.physics import simulate
from simworld.scenarios import SCENARIOS, run_scenario
from simworld.scenes import opening_layout


def _time(fn) -> tuple[float, object]:
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def _breaks(discipline: str, apex: str, n: int) -> list[tuple[float, float, int]]:
    """Varied breaks: cue position, aim, speed 4-12 m/s, spin; (seconds, clip s, events)."""
    rng = np.random.default_rng(2026)
    base = opening_layout(discipline)
    rows = []
    for _ in range(n):
        layout = dict(base)
        cx, cy = layout["cue"]
        layout["cue"] = (cx + float(rng.uniform(-40, 40)), cy + float(rng.uniform(-100, 100)))
        act = {"type": "stroke", "ball": "cue", "aim": apex,
               "offset": float(rng.uniform(-40, 40)), "speed": float(rng.uniform(4000, 12000)),
               "height": float(rng.uniform(-0.5, 0.5)), "side": float(rng.uniform(-0.5, 0.5))}
        dt, res = _time(lambda layout=layout, act=act: simulate(discipline, layout, [act]))
        rows.append((dt, res.end_time, len(res.events)))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--breaks", type=int, default=30, help="breaks per pocket game")
    ap.add_argument("--out", default="docs/bench/simulator.md")
    args = ap.parse_args()
    lines = [
        "# Simulator speed", "",
        f"Measured {datetime.now(UTC):%Y-%m-%d %H:%M} UTC with "
        f"`python bench/bench_simulator.py --breaks {args.breaks}` on {platform.machine()}, "
        "2 cores shared with other work (expect ±30 %), Python "
        f"{platform.python_version()}.", "",
        "Time to simulate (events and the sampled 50 fps trajectory), in seconds.", "",
        "| shots | n | clip (s) | events (mean) | mean (s) | max (s) |",
        "|---|---|---|---|---|---|",
    ]
    for disc, apex in (("pool51", "red_1"), ("russian_pyramid", "1")):
        rows = _breaks(disc, apex, args.breaks)
        lines.append(f"| {disc} breaks, 16 balls, 4-12 m/s | {len(rows)} | "
                     f"{statistics.mean(r[1] for r in rows):.1f} | "
                     f"{statistics.mean(r[2] for r in rows):.0f} | "
                     f"{statistics.mean(r[0] for r in rows):.3f} | "
                     f"{max(r[0] for r in rows):.3f} |")
    for fam in ("carom", "pins", "pyramid", "pool"):
        rows = []
        for seed in range(args.breaks):
            dt, res = _time(lambda fam=fam, seed=seed: run_scenario(f"random_{fam}", seed=seed))
            rows.append((dt, res.end_time, len(res.events)))
        lines.append(f"| random_{fam} seeds 0-{args.breaks - 1} | {len(rows)} | "
                     f"{statistics.mean(r[1] for r in rows):.1f} | "
                     f"{statistics.mean(r[2] for r in rows):.0f} | "
                     f"{statistics.mean(r[0] for r in rows):.3f} | "
                     f"{max(r[0] for r in rows):.3f} |")
    dt, _ = _time(lambda: [run_scenario(n) for n in SCENARIOS])
    lines += ["", f"All {len(SCENARIOS)} scenarios at seed 0: {dt:.2f} s in total.", ""]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
