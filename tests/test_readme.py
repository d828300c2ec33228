"""The README's commands as a newcomer copies them: the install lines get the right PyTorch build,
and CI runs exactly the test commands the README gives."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from regrapht.install_hints import TORCH_CPU_INDEX

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")
CI = (REPO / ".ci" / "run").read_text(encoding="utf-8")


def _bash_lines(text: str) -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", text, re.S)
    return [line.split("#")[0].strip() for block in blocks for line in block.splitlines() if line.split("#")[0].strip()]


def test_torch_is_installed_from_the_cpu_index_before_the_extras_that_pull_it() -> None:
    lines = _bash_lines(README)
    extras = [i for i, line in enumerate(lines) if re.search(r"pip install .*\[[^\]]*\b(hf|embed)\b", line)]
    assert extras, "the README installs the hf/embed extras for the tests"
    torch = [i for i, line in enumerate(lines) if re.match(r"pip install torch\b", line)]
    assert torch and min(torch) < min(extras), "PyTorch must come before the extras, or they pull the CUDA build"
    for i in torch:
        assert f"--index-url {TORCH_CPU_INDEX}" in lines[i], f"pulls the CUDA build on a CPU machine: {lines[i]}"


def test_ci_runs_every_test_command_of_the_readme() -> None:
    readme = [shlex.split(line) for line in _bash_lines(README) if "pytest" in line]
    # a CI line may go on with `|| status=$?` (run the next command even after a failure)
    ci = [shlex.split(line.split("#")[0].split("||")[0]) for line in CI.splitlines() if "pytest" in line.split("#")[0]]
    assert readme and all(command in ci for command in readme), (readme, ci)
    # the default run deselects the slow checks; CI must still run them
    assert any(c[-2:] == ["-m", "slow"] for c in ci), ci


def test_the_readme_says_what_the_test_runs_cost() -> None:
    section = README.split("## Running the tests", 1)[1].split("\n## ", 1)[0]
    assert "several minutes" not in section
    assert re.search(r"\d+ minutes? on (a )?2.core", section) or re.search(r"about \d+ minutes", section), section


def test_the_default_run_leaves_out_the_slow_tests() -> None:
    import sys

    if sys.version_info >= (3, 11):
        import tomllib
    else:
        import tomli as tomllib

    pytest_config = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    addopts = shlex.split(pytest_config["addopts"])
    assert addopts[addopts.index("-m") : addopts.index("-m") + 2] == ["-m", "not slow"]
