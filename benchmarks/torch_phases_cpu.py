"""Where a torch evaluation's seconds go, phase by phase, measured on the cpu target (the same judge,
worker, sandbox and timing code as on cuda; eager on the host, torch.compile through inductor's C++
backend), so it runs without a GPU.

N candidates are judged one after another by one Evaluator over the shipped `relu` and `softmax`
example tasks (on cpu honest plain-torch candidates; on cuda, where those are not custom kernels, the
relu example's Triton and CUDA candidates, or --candidate TASK=PATH; each source made distinct). The
parent notes when each of the worker's messages arrives; the phases of one candidate's worker are:
  start        spawn (or spare hand-over) -> `hello`: Python, torch's import, the reference module
  load         `hello` -> `loaded`: the sandbox entered and the candidate imported
  correctness  `loaded` -> `ready_for_timing`: every test case, twice, audited
  baselines    torch.compile (and the other baselines') setup inside the worker, as it reports it
  timing       `ready_for_timing` -> `timing`, less the baselines' setup
  exit         `timing` -> the worker reaped
The reference's own worker (once per task) is reported apart, split the same way: start (to `hello`),
cases (to its last case: inputs drawn, the task's-dtype and float64 forwards, files written), warm
(the compiled baselines' warm-up, once per task and machine, on the device) and exit; and where it
ran: a cuda task's reference runs on the host with no CUDA context unless it warms the compiled
baselines (eval/torch_judge.py), and only one on the device counts in the device turns. The first
candidate of a task pays what is paid once per task and machine; `--skip-first` leaves it out of the
means.

From the repository root:
  PYTHONPATH=src python3 benchmarks/torch_phases_cpu.py --n 6 --baselines eager,compile
  PYTHONPATH=src python3 benchmarks/torch_phases_cpu.py --target cuda --n 8 --out $OUT/phases_cuda.json  (GPU)
(`--spare-early`: cpu candidates get the spare worker cuda ones get; `--no-spare`: none on cuda either.)
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from regrapht.eval import EvalConfig, Evaluator, TimingConfig
from regrapht.eval.torch_judge import TorchJudge
from regrapht.tasks import find_task

PHASES = ("start", "load", "correctness", "baselines", "timing", "exit", "total")

# Honest plain-torch candidates (accepted on cpu with a note); {tag} makes every source distinct.
CANDIDATES = {
    "relu": "import torch\nimport torch.nn as nn\n\n# variant {tag}\nclass ModelNew(nn.Module):\n"
            "    def __init__(self):\n        super().__init__()\n\n"
            "    def forward(self, x):\n        return torch.clamp_min(x, 0.0)\n",
    "softmax": "import torch\nimport torch.nn as nn\n\n# variant {tag}\nclass ModelNew(nn.Module):\n"
               "    def __init__(self, features):\n        super().__init__()\n"
               "        self.scale = nn.Parameter(torch.ones(features))\n\n"
               "    def forward(self, x):\n        e = torch.exp(x - x.amax(dim=1, keepdim=True))\n"
               "        return e / e.sum(dim=1, keepdim=True) * self.scale\n",
}  # fmt: skip


ROOT = Path(__file__).resolve().parents[1]
CUDA_DEFAULT = [f"relu={ROOT}/src/regrapht/data/tasks_torch/examples/relu/candidates/triton_relu.py",
                f"relu={ROOT}/tests/eval/hostile_torch/cuda_relu.py"]


class _Clock:
    """Message arrival times of every worker the judge runs, by job mode."""

    def __init__(self) -> None:
        self.runs: list[dict[str, Any]] = []

    def install(self, judge: TorchJudge) -> None:
        original = judge._run

        def timed(job: dict[str, Any], folder: Path, on_message: Any, *rest: Any) -> Any:
            began = time.monotonic()
            marks: dict[str, float] = {}

            def seen(message: dict[str, Any]) -> Any:
                marks.setdefault(str(message.get("event")), time.monotonic() - began)
                marks[f"last:{message.get('event')}"] = time.monotonic() - began
                if message.get("event") == "timing":
                    marks["setup"] = sum(v.get("seconds", 0.0) for k, v in message["setup"].items() if k != "candidate")
                return on_message(message) if on_message is not None else None

            outcome = original(job, folder, seen, *rest)
            self.runs.append({"mode": job["mode"], "target": job.get("target"), "marks": marks, "seconds": time.monotonic() - began})
            return outcome

        judge._run = timed  # type: ignore[method-assign]


def phases(run: dict[str, Any]) -> dict[str, float]:
    m, total = run["marks"], run["seconds"]
    hello = m.get("hello", total)
    loaded = m.get("loaded", hello)
    ready = m.get("ready_for_timing", loaded)
    timing = m.get("timing", ready)
    setup = m.get("setup", 0.0)
    return {"start": hello, "load": loaded - hello, "correctness": ready - loaded, "baselines": setup,
            "timing": timing - ready - setup, "exit": total - timing, "total": total}  # fmt: skip


def reference_phases(run: dict[str, Any]) -> dict[str, Any]:
    """The reference worker's phases (see the module's docstring) and where it ran."""
    m, total = run["marks"], run["seconds"]
    hello = m.get("hello", total)
    cases = m.get("last:reference_case", hello)
    warm = m.get("baselines", cases)
    return {"start": hello, "cases": cases - hello, "warm": warm - cases, "exit": total - warm, "total": total,
            "on": "device" if run.get("target") == "cuda" else "host"}  # fmt: skip


def row(task: str, ev: Any, cand: dict[str, Any], first: bool, reference_s: float,
        reference: dict[str, Any] | None = None) -> dict[str, Any]:  # fmt: skip
    """One candidate's line of the report: its worker's phases, the record's own seconds, every
    baseline's speedup (Speedup.to_dict's `value`) and what the record says of baselines that
    failed to set up (`integrity`), so a missing baseline is seen, not read as no baseline."""
    return {"task": task, "status": ev.status, "first": first, "phases": phases(cand), "reference_s": reference_s,
            "record_seconds": ev.seconds, "speedups": {k: v.get("value") for k, v in ev.speedups.items()},
            "integrity": list(ev.integrity), "message": ev.message[:300],
            "reference": reference_phases(reference) if reference is not None else None}  # fmt: skip


def ready_first(builds: list[list[Any]]) -> Iterator[int]:
    """The items' indices in the order Evaluator.evaluate_many gives them the device: the first (in
    the given order) whose extension builds are all done, waiting only when none is."""
    import concurrent.futures

    pending = list(range(len(builds)))
    while pending:
        ready = [i for i in pending if all(f.done() for f in builds[i])]
        if not ready:
            concurrent.futures.wait([f for i in pending for f in builds[i] if not f.done()],
                                    return_when=concurrent.futures.FIRST_COMPLETED)  # fmt: skip
            continue
        pending.remove(ready[0])
        yield ready[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=6, help="Candidates in all, alternating relu and softmax.")
    parser.add_argument("--tasks", default="relu,softmax")
    parser.add_argument("--target", default="cpu")
    parser.add_argument("--candidate", action="append", default=[], metavar="TASK=PATH",
                        help="Candidate files to cycle through instead of the plain-torch ones (which are not custom "
                             "kernels on cuda). Default on cuda: the relu example's Triton and CUDA candidates.")
    parser.add_argument("--baselines", default="eager,compile")
    parser.add_argument("--budget", type=float, default=0.5, help="Timing seconds per evaluation.")
    parser.add_argument("--no-sandbox", action="store_true")
    parser.add_argument("--no-spare", action="store_true", help="Turn off the spare torch worker.")
    parser.add_argument("--spare-early", action="store_true",
                        help="Give cpu candidates the spare cuda ones get (started with the previous candidate's worker, "
                             "so it imports torch beside the timed rounds: phases, not speedups, are what this measures).")
    parser.add_argument("--skip-first", action="store_true", help="Means leave out each task's first candidate.")
    parser.add_argument("--build-on-turn", action="store_true",
                        help="Build each candidate's extension when its turn comes (the load phase then holds the "
                             "build), not all of them on the CPU pool before the first turn.")
    parser.add_argument("--out", type=Path, default=None, help="A JSON file for every run's phases.")
    args = parser.parse_args()
    files = args.candidate or (CUDA_DEFAULT if args.target == "cuda" else [])
    pairs = [(find_task(spec.split("=", 1)[0]), Path(spec.split("=", 1)[1]).read_text()) for spec in files]
    if not pairs:
        pairs = [(t, CANDIDATES[t.id]) for t in (find_task(name) for name in args.tasks.split(","))]
    config = EvalConfig(seeds=1, timing=True, timing_config=TimingConfig(budget_s=args.budget, min_rounds=5, min_s=0.1),
                        sandbox=not args.no_sandbox, spare_worker=not args.no_spare, call_timeout_s=60.0,
                        total_timeout_s=300.0, memory_limit_gib=8.0, torch_baselines=tuple(args.baselines.split(",")))  # fmt: skip
    clock = _Clock()
    rows = []
    began = time.monotonic()
    with Evaluator(config) as evaluator:
        clock.install(evaluator.torch_judge())
        if args.spare_early and hasattr(evaluator.torch_judge(), "spare_targets"):
            evaluator.torch_judge().spare_targets.add(args.target)
        items = []
        for i in range(args.n):
            task, text = pairs[i % len(pairs)]
            # distinct sources (a comment), so nothing keyed on the text is reused
            items.append((task, text.replace("{tag}", str(i)) if "{tag}" in text else f"{text}\n# variant {i}\n"))
        # Every extension build starts on the judge's CPU pool at once, and the device takes the first
        # candidate whose builds are done, as Evaluator.evaluate_many does: a build is off the turns.
        ends: list[float] = []
        builds = [[] if args.build_on_turn else evaluator.torch_judge().prebuild(s, args.target) for _, s in items]
        for f in (f for fs in builds for f in fs):
            f.add_done_callback(lambda _: ends.append(time.monotonic()))
        for i in ready_first(builds):
            task, source = items[i]
            first = not any(r["task"] == task.id for r in rows)
            ev = evaluator.evaluate(task, source, args.target)
            cand = [r for r in clock.runs if r["mode"] == "candidate"][-1]
            ref = [r for r in clock.runs if r["mode"] == "reference"]
            rows.append(row(task.id, ev, cand, first, ref[-1]["seconds"] if first and ref else 0.0, ref[-1] if first and ref else None))
            p, rp = rows[-1]["phases"], rows[-1]["reference"]
            speedups = " ".join(f"{k}={v:.2f}x" for k, v in rows[-1]["speedups"].items() if v is not None)
            where = f" on the {rp['on']}" if rp and args.target == "cuda" else ""
            refs = (f" (reference worker {rp['total']:.2f}{where}: start={rp['start']:.2f} cases={rp['cases']:.2f} "
                    f"warm={rp['warm']:.2f} exit={rp['exit']:.2f})" if rp else "")  # fmt: skip
            print(f"{i:2d} {task.id:8s} {ev.status:8s} " + " ".join(f"{k}={p[k]:.2f}" for k in PHASES) + refs + f" {speedups}", flush=True)
            for line in [ev.message[:300]] * (ev.status != "correct") + [x for x in ev.integrity if "unavailable" in x][:2]:
                print(f"   {line[:300]}", flush=True)
            if args.out:  # after every row: a run cut short by its limit still leaves what it measured
                args.out.write_text(json.dumps({"args": vars(args) | {"out": str(args.out)}, "rows": rows}, indent=1, default=str))
    wall = time.monotonic() - began
    build_s = max(ends) - began if ends else 0.0
    if ends:
        print(f"extension builds on the CPU pool, off the turns: all done {build_s:.1f} s after the start")
    kept = [r for r in rows if not (args.skip_first and r["first"])]
    means = {k: statistics.mean(r["phases"][k] for r in kept) for k in PHASES} if kept else {}
    print(f"mean over {len(kept)} candidate(s): " + " ".join(f"{k}={v:.2f}" for k, v in means.items()))
    print(f"wall {wall:.1f} s for {len(rows)} evaluations ({60 * len(rows) / wall:.1f} per minute), "
          f"reference workers {sum(r['reference_s'] for r in rows):.1f} s")  # fmt: skip
    # On cuda only what holds a CUDA context is a device turn: a reference run on the host is not.
    held = [r["reference_s"] for r in rows if r["reference"] and (args.target != "cuda" or r["reference"]["on"] == "device")]
    host = sum(r["reference_s"] for r in rows if r["reference"]) - sum(held)
    turns = sum(r["phases"]["total"] for r in rows) + sum(held)
    if turns:
        print(f"device turns (candidate workers and {len(held)} reference worker(s){' on the device' if args.target == 'cuda' else ''}) {turns:.1f} s: "
              f"{60 * len(rows) / turns:.1f} evaluations per device-minute"
              + (f"; references on the host, no CUDA context: {host:.1f} s" if host else ""))  # fmt: skip
    if args.out:
        args.out.write_text(json.dumps({"args": vars(args) | {"out": str(args.out)}, "rows": rows, "means": means,
                                        "wall_s": wall, "prebuild_s": build_s}, indent=1, default=str))  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
