"""The evaluator: screen, compile, run in isolation, judge, time, and write the record.

Inputs are drawn here from the task and a per-run secret; expected outputs come from the serial
reference run in a separate process and never leave this process. A candidate's worker receives
inputs only, and returns raw buffers and timings; every verdict is computed here.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import os
import platform
import shutil
import sqlite3
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import regrapht
from regrapht.eval import correctness, sandbox, screen, symbols, toolchain, verdicts
from regrapht.eval.bench_cache import BenchCache, build_order
from regrapht.eval.compile import Compiler, CompileResult, Kind, default_cache_dir
from regrapht.eval.config import EvalConfig
from regrapht.eval.cpu_meter import BackgroundMeter
from regrapht.eval.cudart import CudaError
from regrapht.eval.device_judge import DeviceJudge, JudgeUnavailable
from regrapht.eval.protocol import Event, anchor_reply, timing_reply
from regrapht.eval.record import CaseResult, Evaluation, hierarchical_reward
from regrapht.eval.reference import (
    BenchReference,
    RefCase,
    TestReference,
    bench_bytes,
    checked_calls,
    draw_bench_sets,
    draw_test_cases,
    has_perturbable,
    set_bounds,
)
from regrapht.eval.runner import Reply, WorkerOutcome, run_worker
from regrapht.eval.serial_baselines import (
    KEEP_MIN_SAMPLES,
    SerialBaseline,
    SerialBaselineStore,
    baseline_key,
    open_store,
)
from regrapht.eval.spares import SparePool
from regrapht.eval.stats import speedup, summarize
from regrapht.eval.timing_turn import Hold, QuietGate, TimingTurn
from regrapht.eval.timing_verdict import DeviceVerdict, TimingJudge
from regrapht.eval.verdicts import CANARY, GUARD_BYTES, POISON
from regrapht.store import StoreError
from regrapht.tasks import Task, derive_seed, load_checker
from regrapht.tasks.expr import ExprError
from regrapht.tasks.generators import GeneratorError

# Names callers import from here, some of them defined in the modules this one was split into.
__all__ = [
    "CANARY",
    "GUARD_BYTES",
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

DEVICE_CHECK_SOURCE = Path(__file__).resolve().parent.parent / "data" / "kernels" / "device_check.cu"
HOST_PERTURB_SOURCE = DEVICE_CHECK_SOURCE.with_name("host_perturb.cpp")
TARGETS = ("cuda", "cpu")


class SandboxUnavailable(RuntimeError):
    """`EvalConfig.require_sandbox` is set and the OS sandbox cannot be had (or broke the harness)."""


class ReferenceError(RuntimeError):
    """The task's own reference failed: the task is broken, not the candidate."""


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


def _scratch_root() -> str | None:
    shm = Path("/dev/shm")
    try:
        if shm.is_dir() and shutil.disk_usage(shm).free > (4 << 30):
            return str(shm)
    except OSError:
        pass
    return None


OWNER_FILE = "owner"  # in each evaluator's scratch folder: "pid start-time boot/pid-namespace" of its maker


def _owner_context() -> str | None:
    """Where a pid means this process's pid: the host's boot and the pid namespace. A /dev/shm shared
    between containers, or a TMPDIR shared between hosts, holds folders whose pids mean nothing here."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        return f"{boot}/{os.readlink('/proc/self/ns/pid')}"
    except OSError:
        return None


def _process_start(pid: int) -> str | None:
    """The start time of process `pid` (field 22 of /proc/PID/stat), None when it does not exist."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2 :].split()[19]


def sweep_stale_scratch(root: str | None) -> list[Path]:
    """Remove scratch folders of evaluators whose process is gone: one killed outright (SIGKILL, the
    OOM killer) cannot clean up, and its bench data can hold gigabytes of /dev/shm. Folders of live
    processes, folders made on another boot, host or pid namespace, and folders without an owner file,
    are left alone. Returns the folders removed."""
    removed: list[Path] = []
    context = _owner_context()
    if context is None:
        return removed
    for folder in Path(root or tempfile.gettempdir()).glob("regrapht-eval-*"):
        try:
            pid_text, started, their_context = (folder / OWNER_FILE).read_text().split()
            pid = int(pid_text)
        except (OSError, ValueError):
            continue
        if their_context != context:
            continue
        if _process_start(pid) != started:  # gone, or its pid now belongs to another process
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def _params(task: Task) -> str:
    return task.signature[task.signature.index("(") + 1 : task.signature.rindex(")")]


class Evaluator:
    """Evaluates candidates for tasks; holds the run's secret, compile pool and cached references."""

    def __init__(self, config: EvalConfig | None = None, compiler: Compiler | None = None):
        self.config = config or EvalConfig()
        self.secret = self.config.secret or os.urandom(32)
        self.compiler = compiler or Compiler(
            Path(self.config.cache_dir) if self.config.cache_dir else None, jobs=self.config.jobs
        )
        # Sweep both places first: a /dev/shm filled by killed evaluators is what sends the scratch
        # to the temporary folder.
        sweep_stale_scratch("/dev/shm" if Path("/dev/shm").is_dir() else None)
        sweep_stale_scratch(None)
        self.workdir = Path(tempfile.mkdtemp(prefix="regrapht-eval-", dir=_scratch_root()))
        started, context = _process_start(os.getpid()), _owner_context()
        if started is not None and context is not None:
            (self.workdir / OWNER_FILE).write_text(f"{os.getpid()} {started} {context}\n")
        self._tests: dict[str, TestReference] = {}
        tc = self.config.timing_config
        self.benches = BenchCache(
            lambda task: self._build_bench_reference(task),
            lambda task: str(self._task_dir(task)),
            lambda task: bench_bytes(task, tc.input_sets, tc.fresh_inputs),
            self.config.reference_cache_bytes(),
            tc.input_sets,
            on_drop=self._forget_bench,
        )
        self._dirs: dict[int, tuple[Task, Path]] = {}
        self._device: dict[str, Any] | None = None
        self._jobs = itertools.count()
        self.spares = SparePool(self.config.spare_worker)
        self._device_check: Future | None = None
        self._host_perturb: Future | None = None
        self._device_judge: DeviceJudge | None = None
        self._device_judge_off: str | None = None  # why the parent does not judge on the device
        self._device_judge_lock = threading.Lock()
        # Bench builds, compiles and workers side by side; serial timings one by one, alone.
        self._quiet = QuietGate()
        self.compiler.gate = self._quiet
        self._baselines: SerialBaselineStore | None = None
        self._baselines_off: str | None = None if self.config.serial_cache else "off (EvalConfig.serial_cache)"
        self._baselines_lock = threading.Lock()
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
        with self._device_judge_lock:
            if self._device_judge is not None:
                self._device_judge.close()
                self._device_judge = None
        self.compiler.close()
        with self._baselines_lock:
            if self._baselines is not None:
                self._baselines.close()
                self._baselines = None
        shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self) -> Evaluator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- public API ------------------------------------------------------------------------
    def evaluate(
        self, task: Task, source: str, target: str = "cuda", baselines: dict[str, str] | None = None
    ) -> Evaluation:
        return self._finish(self._prepare(task, source, target, baselines or {}))

    def evaluate_many(self, items: list[tuple[Task, str, str]]) -> list[Evaluation]:
        """Evaluate (task, source, target) items: every compile starts at once on the CPU pool while
        earlier candidates run, one at a time, on the device. Verdicts equal one-at-a-time ones.

        The device takes the first item, in the given order, that can run without waiting: compiled,
        and with its task's bench data built (or not needed). A task whose gigabytes of bench data are
        still being built is passed over, not waited for, while other tasks' candidates are ready;
        one task's items keep their order. Results come back in the given order."""
        prepared = [self._prepare(task, source, target, {}) for task, source, target in items]
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
                results[i] = self._finish(p)
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
            by_task.setdefault(str(self._task_dir(p.task)), []).append(i)
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
                key, fields = self._serial_key(task)
                baseline = self._time_serial(task, bench.dir, bench.sets, None, quiet=True)
            except ReferenceError:
                continue  # the batch's timing stands, and says why it was not kept
            baseline.key = key
            self._keep_baseline(self._baseline_store(), key, fields, baseline)
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
        if self._uses_device_check(p.task, p.target) and self._device_check is not None:
            builds.append(self._device_check)
        elif self.config.timing and self._host_perturb is not None:
            builds.append(self._host_perturb)
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
    def _prepare(self, task: Task, source: str, target: str, baselines: dict[str, str]) -> Prepared:
        if target not in TARGETS:
            raise ValueError(f"unknown target {target!r} (known: {', '.join(TARGETS)})")
        started = time.perf_counter()
        findings = screen.screen(source, target)
        if self.config.static_screen and screen.blocking(findings):
            return Prepared(task, source, target, findings, None, {}, started)
        kind: Kind = "cuda" if target == "cuda" else "cpu"
        if self._uses_device_check(task, target):
            self._device_check_build()  # beside the first candidates: workers need it only to time
        elif self.config.timing:
            self._host_perturb_build()
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
        params, names = _params(task), [a.name for a in task.args]
        return lambda source, kind: self.compiler.submit(source, kind, task.function, params, names)

    def _finish(self, p: Prepared) -> Evaluation:
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
            self._device_check_library()
        elif self.config.timing:
            self._host_perturb_library()
        # The worker and the judging of its outputs (gigabytes, on several threads) load the host's
        # cores: neither starts during a serial timing, and a serial timing waits for them to end.
        hold = self._quiet.hold()
        try:
            run = self._run_candidate(task, p.target, libs, tests, hold)
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
                self._judge(ev, task, p.target, run)
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
    def _seed_of(self, task: Task):
        return lambda *parts: derive_seed(self.secret, task.id, *parts)

    def _task_dir(self, task: Task) -> Path:
        known = self._dirs.get(id(task))
        if known is not None and known[0] is task:
            return known[1]
        digest = hashlib.sha1(f"{task.root}@{task.content_hash()}".encode()).hexdigest()[:10]
        path = self.workdir / f"ref-{task.id}-{digest}"
        self._dirs[id(task)] = (task, path)  # the task object is kept, so its id is never reused
        return path

    def _serial_build(self, task: Task) -> CompileResult:
        serial = self.compiler.compile(
            task.serial_source(), "serial", task.function, _params(task), [a.name for a in task.args]
        )
        if not serial.ok:
            raise ReferenceError(f"task {task.id}: serial.cpp does not compile:\n{serial.diagnostics}")
        assert serial.library is not None
        return serial

    def _serial_library(self, task: Task) -> str:
        library = self._serial_build(task).library
        assert library is not None
        return library

    # ---- the serial baseline, kept across runs ---------------------------------------------------
    def _baseline_store(self) -> SerialBaselineStore | None:
        with self._baselines_lock:
            if self._baselines is None and self._baselines_off is None:
                path = self.config.serial_store or str(
                    Path(self.config.cache_dir or default_cache_dir()) / "serial-baselines.sqlite"
                )
                self._baselines, self._baselines_off = open_store(path)
            return self._baselines

    def _serial_key(self, task: Task) -> tuple[str, dict[str, Any]]:
        tc = self.config.timing_config
        return baseline_key(
            task.id,
            task.content_hash(),
            task.bench_size,
            tc.input_sets,
            self._serial_build(task).key,
            tc.serial_budget_s,
            tc.serial_max_rounds,
        )

    def case_reference(self, task: Task) -> TestReference:
        """The task's correctness cases with their expected outputs, made once per task."""
        key = str(self._task_dir(task))
        if key not in self._tests:
            start = time.perf_counter()
            try:
                cases = draw_test_cases(
                    task, self._task_dir(task) / "test", self.config.seeds, self._seed_of(task)
                )
            except (GeneratorError, ExprError, ImportError, KeyError, ValueError) as exc:
                raise ReferenceError(f"task {task.id}: its inputs could not be generated: {exc}") from exc
            self._serial_library(task)  # compiled before the hold: a compile under a hold would nest
            with self._quiet.noisy():
                self._run_reference(task, cases, timing=None)
            self._tests[key] = TestReference(cases, time.perf_counter() - start)
        return self._tests[key]

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
        judge = self._device_judge
        if judge is not None:
            judge.forget(str(bench.dir))

    def _build_bench_reference(self, task: Task) -> BenchReference:
        start = time.perf_counter()
        # A folder per build: a task released while its data was still being written, and needed
        # again later, is built afresh beside the old files rather than into them.
        root = self._task_dir(task) / f"bench{next(self._jobs)}"
        tc = self.config.timing_config
        key, fields = self._serial_key(task)  # compiles serial.cpp first: a compile under a hold would nest
        if not self._fresh_off(task):
            self._host_perturb_library()  # likewise: the reference perturbs the checked calls' inputs with it
        store = self._baseline_store()
        try:
            kept = store.get(key) if store is not None else None
        except (sqlite3.Error, StoreError):
            kept = None  # an unreadable store costs the reuse, never the evaluation
        # The draws and the reference's output runs load the cores: no serial timing runs beside them.
        hold = self._quiet.hold()
        try:
            try:
                sets = draw_bench_sets(task, root, tc.input_sets, self._seed_of(task))
                drawn = time.perf_counter()
            except (GeneratorError, ExprError, ImportError, KeyError, ValueError) as exc:
                raise ReferenceError(f"task {task.id}: its bench inputs could not be generated: {exc}") from exc
            # Fresh inputs: the reference computes the checked timed calls' outputs, on exactly their
            # perturbed inputs, instead of one output per set; no timed call sees a set unperturbed.
            reason = self._fresh_off(task)
            bounds = [set_bounds(task, bench_set.inputs) for bench_set in sets] if not reason else []
            if bounds and not any(b is not None for per_set in bounds for b in per_set.values()):
                reason = "no perturbable input has a finite value to perturb"
            checked = (
                checked_calls(task, sets, bounds, self._seed_of(task), int(root.name[len("bench") :]))
                if not reason
                else []
            )
            # One reference process per case, side by side: the first case's process also times the
            # reference, once the others have written their outputs (so they do not run beside it).
            cases = checked or sets
            self._reference_outputs(task, cases[1:])
            if kept is not None:
                self._run_reference(task, cases[:1], timing=None)  # outputs only: the timing is kept
                baseline = kept
            else:
                # Within a batch, only turns: the batch settles its baselines when it is done.
                quiet = self.config.timing_config.serial_quiet and not self._batches
                baseline = self._time_serial(task, root, cases[:1], hold, quiet)
                baseline.key = key
                self._keep_baseline(store, key, fields, baseline)
        finally:
            hold.release()
        for bench_set in sets:
            bench_set.inputs = {}  # on disk for the workers; only the expected outputs stay in memory
        end = time.perf_counter()
        return BenchReference(
            root,
            sets,
            baseline.samples,
            end - start,
            {"draw": drawn - start, "reference": end - drawn},
            checked=checked,
            bounds=bounds,
            fresh_reason=reason,
            written_bytes=sum(sets[0].nbytes[a.name] for a in task.written),
            serial=baseline.to_record(),
        )

    def _reference_outputs(self, task: Task, cases: list[RefCase]) -> None:
        """The reference's outputs on `cases`, one process per case, side by side (untimed): a bench
        build waits for the slowest rather than for their sum."""
        if len(cases) <= 1:
            for case in cases:
                self._run_reference(task, [case], timing=None)
            return
        with ThreadPoolExecutor(max_workers=len(cases), thread_name_prefix="reference") as pool:
            for future in [pool.submit(self._run_reference, task, [case], None) for case in cases]:
                future.result()  # the first failure is raised once every process has ended

    def _time_serial(
        self, task: Task, root: Path, cases: list[RefCase], hold: Hold | None, quiet: bool
    ) -> SerialBaseline:
        """The reference's outputs on `cases` (the bench sets, or the checked calls' fresh inputs), then
        its timing: in a quiet section of its own (`quiet`), or in a turn, one timing at a time, beside
        other work."""
        tc = self.config.timing_config
        spec = self._timing_spec(
            task,
            root,
            cases[0].nbytes,
            ["reference"],
            [],
            tc.serial_budget_s,
            tc.serial_max_rounds,
            min_rounds=3,
            warmup_rounds=0,  # the output-producing calls just before warmed pages and caches
            min_s=0.0,  # serial calls are long; its rounds and budget bound it
        )
        # A quiet timing may become the machine's baseline, which needs samples enough to know its
        # median (KEEP_MIN_SAMPLES); one in turns beside a batch only serves its batch, settled later.
        spec["floor_rounds"] = KEEP_MIN_SAMPLES if quiet else 1
        turn = TimingTurn(self._quiet, hold, quiet=quiet, max_wait_s=tc.serial_quiet_wait_s)
        background: list[float | None] = [None]
        try:
            samples = self._run_reference(task, cases, timing=spec, turn=turn, background=background)
        finally:
            turn.give_back()
        return SerialBaseline(samples, turn.quiet, background[0])

    def _keep_baseline(
        self, store: SerialBaselineStore | None, key: str, fields: dict[str, Any], baseline: SerialBaseline
    ) -> None:
        tc = self.config.timing_config
        if store is None:
            baseline.not_kept = f"no store: {self._baselines_off}"
            return
        problem = baseline.problem(tc.serial_max_median_error, tc.serial_max_background)
        if problem is not None:
            baseline.not_kept = problem
            return
        try:
            stored = store.put(key, fields, baseline)
        except (sqlite3.Error, StoreError) as exc:  # a full disk, a store locked too long: this run's timing stands
            baseline.not_kept = f"the store could not keep it: {exc}"
            return
        if not stored:
            # Another evaluator kept one first: this run divides by its own timing, later runs by that one.
            baseline.not_kept = "another evaluator kept a timing for this key first"

    def _fresh_off(self, task: Task) -> str:
        """Why a task's timed calls cannot get fresh inputs; empty when they can."""
        if not self.config.timing_config.fresh_inputs:
            return "turned off (TimingConfig.fresh_inputs = False)"
        if not has_perturbable(task):
            return 'the task declares no perturbable input (perturb = "values" in task.toml)'
        return ""

    def _run_reference(
        self,
        task: Task,
        cases: list[RefCase],
        timing: dict[str, Any] | None,
        turn: TimingTurn | None = None,
        background: list[float | None] | None = None,
    ) -> list[float]:
        """Run serial.cpp once on every case (and time it when asked), in a process of its own.
        With a `turn`, the timing waits for it, once the outputs are written; `background` then
        receives the other CPU activity during the timing, in cores."""
        job_dir = self._job_dir()
        job = self._job(
            task,
            {"reference": self._serial_library(task)},
            cases,
            ["reference"],
            job_dir,
            uses_cuda=False,
            device_buffers=False,
            runs=1,
        )
        job["trusted"] = True  # the oracle: only its outputs come back
        if any(case.perturb is not None for case in cases):
            job["host_perturb"] = self._host_perturb_library()  # checked calls' inputs, as candidates get them
        on_message = None
        if timing is not None and turn is not None:
            job["await_timing"] = True  # asks once its outputs are written
            pid: list[int | None] = [None]
            meter: list[BackgroundMeter | None] = [None]

            def on_message(message: dict[str, Any]) -> Reply:
                if message.get("event") == Event.HELLO:
                    pid[0] = message.get("pid")
                if message.get("event") == Event.READY_FOR_TIMING:
                    turn.take()
                    meter[0] = BackgroundMeter(pid[0] if isinstance(pid[0], int) else None)
                    return timing_reply(timing)
                if message.get("event") == Event.TIMING:
                    if background is not None and meter[0] is not None:
                        background[0] = meter[0].cores()
                    turn.give_back()
                return None
        else:
            job["timing"] = timing
        outcome = run_worker(
            job,
            job_dir / "job.json",
            max(self.config.call_timeout_s, 120.0),
            self.config.total_timeout_s * 4,
            self._memory_limit(task),
            on_message=on_message,
        )
        problem = verdicts.crash_message(outcome, self.config.memory_limit_gib)
        if problem:
            raise ReferenceError(
                f"task {task.id}: the serial reference failed: {problem}\n{outcome.output_head[:500]}"
            )
        for done in outcome.all(Event.CASE_DONE):
            case = cases[done["case"]]
            for arg in task.written:
                case.expected[arg.name] = _read_between_guards(Path(done["files"][arg.name]), arg.dtype.numpy)
        shutil.rmtree(job_dir, ignore_errors=True)
        timed = outcome.last(Event.TIMING)
        return timed["samples"]["reference"]["host"] if timed else []

    # ---- jobs --------------------------------------------------------------------------------
    def _job_dir(self) -> Path:
        path = self.workdir / f"job{next(self._jobs)}"
        (path / "out").mkdir(parents=True)
        return path

    def _memory_limit(self, task: Task) -> int:
        """The configured ceiling, raised for tasks whose bench data alone needs more: the worker
        holds every input set, the argument buffers, the outputs it sends back and (host buffers)
        one kept output per input set to compare later calls with."""
        needed = 8 * task.io_bytes(task.bench_size) + (1 << 30)
        return max(int(self.config.memory_limit_gib * (1 << 30)), needed)

    def _job(
        self,
        task: Task,
        libs: dict[str, str],
        cases: list[RefCase],
        check_libs: list[str],
        job_dir: Path,
        uses_cuda: bool,
        device_buffers: bool,
        runs: int,
    ) -> dict[str, Any]:
        return {
            "libs": libs,
            "check_libs": check_libs,
            "args": [
                {
                    "name": a.name,
                    "role": a.role,
                    "dtype": a.dtype.name,
                    "array": a.is_array,
                    "itemsize": a.dtype.numpy.itemsize,
                }
                for a in task.args
            ],
            "cases": [
                {
                    "label": c.label,
                    "dir": str(c.dir),
                    "nbytes": c.nbytes,
                    **({"perturb": c.perturb.to_json()} if c.perturb is not None else {}),
                }
                for c in cases
            ],
            "runs_per_case": runs,
            "guard_bytes": GUARD_BYTES,
            "canary": CANARY,
            "poison": list(POISON),
            "out_dir": str(job_dir / "out"),
            "uses_cuda": uses_cuda,
            "device_buffers": device_buffers,
            "libcudart": str(toolchain.libcudart_path() or ""),
            "measure_bandwidth": uses_cuda and self._device is None,
            "timing": None,
        }

    def _timing_spec(
        self,
        task: Task,
        bench_dir: Path,
        nbytes: dict[str, int],
        libs: list[str],
        check_libs: list[str],
        budget_s: float,
        max_rounds: int,
        min_rounds: int | None = None,
        warmup_rounds: int | None = None,
        min_s: float | None = None,
    ) -> dict[str, Any]:
        tc = self.config.timing_config
        return {
            "dir": str(bench_dir),
            "sets": tc.input_sets,
            "nbytes": nbytes,
            "libs": libs,
            "check_libs": check_libs,
            "warmup_rounds": tc.warmup_rounds if warmup_rounds is None else warmup_rounds,
            "warmup_s": tc.warmup_s,
            "min_rounds": tc.min_rounds if min_rounds is None else min_rounds,
            "min_s": tc.min_s if min_s is None else min_s,
            "max_rounds": max_rounds,
            "budget_s": budget_s,
            "target_rse": tc.target_rse,
            "order_seed": derive_seed(self.secret, task.id, "order", next(self._jobs)),
            "flush_bytes": 0,
            "hold_s": tc.hold_s,
        }

    def _run_candidate(
        self, task: Task, target: str, libs: dict[str, str], tests: TestReference, hold: Hold | None = None
    ) -> CandidateRun:
        """Run the candidate's worker under `hold` (the caller's hold on the quiet gate; taken here
        for the worker's run when None), given back while the worker waits for its bench data."""
        job_dir = self._job_dir()
        uses_cuda = target == "cuda"
        job = self._job(
            task,
            libs,
            tests.cases,
            ["candidate"],
            job_dir,
            uses_cuda=uses_cuda,
            device_buffers=uses_cuda and task.convention == "device",
            runs=2,
        )
        job["await_timing"] = self.config.timing
        job["device_check"] = self._device_check_library() if self._uses_device_check(task, target) else None
        if self.config.timing and not job["device_buffers"]:
            job["host_perturb"] = self._host_perturb_library()
        job["sandbox"] = self._sandbox_spec(task, job, job_dir)
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
                spec = self._timing_spec(
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
                    and self._stage_on_device(task, run.bench, job)
                )
                return timing_reply(spec)
            if event == Event.ANCHOR and run.bench is not None:
                return anchor_reply(self._judge_anchor(task, run, message))
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
                self._memory_limit(task),
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
            return self._run_candidate(task, target, libs, tests)
        if job["sandbox"] is not None and report is None and run.outcome.last(Event.HELLO) is not None:
            self._sandbox_broke("the worker sent no sandbox report: it ended while entering the sandbox")
            shutil.rmtree(job_dir, ignore_errors=True)
            return self._run_candidate(task, target, libs, tests)
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

    def _sandbox_spec(self, task: Task, job: dict[str, Any], job_dir: Path) -> dict[str, Any] | None:
        """What the worker may read (its inputs, its libraries; the system's libraries it adds itself)
        and write (its scratch), or None when candidates run unconfined."""
        if self._sandbox_off is not None:
            return None
        libraries = [*job["libs"].values(), job.get("device_check") or "", job.get("host_perturb") or ""]
        read = [str(self._task_dir(task))] + [str(Path(lib).parent) for lib in libraries if lib]
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

    def _device_check_build(self) -> Future:
        if self._device_check is None:  # a racing second submit joins the first compile
            self._device_check = self.compiler.submit(
                DEVICE_CHECK_SOURCE.read_text(), "cuda", "regrapht_device_check", "", []
            )
        return self._device_check

    def _device_check_library(self) -> str | None:
        """The harness's own comparison kernel; without it (it failed to build) outputs are compared
        on the host, as correctly and more slowly."""
        try:
            built: CompileResult = self._device_check_build().result()
        except Exception:  # the build itself broke (not a failed compile): host comparison it is
            return None
        return built.library if built.ok else None

    def _host_perturb_build(self) -> Future:
        if self._host_perturb is None:  # a racing second submit joins the first compile
            self._host_perturb = self.compiler.submit(
                HOST_PERTURB_SOURCE.read_text(), "cpu", "regrapht_host_perturb", "", []
            )
        return self._host_perturb

    def _host_perturb_library(self) -> str | None:
        """The harness's host perturbation; without it (it failed to build) NumPy perturbs, with the
        same values, more slowly."""
        try:
            built: CompileResult = self._host_perturb_build().result()
        except Exception:  # the build itself broke (not a failed compile): NumPy it is
            return None
        return built.library if built.ok else None

    # ---- judging timed outputs on the device ------------------------------------------------
    def _stage_on_device(self, task: Task, bench: BenchReference, job: dict[str, Any]) -> bool:
        """Whether this candidate's timed outputs are judged in device memory: the parent's judge
        is up and holds the task's expected outputs. Custom checkers read outputs on the host."""
        if any(arg.tolerance is None or arg.tolerance.kind == "custom" for arg in task.written):
            return False
        with self._device_judge_lock:
            if self._device_judge is None and self._device_judge_off is None:
                try:
                    self._device_judge = DeviceJudge(job["libcudart"], job["device_check"])
                except JudgeUnavailable as exc:
                    self._device_judge_off = str(exc)
            judge = self._device_judge
        if judge is None:
            return False
        try:
            return judge.stage(str(bench.dir), [case.expected for case in bench.checked or bench.sets])
        except Exception as exc:  # the parent's own failure: files, as without a judge
            self._retire_device_judge(f"staging expected outputs failed: {exc}")
            return False

    def _judge_anchor(self, task: Task, run: CandidateRun, message: dict[str, Any]) -> bool:
        """Judge the output a worker kept in device memory for a checked timed call, where it lies;
        True when judged. The call is an input set's first checked one, or (fresh inputs) any
        checked call, named by its slot. False for anything else (a malformed or repeated message,
        a handle that does not open or maps too little, a failure of the parent's own): the worker
        then sends the output as a file, judged in full as before, so no such failure is blamed on
        the candidate or passes it."""
        assert run.bench is not None
        fresh = run.bench.fresh
        index = message.get("slot") if fresh else message.get("set")
        cases = run.bench.checked if fresh else run.bench.sets
        key = (str(message.get("lib")), index)
        round_index, handles, judge = message.get("round"), message.get("handles"), self._device_judge
        if (
            judge is None  # retired by an earlier failure of its own
            or not isinstance(index, int)
            or not 0 <= index < len(cases)
            or (fresh and message.get("set") != cases[index].seed_index)
            or not isinstance(round_index, int)
            or not isinstance(handles, dict)
            or key in run.device_verdicts
        ):
            return False
        case = cases[index]
        problem = None
        for arg in task.written:
            assert arg.tolerance is not None
            expected = case.expected[arg.name]
            try:
                counted = judge.count(
                    str(run.bench.dir),
                    index,
                    arg.name,
                    str(handles.get(arg.name, "")),
                    arg.tolerance,
                    expected,
                )
                mismatch = (
                    correctness.compare(counted.actual, expected, arg.tolerance)
                    if counted.actual is not None
                    else None
                )
            except CudaError as exc:  # the parent's own device work: its context may be unusable
                self._retire_device_judge(f"judging on the device failed: {exc}")
                return False
            except Exception:  # a bad handle, this platform's IPC, no host memory: the file will tell
                return False
            if mismatch:
                problem = mismatch.describe(arg.name, arg.tolerance)
                break
        run.device_verdicts[key] = DeviceVerdict(round_index, problem)
        return True

    def _retire_device_judge(self, reason: str) -> None:
        """Later candidates send their outputs as files: a failed call may have left the parent's
        context unusable."""
        with self._device_judge_lock:
            judge, self._device_judge = self._device_judge, None
            self._device_judge_off = reason
        if judge is not None:
            with contextlib.suppress(CudaError):
                judge.close()

    # ---- verdicts ----------------------------------------------------------------------------
    def _judge(self, ev: Evaluation, task: Task, target: str, run: CandidateRun) -> None:
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


def _read_between_guards(path: Path, dtype: np.dtype) -> np.ndarray:
    """A reference output file's data, read straight into this process's memory (one copy): the
    expected values never stay in a file a candidate's process could read."""
    count = max(0, path.stat().st_size - 2 * GUARD_BYTES) // np.dtype(dtype).itemsize
    return np.fromfile(path, dtype=dtype, count=count, offset=GUARD_BYTES)



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
