"""Judging torch candidates: the parent side of the torch task kind.

The reference runs in a worker of its own (trusted) that draws every case's inputs from the run's
secret and keeps the float64 expected outputs where only this process reads them; each candidate
runs in a fresh worker (eval/torch_worker.py) started by the evaluator's runner, with its timeouts,
memory ceiling and checked result channel. Every verdict is computed here, from the worker's raw
outputs and reports: the comparison (eval/correctness.py), the integrity findings, the timing
statistics (eval/stats.py) and the record (eval/record.py).
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import platform
import secrets
import shutil
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import regrapht
from regrapht.eval import (
    toolchain,
    torch_baseline_cache,
    torch_build,
    torch_checks,
    torch_forms,
    torch_prebuild,
    torch_sandbox,
)
from regrapht.eval.candidates import SandboxUnavailable
from regrapht.eval.compile import default_cache_dir
from regrapht.eval.config import EvalConfig
from regrapht.eval.evaluator import ReferenceError
from regrapht.eval.record import Evaluation, hierarchical_reward
from regrapht.eval.runner import SpareWorker, WorkerOutcome, run_worker
from regrapht.eval.torch_protocol import check_torch_message
from regrapht.eval.torch_state import CandidateState, death_message
from regrapht.eval.torch_verdicts import judge_timing
from regrapht.tasks.inputs import derive_seed
from regrapht.tasks.torch_task import TorchTask

WORKER = "regrapht.eval.torch_worker"
DEFAULT_BASELINES = {"cuda": ("eager", "compile"), "cpu": ("eager",)}
WARM_IDLE_S = 600.0


class TorchReferenceError(ReferenceError):
    """The task's own reference failed: the task is broken, not the candidate."""


@dataclass
class _Reference:
    case_dir: Path
    expected_dir: Path
    cases: list[dict[str, Any]]
    outputs: dict[str, list[dict[str, Any]]]  # label -> [{shape, dtype}] of the reference's native run
    notes: dict[str, str] = field(default_factory=dict)
    deterministic: bool = True
    native_error: dict[str, list[float]] = field(default_factory=dict)
    spread: dict[str, list[float]] = field(default_factory=dict)


def baselines_for(target: str, chosen: tuple[str, ...] | None) -> tuple[str, ...]:
    """The run's baselines; eager always among them (the timed calls are checked against it)."""
    from regrapht.eval.torch_timing import BASELINES

    names = tuple(chosen) if chosen else DEFAULT_BASELINES[target]
    unknown = [n for n in names if n not in BASELINES]
    if unknown:
        raise ValueError(f"unknown baseline(s) {', '.join(unknown)} (known: {', '.join(BASELINES)})")
    return ("eager", *[n for n in names if n != "eager"])


class TorchJudge:
    """Evaluates candidates for torch tasks with one evaluator's secret, scratch and settings."""

    def __init__(self, config: EvalConfig, secret: bytes, workdir: Path, baselines: tuple[str, ...] | None = None,
                 reward_baseline: str | None = None, hold_library: Callable[[], Future] | None = None):  # fmt: skip
        self.config = config
        # Starts (once) the build of the harness's device library, whose hold kernel the timed calls
        # wait behind (TimingConfig.torch_hold_s): the evaluator's, shared with the serial path.
        self.hold_library = hold_library
        self.secret = secret
        self.workdir = workdir / "torch"
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.cache_dir = Path(config.cache_dir) if config.cache_dir else default_cache_dir()
        self.baselines = baselines
        self.reward_baseline = reward_baseline
        self._refs: dict[tuple[str, str], _Reference] = {}
        self._jobs = 0
        # Why candidates run unconfined (eval/torch_sandbox.py): turned off, or it broke the harness here.
        self.sandbox_off: str | None = None if config.sandbox else "turned off (EvalConfig.sandbox)"
        self._pool: torch_prebuild.BuildPool | None = None
        # The next candidates' workers, started ahead (torch imported), each in a scratch folder of its
        # own: (process, folder, whether its environment is the sandbox's), oldest first.
        # EvalConfig.spare_worker turns them on, EvalConfig.torch_spares bounds them.
        self._spares: list[tuple[SpareWorker, Path, bool]] = []
        # The next reference's worker, started ahead the same way (a reference runs unconfined, in an
        # environment that names no folder of its own, so any reference can take it).
        self._ref_spare: SpareWorker | None = None
        self._spare_lock = threading.Lock()  # an evaluator may be shared by threads
        # The targets whose candidates get spares, started with a reference's or a candidate's worker: cuda,
        # where its import runs on host cores the GPU measurement does not use. Not cpu: there it would
        # import torch beside the timed rounds on the same cores, and started after them it had too
        # little time to gain anything (measured: benchmarks/torch_phases_cpu.py, docs/benchmarks.md).
        self.spare_targets = {"cuda"}

    @property
    def pool(self) -> torch_prebuild.BuildPool:
        """The CPU threads that build candidates' extensions ahead of their device turns."""
        if self._pool is None:
            self._pool = torch_prebuild.BuildPool(self.cache_dir, self.config.jobs)
        return self._pool

    @property
    def _spare(self) -> tuple[SpareWorker, Path, bool] | None:
        """The spare the next candidate takes (the oldest), if any."""
        return self._spares[0] if self._spares else None

    def close(self) -> None:
        self._discard_spare()
        if self._pool is not None:
            self._pool.close()
            self._pool = None

    def prebuild(self, source: str, target: str, filename: str = "") -> list[Any]:
        """Start building the extensions the candidate's text settles (eval/torch_prebuild.py) on the
        CPU pool; the futures, one per build. Nothing of the candidate runs here."""
        try:
            form = torch_forms.detect(source, filename)
        except torch_forms.FormError:
            return []
        if self.config.static_screen and torch_checks.screen_source(source):
            return []  # refused before any build
        specs = torch_prebuild.specs_in(source, form.kind, form.entry)
        return [self.pool.submit(spec, target) for spec in specs if not spec["cuda_sources"] or target == "cuda"]

    def evaluate_many(self, items: list[tuple[TorchTask, str, str]]) -> list[Evaluation]:
        """Evaluate (task, source, target) items with every extension build started at once on the
        CPU pool; the device takes, one at a time, the first candidate (in the given order) whose
        builds are done, so builds overlap other candidates' checks and timing on cuda (on cpu, where
        timings run on the host's cores, every build ends first). Results come back in
        the given order; each verdict equals a one-at-a-time evaluation's."""
        import concurrent.futures

        builds = [self.prebuild(source, target) for _, source, target in items]
        if any(target == "cpu" for _, _, target in items):
            # cpu timings share the host's cores with compilers: every build ends before any timing
            concurrent.futures.wait([f for fs in builds for f in fs])
        results: dict[int, Evaluation] = {}
        pending = list(range(len(items)))
        while pending:
            ready = [i for i in pending if all(f.done() for f in builds[i])]
            if not ready:  # every candidate left waits for a build: wait for the first to finish
                concurrent.futures.wait([f for i in pending for f in builds[i] if not f.done()],
                                        return_when=concurrent.futures.FIRST_COMPLETED)  # fmt: skip
                continue
            i = ready[0]
            pending.remove(i)
            results[i] = self.evaluate(*items[i])
        return [results[i] for i in range(len(items))]

    # ---- reference ---------------------------------------------------------------------------
    def cases(self, task: TorchTask) -> list[dict[str, Any]]:
        out = []
        for i, sizes in enumerate(task.test_sizes):
            init_seed = derive_seed(self.secret, "torch", task.id, "init", i) % (1 << 63)
            for s in range(self.config.seeds):
                out.append({"label": f"s{i}-seed{s}", "sizes": dict(sizes), "init_seed": init_seed,
                            "input_seed": derive_seed(self.secret, "torch", task.id, "inputs", i, s) % (1 << 63)})  # fmt: skip
        return out

    def reference(self, task: TorchTask, target: str, check_determinism: bool = False,
                  cases: list[dict[str, Any]] | None = None) -> _Reference:  # fmt: skip
        """The task's cases drawn and their float64 outputs computed, once per task and target
        (`cases`: others than the test cases, for `tasks check`; not kept)."""
        # An RL variant shares its task's folder but not its id (which seeds the cases) or its dtype.
        key = (task.instance_key, target)
        if key in self._refs and cases is None:
            return self._refs[key]
        # A name no candidate can guess: the parent builds a candidate's extension unconfined, and an
        # `.incbin` or a linker flag naming a path it knows could carry the expected outputs back.
        folder = self._fresh_dir(f"ref-{secrets.token_hex(16)}")
        case_dir, expected_dir = folder / "inputs", folder / "expected"
        case_dir.mkdir()
        expected_dir.mkdir()
        keep = cases is None
        cases = cases if cases is not None else self.cases(task)
        job = {"mode": "reference", "reference": str(task.reference_path), "target": target, "dtype": task.dtype,
               "cases": cases, "case_dir": str(case_dir), "expected_dir": str(expected_dir),
               "check_determinism": check_determinism}  # fmt: skip
        if target in self.spare_targets:  # the candidates' spares import torch during this run
            self._start_spare()
        warm = self._warm_folder(task, target) if keep else None
        if warm is not None and torch_baseline_cache.manifest(warm) is None:
            spec = self.timing_spec(task, target, 0)
            job["warm"] = {"sizes": spec["sizes"], "init_seed": spec["init_seed"], "input_seeds": spec["input_seeds"],
                           "baselines": torch_baseline_cache.compiled(tuple(spec["baselines"])),
                           **{cache: str(warm / cache) for cache in torch_baseline_cache.CACHE_ENV}}  # fmt: skip
            for cache in torch_baseline_cache.CACHE_ENV:
                (warm / cache).mkdir(parents=True, exist_ok=True)
        outcome = None
        if target == "cuda" and keep and not check_determinism and "warm" not in job:
            outcome = self._host_reference(job, folder, case_dir, expected_dir, len(cases))
        if outcome is None:
            outcome = self._run(job, folder, None, self._take_ref_spare() if target in self.spare_targets else None)
        warmed = outcome.last("baselines")
        if warm is not None and warmed is not None and all("error" not in v for v in warmed["setup"].values()):
            torch_baseline_cache.seal(warm)
        ref = _Reference(case_dir, expected_dir, cases, {})
        for message in outcome.all("reference_case"):
            ref.outputs[message["label"]] = message["outputs"]
            ref.native_error[message["label"]] = message["native_error"]
            ref.spread[message["label"]] = message["spread"]
            ref.deterministic &= bool(message["deterministic"])
            if message.get("note"):
                ref.notes[message["label"]] = message["note"]
        # Every case in and the worker lost while warming the compiled baselines (max-autotune, past its
        # limit): the reference stands, the warm folder stays unsealed (candidates compile cold).
        if len(ref.outputs) != len(cases) or not (outcome.complete or "warm" in job):
            error = outcome.last("error")
            why = error["text"] if error else death_message(outcome) or "it ended early"
            raise TorchReferenceError(f"{task.id}: the reference failed: {why}")
        if keep:
            self._refs[key] = ref
        return ref

    def prepare(self, task: TorchTask, target: str) -> None:
        """What every evaluation of `task` on `target` shares, done now (the reference run, the harness
        library's build started): a caller may overlap it with work of its own before the first one."""
        self._hold_build(target)
        self.reference(task, target)

    def _host_reference(self, job: dict[str, Any], folder: Path, case_dir: Path, expected_dir: Path, n: int) -> WorkerOutcome | None:
        """A cuda task's reference run on the host, with no CUDA context: its cases' inputs are drawn
        on the host and saved to the host either way, and the float64 truth at the small test shapes
        needs no GPU, so the reference holds none (the device stays free for candidates' turns). None,
        and nothing kept, where the host cannot stand in: the reference failed there (an op or a
        tensor that exists on cuda only), or an op lacked float64 so the truth would be the task's
        dtype computed on the host's kernels rather than the device's; the caller then runs it on
        the device as before. The compiled baselines' warm-up (`warm`) needs the device: never here."""
        outcome = self._run({**job, "target": "cpu"}, folder, None, self._take_ref_spare())
        cases = outcome.all("reference_case")
        if outcome.complete and outcome.last("error") is None and len(cases) == n and not any(c.get("note") for c in cases):
            return outcome
        for stale in (*case_dir.iterdir(), *expected_dir.iterdir()):
            stale.unlink()
        return None

    # ---- candidate ---------------------------------------------------------------------------
    def evaluate(self, task: TorchTask, source: str, target: str = "cuda", filename: str = "") -> Evaluation:
        began = time.monotonic()
        ev = Evaluation(task_id=task.id, target=target, status="correct", message="",
                        candidate_sha256=hashlib.sha256(source.encode()).hexdigest(),
                        reward_baseline=self._reward_baseline(target), fingerprint=self._fingerprint(target))  # fmt: skip
        ev.sandbox = {"landlock": None, "seccomp": False, "reason": self.sandbox_off}
        try:
            form = torch_forms.detect(source, filename)
        except torch_forms.FormError as exc:
            return self._done(ev, "compile_error", str(exc), began)
        if form.kind == "python":
            try:
                ast.parse(source)
            except SyntaxError as exc:
                return self._done(ev, "compile_error", f"syntax error at line {exc.lineno}: {exc.msg}", began)
        hits = torch_checks.screen_source(source)
        ev.screen = [{"line": h.line, "severity": "block", "message": h.message, "excerpt": h.excerpt} for h in hits]
        if hits and self.config.static_screen:
            first = hits[0]
            return self._done(ev, "integrity_violation", f"source screen: line {first.line}: {first.message}: `{first.excerpt}`", began)
        self.prebuild(source, target, filename)  # builds beside the reference's run, if that is still to come
        hold = self._hold_build(target)  # likewise
        ref = self.reference(task, target)
        spare = self._take_spare()
        folder = spare[1] if spare is not None else self._fresh_dir(f"cand-{task.id}")
        case_dir = folder / "cases"
        shutil.copytree(ref.case_dir, case_dir)
        candidate = folder / ("candidate.cu" if form.kind == "cuda" else "candidate.py")
        candidate.write_text(source)
        job = {"mode": "candidate", "reference": str(task.reference_path), "candidate": str(candidate),
               "form": form.kind, "entry": form.entry, "target": target, "dtype": task.dtype,
               "allow_lower": task.allow_tf32, "cases": ref.cases, "case_dir": str(case_dir),
               "await_timing": self.config.timing, "hold_library": _library(hold)}  # fmt: skip
        state = CandidateState(ev, task, target, ref, case_dir, self)
        if self.sandbox_off is None:
            self._seed_baseline_cache(task, target, folder, job)
            job["sandbox"] = torch_sandbox.spec(task.root, folder, self.cache_dir, target, baselines_for(target, self.baselines),
                                                [ref.expected_dir.parent], self.config.require_sandbox)  # fmt: skip
        if target in self.spare_targets:
            self._start_spare()
        outcome = self._run(job, folder, state.on_message, spare[0] if spare is not None else None)
        ev.integrity += outcome.notes  # an earlier worker that could not be reaped (eval/runner.py, Exits)
        if state.sandbox_missing is not None:  # required, and this kernel lacks part of it
            shutil.rmtree(folder, ignore_errors=True)
            raise SandboxUnavailable(f"EvalConfig.require_sandbox is set, but {state.sandbox_missing}")
        if state.sandbox_broke is not None:  # the harness, not the candidate: run it again unconfined
            self.sandbox_off = f"the sandbox broke the harness's own calls on this machine, so candidates run unconfined: {state.sandbox_broke}"
            if self.config.require_sandbox:
                raise SandboxUnavailable(f"EvalConfig.require_sandbox is set, but {self.sandbox_off}")
            shutil.rmtree(folder, ignore_errors=True)
            return self.evaluate(task, source, target, filename)
        state.finish(outcome)
        # `ops`: the ATen operators the audited forwards dispatched, with their counts.
        ev.compile = {"form": form.kind, "entry": form.entry, "triton": form.triton, "builds": state.builds, "ops": state.ops}
        ev.output_head = outcome.output_head
        if ev.status == "correct" and state.timing is not None:
            assert state.timing is not None
            judge_timing(ev, task, target, state.timing, self.config)
        ev.reward = hierarchical_reward(ev.status, ev.speedup(ev.reward_baseline) if ev.speedups else None)
        ev.seconds["total"] = round(time.monotonic() - began, 3)
        shutil.rmtree(folder, ignore_errors=True)
        return ev

    def _hold_build(self, target: str) -> Future | None:
        """The harness library's build, started, where this run holds the device before timed calls."""
        wanted = target == "cuda" and self.config.timing and self.config.timing_config.torch_hold_s > 0
        return self.hold_library() if wanted and self.hold_library is not None else None

    def _warm_folder(self, task: TorchTask, target: str) -> Path | None:
        """The machine's warm cache folder of this task's compiled baselines (eval/torch_baseline_cache.py),
        or None where the run times no compiled baseline."""
        names = torch_baseline_cache.compiled(baselines_for(target, self.baselines))
        if not self.config.timing or not names:
            return None
        import torch

        name = torch_baseline_cache.key(Path(task.reference_path).read_text(), task.dtype, target, task.bench_for(target),
                                        names, torch.__version__)  # fmt: skip
        return torch_baseline_cache.folder(self.cache_dir, name)

    def _seed_baseline_cache(self, task: TorchTask, target: str, folder: Path, job: dict[str, Any]) -> None:
        """Copy the task's sealed warm caches into the candidate's scratch caches, and put their
        manifest in the job for the worker's check before its compiled baselines load them."""
        warm = self._warm_folder(task, target)
        files = torch_baseline_cache.manifest(warm) if warm is not None else None
        if warm is None or files is None:
            return
        dirs = torch_sandbox.env(folder)
        caches = {cache: Path(dirs[var]) for cache, var in torch_baseline_cache.CACHE_ENV.items()}
        try:
            seeded = torch_baseline_cache.seed(warm, files, caches)
        except OSError:  # the warm folder changed under us (cleared): compile cold, as without one
            return
        job["baseline_cache"] = {"files": seeded, "dirs": {cache: str(p) for cache, p in caches.items()}}

    def _done(self, ev: Evaluation, status: str, message: str, began: float) -> Evaluation:
        ev.status, ev.message = status, message
        ev.reward = hierarchical_reward(status, None)
        ev.seconds["total"] = round(time.monotonic() - began, 3)
        return ev

    def _reward_baseline(self, target: str) -> str:
        chosen = self.reward_baseline or self.config.reward_baseline
        return chosen if chosen in baselines_for(target, self.baselines) else "eager"

    def timing_spec(self, task: TorchTask, target: str, l2_bytes: int) -> dict[str, Any]:
        tc = self.config.timing_config
        tol = task.tolerance
        return {
            "sizes": task.bench_for(target),
            "init_seed": derive_seed(self.secret, "torch", task.id, "bench-init") % (1 << 63),
            "input_seeds": [derive_seed(self.secret, "torch", task.id, "bench", i) % (1 << 63) for i in range(max(1, tc.input_sets))],
            "baselines": list(baselines_for(target, self.baselines)),
            "warmup_rounds": tc.warmup_rounds, "min_rounds": tc.min_rounds, "max_rounds": tc.max_rounds,
            "budget_s": tc.budget_s, "min_s": tc.min_s, "target_rse": tc.target_rse,
            "flush_bytes": max(2 * int(l2_bytes or 0), 256 << 20),
            "hold_s": tc.torch_hold_s if target == "cuda" else 0.0,
            # Eager and the candidate each lie within the tolerance of the float64 truth.
            "rtol": 2 * tol.rtol, "atol": 2 * tol.atol,
        }  # fmt: skip

    # ---- plumbing ----------------------------------------------------------------------------
    def _fresh_dir(self, prefix: str) -> Path:
        self._jobs += 1
        folder = self.workdir / f"{prefix}-{self._jobs}"
        folder.mkdir(parents=True)
        return folder

    def _env(self, folder: Path, sandboxed: bool) -> dict[str, str]:
        env = dict(os.environ)
        if sandboxed:  # every cache and temporary file inside the candidate's own scratch
            env.update(torch_sandbox.env(folder))
        else:
            env.setdefault("TRITON_CACHE_DIR", str(self.cache_dir / "triton"))
            env.setdefault("TORCHINDUCTOR_CACHE_DIR", str(self.cache_dir / "inductor"))
        return env

    def _start_spare(self) -> None:
        """Top the spares up to EvalConfig.torch_spares, each a worker in a fresh scratch folder with
        that folder's environment: Python, torch and inductor come up off the next candidates' turns.
        A spare runs no candidate code until its job arrives, and is confined then, as every worker is."""
        with self._spare_lock:
            if not self.config.spare_worker:
                return
            while len(self._spares) < max(1, self.config.torch_spares):
                folder = self._fresh_dir("cand")
                sandboxed = self.sandbox_off is None
                self._spares.append((SpareWorker("", self._env(folder, sandboxed), module=WORKER), folder, sandboxed))
            if self._ref_spare is None:
                self._ref_spare = SpareWorker("", self._env(self.workdir, False), module=WORKER)

    def _take_ref_spare(self) -> SpareWorker | None:
        """The reference's worker started ahead, if any (run_worker replaces one that died)."""
        with self._spare_lock:
            spare, self._ref_spare = self._ref_spare, None
        return spare

    def _take_spare(self) -> tuple[SpareWorker, Path] | None:
        """The oldest spare (the likeliest to have torch imported), if its environment is still the
        one a job needs; spares made for another environment are ended."""
        while True:
            with self._spare_lock:
                if not self._spares:
                    return None
                spare = self._spares.pop(0)
            if spare[2] == (self.sandbox_off is None):
                return spare[0], spare[1]
            spare[0].discard()  # the sandbox was turned off since: its caches are wrong
            shutil.rmtree(spare[1], ignore_errors=True)

    def _discard_spare(self) -> None:
        with self._spare_lock:
            spares, self._spares = self._spares, []
            ref_spare, self._ref_spare = self._ref_spare, None
        if ref_spare is not None:
            ref_spare.discard()
        for spare in spares:
            spare[0].discard()
            shutil.rmtree(spare[1], ignore_errors=True)

    def _run(self, job: dict[str, Any], folder: Path, on_message: Any, spare: SpareWorker | None = None) -> WorkerOutcome:
        env = self._env(folder, bool(job.get("sandbox")))
        idle = self.config.call_timeout_s
        if job["mode"] == "reference":  # max-autotune's compile says nothing for minutes
            idle = max(idle, WARM_IDLE_S if "warm" in job else 120.0)
        return run_worker(job, folder / "job.json", idle_timeout_s=idle,
                          total_timeout_s=self.config.total_timeout_s,
                          memory_limit_bytes=int(self.config.memory_limit_gib * (1 << 30)),
                          env=env, on_message=on_message, spare=spare, module=WORKER, check=check_torch_message,
                          # the worker calls os._exit right after `done`: its teardown (the CUDA context's
                          # included) overlaps the verdict; the next worker waits for it (EXITS.settle)
                          end_at_done=True)  # fmt: skip

    def build(self, spec: dict[str, Any], target: str) -> tuple[dict[str, Any], torch_build.BuildResult, float, bool]:
        """The worker's build request answered: (reply, result, seconds the worker waited, whether
        the build had been started ahead of the worker's turn)."""
        result, waited, ahead = self.pool.build(spec, target)
        reply = {"library": result.library, "module": result.module} if result.ok else {"error": result.diagnostics or "build failed"}
        return reply, result, waited, ahead

    def _fingerprint(self, target: str) -> dict[str, Any]:
        try:
            import torch

            torch_version = torch.__version__
        except ImportError:
            torch_version = None
        gpu = toolchain.gpus()[0] if target == "cuda" and toolchain.gpus() else None
        return {"target": target, "gpu": gpu.name if gpu else None, "driver": gpu.driver if gpu else None,
                "torch": torch_version, "nvcc": toolchain.nvcc_version() if target == "cuda" else None,
                "gxx": toolchain.gxx_version(), "cpu": toolchain.cpu_model(), "python": platform.python_version(),
                "numpy": np.__version__, "regrapht": regrapht.__version__}  # fmt: skip


def _library(build: Future | None) -> str | None:
    """The built library's path, or None where there is no build or it failed (no hold, then)."""
    if build is None:
        return None
    try:
        result = build.result()
    except Exception:  # the build itself broke: calls are timed from an idle device
        return None
    return result.library if result.ok else None


def dump(ev: Evaluation) -> str:
    return json.dumps(ev.to_dict(), default=float)
