"""Task format v2 on a real GPU: kernel-only ParEval problems launched by the harness, complex and
struct element types, declared initial values and scalar results; honest kernels pass, subtly wrong
ones are caught with a precise message.

Run on the GPU machine: PYTHONPATH=src pytest -m gpu tests/eval/test_gpu_format_v2.py
"""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht.eval import Evaluator
from regrapht.tasks import load_task
from tests.eval.conftest import quick_config

pytestmark = pytest.mark.gpu
EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples" / "pareval"
NAMES = sorted(p.name for p in EXAMPLES.iterdir() if p.is_dir())


@pytest.fixture(scope="module")
def gpu_eval(build_cache):
    with Evaluator(quick_config(build_cache, call_timeout_s=30.0, total_timeout_s=240.0)) as ev:
        yield ev


@pytest.mark.parametrize("name", NAMES)
def test_each_example_s_naive_kernel_passes_and_is_timed(gpu_eval, name):
    task = load_task(EXAMPLES / name)
    ev = gpu_eval.evaluate(task, task.naive_source() or "", "cuda")
    assert ev.status == "correct", ev.message
    assert ev.timings["candidate"]["n"] >= 3 and "serial" in ev.speedups


def _variant(name: str, old: str, new: str) -> tuple[object, str]:
    task = load_task(EXAMPLES / name)
    source = task.naive_source() or ""
    assert old in source
    return task, source.replace(old, new)


WRONG = [
    # single-precision twiddles: ParEval's one-size, 1e-4 check lets them through
    ("dft", "sincospi(2.0 * (double)((k * n) % N) / (double)N, &s, &c);",
     "float fs, fc; sincospif(2.0f * (float)((k * n) % N) / (float)N, &fs, &fc); s = fs; c = fc;",
     "`output`, field `"),
    ("fft_out_of_place", "sincospi(-2.0 * (double)((k * n) & (N - 1)) / (double)N, &s, &c);",
     "float fs, fc; sincospif(-2.0f * (float)((k * n) & (N - 1)) / (float)N, &fs, &fc); s = fs; c = fc;",
     "`output`, field `"),
    # wrap-around edges: ParEval validates interior cells only
    ("jacobi_2d", "double up = i > 0 ? input[(i - 1) * N + j] : 0.0;",
     "double up = input[((i + N - 1) % N) * N + j];", "`output`: "),
    # no bounds check: threads past N write past the end of `ranks`
    ("sorted_ranks", "if (i >= N) return;", "if (i >= N + 16) return;", "out of bounds of `ranks`"),
    # a scalar result that ignores its declared starting value
    ("connected_components", "atomicAdd(numComponents, roots);", "atomicAdd(numComponents, roots + 1);",
     "`numComponents`: "),
]


@pytest.mark.parametrize(("name", "old", "new", "phrase"), WRONG, ids=[w[0] for w in WRONG])
def test_subtly_wrong_kernels_are_caught_with_a_precise_message(gpu_eval, name, old, new, phrase):
    task, source = _variant(name, old, new)
    ev = gpu_eval.evaluate(task, source, "cuda")
    assert ev.status == "wrong_answer", ev.message
    assert phrase in ev.message


def test_a_kernel_the_declared_launch_cannot_run_is_a_runtime_error(gpu_eval):
    # __launch_bounds__(256) promises blocks of at most 256 threads; the task launches 1024
    task, source = _variant("sorted_ranks", "__global__ void ranks(", "__global__ void __launch_bounds__(256) ranks(")
    ev = gpu_eval.evaluate(task, source, "cuda")
    assert ev.status == "runtime_error", ev.message
    assert "cuda" in ev.message.lower()


def test_a_host_function_is_not_a_kernel_answer(gpu_eval):
    task = load_task(EXAMPLES / "jacobi_2d")
    ev = gpu_eval.evaluate(task, "void jacobi2D(const double* input, double* output, size_t N) {}", "cuda")
    assert ev.status == "compile_error" and "kernel-only problem" in ev.message


SHIFT_CU = """
__global__ void shift_kernel(const Point* p, Point* q, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { q[i].x = p[i].x + 1.0; q[i].y = 2.0 * p[i].y; q[i].id = p[i].id + 1; }
}
void shift(const Point* p, Point* q, int n) { shift_kernel<<<(n + 255) / 256, 256>>>(p, q, n); }
"""

SCRATCH_CU = """
__global__ void reverse(const float* x, float* work, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) work[i] = x[n - 1 - i];
}
__global__ void add(const float* x, const float* work, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] + work[i];
}
void reverse_sum(const float* x, float* y, float* work, int n) {
    reverse<<<(n + 255) / 256, 256>>>(x, work, n);
    add<<<(n + 255) / 256, 256>>>(x, work, y, n);
}
"""


def test_struct_elements_and_scratch_on_the_device(gpu_eval, tmp_path):
    from tests.eval.test_format_v2_cpu import (
        SCRATCH,
        SCRATCH_SERIAL,
        SHIFT,
        SHIFT_GEN,
        SHIFT_SERIAL,
        make_task,
    )

    shift_dir = make_task(tmp_path, "shift", SHIFT, SHIFT_SERIAL)
    (shift_dir / "gen.py").write_text(SHIFT_GEN)
    shift = load_task(shift_dir)
    assert gpu_eval.evaluate(shift, SHIFT_CU, "cuda").status == "correct"
    wrong = gpu_eval.evaluate(shift, SHIFT_CU.replace("p[i].id + 1", "p[i].id"), "cuda")
    assert wrong.status == "wrong_answer" and "`q`, field `id`" in wrong.message

    scratch = load_task(make_task(tmp_path, "reverse_sum", SCRATCH, SCRATCH_SERIAL))
    assert gpu_eval.evaluate(scratch, SCRATCH_CU, "cuda").status == "correct"
    overrun = SCRATCH_CU.replace("if (i < n) work[i] = x[n - 1 - i];", "if (i <= n) work[i] = i < n ? x[n - 1 - i] : 0.f;")
    ev = gpu_eval.evaluate(scratch, overrun, "cuda")
    assert ev.status == "wrong_answer" and "out of bounds of `work`" in ev.message
