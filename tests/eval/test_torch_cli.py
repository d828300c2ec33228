"""`regrapht eval` and `regrapht tasks` on torch tasks, as a user meets them (cpu target)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from regrapht.cli import app

pytest.importorskip("torch")

runner = CliRunner()
HOSTILE = Path(__file__).parent / "hostile_torch"


def test_eval_torch_task_json() -> None:
    result = runner.invoke(
        app, ["eval", "relu", str(HOSTILE / "plain_torch_relu.py"), "--target", "cpu", "--no-timing", "--seeds", "1", "--json"]
    )
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["status"] == "correct" and record["task_id"] == "relu" and record["target"] == "cpu"
    assert any("aten::clamp_min" in note for note in record["integrity"])


def test_eval_rejects_unknown_baseline() -> None:
    result = runner.invoke(
        app, ["eval", "relu", str(HOSTILE / "plain_torch_relu.py"), "--target", "cpu", "--baselines", "eager,turbo"]
    )
    assert result.exit_code == 2
    assert "unknown baseline(s) turbo" in " ".join(result.output.split())


def test_tasks_list_and_show_torch() -> None:
    listed = runner.invoke(app, ["tasks", "list", "--kind", "torch", "--json"])
    assert listed.exit_code == 0, listed.output
    ids = {t["id"] for t in json.loads(listed.stdout)}
    assert {"relu", "matmul", "softmax"} <= ids
    shown = runner.invoke(app, ["tasks", "show", "matmul", "--json"])
    assert shown.exit_code == 0, shown.output
    data = json.loads(shown.stdout)
    assert data["kind"] == "torch" and "class Model" in data["reference"]


def test_tasks_check_torch_task_on_cpu() -> None:
    result = runner.invoke(app, ["tasks", "check", "relu", "--no-gpu", "--json"])
    assert result.exit_code == 0, result.output
    (row,) = json.loads(result.stdout)
    assert row["ok"] and row["target"] == "cpu", row


def test_tasks_check_flags_a_nondeterministic_reference(tmp_path: Path) -> None:
    import shutil

    from regrapht.tasks.torch_task import builtin_torch_root

    folder = tmp_path / "noisy"
    shutil.copytree(builtin_torch_root() / "examples" / "relu", folder)
    reference = folder / "reference.py"
    # The forward draws noise: same inputs and seed, different outputs.
    reference.write_text(reference.read_text().replace("return torch.relu(x)", "return torch.relu(x + torch.rand(1).item())"))
    result = runner.invoke(app, ["tasks", "check", str(folder), "--no-gpu", "--json"])
    assert result.exit_code == 1, result.output
    (row,) = json.loads(result.stdout)
    assert any("different outputs on the same inputs" in p for p in row["problems"]), row
