"""Time each task's naive.cu (and one serial call) at its bench size, without the full check.

A quick survey for choosing bench sizes: `regrapht tasks check --gpu` does everything (correctness
on every test size, a timed serial baseline, the solution), which takes ~10 s a task; this takes
one bench input set, one serial call and a few timed naive calls. Numbers are for sizing only: the
serial calls run beside each other on the CPU threads and are therefore slower than in a check.

    python benchmarks/size_probe.py --out probe.json [--threads 4] [TASK_ID ...]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from regrapht.eval import EvalConfig, Evaluator
from regrapht.eval.evaluator import _params
from regrapht.eval.reference import draw_bench_sets
from regrapht.eval.runner import run_worker
from regrapht.tasks.loader import TaskError, load_task
from regrapht.tasks.suite import builtin_tasks_root, iter_task_dirs


def _job(ev: Evaluator, task, libs: dict[str, str], timed: list[str], bench_dir: Path, nbytes, cuda: bool):
    job_dir = ev.jobs.job_dir()
    job = ev.jobs.job(
        task, libs, [], [], job_dir, cuda, cuda and task.convention == "device", 1,
        measure_bandwidth=ev.candidates.device is None,
    )
    spec = ev.jobs.timing_spec(
        task,
        bench_dir,
        nbytes,
        timed,
        [],
        0.3 if cuda else 0.0,
        10 if cuda else 1,
        min_rounds=3 if cuda else 1,
        warmup_rounds=1 if cuda else 0,
    )
    job["timing"] = spec
    outcome = run_worker(job, job_dir / "job.json", 120.0, 300.0, ev.jobs.memory_limit(task))
    shutil.rmtree(job_dir, ignore_errors=True)
    return outcome


def _problem(outcome) -> str:
    error = outcome.last("error")
    reason = outcome.timeout_reason or (error or {}).get("text", "") or outcome.signal_name or ""
    return f"{reason} {outcome.output_head}"[:300]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ids", nargs="*")
    parser.add_argument("--out", required=True)
    parser.add_argument("--threads", type=int, default=4)
    args = parser.parse_args()
    tasks = []
    for folder in iter_task_dirs(builtin_tasks_root()):
        if args.ids and folder.name not in args.ids:
            continue
        try:
            tasks.append(load_task(folder))
        except TaskError as exc:
            print(f"skipped: {exc}", flush=True)
    config = EvalConfig(timing=True)
    config.timing_config.input_sets = 1
    rows: list[dict] = []
    with Evaluator(config) as ev:
        naive = {
            t.id: ev.compiler.submit(
                t.naive_source() or "", "cuda", t.function, _params(t), [a.name for a in t.args]
            )
            for t in tasks
            if t.naive_path
        }

        def serial(task):
            root = ev.workdir / f"probe-{task.id}"
            t0 = time.perf_counter()
            sets = draw_bench_sets(task, root, 1, ev.oracle.seed_of(task))
            gen_s = time.perf_counter() - t0
            outcome = _job(
                ev, task, {"reference": ev.oracle.serial_library(task)}, ["reference"], root, sets[0].nbytes, False
            )
            timed = outcome.last("timing")
            serial_s = min(timed["samples"]["reference"]["host"]) if timed else None
            return root, sets[0].nbytes, gen_s, serial_s, "" if timed else _problem(outcome)

        with ThreadPoolExecutor(args.threads) as pool:
            futures = [pool.submit(serial, t) for t in tasks]
            for task, future in zip(tasks, futures):
                row = {
                    "id": task.id,
                    "split": task.split,
                    "bench": task.bench_size,
                    "io_bytes": task.io_bytes(task.bench_size),
                    "floor_bytes": task.floor_bytes(task.bench_size),
                    "floor_flops": task.floor_flops(task.bench_size),
                }
                try:
                    root, nbytes, row["gen_s"], row["serial_s"], problem = future.result()
                    if problem:
                        row["serial_problem"] = problem[:300]
                    built = naive[task.id].result() if task.id in naive else None
                    if built is not None and built.ok:
                        outcome = _job(ev, task, {"naive": built.library}, ["naive"], root, nbytes, True)
                        timed = outcome.last("timing")
                        if timed:
                            row["naive_ms"] = float(np.median(timed["samples"]["naive"]["event"])) * 1e3
                        else:
                            row["naive_problem"] = _problem(outcome)
                    shutil.rmtree(root, ignore_errors=True)
                except Exception as exc:  # one broken task must not end the survey
                    row["problem"] = f"{type(exc).__name__}: {exc}"[:300]
                rows.append(row)
                print(json.dumps(row), flush=True)
                Path(args.out).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
