from __future__ import annotations

from pathlib import Path

import pytest

from regrapht.eval import Evaluator
from regrapht.tasks import load_task
from tests.eval.conftest import quick_config

HERE = Path(__file__).parent
EVAL_TASKS = HERE.parent / "eval" / "tasks"
HOSTILE = HERE.parent / "eval" / "hostile_cpu"


def fenced(name: str, lang: str = "cpp") -> str:
    """A completion that answers with one of the evaluator tests' candidates in a fence."""
    return f"Here is my kernel.\n\n```{lang}\n{(HOSTILE / name).read_text()}```\n"


@pytest.fixture(scope="session")
def vec_scale():
    return load_task(EVAL_TASKS / "vec_scale")


@pytest.fixture(scope="session")
def row_sums():
    return load_task(HERE / "tasks" / "row_sums")


@pytest.fixture(scope="session")
def rl_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("rl-build-cache")


@pytest.fixture(scope="session")
def evaluator(rl_cache: Path):
    with Evaluator(quick_config(rl_cache, seeds=2)) as ev:
        yield ev
