"""Task folders load when valid and fail with the file, the field and what is wrong when not."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from regrapht.tasks import TaskError, builtin_tasks_root, iter_task_dirs, load_task

SAXPY = builtin_tasks_root() / "examples" / "saxpy"


def test_every_shipped_task_loads():
    tasks = [load_task(d) for d in iter_task_dirs(builtin_tasks_root())]
    assert {t.id for t in tasks} >= {"saxpy", "sum_of_squares", "spmv_csr"}
    saxpy = next(t for t in tasks if t.id == "saxpy")
    assert [a.name for a in saxpy.args] == ["n", "a", "x", "y"]
    assert saxpy.arg("y").role == "inout" and saxpy.arg("y").tolerance.rtol == 1e-5
    assert saxpy.arg("x").c_type == "const float*"
    assert saxpy.naive_path is not None and saxpy.convention == "device"
    assert saxpy.io_bytes({"n": 10}) == 10 * 4 * 3  # x read, y read and written
    assert saxpy.floor_bytes({"n": 10}) == 120 and saxpy.floor_flops({"n": 10}) == 20


def _task_copy(tmp_path: Path, edit) -> Path:
    folder = tmp_path / "task"
    shutil.copytree(SAXPY, folder)
    toml = folder / "task.toml"
    toml.write_text(edit(toml.read_text()))
    return folder


BROKEN = [
    (lambda t: t.replace('id = "saxpy"', ""), "missing required field 'id'"),
    (
        lambda t: t.replace('difficulty = "easy"', 'difficulty = "trivial"'),
        "difficulty: 'trivial' is not one of",
    ),
    (lambda t: t.replace('split = "example"', 'split = "dev"'), "split: 'dev' is not one of"),
    (
        lambda t: t.replace(
            'dtype = "float32"\nlength = "n"\ngenerator = { kind = "normal"',
            'dtype = "float16"\nlength = "n"\ngenerator = { kind = "normal"',
        ),
        "unknown dtype 'float16'",
    ),
    (
        lambda t: t.replace(
            'length = "n"\ngenerator = { kind = "normal"', 'length = "n +"\ngenerator = { kind = "normal"'
        ),
        "args.x.length: cannot parse expression",
    ),
    (
        lambda t: t.replace(
            'length = "n"\ngenerator = { kind = "normal"', 'length = "m"\ngenerator = { kind = "normal"'
        ),
        "uses unknown size(s) m",
    ),
    (lambda t: t.replace('kind = "normal"', 'kind = "gaussian"'), "unknown generator 'gaussian'"),
    (lambda t: t.replace("float a, const float* x", "double a, const float* x"), "has C type 'double'"),
    (
        lambda t: t.replace("const float* x, float* y)", "const float* x, const float* y)"),
        "is const but the task writes it",
    ),
    (lambda t: t.replace("int n, float a,", "float a, int n,"), "must match args in order"),
    (lambda t: t.replace("void saxpy(", "void saxpy2("), "names function 'saxpy2'"),
    (
        lambda t: t.replace("bench = { n = 67108864 }", "bench = { m = 5 }"),
        "sizes.test[0]: names ['n'] differ",
    ),
    (
        lambda t: t.replace("tolerance = { rtol = 1e-5, atol = 1e-6 }", "tolerance = { rtol = -1.0 }"),
        "rtol and atol must be non-negative",
    ),
    (lambda t: t.replace("test = [{ n = 1 },", "test = [{ n = -1 },"), "expected a non-negative integer"),
    (
        lambda t: t.replace(
            "test = [{ n = 1 }, { n = 7 }, { n = 1000 }, { n = 4099 }, { n = 65537 }]", "test = [{ n = 1 }]"
        ),
        "give at least two test sizes",
    ),
    (lambda t: "flavour = 3\n" + t, "unknown field(s) flavour"),
    (lambda t: t + "\nbandwidth = 3\n", "roofline: unknown field(s) bandwidth"),
    (lambda t: t + '\ncompute = "fp4"\n', "roofline.compute: unknown unit 'fp4'"),
    (lambda t: t.replace('role = "inout"', 'role = "input"'), "only outputs and inouts are compared"),
    (
        lambda t: t.replace('role = "inout"', 'role = "input"').replace(
            "tolerance = { rtol = 1e-5, atol = 1e-6 }", ""
        ),
        "no output",
    ),
    (lambda t: t.replace("title =", "title = 5 #"), "title: expected str"),
    (lambda t: t.replace('id = "saxpy"', 'id = "sax py!"'), "may only use letters"),
    (lambda t: "this is = = not toml", "invalid TOML"),
]


@pytest.mark.parametrize(("edit", "message"), BROKEN)
def test_malformed_task_files_name_the_field(tmp_path, edit, message):
    folder = _task_copy(tmp_path, edit)
    with pytest.raises(TaskError) as info:
        load_task(folder)
    assert str(folder / "task.toml") in str(info.value) or "serial.cpp" in str(info.value)
    assert message in str(info.value)


def test_missing_files_are_reported(tmp_path):
    with pytest.raises(TaskError, match="no such directory"):
        load_task(tmp_path / "nope")
    (tmp_path / "empty").mkdir()
    with pytest.raises(TaskError, match="task.toml is missing"):
        load_task(tmp_path / "empty")
    folder = _task_copy(tmp_path, lambda t: t)
    (folder / "serial.cpp").unlink()
    with pytest.raises(TaskError, match="serial.cpp: missing"):
        load_task(folder)


def test_custom_generator_and_checker_must_exist(tmp_path):
    folder = _task_copy(
        tmp_path, lambda t: t.replace('kind = "normal", mean = 0.0, std = 1.0', 'kind = "custom"')
    )
    with pytest.raises(TaskError, match="gen.py: missing"):
        load_task(folder)
    folder2 = tmp_path / "t2"
    shutil.copytree(SAXPY, folder2)
    toml = folder2 / "task.toml"
    toml.write_text(
        toml.read_text().replace("tolerance = { rtol = 1e-5, atol = 1e-6 }", 'tolerance = "custom"')
    )
    with pytest.raises(TaskError, match="check.py: missing"):
        load_task(folder2)


def test_expressions_are_evaluated_at_every_size(tmp_path):
    folder = _task_copy(tmp_path, lambda t: t.replace('flops = "2*n"', 'flops = "2*n / 3"'))
    with pytest.raises(TaskError, match=r"roofline.flops: expression '2\*n / 3' may only use"):
        load_task(folder)
    folder2 = tmp_path / "t2"
    shutil.copytree(SAXPY, folder2)
    toml = folder2 / "task.toml"
    toml.write_text(
        toml.read_text().replace(
            'length = "n"\ngenerator = { kind = "normal"', 'length = "n / 2"\ngenerator = { kind = "normal"'
        )
    )
    with pytest.raises(TaskError, match=r"args.x.length: .* \(at sizes.bench\)"):
        load_task(folder2)
