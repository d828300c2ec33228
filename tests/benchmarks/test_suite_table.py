"""docs/suite.md's table from one command (benchmarks/suite_table.py): rows from task files and a
small `tasks check --out` results file, library fractions, stale results, measured tiers, and the
rewrite between the markers."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from regrapht.tasks import load_task
from tests.bench.test_tiers import _test_task

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from suite_table import BEGIN, END, TableError, main, replace_between_markers  # noqa: E402

AXPY = ROOT / "tests" / "search" / "tasks" / "axpy_small"


@pytest.fixture
def suite(tmp_path: Path) -> tuple[Path, Path]:
    """A two-task suite (a test task declared hard whose solution takes two steps, a train task) and a
    results file: the test task's result is current, the train task's was taken on other files."""
    root = tmp_path / "tasks"
    root.mkdir()
    hard = load_task(_test_task(root, "shrink_hard", "hard", "grid_stride_loop, loop_unrolling"))
    shutil.copytree(AXPY, root / "axpy_small")
    measured = {
        "serial_ms": 40.0,
        "naive_ms": 1.0,
        "library_ms": 0.5,
        "solution_ms": 0.25,
        "solution_speedup_over_serial": 160.0,
        "solution_speedup_over_naive": 4.0,
        "solution_fraction_of_library": 2.0,
        "naive_roofline": 0.2,
        "solution_roofline": 0.8,
        "naive_launch": {"launches": 1, "max_blocks": 1024, "max_threads": 262144, "sms": 132},
    }
    rows = [
        {"task_id": "shrink_hard", "ok": True, "problems": [], "measured": measured,
         "task_hash": hard.content_hash(), "gpu_name": "NVIDIA H100 80GB HBM3"},
        {"task_id": "axpy_small", "ok": True, "problems": [], "measured": {"serial_ms": 1.0, "naive_ms": 0.1},
         "task_hash": "an-older-version", "gpu_name": "NVIDIA H100 80GB HBM3"},
    ]  # fmt: skip
    results = tmp_path / "results.json"
    results.write_text(json.dumps(rows))
    return root, results


def _row(text: str, task_id: str) -> list[str]:
    [line] = [line for line in text.splitlines() if line.startswith(f"| {task_id} |")]
    return [cell.strip() for cell in line.strip("|").split("|")]


def test_the_table_carries_library_fractions_measured_tiers_and_stale_results(suite, tmp_path, capsys) -> None:
    root, results = suite
    assert main(["--root", str(root), str(results)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("2 tasks: 1 `test` (1 hard), 1 `train` (1 easy), in 1 categories; GPU results from NVIDIA H100")
    cells = _row(text, "shrink_hard")
    # serial, naive, library, best ms; best/serial, best/naive, naive/library, best/library
    assert cells[3:12] == ["pass", "40.0", "1.000", "0.500", "0.250", "160.0x", "4.00x", "0.50x", "2.00x"]
    assert cells[12:] == ["20%", "80%", "1024 blocks / 132 SMs", "easy (declared hard)"]
    assert _row(text, "axpy_small")[3] == "stale (changed since)"
    assert "- shrink_hard: declared hard, measured easy: solution.cu adds 2 steps over naive.cu" in text
    assert "best/naive 4.00x" in text  # the current result's headroom joins the tier


def test_write_replaces_only_what_lies_between_the_markers(suite, tmp_path) -> None:
    root, results = suite
    doc = tmp_path / "suite.md"
    doc.write_text(f"# Suite\n\nbefore\n\n{BEGIN}\nold table\n{END}\n\nafter\n")
    assert main(["--root", str(root), "--write", str(doc), str(results)]) == 0
    written = doc.read_text()
    assert written.startswith(f"# Suite\n\nbefore\n\n{BEGIN}\n\n2 tasks:") and written.endswith(f"{END}\n\nafter\n")
    assert "old table" not in written and "| shrink_hard | hard |" in written
    assert main(["--root", str(root), "--write", str(doc), str(results)]) == 0
    assert doc.read_text() == written  # a second run changes nothing


def test_missing_markers_and_bad_results_are_refused_with_the_reason(suite, tmp_path, capsys) -> None:
    root, results = suite
    with pytest.raises(TableError, match="needs the markers once each"):
        replace_between_markers("no markers here", "table")
    with pytest.raises(TableError, match="end marker comes before"):
        replace_between_markers(f"{END}\n{BEGIN}\n", "table")
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "a list"}')
    assert main(["--root", str(root), str(bad)]) == 2
    assert "expected the JSON list `regrapht tasks check --out` writes" in capsys.readouterr().err


def test_a_malformed_task_and_a_failed_row_without_problems_are_reported_not_raised(suite, tmp_path, capsys) -> None:
    root, results = suite
    rows = json.loads(results.read_text())
    rows[0]["ok"], rows[0]["problems"] = False, []  # a failed row that recorded no reason
    results.write_text(json.dumps(rows))
    assert main(["--root", str(root), str(results)]) == 0
    assert "FAIL: (no reason recorded)" in capsys.readouterr().out
    broken = root / "broken_task"
    broken.mkdir()
    (broken / "task.toml").write_text("id = [not toml")
    assert main(["--root", str(root), str(results)]) == 2
    assert capsys.readouterr().err.startswith("error: ")
