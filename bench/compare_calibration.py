"""Compare two calibration benchmark runs of the same scenes, scene by scene.

    python bench/compare_calibration.py --old OLD.jsonl --new NEW.jsonl [--tol 0.01] \
        [--out X.md]

The rows are those ``bench_calibration.py --jsonl`` keeps (several files per side for a
run split by seed: ``--old A B --new C D``), or ``bench_sights.py``'s (no times: a
change to the self-check, compared by what it promised). A change meant to leave the
calibration as it was (a speed-up) should show no scene trusted or refused differently,
no other profile chosen and no worst error moved by more than ``--tol`` mm. Two runs
made side by side, one process each, met the same load: their time ratio (new / old,
per scene) is then a fair figure; runs made hours apart are not.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.rows import compare_main  # noqa: E402


def _succeeded(r: dict) -> bool:
    return bool(r.get("ok")) and r.get("err_max", float("inf")) < 3.0


def compare(old: list[dict], new: list[dict], tol: float) -> tuple[list[str], list[str]]:
    """Summary lines and one line per scene that changed."""
    a, b = {r["seed"]: r for r in old}, {r["seed"]: r for r in new}
    seeds = sorted(a.keys() & b.keys())
    changed = []
    for s in seeds:
        ra, rb = a[s], b[s]
        ea, eb = ra.get("err_max"), rb.get("err_max")
        moved = (ea is None) != (eb is None) or (ea is not None and abs(ea - eb) > tol)
        if ra.get("ok") != rb.get("ok") or ra.get("chosen") != rb.get("chosen") or moved:
            changed.append(f"- seed {s}: ok {ra.get('ok')} -> {rb.get('ok')}, profile "
                           f"{ra.get('chosen')} -> {rb.get('chosen')}, worst error "
                           f"{ea if ea is None else round(ea, 3)} -> "
                           f"{eb if eb is None else round(eb, 3)} mm (promised "
                           f"{ra.get('predicted')} -> {rb.get('predicted')} mm)")
    timed = [s for s in seeds if "time" in a[s] and "time" in b[s]]
    ratio = [b[s]["time"] / a[s]["time"] for s in timed if a[s]["time"] > 0]
    big = [s for s in timed if tuple(a[s]["size"]) == (1920, 1080)]
    lines = [
        f"- scenes in both runs: {len(seeds)}",
        f"- calibrated within 3 mm: {sum(_succeeded(a[s]) for s in seeds)} -> "
        f"{sum(_succeeded(b[s]) for s in seeds)}",
        f"- scenes changed (trusted or refused, profile, or worst error by more than "
        f"{tol} mm): {len(changed)}",
        f"- time, new / old per scene: median {np.median(ratio):.2f}, range "
        f"{min(ratio):.2f}-{max(ratio):.2f}" if ratio else "- time: not kept",
    ]
    if big:
        lines.append(f"- 1920x1080 frames ({len(big)}), median / max: "
                     f"{np.median([a[s]['time'] for s in big]):.2f} / "
                     f"{max(a[s]['time'] for s in big):.2f} s -> "
                     f"{np.median([b[s]['time'] for s in big]):.2f} / "
                     f"{max(b[s]['time'] for s in big):.2f} s")
    return lines, changed


def main() -> int:
    return compare_main(__doc__, "compare_calibration.py",
                        "Calibration runs compared, scene by scene", compare, 0.01,
                        "mm a worst error may move")

if __name__ == "__main__":
    sys.exit(main())
