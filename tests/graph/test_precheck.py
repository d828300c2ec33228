"""`regrapht graph check`: trajectory files checked before a build, without a GPU (cpu target here,
so g++ compiles; the cuda target runs the same code with nvcc)."""

from __future__ import annotations

import json
import shutil

import pytest

from regrapht.eval.compile import Compiler
from regrapht.graph.precheck import precheck

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")

GOOD = """void saxpy(int n, float a, const float* x, float* y) {
#pragma omp parallel for
    for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}
"""
BROKEN = GOOD.replace("y[i] = a", "y[i] = undeclared_name * a")


def line(task: str, *steps: tuple[str, str]) -> str:
    return json.dumps(
        {
            "task": task,
            "target": "cpu",
            "start": "serial",
            "steps": [{"think": "t", "method": m, "detail": "d", "code": c} for m, c in steps],
        }
    )


def test_reports_each_problem_with_its_line_and_step(tmp_path) -> None:
    path = tmp_path / "saxpy.jsonl"
    path.write_text(
        "\n".join(
            [
                line("saxpy", ("parallelize", GOOD)),
                line("saxpy", ("parallelize", GOOD), ("simd vectorisaton", BROKEN)),
                '{"task": "saxpy", "steps": [',
                line("no_such_task", ("parallelize", GOOD)),
            ]
        )
        + "\n"
    )
    report = precheck([path], "cpu", compiler=Compiler(cache_dir=tmp_path / "cache", jobs=1))
    found = {(p.line, p.step, p.kind) for p in report.problems}
    assert found == {(2, 1, "method"), (2, 1, "compile"), (3, None, "format"), (4, None, "task")}
    compile_problem = next(p for p in report.problems if p.kind == "compile")
    assert "undeclared_name" in compile_problem.message
    assert report.trajectories == 3 and report.compiled == 2  # GOOD once (same task and code), BROKEN once
    assert not report.ok


def test_steps_the_graph_measured_are_not_compiled_again(tmp_path) -> None:
    path = tmp_path / "saxpy.jsonl"
    path.write_text(line("saxpy", ("parallelize", GOOD)) + "\n")
    report = precheck(
        [path], "cpu", known={("saxpy", GOOD)}, compiler=Compiler(cache_dir=tmp_path / "cache", jobs=1)
    )
    assert report.ok and report.compiled == 0 and report.known == 1


def test_cli_exits_1_and_names_the_problem(tmp_path) -> None:
    from typer.testing import CliRunner

    from regrapht.cli import app

    path = tmp_path / "saxpy.jsonl"
    path.write_text(line("saxpy", ("paralelize", GOOD)) + "\n")
    # Wide enough for the tmp path: rich wraps (and elides) lines at the terminal width.
    r = CliRunner().invoke(app, ["graph", "check", "--target", "cpu", "--all", str(path)], env={"COLUMNS": "300"})
    assert r.exit_code == 1, r.output
    assert "step 0: method: 'paralelize' is no canonical cpu method" in r.output
    assert "1 trajectories, 1 steps: 1 compiled" in r.output


def test_a_file_that_is_not_utf8_is_a_format_problem_not_a_crash(tmp_path) -> None:
    path = tmp_path / "saxpy.jsonl"
    path.write_bytes(line("saxpy", ("parallelize", GOOD)).encode() + b"\n\xff\xfe not text\n")
    report = precheck([path], "cpu", compiler=Compiler(cache_dir=tmp_path / "cache", jobs=1))
    assert [(p.line, p.kind) for p in report.problems] == [(2, "format")]
    assert "not UTF-8 text" in report.problems[0].message and report.trajectories == 1
