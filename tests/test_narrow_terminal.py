"""What the commands print in an 80-column terminal: nothing cut with "…", no line wider than the
terminal, task ids and method names whole, and code wrapped rather than cropped."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from regrapht.cli import app
from regrapht.tasks import load_suite

runner = CliRunner()
WIDTH = 80
NARROW = {"COLUMNS": str(WIDTH)}
KERNELS = Path(__file__).parent / "graph" / "kernels"


def _run(args: list[str]) -> str:
    result = runner.invoke(app, args, env=NARROW)
    assert result.exit_code == 0, result.output
    return result.output


def _fits(text: str) -> None:
    assert "…" not in text, text
    too_wide = [line for line in text.splitlines() if len(line) > WIDTH]
    assert not too_wide, "\n".join(too_wide)


def test_tasks_list_shows_every_id_whole() -> None:
    text = _run(["tasks", "list"])
    _fits(text)
    words = {w for line in text.splitlines() for w in line.split()}
    missing = [t.id for t in load_suite() if t.id not in words]
    assert not missing, missing


def test_tasks_show_wraps_long_code_lines() -> None:
    task = max(load_suite(), key=lambda t: max(len(line) for line in t.serial_source().splitlines()))
    assert max(len(line) for line in task.serial_source().splitlines()) > WIDTH  # the case this tests
    text = _run(["tasks", "show", task.id])
    assert all(len(line) <= WIDTH for line in text.splitlines())
    shown = "".join(text.split())  # the code, with wrapping and line numbers' spacing removed
    for line in task.serial_source().splitlines():
        assert "".join(line.split()) in shown, line


def test_doctor_fits_and_gives_each_fix_whole_on_one_line() -> None:
    from regrapht import doctor

    text = _run(["doctor"])
    table, _, fixes = text.partition("to fix:")
    _fits(table)
    lines = [line.strip() for line in fixes.splitlines()]
    for check in doctor.run_checks():
        if not check.ok and check.fix:
            assert f"{check.name}: {check.fix}" in lines, fixes  # copyable: not folded into a column


def test_graph_stats_and_advise_fit() -> None:
    _fits(_run(["graph", "stats", "--target", "cpu"]))
    _fits(_run(["graph", "stats", "--target", "cuda"]))
    text = _run(["advise", str(KERNELS / "omp_privatized_histogram.cpp"), "--target", "cpu", "--examples", "0"])
    _fits(text)


def test_eval_timing_table_fits() -> None:
    from rich.console import Console

    from regrapht.cli.eval_cmd import print_evaluation
    from regrapht.eval.record import Evaluation

    ev = Evaluation("sparse_matrix_vector_product", "cuda", "correct", "", "0" * 64, reward=2.0)
    timing = {"median_s": 1.234e-3, "iqr_s": 5e-5, "n": 120}
    ev.timings = {"candidate": timing, "serial": timing, "naive": timing}
    ev.speedups = {b: {"value": 12.5, "ci_low": 11.9, "ci_high": 13.1} for b in ("serial", "naive")}
    ev.fingerprint = {"gpu": "NVIDIA H100 80GB HBM3", "nvcc": "13.0.88", "gxx": "g++ 12.2.0", "regrapht": "0.1.0"}
    console = Console(record=True, width=WIDTH)
    print_evaluation(console, ev)
    text = console.export_text()
    _fits(text)
    for header in ("median ms", "IQR ms", "calls", "95% CI"):
        assert header in text
