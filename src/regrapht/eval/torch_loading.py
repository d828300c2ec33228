"""What the torch worker (eval/torch_worker.py) loads and builds before it judges anything: modules
from files, models with the task's seed, dtype and device, parameters copied from Model to ModelNew,
a ModelNew around a bare entry point, a bare CUDA source's extension, the harness's hold kernel, and
the candidate's frames in an error message."""

from __future__ import annotations

import importlib.util
import os
import sys
import traceback
from pathlib import Path
from typing import Any

import torch


def load_module(path: Path, name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def set_sizes(reference: Any, sizes: dict[str, int]) -> None:
    for name, value in sizes.items():
        setattr(reference, name, int(value))


def to_task(value: Any, dtype: torch.dtype, device: str) -> Any:
    """A harness value on the device, floating tensors in the task's dtype."""
    if isinstance(value, torch.Tensor):
        value = value.to(device)
        return value.to(dtype) if value.is_floating_point() else value
    return value


def make_model(reference: Any, cls: Any, init: list[Any], seed: int, dtype: torch.dtype, device: str) -> Any:
    torch.manual_seed(seed)
    model = cls(*init)
    if isinstance(model, torch.nn.Module):
        model = model.to(device)
        model = model.to(dtype) if dtype != torch.float32 else model
        model.eval()
    return model


def match_parameters(target: Any, source: Any) -> list[str]:
    """Load `source`'s parameters and buffers into `target` where names and shapes match; returns the
    names loaded (so ModelNew starts from the weights Model drew, whatever order it drew its own)."""
    if not isinstance(target, torch.nn.Module):
        return []
    theirs = target.state_dict()
    ours = {k: v for k, v in source.state_dict().items() if k in theirs and theirs[k].shape == v.shape}
    with torch.no_grad():
        for k, v in ours.items():
            theirs[k].copy_(v)
    return sorted(ours)


def _hold_function(library: str | None) -> Any:
    """`regrapht_hold_device` of the harness's device library (data/kernels/device_check.cu), loaded
    before any candidate code runs; None without one."""
    if not library:
        return None
    import ctypes

    from regrapht.eval.worker_memory import bind_hold

    try:
        return bind_hold(ctypes.CDLL(library, mode=os.RTLD_NOW | os.RTLD_LOCAL))
    except (OSError, AttributeError):
        return None


class _Functions:
    """The reference module's functions (not its size constants, which the harness sets itself)."""

    def __init__(self, module: Any):
        self.module = module

    @property
    def __dict__(self) -> dict[str, Any]:  # type: ignore[override]
        return {k: v for k, v in vars(self.module).items() if callable(v)}


def _where(exc: BaseException) -> str:
    """ (at FILE:LINE) of the last frame of the candidate's code (not the harness's), or nothing."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "regrapht/eval" not in f.filename]
    return f" (at {Path(frames[-1].filename).name}:{frames[-1].lineno})" if frames else ""


def _tail(exc: BaseException) -> str:
    """The exception and the last frames of the candidate's code (not the harness's)."""
    return f"{type(exc).__name__}: {str(exc)[:1500]}{_where(exc)}"


def _entry_model(fn: Any) -> type:
    """A ModelNew around a bare entry point: forward(*inputs) calls fn(*inputs, *parameters), the
    parameters and buffers of Model in state_dict order (loaded from Model's by name)."""

    class ModelNew(torch.nn.Module):
        def __init__(self, *init: Any) -> None:
            super().__init__()
            reference = sys.modules["regrapht_torch_reference"]
            self.inner = reference.Model(*init)

        def forward(self, *inputs: Any) -> Any:
            return fn(*inputs, *self.inner.state_dict().values())

    return ModelNew


def _bare_cuda_module(source: str, entry: str) -> Any:
    """Build a bare CUDA source (its entry a host function taking and returning torch tensors) and
    return the extension module."""
    from torch.utils.cpp_extension import load_inline

    from regrapht.eval.torch_forms import entry_declaration

    declaration = entry_declaration(source, entry)
    return load_inline("bare", cpp_sources=[declaration], cuda_sources=[source], functions=[entry])
