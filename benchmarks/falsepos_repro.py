"""Honest kernels flagged integrity_violation (session 13): a repro that discriminates the suspects.

Evaluates the honest naive.cu of a few tasks (spmv_csr, transpose, saxpy by default) many times in
defended mode (sandbox, fresh inputs), in batches as eval_throughput.py does, on one GPU with the
evaluator in this process, and saves for every evaluation: the full verdict message, every checked
timed call the worker reported (round, library, slot, input set, final, judged on the device or from
files), each slot's base set and key as the parent planned them, the loop's rounds, warm-up and stop
(rule and round). Where a checked call fails and its output is a file, the file is compared against
EVERY slot's expected outputs (which slot, if any, it matches; where the mismatches lie), before the
job folder is removed; every slot's expected outputs are fingerprinted when the bench data is first
seen and again at each verdict (were they changed under the parent?).

Switches turn off one suspect each, so one run tells them apart:
  --no-interval-stop   the mean-RSE stop rule alone (TimingConfig.interval_stop = False)
  --no-judge-ahead     no expected outputs staged to the device judge before the worker starts
  --no-device-judge    every checked output judged from files (so the diagnosis above covers all)
  --exact-source       every candidate the same text (default: every other one with a comment)

Run on the GPU machine, from the repository root (about 150 s with the defaults):
  PYTHONPATH=src python3 benchmarks/falsepos_repro.py --out /tmp/fp --seconds 120
and, to discriminate, the same with one switch at a time. Prints a summary; writes
DIR/falsepos_<tag>.json. The worker's side (timed_checks.py: the sync before an offer) is tested
against its state before the fix with an overlay of the source tree, the rest unchanged:
  cp -r src /tmp/prefix && git show d5dcb11:src/regrapht/eval/timed_checks.py \
      > /tmp/prefix/regrapht/eval/timed_checks.py && PYTHONPATH=/tmp/prefix python3 benchmarks/falsepos_repro.py ...
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

import numpy as np

from regrapht.eval import EvalConfig, Evaluator, correctness
from regrapht.eval import candidates as candidates_module
from regrapht.eval import device_judge as device_judge_module
from regrapht.eval import device_judging as device_judging_module
from regrapht.eval import timing_verdict as timing_verdict_module
from regrapht.eval.protocol import Event
from regrapht.eval.verdicts import POISON
from regrapht.tasks import find_task

DEFAULT_TASKS = ["spmv_csr", "transpose", "saxpy"]


def fingerprint(values: np.ndarray) -> int:
    """A cheap fingerprint of an array: CRC of a strided sample and of both ends (gigabyte outputs)."""
    flat = np.ascontiguousarray(values).reshape(-1)
    parts = [flat[:: max(1, flat.size // 65536)], flat[:4096], flat[-4096:]]
    crc = 0
    for part in parts:
        crc = zlib.crc32(np.ascontiguousarray(part).tobytes(), crc)
    return crc


def mismatch_layout(actual: np.ndarray, expected: np.ndarray, tolerance: Any) -> dict[str, Any]:
    """How many elements fall outside the tolerance and where: first, last, and how many runs."""
    mismatch = correctness.compare(actual, expected, tolerance)
    if not mismatch:
        return {"count": 0}
    if tolerance.kind == "exact":
        bad = actual.view(np.uint8).reshape(actual.size, -1) != expected.view(np.uint8).reshape(expected.size, -1)
        bad = bad.any(axis=1)
    else:
        a, e = actual.astype(np.float64), expected.astype(np.float64)
        with np.errstate(invalid="ignore"):
            bad = ~(np.abs(a - e) <= np.abs(e) * tolerance.rtol + tolerance.atol)
        bad &= ~(np.isnan(a) & np.isnan(e))
    index = np.flatnonzero(bad)
    if index.size == 0:
        return {"count": 0, "note": mismatch.describe("out", tolerance)[:200]}
    runs = int(np.count_nonzero(np.diff(index) != 1)) + 1
    return {
        "count": int(index.size),
        "first": int(index[0]),
        "last": int(index[-1]),
        "runs": runs,
        "describe": mismatch.describe("out", tolerance)[:300],
    }


class Recorder:
    """Wraps TimingJudge.judge (and optionally the device judge's staging) to keep what the verdict
    saw: the worker's checks and loop, the parent's slots, and a diagnosis of failing file outputs."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        self.first_prints: dict[int, list[dict[str, int]]] = {}  # id(bench) -> per slot, per output
        # Outputs the device judge found wrong, as it copied them to the host: (bench dir, slot, name)
        self.device_actual: dict[tuple[str, int, str], np.ndarray] = {}

    def prints(self, bench: Any) -> list[dict[str, int]]:
        cases = bench.checked or bench.sets
        return [{name: fingerprint(values) for name, values in case.expected.items()} for case in cases]

    def install(self) -> None:
        original = timing_verdict_module.TimingJudge.judge
        recorder = self

        def judge(self_judge, ev, task, target, bench, outcome, device_verdicts=None):  # noqa: ANN001
            now = recorder.prints(bench)
            first = recorder.first_prints.setdefault(id(bench), now)
            samples = original(self_judge, ev, task, target, bench, outcome, device_verdicts)
            recorder.records.append(recorder.describe(ev, task, bench, outcome, device_verdicts or {}, first, now))
            return samples

        timing_verdict_module.TimingJudge.judge = judge  # type: ignore[method-assign]
        count = device_judge_module.DeviceJudge.count

        def counted(self_judge, key, set_index, name, handle_hex, tolerance, expected):  # noqa: ANN001
            result = count(self_judge, key, set_index, name, handle_hex, tolerance, expected)
            # Kept only when wrong (-1: nothing staged, the output came to the host to be judged there).
            wrong = result.count > 0 or (
                result.count == -1 and correctness.compare(result.actual, expected, tolerance) is not None
            )
            if result.actual is not None and wrong:
                recorder.device_actual[(key, set_index, name)] = result.actual.copy()
            return result

        device_judge_module.DeviceJudge.count = counted  # type: ignore[method-assign]

    def describe(
        self,
        ev: Any,
        task: Any,
        bench: Any,
        outcome: Any,
        device_verdicts: dict[Any, Any],
        first: list[dict[str, int]],
        now: list[dict[str, int]],
    ) -> dict[str, Any]:
        timing = outcome.last(Event.TIMING) or {}
        cases = bench.checked or bench.sets
        record: dict[str, Any] = {
            "task": task.id,
            "status": ev.status,
            "message": ev.message,
            "fresh": bench.fresh,
            "bench_dir": str(bench.dir),
            "loop": timing.get("loop"),
            "slots": [
                {"slot": k, "set": c.seed_index, "key": c.perturb.key if c.perturb else None}
                for k, c in enumerate(cases)
            ],
            "expected_changed": [k for k, (a, b) in enumerate(zip(first, now)) if a != b],
            "device_verdicts": {
                f"{lib}/{index}": {"round": v.round, "problem": v.problem} for (lib, index), v in device_verdicts.items()
            },
            "checks": [
                {
                    "round": c.get("round"),
                    "lib": c.get("lib"),
                    "slot": c.get("slot"),
                    "set": c.get("set"),
                    "final": c.get("final"),
                    "judged_on_device": bool(c.get("judged_on_device")),
                    "files": sorted((c.get("files") or {}).keys()),
                    "same_as": c.get("same_as"),
                    "late": c.get("late"),
                }
                for c in timing.get("checks", [])
            ],
            "seconds": {k: ev.seconds.get(k) for k in ("timing", "timing_checks", "worker", "parent_reply")},
        }
        if ev.status in ("integrity_violation", "wrong_answer"):
            record["diagnosis"] = self.diagnose(task, cases, timing.get("checks", []), str(bench.dir))
        return record

    def diagnose(
        self, task: Any, cases: list[Any], checks: list[dict[str, Any]], bench_dir: str
    ) -> list[dict[str, Any]]:
        """Every check whose output is a file, or that the device judge found wrong (its output as
        the judge copied it to the host): compared against every slot's expected outputs."""
        out = []
        for check in checks:
            files = check.get("files") or {}
            index = check.get("slot") if check.get("slot") is not None else check.get("set")
            on_device = {
                arg.name: self.device_actual.pop((bench_dir, index, arg.name))
                for arg in task.written
                if check.get("judged_on_device") and (bench_dir, index, arg.name) in self.device_actual
            }
            if not files and not on_device:
                continue
            entry: dict[str, Any] = {
                "round": check.get("round"),
                "slot": check.get("slot"),
                "from": "device" if on_device else "file",
                "against": {},
            }
            for arg in task.written:
                path = files.get(arg.name)
                if arg.name in on_device:
                    actual = on_device[arg.name].reshape(-1)
                elif not path or not os.path.exists(path):
                    entry["against"][arg.name] = "file gone"
                    continue
                else:
                    actual = np.fromfile(path, dtype=arg.dtype.numpy)
                # Elements still holding a poison fill (never written by this call), per poison byte.
                raw = actual.view(np.uint8).reshape(actual.size, -1)
                entry.setdefault("poisoned", {})[arg.name] = {
                    hex(b): int(np.count_nonzero((raw == b).all(axis=1))) for b in POISON
                }
                entry["against"][arg.name] = {
                    str(k): mismatch_layout(actual, case.expected[arg.name], arg.tolerance)
                    for k, case in enumerate(cases)
                    if arg.name in case.expected and case.expected[arg.name].size == actual.size
                }
            out.append(entry)
        return out


def switch_off_judge_ahead() -> None:
    candidates_module.CandidateRunner._stage_judge_ahead = lambda self, task, job, run: None  # type: ignore[method-assign]


def switch_off_device_judge() -> None:
    device_judging_module.DeviceJudging.stage = lambda self, task, bench, libcudart, device_check: False  # type: ignore[method-assign]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("."))
    parser.add_argument("--tasks", nargs="+", default=DEFAULT_TASKS)
    parser.add_argument("--seconds", type=float, default=120.0, help="No new batch starts after this.")
    parser.add_argument("--per-batch", type=int, default=4, help="Candidates per task in each batch.")
    parser.add_argument("--target", choices=["cuda", "cpu"], default="cuda")
    parser.add_argument("--no-interval-stop", action="store_true")
    parser.add_argument("--no-judge-ahead", action="store_true")
    parser.add_argument("--no-device-judge", action="store_true")
    parser.add_argument("--exact-source", action="store_true")
    args = parser.parse_args()

    recorder = Recorder()
    recorder.install()
    if args.no_judge_ahead:
        switch_off_judge_ahead()
    if args.no_device_judge:
        switch_off_device_judge()
    tasks = [find_task(t) for t in args.tasks]
    sources = {t.id: (t.naive_source() if args.target == "cuda" else t.serial_source()) for t in tasks}
    began = time.perf_counter()
    batches = 0
    with tempfile.TemporaryDirectory() as cache:
        config = EvalConfig(cache_dir=cache, sandbox=True)
        config.timing_config.fresh_inputs = True
        config.timing_config.interval_stop = not args.no_interval_stop
        with Evaluator(config) as evaluator:
            while time.perf_counter() - began < args.seconds:
                items = []
                for k in range(args.per_batch):
                    for task in tasks:
                        text = sources[task.id]
                        if not args.exact_source and k % 2:
                            text += f"\n// copy {batches}.{k}\n"
                        items.append((task, text, args.target))
                evaluator.evaluate_many(items)
                batches += 1
    wall = time.perf_counter() - began
    tag = "_".join(
        name
        for name, on in (
            ("nointerval", args.no_interval_stop),
            ("noahead", args.no_judge_ahead),
            ("nodevice", args.no_device_judge),
            ("exact", args.exact_source),
        )
        if on
    ) or "default"
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / f"falsepos_{args.target}_{tag}.json"
    flagged = [r for r in recorder.records if r["status"] != "correct"]
    summary = {
        "switches": tag,
        "wall_s": round(wall, 1),
        "batches": batches,
        "evaluations": len(recorder.records),
        "by_status": {s: sum(r["status"] == s for r in recorder.records) for s in {r["status"] for r in recorder.records}},
        "stops": {
            s: sum((r.get("loop") or {}).get("stop") == s for r in recorder.records)
            for s in {(r.get("loop") or {}).get("stop") for r in recorder.records}
        },
        "expected_changed": sum(bool(r["expected_changed"]) for r in recorder.records),
    }
    path.write_text(json.dumps({"summary": summary, "flagged": flagged, "records": recorder.records}, indent=1))
    print(json.dumps(summary, indent=1))
    for r in flagged:
        failing = [c for c in r["checks"]]
        print(f"- {r['task']}: {r['status']}: {r['message']}")
        print(f"  loop {r['loop']}  slots {[(s['slot'], s['set']) for s in r['slots']]}")
        for c in failing:
            print(
                f"  check round {c['round']} slot {c['slot']} set {c['set']} final {c['final']} "
                f"device {c['judged_on_device']} files {c['files']}"
            )
        for d in r.get("diagnosis", []):
            print(f"  diagnosis {json.dumps(d)[:600]}")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
