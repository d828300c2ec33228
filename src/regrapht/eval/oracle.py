"""The oracle: the task's serial reference (serial.cpp), run in a worker process of its own to make
the expected outputs of the correctness cases and the bench data, and timed for the serial
baseline, kept across runs in the baseline store where it is good enough to keep. Expected
outputs never leave the parent: the reference's output files are read into memory and removed."""

from __future__ import annotations

import os
import shutil
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from regrapht.eval import trace
from regrapht.eval.compile import Compiler, CompileResult, default_cache_dir
from regrapht.eval.config import EvalConfig
from regrapht.eval.cpu_meter import BackgroundMeter, core_siblings
from regrapht.eval.entry import for_task as task_entry
from regrapht.eval.jobs import Jobs, params
from regrapht.eval.protocol import Event, timing_reply
from regrapht.eval.reference import (
    BenchReference,
    RefCase,
    TestReference,
    checked_calls,
    draw_bench_sets,
    draw_test_cases,
    has_perturbable,
    set_bounds,
)
from regrapht.eval.runner import Reply, run_worker
from regrapht.eval.serial_baselines import (
    KEEP_MIN_SAMPLES,
    POOL_KEEP_TIMINGS,
    SerialBaseline,
    SerialBaselineStore,
    baseline_key,
    keep_or_pool,
    open_store,
)
from regrapht.eval.timing_turn import Hold, PinnedTurn, QuietGate, TimingTurn
from regrapht.eval.verdicts import GUARD_BYTES, crash_message
from regrapht.store import StoreError
from regrapht.tasks import Task, derive_seed
from regrapht.tasks.expr import ExprError
from regrapht.tasks.generators import GeneratorError


class ReferenceError(RuntimeError):
    """The task's own reference failed: the task is broken, not the candidate."""


class Oracle:
    """The serial reference of one evaluator. `quiet` is the gate serial timings take turns on;
    `in_batch()` says whether a batch is in progress (its baselines are then settled at its end)."""

    def __init__(
        self,
        config: EvalConfig,
        secret: bytes,
        compiler: Compiler,
        jobs: Jobs,
        quiet: QuietGate,
        in_batch: Callable[[], bool],
    ):
        self.config, self.secret, self.compiler, self.jobs = config, secret, compiler, jobs
        self.quiet, self.in_batch = quiet, in_batch
        self._cases: dict[str, TestReference] = {}
        self._baselines: SerialBaselineStore | None = None
        self._baselines_off: str | None = None if config.serial_cache else "off (EvalConfig.serial_cache)"
        self._baselines_lock = threading.Lock()
        self._serial_pool: ThreadPoolExecutor | None = None

    def close(self) -> None:
        pool, self._serial_pool = self._serial_pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)  # before the store its timings write to closes
        with self._baselines_lock:
            if self._baselines is not None:
                self._baselines.close()
                self._baselines = None

    def seed_of(self, task: Task):
        return lambda *parts: derive_seed(self.secret, task.id, *parts)

    def serial_build(self, task: Task) -> CompileResult:
        serial = self.compiler.compile(
            task.serial_source(),
            "serial",
            task.function,
            params(task),
            [a.name for a in task.args],
            entry=task_entry(task, "serial"),
        )
        if not serial.ok:
            raise ReferenceError(f"task {task.id}: serial.cpp does not compile:\n{serial.diagnostics}")
        assert serial.library is not None
        return serial

    def serial_library(self, task: Task) -> str:
        library = self.serial_build(task).library
        assert library is not None
        return library

    # ---- the serial baseline, kept across runs ---------------------------------------------------
    def baseline_store(self) -> SerialBaselineStore | None:
        with self._baselines_lock:
            if self._baselines is None and self._baselines_off is None:
                path = self.config.serial_store or str(
                    Path(self.config.cache_dir or default_cache_dir()) / "serial-baselines.sqlite"
                )
                self._baselines, self._baselines_off = open_store(path)
            return self._baselines

    def serial_key(self, task: Task) -> tuple[str, dict[str, Any]]:
        tc = self.config.timing_config
        return baseline_key(
            task.id,
            task.content_hash(),
            task.bench_size,
            tc.input_sets,
            self.serial_build(task).key,
            tc.serial_budget_s,
            tc.serial_max_rounds,
        )

    def case_reference(self, task: Task) -> TestReference:
        """The task's correctness cases with their expected outputs, made once per task."""
        key = str(self.jobs.task_dir(task))
        if key not in self._cases:
            start = time.perf_counter()
            try:
                cases = draw_test_cases(
                    task, self.jobs.task_dir(task) / "test", self.config.seeds, self.seed_of(task)
                )
            except (GeneratorError, ExprError, ImportError, KeyError, ValueError) as exc:
                raise ReferenceError(f"task {task.id}: its inputs could not be generated: {exc}") from exc
            self.serial_library(task)  # compiled before the hold: a compile under a hold would nest
            with self.quiet.noisy(), trace.span("cases", task=task.id):
                self.run_reference(task, cases, timing=None)
            self._cases[key] = TestReference(cases, time.perf_counter() - start)
        return self._cases[key]

    def build_bench_reference(self, task: Task) -> BenchReference:
        start, wall = time.perf_counter(), time.time()
        # A folder per build: a task released while its data was still being written, and needed
        # again later, is built afresh beside the old files rather than into them.
        root = self.jobs.task_dir(task) / f"bench{self.jobs.next_id()}"
        tc = self.config.timing_config
        key, fields = self.serial_key(task)  # compiles serial.cpp first: a compile under a hold would nest
        if not self.fresh_off(task):
            self.jobs.host_perturb_library()  # likewise: the reference perturbs the checked calls' inputs with it
        store = self.baseline_store()
        try:
            kept = store.get(key) if store is not None else None
        except (sqlite3.Error, StoreError):
            kept = None  # an unreadable store costs the reuse, never the evaluation
        marks = {"key": time.time()}  # wall-clock ends of its phases, for the trace (eval/trace.py)
        # The draws and the reference's output runs load the cores: no serial timing runs beside them.
        hold = self.quiet.hold()
        marks["hold"] = time.time()
        try:
            try:
                sets = draw_bench_sets(task, root, tc.input_sets, self.seed_of(task))
                drawn = time.perf_counter()
                marks["drawn"] = time.time()
            except (GeneratorError, ExprError, ImportError, KeyError, ValueError) as exc:
                raise ReferenceError(f"task {task.id}: its bench inputs could not be generated: {exc}") from exc
            # Fresh inputs: the reference computes the checked timed calls' outputs, on exactly their
            # perturbed inputs, instead of one output per set; no timed call sees a set unperturbed.
            reason = self.fresh_off(task)
            bounds = [set_bounds(task, bench_set.inputs) for bench_set in sets] if not reason else []
            if bounds and not any(b is not None for per_set in bounds for b in per_set.values()):
                reason = "no perturbable input has a finite value to perturb"
            checked = (
                checked_calls(task, sets, bounds, self.seed_of(task), int(root.name[len("bench") :]))
                if not reason
                else []
            )
            cases = checked or sets
            # Within a batch, only turns: the batch settles its baselines when it is done.
            quiet = self.config.timing_config.serial_quiet and not self.in_batch()
            baseline: SerialBaseline | None = kept
            if kept is not None or not quiet:
                # One reference process per case, side by side. A timing in turns comes after the data
                # is handed out: a candidate times on the inputs and its checked calls' outputs, never
                # on the serial median, which its verdict waits for (`BenchReference.wait_serial`).
                self.reference_outputs(task, cases)
            else:
                # A quiet timing: the first case's process times the reference once the others have
                # written their outputs (so they do not run beside it), before anything is handed out.
                self.reference_outputs(task, cases[1:])
                baseline = self.time_serial_kept(
                    task, root, cases[:1], hold, quiet, store, key, fields, lambda: not self.in_batch()
                )
        finally:
            hold.release()
        for bench_set in sets:
            bench_set.inputs = {}  # on disk for the workers; only the expected outputs stay in memory
        end = time.perf_counter()
        trace.record("bench_build", wall, time.time(), task=task.id, marks=marks, timed=kept is None and quiet)
        bench = BenchReference(
            root,
            sets,
            baseline.samples if baseline is not None else [],
            end - start,
            {"draw": drawn - start, "reference": end - drawn},
            checked=checked,
            bounds=bounds,
            fresh_reason=reason,
            written_bytes=sum(sets[0].nbytes[a.name] for a in task.written),
            serial=baseline.to_record() if baseline is not None else {},
        )
        if baseline is None:
            bench.serial_timing = self.serial_pool().submit(
                self.time_serial_after, task, bench, replace(cases[0], expected={}, inputs={}), store, key, fields
            )
        return bench

    def serial_pool(self) -> ThreadPoolExecutor:
        """The thread serial timings in turns run on after their data is handed out: one, since
        timings run one at a time anyway (`QuietGate.begin`)."""
        with self._baselines_lock:
            if self._serial_pool is None:
                self._serial_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="regrapht-serial")
            return self._serial_pool

    def time_serial_after(
        self,
        task: Task,
        bench: BenchReference,
        case: RefCase,
        store: SerialBaselineStore | None,
        key: str,
        fields: dict[str, Any],
    ) -> SerialBaseline:
        """Time the reference in a turn on `case` (a copy of the first case: its outputs, made again
        before the timing, never replace the ones candidates are judged by) and fill in `bench`'s
        serial samples and record."""
        hold = self.quiet.hold()  # the output run before the timing loads the cores like a build
        try:
            baseline = self.time_serial_kept(task, bench.dir, [case], hold, False, store, key, fields)
        finally:
            hold.release()
        bench.serial_samples, bench.serial = baseline.samples, baseline.to_record()
        return baseline

    def reference_outputs(self, task: Task, cases: list[RefCase]) -> None:
        """The reference's outputs on `cases`, one process per case, side by side (untimed): a bench
        build waits for the slowest rather than for their sum."""
        if len(cases) <= 1:
            for case in cases:
                self.run_reference(task, [case], timing=None)
            return
        with ThreadPoolExecutor(max_workers=len(cases), thread_name_prefix="reference") as pool:
            for future in [pool.submit(self.run_reference, task, [case], None) for case in cases]:
                future.result()  # the first failure is raised once every process has ended

    def time_serial(self, task: Task, root: Path, cases: list[RefCase], hold: Hold | None, quiet: bool,
                    cpu: int | None = None, beside: int = 0, max_rounds: int | None = None) -> SerialBaseline:  # fmt: skip
        """The reference's outputs on `cases` (the bench sets, or the checked calls' fresh inputs), then
        its timing: in a quiet section of its own (`quiet`), or in a turn, one timing at a time, beside
        other work. With `cpu`: pinned to that logical CPU, beside `beside` other such timings at a
        batch's end (no turn; the background counted on its physical core only)."""
        tc = self.config.timing_config
        spec = self.jobs.timing_spec(
            task,
            root,
            cases[0].nbytes,
            ["reference"],
            [],
            tc.serial_budget_s,
            max_rounds or tc.serial_max_rounds,
            min_rounds=3,
            warmup_rounds=0,  # the output-producing calls just before warmed pages and caches
            min_s=0.0,  # serial calls are long; its rounds and budget bound it
        )
        # A quiet timing may become the machine's baseline, which needs samples enough to know its
        # median (KEEP_MIN_SAMPLES); one in turns beside a batch only serves its batch, settled later.
        spec["floor_rounds"] = KEEP_MIN_SAMPLES if quiet else 1
        turn: TimingTurn | PinnedTurn = (
            PinnedTurn() if cpu is not None else TimingTurn(self.quiet, hold, quiet=quiet, max_wait_s=tc.serial_quiet_wait_s)
        )
        background: list[float | None] = [None]
        try:
            with trace.span("serial_timing", task=task.id, quiet=quiet, cpu=cpu, beside=beside):
                samples = self.run_reference(task, cases, timing=spec, turn=turn, background=background, cpu=cpu)
        finally:
            turn.give_back()
        return SerialBaseline(samples, turn.quiet, background[0], concurrent=beside if cpu is not None else 0)

    def time_serial_kept(
        self,
        task: Task,
        root: Path,
        cases: list[RefCase],
        hold: Hold | None,
        quiet: bool,
        store: SerialBaselineStore | None,
        key: str,
        fields: dict[str, Any],
        still_quiet: Callable[[], bool] = lambda: True,
    ) -> SerialBaseline:
        """Time the reference and settle the timing with the store. A quiet timing that does not pin
        its median (its key's pool is not kept yet) is repeated at once in a fresh process, up to
        `POOL_KEEP_TIMINGS` quiet timings in all, so the first run already divides by the pool that
        later runs reuse: on an H100 host, transpose's serial median moved 7.8% over the three runs
        its pool took to fill (docs/benchmarks.md, session 10), because its processes differ more
        than one process's samples show."""
        tc = self.config.timing_config
        baseline = self.time_serial(task, root, cases, hold, quiet)
        baseline.key = key
        self.keep_baseline(store, key, fields, baseline)
        for _ in range(POOL_KEEP_TIMINGS - 1):
            if not (
                quiet
                and store is not None
                and still_quiet()  # a batch that began meanwhile must not wait on these timings
                and baseline.timings < POOL_KEEP_TIMINGS
                and baseline.disturbed(tc.serial_max_background) is None
                and baseline.problem(tc.serial_max_median_error, tc.serial_max_background) is not None
            ):
                break
            if hold is not None:
                hold.resume()  # the timing's turn gave the hold back: the repeat is quiet again
            again = self.time_serial(task, root, cases, hold, quiet)
            again.key = key
            self.keep_baseline(store, key, fields, again)
            if again.disturbed(tc.serial_max_background) is not None:
                break  # not pooled: the run divides by the quiet pool it had
            baseline = again
        return baseline

    def settle(self, task: Task, bench: BenchReference) -> bool:
        """Time a task's serial reference again, alone (a batch's quiet end), and make the timing
        `bench`'s baseline, kept where acceptable; False when the reference failed (the batch's
        timing stands). Copies of the sets: their outputs, made again, never replace those judged by."""
        try:
            key, fields = self.serial_key(task)
            sets = [replace(s, expected={}, inputs={}) for s in bench.sets]
            baseline = self.time_serial_kept(task, bench.dir, sets, None, True, self.baseline_store(), key, fields)
        except ReferenceError:
            return False
        bench.serial_samples, bench.serial = baseline.samples, baseline.to_record()
        return True

    def time_pinned(self, task: Task, bench: BenchReference, cpu: int, beside: int) -> SerialBaseline:
        """A batch-end timing of a task's serial reference pinned to `cpu`, beside `beside` others
        (eval/settle.py), repeated in fresh processes like a quiet one (up to `POOL_KEEP_TIMINGS`,
        while its median is not pinned), its samples pooled here. Nothing is kept in the store: the
        settle keeps it (`keep_settled`) only if it passes the spread rule on its own, and times the
        task alone otherwise. Raises ReferenceError where the reference fails."""
        tc = self.config.timing_config
        key, _ = self.serial_key(task)
        sets = [replace(s, expected={}, inputs={}) for s in bench.sets]
        baseline = self.time_serial(task, bench.dir, sets, None, True, cpu=cpu, beside=beside)
        for _ in range(POOL_KEEP_TIMINGS - 1):
            if (
                baseline.disturbed(tc.serial_max_background) is not None
                or baseline.problem(tc.serial_max_median_error, tc.serial_max_background) is None
            ):
                break
            again = self.time_serial(task, bench.dir, sets, None, True, cpu=cpu, beside=beside)
            if again.disturbed(tc.serial_max_background) is not None:
                break
            baseline.samples += again.samples
            baseline.timings += 1
            baseline.background_cores = max(baseline.background_cores or 0.0, again.background_cores or 0.0)
        baseline.key = key
        return baseline

    def time_check(self, task: Task, bench: BenchReference) -> SerialBaseline:
        """A short timing alone (`KEEP_MIN_SAMPLES` rounds) that a pinned timing's median must agree
        with (`TimingConfig.serial_settle_check`). Raises ReferenceError where the reference fails."""
        sets = [replace(s, expected={}, inputs={}) for s in bench.sets]
        return self.time_serial(task, bench.dir, sets, None, True, max_rounds=KEEP_MIN_SAMPLES)

    def keep_settled(self, task: Task, bench: BenchReference, baseline: SerialBaseline) -> None:
        """Make a settle's timing `bench`'s baseline, kept in the store where acceptable."""
        key, fields = self.serial_key(task)
        baseline.key = key
        self.keep_baseline(self.baseline_store(), key, fields, baseline)
        bench.serial_samples, bench.serial = baseline.samples, baseline.to_record()

    def keep_baseline(
        self, store: SerialBaselineStore | None, key: str, fields: dict[str, Any], baseline: SerialBaseline
    ) -> None:
        tc = self.config.timing_config
        if store is None:
            baseline.not_kept = f"no store: {self._baselines_off}"
            return
        try:
            keep_or_pool(store, key, fields, baseline, tc.serial_max_median_error, tc.serial_max_background)
        except (sqlite3.Error, StoreError) as exc:  # a full disk, a store locked too long: this run's timing stands
            baseline.not_kept = f"the store could not keep it: {exc}"

    def fresh_off(self, task: Task) -> str:
        """Why a task's timed calls cannot get fresh inputs; empty when they can."""
        if not self.config.timing_config.fresh_inputs:
            return "turned off (TimingConfig.fresh_inputs = False)"
        if not has_perturbable(task):
            return 'the task declares no perturbable input (perturb = "values" in task.toml)'
        return ""

    def run_reference(
        self,
        task: Task,
        cases: list[RefCase],
        timing: dict[str, Any] | None,
        turn: TimingTurn | PinnedTurn | None = None,
        background: list[float | None] | None = None,
        cpu: int | None = None,
    ) -> list[float]:
        """Run serial.cpp once on every case (and time it when asked), in a process of its own.
        With a `turn`, the timing waits for it, once the outputs are written; `background` then
        receives the other CPU activity during the timing, in cores. With `cpu`, the process is
        pinned to that logical CPU as soon as it says hello, and the background counts that CPU's
        physical core only."""
        job_dir = self.jobs.job_dir()
        job = self.jobs.job(
            task,
            {"reference": self.serial_library(task)},
            cases,
            ["reference"],
            job_dir,
            uses_cuda=False,
            device_buffers=False,
            runs=1,
        )
        job["trusted"] = True  # the oracle: only its outputs come back
        if any(case.perturb is not None for case in cases):
            job["host_perturb"] = self.jobs.host_perturb_library()  # checked calls' inputs, as candidates get them
        on_message = None
        if timing is not None and turn is not None:
            job["await_timing"] = True  # asks once its outputs are written
            pid: list[int | None] = [None]
            meter: list[BackgroundMeter | None] = [None]

            def on_message(message: dict[str, Any]) -> Reply:
                if message.get("event") == Event.HELLO:
                    pid[0] = message.get("pid")
                    if cpu is not None and not (isinstance(pid[0], int) and pin(pid[0], cpu)):
                        pid[0] = None  # unpinned: its background is unknown, so the settle times it alone
                if message.get("event") == Event.READY_FOR_TIMING:
                    turn.take()
                    meter[0] = BackgroundMeter(
                        pid[0] if isinstance(pid[0], int) else None, core_siblings(cpu) if cpu is not None else None
                    )
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
            self.jobs.memory_limit(task),
            on_message=on_message,
        )
        problem = crash_message(outcome, self.config.memory_limit_gib)
        if problem:
            raise ReferenceError(
                f"task {task.id}: the serial reference failed: {problem}\n{outcome.output_head[:500]}"
            )
        for done in outcome.all(Event.CASE_DONE):
            case = cases[done["case"]]
            for arg in task.written:
                case.expected[arg.name] = read_between_guards(Path(done["files"][arg.name]), arg.dtype.numpy)
        shutil.rmtree(job_dir, ignore_errors=True)
        timed = outcome.last(Event.TIMING)
        return timed["samples"]["reference"]["host"] if timed else []


def pin(pid: int, cpu: int) -> bool:
    """Pin a reference process (single-threaded) to one logical CPU, before its output run; False
    where that failed."""
    try:
        os.sched_setaffinity(pid, {cpu})
    except (AttributeError, OSError):
        return False
    return True


def read_between_guards(path: Path, dtype: np.dtype) -> np.ndarray:
    """A reference output file's data, read straight into this process's memory (one copy): the
    expected values never stay in a file a candidate's process could read."""
    count = max(0, path.stat().st_size - 2 * GUARD_BYTES) // np.dtype(dtype).itemsize
    return np.fromfile(path, dtype=dtype, count=count, offset=GUARD_BYTES)
