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
from collections import Counter, OrderedDict
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import regrapht
from regrapht.eval import correctness, peaks, sandbox, screen, symbols, toolchain
from regrapht.eval.compile import Compiler, CompileResult, Kind, default_cache_dir
from regrapht.eval.config import EvalConfig
from regrapht.eval.cpu_meter import BackgroundMeter
from regrapht.eval.cudart import CudaError
from regrapht.eval.device_judge import DeviceJudge, JudgeUnavailable
from regrapht.eval.record import RANK, CaseResult, Evaluation, hierarchical_reward
from regrapht.eval.reference import (
    BenchReference,
    RefCase,
    TestReference,
    bench_bytes,
    checked_calls,
    draw_bench_sets,
    draw_test_cases,
    has_perturbable,
    perturbed_inputs,
    set_bounds,
)
from regrapht.eval.runner import Reply, SpareWorker, WorkerOutcome, run_worker
from regrapht.eval.serial_baselines import (
    KEEP_MIN_SAMPLES,
    SerialBaseline,
    SerialBaselineStore,
    baseline_key,
    open_store,
)
from regrapht.eval.stats import speedup, summarize
from regrapht.eval.timing_turn import Hold, QuietGate, TimingTurn
from regrapht.eval.worker import late_elements
from regrapht.store import StoreError
from regrapht.tasks import Task, Tolerance, derive_seed, load_checker
from regrapht.tasks.expr import ExprError
from regrapht.tasks.generators import GeneratorError

GUARD_BYTES = 256
DEVICE_CHECK_SOURCE = Path(__file__).resolve().parent.parent / "data" / "kernels" / "device_check.cu"
HOST_PERTURB_SOURCE = DEVICE_CHECK_SOURCE.with_name("host_perturb.cpp")
CANARY = 0xA5
POISON = (0xFF, 0x7B)  # NaN / -1 in the first run, 1.3e36 / 0x7B7B7B7B in the second
TARGETS = ("cuda", "cpu")


class SandboxUnavailable(RuntimeError):
    """`EvalConfig.require_sandbox` is set and the OS sandbox cannot be had (or broke the harness)."""


class ReferenceError(RuntimeError):
    """The task's own reference failed: the task is broken, not the candidate."""


@dataclass
class DeviceVerdict:
    round: int
    problem: str | None  # what is wrong with the output; None: nothing


@dataclass
class _Run:
    job_dir: Path
    outcome: WorkerOutcome = field(default_factory=WorkerOutcome)
    judged: dict[int, CaseResult] = field(default_factory=dict)
    bench: BenchReference | None = None
    bench_error: ReferenceError | None = None
    # Timed outputs the parent judged in the worker's device memory, by (lib, input set).
    device_verdicts: dict[tuple[str, Any], DeviceVerdict] = field(default_factory=dict)
    sandbox: dict[str, Any] = field(default_factory=dict)  # what confined the worker (record's field)


@dataclass
class _Prepared:
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
        self._benches: dict[str, Future] = {}
        self._bench_lock = threading.Condition()
        self._prefetcher: ThreadPoolExecutor | None = None
        self._prefetched: dict[str, int] = {}  # built ahead and not yet released: key -> bytes it holds
        self._released: set[str] = set()
        self._idle: OrderedDict[str, int] = OrderedDict()  # released, retained: key -> bytes held
        self._dirs: dict[int, tuple[Task, Path]] = {}
        self._lookahead = 2
        self._closing = False
        self._device: dict[str, Any] | None = None
        self._jobs = itertools.count()
        self._spare: SpareWorker | None = None
        self._cuda_runs = 0
        self._spare_lock = threading.Lock()
        self._device_check: Future | None = None
        self._torch: Any = None  # the torch task kind's judge, made on first use
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
        with self._bench_lock:
            self._closing = True
            self._bench_lock.notify_all()
        if self._prefetcher is not None:
            self._prefetcher.shutdown(wait=True, cancel_futures=True)
        with self._spare_lock:
            if self._spare is not None:
                self._spare.discard()
                self._spare = None
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
        if getattr(task, "kind", None) == "torch":
            return self._torch_judge().evaluate(task, source, target)  # type: ignore[arg-type]
        return self._finish(self._prepare(task, source, target, baselines or {}))

    def _torch_judge(self) -> Any:
        """The torch task kind's judge (eval/torch_judge.py), made on first use: it imports torch."""
        if self._torch is None:
            from regrapht.eval.torch_judge import TorchJudge

            self._torch = TorchJudge(self.config, self.secret, self.workdir, self.config.torch_baselines)
        return self._torch

    def evaluate_many(self, items: list[tuple[Task, str, str]]) -> list[Evaluation]:
        """Evaluate (task, source, target) items: every compile starts at once on the CPU pool while
        earlier candidates run, one at a time, on the device. Verdicts equal one-at-a-time ones.

        The device takes the first item, in the given order, that can run without waiting: compiled,
        and with its task's bench data built (or not needed). A task whose gigabytes of bench data are
        still being built is passed over, not waited for, while other tasks' candidates are ready;
        one task's items keep their order. Results come back in the given order."""
        if any(getattr(task, "kind", None) == "torch" for task, _, _ in items):
            # Torch candidates run one at a time through their own judge; the rest batch as usual.
            torch_ix = [i for i, (task, _, _) in enumerate(items) if getattr(task, "kind", None) == "torch"]
            rest = [i for i in range(len(items)) if i not in torch_ix]
            merged: dict[int, Evaluation] = dict(zip(rest, self.evaluate_many([items[i] for i in rest]) if rest else []))
            merged.update({i: self.evaluate(*items[i]) for i in torch_ix})
            return [merged[i] for i in range(len(items))]
        prepared = [self._prepare(task, source, target, {}) for task, source, target in items]
        self._batches += 1
        results: list[Evaluation | None] = [None] * len(prepared)
        try:
            self.prefetch([task for task, _, _ in items], threads=self.config.reference_threads)
            left = Counter(str(task.root) for task, _, _ in items)
            pending = list(range(len(prepared)))
            while pending:
                i = self._next_runnable(prepared, pending)
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

    def _settle_serial_baselines(self, prepared: list[_Prepared], results: list[Evaluation]) -> None:
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
        for key_dir, indices in by_task.items():
            with self._bench_lock:
                future = self._benches.get(key_dir)
            if future is None or not future.done() or future.exception() is not None:
                continue  # never built (no correct candidate), failed, or dropped to make room
            bench: BenchReference = future.result()
            if bench.serial.get("source") == "measured" and bench.serial.get("not_kept"):
                unsettled.append((prepared[indices[0]].task, bench, indices))
            # else kept: from the store, or this batch's own timing was acceptable
        if unsettled:
            # The spare for the next candidate would bring up its CUDA context now, beside the
            # timings: the next batch starts its first worker afresh instead.
            with self._spare_lock:
                if self._spare is not None:
                    self._spare.discard()
                    self._spare = None
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

    def _next_runnable(self, prepared: list[_Prepared], pending: list[int]) -> int:
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
                with self._bench_lock:
                    building = [i for i in waiting if str(self._task_dir(prepared[i].task)) in self._benches]
                if building:
                    return min(building, key=lambda i: bench_bytes(prepared[i].task, input_sets))
                return waiting[0]
            if not compiles:
                return pending[0]
            wait(compiles, timeout=1.0, return_when=FIRST_COMPLETED)

    def _missing(self, p: _Prepared) -> tuple[list[Future], bool]:
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
        with self._bench_lock:
            bench = self._benches.get(str(self._task_dir(p.task)))
        return [], bench is None or not bench.done()

    def _uses_device_check(self, task: Task, target: str) -> bool:
        return self.config.timing and target == "cuda" and task.convention == "device"

    # ---- stages ----------------------------------------------------------------------------
    def _prepare(self, task: Task, source: str, target: str, baselines: dict[str, str]) -> _Prepared:
        if target not in TARGETS:
            raise ValueError(f"unknown target {target!r} (known: {', '.join(TARGETS)})")
        started = time.perf_counter()
        findings = screen.screen(source, target)
        if self.config.static_screen and screen.blocking(findings):
            return _Prepared(task, source, target, findings, None, {}, started)
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
        return _Prepared(
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

    def _finish(self, p: _Prepared) -> Evaluation:
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
        tests = self._test_reference(task)
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
            ev.seconds.update(_phases(run.outcome))
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

    def _done(self, ev: Evaluation, p: _Prepared) -> Evaluation:
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

    def _test_reference(self, task: Task) -> TestReference:
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

    def _bench_reference(self, task: Task) -> BenchReference:
        """The bench-size data, built once per task: by the first caller, or by the prefetcher."""
        key = str(self._task_dir(task))
        with self._bench_lock:
            future = self._benches.get(key)
            self._idle.pop(key, None)  # in use again: not to be evicted
            owner = future is None
            if owner:
                future = self._benches[key] = Future()
        if owner:
            try:
                future.set_result(self._build_bench_reference(task))
            except BaseException as exc:  # handed to every waiter, not swallowed
                future.set_exception(exc)
        return future.result()

    def prefetch(self, tasks: list[Task], threads: int = 1) -> None:
        """Build bench references in the background while candidates run on the device: `threads + 1`
        tasks ahead of those released so far, and more while their data fits `reference_cache_gib`
        beside the retained data (bench data can take gigabytes each), in `build_order`: small tasks
        first and in between, so the device starts soon and keeps getting work, large ones early, so
        a multi-gigabyte task is built beside the others' candidates instead of last. Builds run
        side by side; their serial timings take turns (`TimingTurn`), though the builds still load
        the machine the serial baseline is timed on."""
        if not self.config.timing:
            return
        if self._prefetcher is None:
            self._prefetcher = ThreadPoolExecutor(
                max_workers=threads, thread_name_prefix="regrapht-reference"
            )
            self._lookahead = threads + 1
        batch = list({str(t.root): t for t in tasks}.values())
        with self._bench_lock:
            for task in batch:
                self._released.discard(str(self._task_dir(task)))  # needed again: may be built ahead again
        for task in build_order(batch, self.config.timing_config.input_sets):
            self._prefetcher.submit(self._prefetch_one, task)

    def _prefetch_one(self, task: Task) -> None:
        key = str(self._task_dir(task))
        size = bench_bytes(task, self.config.timing_config.input_sets, self.config.timing_config.fresh_inputs)
        cap = self.config.reference_cache_bytes()
        with self._bench_lock:
            while True:
                if self._closing or key in self._released or key in self._benches:
                    return  # kept or built already, being built by a candidate that needed it, or not needed
                if (
                    len(self._prefetched) < self._lookahead
                    or sum(self._prefetched.values()) + sum(self._idle.values()) + size <= cap
                ):
                    break
                self._bench_lock.wait(timeout=1.0)
            self._prefetched[key] = size
        self._bench_reference(task)

    def release(self, task: Task) -> None:
        """Say that no candidate queued now needs a task's bench data. The data stays while the
        retained data of released tasks fits `reference_cache_gib` (the least recently released go
        first), so a search that evaluates a task batch after batch builds it, and times its serial
        baseline, once. Data still being built is dropped when its build ends."""
        key = str(self._task_dir(task))
        dropped: list[Future] = []
        with self._bench_lock:
            future = self._benches.get(key)
            self._released.add(key)
            self._prefetched.pop(key, None)
            if future is not None and future.done() and future.exception() is None:
                self._idle.pop(key, None)
                self._idle[key] = future.result().held_bytes
                dropped = self._evict_locked()
            elif future is not None:
                dropped = [self._benches.pop(key)]
            self._bench_lock.notify_all()
        for gone in dropped:
            gone.add_done_callback(self._forget_bench)

    def _forget_bench(self, future: Future) -> None:
        """A dropped task's bench data: its files, and its expected outputs on the device."""
        _remove_bench_files(future)
        judge = self._device_judge
        if judge is not None and future.exception() is None:
            judge.forget(str(future.result().dir))

    def _evict_locked(self) -> list[Future]:
        cap = self.config.reference_cache_bytes()
        dropped = []
        while self._idle and sum(self._idle.values()) > cap:
            key, _ = self._idle.popitem(last=False)
            dropped.append(self._benches.pop(key))
        return dropped

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
                if message.get("event") == "hello":
                    pid[0] = message.get("pid")
                if message.get("event") == "ready_for_timing":
                    turn.take()
                    meter[0] = BackgroundMeter(pid[0] if isinstance(pid[0], int) else None)
                    return {"timing": timing}
                if message.get("event") == "timing":
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
        problem = self._crash_message(outcome)
        if problem:
            raise ReferenceError(
                f"task {task.id}: the serial reference failed: {problem}\n{outcome.output_head[:500]}"
            )
        for done in outcome.all("case_done"):
            case = cases[done["case"]]
            for arg in task.written:
                case.expected[arg.name] = _read_between_guards(Path(done["files"][arg.name]), arg.dtype.numpy)
        shutil.rmtree(job_dir, ignore_errors=True)
        timed = outcome.last("timing")
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
    ) -> _Run:
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
        run = _Run(job_dir=job_dir)
        checker = load_checker(task)
        first_runs: dict[int, dict[str, Any]] = {}

        def on_message(message: dict[str, Any]) -> Reply:
            event = message.get("event")
            if event == "case_done" and message["lib"] == "candidate":
                # Judged as they arrive: the first failure ends the worker, since timing a wrong
                # candidate would only spend device time.
                index = message["case"]
                if message["run"] == 0:
                    first_runs[index] = message
                    return None
                result = self._judge_case(task, tests.cases[index], [first_runs[index], message], checker)
                run.judged[index] = result
                return "stop" if result.status != "correct" else None
            if event == "timing" and uses_cuda:
                self._open_spare_context()  # measured: the next one's context may come up now
                return None
            if event == "ready_for_timing":
                # Every case passed: now (and only now) the bench-size data is worth preparing. The
                # worker waits idle meanwhile, so the serial timing it may wait for runs without it.
                hold.release()
                try:
                    run.bench = self._bench_reference(task)
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
                return {"timing": spec}
            if event == "anchor" and run.bench is not None:
                return {"judged": self._judge_anchor(task, run, message)}
            return None

        own_hold = hold is None
        if hold is None:
            hold = self._quiet.hold()
        spare = self._take_spare() if uses_cuda else None
        if uses_cuda:
            self._start_spare(job["libcudart"])  # the next candidate's: Python now, CUDA after this one
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
                self._open_spare_context()
        report = run.outcome.last("sandbox")
        if job["sandbox"] is not None and report is not None and report.get("broken"):
            # Before any candidate code loaded, the harness's own calls failed inside the sandbox:
            # this machine's fault, never the candidate's. It runs again unconfined (unless required).
            self._sandbox_broke(str(report["broken"]))
            shutil.rmtree(job_dir, ignore_errors=True)
            return self._run_candidate(task, target, libs, tests)
        if job["sandbox"] is not None and report is None and run.outcome.last("hello") is not None:
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
        hello = run.outcome.last("hello")
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

    def _judge_anchor(self, task: Task, run: _Run, message: dict[str, Any]) -> bool:
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

    def _take_spare(self) -> SpareWorker | None:
        """The spare started after the previous candidate, if any; the runner checks it is alive."""
        with self._spare_lock:
            spare, self._spare = self._spare, None
        return spare

    def _start_spare(self, libcudart: str) -> None:
        """Start the next candidate's process as this one starts: Python comes up beside it (on other
        cores; it loads no candidate code and touches no device). A single evaluation gets none (from
        the second cuda candidate of an evaluator on)."""
        self._cuda_runs += 1
        if not self.config.spare_worker or self._closing or self._cuda_runs < 2:
            return
        with self._spare_lock:
            if self._spare is None:
                self._spare = SpareWorker(libcudart)

    def _open_spare_context(self) -> None:
        """The spare's CUDA context comes up once the running candidate is measured (or gone), so it
        overlaps that candidate's exit, the verdict and the next compile, never a measurement."""
        with self._spare_lock:
            if self._spare is not None:
                self._spare.open_context()

    # ---- verdicts ----------------------------------------------------------------------------
    def _crash_message(self, outcome: WorkerOutcome) -> str | None:
        where = self._where(outcome)
        if outcome.memory_exceeded:
            return (
                f"used more than {self.config.memory_limit_gib:g} GiB of host memory{where} and was stopped"
            )
        if outcome.oom_killed:
            return (
                f"was stopped by the kernel's out-of-memory killer{where}: the machine ran out of host memory "
                f"and the killer chose this process, the one holding the most (at least "
                f"{outcome.peak_rss / (1 << 30):.2f} GiB of host memory seen; ceiling "
                f"{self.config.memory_limit_gib:g} GiB)"
            )
        if outcome.timed_out:
            return f"{outcome.timeout_reason}{where}: likely an infinite loop, a deadlock or a far too slow kernel"
        cuda = outcome.last("cuda_error")
        if cuda:
            message = f"CUDA error {cuda['where']}: {cuda['text']} ({cuda['name']})"
            if cuda["name"] == "cudaErrorMemoryAllocation":
                message += (
                    ": out of memory on the device; the candidate holds memory it never frees, or needs more "
                    "than the GPU has"
                )
            return message
        error = outcome.last("error")
        if error:
            return f"{error['kind']}: {error['text']}"
        if outcome.signal_name == "SIGSYS" and outcome.last("sandbox"):
            return (
                f"the sandbox stopped the process{where}: it made a system call a candidate may not make "
                "(creating a process, tracing or reaching into another one)"
            )
        if outcome.signal_name:
            return f"the process was killed by {outcome.signal_name}{where}"
        if outcome.channel_error:
            return f"the result channel was corrupted{where}: {outcome.channel_error}"
        if not outcome.complete:
            code = outcome.returncode
            return f"the process ended on its own (exit status {code}){where} before finishing: the candidate called exit or similar"
        return None

    @staticmethod
    def _where(outcome: WorkerOutcome) -> str:
        last = outcome.last("calling")
        progress = outcome.last("timing_progress")
        if progress and (not last or outcome.messages.index(progress) > outcome.messages.index(last)):
            return f" while timing (round {progress['round'] + 1})"
        if last:
            return f" during correctness case {last['case'] + 1}, run {last['run'] + 1}"
        if outcome.last("loaded") is None and outcome.last("hello") is not None:
            return " while loading the library"
        return ""

    def _judge(self, ev: Evaluation, task: Task, target: str, run: _Run) -> None:
        outcome = run.outcome
        crash = None if outcome.stopped_early else self._crash_message(outcome)
        error = outcome.last("error")
        if crash and error and outcome.last("loaded") is None:
            ev.status, ev.message = "compile_error", f"the compiled library does not load: {error['text']}"
            return
        ev.cases = [run.judged[i] for i in sorted(run.judged)]
        failed = sorted((c for c in ev.cases if c.status != "correct"), key=lambda c: RANK[c.status])
        if crash:
            ev.status = "timeout" if outcome.timed_out else "runtime_error"
            if outcome.signal_name == "SIGSYS" and outcome.last("sandbox"):
                ev.status = "integrity_violation"
            ev.message = crash
        elif failed:
            ev.status, ev.message = failed[0].status, f"{failed[0].message} [{failed[0].label}]"
        elif self.config.timing:
            assert run.bench is not None
            self._judge_timing(ev, task, target, run.bench, outcome, run.device_verdicts)

    def _judge_case(self, task: Task, case: RefCase, runs: list[dict[str, Any]], checker) -> CaseResult:
        result = CaseResult(case.label, case.sizes, case.seed_index, "correct")
        raw = [
            {name: np.fromfile(path, dtype=np.uint8) for name, path in run["files"].items()} for run in runs
        ]
        values = [{a.name: correctness.data(r[a.name], GUARD_BYTES, a) for a in task.arrays} for r in raw]
        problems: list[tuple[str, str]] = []
        late = _late_writes(values, [run.get("at_return", {}) for run in runs])
        if late:
            problems.append(("integrity_violation", late))
        for arg in task.arrays:
            for r in range(2):
                damage = correctness.guard_damage(raw[r][arg.name], GUARD_BYTES, CANARY)
                if damage:
                    problems.append(("wrong_answer", f"wrote out of bounds of `{arg.name}`: {damage}"))
                    break
            if arg.role == "input":
                for r in range(2):
                    mismatch = correctness.compare(values[r][arg.name], case.inputs[arg.name], _EXACT)
                    if mismatch:
                        problems.append(
                            (
                                "integrity_violation",
                                "modified an input the task declares read-only: "
                                + mismatch.describe(arg.name, _EXACT, what="changed"),
                            )
                        )
                        break
        for arg in task.written:
            if arg.role == "output":
                mask = correctness.unwritten([v[arg.name] for v in values], list(POISON), arg)
                if mask.any():
                    first = int(np.flatnonzero(mask)[0])
                    problems.append(
                        (
                            "wrong_answer",
                            f"left {int(mask.sum())} of {mask.size} elements of "
                            f"`{arg.name}` unwritten (first at index {first})",
                        )
                    )
                    continue
            assert arg.tolerance is not None
            if arg.tolerance.kind == "custom":
                continue
            outcomes = [
                correctness.compare(v[arg.name], case.expected[arg.name], arg.tolerance) for v in values
            ]
            if outcomes[0] and outcomes[1]:
                problems.append(("wrong_answer", outcomes[0].describe(arg.name, arg.tolerance)))
            elif outcomes[0] or outcomes[1]:
                bad = outcomes[0] or outcomes[1]
                problems.append(
                    (
                        "wrong_answer",
                        "results differ between two runs on the same inputs (a race or "
                        "uninitialised memory): " + bad.describe(arg.name, arg.tolerance),
                    )
                )
            abs_err, rel_err = correctness.max_errors(values[0][arg.name], case.expected[arg.name])
            result.max_abs_error = max(result.max_abs_error, abs_err)
            result.max_rel_error = max(result.max_rel_error, rel_err)
        if checker is not None and not problems:
            for r in range(2):
                actual = {a.name: values[r][a.name] for a in task.written}
                verdict = checker(case.inputs, case.expected, actual, case.sizes)
                if verdict:
                    problems.append(("wrong_answer", f"task checker: {verdict}"))
                    break
        if problems:
            problems.sort(key=lambda item: RANK[item[0]])
            result.status, result.message = problems[0][0], "; ".join(m for _, m in problems[:3])
        return result

    def _judge_timing(
        self,
        ev: Evaluation,
        task: Task,
        target: str,
        bench: BenchReference,
        outcome: WorkerOutcome,
        device_verdicts: dict[tuple[str, Any], DeviceVerdict] | None = None,
    ) -> None:
        device_verdicts = device_verdicts or {}
        timing = outcome.last("timing")
        assert timing is not None
        first_round = min(c["round"] for c in timing["checks"])
        checker = load_checker(task)
        # (lib, input set) -> round whose output was judged in full; with fresh inputs (lib, slot)
        judged: dict[tuple[str, int], int] = {}
        for check in sorted(timing["checks"], key=lambda c: c["round"]):
            case = self._checked_case(bench, check, judged) if bench.fresh else bench.sets[check["set"]]
            if case is None:
                ev.status = "runtime_error"
                ev.message = (
                    f"the worker reported timed call {check['round'] + 1} as a checked call the parent "
                    f"never planned (slot {check.get('slot')!r}, set {check.get('set')!r}; harness protocol error)"
                )
                return
            index = check["slot"] if bench.fresh else check["set"]
            for name, where in sorted(check["late"].items()):
                ev.status, ev.message = (
                    "integrity_violation",
                    f"in timed call {check['round'] + 1}: {_late_message(name, where['count'], where['first'])}",
                )
                return
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
                    return
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
                    return
                problem = verdict.problem
            else:
                problem = self._judge_timed_files(task, case, check, checker)
            if problem:
                if check["round"] == first_round:
                    ev.status = "wrong_answer"
                    ev.message = f"wrong at the bench size ({_fmt_sizes(task.bench_size)}): {problem}"
                else:
                    ev.status = "integrity_violation"
                    ev.message = (
                        f"timed call {check['round'] + 1} gave a wrong result although earlier calls "
                        f"were right (the candidate behaves differently on later calls): {problem}"
                    )
                return
            judged.setdefault((check["lib"], index), check["round"])
        unclaimed = [v for key, v in device_verdicts.items() if v.problem and key not in judged]
        if unclaimed:
            # The parent found an output wrong that the worker's report then left out.
            ev.status = "runtime_error"
            ev.message = (
                f"a timed output the worker's report omits was judged on the device: {unclaimed[0].problem}"
            )
            return
        primary = "event" if target == "cuda" and task.convention == "device" else "host"
        samples = timing["samples"]
        # The hold the calls were timed behind, as the worker reports it but never more than
        # configured: the worker runs candidate code.
        hold_s = min(float(timing.get("hold_s", 0.0)), self.config.timing_config.hold_s)
        for lib, s in samples.items():
            ev.timings[lib] = {**summarize(s[primary], s["host"], s["event"]).to_dict(), "hold_s": hold_s}
        # Where the timed outputs were judged: in the worker's device memory, or from files.
        ev.timings["candidate"]["judged_on_device"] = any(c.get("judged_on_device") for c in timing["checks"])
        # Whether every timed call saw inputs no earlier call had (and if not, why not).
        ev.timings["candidate"]["fresh_inputs"] = bench.fresh
        if not bench.fresh:
            ev.timings["candidate"]["fresh_inputs_reason"] = bench.fresh_reason
        serial = bench.serial_samples
        # With where the baseline came from (kept from an earlier run, or timed in this one), how
        # far its samples spread, and how quiet the machine was while it was timed.
        ev.timings["serial"] = {**summarize(serial, serial, serial).to_dict(), **bench.serial}
        cand = ev.timings["candidate"]
        if target == "cuda":
            slack = self.config.event_host_slack
            # Work hidden from the calling stream inflates every call's host time; a loaded CPU only
            # delays some calls, so the fastest tenth of host times is compared.
            host_fast = float(np.percentile(samples["candidate"]["host"], 10))
            # The host's clock starts while the hold (queued before the start event) still runs.
            if host_fast > slack * cand["event_median_s"] + 100e-6 + hold_s:
                ev.status = "integrity_violation"
                ev.message = (
                    f"the call returned before its work was done: host time {host_fast * 1e3:.3f} ms (10th percentile) "
                    f"(bracketed by device synchronization) is far above the GPU event time "
                    f"{cand['event_median_s'] * 1e3:.3f} ms on the calling stream: work ran on a side stream "
                    f"or host thread the timing stream did not see"
                )
                return
        seed = derive_seed(self.secret, task.id, "bootstrap")
        cand_samples = samples["candidate"][primary]
        ev.speedups["serial"] = speedup(serial, cand_samples, "serial", seed).to_dict()
        if self._batches:
            self._timed[id(ev)] = list(cand_samples)  # restated if the batch settles a new baseline
        for lib in samples:
            if lib != "candidate":
                ev.speedups[lib] = speedup(samples[lib][primary], cand_samples, lib, seed).to_dict()
        self._roofline(ev, task, target)
        if ev.status == "correct":
            baseline = self.config.reward_baseline if self.config.reward_baseline in ev.speedups else "serial"
            ev.reward_baseline = baseline
            ev.reward = hierarchical_reward("correct", ev.speedups[baseline]["value"])

    @staticmethod
    def _checked_case(
        bench: BenchReference, check: dict[str, Any], judged: dict[tuple[str, int], int]
    ) -> RefCase | None:
        """The planned checked call a fresh-input check reports: its slot exists, was not judged
        before for this library, and ran on the set the parent computed its expected outputs for."""
        slot = check.get("slot")
        if not isinstance(slot, int) or not 0 <= slot < len(bench.checked) or (check["lib"], slot) in judged:
            return None
        case = bench.checked[slot]
        return case if check.get("set") == case.seed_index else None

    def _judge_timed_files(
        self, task: Task, bench_set: RefCase, check: dict[str, Any], checker
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

    def _roofline(self, ev: Evaluation, task: Task, target: str) -> None:
        floor_bytes, floor_flops = task.floor_bytes(task.bench_size), task.floor_flops(task.bench_size)
        roof: dict[str, Any] = {"floor_bytes": floor_bytes, "floor_flops": floor_flops}
        ev.roofline = roof
        if target != "cuda" or self._device is None:
            roof["note"] = (
                "no plausibility gate on the cpu target (no measured ceiling for multi-threaded code)"
                if target == "cpu"
                else "no measured GPU ceilings"
            )
            return
        bandwidth = float(self._device["bandwidth_bytes_per_s"])
        sm_hz = float(self._device["sm_count"]) * float(self._device["clock_khz"]) * 1e3
        arch = peaks.arch_key(self._device.get("cc_major"), self._device.get("cc_minor"))
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


_EXACT = Tolerance("exact")


def build_order(tasks: list[Task], input_sets: int) -> list[Task]:
    """The order to build bench data in, from both ends of the size ranking in turn: the cheapest
    (the device gets work soonest), the largest (the longest builds overlap the most device work),
    the next cheapest, the next largest... With several build threads, small tasks keep arriving
    for the device while the large ones are built beside them."""
    ranked = sorted(tasks, key=lambda t: bench_bytes(t, input_sets))
    order = []
    while ranked:
        order.append(ranked.pop(0))
        if ranked:
            order.append(ranked.pop())
    return order


def _read_between_guards(path: Path, dtype: np.dtype) -> np.ndarray:
    """A reference output file's data, read straight into this process's memory (one copy): the
    expected values never stay in a file a candidate's process could read."""
    count = max(0, path.stat().st_size - 2 * GUARD_BYTES) // np.dtype(dtype).itemsize
    return np.fromfile(path, dtype=dtype, count=count, offset=GUARD_BYTES)


def _remove_bench_files(future: Future) -> None:
    if future.exception() is None:
        shutil.rmtree(future.result().dir, ignore_errors=True)


def _phases(outcome: WorkerOutcome) -> dict[str, float]:
    """Where the worker's time went, from the timestamps on its messages."""
    stamps = {m["event"]: m["t"] for m in outcome.messages if "t" in m}
    last_case = max((m["t"] for m in outcome.all("case_done")), default=None)
    phases = {}
    if "hello" in stamps:
        phases["startup"] = stamps["hello"]
        hello = outcome.last("hello") or {}
        if "context_s" in hello:
            # A spare created its context before its job came, after the previous worker had exited.
            phases["cuda_context_ahead" if hello.get("spare") else "cuda_context"] = hello["context_s"]
    sandbox_report = outcome.last("sandbox")
    if sandbox_report and "seconds" in sandbox_report:
        # Entering the sandbox and checking the harness still works inside it, before the library loads.
        phases["sandbox"] = sandbox_report["seconds"]
    if "loaded" in stamps and last_case is not None:
        phases["correctness"] = last_case - stamps["loaded"]
    if "ready_for_timing" in stamps and "timing_ready" in stamps:
        phases["bench_setup"] = stamps["timing_ready"] - stamps["ready_for_timing"]
    timing = outcome.last("timing")
    if timing:
        phases["timing"] = timing["seconds"]
        if "check_s" in timing:
            phases["timing_checks"] = timing["check_s"]  # part of "timing"
    if "done" in stamps and (outcome.last("hello") or {}).get("spare"):
        # A spare's clock starts when its job arrives, as the parent's does: what follows its last
        # message is the end of the process (its CUDA context) and the parent's reaping of it.
        phases["exit"] = max(0.0, outcome.seconds - stamps["done"])
    return {k: round(v, 4) for k, v in phases.items()}


def _late_writes(values: list[dict[str, np.ndarray]], at_return: list[dict[str, str]]) -> str | None:
    """Outputs that changed after the function returned: work it left running outside the calling stream."""
    for run_values, snapshots in zip(values, at_return):
        for name, path in snapshots.items():
            final = run_values[name]
            changed = late_elements(
                np.fromfile(path, dtype=np.uint8), final.view(np.uint8), final.dtype.itemsize
            )
            if changed:
                return _late_message(name, changed["count"], changed["first"])
    return None


def _late_message(name: str, count: int, first: int) -> str:
    return (
        f"the call returned before its work was done: {count} elements of `{name}` "
        f"changed after it returned (first at index {first}); work left running on a side "
        "stream or host thread escapes the timer. Finish (or synchronize) all work before returning"
    )


def _fmt_sizes(sizes: dict[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sizes.items())


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
