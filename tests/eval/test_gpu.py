"""The cuda target on a real GPU: honest kernels pass, and every hostile one is caught with a reason.

Run on the GPU machine: pytest -m gpu tests/eval/test_gpu.py
"""

from __future__ import annotations

import pytest

from regrapht.eval import Evaluator
from regrapht.tasks import builtin_tasks_root, load_task
from tests.eval.conftest import HERE, candidate, quick_config

pytestmark = pytest.mark.gpu
EXAMPLES = builtin_tasks_root() / "examples"


@pytest.fixture(scope="module")
def gpu_eval(build_cache):
    with Evaluator(quick_config(build_cache, call_timeout_s=15.0)) as ev:
        yield ev


@pytest.fixture(scope="module")
def gpu_unscreened(build_cache):
    with Evaluator(
        quick_config(build_cache, call_timeout_s=15.0, static_screen=False, symbol_screen=False)
    ) as ev:
        yield ev


def cu(name: str) -> str:
    return candidate(name, "hostile_cuda")


@pytest.mark.parametrize("name", ["correct.cu", "honest_stream.cu"])
def test_honest_kernels_pass_without_false_alarms(gpu_eval, vec_scale, name):
    ev = gpu_eval.evaluate(vec_scale, cu(name), "cuda")
    assert ev.status == "correct", ev.message
    assert "naive" in ev.speedups and "serial" in ev.speedups
    assert ev.fingerprint["gpu"] and ev.fingerprint["cuda_runtime"]
    assert ev.roofline["fraction_of_floor"] is not None and 0 < ev.roofline["fraction_of_floor"] < 1.2
    # Timed outputs judged by the parent in the worker's device memory, not sent as files.
    assert ev.timings["candidate"]["judged_on_device"] is True


@pytest.mark.parametrize(
    ("name", "status", "phrase"),
    [
        ("partial.cu", "wrong_answer", "unwritten"),
        ("unwritten.cu", "wrong_answer", "elements of `out` unwritten (first at index 0)"),
        ("mutates_input.cu", "integrity_violation", "modified an input"),
        ("out_of_bounds.cu", "wrong_answer", "wrote out of bounds of `out`"),
        ("side_stream.cu", "integrity_violation", "returned before its work was done"),
        ("cache_by_pointer.cu", "wrong_answer", "seed 2"),
        ("lazy_later.cu", "integrity_violation", "behaves differently on later calls"),
        ("half_precision.cu", "wrong_answer", "beyond rtol=1e-05"),
        ("wrong_at_bench.cu", "wrong_answer", "wrong at the bench size (n=1048576): `out`: 1 of 1048576"),
        ("too_much_shared.cu", "runtime_error", "CUDA error"),
        ("grab_all_memory.cu", "runtime_error", "out of memory"),
    ],
)
def test_hostile_kernels_are_caught(gpu_eval, vec_scale, name, status, phrase):
    ev = gpu_eval.evaluate(vec_scale, cu(name), "cuda")
    assert ev.status == status, ev.message
    assert phrase in ev.message
    assert ev.reward == -1.0


@pytest.mark.parametrize(
    ("name", "status", "phrase"),
    [
        ("infinite_loop.cu", "timeout", "no progress"),
        ("segfault.cu", "runtime_error", "SIGSEGV"),
        ("calls_exit.cu", "runtime_error", "ended on its own"),
    ],
)
def test_crashes_and_hangs_cost_only_their_own_result(gpu_unscreened, vec_scale, name, status, phrase):
    ev = gpu_unscreened.evaluate(vec_scale, cu(name), "cuda")
    assert ev.status == status, ev.message
    assert phrase in ev.message
    after = gpu_unscreened.evaluate(vec_scale, cu("correct.cu"), "cuda")
    assert after.status == "correct", after.message


@pytest.mark.parametrize("task_name", ["saxpy", "sum_of_squares", "spmv_csr"])
def test_shipped_examples(gpu_eval, task_name):
    task = load_task(EXAMPLES / task_name)
    folder = task.root / "candidates"
    good = gpu_eval.evaluate(task, (folder / "correct.cu").read_text(), "cuda")
    assert good.status == "correct", good.message
    assert good.speedups["serial"]["value"] > 1.0
    bad = gpu_eval.evaluate(task, (folder / "wrong.cu").read_text(), "cuda")
    assert bad.status == "wrong_answer", bad.message
    naive = gpu_eval.evaluate(task, task.naive_source(), "cuda")
    assert naive.status == "correct", naive.message
    # The naive kernel timed against itself, interleaved: a ratio of one within noise.
    assert 0.9 < naive.speedups["naive"]["value"] < 1.1


def test_host_convention_times_end_to_end(gpu_eval):
    task = load_task(HERE / "tasks" / "vec_scale_host")
    ev = gpu_eval.evaluate(task, (task.root / "candidates" / "correct_host.cu").read_text(), "cuda")
    assert ev.status == "correct", ev.message
    t = ev.timings["candidate"]
    assert t["median_s"] == t["host_median_s"]  # end to end, transfers included


def test_batch_equals_single_on_gpu(build_cache, vec_scale):
    names = ["correct.cu", "partial.cu", "mutates_input.cu", "half_precision.cu"]
    with Evaluator(quick_config(build_cache, timing=False)) as single:
        one = [single.evaluate(vec_scale, cu(n), "cuda").verdict_signature() for n in names]
    with Evaluator(quick_config(build_cache, timing=False)) as batch:
        many = [
            e.verdict_signature() for e in batch.evaluate_many([(vec_scale, cu(n), "cuda") for n in names])
        ]
    assert many == one


def test_device_comparison_matches_the_host_one(gpu_eval):
    """The harness's comparison kernel against the host's late_elements: widths 1 to 8 bytes, ragged
    lengths, no difference, many, and more than 2^31 elements (64-bit indexing)."""
    import numpy as np

    from regrapht.eval import toolchain
    from regrapht.eval.cudart import CudaRuntime
    from regrapht.eval.worker import DeviceMemory, late_elements

    library = gpu_eval.jobs.device_check_library()
    assert library, "the device comparison kernel did not build"
    rt = CudaRuntime(str(toolchain.libcudart_path()))
    rt.init(0)
    mem = DeviceMemory(rt, library)
    rng = np.random.default_rng(7)
    for itemsize, count in ((1, 1), (2, 1001), (4, 3 << 20), (8, 777_777)):
        a = rng.integers(0, 256, size=itemsize * count, dtype=np.uint8)
        for flips in (0, 1, 37):
            b = a.copy()
            b[rng.choice(b.size, size=min(flips, b.size), replace=False)] ^= 0x10
            da, db = mem.alloc(a.size), mem.alloc(b.size)
            mem.upload(da, 0, a)
            mem.upload(db, 0, b)
            assert mem.differences(da, 0, db, 0, a.size, itemsize) == late_elements(a, b, itemsize)
            mem.free(da)
            mem.free(db)
    big = (1 << 31) + 4099  # one-byte elements past the 32-bit range
    da, db = mem.alloc(big), mem.alloc(big)
    mem.fill(da, 0, big, 3)
    mem.fill(db, 0, big, 3)
    assert mem.differences(da, 0, db, 0, big, 1) is None
    mem.fill(db, big - 2, 1, 4)
    assert mem.differences(da, 0, db, 0, big, 1) == {"count": 1, "first": big - 2}
    mem.free(da)
    mem.free(db)


def test_nondeterministic_honest_kernel_passes_timed_checks(gpu_eval):
    """Float atomics sum in a varying order: timed outputs differ from their set's first bit for bit,
    are judged in full against the expected values, and pass."""
    task = load_task(EXAMPLES / "sum_of_squares")  # naive.cu: a double atomicAdd per thread, in any order
    ev = gpu_eval.evaluate(task, task.naive_source(), "cuda")
    assert ev.status == "correct", ev.message


def test_the_hold_lasts_as_asked(gpu_eval):
    """The hold queued before each timed call keeps the device busy for about the time asked."""
    from regrapht.eval import toolchain
    from regrapht.eval.cudart import CudaRuntime
    from regrapht.eval.worker import DeviceMemory

    rt = CudaRuntime(str(toolchain.libcudart_path()))
    rt.init(0)
    mem = DeviceMemory(rt, gpu_eval.jobs.device_check_library())
    start, end = rt.event(), rt.event()
    assert mem.hold(1_000) and rt.synchronize() == 0  # the first launch loads the kernel: not timed
    for ns in (20_000, 200_000):
        held = []
        for _ in range(5):
            assert rt.synchronize() == 0
            rt.record(start)
            assert mem.hold(ns)
            rt.record(end)
            assert rt.synchronize() == 0
            held.append(rt.elapsed_s(start, end))
        # Never shorter than asked. Longer only by what the device did besides (another process's
        # context coming up, say, as a spare's does between evaluations): the shortest of five.
        assert min(held) >= ns / 1e9 and min(held) < ns / 1e9 + 50e-6, held
    assert not mem.hold(0)


def test_a_stream_of_its_own_gains_nothing_from_the_hold(gpu_eval, vec_scale):
    """The hold fills every SM's thread slots, so a kernel on the candidate's own non-blocking stream
    waits for it like the timed stream's kernel does: it cannot run before the start event, untimed.
    (If it could, this 4 us kernel would finish inside the 20 us hold and time at almost nothing.)"""
    ev = gpu_eval.evaluate(
        vec_scale, cu("honest_stream.cu"), "cuda", baselines={"default_stream": cu("correct.cu")}
    )
    assert ev.status == "correct", ev.message
    assert ev.timings["candidate"]["hold_s"] == pytest.approx(20e-6)  # timed behind the hold
    assert ev.speedups["default_stream"]["value"] < 1.02, ev.speedups["default_stream"]


def test_the_hold_keeps_launch_latency_out_of_the_timing(build_cache, vec_scale):
    """Timed from an idle device, a call's event time includes the host's launch latency; behind the
    hold it does not. On a kernel of a few microseconds the difference is most of the time."""
    medians = {}
    for hold_s in (0.0, 20e-6):
        config = quick_config(build_cache)
        config.timing_config.hold_s = hold_s
        with Evaluator(config) as ev:
            result = ev.evaluate(vec_scale, cu("correct.cu"), "cuda")
        assert result.status == "correct", result.message
        medians[hold_s] = result.timings["candidate"]["median_s"]
    assert medians[20e-6] < 0.95 * medians[0.0], medians


def test_the_parents_tolerance_kernel_agrees_with_the_host_check(gpu_eval):
    """regrapht_count_mismatches (the parent's judge of timed outputs) against correctness.compare:
    values at the tolerance's edge, NaN, infinities, signed zeros, both float widths, integers."""
    import ctypes

    import numpy as np

    from regrapht.eval import correctness, toolchain
    from regrapht.eval.cudart import H2D, CudaRuntime
    from regrapht.eval.device_judge import bind_count_mismatches
    from regrapht.tasks.model import Tolerance

    library = gpu_eval.jobs.device_check_library()
    assert library, "the device comparison kernel did not build"
    rt = CudaRuntime(str(toolchain.libcudart_path()))
    rt.init(0)
    count = bind_count_mismatches(ctypes.CDLL(library))
    scratch = rt.malloc(16)
    rng = np.random.default_rng(11)

    def on_device(actual, expected, code, rtol, atol):
        da, de = rt.malloc(actual.nbytes), rt.malloc(expected.nbytes)
        rt.memcpy(da, actual.ctypes.data, actual.nbytes, H2D)
        rt.memcpy(de, expected.ctypes.data, expected.nbytes, H2D)
        out = (ctypes.c_ulonglong * 2)()
        rt.check(
            count(da, de, expected.size, code, expected.dtype.itemsize, rtol, atol, scratch, out), "count"
        )
        rt.free(da)
        rt.free(de)
        return int(out[0]), int(out[1])

    for dtype, code in ((np.float32, 0), (np.float64, 1)):
        tolerance = Tolerance("close", rtol=1e-5, atol=1e-6)
        expected = rng.standard_normal(200_003).astype(dtype)
        expected[:6] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0]
        limit = np.abs(expected.astype(np.float64)) * 1e-5 + 1e-6
        for case in range(4):
            actual = expected.copy()
            if case == 1:  # just inside, and just outside, the limit
                actual[10:20] = (expected[10:20] + limit[10:20] * 0.999).astype(dtype)
                actual[20:30] = (expected[20:30] + limit[20:30] * 1.5).astype(dtype)
            if case == 2:  # specials must match exactly; zeros of either sign are equal
                actual[:6] = [0.0, -np.inf, np.inf, -0.0, 0.0, np.nan]
            if case == 3:
                actual[-1] = np.nan
            host = correctness.compare(actual, expected, tolerance)
            device = on_device(actual, expected, code, tolerance.rtol, tolerance.atol)
            assert device[0] == (host.count if host else 0), (dtype, case)
            if host:
                assert device[1] == host.first_index
        exact = correctness.compare(actual, expected, Tolerance("exact"))
        assert on_device(actual, expected, code, 0.0, 0.0)[0] == (exact.count if exact else 0)
    for dtype in (np.uint8, np.int16, np.int32, np.int64):
        expected = rng.integers(0, 100, 100_001).astype(dtype)
        actual = expected.copy()
        actual[[5, 77_777]] += 1
        assert on_device(actual, expected, 2, 0.0, 0.0) == (2, 5)
    rt.free(scratch)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "uint16", "int32", "uint32", "int64"])
def test_the_device_perturbs_inputs_as_the_host_does(gpu_eval, dtype):
    """Timed calls' inputs are perturbed on the device; the parent computes the checked calls'
    expected outputs from the same perturbation done with NumPy: the two must agree bit for bit."""
    import numpy as np

    from regrapht.eval import toolchain
    from regrapht.eval.cudart import CudaRuntime
    from regrapht.eval.perturb import bounds_of, perturbed
    from regrapht.eval.worker import DeviceMemory

    rt = CudaRuntime(str(toolchain.libcudart_path()))
    rt.init(0)
    mem = DeviceMemory(rt, gpu_eval.jobs.device_check_library())
    assert mem.perturb_device is not None
    rng = np.random.default_rng(3)
    n = (1 << 20) + 7
    if np.dtype(dtype).kind == "f":
        x = (rng.standard_normal(n) * 10.0 ** rng.integers(-30, 30, n)).astype(dtype)
        x[:5] = [0.0, -0.0, np.nan, np.inf, np.finfo(dtype).tiny / 4]
    else:
        info = np.iinfo(dtype)
        x = rng.integers(max(int(info.min), -1000), min(int(info.max), 1000) + 1, n).astype(dtype)
    bounds = bounds_of(x)
    src, dst = mem.alloc(x.nbytes), mem.alloc(x.nbytes)
    try:
        mem.upload(src, 0, x)
        for key in (0, 12345, 2**64 - 1):
            mem.perturb(dst, 0, src, 0, x.nbytes, dtype, key, bounds, x)
            assert rt.synchronize() == 0
            got = mem.download(dst, 0, x.nbytes).view(dtype)
            assert got.tobytes() == perturbed(x, key, bounds).tobytes()
    finally:
        mem.free(src)
        mem.free(dst)


def test_a_memorizing_kernel_is_caught_or_timed_as_if_it_did_the_work(gpu_eval, build_cache):
    """A kernel that recognizes an input set from four sampled elements and copies the output it
    cached for it. With fresh inputs it finds nothing to copy: no faster than the naive kernel it
    otherwise is. With the sets rotated as drawn, it would pass as several times faster."""
    from regrapht.eval import TimingConfig

    task = load_task(HERE / "tasks" / "sin_series_gpu")
    naive = gpu_eval.evaluate(task, task.naive_source(), "cuda")
    assert naive.status == "correct", naive.message
    # every checked call judged in device memory against its own expected values
    assert naive.timings["candidate"]["fresh_inputs"] is True
    assert naive.timings["candidate"]["judged_on_device"] is True
    memo = gpu_eval.evaluate(task, cu("sin_series_memo.cu"), "cuda")
    assert memo.timings["candidate"]["fresh_inputs"] is True
    if memo.status == "correct":
        assert memo.speedups["naive"]["value"] <= 1.1 * naive.speedups["naive"]["value"], (
            memo.speedups["naive"],
            naive.speedups["naive"],
        )
    timing = TimingConfig(budget_s=0.3, min_rounds=10, serial_budget_s=0.3, fresh_inputs=False)
    with Evaluator(quick_config(build_cache, call_timeout_s=15.0, timing_config=timing)) as rotating:
        fooled = rotating.evaluate(task, cu("sin_series_memo.cu"), "cuda")
    assert fooled.status == "correct", fooled.message
    assert fooled.timings["candidate"]["fresh_inputs"] is False
    assert fooled.speedups["naive"]["value"] > 2.0  # the hole fresh inputs close
