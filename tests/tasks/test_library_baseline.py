"""library.cu: a task's vendor-library baseline, compiled and checked like naive.cu and timed beside
cuda candidates (tasks/model.py, eval/evaluator.py, eval/suitecheck.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from regrapht.eval import EvalConfig, Evaluator
from regrapht.eval.suitecheck import check_tasks
from regrapht.tasks import find_task, load_task

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="needs nvcc")


def _saxpy_with(tmp_path: Path, library: str | None) -> Path:
    root = tmp_path / "saxpy"
    shutil.copytree(find_task("saxpy").root, root)
    (root / "library.cu").unlink(missing_ok=True)
    if library is not None:
        (root / "library.cu").write_text(library)
    return root


def test_the_task_knows_its_library_baseline(tmp_path):
    assert load_task(_saxpy_with(tmp_path, None)).library_path is None
    task = load_task(_saxpy_with(tmp_path / "b", "// cuBLAS saxpy\n"))
    assert task.library_path is not None and task.summary()["has_library"] is True
    assert task.library_source() == "// cuBLAS saxpy\n"


@needs_nvcc
def test_a_library_baseline_that_does_not_build_fails_tasks_check(tmp_path):
    task = load_task(_saxpy_with(tmp_path, "void saxpy(int n, float a, const float* x, float* y) { this is not C++ }\n"))
    [result] = check_tasks([task], gpu=False, config=EvalConfig(timing=False, cache_dir=str(tmp_path / "cache")))
    assert not result.ok
    assert any("library.cu does not compile with nvcc" in problem for problem in result.problems)


@needs_nvcc
def test_cuda_candidates_are_compiled_with_the_library_baseline_beside_them(tmp_path):
    library = (find_task("saxpy").root / "naive.cu").read_text() + "// the library stands in here\n"
    task = load_task(_saxpy_with(tmp_path, library))
    with Evaluator(EvalConfig(timing=False, cache_dir=str(tmp_path / "cache"))) as evaluator:
        prepared = evaluator.prepare(task, task.naive_source() or "", "cuda", {})
        assert set(prepared.baselines) >= {"naive", "library"}
    off = EvalConfig(timing=False, cache_dir=str(tmp_path / "cache"), compare_library=False)
    with Evaluator(off) as evaluator:
        assert "library" not in evaluator.prepare(task, task.naive_source() or "", "cuda", {}).baselines


def test_a_toolkit_without_the_library_is_told_apart_from_a_broken_baseline():
    from regrapht.eval.suitecheck import _missing_library_header

    missing = "candidate.cu:4:10: fatal error: cublas_v2.h: No such file or directory\n compilation terminated."
    assert _missing_library_header(missing) == "cublas_v2.h"
    assert _missing_library_header("fatal error: cub/device/device_scan.cuh: No such file or directory") is not None
    assert _missing_library_header("fatal error: my_helpers.h: No such file or directory") is None
    assert _missing_library_header("candidate.cu(3): error: expected a ';'") is None


@needs_nvcc
def test_library_cu_judged_as_a_candidate_is_not_timed_against_itself(tmp_path):
    naive = (find_task("saxpy").root / "naive.cu").read_text()
    task = load_task(_saxpy_with(tmp_path, naive + "// the library's copy\n"))
    with Evaluator(EvalConfig(timing=False, cache_dir=str(tmp_path / "cache"))) as evaluator:
        assert "library" not in evaluator.prepare(task, task.library_source() or "", "cuda", {}).baselines
