"""KernelBench's side of the regrapht-vs-KernelBench comparison.

KernelBench's code is not in this repository: `--kernelbench PATH` names a checkout (its
src/kernelbench/eval.py holds `eval_kernel_against_ref`). Each candidate is judged the way its README's
single-sample command (scripts/run_and_check.py, eval_mode=local) judges one, with that script's
defaults: the static checker (strict errors reject), then eval_kernel_against_ref with 5 correctness
trials, 100 timed trials, cuda_event timing, float32, a fresh build directory (cold load_inline
compile), gpu_arch set to the GPU's architecture as the README says to. As in its batch script
(eval_from_generations.py), every candidate runs in a fresh process with a timeout, so one that
poisons its CUDA context cannot sink the next. The reference's eager and torch.compile times are
measured once per task (`--kb-baselines per-task`, as its batch flow precomputes them with
generate_baseline_time.py) or once per candidate (`per-candidate`, as run_and_check.py does).

KernelBench's package imports LLM clients (openai, litellm, python-dotenv) at module level for its
generation scripts; where they are not installed (the GPU machine has no network), stand-ins that
raise if called take their place, and the result records which. Evaluation never calls them.
pydantic is really needed (KernelExecResult is a pydantic model): carried wheels are in
.kernelbench/wheels.

Usage:
  python benchmarks/tvk_kernelbench.py check --kernelbench .kernelbench      # CPU: import + static checks
  (internal) python benchmarks/tvk_kernelbench.py eval|baselines ...          # one candidate / task, GPU
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import inspect
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import traceback
import types
from dataclasses import dataclass
from pathlib import Path

# run_and_check.py's ScriptConfig defaults (the README's single-sample command).
NUM_CORRECT_TRIALS = 5
NUM_PERF_TRIALS = 100
TIMING_METHOD = "cuda_event"
PRECISION = "fp32"
# The README: "gpu_arch - Depending on your GPU, you might need to adjust" (run_and_check's default is Ada).
ARCH_BY_CAPABILITY = {7: {0: "Volta", 5: "Turing"}, 8: {0: "Ampere", 6: "Ampere", 7: "Ampere", 9: "Ada"}, 9: {0: "Hopper"}, 10: {0: "Blackwell"}}
LLM_CLIENTS = ("dotenv", "openai", "litellm")
# Parameters this script passes to eval_kernel_against_ref; a checkout whose signature lacks one is
# a different KernelBench, which `check` reports instead of guessing.
EVAL_PARAMS = (
    "original_model_src", "custom_model_src", "measure_performance", "timing_method", "verbose",
    "num_correct_trials", "num_perf_trials", "build_dir", "device", "backend", "precision",
)


class KernelBenchUnavailable(RuntimeError):
    """The checkout or a package KernelBench's evaluation needs is missing; the message says what to do."""


def _stub(name: str) -> types.ModuleType:
    mod = types.ModuleType(name)
    mod.__dict__["__regrapht_stand_in__"] = True

    def refuse(*args: object, **kwargs: object) -> None:
        raise RuntimeError(f"{name} is a stand-in here (the LLM client KernelBench imports for generation)")

    if name == "dotenv":
        mod.__dict__["load_dotenv"] = lambda *a, **k: False
    elif name == "openai":
        mod.__dict__["OpenAI"] = refuse
    else:
        mod.__dict__["completion"] = refuse
    return mod


def import_kernelbench(path: Path) -> tuple[dict[str, types.ModuleType], list[str]]:
    """KernelBench's eval, static checker, timing and utils modules, and the stand-ins installed."""
    src = Path(path).resolve() / "src"
    if not (src / "kernelbench" / "eval.py").is_file():
        raise KernelBenchUnavailable(
            f"{path} is not a KernelBench checkout (no src/kernelbench/eval.py): pass --kernelbench with a "
            "checkout of github.com/ScalingIntelligence/KernelBench (the lead keeps one in .kernelbench/)"
        )
    if importlib.util.find_spec("pydantic") is None:
        raise KernelBenchUnavailable(
            "pydantic is missing; KernelBench's KernelExecResult is a pydantic model. Install the carried "
            "wheels: python3 -m pip install --no-index --no-deps --target /tmp/kb-site .kernelbench/wheels/*.whl "
            "and add /tmp/kb-site to PYTHONPATH"
        )
    stubbed = []
    for name in LLM_CLIENTS:
        if name not in sys.modules and importlib.util.find_spec(name) is None:
            sys.modules[name] = _stub(name)
            stubbed.append(name)
    sys.path.insert(0, str(src))
    mods = {}
    for name in ("eval", "kernel_static_checker", "timing", "utils"):
        try:
            mods[name] = importlib.import_module(f"kernelbench.{name}")
        except ImportError as exc:
            raise KernelBenchUnavailable(f"importing kernelbench.{name} failed: {exc}") from None
    return mods, stubbed


def gpu_arch(capability: tuple[int, int] | None = None) -> str:
    """KernelBench's architecture name for a compute capability (default: this process's GPU's)."""
    if capability is None:
        import torch

        capability = torch.cuda.get_device_capability()
    major, minor = capability
    arch = ARCH_BY_CAPABILITY.get(major, {}).get(minor)
    if arch is None:
        raise KernelBenchUnavailable(f"no KernelBench gpu_arch name for compute capability {major}.{minor}")
    return arch


def kb_verdict(compiled: bool, correctness: bool, metadata: dict) -> tuple[str, str]:
    """KernelBench's own classification, in the comparison's vocabulary, and its message."""
    if not compiled:
        msg = metadata.get("compilation_error") or metadata.get("cuda_error") or metadata.get("other_error") or ""
        return "compile_error", str(msg)
    if correctness:
        return "correct", "excessive speedup warning" if metadata.get("excessive_speedup") else ""
    if "runtime_error" in metadata:
        return "runtime_error", str(metadata.get("runtime_error"))
    return "wrong_answer", str(metadata.get("correctness_issue", "output mismatch"))


def _plain(value: object, limit: int = 600) -> object:
    if isinstance(value, (int, float, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): _plain(v, limit) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v, limit) for v in value]
    return str(value)[:limit]


def _eval_one(args: argparse.Namespace) -> dict:
    """The child process: one candidate, as run_and_check.py's local mode judges it."""
    import torch

    mods, stubbed = import_kernelbench(args.kernelbench)
    kb_eval, checker, timing, utils = mods["eval"], mods["kernel_static_checker"], mods["timing"], mods["utils"]
    out: dict = {"stubbed_modules": stubbed, "stages": {}}
    ref_src = Path(args.reference).read_text()
    kernel_src = Path(args.candidate).read_text()
    utils.set_gpu_arch([gpu_arch()])
    valid, errors, warnings = checker.validate_kernel_static(kernel_src, backend=args.backend, precision=PRECISION)
    out["static"] = {"valid": valid, "errors": errors, "warnings": warnings}
    if not valid:  # run_and_check.py asserts here and never evaluates
        out.update(verdict="integrity_violation", message="static check: " + "; ".join(errors))
        return out
    device = torch.device("cuda:0")
    start = time.perf_counter()
    try:
        result = kb_eval.eval_kernel_against_ref(
            original_model_src=ref_src,
            custom_model_src=kernel_src,
            measure_performance=True,
            timing_method=TIMING_METHOD,
            verbose=False,
            num_correct_trials=NUM_CORRECT_TRIALS,
            num_perf_trials=NUM_PERF_TRIALS,
            build_dir=args.build_dir,
            device=device,
            backend=args.backend,
            precision=kb_eval.get_torch_dtype_from_string(PRECISION),
        )
    except Exception as exc:  # run_and_check.evaluate_single_sample_src's last-level catch
        key = "cuda_error" if "CUDA error" in str(exc) else "other_error"
        result = kb_eval.KernelExecResult(compiled=False, correctness=False, metadata={key: str(exc)})
    out["stages"]["eval_kernel_against_ref"] = time.perf_counter() - start
    if result is None:
        # KernelBench's "lock file error, please retry": it returns None for any build failure whose
        # message contains "lock" or "No such file or directory". Its verdict, not a crash of this
        # script: kept (not retried), but no evaluation either.
        out.update(verdict="harness_error", kernelbench_retry=True,
                   message="eval_kernel_against_ref returned None (KernelBench's lock-file case: 'please retry')")
        return out
    verdict, message = kb_verdict(result.compiled, result.correctness, result.metadata)
    out.update(
        verdict=verdict,
        message=message[:600],
        compiled=result.compiled,
        correctness=result.correctness,
        runtime_ms=result.runtime if result.runtime > 0 else None,
        ref_runtime_ms=result.ref_runtime if result.ref_runtime > 0 else None,
        excessive_speedup=bool(result.metadata.get("excessive_speedup")),
        metadata=_plain(result.metadata),
    )
    if args.baselines and result.correctness:
        start = time.perf_counter()
        out["baselines"] = _baselines(timing, ref_src, device)
        out["stages"]["baselines"] = time.perf_counter() - start
    return out


def _baselines(timing: types.ModuleType, ref_src: str, device: object) -> dict:
    """Eager and torch.compile (inductor, default mode) mean times of the reference, in ms."""
    res = {}
    for name, compiled in (("eager", False), ("compile", True)):
        stats = timing.measure_ref_program_time(
            ref_arch_name="Reference Program",
            ref_arch_src=ref_src,
            num_trials=NUM_PERF_TRIALS,
            use_torch_compile=compiled,
            timing_method=TIMING_METHOD,
            device=device,
            verbose=False,
            precision=PRECISION,
        )
        res[name] = None if stats is None else stats.get("mean")
    return res


def _build_one(args: argparse.Namespace) -> dict:
    """(child) KernelBench's CPU-side compile-and-cache of one candidate (compile.py's
    compile_single_sample, which its batch script runs with build_cache=True)."""
    mods, stubbed = import_kernelbench(args.kernelbench)
    mods["utils"].set_gpu_arch([args.gpu_arch])
    built, _, error = mods["eval"].build_compile_cache(
        custom_model_src=Path(args.candidate).read_text(), verbose=False, build_dir=args.build_dir
    )
    return {"built": bool(built), "error": str(error or "")[:600], "stubbed_modules": stubbed}


def _baselines_one(args: argparse.Namespace) -> dict:
    import torch

    mods, stubbed = import_kernelbench(args.kernelbench)
    mods["utils"].set_gpu_arch([gpu_arch()])
    return {"stubbed_modules": stubbed, "baselines": _baselines(mods["timing"], Path(args.reference).read_text(), torch.device("cuda:0"))}


def check(path: Path) -> dict:
    """CPU-only: KernelBench imports, its eval has the parameters used here, and its static checker's
    verdict on every candidate (the first step of its README's single-sample command)."""
    from tvk_common import load_candidates

    mods, stubbed = import_kernelbench(path)
    params = inspect.signature(mods["eval"].eval_kernel_against_ref).parameters
    missing = [p for p in EVAL_PARAMS if p not in params]
    if missing:
        raise KernelBenchUnavailable(f"eval_kernel_against_ref in {path} lacks parameters {missing}: another KernelBench version")
    static = {}
    for cand in load_candidates():
        valid, errors, warnings = mods["kernel_static_checker"].validate_kernel_static(
            cand.path.read_text(), backend=cand.backend, precision=PRECISION
        )
        static[cand.key] = {"valid": valid, "errors": errors, "warnings": warnings}
    return {"kernelbench": str(path), "stubbed_modules": stubbed, "static_check": static}


def kernelbench_env(base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a KernelBench child: this folder on the path (for tvk_common), and the
    packages installed for KernelBench alone ($TVK_KB_SITE: the carried pydantic wheels), which the
    regrapht side of the run never sees."""
    env = dict(os.environ if base is None else base)
    paths = [str(Path(__file__).resolve().parent)]
    if env.get("TVK_KB_SITE"):
        paths.append(env["TVK_KB_SITE"])
    env["PYTHONPATH"] = os.pathsep.join(paths + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    return env


@dataclass
class KernelBenchHarness:
    """The parent's view: one child process per candidate (and per task's baselines), timed."""

    path: Path
    workdir: Path
    timeout_s: float = 300.0  # run_and_check.py's `timeout`
    baselines: str = "per-task"
    # The GPU its children see (the host's index, through CUDA_VISIBLE_DEVICES; None: the parent's)
    # and the cores they run on (None: the parent's), so a mode given a GPU and cores of its own
    # shares neither with regrapht's turns.
    gpu: str | None = None
    cpus: set[int] | None = None

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        if self.gpu is not None:
            env["CUDA_VISIBLE_DEVICES"] = self.gpu
        # Caches live in this run's work folder: nothing carries over from an earlier run or the other harness.
        env["TRITON_CACHE_DIR"] = str(self.workdir / "triton-cache")
        env["TORCHINDUCTOR_CACHE_DIR"] = str(self.workdir / "inductor-cache")
        env["PYTHONUNBUFFERED"] = "1"
        return kernelbench_env(env)

    def start(self, argv: list[str], label: str, nice: int = 0) -> tuple[subprocess.Popen, Path, Path]:
        """One child started in a session of its own (killable as a group): (process, result file, log)."""
        out_file = self.workdir / "results" / f"{label}.json"
        log_file = self.workdir / "logs" / f"{label}.log"
        out_file.parent.mkdir(parents=True, exist_ok=True)
        log_file.parent.mkdir(parents=True, exist_ok=True)
        out_file.unlink(missing_ok=True)
        cmd = [sys.executable, str(Path(__file__).resolve()), *argv, "--kernelbench", str(self.path), "--out", str(out_file)]
        cpus = self.cpus

        def setup() -> None:  # in the child, before KernelBench's code: its niceness and cores
            if nice:
                os.nice(nice)
            if cpus:
                os.sched_setaffinity(0, cpus)

        with open(log_file, "w") as log:
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=self._env(), start_new_session=True,
                                    preexec_fn=setup if nice or cpus else None)  # fmt: skip
        return proc, out_file, log_file

    @staticmethod
    def result(proc: subprocess.Popen, out_file: Path, log_file: Path) -> dict:
        """What an ended child left: its result, or why there is none."""
        if out_file.is_file():
            return json.loads(out_file.read_text())
        tail = log_file.read_text(errors="replace")[-800:]
        # A child that died without writing its result crashed outright (a segfault, an abort).
        return {"verdict": "runtime_error", "message": f"process exited {proc.returncode} without a result: {tail}"}

    def _child(self, argv: list[str], label: str) -> tuple[dict, float]:
        start = time.perf_counter()
        proc, out_file, log_file = self.start(argv, label)
        try:
            proc.wait(timeout=self.timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            return {"verdict": "timeout", "message": f"no verdict within {self.timeout_s:.0f} s"}, time.perf_counter() - start
        return self.result(proc, out_file, log_file), time.perf_counter() - start

    def eval_argv(self, key: str, reference: Path, candidate: Path, backend: str) -> list[str]:
        argv = ["eval", "--reference", str(reference), "--candidate", str(candidate), "--backend", backend,
                "--build-dir", str(self.workdir / "build" / key.replace("/", "__"))]
        if self.baselines == "per-candidate":
            argv.append("--baselines")
        return argv

    def build_argv(self, key: str, candidate: Path, arch: str) -> list[str]:
        return ["build", "--candidate", str(candidate), "--build-dir", str(self.workdir / "build" / key.replace("/", "__")),
                "--gpu-arch", arch]

    def evaluate(self, key: str, reference: Path, candidate: Path, backend: str) -> dict:
        row, wall = self._child(self.eval_argv(key, reference, candidate, backend), key.replace("/", "__"))
        row["seconds"] = wall
        return row

    def precompile(self, items: list[tuple[str, Path]], workers: int, arch: str) -> tuple[dict[str, dict], float]:
        """KernelBench's optional CPU pre-build (its README: build_cache=True num_cpu_workers=N): every
        CUDA candidate's extension built into the folder its evaluation will load it from, N at a
        time, before the GPU is used. A failed build's folder is removed, as KernelBench does."""
        start = time.perf_counter()
        results: dict[str, dict] = {}
        queue = list(items)
        running: list[tuple[str, subprocess.Popen, float]] = []
        while queue or running:
            while queue and len(running) < workers:
                key, cand = queue.pop(0)
                label = key.replace("/", "__")
                out_file = self.workdir / "results" / f"build__{label}.json"
                out_file.parent.mkdir(parents=True, exist_ok=True)
                (self.workdir / "logs").mkdir(parents=True, exist_ok=True)
                cmd = [sys.executable, str(Path(__file__).resolve()), "build", "--kernelbench", str(self.path),
                       "--candidate", str(cand), "--build-dir", str(self.workdir / "build" / label),
                       "--gpu-arch", arch, "--out", str(out_file)]
                with open(self.workdir / "logs" / f"build__{label}.log", "w") as log:
                    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=self._env(), start_new_session=True)
                running.append((key, proc, time.perf_counter()))
            time.sleep(0.2)
            for entry in list(running):
                key, proc, began = entry
                timed_out = time.perf_counter() - began > self.timeout_s
                if proc.poll() is None and not timed_out:
                    continue
                if timed_out and proc.poll() is None:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                running.remove(entry)
                label = key.replace("/", "__")
                out_file = self.workdir / "results" / f"build__{label}.json"
                res = json.loads(out_file.read_text()) if out_file.is_file() else {"built": False, "error": "no result"}
                res["seconds"] = time.perf_counter() - began
                if not res.get("built"):
                    shutil.rmtree(self.workdir / "build" / label, ignore_errors=True)
                results[key] = res
        return results, time.perf_counter() - start

    def task_baselines(self, task: str, reference: Path) -> dict:
        row, wall = self._child(["baselines", "--reference", str(reference)], f"baselines__{task}")
        row["seconds"] = wall
        return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    chk = sub.add_parser("check", help="CPU: import KernelBench and run its static checker on every candidate")
    chk.add_argument("--kernelbench", type=Path, default=Path(".kernelbench"))
    ev = sub.add_parser("eval", help="(child) judge one candidate; needs a GPU")
    bl = sub.add_parser("baselines", help="(child) eager and torch.compile times of one reference; needs a GPU")
    bd = sub.add_parser("build", help="(child) KernelBench's CPU pre-build of one CUDA candidate")
    bd.add_argument("--kernelbench", type=Path, required=True)
    bd.add_argument("--candidate", type=Path, required=True)
    bd.add_argument("--build-dir", required=True)
    bd.add_argument("--gpu-arch", required=True)
    bd.add_argument("--out", type=Path, required=True)
    for p in (ev, bl):
        p.add_argument("--kernelbench", type=Path, required=True)
        p.add_argument("--reference", type=Path, required=True)
        p.add_argument("--out", type=Path, required=True)
    ev.add_argument("--candidate", type=Path, required=True)
    ev.add_argument("--backend", choices=["cuda", "triton"], required=True)
    ev.add_argument("--build-dir", required=True)
    ev.add_argument("--baselines", action="store_true")
    args = parser.parse_args()
    try:
        if args.command == "check":
            print(json.dumps(check(args.kernelbench), indent=1))
            return 0
        result = {"eval": _eval_one, "baselines": _baselines_one, "build": _build_one}[args.command](args)
    except KernelBenchUnavailable as exc:
        if args.command == "check":
            print(f"error: {exc}", file=sys.stderr)
            return 2
        result = {"verdict": "harness_error", "message": str(exc)}
    except Exception as exc:  # anything else escaping KernelBench is its own crash, not a verdict
        result = {"verdict": "harness_error", "message": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()[-2000:]}
    args.out.write_text(json.dumps(result, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
