"""Every install command regrapht suggests works as written: extras that exist, and PyTorch's CPU
build first where an extra pulls in PyTorch and there may be no GPU."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from regrapht import doctor
from regrapht.eval import toolchain
from regrapht.install_hints import TORCH_CPU_INDEX, extra_install
from regrapht.llm.errors import MissingDependencyError

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[1]
EXTRAS = set(tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"])


def test_doctor_names_only_extras_that_exist_and_the_torch_build_for_this_machine() -> None:
    fixes = {c.name: c.fix for c in doctor.run_checks()}
    named = {extra for fix in fixes.values() for extra in re.findall(r"regrapht\[(\w+)\]", fix)}
    assert named <= EXTRAS, f"no such extra: {named - EXTRAS}"
    if toolchain.gpus():
        assert TORCH_CPU_INDEX not in fixes["torch"]
    else:
        for name in ("torch", "transformers", "sentence-transformers"):
            assert TORCH_CPU_INDEX in fixes[name], fixes[name]


def test_missing_backend_packages_point_at_the_cpu_build_first() -> None:
    message = str(MissingDependencyError("transformers", "hf", "the hf backend"))
    assert f"pip install torch --index-url {TORCH_CPU_INDEX}" in message
    assert message.index(TORCH_CPU_INDEX) < message.index("regrapht[hf]")
    assert extra_install("vllm") == "pip install 'regrapht[vllm]'"
    assert extra_install("hf", gpu=True) == "pip install 'regrapht[hf]'"
