"""--gpus, --lanes and --ray as a user meets them: lists that name nothing usable stop the command
with the reason before it opens or writes anything; CPU lanes run a bench whose records name them."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from regrapht.cli import app

runner = CliRunner()
CORRECT_OMP = Path(__file__).resolve().parents[2] / "src/regrapht/data/tasks/examples/saxpy/candidates/correct_omp.cpp"


def _said(result) -> str:
    return " ".join(result.output.split())


def test_gpus_on_the_cpu_target_is_a_usage_error():
    result = runner.invoke(app, ["eval", "saxpy", str(CORRECT_OMP), "--target", "cpu", "--gpus", "0"])
    assert result.exit_code == 2, result.output
    assert "--gpus applies to --target cuda; on the cpu target give --lanes N" in _said(result)


def test_gpus_and_ray_together_stop_bench_before_its_store_is_made(tmp_path: Path):
    out = tmp_path / "bench"
    result = runner.invoke(
        app, ["bench", "-m", "offline", "-t", "cpu", "-o", str(out), "--gpus", "0", "--ray", "auto"]
    )
    assert result.exit_code == 2, result.output
    assert "--gpus and --ray exclude each other" in _said(result)
    assert not (out / "bench.sqlite").exists()


def test_a_check_off_the_gpu_refuses_gpus():
    result = runner.invoke(app, ["tasks", "check", "saxpy", "--no-gpu", "--gpus", "0"])
    assert result.exit_code == 2, result.output
    assert "--gpus needs a check on the GPU" in _said(result)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed")
def test_bench_on_two_cpu_lanes_records_each_lane(tmp_path: Path):
    out = tmp_path / "bench"
    result = runner.invoke(
        app,
        ["bench", "-m", "offline", "-t", "cpu", "--split", "example", "-s", "walk", "--tasks", "saxpy,spmv_csr",
         "-b", "2", "--eval-budget", "0.05", "-o", str(out), "--lanes", "2"],
    )
    assert result.exit_code == 0, result.output
    with sqlite3.connect(out / "bench.sqlite") as db:
        records = [json.loads(r) for (r,) in db.execute("SELECT record_json FROM search_evaluations")]
    lanes = {r["task_id"]: r["fingerprint"]["lane"] for r in records}
    assert sorted(set(lanes.values())) == ["cpu0", "cpu1"]  # a task per lane
