"""One torch candidate's worker, as its parent hears it: each message the worker sends, judged as it
arrives (builds, load errors, integrity findings, the cases' outputs against the reference's), and the
verdict its end leaves (eval/torch_judge.py starts the worker and times nothing here)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from regrapht.eval import correctness
from regrapht.eval.record import CaseResult, Evaluation
from regrapht.eval.runner import Reply, WorkerOutcome
from regrapht.tasks.model import Tolerance
from regrapht.tasks.torch_task import TorchTask

if TYPE_CHECKING:
    from regrapht.eval.torch_judge import TorchJudge, _Reference

# load errors that are the candidate's build or module, reported as compile errors
COMPILE_KINDS = {"syntax", "import", "build", "missing", "signature"}


class CandidateState:
    """What one candidate's worker has said so far, and the verdict as it forms."""

    def __init__(self, ev: Evaluation, task: TorchTask, target: str, ref: _Reference, case_dir: Path, judge: TorchJudge):
        self.ev, self.task, self.target, self.ref, self.case_dir, self.judge = ev, task, target, ref, case_dir, judge
        self.failed = False
        self.builds: list[dict[str, Any]] = []
        self.timing: dict[str, Any] | None = None
        self.l2 = 0
        self.ops: dict[str, int] = {}
        self.forbidden: list[str] = []
        self.sandbox_broke: str | None = None
        self.sandbox_missing: str | None = None  # why a required sandbox could not be entered

    def fail(self, status: str, message: str) -> None:
        if not self.failed:
            self.failed = True
            self.ev.status, self.ev.message = status, message

    def on_message(self, message: dict[str, Any]) -> Reply:
        event = message.get("event")
        if event == "hello":
            self.l2 = int(message.get("l2_bytes") or 0)
        elif event == "sandbox":
            if message.get("broken"):
                self.sandbox_broke = str(message["broken"])
                self.failed = True  # this run is not the candidate's verdict
                return "stop"
            self.ev.sandbox = {k: message.get(k) for k in ("landlock", "seccomp", "processes", "reason", "seconds")}
            if self.judge.config.require_sandbox and not (message.get("landlock") and message.get("seccomp")):
                self.sandbox_missing = str(message.get("reason") or "Landlock or seccomp is unavailable")
                return "stop"
        elif event == "build":
            reply, result, waited, ahead = self.judge.build(message["spec"], self.target)
            record = {k: v for k, v in result.to_dict().items() if k != "library"}
            self.builds.append({**record, "prebuilt": ahead, "waited_s": round(waited, 3)})
            self.ev.seconds["build"] = round(self.ev.seconds.get("build", 0.0) + result.seconds, 3)
            # what the build cost the device turn (a prebuild that finished in time: nothing)
            self.ev.seconds["build_wait"] = round(self.ev.seconds.get("build_wait", 0.0) + waited, 3)
            return reply
        elif event == "load_error":
            kind = message["kind"]
            self.fail("compile_error" if kind in COMPILE_KINDS else "runtime_error", _load_message(kind, message["text"]))
            return "stop"
        elif event == "integrity":
            self.ev.integrity.append(message["text"])
            self.fail("integrity_violation", message["text"])
            return "stop"
        elif event == "case":
            try:
                self._case(message)
            except (OSError, ValueError, RuntimeError, KeyError) as exc:  # unreadable outputs: the worker's doing
                self.fail("runtime_error", f"the outputs of case {message.get('label')} could not be judged: {exc}")
            return "stop" if self.failed else None
        elif event == "ready_for_timing":
            if self.failed or not self.judge.config.timing:
                return {}
            return {"timing": self.judge.timing_spec(self.task, self.target, self.l2)}
        elif event == "timing":
            self.timing = message
        elif event == "parameters" and message.get("loaded"):
            pass
        return None

    def _case(self, message: dict[str, Any]) -> None:
        label = message["label"]
        case = next(c for c in self.ref.cases if c["label"] == label)
        sizes = ", ".join(f"{k}={v}" for k, v in case["sizes"].items())
        if message.get("error"):
            self.ev.cases.append(CaseResult(label, case["sizes"], 0, "runtime_error", message["error"]))
            self.fail("runtime_error", f"forward raised at {sizes}: {message['error']}")
            return
        for name, count in message.get("ops", {}).items():
            self.ops[name] = self.ops.get(name, 0) + count
        for name in message.get("forbidden", []):
            if name not in self.forbidden:
                self.forbidden.append(name)
        problems = list(message.get("integrity", []))
        if problems:
            self.ev.cases.append(CaseResult(label, case["sizes"], 0, "integrity_violation", problems[0]))
            self.ev.integrity += [f"{label} ({sizes}): {p}" for p in problems]
            self.fail("integrity_violation", f"at {sizes}: {problems[0]}")
            return
        self.ev.cases.append(self._compare(label, case, sizes))
        if self.ev.cases[-1].status != "correct":
            self.fail("wrong_answer", self.ev.cases[-1].message)

    def _compare(self, label: str, case: dict[str, Any], sizes: str) -> CaseResult:
        import torch

        expected = torch.load(self.ref.expected_dir / f"{label}.pt", weights_only=True)
        runs = [torch.load(self.case_dir / f"{label}.out{i}.pt", weights_only=True) for i in (0, 1)]
        native = self.ref.outputs[label]
        result = CaseResult(label, case["sizes"], 0, "correct")
        if len(runs[0]) != len(expected):
            result.status, result.message = "wrong_answer", f"at {sizes}: forward returned {len(runs[0])} outputs, the reference {len(expected)}"
            return result
        for i, (got, want) in enumerate(zip(runs[0], expected)):
            if str(got.dtype).replace("torch.", "") != native[i]["dtype"]:
                result.status = "wrong_answer"
                result.message = f"at {sizes}: output {i} is {got.dtype}, the reference returns {native[i]['dtype']}"
                return result
            if tuple(got.shape) != tuple(want.shape):
                result.status = "wrong_answer"
                result.message = f"at {sizes}: output {i} has shape {tuple(got.shape)}, the reference's {tuple(want.shape)}"
                return result
            tol = self.task.tolerance_of(i)
            tolerance = Tolerance("close", tol.rtol, tol.atol)
            actual = _numpy(got)
            mismatch = correctness.compare(actual, _numpy(want), tolerance)
            if mismatch is not None:
                result.status = "wrong_answer"
                result.message = f"at {sizes}: " + mismatch.describe(f"output {i}", tolerance)
                result.max_abs_error, result.max_rel_error = mismatch.max_abs_error, mismatch.max_rel_error
                return result
            if actual.size and actual.dtype.kind == "f":
                abs_err, rel_err = correctness.max_errors(actual, _numpy(want))
                result.max_abs_error = max(result.max_abs_error, abs_err)
                result.max_rel_error = max(result.max_rel_error, rel_err)
            again = correctness.compare(_numpy(runs[1][i]), actual, tolerance)
            if again is not None:
                result.status = "wrong_answer"
                result.message = (f"at {sizes}: two runs on the same inputs disagree (a race or uninitialised memory): "
                                  + again.describe(f"output {i}", tolerance, "differ between the runs"))  # fmt: skip
                return result
        return result

    def finish(self, outcome: WorkerOutcome) -> None:
        ev = self.ev
        if self.ops:
            ev.integrity.append("ATen operators the forward ran: " + ", ".join(f"{k}x{v}" for k, v in sorted(self.ops.items())))
        if self.forbidden and not self.failed:
            ops = ", ".join(self.forbidden[:8])
            if self.target == "cuda" or self.builds:  # on cpu: a "custom" extension that defers to the library
                self.fail("integrity_violation", f"forward called the library operator(s) {ops}: the work is done by "
                          "PyTorch, not by a custom kernel (allowed: allocation, views, copies, the candidate's own ops)")  # fmt: skip
            else:
                ev.integrity.append(f"note: a plain-torch candidate ({ops}) is accepted on the cpu target; "
                                    "on cuda the same forward is not a custom kernel")  # fmt: skip
        if self.failed:
            return
        error = outcome.last("error")
        if outcome.channel_error:
            # the result channel carried what the torch worker's protocol does not define: the worker
            # runs candidate code, so this is the candidate's doing (or a harness bug, said plainly)
            self.fail("runtime_error", f"the worker's result channel was corrupted: {outcome.channel_error}")
        elif outcome.timed_out:
            where = "the timed rounds" if outcome.last("ready_for_timing") else "the correctness cases"
            self.fail("timeout", f"the candidate {outcome.timeout_reason} during {where} (a hang, or far too slow)")
        elif outcome.signal_name == "SIGSYS" and outcome.last("sandbox"):
            self.fail("integrity_violation", "the sandbox stopped the process: it made a system call a candidate may "
                      "not make (creating a process, or reaching into another)")  # fmt: skip
        elif outcome.memory_exceeded or outcome.oom_killed:
            self.fail("runtime_error", f"the worker used more than {self.judge.config.memory_limit_gib:g} GiB of host memory")
        elif error is not None:
            self.fail("runtime_error", f"the worker failed: {error['text']}")
        elif not outcome.complete:
            self.fail("runtime_error", death_message(outcome) or "the worker ended without reporting")
        elif len(ev.cases) != len(self.ref.cases):
            self.fail("runtime_error", "the worker stopped before every case ran")
        elif self.judge.config.timing and self.timing is None:
            self.fail("runtime_error", "the worker ended before its timing report")


def _numpy(t: Any) -> np.ndarray:
    import torch

    flat = t.reshape(-1)  # correctness.compare indexes elements: one dimension
    if flat.is_floating_point():
        return flat.to(torch.float64).numpy()
    return flat.numpy()


def _load_message(kind: str, text: str) -> str:
    lead = {
        "syntax": "syntax error",
        "import": "import failed",
        "build": "the custom extension did not build",
        "missing": "the candidate module is incomplete",
        "signature": "wrong signature",
        "constructor": "the constructor raised",
        "raise": "importing the candidate raised",
    }[kind]
    return f"{lead}: {text}"


def death_message(outcome: WorkerOutcome) -> str | None:
    if outcome.signal_name:
        return f"the worker died with {outcome.signal_name}" + (f"; it printed: {outcome.output_head[-400:]}" if outcome.output_head else "")
    if outcome.returncode not in (0, None):
        return f"the worker exited with status {outcome.returncode}" + (f"; it printed: {outcome.output_head[-400:]}" if outcome.output_head else "")
    return None
