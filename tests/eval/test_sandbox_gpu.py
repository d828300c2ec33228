"""The OS sandbox and the symbol screen on the cuda target, on a real GPU.

Run on the GPU machine: pytest -m gpu tests/eval/test_sandbox_gpu.py
"""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht.eval import Evaluator
from tests.eval.conftest import candidate, quick_config

pytestmark = pytest.mark.gpu


def cu(name: str) -> str:
    return candidate(name, "hostile_cuda")


@pytest.fixture(scope="module")
def confined_gpu(build_cache):
    with Evaluator(quick_config(build_cache, call_timeout_s=15.0, require_sandbox=True)) as ev:
        yield ev


@pytest.fixture(scope="module")
def confined_unscreened_gpu(build_cache):
    """Both screens off and the sandbox required: what stops a candidate here is the kernel."""
    config = quick_config(
        build_cache, call_timeout_s=15.0, static_screen=False, symbol_screen=False, require_sandbox=True
    )
    with Evaluator(config) as ev:
        yield ev


def test_honest_kernels_run_correct_under_the_sandbox(confined_gpu, vec_scale):
    # Three in a row: the first in a fresh worker, the later ones in spare workers (started ahead,
    # their CUDA context open before the job came), each confined after its own setup.
    for name in ("correct.cu", "honest_stream.cu", "correct.cu"):
        ev = confined_gpu.evaluate(vec_scale, cu(name), "cuda")
        assert ev.status == "correct", ev.message
        assert ev.sandbox["landlock"] and ev.sandbox["seccomp"] is True and ev.sandbox["reason"] is None
        # CUDA IPC from the confined worker still works: the parent judged timed outputs in place.
        assert ev.timings["candidate"]["judged_on_device"] is True
        assert "naive" in ev.speedups
        assert 0 < ev.seconds["sandbox"] < 1.0


@pytest.mark.parametrize(
    ("name", "rule", "symbol"),
    [
        ("qualified_fopen.cu", "symbols:files", "fopen"),
        ("parenthesized_quick_exit.cu", "symbols:processes", "quick_exit"),
        ("parenthesized_clock.cu", "symbols:timers", "clock_gettime"),
        ("pasted_fopen.cu", "symbols:files", "fopen"),
        ("host_callback.cu", "symbols:host_callbacks", "cudaLaunchHostFunc"),
    ],
)
def test_source_screen_bypasses_are_caught_by_the_symbol_screen(confined_gpu, vec_scale, name, rule, symbol):
    ev = confined_gpu.evaluate(vec_scale, cu(name), "cuda")
    assert ev.status == "integrity_violation", ev.message
    assert f"`{symbol}`" in ev.message and rule in ev.message
    assert not ev.cases  # never ran


def test_a_parenthesized_exit_is_caught_by_the_dynamic_checks(confined_gpu, vec_scale):
    # nvcc's host copies of __device__ functions import exit, so the symbol screen leaves it on cuda.
    ev = confined_gpu.evaluate(vec_scale, cu("parenthesized_exit.cu"), "cuda")
    assert ev.status == "runtime_error", ev.message
    assert "called exit or similar" in ev.message


def test_a_cuda_candidate_cannot_leave_a_file_outside_its_scratch(build_cache, vec_scale, tmp_path: Path, monkeypatch):
    escape, cwd = tmp_path / "escape.txt", tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    # Set before the evaluator starts any worker (a spare started earlier would not see it).
    monkeypatch.setenv("REGRAPHT_TEST_ESCAPE", str(escape))
    config = quick_config(
        build_cache, call_timeout_s=15.0, static_screen=False, symbol_screen=False, require_sandbox=True
    )
    with Evaluator(config) as evaluator:
        for _ in range(2):  # a fresh worker, then a spare
            ev = evaluator.evaluate(vec_scale, cu("writes_outside_scratch.cu"), "cuda")
            assert ev.status == "correct", ev.message  # its writes failed; its kernel is right
            assert not escape.exists() and list(cwd.iterdir()) == []
            assert not list(evaluator.workdir.glob("job*"))


def test_a_cuda_candidate_gets_no_socket(confined_unscreened_gpu, vec_scale):
    # It scales by -a when it got a socket: correct means the socket was refused.
    ev = confined_unscreened_gpu.evaluate(vec_scale, cu("opens_socket.cu"), "cuda")
    assert ev.status == "correct", ev.message


def test_a_cuda_candidate_that_forks_is_stopped(confined_unscreened_gpu, vec_scale):
    ev = confined_unscreened_gpu.evaluate(vec_scale, cu("forks.cu"), "cuda")
    assert ev.status == "integrity_violation", ev.message
    assert "the sandbox stopped the process" in ev.message
