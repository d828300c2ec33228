"""The evaluation environment: compile, isolate, verify and time candidates; the only code that runs them.

Names are imported lazily, so the worker process (`python -m regrapht.eval.worker`) starts with
NumPy and ctypes alone.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "STATUSES": "regrapht.eval.record",
    "CaseResult": "regrapht.eval.record",
    "Evaluation": "regrapht.eval.record",
    "hierarchical_reward": "regrapht.eval.record",
    "CompileResult": "regrapht.eval.compile",
    "Compiler": "regrapht.eval.compile",
    "EvalConfig": "regrapht.eval.config",
    "TimingConfig": "regrapht.eval.config",
    "Evaluator": "regrapht.eval.evaluator",
    "ReferenceError": "regrapht.eval.evaluator",
    "SandboxUnavailable": "regrapht.eval.evaluator",
    "evaluate": "regrapht.eval.evaluator",
    "toolchain": "regrapht.eval.toolchain",
}

__all__ = [
    "STATUSES",
    "CaseResult",
    "CompileResult",
    "Compiler",
    "EvalConfig",
    "Evaluation",
    "Evaluator",
    "ReferenceError",
    "SandboxUnavailable",
    "TimingConfig",
    "evaluate",
    "hierarchical_reward",
    "toolchain",
]

if TYPE_CHECKING:
    from regrapht.eval import toolchain
    from regrapht.eval.compile import Compiler, CompileResult
    from regrapht.eval.config import EvalConfig, TimingConfig
    from regrapht.eval.evaluator import Evaluator, ReferenceError, SandboxUnavailable, evaluate
    from regrapht.eval.record import STATUSES, CaseResult, Evaluation, hierarchical_reward


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'regrapht.eval' has no attribute {name!r}")
    module = importlib.import_module(_EXPORTS[name])
    return module if name == "toolchain" else getattr(module, name)
