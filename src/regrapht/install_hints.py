"""How to install the optional extras, in one place for every message that suggests it.

The `hf` and `embed` extras depend on PyTorch. Plain `pip install torch` on Linux resolves to the
CUDA build, which pulls about 20 NVIDIA wheels (gigabytes) even on a machine without a GPU; the CPU
build comes from PyTorch's own index. Installed first, it satisfies the extras' requirement, so pip
keeps it.
"""

from __future__ import annotations

TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
TORCH_EXTRAS = frozenset({"hf", "embed"})  # extras whose dependencies pull in PyTorch


def torch_install(gpu: bool | None = None) -> str:
    """The command that installs PyTorch: the CUDA build with a GPU, the CPU build without one, and
    both spelled out when it is not known which (`gpu=None`)."""
    cpu = f"pip install torch --index-url {TORCH_CPU_INDEX}"
    if gpu is True:
        return "pip install torch"
    if gpu is False:
        return cpu
    return f"{cpu} (without an NVIDIA GPU; plain `pip install torch` pulls the CUDA build)"


def extra_install(extra: str, gpu: bool | None = None) -> str:
    """The command that installs regrapht's extra `extra`, with PyTorch's CPU build first where the
    extra needs PyTorch and there may be no GPU."""
    command = f"pip install 'regrapht[{extra}]'"
    if extra in TORCH_EXTRAS and gpu is not True:
        return f"{torch_install(gpu)}, then {command}"
    return command
