"""What the OS sandbox and the symbol screen add to an evaluation.

1. Entering the sandbox, in the worker: `seconds["sandbox"]` of each record (Landlock ruleset and
   seccomp filter, then the harness's check that its own calls still work inside).
2. End to end: the same honest candidate evaluated with the sandbox on and off, interleaved, in two
   evaluators of one process; the worker's wall time (`seconds["worker"]`) per evaluation.
3. The symbol screen (nm + objdump) of the candidate's built library.

Timing is off (correctness only), so the worker's start-up is a large share of what is measured.
Run: PYTHONPATH=src python3 benchmarks/sandbox_startup.py [--target cpu|cuda] [--n 20]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from regrapht.eval import EvalConfig, Evaluator, symbols
from regrapht.tasks import load_task

CANDIDATES = {
    "cpu": Path(__file__).resolve().parents[1] / "tests" / "eval" / "hostile_cpu" / "correct.cpp",
    "cuda": Path(__file__).resolve().parents[1] / "tests" / "eval" / "hostile_cuda" / "correct.cu",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", choices=sorted(CANDIDATES), default="cpu")
    parser.add_argument("--n", type=int, default=20, help="evaluations per setting")
    args = parser.parse_args()
    task = load_task(Path(__file__).resolve().parents[1] / "tests" / "eval" / "tasks" / "vec_scale")
    source = CANDIDATES[args.target].read_text()
    with tempfile.TemporaryDirectory() as cache:
        settings = {
            "on": Evaluator(EvalConfig(timing=False, cache_dir=cache)),
            "off": Evaluator(EvalConfig(timing=False, cache_dir=cache, sandbox=False)),
        }
        worker: dict[str, list[float]] = {name: [] for name in settings}
        entering: list[float] = []
        try:
            for ev in settings.values():  # compile once, warm the reference: not what is measured
                ev.evaluate(task, source, args.target)
            for _ in range(args.n):
                for name, ev in settings.items():
                    record = ev.evaluate(task, source, args.target)
                    assert record.status == "correct", record.message
                    worker[name].append(record.seconds["worker"])
                    if name == "on":
                        assert record.sandbox.get("seccomp"), record.sandbox
                        entering.append(record.seconds["sandbox"])
            library = settings["on"].compiler.compile(
                source, "cuda" if args.target == "cuda" else "cpu", task.function,
                task.signature[task.signature.index("(") + 1 : task.signature.rindex(")")],
                [a.name for a in task.args],
            ).library
            assert library is not None
            screen_s = []
            for _ in range(args.n):
                began = time.perf_counter()
                symbols.screen_library(library, args.target)
                screen_s.append(time.perf_counter() - began)
        finally:
            for ev in settings.values():
                ev.close()
    result = {
        "target": args.target,
        "n": args.n,
        "sandbox_enter_ms_median": round(1e3 * statistics.median(entering), 2),
        "sandbox_enter_ms_max": round(1e3 * max(entering), 2),
        "worker_s_median_on": round(statistics.median(worker["on"]), 4),
        "worker_s_median_off": round(statistics.median(worker["off"]), 4),
        "worker_ms_added_median": round(1e3 * (statistics.median(worker["on"]) - statistics.median(worker["off"])), 2),
        "symbol_screen_ms_median": round(1e3 * statistics.median(screen_s), 2),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
