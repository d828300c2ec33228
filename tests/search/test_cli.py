"""`regrapht optimize`, `regrapht bench` and `regrapht report` end to end on the cpu target, with the
offline policy and the real evaluator."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from regrapht.cli import app
from regrapht.graph.store import save_graph
from regrapht.search import OFFLINE_LABEL
from regrapht.store import RunStore

from .conftest import TASKS, needs_gxx

runner = CliRunner()
FAST = ["--eval-budget", "0.2", "--eval-seeds", "1", "--tasks-root", str(TASKS)]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory, graph_cpu) -> Path:
    d = tmp_path_factory.mktemp("cli")
    save_graph(graph_cpu, d / "cpu.json")
    return d


def evaluations_in(store: Path) -> int:
    with RunStore(store) as s:
        return int(s.query_one("SELECT COUNT(*) AS n FROM search_evaluations")["n"])


@needs_gxx
def test_optimize_writes_kernel_record_and_report_and_resumes(workdir: Path) -> None:
    out, store = workdir / "opt", workdir / "shared.sqlite"
    args = [
        "optimize",
        "axpy_small",
        "--model",
        "offline",
        "--target",
        "cpu",
        "--graph",
        str(workdir / "cpu.json"),
    ]
    args += ["--budget", "3", "--out", str(out), "--store", str(store), *FAST]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert (
        OFFLINE_LABEL in first.output
        and "best kernel" in first.output
        and "path: start -> parallelize" in first.output
    )
    record = json.loads((out / "result.json").read_text())
    assert record["label"] == OFFLINE_LABEL and record["model"]["offline"] is True
    assert record["strategy"] == "mcgs" and record["spent"]["generations"] == 3
    best = record["attempts"][record["best"]]
    assert (out / "best.cpp").read_text() == record["codes"][best["code_sha"]]
    [path_eval] = [record["evaluations"][best["eval_key"]]]
    assert path_eval["status"] == "correct" and path_eval["fingerprint"]["target"] == "cpu"
    page = (out / "report.html").read_text()
    assert OFFLINE_LABEL in page and 'data-chart="path"' in page and 'data-chart="rewards"' in page

    measured = evaluations_in(store)
    again = runner.invoke(app, [*args, "--json"])
    assert again.exit_code == 0, again.output
    replay = json.loads(again.stdout)
    assert replay["attempts"] == record["attempts"]  # the finished run, loaded from the store
    assert evaluations_in(store) == measured


@needs_gxx
def test_bench_and_report(workdir: Path) -> None:
    graph, store = str(workdir / "cpu.json"), str(workdir / "shared.sqlite")
    outs = []
    for strategy in ("greedy", "walk"):
        out = workdir / f"bench-{strategy}"
        result = runner.invoke(
            app,
            [
                "bench", "--split", "train", "--tasks", "axpy_small", "--strategy", strategy, "--model", "offline",
                "--samples", "2", "--budget", "2", "--target", "cpu", "--graph", graph, "--out", str(out),
                "--store", store, *FAST,
            ],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        assert OFFLINE_LABEL in result.output and "pass@1" in result.output
        data = json.loads((out / "results.json").read_text())
        assert data["offline"] and data["label"] == OFFLINE_LABEL and data["config"]["strategy"] == strategy
        assert data["metrics"]["overall"]["samples"] == 2 and data["metrics"]["ks"] == [1]
        assert [t["id"] for t in data["tasks"]] == ["axpy_small"]
        assert (out / "report.html").is_file() and len((out / "runs.jsonl").read_text().splitlines()) == 2
        outs.append(out)
    page = workdir / "cmp.html"
    shown = runner.invoke(app, ["report", *map(str, outs), "--out", str(page), "--names", "greedy,walk"])
    assert shown.exit_code == 0, shown.output
    assert "greedy" in shown.output and "walk" in shown.output and "pass@1" in shown.output
    html = page.read_text()
    assert html.count('class="metric"') > 10 and 'data-chart="compare_pass"' in html
    single = runner.invoke(app, ["report", str(outs[0])])
    assert single.exit_code == 0 and str(outs[0] / "report.html") in single.output


def test_usage_errors_say_what_to_do(workdir: Path) -> None:
    cases = [
        (["optimize", "axpy_small", "--model", "offline", "--target", "cpu", *FAST, "--graph", str(workdir / "none.json")], "no graph file"),
        (["optimize", "axpy_small", "--model", "offline", "--target", "cpu", "--strategy", "nope", *FAST], "unknown strategy"),
        (["optimize", "axpy_small", "--model", "offline", "--target", "cpu", "--param", "lam", *FAST], "NAME=VALUE"),
        (["optimize", "no_such_task", "--model", "offline", "--target", "cpu", *FAST], "no_such_task"),
        (["bench", "--split", "test", "--model", "openai:m@http://127.0.0.1:9/v1", "--target", "cpu", "--strategy", "standard", "--out", str(workdir / "x"), "--tasks", "nope", *FAST], "no test task"),
        (["optimize", "axpy_small", "--model", "openai:m@http://127.0.0.1:9/v1?max_retries=0", "--target", "cpu", "--strategy", "standard", "--out", str(workdir / "down"), *FAST], "run the same command again"),
    ]  # fmt: skip
    for args, phrase in cases:
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.output
        assert phrase in result.output, result.output


def test_cuda_without_a_gpu_is_refused_with_the_way_out(workdir: Path) -> None:
    from regrapht.eval import toolchain

    if toolchain.gpus():
        pytest.skip("this machine has a GPU")
    result = runner.invoke(app, ["optimize", "axpy_small", "--model", "offline", *FAST])
    assert result.exit_code == 2 and "--target cpu" in result.output


def test_the_param_examples_name_real_parameters() -> None:
    """The `--param` examples a newcomer copies (help text, the NAME=VALUE hint) must be accepted."""
    import re

    from regrapht.search import make_strategy

    shown = runner.invoke(app, ["optimize", "--help"], env={"COLUMNS": "200"}).output
    hint = runner.invoke(app, ["optimize", "axpy_small", "--model", "offline", "--target", "cpu", "--param", "c", *FAST]).output
    examples = re.findall(r"e\.g\.\s+(?:--param\s+)?(\w+)=(\w+)", shown + hint)
    assert len(examples) >= 2, shown + hint
    for name, value in examples:
        make_strategy("mcgs", **{name: value})  # raises on an unknown parameter
