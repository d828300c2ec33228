"""The evaluator: screen, compile, run in isolation, judge, time, and write the record.

Inputs are drawn here from the task and a per-run secret; expected outputs come from the serial
reference run in a separate process and never leave this process. A candidate's worker receives
inputs only, and returns raw buffers and timings; every verdict is computed here.
"""

from __future__ import annotations

import hashlib
import os
import platform
import shutil
import threading
import time
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, Future, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import regrapht
from regrapht.eval import sandbox, screen, symbols, toolchain, verdicts
from regrapht.eval.bench_cache import BenchCache, build_order
from regrapht.eval.compile import Compiler, CompileResult, Kind
from regrapht.eval.config import EvalConfig
from regrapht.eval.device_judging import DeviceJudging
from regrapht.eval.jobs import DEVICE_CHECK_SOURCE, HOST_PERTURB_SOURCE, Jobs, params
from regrapht.eval.oracle import Oracle, ReferenceError
from regrapht.eval.protocol import Event, anchor_reply, timing_reply
from regrapht.eval.record import CaseResult, Evaluation, hierarchical_reward
from regrapht.eval.reference import (
    BenchReference,
    TestReference,
    bench_bytes,
)
from regrapht.eval.runner import Reply, WorkerOutcome, run_worker
from regrapht.eval.scratch import OWNER_FILE, make_workdir, sweep_stale_scratch
from regrapht.eval.spares import SparePool
from regrapht.eval.stats import speedup, summarize
from regrapht.eval.timing_turn import Hold, QuietGate
from regrapht.eval.timing_verdict import DeviceVerdict, TimingJudge
from regrapht.eval.verdicts import CANARY, GUARD_BYTES, POISON
from regrapht.tasks import Task, derive_seed, load_checker

# Names callers import from here, some of them defined in the modules this one was split into.
__all__ = [
    "CANARY",
    "DEVICE_CHECK_SOURCE",
    "GUARD_BYTES",
    "HOST_PERTURB_SOURCE",
    "OWNER_FILE",
    "POISON",
    "TARGETS",
    "DeviceVerdict",
    "Evaluator",
    "ReferenceError",
    "SandboxUnavailable",
    "build_order",
    "evaluate",
    "sweep_stale_scratch",
]

TARGETS = ("cuda", "cpu")


class SandboxUnavailable(RuntimeError):
    """`EvalConfig.require_sandbox` is set and the OS sandbox cannot be had (or broke the harness)."""


@dataclass
class CandidateRun:
    """One candidate's worker run: its messages and what the parent judged while it ran."""

    job_dir: Path
    outcome: WorkerOutcome = field(default_factory=WorkerOutcome)
    judged: dict[int, CaseResult] = field(default_factory=dict)
    bench: BenchReference | None = None
    bench_error: ReferenceError | None = None
    # Timed outputs the parent judged in the worker's device memory, by (lib, input set).
    device_verdicts: dict[tuple[str, Any], DeviceVerdict] = field(default_factory=dict)
    sandbox: dict[str, Any] = field(default_factory=dict)  # what confined the worker (record's field)


@dataclass
class Prepared:
    """An item of a batch before it runs: screened, and its compiles submitted."""

    task: Task
    source: str
    target: str
    findings: list[screen.Finding]
    candidate: Future | None
    baselines: dict[str, Future]
    started: float


_params = params  # the old name, imported by suitecheck and the size probe


class Evaluator:
    """Evaluates candidates for tasks; holds the run's secret, compile pool and cached references."""

    def __init__(self, config: EvalConfig | None = None, compiler: Compiler | None = None):
        self.config = config or EvalConfig()
        self.secret = self.config.secret or os.urandom(32)
        self.compiler = compiler or Compiler(
            Path(self.config.cache_dir) if self.config.cache_dir else None, jobs=self.config.jobs
        )
        self.workdir = make_workdir()
        self.jobs = Jobs(self.config, self.secret, self.compiler, self.workdir)
        tc = self.config.timing_config
        self.benches = BenchCache(
            lambda task: self.oracle.build_bench_reference(task),
            lambda task: str(self.jobs.task_dir(task)),
            lambda task: bench_bytes(task, tc.input_sets, tc.fresh_inputs),
            self.config.reference_cache_bytes(),
            tc.input_sets,
            on_drop=self._forget_bench,
        )
        self._device: dict[str, Any] | None = None
        self.spares = SparePool(self.config.spare_worker)
        self.device_judging = DeviceJudging()
        # Bench builds, compiles and workers side by side; serial timings one by one, alone.
        self._quiet = QuietGate()
        self.compiler.gate = self._quiet
        self.oracle = Oracle(
            self.config, self.secret, self.compiler, self.jobs, self._quiet, lambda: self._batches > 0
        )
        self._batches = 0  # evaluate_many calls in progress: their serial timings are settled at the end
        self._timed: dict[int, list[float]] = {}  # id(record) -> its candidate's samples, within a batch
        # Why candidates run unconfined: turned off, or the sandbox broke the harness's own calls on
        # this machine (then every later candidate runs without it, and its record says why).
        self._sandbox_off: str | None = None if self.config.sandbox else "turned off (EvalConfig.sandbox)"
        self._symbol_findings: dict[str, list[screen.Finding]] = {}
        self._symbol_lock = threading.Lock()
        if self.config.require_sandbox:
            offered = sandbox.probe()
            if not (offered["landlock"] and offered["seccomp"]):
                shutil.rmtree(self.workdir, ignore_errors=True)
                raise SandboxUnavailable(
                    f"EvalConfig.require_sandbox is set, but this kernel cannot confine workers: {offered['reason']}"
                )

    def close(self) -> None:
        self.benches.close()
        self.spares.close()
        self.device_judging.close()
        self.compiler.close()
        self.oracle.close()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> Evaluator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- public API ------------------------------------------------------------------------
    def evaluate(
        self, task: Task, source: str, target: str = "cuda", baselines: dict[str, str] | None = None
    ) -> Evaluation:
        return self.finish(self.prepare(task, source, target, baselines or {}))

    def evaluate_many(self, items: list[tuple[Task, str, str]]) -> list[Evaluation]:
        """Evaluate (task, source, target) items: every compile starts at once on the CPU pool while
        earlier candidates run, one at a time, on the device. Verdicts equal one-at-a-time ones.

        The device takes the first item, in the given order, that can run without waiting: compiled,
        and with its task's bench data built (or not needed). A task whose gigabytes of bench data are
        still being built is passed over, not waited for, while other tasks' candidates are ready;
        one task's items keep their order. Results come back in the given order."""
        prepared = [self.prepare(task, source, target, {}) for task, source, target in items]
        self._batches += 1
        results: list[Evaluation | None] = [None] * len(prepared)
        try:
            self.prefetch([task for task, _, _ in items], threads=self.config.reference_threads)
            left = Counter(str(task.root) for task, _, _ in items)
            pending = list(range(len(prepared)))
            while pending:
                i = self.next_runnable(prepared, pending)
                pending.remove(i)
                p = prepared[i]
                results[i] = self.finish(p)
                left[str(p.task.root)] -= 1
                if left[str(p.task.root)] == 0:
                    self.release(p.task)
            assert all(r is not None for r in results)  # every item ran exactly once
            self._settle_serial_baselines(prepared, results)  # type: ignore[arg-type]
        finally:
            self._batches -= 1
            for r in results:
                self._timed.pop(id(r), None)
        return results  # type: ignore[return-value]

    def _settle_serial_baselines(self, prepared: list[Prepared], results: list[Evaluation]) -> None:
        """The batch's quiet moment. During a batch, a task without a kept serial baseline is timed
        as its bench data is built, beside the batch's compiles, builds and candidates (waiting for
        quiet there idled the device: e723cfb). Now nothing else runs: each such task whose bench
        data is still kept is timed again, alone; the new timing is kept where acceptable, and the
        batch's records of the task divide by it."""
        if not self.config.timing or not self.config.timing_config.serial_quiet:
            return
        by_task: dict[str, list[int]] = {}
        for i, p in enumerate(prepared):
            by_task.setdefault(str(self.jobs.task_dir(p.task)), []).append(i)
        unsettled: list[tuple[Task, BenchReference, list[int]]] = []
        for indices in by_task.values():
            future = self.benches.future(prepared[indices[0]].task)
            if future is None or not future.done() or future.exception() is not None:
                continue  # never built (no correct candidate), failed, or dropped to make room
            bench: BenchReference = future.result()
            if bench.serial.get("source") == "measured" and bench.serial.get("not_kept"):
                unsettled.append((prepared[indices[0]].task, bench, indices))
            # else kept: from the store, or this batch's own timing was acceptable
        if unsettled:
            # The spare for the next candidate would bring up its CUDA context now, beside the
            # timings: the next batch starts its first worker afresh instead.
            self.spares.discard()
        for task, bench, indices in unsettled:
            began = time.perf_counter()
            try:
                key, fields = self.oracle.serial_key(task)
                baseline = self.oracle.time_serial(task, bench.dir, bench.sets, None, quiet=True)
            except ReferenceError:
                continue  # the batch's timing stands, and says why it was not kept
            baseline.key = key
            self.oracle.keep_baseline(self.oracle.baseline_store(), key, fields, baseline)
            bench.serial_samples, bench.serial = baseline.samples, baseline.to_record()
            settle_s = round(time.perf_counter() - began, 4)
            for i in indices:
                if self._restate_serial(results[i], task, bench):
                    # The task's, as bench_build is: a cost of the batch's end, not of each record.
                    results[i].seconds["serial_settle"] = settle_s

    def _restate_serial(self, ev: Evaluation, task: Task, bench: BenchReference) -> bool:
        """A record's serial timing, speedup over serial and reward, from the task's settled baseline;
        False for a record that was never timed."""
        candidate = self._timed.get(id(ev))
        if candidate is None or "serial" not in ev.timings:
            return False
        serial = bench.serial_samples
        ev.timings["serial"] = {**summarize(serial, serial, serial).to_dict(), **bench.serial}
        seed = derive_seed(self.secret, task.id, "bootstrap")
        ev.speedups["serial"] = speedup(serial, candidate, "serial", seed).to_dict()
        if ev.status == "correct" and ev.reward_baseline == "serial":
            ev.reward = hierarchical_reward("correct", ev.speedups["serial"]["value"])
        return True

    def next_runnable(self, prepared: list[Prepared], pending: list[int]) -> int:
        """The first pending item that can run without waiting (compiled, its bench data built or not
        needed); failing that, a compiled one whose task's bench data comes soonest (the smallest of
        those being built, else the first), so its correctness cases run while the data is built;
        failing that, waits for the next compile to end."""
        input_sets = self.config.timing_config.input_sets
        while True:
            blocked_tasks: set[str] = set()
            compiles: list[Future] = []
            waiting: list[int] = []
            for i in pending:
                p = prepared[i]
                key = str(p.task.root)
                if key in blocked_tasks:
                    continue  # an earlier item of its task waits: one task's items keep their order
                unbuilt, needs_bench = self._missing(p)
                if not unbuilt and not needs_bench:
                    return i
                blocked_tasks.add(key)
                if unbuilt:
                    compiles.extend(unbuilt)
                else:
                    waiting.append(i)
            if waiting:
                building = [i for i in waiting if self.benches.future(prepared[i].task) is not None]
                if building:
                    return min(building, key=lambda i: bench_bytes(prepared[i].task, input_sets))
                return waiting[0]
            if not compiles:
                return pending[0]
            wait(compiles, timeout=1.0, return_when=FIRST_COMPLETED)

    def _missing(self, p: Prepared) -> tuple[list[Future], bool]:
        """What `p` would wait for if it ran now: its unfinished compiles, and whether its task's bench
        data is still to be built (or being built)."""
        if p.candidate is None:
            return [], False
        builds = [p.candidate, *p.baselines.values()]
        if self._uses_device_check(p.task, p.target) and self.jobs.device_check is not None:
            builds.append(self.jobs.device_check)
        elif self.config.timing and self.jobs.host_perturb is not None:
            builds.append(self.jobs.host_perturb)
        unbuilt = [f for f in builds if not f.done()]
        if unbuilt:
            return unbuilt, False
        if not self.config.timing or not p.candidate.result().ok:
            return [], False
        bench = self.benches.future(p.task)
        return [], bench is None or not bench.done()

    def _uses_device_check(self, task: Task, target: str) -> bool:
        return self.config.timing and target == "cuda" and task.convention == "device"

    # ---- stages ----------------------------------------------------------------------------
    def prepare(self, task: Task, source: str, target: str, baselines: dict[str, str]) -> Prepared:
        if target not in TARGETS:
            raise ValueError(f"unknown target {target!r} (known: {', '.join(TARGETS)})")
        started = time.perf_counter()
        findings = screen.screen(source, target)
        if self.config.static_screen and screen.blocking(findings):
            return Prepared(task, source, target, findings, None, {}, started)
        kind: Kind = "cuda" if target == "cuda" else "cpu"
        if self._uses_device_check(task, target):
            self.jobs.device_check_build()  # beside the first candidates: workers need it only to time
        elif self.config.timing:
            self.jobs.host_perturb_build()
        submit = self._submitter(task)
        extra = dict(baselines)
        if target == "cuda" and self.config.compare_naive and task.naive_path is not None:
            extra.setdefault("naive", task.naive_source() or "")
        built = submit(source, kind)
        if self.config.symbol_screen:
            # Screened on the compile pool as the build ends (binutils take some milliseconds), not
            # on the device's critical path.
            built.add_done_callback(
                lambda future: future.exception() or self._library_findings(future.result(), target)
            )
        return Prepared(
            task,
            source,
            target,
            findings,
            built,
            {name: submit(code, kind) for name, code in extra.items()},
            started,
        )

    def _library_findings(self, compiled: CompileResult, target: str) -> list[screen.Finding]:
        """The symbol screen's findings for a built library, computed once per library and target."""
        if not compiled.ok or compiled.library is None:
            return []
        key = f"{target}:{compiled.library}"
        with self._symbol_lock:
            known = self._symbol_findings.get(key)
        if known is None:
            known = symbols.screen_library(compiled.library, target)
            with self._symbol_lock:
                self._symbol_findings[key] = known
        return known

    def _submitter(self, task: Task):
        names = [a.name for a in task.args]
        return lambda source, kind: self.compiler.submit(source, kind, task.function, params(task), names)

    def finish(self, p: Prepared) -> Evaluation:
        task = p.task
        ev = Evaluation(
            task_id=task.id,
            target=p.target,
            status="correct",
            message="",
            candidate_sha256=hashlib.sha256(p.source.encode()).hexdigest(),
            screen=[f.to_dict() for f in p.findings],
            reward_baseline=self.config.reward_baseline,
        )
        blocked = screen.blocking(p.findings)
        if p.candidate is None:
            ev.status = "integrity_violation"
            ev.message = "static screen: " + "; ".join(f.describe() for f in blocked[:3])
            return self._done(ev, p)
        compiled: CompileResult = p.candidate.result()
        ev.compile = {k: v for k, v in compiled.to_dict().items() if k not in ("log", "library")}
        if not compiled.ok:
            ev.status, ev.message = "compile_error", compiled.diagnostics
            ev.reward = hierarchical_reward(ev.status, None)
            return self._done(ev, p)
        if self.config.symbol_screen:
            imported = self._library_findings(compiled, p.target)
            if imported:
                ev.screen += [f.to_dict() for f in imported]
                ev.status = "integrity_violation"
                ev.message = "symbol screen of the built library: " + "; ".join(
                    f.describe() for f in imported[:3]
                )
                return self._done(ev, p)
        libs = {"candidate": compiled.library}
        for name, future in p.baselines.items():
            result: CompileResult = future.result()
            if result.ok:
                libs[name] = result.library
            else:
                ev.integrity.append(
                    f"note: baseline {name!r} did not compile and was not timed: "
                    f"{result.diagnostics.splitlines()[0] if result.diagnostics else ''}"
                )
        t0 = time.perf_counter()
        tests = self.case_reference(task)
        ev.seconds["reference"] = time.perf_counter() - t0
        # The harness library the worker perturbs with is compiled first: a compile takes a hold of its
        # own, and waiting on one under this hold could stall a timing.
        if self._uses_device_check(task, p.target):
            self.jobs.device_check_library()
        elif self.config.timing:
            self.jobs.host_perturb_library()
        # The worker and the judging of its outputs (gigabytes, on several threads) load the host's
        # cores: neither starts during a serial timing, and a serial timing waits for them to end.
        hold = self._quiet.hold()
        try:
            run = self.run_candidate(task, p.target, libs, tests, hold)
            ev.sandbox = run.sandbox
            ev.seconds["worker"] = run.outcome.seconds
            ev.seconds.update(verdicts.phases(run.outcome))
            if run.bench is not None:
                # The task's build, as long as it took: shared by its candidates, and by later batches
                # that reuse the kept data (so it is not a cost of this evaluation to be summed).
                ev.seconds["bench_build"] = round(run.bench.seconds, 4)
                ev.seconds.update({f"bench_{k}": round(v, 4) for k, v in run.bench.phases.items()})
            ev.output_head = run.outcome.output_head[:2000]
            try:
                self.judge(ev, task, p.target, run)
            finally:
                shutil.rmtree(run.job_dir, ignore_errors=True)
        finally:
            hold.release()
        return self._done(ev, p)

    def _done(self, ev: Evaluation, p: Prepared) -> Evaluation:
        ev.fingerprint = self._fingerprint(p.target)
        ev.seconds["total"] = time.perf_counter() - p.started
        if ev.reward is None and ev.status != "correct":
            ev.reward = -1.0
        return ev

    # ---- the reference ----------------------------------------------------------------------
    def case_reference(self, task: Task) -> TestReference:
        """The task's correctness cases with their expected outputs, made once per task."""
        return self.oracle.case_reference(task)

    def bench_reference(self, task: Task) -> BenchReference:
        """The task's bench-size data, built once and cached (see `BenchCache`)."""
        return self.benches.get(task)

    def prefetch(self, tasks: list[Task], threads: int = 1) -> None:
        """Build bench references in the background while candidates run on the device: `threads + 1`
        tasks ahead of those released so far, and more while their data fits `reference_cache_gib`
        beside the retained data (bench data can take gigabytes each), in `build_order`: small tasks
        first and in between, so the device starts soon and keeps getting work, large ones early, so
        a multi-gigabyte task is built beside the others' candidates instead of last. Builds run
        side by side; their serial timings take turns (`TimingTurn`), though the builds still load
        the machine the serial baseline is timed on."""
        if self.config.timing:
            self.benches.prefetch(tasks, threads)

    def release(self, task: Task) -> None:
        """Say that no candidate queued now needs a task's bench data (see `BenchCache.release`): it
        stays while the retained data fits `reference_cache_gib`."""
        self.benches.release(task)

    def _forget_bench(self, bench: BenchReference) -> None:
        """A dropped task's bench data: its files, and its expected outputs on the device."""
        shutil.rmtree(bench.dir, ignore_errors=True)
        self.device_judging.forget(str(bench.dir))

    def run_candidate(
        self, task: Task, target: str, libs: dict[str, str], tests: TestReference, hold: Hold | None = None
    ) -> CandidateRun:
        """Run the candidate's worker under `hold` (the caller's hold on the quiet gate; taken here
        for the worker's run when None), given back while the worker waits for its bench data."""
        job_dir = self.jobs.job_dir()
        uses_cuda = target == "cuda"
        job = self.jobs.job(
            task,
            libs,
            tests.cases,
            ["candidate"],
            job_dir,
            uses_cuda=uses_cuda,
            device_buffers=uses_cuda and task.convention == "device",
            runs=2,
            measure_bandwidth=self._device is None,
        )
        job["await_timing"] = self.config.timing
        job["device_check"] = self.jobs.device_check_library() if self._uses_device_check(task, target) else None
        if self.config.timing and not job["device_buffers"]:
            job["host_perturb"] = self.jobs.host_perturb_library()
        job["sandbox"] = self.sandbox_spec(task, job, job_dir)
        run = CandidateRun(job_dir=job_dir)
        checker = load_checker(task)
        first_runs: dict[int, dict[str, Any]] = {}

        def on_message(message: dict[str, Any]) -> Reply:
            event = message.get("event")
            if event == Event.CASE_DONE and message["lib"] == "candidate":
                # Judged as they arrive: the first failure ends the worker, since timing a wrong
                # candidate would only spend device time.
                index = message["case"]
                if message["run"] == 0:
                    first_runs[index] = message
                    return None
                result = verdicts.judge_case(task, tests.cases[index], [first_runs[index], message], checker)
                run.judged[index] = result
                return "stop" if result.status != "correct" else None
            if event == Event.TIMING and uses_cuda:
                self.spares.open_context()  # measured: the next one's context may come up now
                return None
            if event == Event.READY_FOR_TIMING:
                # Every case passed: now (and only now) the bench-size data is worth preparing. The
                # worker waits idle meanwhile, so the serial timing it may wait for runs without it.
                hold.release()
                try:
                    run.bench = self.benches.get(task)
                except ReferenceError as exc:
                    run.bench_error = exc
                    return "stop"
                finally:
                    hold.resume(urgent=True)  # it holds the device: no pending timing goes first
                tc = self.config.timing_config
                spec = self.jobs.timing_spec(
                    task,
                    run.bench.dir,
                    run.bench.nbytes,
                    sorted(libs),
                    ["candidate"],
                    tc.budget_s,
                    tc.max_rounds,
                )
                if run.bench.fresh:
                    spec["fresh"] = {
                        "slots": [[c.seed_index, c.perturb.key] for c in run.bench.checked if c.perturb],
                        "arrays": {
                            name: [b[name].to_list() if b[name] is not None else None for b in run.bench.bounds]
                            for name in run.bench.bounds[0]
                        },
                    }
                # Staged before the first timed call: memory the parent takes mid-timing would tell
                # the candidate which of its calls are checked.
                spec["judge_on_device"] = (
                    job["device_check"] is not None
                    and job["device_buffers"]
                    and self.device_judging.stage(task, run.bench, job["libcudart"], job["device_check"])
                )
                return timing_reply(spec)
            if event == Event.ANCHOR and run.bench is not None:
                return anchor_reply(self.device_judging.judge_anchor(task, run, message))
            return None

        own_hold = hold is None
        if hold is None:
            hold = self._quiet.hold()
        spare = self.spares.take() if uses_cuda else None
        if uses_cuda:
            self.spares.start(job["libcudart"])  # the next candidate's: Python now, CUDA after this one
        try:
            run.outcome = run_worker(
                job,
                job_dir / "job.json",
                self.config.call_timeout_s,
                self.config.total_timeout_s,
                self.jobs.memory_limit(task),
                on_message=on_message,
                spare=spare,
            )
        finally:
            if own_hold:
                hold.release()
            if uses_cuda:
                self.spares.open_context()
        report = run.outcome.last(Event.SANDBOX)
        if job["sandbox"] is not None and report is not None and report.get("broken"):
            # Before any candidate code loaded, the harness's own calls failed inside the sandbox:
            # this machine's fault, never the candidate's. It runs again unconfined (unless required).
            self._sandbox_broke(str(report["broken"]))
            shutil.rmtree(job_dir, ignore_errors=True)
            return self.run_candidate(task, target, libs, tests)
        if job["sandbox"] is not None and report is None and run.outcome.last(Event.HELLO) is not None:
            self._sandbox_broke("the worker sent no sandbox report: it ended while entering the sandbox")
            shutil.rmtree(job_dir, ignore_errors=True)
            return self.run_candidate(task, target, libs, tests)
        if report is not None:
            run.sandbox = {k: report.get(k) for k in ("landlock", "seccomp", "reason")}
            if job["sandbox"].get("require") and not (report.get("landlock") and report.get("seccomp")):
                raise SandboxUnavailable(
                    f"EvalConfig.require_sandbox is set, but the worker could not be confined: {report.get('reason')}"
                )
        else:
            run.sandbox = {"landlock": None, "seccomp": False, "reason": self._sandbox_off}
        hello = run.outcome.last(Event.HELLO)
        if uses_cuda and hello and "bandwidth_bytes_per_s" in hello and self._device is None:
            self._device = hello
        if run.bench_error is not None:
            raise run.bench_error
        return run

    def sandbox_spec(self, task: Task, job: dict[str, Any], job_dir: Path) -> dict[str, Any] | None:
        """What the worker may read (its inputs, its libraries; the system's libraries it adds itself)
        and write (its scratch), or None when candidates run unconfined."""
        if self._sandbox_off is not None:
            return None
        libraries = [*job["libs"].values(), job.get("device_check") or "", job.get("host_perturb") or ""]
        read = [str(self.jobs.task_dir(task))] + [str(Path(lib).parent) for lib in libraries if lib]
        if job["libcudart"]:
            read.append(str(Path(job["libcudart"]).parent))
        cuda_home = toolchain.cuda_home()
        if cuda_home is not None:
            read.append(str(cuda_home))
        return {"read": read, "write": [job["out_dir"]], "require": self.config.require_sandbox}

    def _sandbox_broke(self, problem: str) -> None:
        reason = f"the sandbox broke the harness's own calls on this machine, so candidates run unconfined: {problem}"
        if self.config.require_sandbox:
            raise SandboxUnavailable(f"EvalConfig.require_sandbox is set, but {reason}")
        self._sandbox_off = reason

    # ---- the old private names, for callers outside eval/ that still use them ----------------------
    # (benchmarks/size_probe.py); new code uses `jobs` and `oracle`.
    def _job_dir(self) -> Path:
        return self.jobs.job_dir()

    def _job(self, task: Task, *args: Any, **kwargs: Any) -> dict[str, Any]:
        kwargs.setdefault("measure_bandwidth", self._device is None)
        return self.jobs.job(task, *args, **kwargs)

    def _timing_spec(self, task: Task, *args: Any, **kwargs: Any) -> dict[str, Any]:
        return self.jobs.timing_spec(task, *args, **kwargs)

    def _memory_limit(self, task: Task) -> int:
        return self.jobs.memory_limit(task)

    def _seed_of(self, task: Task) -> Any:
        return self.oracle.seed_of(task)

    def _serial_library(self, task: Task) -> str:
        return self.oracle.serial_library(task)

    # ---- verdicts ----------------------------------------------------------------------------
    def judge(self, ev: Evaluation, task: Task, target: str, run: CandidateRun) -> None:
        if verdicts.judge_run(ev, run.outcome, run.judged, self.config.memory_limit_gib) and self.config.timing:
            assert run.bench is not None
            self._judge_timing(ev, task, target, run.bench, run.outcome, run.device_verdicts)

    def timing_judge(self) -> TimingJudge:
        """The judge of timing reports with this evaluator's settings, secret and measured GPU."""
        return TimingJudge(self.config, self.secret, self._device)

    def _judge_timing(
        self,
        ev: Evaluation,
        task: Task,
        target: str,
        bench: BenchReference,
        outcome: WorkerOutcome,
        device_verdicts: dict[tuple[str, Any], DeviceVerdict] | None = None,
    ) -> None:
        samples = self.timing_judge().judge(ev, task, target, bench, outcome, device_verdicts)
        if samples is not None and self._batches:
            self._timed[id(ev)] = list(samples)  # restated if the batch settles a new baseline

    # ---- environment -------------------------------------------------------------------------
    def _fingerprint(self, target: str) -> dict[str, Any]:
        gpu = toolchain.gpus()[0] if target == "cuda" and toolchain.gpus() else None
        device = self._device or {}
        return {
            "target": target,
            "gpu": gpu.name if gpu else None,
            "driver": gpu.driver if gpu else None,
            "cuda_runtime": device.get("cuda_runtime"),
            "cuda_driver_api": device.get("cuda_driver"),
            "arch": toolchain.cuda_arch() if target == "cuda" else None,
            "nvcc": toolchain.nvcc_version() if target == "cuda" else None,
            "gxx": toolchain.gxx_version(),
            "cpu": toolchain.cpu_model(),
            "python": platform.python_version(),
            "numpy": np.__version__,
            "regrapht": regrapht.__version__,
        }


def evaluate(
    task: Task,
    source: str,
    target: str = "cuda",
    config: EvalConfig | None = None,
    baselines: dict[str, str] | None = None,
) -> Evaluation:
    """Evaluate one candidate with a fresh evaluator (a fresh secret unless config.secret is set)."""
    with Evaluator(config) as evaluator:
        return evaluator.evaluate(task, source, target, baselines)
