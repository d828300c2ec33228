"""The train-to-test leakage screen: `tasks check` fails a test task that copies a train task's code."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from typer.testing import CliRunner

from regrapht.cli import app
from regrapht.tasks import load_task
from regrapht.tasks.similarity import leakage_problem, leakage_rule, tokens

TASKS = Path(__file__).resolve().parents[1] / "search" / "tasks"


def _as_split(folder: Path, split: str, new_id: str | None = None) -> Path:
    toml = folder / "task.toml"
    text = re.sub(r'^split = ".*"$', f'split = "{split}"', toml.read_text(), flags=re.M)
    if new_id is not None:
        text = re.sub(r'^id = ".*"$', f'id = "{new_id}"', text, flags=re.M)
    toml.write_text(text)
    return folder


def test_tokens_drop_comments_strings_and_fold_numbers() -> None:
    source = '#include <x>\n// a comment\nfloat f(int n) { /* more */ return n * 2.5f + 1; } const char* s = "txt";'
    assert tokens(source) == [
        "float", "f", "(", "int", "n", ")", "{", "return", "n", "*", "NUM", "+", "NUM", ";", "}",
        "const", "char", "*", "s", "=", "STR", ";",
    ]  # fmt: skip


def test_a_renamed_copy_of_a_train_task_fails_and_a_different_task_passes(tmp_path: Path) -> None:
    train = load_task(_as_split(shutil.copytree(TASKS / "axpy_small", tmp_path / "axpy_small"), "train"))
    copy = load_task(
        _as_split(shutil.copytree(TASKS / "axpy_small", tmp_path / "axpy_copy"), "test", new_id="axpy_copy")
    )
    other = load_task(_as_split(shutil.copytree(TASKS / "row_sums", tmp_path / "row_sums"), "test"))

    problem, near = leakage_problem(copy, [train])
    assert near is not None and near.other == train.id and near.score >= leakage_rule().threshold
    assert problem is not None and "near-duplicate of train task axpy_small" in problem

    problem, near = leakage_problem(other, [train])
    assert problem is None and near is not None and near.score < leakage_rule().threshold
    # only test tasks are screened, and only against the tasks a graph is built from
    assert leakage_problem(train, [copy]) == (None, None)
    assert leakage_problem(copy, [other])[0] is None


def test_a_copy_of_an_example_task_fails_too(tmp_path: Path) -> None:
    # the shipped graphs hold the example split's trajectories too: a copy of one leaks as well
    example = load_task(_as_split(shutil.copytree(TASKS / "axpy_small", tmp_path / "axpy_small"), "example"))
    copy = load_task(
        _as_split(shutil.copytree(TASKS / "axpy_small", tmp_path / "axpy_copy"), "test", new_id="axpy_copy")
    )
    problem, near = leakage_problem(copy, [example])
    assert problem is not None and "near-duplicate of example task axpy_small" in problem


def test_tasks_check_fails_a_near_duplicate_test_task(tmp_path: Path) -> None:
    train = _as_split(shutil.copytree(TASKS / "axpy_small", tmp_path / "axpy_small"), "train")
    copy = _as_split(shutil.copytree(TASKS / "axpy_small", tmp_path / "axpy_copy"), "test", new_id="axpy_copy")
    out = tmp_path / "check.json"
    result = CliRunner().invoke(app, ["tasks", "check", "--no-gpu", str(train), str(copy), "--out", str(out)])
    assert result.exit_code == 1, result.output
    rows = {r["task_id"]: r for r in json.loads(out.read_text())}
    assert rows["axpy_small"]["ok"] is True
    assert rows["axpy_copy"]["ok"] is False
    assert any("near-duplicate of train task axpy_small" in p for p in rows["axpy_copy"]["problems"])
    assert rows["axpy_copy"]["measured"]["nearest_train"]["task"] == "axpy_small"


def test_the_shipped_test_split_has_no_near_duplicate_of_a_graph_task() -> None:
    from regrapht.tasks import load_suite

    suite = load_suite()
    train = [t for t in suite if t.split in ("train", "example")]
    leaks = {t.id: leakage_problem(t, train)[0] for t in suite if t.split == "test"}
    leaks = {k: v for k, v in leaks.items() if v}
    assert not leaks, leaks
