"""The evaluator: screen, compile, run in isolation, judge, time, and write the record.

Inputs are drawn here from the task and a per-run secret; expected outputs come from the serial
reference run in a separate process and never leave this process. A candidate's worker receives
inputs only, and returns raw buffers and timings; every verdict is computed here.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from collections import Counter
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from regrapht.eval import sandbox, screen, symbols, toolchain, trace, verdicts
from regrapht.eval.batch import BatchSpan, Prepared, next_runnable, settle_serial_baselines
from regrapht.eval.bench_cache import BenchCache, build_order
from regrapht.eval.candidates import CandidateRun, CandidateRunner, SandboxPolicy, SandboxUnavailable
from regrapht.eval.compile import Compiler, CompileResult, Kind
from regrapht.eval.config import EvalConfig
from regrapht.eval.cpu_meter import one_per_core
from regrapht.eval.device_judging import DeviceJudging
from regrapht.eval.entry import for_task as task_entry
from regrapht.eval.jobs import DEVICE_CHECK_SOURCE, HOST_PERTURB_SOURCE, Jobs, params
from regrapht.eval.oracle import Oracle, ReferenceError
from regrapht.eval.protocol import Event
from regrapht.eval.record import Evaluation, hierarchical_reward
from regrapht.eval.reference import BenchReference, TestReference, bench_bytes
from regrapht.eval.runner import WorkerOutcome
from regrapht.eval.scratch import OWNER_FILE, make_workdir, sweep_stale_scratch
from regrapht.eval.settle import settle_cores_and_slots, settle_tasks
from regrapht.eval.spares import SparePool
from regrapht.eval.stats import SetSamples
from regrapht.eval.timing_turn import Hold, QuietGate
from regrapht.eval.timing_verdict import DeviceVerdict, TimingJudge
from regrapht.eval.verdicts import CANARY, GUARD_BYTES, POISON
from regrapht.tasks import Task

# Names callers import from here, some of them defined in the modules this one was split into.
__all__ = [
    "CANARY",
    "DEVICE_CHECK_SOURCE",
    "GUARD_BYTES",
    "HOST_PERTURB_SOURCE",
    "OWNER_FILE",
    "Prepared",
    "POISON",
    "TARGETS",
    "CandidateRun",
    "DeviceVerdict",
    "Evaluator",
    "ReferenceError",
    "SandboxUnavailable",
    "build_order",
    "evaluate",
    "sweep_stale_scratch",
]

TARGETS = ("cuda", "cpu")
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
        self._torch: Any = None  # the torch task kind's judge, made on first use
        self.jobs = Jobs(self.config, self.secret, self.compiler, self.workdir)
        self.benches = BenchCache(
            lambda task: self.oracle.build_bench_reference(task),
            lambda task: str(self.jobs.task_dir(task)),
            lambda task: bench_bytes(
                task, self.config.timing_config.input_sets, self.config.timing_config.fresh_inputs
            ),
            self.config.reference_cache_bytes,
            lambda: self.config.timing_config.input_sets,
            on_drop=self._forget_bench,
        )
        self.spares = SparePool(lambda: self.config.spare_worker)
        self.device_judging = DeviceJudging()
        # Bench builds, compiles and workers side by side; serial timings one by one, alone.
        self._quiet = QuietGate()
        self.compiler.gate = self._quiet
        self.oracle = Oracle(
            self.config, self.secret, self.compiler, self.jobs, self._quiet, lambda: self._batches > 0
        )
        self._batches = 0  # evaluate_many calls in progress: their serial timings are settled at the end
        self._span = BatchSpan()  # open_batch: several evaluate_many calls, settled at close_batch
        self._timed: dict[int, SetSamples] = {}  # id(record) -> its candidate's samples, within a batch
        self.sandbox_policy = SandboxPolicy(self.config)
        self.candidates = CandidateRunner(
            self.config,
            self.jobs,
            self.benches,
            self.device_judging,
            self.spares,
            self._quiet,
            self.sandbox_policy,
            lambda task, job, job_dir: self.sandbox_spec(task, job, job_dir),
        )
        self.library_screen = symbols.LibraryScreen()
        if self.config.require_sandbox:
            offered = sandbox.probe()
            if not (offered["landlock"] and offered["seccomp"]):
                shutil.rmtree(self.workdir, ignore_errors=True)
                raise SandboxUnavailable(
                    f"EvalConfig.require_sandbox is set, but this kernel cannot confine workers: {offered['reason']}"
                )

    def close(self) -> None:
        self.benches.close()
        self.oracle.close()  # waits for serial timings under way: they need the compiler and the store
        self.spares.close()
        self.device_judging.close()
        self.compiler.close()
        if self._torch is not None:
            self._torch.close()
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
            return self.torch_judge().evaluate(task, source, target)  # type: ignore[arg-type]
        return self.finish(self.prepare(task, source, target, baselines or {}))

    def torch_judge(self) -> Any:
        """The torch task kind's judge (eval/torch_judge.py), made on first use: it imports torch."""
        if self._torch is None:
            from regrapht.eval.torch_judge import TorchJudge

            self._torch = TorchJudge(self.config, self.secret, self.workdir, self.config.torch_baselines,
                                     hold_library=self.jobs.device_check_build)  # fmt: skip
        return self._torch

    def evaluate_many(self, items: list[tuple[Task, str, str]]) -> list[Evaluation]:
        """Evaluate (task, source, target) items: every compile starts at once on the CPU pool while
        earlier candidates run, one at a time, on the device. Verdicts equal one-at-a-time ones.

        The device takes the first item, in the given order, that can run without waiting: compiled,
        and with its task's bench data built (or not needed). A task whose gigabytes of bench data are
        still being built is passed over, not waited for, while other tasks' candidates are ready;
        one task's items keep their order. Results come back in the given order."""
        if any(getattr(task, "kind", None) == "torch" for task, _, _ in items):
            # Torch candidates go through their own judge (builds on its CPU pool, then device turns);
            # the rest batch as usual.
            torch_ix = [i for i, (task, _, _) in enumerate(items) if getattr(task, "kind", None) == "torch"]
            rest = [i for i in range(len(items)) if i not in torch_ix]
            merged = dict(zip(rest, self.evaluate_many([items[i] for i in rest]) if rest else []))
            merged.update(zip(torch_ix, self.torch_judge().evaluate_many([items[i] for i in torch_ix])))
            return [merged[i] for i in range(len(items))]
        prepared = [self.prepare(task, source, target, {}) for task, source, target in items]
        self._batches += 1
        results: list[Evaluation | None] = [None] * len(prepared)
        deferred = False
        try:
            self.prefetch([task for task, _, _ in items], threads=self.config.reference_threads)
            left = Counter(task.instance_key for task, _, _ in items)
            pending = list(range(len(prepared)))
            while pending:
                began, wall, why = time.perf_counter(), time.time(), self._missing(prepared[pending[0]]) if trace.enabled() else None  # fmt: skip
                i = self.next_runnable(prepared, pending)
                # The device idles (nothing held) while no pending item is ready: its compiles, or its
                # task's bench data, built off the device (the key keeps its first name).
                compile_wait = time.perf_counter() - began
                pending.remove(i)
                p = prepared[i]
                trace.record("wait", wall, time.time(), task=p.task.id, first=why and [len(why[0]), why[1]])  # what the first pending item lacked: compiles, bench data
                with trace.span("item", task=p.task.id) as traced:
                    ran = time.perf_counter()
                    results[i] = self.finish(p)
                    traced["status"] = results[i].status  # type: ignore[union-attr]
                results[i].seconds.update(  # device_loop: this item's cost to the loop (pools plan by it)
                    compile_wait=round(compile_wait, 4), device_loop=round(time.perf_counter() - ran, 4))  # type: ignore[union-attr]  # fmt: skip
                left[p.task.instance_key] -= 1
                if left[p.task.instance_key] == 0:
                    self.release(p.task)
            assert all(r is not None for r in results)  # every item ran exactly once
            deferred = self._span.add(prepared, results)  # type: ignore[arg-type]
            if not deferred:
                self._settle_serial_baselines(prepared, results)  # type: ignore[arg-type]
        finally:
            self._batches -= 1
            if not deferred:
                for r in results:
                    self._timed.pop(id(r), None)
        return results  # type: ignore[return-value]

    def open_batch(self) -> None:
        """Open a batch of several `evaluate_many` calls (a pool lane's share of a pool batch, see
        eval/spread.py): until `close_batch`, builds time the serial reference in turns, as inside
        one call, and no call settles its serial baselines at its end."""
        self._span.depth += 1
        self._batches += 1

    def close_batch(self, settle_cores: list[int] | None = None, slots: dict | None = None) -> list[Evaluation]:  # fmt: skip
        """Settle the serial baselines of every call since `open_batch`, as one call settles its own
        at its end; the records restated. `settle_cores`: the logical CPUs (one per physical core) the
        settle may pin timings to (default: one per physical core this process may use); `slots`: the
        batch's slots and lock where a pool's lanes settle at once (eval/settle.HostSlots)."""
        closed = self._span.close()
        if closed is None:
            return []
        prepared, results = closed
        try:
            self._settle_serial_baselines(prepared, results, settle_cores, slots)
        finally:
            self._batches -= 1
            for r in results:
                self._timed.pop(id(r), None)
        return [r for r in results if "serial_settle" in r.seconds]

    def _settle_serial_baselines(self, prepared: list[Prepared], results: list[Evaluation], settle_cores: list[int] | None = None, slots: dict | None = None) -> None:  # fmt: skip
        """The batch's quiet moment. During a batch, a task without a kept serial baseline is timed
        in turns once its bench data is handed out, beside the batch's compiles, builds and candidates (waiting for
        quiet there idled the device: e723cfb). Now nothing else runs: each such task whose bench
        data is still kept is timed again, alone; the new timing is kept where acceptable, and the
        batch's records of the task divide by it."""
        if not self.config.timing or not self.config.timing_config.serial_quiet:
            return
        by_task: dict[str, list[int]] = {}
        for i, p in enumerate(prepared):
            by_task.setdefault(str(self.jobs.task_dir(p.task)), []).append(i)
        groups = [(prepared[ix[0]].task, self.benches.future(prepared[ix[0]].task), ix) for ix in by_task.values()]
        # The spare for the next candidate would bring up its CUDA context beside the timings: the
        # next batch starts its first worker afresh instead (spares.discard, before any is settled).
        tc = self.config.timing_config
        cores = one_per_core(toolchain.usable_core_set()) if settle_cores is None else list(settle_cores)
        cores, host_slots, lock = settle_cores_and_slots(cores, tc.serial_settle_width, slots)
        # The pooled-runs exception for pinned timings holds only beside other lanes' (the slots).
        pool_beside = tc.serial_pinned_pool_beside if host_slots is not None else 0

        def settle(items: list[tuple[Task, BenchReference]]) -> list[tuple[bool, float]]:
            return settle_tasks(items, self.oracle, cores, tc.serial_max_median_error, tc.serial_max_background, tc.serial_settle_check, lock, pool_beside, host_slots)  # fmt: skip

        settle_serial_baselines(groups, results, self._timed, settle, self.spares.discard, self.secret)

    def next_runnable(self, prepared: list[Prepared], pending: list[int]) -> int:
        """The pending item to run next (see `batch.next_runnable`)."""
        return next_runnable(
            prepared,
            pending,
            self._missing,
            lambda task: self.benches.future(task) is not None,
            self.config.timing_config.input_sets,
            self.benches.future if self.config.wait_for_bench_data else None,
            self.benches.build_now if self.config.wait_for_bench_data else None,
            max(1, self.config.reference_threads),
        )

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
        return self.candidates.uses_device_check(task, target)

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
        library = task.library_source() if target == "cuda" and self.config.compare_library else None
        if library is not None and library != source:  # library.cu itself (tasks check) is not timed twice
            extra.setdefault("library", library)
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
        return self.library_screen.findings(compiled.library if compiled.ok else None, target)

    def _submitter(self, task: Task):
        names = [a.name for a in task.args]
        return lambda source, kind: self.compiler.submit(
            source, kind, task.function, params(task), names, entry=task_entry(task, kind)
        )

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
            # The worker waited on this process's answers (bench_wait and judge_stage among them).
            ev.seconds["parent_reply"] = round(run.outcome.reply_s, 4)
            ev.integrity += run.outcome.notes  # an earlier worker that could not be reaped
            ev.seconds.update(verdicts.phases(run.outcome))
            ev.seconds.update(run.waits)  # the parent's share of "bench_setup"
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
        """Run the candidate's worker under `hold` (see `CandidateRunner.run`)."""
        return self.candidates.run(task, target, libs, tests, hold)

    def sandbox_spec(self, task: Task, job: dict[str, Any], job_dir: Path) -> dict[str, Any] | None:
        """What the candidate's worker may read and write (see `SandboxPolicy.spec`), or None."""
        return self.sandbox_policy.spec(self.jobs.task_dir(task), job)

    # ---- verdicts ----------------------------------------------------------------------------
    def judge(self, ev: Evaluation, task: Task, target: str, run: CandidateRun) -> None:
        if verdicts.judge_run(ev, run.outcome, run.judged, self.config.memory_limit_gib, run.planned) and self.config.timing:
            if run.bench is None or run.outcome.last(Event.TIMING) is None:
                ev.status = "runtime_error"
                ev.message = "the worker ended before its timing was reported (its run ended early)"
                return
            self._judge_timing(ev, task, target, run.bench, run.outcome, run.device_verdicts)

    def timing_judge(self) -> TimingJudge:
        """The judge of timing reports with this evaluator's settings, secret and measured GPU."""
        return TimingJudge(self.config, self.secret, self.candidates.device)

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
            self._timed[id(ev)] = samples  # restated if the batch settles a new baseline

    # ---- environment -------------------------------------------------------------------------
    def _fingerprint(self, target: str) -> dict[str, Any]:
        return toolchain.fingerprint(target, self.candidates.device)


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
