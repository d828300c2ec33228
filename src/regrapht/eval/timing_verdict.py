"""The verdict on a timing report: every checked timed call judged against the parent's expected
outputs, the gates that catch work escaping the timer (late writes, host time far above the event
time, faster than the roofline allows), the speedups and the reward."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from regrapht.eval import correctness, peaks
from regrapht.eval.config import EvalConfig
from regrapht.eval.protocol import Event
from regrapht.eval.record import Evaluation, hierarchical_reward
from regrapht.eval.reference import BenchReference, RefCase, perturbed_inputs
from regrapht.eval.runner import WorkerOutcome
from regrapht.eval.stats import SetSamples, balanced_quantile, paired_ratio, speedup, summarize
from regrapht.eval.stop_rule import LIBRARY_LIB
from regrapht.eval.verdicts import fmt_sizes, late_message
from regrapht.tasks import Task, derive_seed, load_checker


@dataclass
class DeviceVerdict:
    """A timed output the parent judged in the worker's device memory."""

    round: int
    problem: str | None  # what is wrong with the output; None: nothing


@dataclass
class TimingJudge:
    """Judges timing reports with one run's settings: its configuration, its secret (the bootstrap's
    seed) and the GPU's measured ceilings (`device`: the worker's hello; None: none measured)."""

    config: EvalConfig
    secret: bytes
    device: dict[str, Any] | None = None

    def judge(
        self,
        ev: Evaluation,
        task: Task,
        target: str,
        bench: BenchReference,
        outcome: WorkerOutcome,
        device_verdicts: dict[tuple[str, Any], DeviceVerdict] | None = None,
    ) -> SetSamples | None:
        """Judge the worker's timing report into `ev`: its checked timed calls (late writes, outputs
        against the expected ones, claims of identical or device-judged outputs), the host-versus-event
        gate, the speedups, the roofline and the reward. Returns the candidate's samples, with their
        input sets, once they are trusted (None when a check failed first).

        Every median, quartile and speedup weighs each input set the same (stats.summarize with the
        samples' sets): a timing that stops in any round (the interval rule's, the final checked round)
        leaves one set a sample ahead, and a pooled median of sets of different cost would land on
        one set's value or the other's."""
        device_verdicts = device_verdicts or {}
        timing = outcome.last(Event.TIMING)
        if timing is None:
            ev.status = "runtime_error"
            ev.message = "the worker ended before its timing was reported (its run ended early)"
            return None
        if not timing["checks"]:
            ev.status = "runtime_error"
            ev.message = "the worker reported no checked timed call (harness protocol error)"
            return None
        first_round = min(c["round"] for c in timing["checks"])
        checker = load_checker(task)
        # (lib, input set) -> round whose output was judged in full; with fresh inputs (lib, slot)
        judged: dict[tuple[str, int], int] = {}
        for check in sorted(timing["checks"], key=lambda c: c["round"]):
            case = checked_case(bench, check, judged) if bench.fresh else bench.sets[check["set"]]
            if case is None:
                ev.status = "runtime_error"
                ev.message = (
                    f"the worker reported timed call {check['round'] + 1} as a checked call the parent "
                    f"never planned (slot {check.get('slot')!r}, set {check.get('set')!r}; harness protocol error)"
                )
                return None
            index = check["slot"] if bench.fresh else check["set"]
            for name, where in sorted(check["late"].items()):
                ev.status, ev.message = (
                    "integrity_violation",
                    f"in timed call {check['round'] + 1}: {late_message(name, where['count'], where['first'])}",
                )
                return None
            if "same_as" in check:
                # The worker found this output identical, bit for bit, to an earlier checked output of
                # the same input set: that one must have been judged here, in full, and passed.
                # With fresh inputs no two calls share their inputs: no such claim can be true.
                if bench.fresh or judged.get((check["lib"], check["set"])) != check["same_as"]:
                    ev.status = "runtime_error"
                    ev.message = (
                        f"the worker reported timed call {check['round'] + 1} identical to call "
                        f"{check['same_as'] + 1}, whose output was never judged (harness protocol error)"
                    )
                    return None
                continue
            if check.get("judged_on_device"):
                # Judged here already, in the worker's device memory, when the worker pointed at it.
                verdict = device_verdicts.get((check["lib"], index))
                if verdict is None or verdict.round != check["round"]:
                    ev.status, ev.message = (
                        "runtime_error",
                        (
                            f"the worker reported timed call {check['round'] + 1} as judged on the device, "
                            "but the parent never judged it (harness protocol error)"
                        ),
                    )
                    return None
                problem = verdict.problem
            else:
                problem = judge_timed_files(task, case, check, checker)
            if problem:
                if check["round"] == first_round:
                    ev.status = "wrong_answer"
                    ev.message = f"wrong at the bench size ({fmt_sizes(task.bench_size)}): {problem}"
                else:
                    ev.status = "integrity_violation"
                    ev.message = (
                        f"timed call {check['round'] + 1} gave a wrong result although earlier calls "
                        f"were right (the candidate behaves differently on later calls): {problem}"
                    )
                return None
            judged.setdefault((check["lib"], index), check["round"])
        unclaimed = [v for key, v in device_verdicts.items() if v.problem and key not in judged]
        if unclaimed:
            # The parent found an output wrong that the worker's report then left out.
            ev.status = "runtime_error"
            ev.message = (
                f"a timed output the worker's report omits was judged on the device: {unclaimed[0].problem}"
            )
            return None
        primary = "event" if target == "cuda" and task.device_buffers else "host"
        samples = timing["samples"]
        # The hold the calls were timed behind, as the worker reports it but never more than
        # configured: the worker runs candidate code.
        hold_s = min(float(timing.get("hold_s", 0.0)), self.config.timing_config.hold_s)
        for lib, s in samples.items():
            ev.timings[lib] = {**summarize(s[primary], s["host"], s["event"], s.get("set")).to_dict(), "hold_s": hold_s}
        # Where the timed outputs were judged: in the worker's device memory, or from files.
        ev.timings["candidate"]["judged_on_device"] = any(c.get("judged_on_device") for c in timing["checks"])
        # How many rounds the timing ran (warm-up and final included) and which rule stopped it
        # (eval/stop_rule.py; none named: the final round came from the round limit or the budget
        # of the first rule alone in an older worker).
        loop = timing.get("loop") or {}
        ev.timings["candidate"].update(
            rounds=loop.get("rounds"), warmup_rounds=loop.get("warmup"), stop=loop.get("stop")
        )
        # Whether every timed call saw inputs no earlier call had (and if not, why not).
        ev.timings["candidate"]["fresh_inputs"] = bench.fresh
        if not bench.fresh:
            ev.timings["candidate"]["fresh_inputs_reason"] = bench.fresh_reason
        # Timed beside this candidate when its data came before its serial median: the wait (after
        # its worker ended, so not the device's) is the record's, to show where the wall time went.
        began = time.perf_counter()
        bench.wait_serial()
        ev.seconds["serial_wait"] = round(time.perf_counter() - began, 4)
        serial = bench.serial_samples
        # With where the baseline came from (kept from an earlier run, or timed in this one), how
        # far its samples spread, and how quiet the machine was while it was timed.
        ev.timings["serial"] = {**summarize(serial, serial, serial).to_dict(), **bench.serial}
        cand = ev.timings["candidate"]
        if target == "cuda":
            slack = self.config.event_host_slack
            # Work hidden from the calling stream inflates every call's host time; a loaded CPU only
            # delays some calls, so the fastest tenth of host times is compared.
            host_fast = float(balanced_quantile(samples["candidate"]["host"], samples["candidate"].get("set"), 10))
            # The host's clock starts while the hold (queued before the start event) still runs.
            if host_fast > slack * cand["event_median_s"] + 100e-6 + hold_s:
                ev.status = "integrity_violation"
                ev.message = (
                    f"the call returned before its work was done: host time {host_fast * 1e3:.3f} ms (10th percentile) "
                    f"(bracketed by device synchronization) is far above the GPU event time "
                    f"{cand['event_median_s'] * 1e3:.3f} ms on the calling stream: work ran on a side stream "
                    f"or host thread the timing stream did not see"
                )
                return None
        seed = derive_seed(self.secret, task.id, "bootstrap")
        cand_samples = samples["candidate"][primary]
        cand_sets = samples["candidate"].get("set")
        ev.speedups["serial"] = speedup(serial, cand_samples, "serial", seed, candidate_sets=cand_sets).to_dict()
        for lib in samples:
            if lib != "candidate":
                ev.speedups[lib] = speedup(
                    samples[lib][primary], cand_samples, lib, seed,
                    baseline_sets=samples[lib].get("set"), candidate_sets=cand_sets,
                ).to_dict()  # fmt: skip
                # The same speedup from the rounds' paired ratios, per input set (information only).
                ev.speedups[lib]["paired"] = paired_ratio(
                    samples[lib][primary], cand_samples, samples["candidate"].get("set")
                )
        self.roofline(ev, task, target)
        if ev.status == "correct":
            # Never library.cu: it is timed to looser bounds (stop_rule.LIBRARY_LIB), for information.
            wanted = self.config.reward_baseline
            baseline = wanted if wanted in ev.speedups and wanted != LIBRARY_LIB else "serial"
            ev.reward_baseline = baseline
            ev.reward = hierarchical_reward("correct", ev.speedups[baseline]["value"])
        return SetSamples(list(cand_samples), list(cand_sets) if cand_sets else None)

    def roofline(self, ev: Evaluation, task: Task, target: str) -> None:
        floor_bytes, floor_flops = task.floor_bytes(task.bench_size), task.floor_flops(task.bench_size)
        roof: dict[str, Any] = {"floor_bytes": floor_bytes, "floor_flops": floor_flops}
        ev.roofline = roof
        if target != "cuda" or self.device is None:
            roof["note"] = (
                "no plausibility gate on the cpu target (no measured ceiling for multi-threaded code)"
                if target == "cpu"
                else "no measured GPU ceilings"
            )
            return
        bandwidth = float(self.device["bandwidth_bytes_per_s"])
        sm_hz = float(self.device["sm_count"]) * float(self.device["clock_khz"]) * 1e3
        arch = peaks.arch_key(self.device.get("cc_major"), self.device.get("cc_minor"))
        median = ev.timings["candidate"]["median_s"]
        # Two floors: the reported one judges the work on the unit the task declares; the gate's
        # uses the architecture's fastest unit, so only a kernel beating every unit is flagged.
        unit = task.roofline.compute
        unit_rate = peaks.unit_rate(arch, unit)
        gate_s = max(floor_bytes / bandwidth, floor_flops / (sm_hz * peaks.bound_rate(arch)))
        floor_s = max(floor_bytes / bandwidth, floor_flops / (sm_hz * unit_rate) if unit_rate else 0.0)
        roof.update(
            bandwidth_bytes_per_s=bandwidth,
            compute_unit=unit,
            flop_peak_per_s=sm_hz * unit_rate if unit_rate else None,
            floor_s=floor_s,
            fraction_of_floor=floor_s / median if median > 0 else None,
            achieved_bytes_per_s=floor_bytes / median if median > 0 else None,
            gate_floor_s=gate_s,
        )
        if not unit_rate:
            roof["note"] = f"no {unit} peak known for compute capability {arch}: the floor counts bytes only"
        if median < self.config.plausibility_margin * gate_s:
            ev.status = "integrity_violation"
            ev.message = (
                f"faster than physics: {median * 1e3:.4f} ms, but moving at least {floor_bytes / 1e6:.1f} MB at "
                f"the measured {bandwidth / 1e12:.2f} TB/s (and {floor_flops:.3g} operations at the GPU's "
                f"fastest rate) takes at least {gate_s * 1e3:.4f} ms; the work was skipped or done outside "
                "the timed call"
            )


def checked_case(
    bench: BenchReference, check: dict[str, Any], judged: dict[tuple[str, int], int]
) -> RefCase | None:
    """The planned checked call a fresh-input check reports: its slot exists, was not judged
    before for this library, and ran on the set the parent computed its expected outputs for."""
    slot = check.get("slot")
    if not isinstance(slot, int) or not 0 <= slot < len(bench.checked) or (check["lib"], slot) in judged:
        return None
    case = bench.checked[slot]
    return case if check.get("set") == case.seed_index else None


def judge_timed_files(
    task: Task, bench_set: RefCase, check: dict[str, Any], checker
) -> str | None:
    """What is wrong with a timed output the worker wrote to files, or None."""
    actual = {
        arg.name: np.memmap(check["files"][arg.name], dtype=np.uint8, mode="r").view(arg.dtype.numpy)
        if os.path.getsize(check["files"][arg.name])
        else np.zeros(0, dtype=arg.dtype.numpy)
        for arg in task.written
    }
    for arg in task.written:
        assert arg.tolerance is not None
        if arg.tolerance.kind != "custom":
            mismatch = correctness.compare(actual[arg.name], bench_set.expected[arg.name], arg.tolerance)
            if mismatch:
                return mismatch.describe(arg.name, arg.tolerance)
    if checker is not None and any(a.tolerance.kind == "custom" for a in task.written):
        verdict = checker(
            perturbed_inputs(task, bench_set),
            bench_set.expected,
            {name: np.array(values) for name, values in actual.items()},  # writable copies
            dict(task.bench_size),
        )
        return f"task checker: {verdict}" if verdict else None
    return None
