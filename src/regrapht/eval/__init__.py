"""The evaluation environment: compile, isolate, verify and time candidates; the only code that runs them."""

from regrapht.eval import toolchain
from regrapht.eval.compile import Compiler, CompileResult
from regrapht.eval.config import EvalConfig, TimingConfig
from regrapht.eval.evaluator import Evaluator, ReferenceError, evaluate
from regrapht.eval.record import STATUSES, CaseResult, Evaluation, hierarchical_reward

__all__ = [
    "STATUSES",
    "CaseResult",
    "CompileResult",
    "Compiler",
    "EvalConfig",
    "Evaluation",
    "Evaluator",
    "ReferenceError",
    "TimingConfig",
    "evaluate",
    "hierarchical_reward",
    "toolchain",
]
