"""Serial baselines timed at once, one per physical core (a batch's end since session 14), against the
same references timed alone, one after another (the settle before it): per task, how far the pinned
median sits from the alone one, beside how far alone medians move between rounds on their own.

One evaluator builds each task's bench data once. Then, `--rounds` times, every task's serial
reference is timed alone, task after task, and all of them pinned at once (`eval/settle.py`'s
placement: one logical CPU per physical core of those this process may use, `--width` at most), the
order of the two alternating by round. Each timing is one fresh reference process, as a settle's
first timing is. Reported per task: the alone medians and their spread (max/min - 1: the alone
case's own accuracy, as `serial_spread.py` measures it between runs), the pinned medians, the
pinned/alone ratio of their medians, whether that sits within the alone spread, and how many pinned
timings the settle would have re-timed alone (`settle.pinned_problem`); per round, the wall seconds
of each phase (what the settle costs each way).

Run it as the lanes would: `taskset -c 0-15` for one GPU's share of a 32-core host, or nothing for
the whole host. Beside it nothing else should run.

CPU (any machine): PYTHONPATH=src python3 benchmarks/serial_pinned.py --tasks tests/eval/tasks/vec_scale \
    tests/eval/tasks/vec_scale_host --rounds 2 --out /tmp/pinned
GPU host: PYTHONPATH=src python3 benchmarks/serial_pinned.py --rounds 3 --out OUT/pinned
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_throughput import FIXED_TASKS  # noqa: E402

from regrapht.eval import EvalConfig, Evaluator, toolchain  # noqa: E402
from regrapht.eval.cpu_meter import one_per_core  # noqa: E402
from regrapht.eval.serial_baselines import SerialBaseline  # noqa: E402
from regrapht.eval.settle import pinned_problem  # noqa: E402
from regrapht.tasks import find_task, load_task  # noqa: E402


def task_of(name: str):
    return load_task(Path(name)) if Path(name).is_dir() else find_task(name)


def timing(baseline: SerialBaseline, problem: str | None) -> dict:
    return {
        "median_ms": baseline.median_s * 1e3 if baseline.samples else None,
        "n": len(baseline.samples),
        "rel_iqr": baseline.rel_iqr if baseline.samples else None,
        "background_cores": baseline.background_cores,
        "problem": problem,
    }


def alone(evaluator: Evaluator, tasks, benches, max_error: float, max_background: float) -> dict:
    out = {}
    for task in tasks:
        bench = benches[task.id]
        sets = [replace(s, expected={}, inputs={}) for s in bench.sets]
        baseline = evaluator.oracle.time_serial(task, bench.dir, sets, None, True)
        out[task.id] = timing(baseline, baseline.disturbed(max_background))
    return out


def pinned(evaluator: Evaluator, tasks, benches, cores: list[int], max_error: float, max_background: float) -> dict:
    width = min(len(cores), len(tasks))
    free: queue.Queue[int] = queue.Queue()
    for cpu in cores[:width]:
        free.put(cpu)

    def one(task):
        cpu = free.get()
        try:
            bench = benches[task.id]
            sets = [replace(s, expected={}, inputs={}) for s in bench.sets]
            baseline = evaluator.oracle.time_serial(task, bench.dir, sets, None, True, cpu=cpu, beside=width - 1)
            return task.id, {**timing(baseline, pinned_problem(baseline, max_error, max_background)), "cpu": cpu}
        finally:
            free.put(cpu)

    with ThreadPoolExecutor(max_workers=width) as threads:
        return dict(threads.map(one, tasks))


def summary(rounds: list[dict], task_ids: list[str]) -> dict:
    per_task = {}
    for task_id in task_ids:
        a = [r["alone"][task_id]["median_ms"] for r in rounds if r["alone"][task_id]["median_ms"]]
        p = [r["pinned"][task_id]["median_ms"] for r in rounds if r["pinned"][task_id]["median_ms"]]
        if not a or not p:
            continue
        alone_spread = max(a) / min(a) - 1
        ratio = statistics.median(p) / statistics.median(a)
        per_task[task_id] = {
            "alone_ms": a,
            "pinned_ms": p,
            "alone_spread": alone_spread,
            "pinned_spread": max(p) / min(p) - 1,
            "pinned_over_alone": ratio,
            "within_alone_spread": abs(ratio - 1) <= alone_spread,
            "pinned_rejected": sum(1 for r in rounds if r["pinned"][task_id]["problem"]),
        }
    deviations = [abs(t["pinned_over_alone"] - 1) for t in per_task.values()]
    return {
        "tasks": per_task,
        "within": sum(1 for t in per_task.values() if t["within_alone_spread"]),
        "max_deviation": max(deviations) if deviations else None,
        "median_alone_spread": statistics.median(t["alone_spread"] for t in per_task.values()) if per_task else None,
        "alone_s": [r["alone_s"] for r in rounds],
        "pinned_s": [r["pinned_s"] for r in rounds],
    }


def write_report(out: Path, cores: list[int], rounds: list[dict], tasks) -> dict:
    report = {
        "cpu": toolchain.cpu_model(),
        "usable_cpus": sorted(toolchain.usable_core_set()),
        "cores": cores,
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "rounds": rounds,
        "summary": summary(rounds, [t.id for t in tasks]),
    }
    (out / "serial_pinned.json").write_text(json.dumps(report, indent=1))
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("."))
    parser.add_argument("--rounds", type=int, default=3, help="Rounds of both phases (default 3).")
    parser.add_argument("--tasks", nargs="*", default=FIXED_TASKS, help="Task ids or folders (default: the throughput set).")
    parser.add_argument("--width", type=int, default=0, help="Pinned timings at once (default 0: one per physical core).")
    args = parser.parse_args()
    if args.rounds < 2:
        parser.error("--rounds must be at least 2: the alone medians' spread between rounds is the yardstick")
    args.out.mkdir(parents=True, exist_ok=True)
    tasks = [task_of(name) for name in args.tasks]
    cores = one_per_core(toolchain.usable_core_set())
    cores = cores[: args.width] if args.width > 0 else cores
    if len(cores) < 2:
        raise SystemExit(f"only {len(cores)} physical core(s) usable here: nothing to time at once")
    rounds: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="regrapht-serial-pinned-") as scratch:
        config = EvalConfig(cache_dir=str(Path(scratch) / "build"), serial_cache=False)
        config.timing_config.serial_quiet = False  # the builds' own timings are not what is compared
        tc = config.timing_config
        with Evaluator(config) as evaluator:
            benches = {}
            for task in tasks:
                benches[task.id] = evaluator.bench_reference(task)
                benches[task.id].wait_serial()
            print(f"{len(tasks)} tasks built; pinned on cores {cores}", flush=True)
            for k in range(args.rounds):
                entry: dict = {"round": k, "load_before": os.getloadavg()}
                phases = ("alone", "pinned") if k % 2 == 0 else ("pinned", "alone")
                for phase in phases:
                    began = time.perf_counter()
                    if phase == "alone":
                        entry["alone"] = alone(evaluator, tasks, benches, tc.serial_max_median_error, tc.serial_max_background)
                    else:
                        entry["pinned"] = pinned(
                            evaluator, tasks, benches, cores, tc.serial_max_median_error, tc.serial_max_background
                        )
                    entry[f"{phase}_s"] = time.perf_counter() - began
                rounds.append(entry)
                write_report(args.out, cores, rounds, tasks)  # a run cut by its limit keeps its rounds
                print(f"round {k + 1}: alone {entry['alone_s']:.1f} s, pinned {entry['pinned_s']:.1f} s", flush=True)
                for task in tasks:
                    a, p = entry["alone"][task.id], entry["pinned"][task.id]
                    print(
                        f"  {task.id:18s} alone {a['median_ms']:10.3f} ms (iqr {100 * (a['rel_iqr'] or 0):.2f}%)"
                        f"  pinned {p['median_ms']:10.3f} ms (iqr {100 * (p['rel_iqr'] or 0):.2f}%, cpu {p['cpu']},"
                        f" own-core background {p['background_cores']})" + (f"  REJECTED: {p['problem']}" if p["problem"] else ""),
                        flush=True,
                    )
    s = write_report(args.out, cores, rounds, tasks)["summary"]
    print(
        f"\npinned vs alone over {args.rounds} rounds: {s['within']} of {len(s['tasks'])} tasks within their alone "
        f"spread; largest |pinned/alone - 1| {100 * (s['max_deviation'] or 0):.2f}%, median alone spread "
        f"{100 * (s['median_alone_spread'] or 0):.2f}%; phase seconds alone {[round(x, 1) for x in s['alone_s']]}, "
        f"pinned {[round(x, 1) for x in s['pinned_s']]}"
    )
    for task_id, t in s["tasks"].items():
        print(
            f"  {task_id:18s} pinned/alone {t['pinned_over_alone']:.4f}  alone spread {100 * t['alone_spread']:.2f}%  "
            f"pinned spread {100 * t['pinned_spread']:.2f}%  rejected {t['pinned_rejected']}/{len(rounds)}"
        )


if __name__ == "__main__":
    main()
