"""The step list a solution.cu opens with, and how its length must fit the task's tier."""

from __future__ import annotations

import pytest

from regrapht.eval.suitecheck import solution_steps, steps_problem


def test_steps_are_read_from_the_first_line() -> None:
    src = "\n// steps: parallelize, shared_memory_tiling ,loop_unrolling\n__global__ void k() {}\n"
    assert solution_steps(src) == ["parallelize", "shared_memory_tiling", "loop_unrolling"]
    assert solution_steps("__global__ void k() {}\n// steps: parallelize\n") is None
    assert solution_steps("") is None


@pytest.mark.parametrize(
    ("count", "difficulty", "fits"),
    [
        (1, "easy", True),
        (2, "easy", True),
        (3, "easy", False),
        (2, "medium", False),
        (3, "medium", True),
        (5, "medium", True),
        (6, "medium", False),
        (5, "hard", False),
        (6, "hard", True),
        (11, "hard", True),
    ],
)
def test_step_count_sets_the_tier(count: int, difficulty: str, fits: bool) -> None:
    src = "// steps: " + ", ".join(f"m{i}" for i in range(count)) + "\n"
    problem = steps_problem(src, difficulty)
    assert (problem is None) == fits
    if not fits:
        assert f"lists {count} steps" in problem and difficulty in problem


def test_missing_or_repeated_steps_are_problems() -> None:
    assert "must begin with" in steps_problem("__global__ void k() {}\n", "easy")
    assert "twice" in steps_problem("// steps: parallelize, parallelize\n", "easy")
