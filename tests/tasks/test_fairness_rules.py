"""Baseline fairness in `tasks check`: a naive.cu slower than the serial reference, or whose largest
launch cannot fill the GPU, fails unless task.toml's [waivers] says why; and the launch probe that
measures the launches binds a candidate's `<<<>>>` to itself."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from regrapht.eval.suitecheck import FILL_THREADS_PER_SM, fairness_problems
from regrapht.tasks import TaskError, load_task

TASKS = Path(__file__).resolve().parents[1] / "search" / "tasks"
SMS = 132


def _task(tmp_path: Path, waivers: str = ""):
    folder = shutil.copytree(TASKS / "axpy_small", tmp_path / "axpy_small")
    if waivers:
        toml = folder / "task.toml"
        toml.write_text(toml.read_text() + "\n[waivers]\n" + waivers)
    return load_task(folder)


def _launch(blocks: int, threads_per_block: int = 256) -> dict[str, int]:
    return {"launches": 3, "max_blocks": blocks, "max_threads": blocks * threads_per_block, "sms": SMS}


def test_a_naive_slower_than_serial_fails(tmp_path: Path) -> None:
    task = _task(tmp_path)
    problems = fairness_problems(task, {"serial_ms": 95.2, "naive_ms": 866.6})
    assert len(problems) == 1 and "slower than the serial reference (95.2 ms)" in problems[0]
    assert fairness_problems(task, {"serial_ms": 95.2, "naive_ms": 2.1}) == []
    assert fairness_problems(task, {"serial_ms": 95.2}) == []  # naive not measured: nothing to judge


def test_a_grid_that_cannot_fill_the_gpu_fails(tmp_path: Path) -> None:
    task = _task(tmp_path)
    # column_stats' old naive.cu: one block of 64 threads for its 64 columns
    problems = fairness_problems(task, {"naive_launch": _launch(1, 64)})
    assert len(problems) == 1 and f"fill the GPU's {SMS} multiprocessors" in problems[0]
    # a block per SM, but one warp each: three of its four schedulers idle
    assert fairness_problems(task, {"naive_launch": _launch(SMS, 32)})
    # many threads in too few blocks leave multiprocessors without work
    assert fairness_problems(task, {"naive_launch": _launch(SMS - 1, 1024)})
    assert fairness_problems(task, {"naive_launch": _launch(SMS, FILL_THREADS_PER_SM)}) == []
    assert fairness_problems(task, {"naive_launch": _launch(4096)}) == []


def test_waivers_excuse_their_rule_only(tmp_path: Path) -> None:
    task = _task(tmp_path, 'naive_slower_than_serial = "the task is one long dependency chain"\n')
    assert task.waiver("naive_slower_than_serial") == "the task is one long dependency chain"
    assert fairness_problems(task, {"serial_ms": 1.0, "naive_ms": 5.0}) == []
    problems = fairness_problems(task, {"serial_ms": 1.0, "naive_ms": 5.0, "naive_launch": _launch(2)})
    assert len(problems) == 1 and "naive_underfills_gpu" in problems[0]


@pytest.mark.parametrize(
    ("waivers", "message"),
    [
        ('naive_is_slow = "because"\n', "waivers.naive_is_slow: unknown waiver"),
        ('naive_underfills_gpu = "  "\n', "waivers.naive_underfills_gpu: must say why"),
        ("naive_underfills_gpu = 3\n", "waivers.naive_underfills_gpu: must say why"),
    ],
)
def test_a_waiver_must_be_known_and_say_why(tmp_path: Path, waivers: str, message: str) -> None:
    with pytest.raises(TaskError, match=message):
        _task(tmp_path, waivers)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc builds the probe and the naive library")
def test_the_probe_takes_the_launches_of_a_naive_library(tmp_path: Path) -> None:
    """No GPU needed: the dynamic linker's bindings show a candidate's launch stub calling the probe."""
    from regrapht.eval import toolchain
    from regrapht.eval.compile import Compiler
    from regrapht.eval.evaluator import _params
    from regrapht.eval.launch_probe import build_probe

    libcudart = toolchain.libcudart_path()
    if libcudart is None:
        pytest.skip("no CUDA runtime library")
    task = load_task(Path(__file__).resolve().parents[2] / "src/regrapht/data/tasks/examples/saxpy")
    built = Compiler(tmp_path / "build").compile(
        task.naive_source() or "", "cuda", task.function, _params(task), [a.name for a in task.args]
    )
    assert built.ok and built.library, built.diagnostics
    probe = build_probe(tmp_path / "build")
    script = (
        "import ctypes, os, sys\n"
        "ctypes.CDLL(sys.argv[1], mode=os.RTLD_NOW | ctypes.RTLD_GLOBAL)\n"
        "ctypes.CDLL(sys.argv[2], mode=os.RTLD_NOW | ctypes.RTLD_GLOBAL)\n"
        "ctypes.CDLL(sys.argv[3], mode=os.RTLD_NOW | os.RTLD_LOCAL)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(probe), str(libcudart), built.library],
        capture_output=True,
        text=True,
        env=os.environ | {"LD_DEBUG": "bindings"},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    bound = [line for line in done.stderr.splitlines() if "`__cudaLaunchKernel'" in line and built.library in line]
    assert bound and all(str(probe) in line for line in bound), bound or done.stderr[-2000:]


@pytest.mark.gpu
def test_the_probe_counts_a_naive_launch_on_the_gpu(tmp_path: Path) -> None:
    import numpy as np

    from regrapht.eval.compile import Compiler
    from regrapht.eval.evaluator import _params
    from regrapht.eval.launch_probe import probe_launches
    from regrapht.eval.reference import write_case
    from regrapht.tasks.inputs import make_inputs

    task = load_task(Path(__file__).resolve().parents[2] / "src/regrapht/data/tasks/examples/saxpy")
    sizes = {"n": 100_003}
    case = write_case(task, tmp_path / "case", "probe", sizes, 0, make_inputs(task, sizes, np.random.default_rng(1)))
    built = Compiler(tmp_path / "build").compile(
        task.naive_source() or "", "cuda", task.function, _params(task), [a.name for a in task.args]
    )
    assert built.ok and built.library, built.diagnostics
    stats = probe_launches(task, built.library, case.dir, sizes)
    assert stats.launches >= 1 and stats.sms > 0
    assert stats.max_threads >= sizes["n"] and stats.max_blocks * 1024 >= sizes["n"]


def test_the_launch_probe_waits_for_a_multiple_of_the_measured_call_not_five_minutes():
    from regrapht.eval.suitecheck import PROBE_CEILING_S, PROBE_FLOOR_S, probe_timeout_s

    assert probe_timeout_s({}) == PROBE_CEILING_S  # nothing measured: the old bound
    assert probe_timeout_s({"naive_ms": 5.0}) == PROBE_FLOOR_S + 0.5
    assert probe_timeout_s({"naive_ms": 900.0}) == PROBE_FLOOR_S + 90.0
    assert probe_timeout_s({"naive_ms": 60_000.0}) == PROBE_CEILING_S
