"""Task format v2 end to end on the cpu target: struct and complex elements judged field by field,
declared initial values restored before every call, scalar results, scratch workspaces guarded,
a parameter named like its function, and kernel-only tasks refused on the cpu target with a reason
(their cuda side is compiled with nvcc where it is installed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht.eval import Evaluator
from regrapht.eval.compile import Compiler
from regrapht.eval.entry import EntryError, for_task
from regrapht.eval.evaluator import _params
from regrapht.eval.toolchain import nvcc_path
from regrapht.tasks import load_task
from tests.eval.conftest import quick_config

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples" / "pareval"

HEADER = """
title = "t"
category = "test"
difficulty = "easy"
split = "example"
"""


def make_task(tmp_path: Path, name: str, toml: str, serial: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "task.toml").write_text(f'id = "{name}"\n' + HEADER + toml)
    (folder / "serial.cpp").write_text(serial)
    return folder


@pytest.fixture(scope="module")
def judge(build_cache):
    with Evaluator(quick_config(build_cache, timing=False)) as ev:
        yield ev


SHIFT = """
function = "shift"
signature = "void shift(const Point* p, Point* q, int n)"

[[structs]]
name = "Point"
fields = [{ name = "x", dtype = "float64" }, { name = "y", dtype = "float64" }, { name = "id", dtype = "int32" }]

[[args]]
name = "p"
role = "input"
dtype = "Point"
length = "n"
generator = { kind = "custom" }

[[args]]
name = "q"
role = "output"
dtype = "Point"
length = "n"
tolerance = { x = { rtol = 1e-12 }, y = { atol = 1e-6 } }

[[args]]
name = "n"
role = "size"
dtype = "int32"

[sizes]
test = [{ n = 1 }, { n = 50 }]
bench = { n = 1000 }
"""

SHIFT_GEN = '''
import numpy as np

def generate(sizes, rng):
    n = sizes["n"]
    return {"p": np.stack([rng.normal(size=n), rng.normal(size=n), rng.integers(0, 100, n)], axis=1)}
'''

SHIFT_SERIAL = """
void shift(const Point* p, Point* q, int n) {
    for (int i = 0; i < n; ++i) { q[i].x = p[i].x + 1.0; q[i].y = 2.0 * p[i].y; q[i].id = p[i].id + 1; }
}
"""


@pytest.fixture(scope="module")
def shift_task(tmp_path_factory):
    folder = make_task(tmp_path_factory.mktemp("v2"), "shift", SHIFT, SHIFT_SERIAL)
    (folder / "gen.py").write_text(SHIFT_GEN)
    return load_task(folder)


def test_struct_outputs_are_judged_field_by_field(judge, shift_task):
    # The candidate defines the struct itself, as ParEval's prompts do; the harness checks its layout.
    own = "struct Point { double x; double y; int id; };\n" + SHIFT_SERIAL
    assert judge.evaluate(shift_task, own, "cpu").status == "correct"
    assert judge.evaluate(shift_task, SHIFT_SERIAL, "cpu").status == "correct"
    close = SHIFT_SERIAL.replace("2.0 * p[i].y", "2.0 * p[i].y + 1e-8")  # within y's atol
    assert judge.evaluate(shift_task, close, "cpu").status == "correct"
    wrong_y = SHIFT_SERIAL.replace("2.0 * p[i].y", "2.0 * p[i].y + 1e-3")
    ev = judge.evaluate(shift_task, wrong_y, "cpu")
    assert ev.status == "wrong_answer" and "`q`, field `y`: " in ev.message and "atol=1e-06" in ev.message
    wrong_id = SHIFT_SERIAL.replace("p[i].id + 1", "p[i].id")
    ev = judge.evaluate(shift_task, wrong_id, "cpu")
    assert "`q`, field `id`: " in ev.message and "differ exactly" in ev.message


def test_a_struct_with_another_layout_fails_to_compile_with_the_declaration(judge, shift_task):
    other = "struct Point { float x; float y; int id; };\n" + SHIFT_SERIAL
    ev = judge.evaluate(shift_task, other, "cpu")
    assert ev.status == "compile_error"
    assert "struct Point must have the layout the task declares: struct Point { double x; double y; int id; };" in ev.message


SQUARE = """
function = "square"
signature = "void square(const cuDoubleComplex* x, cuDoubleComplex* y, int n)"

[[args]]
name = "x"
role = "input"
dtype = "complex128"
length = "n"
generator = { kind = "uniform", low = -1.0, high = 1.0 }

[[args]]
name = "y"
role = "output"
dtype = "complex128"
length = "n"
tolerance = { rtol = 1e-12, atol = 1e-12 }

[[args]]
name = "n"
role = "size"
dtype = "int32"

[sizes]
test = [{ n = 3 }, { n = 100 }]
bench = { n = 1000 }
"""

SQUARE_SERIAL = """
#include <cuComplex.h>
void square(const cuDoubleComplex* x, cuDoubleComplex* y, int n) {
    for (int i = 0; i < n; ++i) y[i] = cuCmul(x[i], x[i]);
}
"""


def test_complex_numbers_with_cuda_s_types_on_the_host(judge, tmp_path):
    task = load_task(make_task(tmp_path, "square", SQUARE, SQUARE_SERIAL))
    assert judge.evaluate(task, SQUARE_SERIAL, "cpu").status == "correct"
    # single precision in the middle: the imaginary parts drift past the tolerance
    single = SQUARE_SERIAL.replace(
        "y[i] = cuCmul(x[i], x[i]);",
        "y[i] = cuComplexFloatToDouble(cuCmulf(cuComplexDoubleToFloat(x[i]), cuComplexDoubleToFloat(x[i])));",
    )
    ev = judge.evaluate(task, single, "cpu")
    assert ev.status == "wrong_answer" and "`y`, field `re`" in ev.message


ACCUMULATE = """
function = "ranks"
signature = "void ranks(const int* x, int n, long long* ranks, long long* total)"

[[args]]
name = "x"
role = "input"
dtype = "int32"
length = "n"
generator = { kind = "integers", low = 0, high = 1000 }

[[args]]
name = "n"
role = "size"
dtype = "int32"

[[args]]
name = "ranks"                  # named like the function
role = "output"
dtype = "int64"
length = "n"

[[args]]
name = "total"
role = "output"
dtype = "int64"
initial = 7                     # a counter that starts at 7 before every call; a scalar result

[sizes]
test = [{ n = 1 }, { n = 40 }]
bench = { n = 1000 }
"""

ACCUMULATE_SERIAL = """
void ranks(const int* x, int n, long long* ranks, long long* total) {
    for (int i = 0; i < n; ++i) {
        long long r = 0;
        for (int j = 0; j < n; ++j) r += x[j] < x[i] || (x[j] == x[i] && j < i);
        ranks[i] = r;
        *total += x[i];
    }
}
"""


def test_initial_values_are_restored_before_every_call_and_names_may_collide(judge, tmp_path):
    task = load_task(make_task(tmp_path, "ranks", ACCUMULATE, ACCUMULATE_SERIAL))
    # `ranks` is both the function and a parameter: the entry point calls the function all the same,
    # and the counter adds to its declared 7 on each of the two runs per case (restored in between)
    ev = judge.evaluate(task, ACCUMULATE_SERIAL, "cpu")
    assert ev.status == "correct", ev.message
    assumes_zero = ACCUMULATE_SERIAL.replace("long long r = 0;", "long long r = 0; if (i == 0) *total = 0;")
    ev = judge.evaluate(task, assumes_zero, "cpu")
    assert ev.status == "wrong_answer" and "`total`: 1 of 1 elements differ exactly" in ev.message


SCRATCH = """
function = "reverse_sum"
signature = "void reverse_sum(const float* x, float* y, float* work, int n)"

[[args]]
name = "x"
role = "input"
dtype = "float32"
length = "n"
generator = { kind = "normal" }

[[args]]
name = "y"
role = "output"
dtype = "float32"
length = "n"

[[args]]
name = "work"
role = "scratch"
dtype = "float32"
length = "n"

[[args]]
name = "n"
role = "size"
dtype = "int32"

[sizes]
test = [{ n = 1 }, { n = 33 }]
bench = { n = 1000 }
"""

SCRATCH_SERIAL = """
void reverse_sum(const float* x, float* y, float* work, int n) {
    for (int i = 0; i < n; ++i) work[i] = x[n - 1 - i];
    for (int i = 0; i < n; ++i) y[i] = x[i] + work[i];
}
"""


def test_scratch_is_allocated_and_guarded(judge, tmp_path):
    task = load_task(make_task(tmp_path, "reverse_sum", SCRATCH, SCRATCH_SERIAL))
    assert judge.evaluate(task, SCRATCH_SERIAL, "cpu").status == "correct"
    overrun = SCRATCH_SERIAL.replace("work[i] = x[n - 1 - i];", "work[i] = x[n - 1 - i]; work[n] = 0;")
    ev = judge.evaluate(task, overrun, "cpu")
    assert ev.status == "wrong_answer" and "wrote out of bounds of `work`" in ev.message


def test_kernel_tasks_are_refused_on_the_cpu_target(judge):
    task = load_task(EXAMPLES / "jacobi_2d")
    with pytest.raises(EntryError, match="uses the kernel convention: its candidates are CUDA __global__ kernels"):
        judge.evaluate(task, "void jacobi2D() {}", "cpu")


needs_nvcc = pytest.mark.skipif(nvcc_path() is None, reason="nvcc is not installed")


@needs_nvcc
def test_kernel_candidates_compile_with_the_declared_launch(build_cache):
    task = load_task(EXAMPLES / "sorted_ranks")
    compiler = Compiler(cache_dir=build_cache)
    names = [a.name for a in task.args]

    def build(source: str):
        return compiler.compile(source, "cuda", task.function, _params(task), names, entry=for_task(task, "cuda"))

    assert build(task.naive_source()).ok
    host = build("void ranks(const float* x, size_t* ranks, size_t N) {}")
    assert not host.ok and "the task is a kernel-only problem" in host.diagnostics


def test_a_name_hiding_the_function_is_diagnosed_as_such(build_cache):
    compiler = Compiler(cache_dir=build_cache)
    params, names = "const int* x, int n, long long* ranks", ["x", "n", "ranks"]
    hidden = compiler.compile("int ranks = 0;\n", "cpu", "ranks", params, names)
    assert "`ranks` at file scope is not a function the harness can call" in hidden.diagnostics
    mismatch = compiler.compile("void ranks(const int* x, int n) {}\n", "cpu", "ranks", params, names)
    assert "the function's signature does not match the task's" in mismatch.diagnostics
