"""nvcc and g++ builds, their cache, trimmed diagnostics, and the static screen (no GPU needed)."""

from __future__ import annotations

import shutil

import pytest

from regrapht.eval import Compiler
from regrapht.eval.record import hierarchical_reward
from regrapht.eval.screen import screen, strip_comments_and_strings
from regrapht.eval.stats import speedup, summarize
from regrapht.tasks import builtin_tasks_root, load_task

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
EXAMPLES = builtin_tasks_root() / "examples"


def _compile(compiler, task, source, kind="cuda"):
    params = task.signature[task.signature.index("(") + 1 : -1]
    return compiler.compile(source, kind, task.function, params, [a.name for a in task.args])


@needs_nvcc
@pytest.mark.slow
def test_every_shipped_cuda_source_compiles_with_nvcc(tmp_path):
    compiler = Compiler(tmp_path)
    for name in ("saxpy", "sum_of_squares", "spmv_csr"):
        task = load_task(EXAMPLES / name)
        for path in [task.naive_path, *sorted((task.root / "candidates").glob("*.cu"))]:
            result = _compile(compiler, task, path.read_text())
            assert result.ok, f"{path}: {result.diagnostics}"
            assert "-cudart" in result.command and "shared" in result.command


@needs_nvcc
def test_nvcc_errors_are_trimmed_and_cached(tmp_path):
    task = load_task(EXAMPLES / "saxpy")
    compiler = Compiler(tmp_path)
    broken = "__global__ void k(float* y) { y[threadIdx.x] = undefined_name; }\n" + task.naive_source()
    first = _compile(compiler, task, broken)
    assert not first.ok and not first.cached
    assert 'candidate.cu(1): error: identifier "undefined_name" is undefined' in first.diagnostics
    assert "/tmp" not in first.diagnostics and first.diagnostics.count("\n") < 10
    second = _compile(compiler, task, broken)
    assert second.cached and second.diagnostics == first.diagnostics


@needs_nvcc
def test_cuda_signature_mismatch_is_explained(tmp_path):
    task = load_task(EXAMPLES / "saxpy")
    bad = '__global__ void k(){}\nextern "C" void saxpy(int n, double a, const float* x, float* y, int extra) {}\n'
    result = _compile(Compiler(tmp_path), task, bad)
    assert not result.ok and "signature does not match" in result.diagnostics


def test_gxx_cache_hits_and_parallel_pool(tmp_path):
    task = load_task(EXAMPLES / "saxpy")
    compiler = Compiler(tmp_path, jobs=2)
    sources = [
        (task.root / "candidates" / "correct_omp.cpp").read_text() + f"\n// variant {i}\n" for i in range(3)
    ]
    params = task.signature[task.signature.index("(") + 1 : -1]
    names = [a.name for a in task.args]
    futures = [compiler.submit(s, "cpu", task.function, params, names) for s in sources]
    results = [f.result() for f in futures]
    assert all(r.ok and not r.cached for r in results)
    assert len({r.key for r in results}) == 3
    again = _compile(compiler, task, sources[0], "cpu")
    assert again.cached and again.library == results[0].library
    compiler.close()


def test_screen_ignores_comments_and_strings():
    code = 'void f() { /* exit(1) */ printf("fork() %d", 1); // system("x")\n}\n'
    assert screen(code, "cuda") == []
    stripped = strip_comments_and_strings(code)
    assert stripped.count("\n") == code.count("\n") and "exit" not in stripped


@pytest.mark.parametrize(
    ("code", "rule", "severity"),
    [
        ("cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);", "streams", "warn"),
        ("auto t0 = std::chrono::high_resolution_clock::now();", "timer", "block"),
        ('asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));', "timer_register", "block"),
        ("std::thread worker([]{});", "host_threads", "block"),
        ("void* h = dlopen(0, 0);", "dynamic_loading", "block"),
        ("cudaDeviceReset();", "device_reset", "block"),
        ('FILE* f = fopen(p, "w");', "file_descriptors", "block"),
        ("signal(SIGSEGV, handler);", "signal_handling", "block"),
    ],
)
def test_screen_flags(code, rule, severity):
    found = {(f.rule, f.severity) for f in screen(code, "cuda")}
    assert (rule, severity) in found


def test_screen_spares_ordinary_names():
    code = "std::remove(v.begin(), v.end(), 0); reader.read(buf); thrust::sort(a, b); float exitValue = 1;"
    assert [f.rule for f in screen(code, "cpu")] == []


def test_speedup_interval_contains_the_ratio():
    base = [2.0 + 0.01 * i for i in range(30)]
    cand = [1.0 + 0.005 * i for i in range(30)]
    s = speedup(base, cand, "serial", seed=1)
    assert s.ci_low < s.value < s.ci_high
    assert s.value == pytest.approx((2.0 + 0.01 * 14.5) / (1.0 + 0.005 * 14.5))
    t = summarize([1.0, 2.0, 3.0, 4.0], [1.0] * 4, [1.0] * 4)
    assert t.median_s == 2.5 and t.q1_s == 1.75 and t.q3_s == 3.25 and t.n == 4


def test_hierarchical_reward_is_eq3():
    assert hierarchical_reward("wrong_answer", 5.0) == -1.0
    assert hierarchical_reward("compile_error", None) == -1.0
    assert hierarchical_reward("correct", 0.5) == pytest.approx(-0.5)
    assert hierarchical_reward("correct", 3.0) == 3.0
    assert hierarchical_reward("correct", 1.0) == 1.0


def test_plausibility_gate_flags_faster_than_physics(tmp_path):
    """The gate compares the candidate's median with the roofline floor at the measured bandwidth."""
    from regrapht.eval import EvalConfig, Evaluation, Evaluator
    from regrapht.eval.timing_verdict import TimingJudge

    task = load_task(EXAMPLES / "saxpy")  # floor: 12 bytes per element at n = 2^26, about 805 MB
    with Evaluator(EvalConfig(cache_dir=str(tmp_path))) as evaluator:
        judge = TimingJudge(evaluator.config, evaluator.secret, {"bandwidth_bytes_per_s": 3.0e12, "sm_count": 132, "clock_khz": 1_980_000})
        floor_s = 12 * 2**26 / 3.0e12
        honest = Evaluation(
            "saxpy", "cuda", "correct", "", "x", timings={"candidate": {"median_s": floor_s * 1.3}}
        )
        judge.roofline(honest, task, "cuda")
        assert honest.status == "correct"
        assert honest.roofline["fraction_of_floor"] == pytest.approx(1 / 1.3)
        cheat = Evaluation(
            "saxpy", "cuda", "correct", "", "x", timings={"candidate": {"median_s": floor_s * 0.5}}
        )
        judge.roofline(cheat, task, "cuda")
        assert cheat.status == "integrity_violation"
        assert "faster than physics" in cheat.message


def test_roofline_reports_the_declared_unit_but_gates_on_the_fastest(tmp_path):
    """% of roofline uses the task's compute unit; only beating the architecture's fastest unit is a
    violation, so an honest kernel that moves fp32 work onto tensor cores is never flagged."""
    import dataclasses

    from regrapht.eval import EvalConfig, Evaluation, Evaluator
    from regrapht.eval.timing_verdict import TimingJudge
    from regrapht.tasks.model import Roofline

    base = load_task(EXAMPLES / "saxpy")
    task = dataclasses.replace(base, roofline=Roofline(bytes="0", flops="n * 1000000", compute="fp32"))
    sm_hz = 132 * 1_980_000 * 1e3
    fp32_floor = 2**26 * 1_000_000 / (sm_hz * 256)
    with Evaluator(EvalConfig(cache_dir=str(tmp_path))) as evaluator:
        judge = TimingJudge(evaluator.config, evaluator.secret, {
            "bandwidth_bytes_per_s": 3.0e12,
            "sm_count": 132,
            "clock_khz": 1_980_000,
            "cc_major": 9,
            "cc_minor": 0,
        })
        tensor_speed = Evaluation(
            "saxpy", "cuda", "correct", "", "x", timings={"candidate": {"median_s": fp32_floor / 4}}
        )
        judge.roofline(tensor_speed, task, "cuda")
        assert tensor_speed.status == "correct"
        assert tensor_speed.roofline["compute_unit"] == "fp32"
        assert tensor_speed.roofline["fraction_of_floor"] == pytest.approx(4.0)
        beyond_fp8 = Evaluation(
            "saxpy", "cuda", "correct", "", "x", timings={"candidate": {"median_s": fp32_floor / 64}}
        )
        judge.roofline(beyond_fp8, task, "cuda")
        assert beyond_fp8.status == "integrity_violation"
        # An architecture without a table entry reports the bytes floor only, and says so.
        judge.device.update(cc_major=7, cc_minor=5)
        unknown = Evaluation(
            "saxpy", "cuda", "correct", "", "x", timings={"candidate": {"median_s": fp32_floor}}
        )
        judge.roofline(unknown, task, "cuda")
        assert unknown.roofline["flop_peak_per_s"] is None
        assert "compute capability 7.5" in unknown.roofline["note"]


def test_peak_table_covers_every_compute_unit():
    from regrapht.eval import peaks
    from regrapht.tasks.model import COMPUTE_UNITS

    assert set(peaks.units()) == set(COMPUTE_UNITS)
    assert peaks.unit_rate("9.0", "fp32") == 256
    assert peaks.bound_rate("9.0") == 8192
    # DMMA doubles Hopper's FP64 rate; the DMMA tasks' floors would be half as strict without it
    assert peaks.unit_rate("9.0", "fp64_tensor") == 2 * peaks.unit_rate("9.0", "fp64")


def test_the_dmma_fp64_tasks_declare_the_fp64_tensor_unit():
    from regrapht.tasks import builtin_tasks_root, load_task

    for name in ("syrk_gram_fp64", "trsm_lower_multi_rhs_fp64", "newton_schulz_inverse_fp64"):
        task = load_task(builtin_tasks_root() / "test" / name)
        assert task.roofline.compute == "fp64_tensor", name
        assert "tensor_core_mma" in task.solution_path.read_text().splitlines()[0], name


def test_nan_and_inf_must_match_even_under_an_infinite_tolerance():
    import numpy as np

    from regrapht.eval import correctness
    from regrapht.tasks.model import Tolerance

    loose = Tolerance("close", 0.0, float("inf"))
    expected = np.array([1.0, np.inf, np.nan, 2.0], dtype=np.float32)
    same = expected.copy()
    assert correctness.compare(same, expected, loose) is None
    for index, value in ((0, np.inf), (1, 5.0), (2, 0.0), (3, np.nan)):
        actual = expected.copy()
        actual[index] = value
        mismatch = correctness.compare(actual, expected, loose)
        assert mismatch is not None and mismatch.count == 1 and mismatch.first_index == index
