"""PyTorch-specific integrity checks for torch candidates (pure functions and small helpers).

The worker (eval/torch_worker.py) calls these around the candidate's forward: the ATen dispatch audit
(which library operators the forward ran, on which stream, at which precision), global torch state,
monkey-patching of torch or the harness, outputs that alias an input or are reused across calls.
The source screen runs in the parent, before any candidate code does.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from types import ModuleType
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


@cache
def _data(name: str) -> dict[str, Any]:
    return tomllib.loads(resources.files("regrapht").joinpath(f"data/{name}").read_text())


def allowed_ops() -> frozenset[str]:
    return frozenset(op for ops in _data("torch_ops.toml")["allowed"].values() for op in ops)


def lower_precision(task_dtype: str) -> frozenset[str]:
    return frozenset(_data("torch_ops.toml")["lower_precision"].get(task_dtype, ()))


@dataclass(frozen=True)
class ScreenHit:
    line: int
    message: str
    excerpt: str


def screen_source(source: str) -> list[ScreenHit]:
    """Lines of a torch candidate that match a rule of data/torch_screen.toml (comments included:
    a string can be built from a comment's text no more easily than from code's)."""
    hits: list[ScreenHit] = []
    rules = [(re.compile(r["pattern"]), r["message"]) for r in _data("torch_screen.toml")["rule"]]
    for number, line in enumerate(source.splitlines(), 1):
        for pattern, message in rules:
            if pattern.search(line):
                hits.append(ScreenHit(number, message, line.strip()[:160]))
    return hits


# ---- in the worker (torch imported) ---------------------------------------------------------------
_STATE_GETTERS = {
    "default dtype": lambda t: str(t.get_default_dtype()),
    "deterministic algorithms": lambda t: t.are_deterministic_algorithms_enabled(),
    "float32 matmul precision": lambda t: t.get_float32_matmul_precision(),
    "grad mode": lambda t: t.is_grad_enabled(),
    "cpu threads": lambda t: t.get_num_threads(),
    "cudnn.enabled": lambda t: t.backends.cudnn.enabled,
    "cudnn.benchmark": lambda t: t.backends.cudnn.benchmark,
    "cudnn.deterministic": lambda t: t.backends.cudnn.deterministic,
    "cudnn.allow_tf32": lambda t: t.backends.cudnn.allow_tf32,
    "cuda.matmul.allow_tf32": lambda t: t.backends.cuda.matmul.allow_tf32,
    "cuda.matmul.allow_fp16_reduced_precision_reduction": lambda t: (
        t.backends.cuda.matmul.allow_fp16_reduced_precision_reduction
    ),
    "cuda.matmul.allow_bf16_reduced_precision_reduction": lambda t: (
        t.backends.cuda.matmul.allow_bf16_reduced_precision_reduction
    ),
}


def torch_state(torch: ModuleType) -> dict[str, Any]:
    """Global settings that change what the baselines compute or how fast (read, never set)."""
    state: dict[str, Any] = {}
    for name, getter in _STATE_GETTERS.items():
        try:
            state[name] = getter(torch)
        except Exception as exc:  # a setting this torch build lacks
            state[name] = f"unavailable ({type(exc).__name__})"
    return state


def state_changes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    return [f"{k}: {before[k]!r} -> {after.get(k)!r}" for k in before if after.get(k) != before[k]]


def watched_namespaces(torch: ModuleType, extra: dict[str, Any]) -> dict[str, Any]:
    """What a candidate must not rebind: torch's public functions and classes the harness and the
    baselines use, the timer, and the harness's own modules (`extra`: name -> module or class)."""
    import time

    spaces: dict[str, Any] = {
        "torch": torch,
        "torch.Tensor": torch.Tensor,
        "torch.nn.Module": torch.nn.Module,
        "torch.nn.functional": torch.nn.functional,
        "torch.cuda": torch.cuda,
        "torch.cuda.Event": torch.cuda.Event,
        "torch.utils.cpp_extension": sys.modules.get("torch.utils.cpp_extension"),
        "time": time,
    }
    spaces.update(extra)
    return {k: v for k, v in spaces.items() if v is not None}


def binding_snapshot(spaces: dict[str, Any]) -> dict[str, dict[str, int]]:
    snap: dict[str, dict[str, int]] = {}
    for name, space in spaces.items():
        try:
            items = dict(vars(space))
        except TypeError:
            continue
        snap[name] = {k: id(v) for k, v in items.items()}
    return snap


def rebound(before: dict[str, dict[str, int]], spaces: dict[str, Any]) -> list[str]:
    """Names bound before whose object changed or vanished. New names are ignored: torch adds
    submodules as they are first imported, which is not a patch."""
    now = binding_snapshot(spaces)
    changed: list[str] = []
    for space, names in before.items():
        current = now.get(space, {})
        for key, ident in names.items():
            if current.get(key) != ident:
                changed.append(f"{space}.{key}")
    return changed


@dataclass
class Audit:
    """What one audited forward did through the dispatcher."""

    ops: dict[str, int] = field(default_factory=dict)  # "aten::relu" -> calls
    forbidden: list[str] = field(default_factory=list)  # library operators outside the allowed list
    side_stream: list[str] = field(default_factory=list)  # ops issued on a stream other than the caller's
    lowered: list[str] = field(default_factory=list)  # conversions to a lower precision than the task's


def dispatch_audit(torch: ModuleType, audit: Audit, task_dtype: str, stream: Any | None) -> Any:
    """A TorchDispatchMode that records every operator the forward dispatches (C++ extensions that
    call ATen included: the mode lives in thread-local state, below Python)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    allowed = allowed_ops()
    lower = lower_precision(task_dtype)

    class _Audit(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001
            kwargs = kwargs or {}
            name = func._schema.name
            audit.ops[name] = audit.ops.get(name, 0) + 1
            namespace, _, short = name.partition("::")
            if namespace == "aten" and short not in allowed and name not in audit.forbidden:
                audit.forbidden.append(name)
            if stream is not None and torch.cuda.current_stream() != stream and name not in audit.side_stream:
                audit.side_stream.append(name)
            dtype = kwargs.get("dtype")
            if short in ("_to_copy", "to") and dtype is not None and str(dtype).replace("torch.", "") in lower:
                audit.lowered.append(f"{name} to {dtype}")
            return func(*args, **kwargs)

    return _Audit()


def switched(first: Audit, later: Audit, where: str) -> str | None:
    """Library operators a later audited call dispatched that the first call at the same shape did
    not: the candidate changes how it computes once the call it expects to be audited has passed
    (a custom kernel first, `torch.matmul` after)."""
    new = [op for op in later.forbidden if op not in first.forbidden]
    if not new:
        return None
    return (f"{where} dispatched the library operator(s) {', '.join(new[:5])}, which its first call at that shape "
            "did not (it changes how it computes after the first call)")  # fmt: skip


def merge(into: Audit, other: Audit) -> None:
    """`other`'s findings added to `into`'s (the record lists every audited call's operators)."""
    for name, count in other.ops.items():
        into.ops[name] = into.ops.get(name, 0) + count
    for bucket in ("forbidden", "side_stream", "lowered"):
        mine = getattr(into, bucket)
        mine += [x for x in getattr(other, bucket) if x not in mine]


def flat_outputs(torch: ModuleType, result: Any) -> list[Any] | str:
    """forward's result as a list of tensors, or what is wrong with it."""
    items = list(result) if isinstance(result, (tuple, list)) else [result]
    for i, item in enumerate(items):
        if type(item) is not torch.Tensor:
            what = type(item).__name__
            if isinstance(item, torch.Tensor):
                return f"output {i} is a {what}, a subclass of torch.Tensor (a lazy or wrapped tensor); return plain tensors"
            return f"output {i} is a {what}, not a torch.Tensor"
    return items


def _span(t: Any) -> tuple[int, int] | None:
    storage = t.untyped_storage()
    start = storage.data_ptr()
    return None if storage.nbytes() == 0 else (start, start + storage.nbytes())


def overlapping(a: Any, b: Any) -> bool:
    sa, sb = _span(a), _span(b)
    return sa is not None and sb is not None and sa[0] < sb[1] and sb[0] < sa[1] and a.device == b.device


def aliases(outputs: list[Any], inputs: list[Any]) -> list[str]:
    found = []
    for i, out in enumerate(outputs):
        for j, inp in enumerate(inputs):
            if hasattr(inp, "untyped_storage") and overlapping(out, inp):
                found.append(f"output {i} shares memory with input {j} (a view or alias of it)")
    return found


def same_bits(torch: ModuleType, a: Any, b: Any) -> bool:
    """Bitwise equality (NaN equals NaN of the same bits; -0.0 differs from 0.0)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.numel() == 0:
        return True
    if a.dtype.is_floating_point or a.dtype.is_complex:
        width = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[a.element_size()]
        return bool(torch.equal(a.contiguous().view(width), b.contiguous().view(width)))
    return bool(torch.equal(a, b))
