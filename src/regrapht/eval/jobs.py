"""What a worker is given: its job (protocol.Job) and timing spec (protocol.TimingSpec), the folders
they name (per task, per job, in the evaluator's scratch), its memory ceiling, and the harness's own
libraries it loads (the device comparison kernel, the host perturbation)."""

from __future__ import annotations

import hashlib
import itertools
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from regrapht.eval import toolchain
from regrapht.eval.compile import Compiler, CompileResult
from regrapht.eval.config import EvalConfig
from regrapht.eval.reference import RefCase
from regrapht.eval.stop_rule import LIBRARY_LIB
from regrapht.eval.verdicts import CANARY, GUARD_BYTES, POISON
from regrapht.tasks import Task, derive_seed

DEVICE_CHECK_SOURCE = Path(__file__).resolve().parent.parent / "data" / "kernels" / "device_check.cu"
HOST_PERTURB_SOURCE = DEVICE_CHECK_SOURCE.with_name("host_perturb.cpp")


def params(task: Task) -> str:
    """The parameter list of the task's signature, as the compiled entry point declares it."""
    return task.signature[task.signature.index("(") + 1 : task.signature.rindex(")")]


class Jobs:
    """Makes jobs for one evaluator: its configuration and secret, its scratch folder `workdir`, and
    the compiler the harness libraries are built with (once, on first use)."""

    def __init__(self, config: EvalConfig, secret: bytes, compiler: Compiler, workdir: Path):
        self.config, self.secret, self.compiler, self.workdir = config, secret, compiler, workdir
        self._ids = itertools.count()
        self._dirs: dict[int, tuple[Task, Path]] = {}
        # The harness libraries' builds, once submitted (None: not yet needed).
        self.device_check: Future | None = None
        self.host_perturb: Future | None = None

    def next_id(self) -> int:
        """A number no earlier job, bench build or timing order of this evaluator had."""
        return next(self._ids)

    def task_dir(self, task: Task) -> Path:
        """The task's folder in the scratch: its cases and bench data (one per task version)."""
        known = self._dirs.get(id(task))
        if known is not None and known[0] is task:
            return known[1]
        digest = hashlib.sha1(f"{task.instance_key}@{task.content_hash()}".encode()).hexdigest()[:10]
        path = self.workdir / f"ref-{task.id}-{digest}"
        self._dirs[id(task)] = (task, path)  # the task object is kept, so its id is never reused
        return path

    def job_dir(self) -> Path:
        """A fresh folder for one worker's job, with its `out` folder."""
        path = self.workdir / f"job{self.next_id()}"
        (path / "out").mkdir(parents=True)
        return path

    def memory_limit(self, task: Task) -> int:
        """The configured ceiling, raised for tasks whose bench data alone needs more: the worker
        holds every input set, the argument buffers, the outputs it sends back and (host buffers)
        one kept output per input set to compare later calls with."""
        needed = 8 * task.io_bytes(task.bench_size) + (1 << 30)
        return max(int(self.config.memory_limit_gib * (1 << 30)), needed)

    def job(
        self,
        task: Task,
        libs: dict[str, str],
        cases: list[RefCase],
        check_libs: list[str],
        job_dir: Path,
        uses_cuda: bool,
        device_buffers: bool,
        runs: int,
        measure_bandwidth: bool = False,
    ) -> dict[str, Any]:
        """A worker's job (protocol.Job): run `libs` on `cases`, reporting `check_libs`' outputs."""
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
            "measure_bandwidth": uses_cuda and measure_bandwidth,
            "timing": None,
        }

    def timing_spec(
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
        """A timing spec (protocol.TimingSpec) on the bench data in `bench_dir`, with the configured
        settings where not given; its call order is drawn from the secret."""
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
            # per timed lib where it differs from target_rse (library.cu: config.library_target_rse)
            "lib_target_rse": {lib: tc.library_target_rse for lib in libs if lib == LIBRARY_LIB},
            "order_seed": derive_seed(self.secret, task.id, "order", self.next_id()),
            "flush_bytes": 0,
            "hold_s": tc.hold_s,
        }

    # ---- the harness's libraries ---------------------------------------------------------------
    def device_check_build(self) -> Future:
        if self.device_check is None:  # a racing second submit joins the first compile
            self.device_check = self.compiler.submit(
                DEVICE_CHECK_SOURCE.read_text(), "cuda", "regrapht_device_check", "", [], urgent=True
            )
        return self.device_check

    def device_check_library(self) -> str | None:
        """The harness's own comparison kernel; without it (it failed to build) outputs are compared
        on the host, as correctly and more slowly."""
        try:
            built: CompileResult = self.device_check_build().result()
        except Exception:  # the build itself broke (not a failed compile): host comparison it is
            return None
        return built.library if built.ok else None

    def host_perturb_build(self) -> Future:
        if self.host_perturb is None:  # a racing second submit joins the first compile
            self.host_perturb = self.compiler.submit(
                HOST_PERTURB_SOURCE.read_text(), "cpu", "regrapht_host_perturb", "", [], urgent=True
            )
        return self.host_perturb

    def host_perturb_library(self) -> str | None:
        """The harness's host perturbation; without it (it failed to build) NumPy perturbs, with the
        same values, more slowly."""
        try:
            built: CompileResult = self.host_perturb_build().result()
        except Exception:  # the build itself broke (not a failed compile): NumPy it is
            return None
        return built.library if built.ok else None
