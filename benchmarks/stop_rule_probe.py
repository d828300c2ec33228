"""Why a timing runs to its budget: the raw samples of a few evaluations, and the stop rule replayed on
every prefix of them.

The throughput mix's timings mostly end by the stop rules after 12-30 rounds, but some tasks' run to
the 1 s budget every time (session 14 call A: spmv_csr, inclusive_scan, histogram_u8: about 60% of the
mix's timing seconds). This evaluates the given tasks' naive.cu a few times with the evaluator in this
process, keeps every timed call's event and host time and input set (from the worker's TIMING report,
as the parent's timing judge receives it), and replays `stop_rule.stop_reason` on each prefix of rounds
with the run's own spec, printing per prefix the quantities each rule compares with its threshold: the
mean's within-set relative standard error per library (precise rule) and the medians' interval
half-widths (interval rule). The first prefix where a rule holds is where the timing could have stopped.

Run on the GPU machine, from the repository root (about 40 s):
  PYTHONPATH=src python3 benchmarks/stop_rule_probe.py --out /tmp/probe
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from regrapht.eval import EvalConfig, Evaluator
from regrapht.eval import timing_verdict as timing_verdict_module
from regrapht.eval.protocol import Event
from regrapht.eval.stop_rule import (
    LIBRARY_LIB,
    PRECISE,
    _logs,
    interval_met,
    interval_spec,
    median_halfwidth,
    stop_reason,
    within_set_rse,
)
from regrapht.tasks import find_task

DEFAULT_TASKS = ["spmv_csr", "inclusive_scan", "histogram_u8", "saxpy"]


def replay(samples: dict[str, dict[str, list[float]]], config: EvalConfig) -> list[dict[str, Any]]:
    """Per prefix of n timed rounds: each library's within-set RSE and median half-width, the paired
    ratios' half-width against the candidate, and which rule would hold."""
    tc = config.timing_config
    spec = interval_spec(tc)
    precise_spec = {"max_rounds": tc.max_rounds, "budget_s": float("inf"), "min_rounds": tc.min_rounds, "min_s": tc.min_s,
                    "target_rse": tc.target_rse, "lib_target_rse": {LIBRARY_LIB: tc.library_target_rse}}  # fmt: skip
    n_all = min(len(s["event"]) for s in samples.values())
    rows = []
    for n in range(2, n_all + 1):
        sets = np.asarray(samples["candidate"]["set"][:n])
        row: dict[str, Any] = {"n": n}
        for lib, s in samples.items():
            ev = s["event"][:n]
            logs = _logs(ev)
            row[f"rse_{lib}"] = within_set_rse(ev, s["set"][:n])
            row[f"own_hw_{lib}"] = median_halfwidth(logs, sets) if logs is not None else None
            if lib != "candidate":
                own = _logs(samples["candidate"]["event"][:n])
                row[f"ratio_hw_{lib}"] = median_halfwidth(own - logs, sets) if own is not None and logs is not None else None
        # Each rule as the worker applies it (stop_rule.py, with the run's own bounds), on its own.
        prefix = {lib: {key: v[key][:n] for key in ("event", "host", "set")} for lib, v in samples.items()}
        row["precise"] = stop_reason(prefix, precise_spec, tc.min_s, n, n) == PRECISE
        row["interval"] = n >= spec["floor_rounds"] and interval_met(prefix, spec)
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path("."))
    parser.add_argument("--tasks", nargs="+", default=DEFAULT_TASKS)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--target", choices=["cuda", "cpu"], default="cuda")
    args = parser.parse_args()
    captured: list[dict[str, Any]] = []
    original = timing_verdict_module.TimingJudge.judge

    def keep(self: Any, ev: Any, task: Any, target: str, bench: Any, outcome: Any, *a: Any, **k: Any) -> Any:
        timing = outcome.last(Event.TIMING)
        if timing is not None:
            captured.append({"task": task.id, "samples": timing["samples"], "loop": timing.get("loop")})
        return original(self, ev, task, target, bench, outcome, *a, **k)

    timing_verdict_module.TimingJudge.judge = keep  # type: ignore[method-assign]
    config = EvalConfig()
    report = []
    with Evaluator(config) as evaluator:
        for task_id in args.tasks:
            task = find_task(task_id)
            source = (Path(task.root) / ("naive.cu" if args.target == "cuda" else "serial.cpp")).read_text()
            for i in range(args.repeats):
                before = len(captured)
                ev = evaluator.evaluate(task, source + f"\n// probe {i}\n", args.target)
                if len(captured) == before:
                    print(f"{task_id} #{i}: {ev.status} (no timing report) {ev.message[:200]}")
                    continue
                got = captured[-1]
                rows = replay(got["samples"], config)
                first = {rule: next((r["n"] for r in rows if r[rule]), None) for rule in ("precise", "interval")}
                loop = got["loop"] or {}
                last = rows[-1] if rows else {}
                print(f"{task_id} #{i}: {ev.status}, stopped by {loop.get('stop')} after {loop.get('rounds')} rounds; "
                      f"a replay holds precise from n={first['precise']}, interval from n={first['interval']}; at the end: "
                      + ", ".join(f"{k} {v:.4f}" for k, v in last.items() if isinstance(v, float)))  # fmt: skip
                sets = got["samples"]["candidate"]["set"]
                for lib, s in got["samples"].items():
                    per_set = {int(k): float(np.median([e for e, g in zip(s["event"], sets) if g == k])) * 1e3 for k in set(sets)}
                    print(f"    {lib}: median ms per set {per_set}")
                report.append({"task": task_id, "repeat": i, "status": ev.status, "loop": loop, "samples": got["samples"],
                               "first": first, "replay": rows})  # fmt: skip
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "stop_rule_probe.json").write_text(json.dumps(report, default=float))
    print(f"wrote {args.out / 'stop_rule_probe.json'}")


if __name__ == "__main__":
    main()
