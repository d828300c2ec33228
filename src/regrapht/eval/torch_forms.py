"""The forms a torch candidate may take, and how a bare source declares its entry point.

- A Python file defining `class ModelNew(nn.Module)` with Model's constructor and forward signature,
  its kernels in custom CUDA/C++ (`torch.utils.cpp_extension.load_inline`) or Triton (`@triton.jit`).
- A Python file without ModelNew, declaring its entry with a line `# regrapht: entry = NAME`: the
  harness wraps it, calling `NAME(*inputs, *parameters)` (forward's inputs, then Model's parameters
  and buffers in `state_dict()` order).
- A bare CUDA source (`.cu`) declaring its entry with `// regrapht: entry = NAME`, NAME a host function
  that takes torch tensors (inputs, then parameters as above) and returns a tensor or a tuple of them;
  the harness builds it through the cached extension builder (eval/torch_build.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ENTRY = re.compile(r"^\s*(?://|#)\s*regrapht:\s*entry\s*=\s*([A-Za-z_]\w*)\s*$", re.MULTILINE)
_TYPE = r"(?:torch::Tensor|at::Tensor|std::vector<\s*(?:torch|at)::Tensor\s*>|std::tuple<[^;{}()]*>)"


class FormError(ValueError):
    """A candidate whose form cannot be told, or whose declared entry is not defined."""


@dataclass(frozen=True)
class Form:
    kind: str  # "python" or "cuda"
    entry: str | None  # the declared entry point; None for a Python file defining ModelNew
    triton: bool  # the source uses Triton (JIT-compiled in the worker at its first call)


def declared_entry(source: str) -> str | None:
    found = _ENTRY.findall(source)
    return found[0] if found else None


def detect(source: str, filename: str = "") -> Form:
    """The form of a candidate, from its file name where it has one, else its text."""
    entry = declared_entry(source)
    triton = bool(re.search(r"^\s*(import|from)\s+triton\b", source, re.MULTILINE))
    cuda = filename.endswith((".cu", ".cuh")) or (
        not filename.endswith(".py") and "__global__" in source and not re.search(r"^\s*(import|from)\s", source, re.MULTILINE)
    )
    if cuda:
        if entry is None:
            raise FormError("a bare CUDA candidate must declare its entry point with a line "
                            "`// regrapht: entry = NAME` (NAME: a host function taking and returning torch tensors)")  # fmt: skip
        entry_declaration(source, entry)
        return Form("cuda", entry, False)
    return Form("python", entry, triton)


def entry_declaration(source: str, entry: str) -> str:
    """The C++ declaration of the entry function (for the binding's translation unit)."""
    match = re.search(rf"({_TYPE})\s+{re.escape(entry)}\s*\(([^)]*)\)\s*\{{", source)
    if match is None:
        raise FormError(f"the declared entry {entry!r} is not defined as a host function returning torch::Tensor "
                        f"(or a std::vector/std::tuple of them): expected `torch::Tensor {entry}(...) {{`")  # fmt: skip
    return f"{match.group(1)} {entry}({match.group(2)});"
