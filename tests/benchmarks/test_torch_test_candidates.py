"""benchmarks/torch_candidates_test: one candidate for every torch test task, a folder
`regrapht bench --kind torch --candidates` accepts, and (where Triton is installed) every candidate
correct at every test size under Triton's interpreter (benchmarks/check_torch_candidates.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from regrapht.bench.candidates import find_candidates
from regrapht.tasks import load_torch_suite

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "benchmarks" / "torch_candidates_test"


def test_every_test_task_has_exactly_one_candidate_and_nothing_strays() -> None:
    suite = load_torch_suite(split="test")
    found = find_candidates(suite, FOLDER)  # raises on a file naming no test task
    assert set(found) == {t.id for t in suite}
    assert all(len(files) == 1 and files[0].suffix == ".py" for files in found.values())


@pytest.mark.parametrize("task_id", ["argmax_rows", "logcumsumexp_rows", "mha_self_attention"])
def test_candidate_correct_under_the_triton_interpreter(task_id: str) -> None:
    pytest.importorskip("triton")
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "check_torch_candidates.py"), task_id],
                          capture_output=True, text=True, env=env, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"ok   {task_id}" in done.stdout
