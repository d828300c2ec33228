"""A model that cannot be opened stops `optimize` and `bench` before they leave anything behind."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from regrapht.cli import app

from .conftest import TASKS

runner = CliRunner()
FAST = ["--target", "cpu", "--eval-budget", "0.2", "--eval-seeds", "1", "--tasks-root", str(TASKS)]


@pytest.mark.parametrize(
    "spec,phrase",
    [
        ("bogus:thing", "unknown backend"),
        ("qwen", "no backend prefix"),
        ("offline:no_such_graph.json", "names no graph file"),
        ("hf:/no/such/model/folder", "not a model folder"),  # a well-formed spec that cannot be opened
    ],
)
def test_a_bad_model_spec_creates_no_run_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spec: str, phrase: str
) -> None:
    monkeypatch.chdir(tmp_path)
    optimize = runner.invoke(app, ["optimize", "axpy_small", "--model", spec, "--strategy", "standard", *FAST])
    assert optimize.exit_code == 2 and phrase in " ".join(optimize.output.split()), optimize.output
    bench = runner.invoke(
        app, ["bench", "--split", "train", "--model", spec, "--strategy", "standard", "--out", "b", *FAST]
    )
    assert bench.exit_code == 2 and phrase in " ".join(bench.output.split()), bench.output
    assert list(tmp_path.iterdir()) == []  # no regrapht-runs/, no b/, no .sqlite


def test_an_existing_store_is_kept_when_the_model_fails(tmp_path: Path) -> None:
    store = tmp_path / "kept.sqlite"
    store.write_bytes(b"")
    result = runner.invoke(
        app,
        ["optimize", "axpy_small", "--model", "hf:/no/such/model", "--strategy", "standard", "--store", str(store),
         "--out", str(tmp_path / "out"), *FAST],
    )  # fmt: skip
    assert result.exit_code == 2 and store.exists()
