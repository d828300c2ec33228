"""`regrapht eval` as a user meets it: unreadable candidates, and the footer naming the tools used."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from regrapht.cli import app
from regrapht.eval.record import Evaluation

runner = CliRunner()


def test_a_binary_candidate_is_a_usage_error(tmp_path: Path) -> None:
    binary = tmp_path / "a.out.cpp"
    binary.write_bytes(b"\x7fELF\x02\x01\x01\x00" + bytes(range(128, 256)))
    result = runner.invoke(app, ["eval", "saxpy", str(binary), "--target", "cpu", "--no-timing"])
    assert result.exit_code == 2, result.output
    said = " ".join(result.output.split())
    assert "is not UTF-8 text (byte 0x80 at offset 8)" in said
    assert isinstance(result.exception, SystemExit)  # a clean exit, not an exception


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is needed")
def test_cpu_footer_names_no_nvcc(tmp_path: Path) -> None:
    from regrapht.tasks import builtin_tasks_root

    candidate = builtin_tasks_root() / "examples" / "saxpy" / "candidates" / "correct_omp.cpp"
    result = runner.invoke(
        app, ["eval", "saxpy", str(candidate), "--target", "cpu", "--no-timing", "--seeds", "1"]
    )
    assert result.exit_code == 0, result.output
    assert "None" not in result.output and "nvcc" not in result.output
    assert "g++" in result.output


def test_cuda_footer_says_when_nvcc_is_missing() -> None:
    from regrapht.cli.eval_cmd import footer

    ev = Evaluation("t", "cuda", "compile_error", "", "0" * 64)
    ev.fingerprint = {"gpu": "NVIDIA H100", "nvcc": None, "gxx": "g++ 12", "regrapht": "0.1.0"}
    assert footer(ev) == "NVIDIA H100 | nvcc not found | g++ 12 | regrapht 0.1.0"
    ev.fingerprint["nvcc"] = "13.0.88"
    assert "nvcc 13.0.88" in footer(ev)
