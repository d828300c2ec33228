"""`regrapht tasks check --resume`: keeps results of unchanged tasks, checks changed and new ones."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import regrapht
from regrapht.cli import app
from regrapht.eval.suitecheck import reusable_results
from regrapht.tasks import load_task

TASKS = Path(__file__).resolve().parents[1] / "search" / "tasks"


@pytest.fixture()
def two_tasks(tmp_path: Path) -> list[Path]:
    return [Path(shutil.copytree(TASKS / name, tmp_path / name)) for name in ("axpy_small", "row_sums")]


def _flat(text: str) -> str:
    return " ".join(text.split())  # rich wraps long lines


def _check(*args: str):
    return CliRunner().invoke(app, ["tasks", "check", "--no-gpu", *args])


def test_resume_keeps_unchanged_tasks_and_redoes_changed_ones(two_tasks, tmp_path) -> None:
    out = tmp_path / "check.json"
    first = _check(str(two_tasks[0]), "--out", str(out))
    assert first.exit_code == 0, first.output
    (row,) = json.loads(out.read_text())
    assert row["task_id"] == "axpy_small" and row["task_hash"] and row["on_gpu"] is False

    both = _check(*map(str, two_tasks), "--out", str(out), "--resume")
    assert both.exit_code == 0, both.output
    assert "1 kept, 1 to check" in _flat(both.output)
    rows = json.loads(out.read_text())
    assert [r["task_id"] for r in rows] == ["axpy_small", "row_sums"]
    assert rows[0] == row  # carried over untouched

    serial = two_tasks[1] / "serial.cpp"
    serial.write_text(serial.read_text() + "\n// edited\n")
    again = _check(*map(str, two_tasks), "--out", str(out), "--resume")
    assert again.exit_code == 0, again.output
    assert "1 kept, 1 to check" in _flat(again.output)
    assert json.loads(out.read_text())[1]["task_hash"] == load_task(two_tasks[1]).content_hash()


def test_resume_leaves_rows_of_unselected_tasks_in_the_file(two_tasks, tmp_path) -> None:
    out = tmp_path / "check.json"
    assert _check(*map(str, two_tasks), "--out", str(out)).exit_code == 0
    before = json.loads(out.read_text())
    again = _check(str(two_tasks[1]), "--out", str(out), "--resume")
    assert again.exit_code == 0, again.output
    assert "1 kept, 0 to check" in _flat(again.output)
    assert json.loads(out.read_text()) == before


def test_resume_needs_out_and_a_readable_file(two_tasks, tmp_path) -> None:
    assert _check(str(two_tasks[0]), "--resume").exit_code == 2
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    result = _check(str(two_tasks[0]), "--out", str(bad), "--resume")
    assert result.exit_code == 2 and "cannot resume" in _flat(result.output)


def test_only_passing_results_of_the_same_files_gpu_and_version_are_reused(two_tasks) -> None:
    task = load_task(two_tasks[0])
    row = {
        "task_id": task.id,
        "task_hash": task.content_hash(),
        "on_gpu": False,
        "gpu_name": "",
        "regrapht_version": regrapht.__version__,
        "ok": True,
    }
    assert reusable_results([row], [task], gpu=False) == {task.id: row}
    assert reusable_results([row], [task], gpu=True, gpu_name="NVIDIA H200") == {}
    on_h200 = row | {"on_gpu": True, "gpu_name": "NVIDIA H200"}
    assert reusable_results([on_h200], [task], gpu=True, gpu_name="NVIDIA H200") == {task.id: on_h200}
    assert reusable_results([on_h200], [task], gpu=True, gpu_name="NVIDIA H100 80GB HBM3") == {}
    assert reusable_results([row | {"ok": False}], [task], gpu=False) == {}  # failures are redone
    assert reusable_results([row | {"task_hash": "0" * 16}], [task], gpu=False) == {}
    assert reusable_results([row | {"regrapht_version": "0.0.0"}], [task], gpu=False) == {}
    assert reusable_results([{"task_id": task.id}, "junk"], [task], gpu=False) == {}
