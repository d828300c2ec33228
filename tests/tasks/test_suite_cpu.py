"""The CPU side of `regrapht tasks check` for every shipped task: the reference compiles, runs and is
deterministic, its outputs pass the degenerate-task screen, and naive.cu / solution.cu build with
nvcc. (The GPU side runs on the GPU machine: see docs/suite.md.)"""

from __future__ import annotations

import shutil

import pytest

from regrapht.eval import EvalConfig
from regrapht.eval.suitecheck import check_tasks, solution_steps, steps_problem
from regrapht.graph.taxonomy import load_taxonomy
from regrapht.tasks import builtin_tasks_root, iter_task_dirs, load_task

TASK_DIRS = list(iter_task_dirs(builtin_tasks_root()))

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("nvcc") is None, reason="nvcc is needed to build naive.cu and solution.cu"
    ),
]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    tasks = [load_task(d) for d in TASK_DIRS]
    config = EvalConfig(timing=False, cache_dir=str(tmp_path_factory.mktemp("suite-cache")))
    return {c.task_id: c for c in check_tasks(tasks, gpu=False, config=config)}


def test_the_suite_is_large_and_balanced():
    tasks = [load_task(d) for d in TASK_DIRS]
    test = [t for t in tasks if t.split == "test"]
    assert len([t for t in tasks if t.split == "train"]) >= 40 and len(test) >= 60
    for level in ("easy", "medium", "hard"):
        assert len([t for t in test if t.difficulty == level]) >= 20
    assert len({t.category for t in tasks}) >= 14
    assert len({t.id for t in tasks}) == len(tasks)
    assert all(t.solution_path is not None for t in test)
    assert all(t.naive_path is not None for t in tasks if t.split != "example")


def test_solution_steps_are_canonical_methods_in_their_tier():
    names = {m.name for m in load_taxonomy()}
    for d in TASK_DIRS:
        task = load_task(d)
        if task.solution_path is None:
            continue
        source = task.solution_path.read_text()
        assert steps_problem(source, task.difficulty) is None, task.id
        unknown = set(solution_steps(source) or []) - names
        assert not unknown, f"{task.id}: not canonical methods: {sorted(unknown)}"


@pytest.mark.parametrize("task_dir", TASK_DIRS, ids=[d.name for d in TASK_DIRS])
def test_task_passes_the_cpu_checks(results, task_dir):
    check = results[load_task(task_dir).id]
    assert check.ok, "\n".join(check.problems)
