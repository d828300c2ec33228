"""How far the same task's serial median moves between runs and batches.

Each run is a fresh evaluator (fresh secret, fresh inputs, cold compile cache) that evaluates a batch
over the throughput tasks (`eval_throughput.FIXED_TASKS`), so compiles, bench-data builds and
candidates load the machine while serial baselines are timed, as in a search. Three series, their
runs interleaved so each sees the same machine:

- `per-run`: the serial reference timed in every run beside the batch's other work, as before
  issue 20 (no quiet section, no kept baselines);
- `quiet`: a fresh store each run, so every run times each task beside its batch and again once
  the batch is done (the timing its records divide by): since session 14 the tasks at once, one per
  physical core, where each passes the spread rule on its own (`serial_pinned.py` compares that
  with alone timings);
- `kept`: one store for all its runs: the first acceptable quiet timing is kept, and later runs
  reuse it.

For each task and series: the serial medians and their spread (max/min - 1), and per run where the
baseline came from, its samples' spread (IQR / median), whether it began quiet, and how many cores
other processes kept busy meanwhile; the machine's load average before and after each run.

CPU target (any machine): PYTHONPATH=src python3 benchmarks/serial_spread.py --target cpu --out DIR
GPU machine: PYTHONPATH=src python3 benchmarks/serial_spread.py --target cuda --runs 3 --out DIR
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_throughput import FIXED_TASKS, variants  # noqa: E402

from regrapht.eval import EvalConfig, Evaluator, toolchain  # noqa: E402
from regrapht.tasks import find_task  # noqa: E402

SERIES = ("per-run", "quiet", "kept")


def batch(tasks, target: str, per_task: int) -> list[tuple]:
    """The candidates of one run: naive.cu and its edits on the GPU; on the CPU, serial.cpp itself
    (a correct single-threaded cpu candidate) and copies of it with distinct comments."""
    items = []
    for task in tasks:
        if target == "cuda":
            sources = [code for label, code in variants(task.naive_source() or "") if label != "syntax_error"]
        else:
            sources = [task.serial_source() + f"\n// copy {i}\n" for i in range(per_task)]
        items += [(task, code, target) for code in sources[:per_task]]
    return items


def one_run(
    series: str,
    tasks,
    target: str,
    per_task: int,
    kept_store: Path,
    threads: int,
    cache_gib: float | None,
    max_background: float | None = None,
) -> dict:
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="regrapht-serial-spread-") as scratch:
        config = EvalConfig(
            cache_dir=str(Path(scratch) / "build"), reference_threads=threads, reference_cache_gib=cache_gib
        )
        if max_background is not None:
            config.timing_config.serial_max_background = max_background
        if series == "per-run":
            config.serial_cache = False
            config.timing_config.serial_quiet = False
        elif series == "quiet":
            config.serial_store = str(Path(scratch) / "baselines.sqlite")
        else:
            config.serial_store = str(kept_store)
        start = time.perf_counter()
        with Evaluator(config) as evaluator:
            results = evaluator.evaluate_many(batch(tasks, target, per_task))
        wall = time.perf_counter() - start
    serial: dict[str, dict] = {}
    statuses: dict[str, int] = {}
    for r in results:
        statuses[r.status] = statuses.get(r.status, 0) + 1
        if "serial" in r.timings and r.task_id not in serial:
            s = r.timings["serial"]
            serial[r.task_id] = {
                "median_ms": s["median_s"] * 1e3,
                "n": s["n"],
                "rel_iqr": s.get("rel_iqr"),
                "source": s.get("source", "measured"),
                "quiet": s.get("quiet"),
                "background_cores": s.get("background_cores"),
                "not_kept": s.get("not_kept", ""),
            }
    return {
        "series": series,
        "wall_s": wall,
        "statuses": statuses,
        "load_before": load_before,
        "load_after": os.getloadavg(),
        "serial": serial,
    }


def summary(runs: list[dict], task_ids: list[str]) -> dict:
    out: dict = {}
    for series in SERIES:
        mine = [r for r in runs if r["series"] == series]
        if not mine:
            continue
        per_task = {}
        for task_id in task_ids:
            medians = [r["serial"][task_id]["median_ms"] for r in mine if task_id in r["serial"]]
            if len(medians) >= 2:
                per_task[task_id] = {"medians_ms": medians, "spread": max(medians) / min(medians) - 1}
        spreads = [v["spread"] for v in per_task.values()]
        background = [
            s["background_cores"] for r in mine for s in r["serial"].values() if s["background_cores"] is not None
        ]
        out[series] = {
            "tasks": per_task,
            "max_spread": max(spreads) if spreads else None,
            "median_spread": statistics.median(spreads) if spreads else None,
            "background_cores_median": statistics.median(background) if background else None,
            "wall_s": [r["wall_s"] for r in mine],
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("."))
    parser.add_argument("--runs", type=int, default=3, help="Runs per series (default 3).")
    parser.add_argument("--target", choices=("cpu", "cuda"), default="cuda" if toolchain.gpus() else "cpu")
    parser.add_argument("--series", nargs="+", choices=SERIES, default=list(SERIES))
    parser.add_argument("--per-task", type=int, default=3, help="Candidates per task and run (default 3).")
    parser.add_argument("--reference-threads", type=int, default=EvalConfig().reference_threads)
    parser.add_argument(
        "--reference-cache-gib",
        type=float,
        default=None,
        help="Bench data kept after its task's candidates (default: the evaluator's, a quarter of memory).",
    )
    parser.add_argument("--tasks", nargs="*", default=FIXED_TASKS, help="Task ids (default: the throughput set).")
    parser.add_argument(
        "--serial-max-background",
        type=float,
        default=None,
        help="Cores of other processes' CPU use above which a timing is not kept (default: the evaluator's, "
        "0.5). A shared machine is never that quiet; raise it there to see the kept series at work.",
    )
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    tasks = [find_task(task_id) for task_id in args.tasks]
    machine = toolchain.gpus()[0].name if args.target == "cuda" and toolchain.gpus() else toolchain.cpu_model()
    runs: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="regrapht-serial-kept-") as kept:
        kept_store = Path(kept) / "baselines.sqlite"
        for round_index in range(args.runs):
            for series in args.series:
                run = one_run(
                    series,
                    tasks,
                    args.target,
                    args.per_task,
                    kept_store,
                    args.reference_threads,
                    args.reference_cache_gib,
                    args.serial_max_background,
                )
                run["round"] = round_index
                runs.append(run)
                print(
                    f"run {round_index + 1} {series}: {run['wall_s']:.1f} s, load "
                    f"{run['load_before'][0]:.2f} -> {run['load_after'][0]:.2f}, {run['statuses']}",
                    flush=True,
                )
                for task_id, s in run["serial"].items():
                    print(
                        f"  {task_id:16s} {s['median_ms']:10.3f} ms  n={s['n']:3d}  iqr/median="
                        f"{s['rel_iqr'] if s['rel_iqr'] is None else round(s['rel_iqr'] * 100, 2)}%  "
                        f"{s['source']:8s} quiet={s['quiet']} background={s['background_cores']}",
                        flush=True,
                    )
    report = {
        "machine": machine,
        "target": args.target,
        "cpus": os.cpu_count(),
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "runs": runs,
        "summary": summary(runs, [t.id for t in tasks]),
    }
    (args.out / "serial_spread.json").write_text(json.dumps(report, indent=1))
    for series, s in report["summary"].items():
        if s["max_spread"] is None:
            continue
        print(
            f"\n{machine} ({args.target}), {series}: serial median spread over {args.runs} runs: max "
            f"{s['max_spread'] * 100:.2f}%, median {s['median_spread'] * 100:.2f}% over {len(s['tasks'])} tasks; "
            f"other processes' CPU use during timings: median {s['background_cores_median']} cores"
        )
        for task_id, t in s["tasks"].items():
            print(f"  {task_id:16s} {t['spread'] * 100:7.2f}%  " + " ".join(f"{m:.3f}" for m in t["medians_ms"]))


if __name__ == "__main__":
    main()
