"""Evaluate candidate kernels for tasks side by side, each timed interleaved with the task's naive.cu.

Used to choose a task's best-known `solution.cu` among rewrites: every candidate goes through the
full evaluator (correctness on every test size, integrity checks, timing at the bench size), and the
table gives its speedup over naive.cu with the 95% confidence interval. Candidates of one task share
one evaluator, so the task's bench data and serial reference are prepared once.

    PYTHONPATH=src python3 benchmarks/candidates.py saxpy:my_saxpy.cu saxpy:other.cu --out cand.json
    PYTHONPATH=src python3 benchmarks/candidates.py --dir CANDS   # CANDS/<task>/*.cu, plus solution.cu

With --dir, each task's current solution.cu (when it has one) is evaluated too, as `solution.cu`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any


def _pairs(args: argparse.Namespace, suite: dict[str, Any]) -> list[tuple[Any, str, str]]:
    pairs: list[tuple[Any, str, str]] = []
    for spec in args.candidates:
        task_id, _, file = spec.partition(":")
        if task_id not in suite or not file:
            raise SystemExit(f"{spec!r}: expected TASK:FILE with a shipped task id")
        pairs.append((suite[task_id], file, Path(file).read_text(encoding="utf-8")))
    if args.dir:
        for folder in sorted(p for p in args.dir.iterdir() if p.is_dir()):
            task = suite.get(folder.name)
            if task is None:
                raise SystemExit(f"{folder}: no shipped task {folder.name!r}")
            current = task.root / "solution.cu"
            if current.is_file():
                pairs.append((task, "solution.cu", current.read_text(encoding="utf-8")))
            for file in sorted(folder.glob("*.cu")):
                pairs.append((task, str(file), file.read_text(encoding="utf-8")))
    return pairs


def _row(task: Any, name: str, ev: Any) -> dict[str, Any]:
    naive = ev.speedups.get("naive") or {}
    cand = ev.timings.get("candidate") or {}
    return {
        "task": task.id,
        "candidate": name,
        "status": ev.status,
        "message": ev.message if ev.status != "correct" else "",
        "median_ms": None if cand.get("median_s") is None else cand["median_s"] * 1e3,
        "over_naive": naive.get("value"),
        "over_naive_ci": [naive.get("ci_low"), naive.get("ci_high")],
        "roofline": ev.roofline.get("fraction_of_floor"),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("candidates", nargs="*", help="TASK:FILE pairs")
    ap.add_argument("--dir", type=Path, help="a folder of TASK/ folders holding candidate .cu files")
    ap.add_argument("--budget", type=float, default=1.0, help="seconds of timing per evaluation")
    ap.add_argument("--out", type=Path, help="write the rows as JSON here")
    args = ap.parse_args(argv)

    from regrapht.eval import EvalConfig, Evaluator, TimingConfig
    from regrapht.tasks import load_suite

    suite = {t.id: t for t in load_suite()}
    pairs = _pairs(args, suite)
    if not pairs:
        print("no candidates given", file=sys.stderr)
        return 2
    started = time.perf_counter()
    config = EvalConfig(timing_config=TimingConfig(budget_s=args.budget))
    with Evaluator(config) as evaluator:
        evaluations = evaluator.evaluate_many([(task, code, "cuda") for task, _, code in pairs])
    rows = [_row(task, name, ev) for (task, name, _), ev in zip(pairs, evaluations)]
    gpu = next((ev.fingerprint.get("gpu") for ev in evaluations if ev.fingerprint.get("gpu")), None)
    print(f"{'task':24} {'candidate':40} {'status':14} {'ms':>9} {'x naive':>8} {'95% CI':>15} {'roof':>5}")
    for r in rows:
        ms = "-" if r["median_ms"] is None else f"{r['median_ms']:.4f}"
        x = "-" if r["over_naive"] is None else f"{r['over_naive']:.3f}"
        lo, hi = r["over_naive_ci"]
        ci = "-" if lo is None else f"{lo:.3f}-{hi:.3f}"
        roof = "-" if r["roofline"] is None else f"{r['roofline']:.2f}"
        name = "solution.cu (current)" if r["candidate"] == "solution.cu" else Path(r["candidate"]).name
        print(f"{r['task']:24} {name:40} {r['status']:14} {ms:>9} {x:>8} {ci:>15} {roof:>5}")
        if r["message"]:
            print(f"    {r['message'][:300]}")
    if args.out:
        args.out.write_text(
            json.dumps(
                {"gpu": gpu, "wall_s": round(time.perf_counter() - started, 1), "rows": rows}, indent=1
            )
            + "\n",
            encoding="utf-8",
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
