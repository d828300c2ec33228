"""The isolated worker for torch tasks: one process per reference run or candidate, started by the
judge (eval/torch_judge.py) through the evaluator's runner (process group, timeouts, memory ceiling,
the checked result channel).

`reference` mode (trusted): draws each case's inputs with the case's secret seed and computes the
expected outputs in float64; inputs go to the candidate's folder, expected outputs to a folder only
the parent reads. `candidate` mode: loads the candidate, runs each case twice on those inputs with
the checks of eval/torch_checks.py around the forward, and writes the outputs for the parent to
judge; then, when the parent asks, times the candidate interleaved with the baselines at the bench
shape. It judges nothing. Usage (by the judge only): python -m regrapht.eval.torch_worker JOB FD
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import json
import os
import sys
from pathlib import Path
from typing import Any

import torch
import torch.utils._python_dispatch  # noqa: F401 - before the binding snapshot: importing it later
import torch.utils.cpp_extension  # noqa: F401   (or torch._dynamo, which rebinds torch.manual_seed)

with contextlib.suppress(Exception):  # absent from some builds; the compile baselines then say so
    import torch._dynamo  # noqa: F401

    # torch.compile wraps nn.Module.__init__ and __setstate__ at its first compile (measured on an
    # H100, torch 2.11): done here, before the binding snapshot, so a compile baseline is no patch.
    torch._dynamo.mutation_guard.install_generation_tagging_init()

from regrapht.eval import (
    torch_baseline_cache,
    torch_build,
    torch_checks,
    torch_loading,
    torch_sandbox,
    torch_timing,
)
from regrapht.eval.torch_loading import (  # noqa: F401 - set_sizes and _hold_function: the tests' seam
    _bare_cuda_module,
    _entry_model,
    _Functions,
    _hold_function,
    _tail,
    _where,
    load_module,
    make_model,
    match_parameters,
    set_sizes,
    to_task,
)
from regrapht.eval.worker import Channel

_LOWER = {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}
FLUSH_MIN_BYTES = 256 << 20


class TorchWorker:
    def __init__(self, job: dict[str, Any], channel: Channel):
        self.job = job
        self.channel = channel
        self.device = "cuda" if job["target"] == "cuda" else "cpu"
        self.dtype = _LOWER[job["dtype"]]
        self.cuda = self.device == "cuda"
        self.reference = load_module(Path(job["reference"]), "regrapht_torch_reference")
        self.stream = torch.cuda.current_stream() if self.cuda else None
        self.built = False
        self.sandboxed = False  # confined by eval/torch_sandbox.py: a permission error is its refusal
        # The precision the task declares holds for the baselines too: cuDNN convolutions default to
        # TF32 on Ampere and later, which would make eager both faster and less exact than fp32.
        tf32 = bool(job.get("allow_lower")) or job["dtype"] != "float32"
        torch.backends.cudnn.allow_tf32 = tf32
        torch.backends.cuda.matmul.allow_tf32 = tf32
        # The hold is queued on the legacy default stream: it orders the timed calls only where that is
        # the stream they and their events run on (torch's default stream, unless built otherwise).
        legacy = self.stream is not None and self.stream.cuda_stream == 0
        self._hold = _hold_function(job.get("hold_library")) if legacy else None

    def hold(self, ns: int) -> bool:
        """Queue the harness's hold (every SM busy for `ns`) on the legacy default stream, the timing
        events' stream; True if queued. Without the library, or once a hold fails (it cannot fill every
        SM here: it stays off), calls are timed from an idle device: slower, never faster."""
        if self._hold is None or ns <= 0:
            return False
        if self._hold(ns) != 0:
            self._hold = None
            return False
        return True

    def sync(self) -> None:
        if self.cuda:
            torch.cuda.synchronize()  # device-wide: side streams and other threads' work included

    def send(self, **message: Any) -> None:
        self.channel.send(**message)

    def ask(self, **message: Any) -> dict[str, Any]:
        self.send(**message)
        return json.loads(sys.stdin.readline() or "{}")

    # ---- reference ---------------------------------------------------------------------------
    def run_reference(self) -> None:
        ref = self.reference
        folder, expected = Path(self.job["case_dir"]), Path(self.job["expected_dir"])
        for case in self.job["cases"]:
            set_sizes(ref, case["sizes"])
            init = list(ref.get_init_inputs())
            model = make_model(ref, ref.Model, init, case["init_seed"], self.dtype, self.device)
            torch.manual_seed(case["input_seed"])
            raw = list(ref.get_inputs())
            inputs = [to_task(x, self.dtype, self.device) for x in raw]
            torch.save([x.cpu() if isinstance(x, torch.Tensor) else x for x in inputs], folder / f"{case['label']}.pt")
            with torch.no_grad():
                native = torch_checks.flat_outputs(torch, model(*inputs))
                if isinstance(native, str):
                    raise TypeError(f"the reference's {native}")
                exact, note = self._float64(model, inputs, native)
                again = None
                if self.job.get("check_determinism"):
                    torch.manual_seed(case["input_seed"])
                    again = torch_checks.flat_outputs(torch, model(*inputs))
            self.sync()
            torch.save([t.cpu() for t in exact], expected / f"{case['label']}.pt")
            native_error = [float((n.double() - e.double()).abs().max()) if n.numel() else 0.0 for n, e in zip(native, exact)]
            deterministic = again is None or all(torch_checks.same_bits(torch, a, b) for a, b in zip(native, again))
            self.send(event="reference_case", label=case["label"],
                      outputs=[{"shape": list(t.shape), "dtype": str(t.dtype).replace("torch.", "")} for t in native],
                      native_error=native_error, note=note, deterministic=deterministic,
                      spread=[float(t.double().std()) if t.numel() > 1 and t.is_floating_point() else 0.0 for t in exact])  # fmt: skip

    def warm_baselines(self) -> None:
        """Compile the compiled baselines at the bench shape with inductor's and Triton's caches in
        the job's warm folder (eval/torch_baseline_cache.py): trusted, as the reference is."""
        warm = self.job["warm"]
        ref = self.reference
        set_sizes(ref, warm["sizes"])
        model = make_model(ref, ref.Model, list(ref.get_init_inputs()), warm["init_seed"], self.dtype, self.device)
        sets = self.bench_sets(warm["input_seeds"])
        for cache, var in torch_baseline_cache.CACHE_ENV.items():
            os.environ[var] = warm[cache]
        _, report = torch_timing.set_up_baselines(warm["baselines"], model, sets, self.cuda)
        self.send(event="baselines", setup=report)

    def bench_sets(self, seeds: list[int]) -> list[list[Any]]:
        """The bench shape's input sets, one per seed, drawn by the reference's get_inputs with the
        task's device as the default one: a bench input is hundreds of MiB, which the host's
        generator took ~0.5 s per set to draw and the device draws in milliseconds. Nothing compares
        these with another process's draws (timed outputs are checked against eager's on the same
        inputs), so the device's random stream serves as well as the host's."""
        sets = []
        with torch.device(self.device):
            for seed in seeds:
                torch.manual_seed(seed)
                sets.append([to_task(x, self.dtype, self.device) for x in self.reference.get_inputs()])
        return sets

    def _float64(self, model: Any, inputs: list[Any], native: list[Any]) -> tuple[list[Any], str | None]:
        try:
            model64 = copy.deepcopy(model).double()
            inputs64 = [x.double() if isinstance(x, torch.Tensor) and x.is_floating_point() else x for x in inputs]
            out = torch_checks.flat_outputs(torch, model64(*inputs64))
            if isinstance(out, str):
                raise TypeError(out)
            return out, None
        except Exception as exc:  # an op without a float64 kernel: judge against the task's dtype
            return [t.detach().clone() for t in native], f"float64 reference unavailable ({type(exc).__name__}: {exc})"

    # ---- candidate ---------------------------------------------------------------------------
    def _request_build(self, spec: dict[str, Any]) -> dict[str, Any]:
        self.built = True  # a custom extension: on cpu too, a library operator is then not its own work
        return self.ask(event="build", spec=spec)

    def load_candidate(self) -> tuple[Any, dict[str, Any], dict[str, Any]] | None:
        torch_build.install(self._request_build)
        spaces = torch_checks.watched_namespaces(torch, {
            "reference functions": _Functions(self.reference), "Model": self.reference.Model,
            "harness": sys.modules[__name__], "harness.TorchWorker": TorchWorker, "torch_checks": torch_checks,
            # the timing loop and the warm caches' tamper check run in this process too
            "torch_timing": torch_timing, "torch_baseline_cache": torch_baseline_cache,
            "harness.loading": torch_loading,
        })  # fmt: skip
        bindings = torch_checks.binding_snapshot(spaces)
        state = torch_checks.torch_state(torch)
        path = Path(self.job["candidate"])
        try:
            if self.job.get("form") == "cuda":
                module = _bare_cuda_module(path.read_text(), self.job["entry"])
            else:
                module = load_module(path, "regrapht_candidate")
        except SyntaxError as exc:
            self.send(event="load_error", kind="syntax", text=f"line {exc.lineno}: {exc.msg}" + (f": {exc.text.strip()}" if exc.text else ""))
            return None
        except ModuleNotFoundError as exc:
            self.send(event="load_error", kind="import", text=f"imports {exc.name!r}, which is not installed here")
            return None
        except torch_build.BuildError as exc:
            self.send(event="load_error", kind="build", text=str(exc))
            return None
        except BaseException as exc:  # noqa: BLE001 - SystemExit and friends from candidate code included
            if not self.refused(exc):
                self.send(event="load_error", kind="raise", text=_tail(exc))
            return None
        entry = self.job.get("entry")
        cls = getattr(module, "ModelNew", None)
        if cls is None and entry:
            fn = getattr(module, entry, None)
            if not callable(fn):
                self.send(event="load_error", kind="missing", text=f"declares the entry {entry!r} but defines no function by that name")
                return None
            cls = _entry_model(fn)
        if cls is None:
            self.send(event="load_error", kind="missing", text="defines no ModelNew (and declares no entry point)")
            return None
        if not (isinstance(cls, type) and issubclass(cls, torch.nn.Module)):
            self.send(event="load_error", kind="missing", text=f"ModelNew is a {type(cls).__name__}, not a torch.nn.Module subclass")
            return None
        self._check_globals(bindings, spaces, state, "loading the candidate")
        self.send(event="loaded")
        return cls, bindings, {"spaces": spaces, "state": state}

    def refused(self, exc: BaseException) -> bool:
        """Report `exc` as the sandbox's refusal (an integrity finding, not a crash) when it is one."""
        text = torch_sandbox.denial(exc) if self.sandboxed else None
        if text:
            self.send(event="integrity", check="sandbox", text=text + _where(exc))
        return bool(text)

    def confine(self) -> bool:
        """Enter the OS sandbox the job asks for (eval/torch_sandbox.py), after torch, the reference
        and the device are set up and before the candidate is imported. False when the job must stop:
        the harness cannot work inside, or the job requires a protection this kernel lacks."""
        spec = self.job.get("sandbox")
        if not spec:
            return True
        report = torch_sandbox.enter(spec, Path(spec["write"][0]), self.cuda)
        self.send(event="sandbox", **report)
        self.sandboxed = bool(report["landlock"] or report["seccomp"]) and not report["broken"]
        missing = spec.get("require") and not (report["landlock"] and report["seccomp"])
        return not report["broken"] and not missing

    def _check_globals(self, bindings: dict[str, Any], spaces: dict[str, Any], state: dict[str, Any], where: str) -> bool:
        patched = torch_checks.rebound(bindings, spaces)
        changed = torch_checks.state_changes(state, torch_checks.torch_state(torch))
        if patched:
            self.send(event="integrity", check="monkey_patch", text=f"{where} rebound {', '.join(patched[:8])}")
        if changed:
            self.send(event="integrity", check="global_state", text=f"{where} changed global torch state: {'; '.join(changed)}")
        return not patched and not changed

    def build_models(self, cls: Any, sizes: dict[str, int], init_seed: int, label: str) -> tuple[Any, Any] | None:
        ref = self.reference
        set_sizes(ref, sizes)
        init = list(ref.get_init_inputs())
        model = make_model(ref, ref.Model, init, init_seed, self.dtype, self.device)
        try:
            inspect.signature(cls).bind(*init)
        except TypeError as exc:
            self.send(event="load_error", kind="signature", text=f"ModelNew(*get_init_inputs()) does not match Model's constructor ({len(init)} arguments): {exc}")
            return None
        try:
            candidate = make_model(ref, cls, init, init_seed, self.dtype, self.device)
        except BaseException as exc:  # noqa: BLE001
            self.send(event="load_error", kind="constructor", text=f"ModelNew(*get_init_inputs()) raised at sizes {label}: {_tail(exc)}")
            return None
        loaded = match_parameters(candidate, model)
        self.send(event="parameters", sizes=label, loaded=loaded)
        return model, candidate

    def poison_allocator(self, nbytes: int, byte: int) -> None:
        """Fill memory the caching allocator will hand out next, so an output the candidate allocates
        but never writes reads as garbage, not as whatever the last tensor there held."""
        if self.cuda and nbytes:
            block = torch.empty(nbytes, dtype=torch.uint8, device="cuda")
            block.fill_(byte)
            del block

    def call(self, model: Any, inputs: list[Any], audit: torch_checks.Audit | None) -> tuple[list[Any] | str, list[Any] | None]:
        """One forward: its outputs (or what is wrong with them) and a copy of them taken on the
        caller's stream at return, before the device is synchronized."""
        with torch.no_grad():
            if audit is not None:
                with torch_checks.dispatch_audit(torch, audit, self.job["dtype"], self.stream):
                    result = model(*inputs)
            else:
                result = model(*inputs)
            outputs = torch_checks.flat_outputs(torch, result)
            at_return = [t.clone() for t in outputs] if self.cuda and not isinstance(outputs, str) else None
        self.sync()
        return outputs, at_return

    def run_cases(self, cls: Any, bindings: dict[str, Any], globals_: dict[str, Any]) -> bool:
        folder = Path(self.job["case_dir"])
        by_sizes: dict[str, list[dict[str, Any]]] = {}
        for case in self.job["cases"]:
            by_sizes.setdefault(json.dumps(case["sizes"], sort_keys=True), []).append(case)
        for key, cases in by_sizes.items():
            built = self.build_models(cls, cases[0]["sizes"], cases[0]["init_seed"], key)
            if built is None:
                return False
            _, candidate = built
            try:
                inspect.signature(candidate.forward).bind(*torch.load(folder / f"{cases[0]['label']}.pt", weights_only=True))
            except TypeError as exc:
                self.send(event="load_error", kind="signature", text=f"ModelNew.forward does not take the inputs get_inputs() returns: {exc}")
                return False
            for case in cases:
                if not self._case(candidate, case, folder, bindings, globals_):
                    return False
        return True

    def _case(self, candidate: Any, case: dict[str, Any], folder: Path, bindings: dict[str, Any], globals_: dict[str, Any]) -> bool:
        label = case["label"]
        inputs = [to_task(x, self.dtype, self.device) for x in torch.load(folder / f"{label}.pt", weights_only=True)]
        kept = [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs]
        out_bytes = int(case.get("poison_bytes", 1 << 20))
        problems: list[str] = []
        # Both runs are audited: a candidate that computes honestly on its first call and defers to the
        # library on its second (same inputs, same shape) is caught here; timed rounds are audited too.
        audits = [torch_checks.Audit(), torch_checks.Audit()]
        runs: list[list[Any]] = []
        for attempt, byte in enumerate((0xFF, 0x7B)):
            self.poison_allocator(out_bytes, byte)
            try:
                outputs, at_return = self.call(candidate, inputs, audits[attempt])
            except BaseException as exc:  # noqa: BLE001
                if not self.refused(exc):
                    self.send(event="case", label=label, error=_tail(exc), cuda="CUDA" in str(exc) or "cuda" in type(exc).__name__.lower())
                return False
            if isinstance(outputs, str):
                self.send(event="case", label=label, integrity=[outputs], kind="output_type")
                return False
            if at_return is not None:
                late = [i for i, (a, b) in enumerate(zip(at_return, outputs)) if not torch_checks.same_bits(torch, a, b)]
                if late:
                    problems.append(f"output {late[0]} was still being written after forward returned "
                                    "(work on a side stream or thread not joined to the caller's stream)")  # fmt: skip
            problems += torch_checks.aliases(outputs, inputs)
            if runs:
                reused = [i for i, (a, b) in enumerate(zip(outputs, runs[0])) if torch_checks.overlapping(a, b)]
                if reused:
                    problems.append(f"output {reused[0]} is the same memory on every call (a tensor created once and returned again)")
            runs.append(outputs)
        switch = torch_checks.switched(audits[0], audits[1], "its second call on the same inputs")
        if switch:
            problems.append(switch)
        audit = audits[0]
        torch_checks.merge(audit, audits[1])
        changed = [i for i, (a, b) in enumerate(zip(inputs, kept)) if isinstance(a, torch.Tensor) and not torch_checks.same_bits(torch, a, b)]
        if changed:
            problems.append(f"input {changed[0]} was modified by forward (inputs must be left unchanged)")
        if audit.side_stream:
            problems.append(f"ran {', '.join(audit.side_stream[:5])} on a stream other than the caller's (side stream)")
        if audit.lowered and not self.job.get("allow_lower"):
            problems.append(f"converted to a lower precision than the task's {self.job['dtype']}: {', '.join(audit.lowered[:3])}")
        if not self._check_globals(bindings, globals_["spaces"], globals_["state"], f"forward at {label}"):
            return False
        torch.save([t.detach().cpu() for t in runs[0]], folder / f"{label}.out0.pt")
        torch.save([t.detach().cpu() for t in runs[1]], folder / f"{label}.out1.pt")
        self.send(event="case", label=label, integrity=problems, ops=audit.ops, forbidden=audit.forbidden)
        return True

    # ---- timing (eval/torch_timing.py) -----------------------------------------------------------
    def run_timing(self, cls: Any, spec: dict[str, Any], bindings: dict[str, Any], globals_: dict[str, Any]) -> None:
        torch_timing.time_interleaved(self, cls, spec, bindings, globals_)


def await_job() -> str:
    """A spare torch worker: torch (and inductor, for the compile baselines) imported before any job
    exists, beside the running candidate; its job's path then arrives as one line on stdin. It loads
    no candidate code and touches no device until then; the job confines it as any worker."""
    with contextlib.suppress(Exception):
        import torch._inductor.compile_fx  # noqa: F401 - most of a warm torch.compile's first second
    # Triton's Python (its language, compiler and NVIDIA backend modules), which a Triton candidate's
    # first call and the compiled baselines' first Triton kernel otherwise import on the device turn.
    # Imports only: Triton's driver, which initializes CUDA and builds its C utilities into the
    # Triton cache (a folder the job's baselines check against their manifest), is left to the job.
    with contextlib.suppress(Exception):
        import triton.backends.nvidia.compiler  # noqa: F401
        import triton.compiler.compiler  # noqa: F401
        import triton.language  # noqa: F401
    line = sys.stdin.readline().strip()
    if not line:  # the parent closed without a job: nothing ran
        os._exit(0)
    return line


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[0] == "--spare":
        argv = [await_job(), argv[1]]
    job = json.loads(Path(argv[0]).read_text())
    channel = Channel(int(argv[1]))
    try:
        if job["target"] == "cuda":
            torch.cuda.init()
        worker = TorchWorker(job, channel)
        info: dict[str, Any] = {"pid": os.getpid(), "nonce": job.get("nonce"), "torch": torch.__version__}
        if worker.cuda:
            props = torch.cuda.get_device_properties(0)
            info.update(gpu=props.name, l2_bytes=getattr(props, "L2_cache_size", 0), cc=[props.major, props.minor],
                        sm_count=props.multi_processor_count)  # fmt: skip
        channel.send(event="hello", **info)
        if job["mode"] == "reference":
            worker.run_reference()
            if job.get("warm"):
                worker.warm_baselines()
        else:
            loaded = worker.load_candidate() if worker.confine() else None
            if loaded is not None:
                cls, bindings, globals_ = loaded
                if worker.run_cases(cls, bindings, globals_) and job.get("await_timing"):
                    spec = worker.ask(event="ready_for_timing").get("timing")
                    if spec:
                        worker.run_timing(cls, spec, bindings, globals_)
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which decides the status
        with contextlib.suppress(Exception):
            if "worker" not in locals() or not worker.refused(exc):
                channel.send(event="error", kind=type(exc).__name__, text=_tail(exc))
        channel.send(event="done", messages=channel.count + 1)
        os._exit(3)
    channel.send(event="done", messages=channel.count + 1)
    os._exit(0)  # no interpreter teardown: a candidate's finalizers never run after the verdict


if __name__ == "__main__":
    sys.exit(main())
