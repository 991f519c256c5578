"""Per-scene rows of the calibration benchmarks: kept as JSON Lines while a run goes
(``--jsonl``), read back to summarise runs split over sessions (``--summarise``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from equipment.files import atomic_write_text


def add_row_options(ap, out: str) -> None:
    """The options every benchmark shares: where the summary goes, where the rows are
    kept, a label, and summarising kept rows instead of running."""
    ap.add_argument("--out", default=out)
    ap.add_argument("--jsonl", default=None, help="also keep the per-scene rows here")
    ap.add_argument("--label", default="", help="a line to add under the title")
    ap.add_argument("--summarise", nargs="+", metavar="JSONL",
                    help="only write the summary of rows kept by earlier runs (--jsonl)")


def add_seed_options(ap, n: int) -> None:
    """The scenes a benchmark runs: ``--n`` from ``--start``, or the ``--seeds`` listed
    (read by :func:`seed_rows`)."""
    ap.add_argument("--n", type=int, default=n)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--seeds", type=int, nargs="+", metavar="SEED",
                    help="these scenes instead of --start/--n (say, those an earlier "
                    "batch refused, run again at this commit)")


def read_rows(paths: list[str]) -> list[dict]:
    rows = []
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            rows += [json.loads(line) for line in fh if line.strip()]
    return rows


def read_seed_rows(paths: list[str]) -> list[dict]:
    """:func:`read_rows` of runs split by seed: one row per seed (the last kept), in
    seed order."""
    return sorted({r["seed"]: r for r in read_rows(paths)}.values(), key=lambda r: r["seed"])


def keep_row(path: str | None, row: dict) -> None:
    """Append ``row`` to ``path`` at once, so a run stopped midway loses nothing."""
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")


def run_rows(jobs: list, evaluate, describe, jsonl: str | None) -> list[dict]:
    """``evaluate`` each job in turn, printing ``describe(row)`` as progress and keeping
    each row (``--jsonl``) as it comes."""
    rows = []
    for k, job in enumerate(jobs):
        row = evaluate(job)
        rows.append(row)
        print(f"[{k + 1}/{len(jobs)}] {describe(row)}", file=sys.stderr, flush=True)
        keep_row(jsonl, row)
    return rows


def seed_rows(args, evaluate, describe) -> list[dict]:
    """The rows of a benchmark over seeds ``--start`` .. ``--start + --n`` (or the
    ``--seeds`` listed, where the benchmark has that option): those kept by earlier runs
    (``--summarise``), or a run's (:func:`run_rows`)."""
    if args.summarise:
        return read_seed_rows(args.summarise)
    seeds = getattr(args, "seeds", None) or list(range(args.start, args.start + args.n))
    return run_rows(list(seeds), evaluate, describe, args.jsonl)


def write_summary(path: str, text: str, n_rows: int) -> None:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out, text)
    print(f"wrote {out} from {n_rows} scenes", file=sys.stderr)


def compare_main(doc: str, script: str, title: str, compare, tol: float, tol_help: str,
                 argv: list[str] | None = None) -> int:
    """The command line of a ``compare_*.py`` script: ``--old`` and ``--new`` row files
    (several per side for a run split by seed), ``--tol``, ``--label``, ``--out``; prints
    ``compare(old_rows, new_rows, tol)``'s summary lines and changed scenes."""
    import argparse

    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--old", nargs="+", required=True, metavar="JSONL",
                    help="the old run's rows (several files: a run split by seed)")
    ap.add_argument("--new", nargs="+", required=True, metavar="JSONL")
    ap.add_argument("--tol", type=float, default=tol, help=tol_help)
    ap.add_argument("--label", default="", help="a line to add under the title")
    ap.add_argument("--out", default=None, help="also write the comparison here (markdown)")
    args = ap.parse_args(argv)
    for p in args.old + args.new:
        if not Path(p).is_file():
            ap.error(f"no such file: {p}")
    lines, changed = compare(read_seed_rows(args.old), read_seed_rows(args.new), args.tol)
    text = "\n".join([f"# {title}", "",
                      f"`python bench/{script} --old {' '.join(args.old)} "
                      f"--new {' '.join(args.new)} --tol {args.tol}`", "",
                      *([args.label, ""] if args.label else []), *lines, "",
                      *(["## Scenes that changed", "", *changed, ""] if changed else [])])
    print(text)
    if args.out:
        atomic_write_text(Path(args.out), text)
    return 0
