"""`regrapht report` pointed at what a user has: bench folders, an optimize folder, a parent folder,
nothing; and where the comparison page goes without --out."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from regrapht.bench import run_bench
from regrapht.bench.runner import write_bench
from regrapht.cli import app
from regrapht.graph.model import INITIAL
from regrapht.search import Budget, OfflinePolicy, SearchJob, make_strategy, run_searches
from regrapht.search.folder import write_optimize_folder

from .conftest import FakeEvaluator, offline_meta, synthetic_graph

runner = CliRunner()
STEPS = [(INITIAL, "p", "serial", "P"), ("p", "a", "P", "PA")]
TABLE = {"P": ("correct", 1.5), "PA": ("correct", 2.0)}


def _said(result) -> str:
    return " ".join(result.output.split())


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, axpy) -> Path:
    """runs/opt (an optimize folder), runs/greedy and runs/walk (bench folders)."""
    root = tmp_path_factory.mktemp("runs")
    graph = synthetic_graph(axpy, STEPS)
    policy = OfflinePolicy(graph)
    common = dict(model=policy, model_meta=offline_meta(policy), evals=FakeEvaluator(TABLE), graph=graph, target="cpu")
    [result] = run_searches([SearchJob(axpy, 0)], strategy=make_strategy("mcgs"), budget=Budget(4), **common)
    write_optimize_folder(root / "opt", result, {}, "offline")
    for name in ("greedy", "walk"):
        results, done = run_bench(
            [axpy], strategy=make_strategy(name), budget=Budget(2), samples=1, seed=0, ks=(1,), split="train", **common
        )
        write_bench(root / name, results, done)
    return root


def test_an_optimize_folder_gets_its_page_rendered_again(runs: Path) -> None:
    page = runs / "opt" / "report.html"
    page.unlink()
    result = runner.invoke(app, ["report", str(runs / "opt")])
    assert result.exit_code == 0, result.output
    assert "is an optimize run" in _said(result) and str(page) in _said(result)
    assert "regrapht optimize: axpy_small" in page.read_text()
    assert "Errno" not in result.output


def test_an_optimize_folder_among_bench_runs_is_explained(runs: Path) -> None:
    result = runner.invoke(app, ["report", str(runs / "greedy"), str(runs / "opt")])
    assert result.exit_code == 2
    said = _said(result)
    assert "is an optimize run (result.json), not a bench run" in said and "Errno" not in said
    assert str(runs / "opt" / "report.html") in said


def test_folders_that_are_not_runs_are_explained(runs: Path) -> None:
    parent = runner.invoke(app, ["report", str(runs)])
    assert parent.exit_code == 2
    said = _said(parent)
    assert "holds no results.json" in said and str(runs / "greedy") in said and "Errno" not in said
    missing = runner.invoke(app, ["report", str(runs / "nope")])
    assert missing.exit_code == 2 and "no such folder" in _said(missing)


def test_the_comparison_goes_beside_the_runs_not_into_the_working_folder(
    runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["report", str(runs / "greedy"), str(runs / "walk")])
    assert result.exit_code == 0, result.output
    page = runs / "compare.html"
    assert page.is_file() and f"wrote {page}" in _said(result)
    assert not (tmp_path / "compare.html").exists() and os.listdir(tmp_path) == []
    assert json.loads((runs / "greedy" / "results.json").read_text())["config"]["strategy"] == "greedy"
