"""Running one candidate's worker: its job, the parent's answers to its messages while it runs (each
correctness case judged as it arrives, the bench data prepared only for a candidate that passed
them, anchors judged on the device), the spare worker for the next one, and the OS sandbox, run
again unconfined where the sandbox broke the harness's own calls (this machine's fault)."""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from regrapht.eval import toolchain, verdicts
from regrapht.eval.bench_cache import BenchCache
from regrapht.eval.bench_masters import HANDLES_FILE, MasterSet, write_handles
from regrapht.eval.config import EvalConfig
from regrapht.eval.device_judging import DeviceJudging
from regrapht.eval.jobs import Jobs
from regrapht.eval.oracle import ReferenceError
from regrapht.eval.protocol import Event, anchor_reply, timing_reply
from regrapht.eval.record import CaseResult
from regrapht.eval.reference import BenchReference, TestReference
from regrapht.eval.runner import EXITS, Reply, WorkerOutcome, run_worker
from regrapht.eval.spares import SparePool
from regrapht.eval.stop_rule import interval_spec
from regrapht.eval.timing_turn import Hold, QuietGate
from regrapht.eval.timing_verdict import DeviceVerdict
from regrapht.tasks import Task, load_checker


class SandboxUnavailable(RuntimeError):
    """`EvalConfig.require_sandbox` is set and the OS sandbox cannot be had (or broke the harness)."""


@dataclass
class CandidateRun:
    """One candidate's worker run: its messages and what the parent judged while it ran."""

    job_dir: Path
    outcome: WorkerOutcome = field(default_factory=WorkerOutcome)
    judged: dict[int, CaseResult] = field(default_factory=dict)
    planned: int = 0  # correctness cases the job holds: every one must be judged
    bench: BenchReference | None = None
    bench_error: ReferenceError | None = None
    # Timed outputs the parent judged in the worker's device memory, by (lib, input set).
    device_verdicts: dict[tuple[str, Any], DeviceVerdict] = field(default_factory=dict)
    sandbox: dict[str, Any] = field(default_factory=dict)  # what confined the worker (record's field)
    # Seconds the worker waited on the parent between its messages (part of the record's "bench_setup"):
    # "bench_wait" for the task's bench data, "judge_stage" for the expected outputs staged on the device.
    waits: dict[str, float] = field(default_factory=dict)


class SandboxPolicy:
    """Whether candidates run confined, and why not (`off`): turned off, or the sandbox broke the
    harness's own calls on this machine (then every later candidate runs without it, and its record
    says why)."""

    def __init__(self, config: EvalConfig):
        self.config = config
        self.off: str | None = None if config.sandbox else "turned off (EvalConfig.sandbox)"

    def spec(self, task_dir: Path, job: dict[str, Any]) -> dict[str, Any] | None:
        """What the worker may read (its inputs, its libraries; the system's libraries it adds itself)
        and write (its scratch), or None when candidates run unconfined."""
        if self.off is not None:
            return None
        libraries = [*job["libs"].values(), job.get("device_check") or "", job.get("host_perturb") or ""]
        read = [str(task_dir)] + [str(Path(lib).parent) for lib in libraries if lib]
        if job["libcudart"]:
            read.append(str(Path(job["libcudart"]).parent))
        cuda_home = toolchain.cuda_home()
        if cuda_home is not None:
            read.append(str(cuda_home))
        return {"read": read, "write": [job["out_dir"]], "require": self.config.require_sandbox}

    def broke(self, problem: str) -> None:
        reason = f"the sandbox broke the harness's own calls on this machine, so candidates run unconfined: {problem}"
        if self.config.require_sandbox:
            raise SandboxUnavailable(f"EvalConfig.require_sandbox is set, but {reason}")
        self.off = reason


class CandidateRunner:
    """Runs candidates' workers for one evaluator. `sandbox_spec(task, job, job_dir)` confines each
    (the evaluator's, so it can be replaced); `device` is the GPU the first cuda worker measured."""

    def __init__(
        self,
        config: EvalConfig,
        jobs: Jobs,
        benches: BenchCache,
        device_judging: DeviceJudging,
        spares: SparePool,
        quiet: QuietGate,
        sandbox: SandboxPolicy,
        sandbox_spec: Callable[[Task, dict[str, Any], Path], dict[str, Any] | None],
    ):
        self.config, self.jobs, self.benches = config, jobs, benches
        self.device_judging, self.spares, self._quiet = device_judging, spares, quiet
        self.sandbox, self.sandbox_spec = sandbox, sandbox_spec
        self.device: dict[str, Any] | None = None

    def uses_device_check(self, task: Task, target: str) -> bool:
        """Whether the candidate's timed outputs are compared by the harness's device kernel."""
        return self.config.timing and target == "cuda" and task.device_buffers

    def _stage_judge_ahead(self, task: Task, job: dict[str, Any], run: CandidateRun) -> None:
        """Where the task's bench data is built already, its expected outputs go to the parent's
        device judge before the worker starts (once per task; later candidates find them there), so
        the worker does not hold the device while the parent copies them (judge_stage: 0.057 s per
        candidate on an H100, session 12). Not built yet: staged in the worker's turn, as before."""
        future = self.benches.future(task)
        if future is None or not future.done() or future.exception() is not None:
            return
        began = time.perf_counter()
        self.device_judging.stage(task, future.result(), job["libcudart"], job["device_check"])
        run.waits["judge_stage_ahead"] = round(time.perf_counter() - began, 4)  # not the worker's time

    def _offer_inputs(self, task: Task, job: dict[str, Any], job_dir: Path, run: CandidateRun) -> MasterSet | None:
        """Where the task's bench data is built, its input sets' device masters (kept by the parent,
        eval/bench_masters.py): their handles go to a file in the job's folder, which the job names,
        so the worker copies its inputs device to device before the candidate loads, instead of
        uploading them from files while it holds the GPU (staging: 0.188 s per candidate on an H100,
        session 13). None (the upload, as before) where the data is not built yet or the parent
        keeps no masters."""
        future = self.benches.future(task)
        if not self.config.timing or future is None or not future.done() or future.exception() is not None:
            return None
        bench = future.result()
        sources = [
            (s, a["name"], bench.dir / f"set{s}" / f"{a['name']}.npy")
            for s in range(self.config.timing_config.input_sets)
            for a in job["args"]
            if a["array"] and a["role"] in ("input", "inout")
        ]
        if not sources or not all(path.is_file() for _, _, path in sources):
            return None
        began = time.perf_counter()
        master = self.device_judging.offer_inputs(str(bench.dir), sources, job["libcudart"], job["device_check"])
        if master is not None:
            path = job_dir / HANDLES_FILE
            job["inputs"] = {"dir": str(bench.dir), "file": str(path), "arrays": write_handles(path, master)}
        run.waits["inputs_offer_ahead"] = round(time.perf_counter() - began, 4)  # not the worker's time
        return master

    def run(
        self, task: Task, target: str, libs: dict[str, str], tests: TestReference, hold: Hold | None = None,
        use_masters: bool = True,
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
            device_buffers=uses_cuda and task.device_buffers,
            runs=2,
            measure_bandwidth=self.device is None,
        )
        job["await_timing"] = self.config.timing
        job["device_check"] = self.jobs.device_check_library() if self.uses_device_check(task, target) else None
        if self.config.timing and not job["device_buffers"]:
            job["host_perturb"] = self.jobs.host_perturb_library()
        job["sandbox"] = self.sandbox_spec(task, job, job_dir)
        run = CandidateRun(job_dir=job_dir, planned=len(tests.cases))
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
                began = time.perf_counter()
                try:
                    run.bench = self.benches.get(task)
                except ReferenceError as exc:
                    run.bench_error = exc
                    return "stop"
                finally:
                    run.waits["bench_wait"] = round(time.perf_counter() - began, 4)
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
                if tc.interval_stop:
                    spec["interval"] = interval_spec(tc)
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
                began = time.perf_counter()
                spec["judge_on_device"] = (
                    job["device_check"] is not None
                    and job["device_buffers"]
                    and self.device_judging.stage(task, run.bench, job["libcudart"], job["device_check"])
                )
                run.waits["judge_stage"] = round(time.perf_counter() - began, 4)
                return timing_reply(spec)
            if event == Event.ANCHOR and run.bench is not None:
                return anchor_reply(self.device_judging.judge_anchor(task, run, message))
            return None

        own_hold = hold is None
        if hold is None:
            hold = self._quiet.hold()
        master = None
        intact = True
        try:
            if job["device_check"] is not None and job["device_buffers"]:
                self._stage_judge_ahead(task, job, run)
                if use_masters:
                    master = self._offer_inputs(task, job, job_dir, run)
            spare = self.spares.take() if uses_cuda else None
            if uses_cuda:
                self.spares.start(job["libcudart"])  # the next candidate's: Python now, CUDA after this one
            run.outcome = run_worker(
                job,
                job_dir / "job.json",
                self.config.call_timeout_s,
                self.config.total_timeout_s,
                self.jobs.memory_limit(task),
                on_message=on_message,
                spare=spare,
                end_at_done=True,  # its exit overlaps the verdict; the next worker waits for it
            )
        finally:
            if master is not None:
                (job_dir / HANDLES_FILE).unlink(missing_ok=True)  # a worker that never read it
                intact = self.device_judging.release_inputs(master)
            if own_hold:
                hold.release()
            if uses_cuda:
                # Once this worker is gone (ended at its done, it may still be exiting): a candidate
                # that held the GPU's memory has given it back before the spare's context asks for some.
                EXITS.then(self.spares.open_context)
        if not intact:
            # The bench inputs' master changed while this worker held it: its copy may be of changed
            # inputs, by code that was not its own. Judged again, its inputs uploaded from the files.
            shutil.rmtree(job_dir, ignore_errors=True)
            return self.run(task, target, libs, tests, use_masters=False)
        report = run.outcome.last(Event.SANDBOX)
        if job["sandbox"] is not None and report is not None and report.get("broken"):
            # Before any candidate code loaded, the harness's own calls failed inside the sandbox:
            # this machine's fault, never the candidate's. It runs again unconfined (unless required).
            self.sandbox.broke(str(report["broken"]))
            shutil.rmtree(job_dir, ignore_errors=True)
            return self.run(task, target, libs, tests)
        if job["sandbox"] is not None and report is None and run.outcome.last(Event.HELLO) is not None:
            self.sandbox.broke("the worker sent no sandbox report: it ended while entering the sandbox")
            shutil.rmtree(job_dir, ignore_errors=True)
            return self.run(task, target, libs, tests)
        if report is not None:
            run.sandbox = {k: report.get(k) for k in ("landlock", "seccomp", "reason")}
            if job["sandbox"].get("require") and not (report.get("landlock") and report.get("seccomp")):
                raise SandboxUnavailable(
                    f"EvalConfig.require_sandbox is set, but the worker could not be confined: {report.get('reason')}"
                )
        else:
            run.sandbox = {"landlock": None, "seccomp": False, "reason": self.sandbox.off}
        hello = run.outcome.last(Event.HELLO)
        if uses_cuda and hello and "bandwidth_bytes_per_s" in hello and self.device is None:
            self.device = hello
        if run.bench_error is not None:
            raise run.bench_error
        return run
