"""Fresh inputs for every timed call (eval/perturb.py): the perturbation itself, the worker's use of
it, the parent's expected outputs for the checked calls, and candidates that memorize input sets."""

from __future__ import annotations

import ctypes
import json
from pathlib import Path

import numpy as np
import pytest

from regrapht.eval import Evaluation, Evaluator, TimingConfig
from regrapht.eval.perturb import BOUND, bounds_of, perturbed
from regrapht.eval.reference import CHECKED_CALLS, perturbed_inputs
from regrapht.eval.runner import WorkerOutcome
from regrapht.eval.worker import CHECK_WINDOWS, Channel, FreshInputs, HostMemory, Worker, set_sequence
from regrapht.tasks import TaskError, load_task
from tests.eval.conftest import HERE, candidate, quick_config

FLOATS = [np.float32, np.float64]
INTEGERS = [np.int8, np.uint8, np.int16, np.int32, np.uint32, np.int64]


def _floats(dtype, n: int = 20000) -> np.ndarray:
    rng = np.random.default_rng(7)
    x = (rng.standard_normal(n) * 10.0 ** rng.integers(-30, 30, n)).astype(dtype)
    x[:6] = [0.0, -0.0, np.nan, np.inf, -np.inf, np.finfo(dtype).tiny / 4]  # zeros, non-finite, subnormal
    return x


def _integers(dtype, n: int = 20000) -> np.ndarray:
    info = np.iinfo(dtype)
    lo, hi = max(int(info.min), -1000), min(int(info.max), 1000)
    return np.random.default_rng(8).integers(lo, hi + 1, n).astype(dtype)


# ---- the perturbation ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", FLOATS + INTEGERS)
def test_the_perturbation_is_a_function_of_the_key(dtype):
    x = _floats(dtype) if np.dtype(dtype).kind == "f" else _integers(dtype)
    bounds = bounds_of(x)
    a, again, other = perturbed(x, 11, bounds), perturbed(x, 11, bounds), perturbed(x, 12, bounds)
    assert a.tobytes() == again.tobytes()
    bits = f"u{np.dtype(dtype).itemsize}"
    differ = np.mean(a.view(bits) != other.view(bits))
    # floats: nearly every element differs between keys (all but zeros, non-finite ones and those
    # clamped at the bounds by both); integers: each key moves its own half
    assert differ > (0.95 if np.dtype(dtype).kind == "f" else 0.3), differ


@pytest.mark.parametrize("dtype", FLOATS)
def test_floats_move_by_at_most_the_bound_and_keep_sign_zero_range_and_non_finite_values(dtype):
    x = _floats(dtype)
    bounds = bounds_of(x)
    assert bounds is not None
    finite = np.isfinite(x)
    for key in (1, 2**63 + 5, 2**64 - 1):
        y = perturbed(x, key, bounds)
        assert y.dtype == x.dtype
        assert np.array_equal(y[~finite], x[~finite], equal_nan=True)
        xf, yf = x[finite].astype(np.float64), y[finite].astype(np.float64)
        assert np.array_equal(np.signbit(yf), np.signbit(xf)) and np.array_equal(yf == 0, xf == 0)
        assert yf.min() >= bounds.lo and yf.max() <= bounds.hi
        normal = np.abs(xf) >= np.finfo(dtype).tiny  # a subnormal's rounding step is coarser
        ulp = float(np.finfo(dtype).eps)
        assert np.all(np.abs(yf[normal] / xf[normal] - 1) <= BOUND + ulp)
        assert np.mean(yf[normal] != xf[normal]) > 0.95


@pytest.mark.parametrize("dtype", INTEGERS)
def test_integers_step_by_at_most_one_within_their_range(dtype):
    x = _integers(dtype)
    bounds = bounds_of(x)
    y = perturbed(x, 99, bounds)
    step = y.astype(np.int64) - x.astype(np.int64)
    assert set(np.unique(step)) <= {-1, 0, 1}
    assert y.min() >= bounds.lo and y.max() <= bounds.hi
    assert 0.4 < np.mean(step != 0) < 0.6


def test_arrays_with_nothing_to_perturb_are_left_alone():
    assert bounds_of(np.array([np.nan, np.inf], dtype=np.float32)) is None
    assert bounds_of(np.array([], dtype=np.float32)) is None
    assert bounds_of(np.array([2**64 - 1], dtype=np.uint64)) is None  # beyond the kernel's signed bounds
    x = np.array([np.nan, np.inf], dtype=np.float32)
    assert np.array_equal(perturbed(x, 5, None), x, equal_nan=True)


@pytest.fixture(scope="module")
def host_library(build_cache) -> str:
    with Evaluator(quick_config(build_cache)) as evaluator:
        library = evaluator.jobs.host_perturb_library()
    assert library is not None
    return library


@pytest.mark.parametrize("dtype", FLOATS + INTEGERS + [np.uint16, np.int16, np.uint64])
def test_the_harness_host_library_perturbs_as_numpy_does(host_library, dtype):
    """The worker perturbs with the harness's C library; the parent reproduces a checked call's inputs
    with NumPy. They must agree bit for bit, or an honest candidate would fail."""
    x = _floats(dtype) if np.dtype(dtype).kind == "f" else _integers(dtype)
    bounds = bounds_of(x)
    assert bounds is not None
    mem = HostMemory(host_library)
    assert mem.perturb_host is not None
    raw = np.concatenate([np.zeros(256, np.uint8), x.view(np.uint8), np.zeros(256, np.uint8)])
    out = np.zeros_like(raw)
    for key in (0, 3, 2**64 - 1):
        mem.perturb(out, 256, raw, 256, x.nbytes, np.dtype(dtype).name, key, bounds, x)
        assert out[256 : 256 + x.nbytes].tobytes() == perturbed(x, key, bounds).tobytes()
        assert not out[:256].any() and not out[256 + x.nbytes :].any()  # nothing past the array


# ---- which inputs a task perturbs --------------------------------------------------------------


def _task_with(tmp_path: Path, extra: str, x_dtype: str = "float32", generator: str = '{ kind = "normal" }'):
    root = tmp_path / "t"
    root.mkdir(exist_ok=True)
    (root / "serial.cpp").write_text(
        "void f(int n, const int* idx, const %s* x, %s* out) { for (int i = 0; i < n; ++i) out[i] = x[idx[i]]; }"
        % (("float", "float") if x_dtype == "float32" else ("int", "int"))
    )
    c = "float" if x_dtype == "float32" else "int"
    (root / "task.toml").write_text(
        f"""id = "t"
title = "t"
category = "c"
difficulty = "easy"
split = "example"
function = "f"
signature = "void f(int n, const int* idx, const {c}* x, {c}* out)"
[[args]]
name = "n"
role = "size"
dtype = "int32"
[[args]]
name = "idx"
role = "input"
dtype = "int32"
length = "n"
generator = {{ kind = "permutation" }}
[[args]]
name = "x"
role = "input"
dtype = "{x_dtype}"
length = "n"
generator = {generator}
{extra}
[[args]]
name = "out"
role = "output"
dtype = "{x_dtype}"
length = "n"
[sizes]
test = [{{ n = 1 }}, {{ n = 7 }}]
bench = {{ n = 4096 }}
"""
    )
    return load_task(root)


def test_float_inputs_are_perturbed_by_default_and_integers_only_when_declared(tmp_path):
    task = _task_with(tmp_path, "")
    assert task.arg("x").perturbable and not task.arg("idx").perturbable and not task.arg("out").perturbable
    assert not _task_with(tmp_path, 'perturb = "none"').arg("x").perturbable
    assert not _task_with(tmp_path, "", generator='{ kind = "sorted" }').arg("x").perturbable
    # floats drawn as integers may be meant to tie or to sum exactly
    assert not _task_with(tmp_path, "", generator='{ kind = "integers", low = 0, high = 9 }').arg("x").perturbable
    assert not _task_with(tmp_path, "", x_dtype="int32", generator='{ kind = "integers", low = 0, high = 9 }').arg(
        "x"
    ).perturbable
    declared = _task_with(
        tmp_path, 'perturb = "values"', x_dtype="int32", generator='{ kind = "integers", low = 0, high = 9 }'
    )
    assert declared.arg("x").perturbable


@pytest.mark.parametrize(
    ("extra", "phrase"),
    [('perturb = "some"', "'some' is not one of values, none"), ("perturb = true", "is not one of")],
)
def test_a_bad_perturb_declaration_is_named(tmp_path, extra, phrase):
    with pytest.raises(TaskError, match=phrase):
        _task_with(tmp_path, extra)


# ---- the schedule of checked calls --------------------------------------------------------------


@pytest.mark.parametrize("seed", range(20))
def test_each_checked_call_falls_on_its_slots_set_in_its_window(seed):
    rng = np.random.default_rng(seed)
    sets, max_rounds = 2, 400
    sequence = set_sequence(rng, sets, max_rounds + 8 * sets + 8)
    slot_sets = [int(s) for s in rng.integers(0, sets, CHECKED_CALLS)]
    fresh = FreshInputs(list(range(CHECKED_CALLS)), slot_sets, [{}] * sets)
    timed_from = int(rng.integers(0, 4))
    plan = fresh.plan(sequence, timed_from, max_rounds, rng)
    assert all(sequence[r] == slot_sets[slot] for r, slot in plan.items())
    first = min(r for r, slot in plan.items() if slot == 0)
    assert timed_from <= first <= timed_from + 2 * sets - 2  # the first timed round of its set
    for w, (lo, hi) in enumerate(CHECK_WINDOWS, start=1):
        (r,) = [r for r, slot in plan.items() if slot == w]
        assert timed_from + lo <= r < timed_from + (hi or max_rounds)
    after = int(rng.integers(timed_from + 1, max_rounds + 1))
    final = fresh.final_round(sequence, after, plan)
    assert final >= after and final not in plan and sequence[final] == slot_sets[-1]
    assert final <= after + 2 * sets + 1  # at most a few rounds more than the timing wanted


def test_blocks_hold_every_set_once():
    sequence = set_sequence(np.random.default_rng(1), 3, 300)
    assert all(sorted(sequence[i : i + 3]) == [0, 1, 2] for i in range(0, 300, 3))


# ---- the worker: every timed call sees fresh values, other inputs as they were ------------------


def test_every_timed_call_sees_new_values_of_perturbable_inputs_and_the_rest_unchanged(tmp_path, host_library):
    """The worker's timing loop, in this process, with a recording function as the candidate: the
    float input is new at every call (never a repeat, never a base set), the index input is its set's,
    bit for bit, and each checked call's inputs are its slot's key applied to its slot's set."""
    n, sets = 4096, 2
    rng = np.random.default_rng(5)
    bench = tmp_path / "bench"
    base = []
    for s in range(sets):
        folder = bench / f"set{s}"
        folder.mkdir(parents=True)
        idx = rng.permutation(n).astype(np.int32)
        x = rng.standard_normal(n).astype(np.float32)
        np.save(folder / "idx.npy", idx)
        np.save(folder / "x.npy", x)
        base.append({"idx": idx, "x": x})
    (bench / "scalars.json").write_text(json.dumps({"n": n}))
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    job = {
        "args": [
            {"name": "n", "role": "size", "dtype": "int32", "array": False, "itemsize": 4},
            {"name": "idx", "role": "input", "dtype": "int32", "array": True, "itemsize": 4},
            {"name": "x", "role": "input", "dtype": "float32", "array": True, "itemsize": 4},
            {"name": "out", "role": "output", "dtype": "float32", "array": True, "itemsize": 4},
        ],
        "guard_bytes": 256,
        "canary": 0xA5,
        "poison": [0xFF, 0x7B],
        "out_dir": str(out_dir),
        "uses_cuda": False,
        "device_buffers": False,
        "host_perturb": host_library,
    }
    calls: list[dict[str, np.ndarray]] = []

    @ctypes.CFUNCTYPE(None, ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
    def recording(count, idx_ptr, x_ptr, out_ptr):
        idx = np.ctypeslib.as_array((ctypes.c_int32 * count).from_address(idx_ptr)).copy()
        x = np.ctypeslib.as_array((ctypes.c_float * count).from_address(x_ptr)).copy()
        np.ctypeslib.as_array((ctypes.c_float * count).from_address(out_ptr))[:] = x
        calls.append({"idx": idx, "x": x})

    keys = [int(k) for k in rng.integers(0, 2**63, CHECKED_CALLS)]
    slot_sets = [s % sets for s in range(CHECKED_CALLS)]
    bounds = [bounds_of(b["x"]) for b in base]
    spec = {
        "dir": str(bench),
        "sets": sets,
        "nbytes": {"idx": 4 * n, "x": 4 * n, "out": 4 * n},
        "libs": ["candidate"],
        "check_libs": ["candidate"],
        "warmup_rounds": 3,
        "min_rounds": 20,
        "min_s": 0.0,
        "max_rounds": 30,
        "budget_s": 60.0,
        "target_rse": 1.0,
        "order_seed": 1234,
        "flush_bytes": 1 << 16,
        "fresh": {
            "slots": [[s, k] for s, k in zip(slot_sets, keys)],
            "arrays": {"x": [b.to_list() for b in bounds]},
        },
    }
    with open(tmp_path / "channel", "wb") as sink:
        worker = Worker(job, Channel(sink.fileno()))
        worker.entries["candidate"] = recording
        worker.run_timing(spec)
    messages = [json.loads(line) for line in (tmp_path / "channel").read_text().splitlines()]
    timing = messages[-1]
    assert timing["event"] == "timing" and timing["fresh"] is True
    rounds = len([m for m in messages if m["event"] == "timing_progress"])
    assert len(calls) == rounds >= 23
    seen = {b["x"].tobytes() for b in base}
    for call in calls:
        assert any(np.array_equal(call["idx"], b["idx"]) for b in base)  # an index input, untouched
        assert call["x"].tobytes() not in seen  # never a base set, never an earlier call's values
        seen.add(call["x"].tobytes())
    checks = timing["checks"]
    assert [c["slot"] for c in checks] == sorted(c["slot"] for c in checks)
    assert {c["slot"] for c in checks} >= {0, 1, CHECKED_CALLS - 1}  # 30 rounds reach the first window
    assert checks[-1]["final"] and checks[-1]["round"] == rounds - 1
    for check in checks:
        s, key = slot_sets[check["slot"]], keys[check["slot"]]
        assert check["set"] == s
        expected_x = perturbed(base[s]["x"], key, bounds[s])
        assert np.array_equal(calls[check["round"]]["x"], expected_x)
        assert np.array_equal(calls[check["round"]]["idx"], base[s]["idx"])
        sent = np.fromfile(check["files"]["out"], dtype=np.float32)
        assert np.array_equal(sent, expected_x)  # the checked output the parent receives


# ---- the parent: expected outputs of the checked calls ------------------------------------------


def test_checked_calls_expected_outputs_are_the_reference_on_their_perturbed_inputs(evaluator, vec_scale):
    bench = evaluator.bench_reference(vec_scale)
    assert bench.fresh and len(bench.checked) == CHECKED_CALLS
    assert {c.seed_index for c in bench.checked} == set(range(len(bench.sets)))  # every set is checked
    assert len({c.perturb.key for c in bench.checked}) == CHECKED_CALLS
    a = np.float32(json.loads((bench.dir / "scalars.json").read_text())["a"])
    for case in bench.checked:
        inputs = perturbed_inputs(vec_scale, case)
        base_x = np.load(case.dir / "x.npy")
        assert inputs["x"].tobytes() != base_x.tobytes()
        assert np.array_equal(inputs["x"], perturbed(base_x, case.perturb.key, case.perturb.bounds["x"]))
        # serial.cpp computes a * x in float: NumPy's float32 product is the same, bit for bit
        assert np.array_equal(case.expected["out"], a * inputs["x"])
    assert all(not s.expected for s in bench.sets)  # no timed call sees a set unperturbed


def test_a_task_without_perturbable_inputs_rotates_its_sets_and_says_why(build_cache, tmp_path):
    task = _task_with(tmp_path, 'perturb = "none"')
    source = (
        'extern "C" void f(int n, const int* idx, const float* x, float* out) '
        "{ for (int i = 0; i < n; ++i) out[i] = x[idx[i]]; }"
    )
    with Evaluator(quick_config(build_cache)) as evaluator:
        ev = evaluator.evaluate(task, source, "cpu")
    assert ev.status == "correct", ev.message
    assert ev.timings["candidate"]["fresh_inputs"] is False
    assert "declares no perturbable input" in ev.timings["candidate"]["fresh_inputs_reason"]


def _judge(evaluator, task, checks):
    bench = evaluator.bench_reference(task)
    samples = {"candidate": {"host": [1e-3] * 5, "event": [1e-3] * 5, "set": [0, 1, 0, 1, 0]}}
    outcome = WorkerOutcome(messages=[{"event": "timing", "samples": samples, "checks": checks}])
    ev = Evaluation(task.id, "cpu", "correct", "", "x")
    evaluator.timing_judge().judge(ev, task, "cpu", bench, outcome)
    return ev


def _written(tmp_path: Path, values: np.ndarray, name: str) -> dict[str, str]:
    path = tmp_path / f"{name}.bin"
    values.tofile(path)
    return {"out": str(path)}


def test_each_checked_output_is_judged_against_its_own_calls_expected_values(evaluator, vec_scale, tmp_path):
    bench = evaluator.bench_reference(vec_scale)
    first, second = bench.checked[0], bench.checked[1]

    def check(round_index, slot, values, **extra):
        case = bench.checked[slot]
        files = _written(tmp_path, values, f"r{round_index}")
        return {"lib": "candidate", "round": round_index, "set": case.seed_index, "slot": slot, "files": files,
                "late": {}, "final": False, **extra}  # fmt: skip

    right = [check(3, 0, first.expected["out"]), check(5, 1, second.expected["out"])]
    assert _judge(evaluator, vec_scale, right).status == "correct"
    # the second call's output replayed from the first: right values for another call's inputs
    replayed = _judge(evaluator, vec_scale, [check(3, 0, first.expected["out"]), check(5, 1, first.expected["out"])])
    assert replayed.status == "integrity_violation" and "behaves differently on later calls" in replayed.message
    wrong_first = _judge(evaluator, vec_scale, [check(3, 0, second.expected["out"])])
    assert wrong_first.status == "wrong_answer" and "wrong at the bench size" in wrong_first.message


@pytest.mark.parametrize(
    "change",
    [
        {"slot": 7},  # no such checked call
        {"slot": "0"},
        {"set_shift": 1},  # on another set than its expected outputs were computed for
        {"same_as": 3},  # an identity claim: no two calls share inputs
        {"repeat": True},  # one checked call reported twice
    ],
)
def test_a_worker_report_of_an_unplanned_check_is_a_protocol_error(evaluator, vec_scale, tmp_path, change):
    bench = evaluator.bench_reference(vec_scale)
    case = bench.checked[1]
    files = _written(tmp_path, case.expected["out"], "c")
    good = {"lib": "candidate", "round": 3, "set": bench.checked[0].seed_index, "slot": 0, "late": {}, "final": False,
            "files": _written(tmp_path, bench.checked[0].expected["out"], "g")}  # fmt: skip
    claim = {"lib": "candidate", "round": 9, "set": case.seed_index, "slot": 1, "files": files, "late": {}, "final": True}
    if "slot" in change:
        claim["slot"] = change["slot"]
    if "set_shift" in change:
        claim["set"] = (case.seed_index + 1) % len(bench.sets)
    if "same_as" in change:
        claim.update(files={}, same_as=3)
    if "repeat" in change:
        claim = dict(good, round=9)
    ev = _judge(evaluator, vec_scale, [good, claim])
    assert ev.status == "runtime_error", ev.message
    assert "harness protocol error" in ev.message


def test_a_custom_checker_judges_a_checked_call_on_its_perturbed_inputs(evaluator):
    """argmax_any declares its integer values perturbable: any index of a maximum of the inputs the
    call saw is right, which only the perturbed inputs can tell."""
    task = load_task(HERE / "tasks" / "argmax_any")
    bench = evaluator.bench_reference(task)
    assert bench.fresh
    ev = evaluator.evaluate(task, candidate("argmax_last.cpp"), "cpu")  # differs from serial's answer
    assert ev.status == "correct", ev.message
    assert ev.timings["candidate"]["fresh_inputs"] is True
    case = bench.checked[0]
    x = np.asarray(perturbed_inputs(task, case)["x"])
    base = np.load(case.dir / "x.npy")
    assert not np.array_equal(x, base) and np.abs(x.astype(np.int64) - base).max() == 1
    assert x[int(case.expected["index"][0])] == x.max()  # the reference's answer, on these inputs


# ---- memorizing candidates ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def sin_series():
    return load_task(HERE / "tasks" / "sin_series")


def _speedup(ev) -> float:
    assert ev.status == "correct", ev.message
    return ev.speedups["serial"]["value"]


@pytest.fixture(scope="module")
def rotating(build_cache):
    timing = TimingConfig(budget_s=0.3, min_rounds=10, serial_budget_s=0.3, fresh_inputs=False)
    with Evaluator(quick_config(build_cache, timing_config=timing)) as ev:
        yield ev


def test_a_memorizing_candidate_is_timed_as_if_it_did_the_work(evaluator, rotating, sin_series):
    """The candidate recognizes an input it has seen from four elements and replays its output. With
    the sets rotated as drawn it looks hundreds of times faster than the honest one; with fresh
    inputs it finds nothing to replay, and is timed as what it is."""
    # Three interleaved pairs, compared at their best: on a loaded 2-core machine one evaluation's
    # median moves by up to 2x either way (CI: memo 1.98 vs honest 1.24 once, then 0.43 vs 0.86), and
    # the best of three is what load spikes leave alone; a memo that still replayed would lead at its best too.
    honest, memo = [], []
    for i in range(3):
        honest.append(_speedup(evaluator.evaluate(sin_series, candidate("sin_series_honest.cpp") + f"\n// {i}\n", "cpu")))
        ev = evaluator.evaluate(sin_series, candidate("sin_series_memo.cpp") + f"\n// {i}\n", "cpu")
        assert ev.timings["candidate"]["fresh_inputs"] is True
        memo.append(_speedup(ev))
    assert max(memo) <= 1.5 * max(honest), (memo, honest)
    # The hole this closes: without fresh inputs the same candidate is "correct" and far faster.
    rotated = rotating.evaluate(sin_series, candidate("sin_series_memo.cpp"), "cpu")
    assert rotated.timings["candidate"]["fresh_inputs"] is False
    assert _speedup(rotated) > 10 * max(honest)


def test_a_candidate_that_recognizes_a_set_despite_the_perturbation_is_wrong(evaluator, sin_series):
    """Matching sampled elements within 1% finds the set again under any perturbation; the output it
    cached for an earlier call is then wrong for this call's inputs, and a checked call finds it."""
    ev = evaluator.evaluate(sin_series, candidate("sin_series_memo_near.cpp"), "cpu")
    assert ev.status in ("wrong_answer", "integrity_violation"), ev.message
    assert "`out`" in ev.message and ev.reward == -1.0


def test_the_perturbation_moves_the_task_outputs_beyond_their_tolerance(evaluator, sin_series):
    """What makes replaying an earlier call's output fail: two checked calls of one set differ
    beyond the tolerance (so a set recognized under the perturbation gains nothing)."""
    from regrapht.eval import correctness

    bench = evaluator.bench_reference(sin_series)
    out = sin_series.arg("out")
    for a in bench.checked:
        for b in bench.checked:
            if a is not b and a.seed_index == b.seed_index:
                assert correctness.compare(a.expected["out"], b.expected["out"], out.tolerance) is not None


def test_checked_outputs_judged_on_the_device_are_judged_against_their_own_call(build_cache, tmp_path, vec_scale):
    """The device judge (a stand-in here; the CUDA half runs in test_gpu.py) compares each checked
    call's output with that call's expected values, named by its slot."""
    from regrapht.eval.evaluator import CandidateRun
    from regrapht.eval.reference import BenchReference, Perturbation, RefCase
    from tests.eval.test_device_verdicts import StandInJudge, judge_timing

    outputs = [np.linspace(-1.0, 1.0, 1000, dtype=np.float32) * (slot + 1) for slot in range(CHECKED_CALLS)]
    nbytes = {"x": 4000, "out": 4000}
    sets = [RefCase(f"bench set {s + 1}", {"n": 1000}, s, tmp_path, {}, nbytes) for s in range(2)]
    checked = [
        RefCase(f"checked {j}", {"n": 1000}, j % 2, tmp_path, {}, nbytes, {"out": outputs[j]}, Perturbation(j, {}))
        for j in range(CHECKED_CALLS)
    ]
    bench = BenchReference(tmp_path, sets, [1e-3] * 5, checked=checked)
    handles = {f"{j:02x}" * 64: outputs[j] for j in range(CHECKED_CALLS)}
    with Evaluator(quick_config(build_cache)) as evaluator:
        evaluator.device_judging.judge = StandInJudge(handles)
        run = CandidateRun(job_dir=tmp_path, bench=bench)

        def anchor(slot, round_index, handle_of, set_index=None):
            return {"event": "anchor", "lib": "candidate", "round": round_index, "slot": slot,
                    "set": slot % 2 if set_index is None else set_index, "handles": {"out": f"{handle_of:02x}" * 64}}  # fmt: skip

        def check(slot, round_index):
            return {"lib": "candidate", "round": round_index, "set": slot % 2, "slot": slot, "late": {},
                    "final": False, "files": {}, "judged_on_device": True}  # fmt: skip

        assert evaluator.device_judging.judge_anchor(vec_scale, run, anchor(0, 3, 0)) is True
        assert run.device_verdicts[("candidate", 0)].problem is None
        right = judge_timing(evaluator, vec_scale, bench, run, [check(0, 3)])
        assert right.status == "correct", right.message
        assert evaluator.device_judging.judge_anchor(vec_scale, run, anchor(2, 9, 2, set_index=1)) is False  # not its set
        assert evaluator.device_judging.judge_anchor(vec_scale, run, anchor(0, 3, 0)) is False  # judged already
        assert evaluator.device_judging.judge_anchor(vec_scale, run, anchor(1, 5, 0)) is True  # slot 0's output for slot 1
        assert "`out`" in run.device_verdicts[("candidate", 1)].problem
        replayed = judge_timing(evaluator, vec_scale, bench, run, [check(0, 3), check(1, 5)])
        assert replayed.status == "integrity_violation", replayed.message


def test_a_candidate_that_only_replays_what_it_has_seen_is_caught(evaluator, rotating, sin_series):
    """Honest at first, then a replay for inputs seen before and nothing at all for new ones: with
    fresh inputs every timed call is new, so checked calls find its garbage; rotating the sets, it
    would pass, timed on replays."""
    ev = evaluator.evaluate(sin_series, candidate("sin_series_lazy_unseen.cpp"), "cpu")
    assert ev.status == "integrity_violation", ev.message
    assert "behaves differently on later calls" in ev.message
    rotated = rotating.evaluate(sin_series, candidate("sin_series_lazy_unseen.cpp"), "cpu")
    assert rotated.status == "correct", rotated.message


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_large_inputs_perturbed_on_every_core_equal_numpys(host_library, dtype):
    """Above 2^18 elements the host library splits the work between threads: the same values."""
    n = (1 << 19) + 3
    x = _floats(dtype, n) if np.dtype(dtype).kind == "f" else _integers(dtype, n)
    bounds = bounds_of(x)
    raw = x.view(np.uint8).copy()
    out = np.zeros_like(raw)
    HostMemory(host_library).perturb(out, 0, raw, 0, raw.size, np.dtype(dtype).name, 77, bounds, x)
    assert out.tobytes() == perturbed(x, 77, bounds).tobytes()
