"""The cpu target end to end, and every integrity defence that can be shown without a GPU."""

from __future__ import annotations

import pytest

from regrapht.eval import Evaluator
from tests.eval.conftest import candidate, quick_config


def test_correct_candidate_is_timed_against_serial(evaluator, vec_scale):
    ev = evaluator.evaluate(vec_scale, candidate("correct.cpp"), "cpu")
    assert ev.status == "correct", ev.message
    assert len(ev.cases) == 3 * len(vec_scale.test_sizes)
    assert all(c.status == "correct" for c in ev.cases)
    cand, serial = ev.timings["candidate"], ev.timings["serial"]
    # min_rounds (10), or at least the floor of 5 once a loaded machine spends the time budget
    assert cand["n"] >= 5 and serial["n"] >= 3
    assert cand["q1_s"] <= cand["median_s"] <= cand["q3_s"]
    assert cand["hold_s"] == 0.0  # host calls are timed on the host clock: no hold before them
    s = ev.speedups["serial"]
    assert s["ci_low"] <= s["value"] <= s["ci_high"]
    assert s["value"] == pytest.approx(serial["median_s"] / cand["median_s"])
    expected_reward = s["value"] if s["value"] >= 1 else s["value"] - 1
    assert ev.reward == pytest.approx(expected_reward)
    assert ev.fingerprint["target"] == "cpu" and ev.fingerprint["gxx"]
    assert "plausibility" in ev.roofline["note"]
    # where the time went: the task's bench-data build, and the worker's phases within its time
    assert ev.seconds["bench_build"] > 0
    assert ev.seconds["timing"] <= ev.seconds["worker"]


def test_wrong_answer_names_index_expected_and_actual(evaluator, vec_scale):
    ev = evaluator.evaluate(vec_scale, candidate("wrong.cpp"), "cpu")
    assert ev.status == "wrong_answer"
    assert "bench_build" not in ev.seconds  # never built for a wrong candidate
    assert "`out`" in ev.message and "first at index 0" in ev.message
    assert "expected" in ev.message and "got" in ev.message
    assert ev.reward == -1.0
    assert ev.timings == {}  # a wrong candidate is never timed


@pytest.mark.parametrize(
    ("name", "status", "phrase"),
    [
        ("partial.cpp", "wrong_answer", "unwritten (first at index 1)"),
        ("unwritten.cpp", "wrong_answer", "elements of `out` unwritten (first at index 0)"),
        ("mutates_input.cpp", "integrity_violation", "modified an input the task declares read-only"),
        ("out_of_bounds.cpp", "wrong_answer", "wrote out of bounds of `out`"),
        ("cache_by_pointer.cpp", "wrong_answer", "seed 2"),
        ("nondeterministic.cpp", "wrong_answer", "differ between two runs"),
        ("lazy_later.cpp", "integrity_violation", "behaves differently on later calls"),
    ],
)
def test_cheats_and_bugs_are_caught_with_a_reason(evaluator, vec_scale, name, status, phrase):
    ev = evaluator.evaluate(vec_scale, candidate(name), "cpu")
    assert ev.status == status, ev.message
    assert phrase in ev.message
    assert ev.reward == -1.0


def test_infinite_loop_is_a_timeout(unscreened, vec_scale):
    ev = unscreened.evaluate(vec_scale, candidate("infinite_loop.cpp"), "cpu")
    assert ev.status == "timeout"
    assert "no progress" in ev.message and "correctness case 1, run 1" in ev.message


def test_segfault_is_a_runtime_error(unscreened, vec_scale):
    ev = unscreened.evaluate(vec_scale, candidate("segfault.cpp"), "cpu")
    assert ev.status == "runtime_error"
    assert "SIGSEGV" in ev.message


def test_exit_is_caught_by_the_screen_and_at_run_time(evaluator, unscreened, vec_scale):
    screened = evaluator.evaluate(vec_scale, candidate("calls_exit.cpp"), "cpu")
    assert screened.status == "integrity_violation"
    assert "process_control" in screened.message and "line 4" in screened.message
    ran = unscreened.evaluate(vec_scale, candidate("calls_exit.cpp"), "cpu")
    assert ran.status == "runtime_error"
    assert "ended on its own" in ran.message


def test_timer_use_is_blocked_before_running(evaluator, vec_scale):
    ev = evaluator.evaluate(vec_scale, candidate("reads_timer.cpp"), "cpu")
    assert ev.status == "integrity_violation"
    assert "[timer]" in ev.message
    assert ev.compile == {}  # never compiled


def test_huge_stdout_is_capped_and_harmless(unscreened, vec_scale):
    ev = unscreened.evaluate(vec_scale, candidate("huge_stdout.cpp"), "cpu")
    assert ev.status == "correct", ev.message
    assert 0 < len(ev.output_head) <= 2000


def test_memory_hog_is_stopped(unscreened, vec_scale):
    ev = unscreened.evaluate(vec_scale, candidate("memory_hog.cpp"), "cpu")
    assert ev.status == "runtime_error"
    assert "GiB of host memory" in ev.message


def test_compile_errors_are_trimmed_and_located(evaluator, vec_scale):
    ev = evaluator.evaluate(vec_scale, candidate("syntax_error.cpp"), "cpu")
    assert ev.status == "compile_error"
    assert "candidate.cpp:2" in ev.message and "error" in ev.message
    assert "/tmp" not in ev.message  # build folders are hidden
    assert ev.message.count("\n") < 40


def test_signature_mismatch_is_explained(evaluator, vec_scale):
    ev = evaluator.evaluate(vec_scale, candidate("wrong_signature.cpp"), "cpu")
    assert ev.status == "compile_error"
    assert "signature does not match" in ev.message


def test_undefined_symbols_fail_at_link_time(evaluator, vec_scale):
    ev = evaluator.evaluate(vec_scale, candidate("undefined_symbol.cpp"), "cpu")
    assert ev.status == "compile_error"
    assert "helper_that_does_not_exist" in ev.message


def test_batch_verdicts_equal_one_at_a_time(build_cache, vec_scale):
    names = [
        "correct.cpp",
        "wrong.cpp",
        "partial.cpp",
        "syntax_error.cpp",
        "reads_timer.cpp",
        "mutates_input.cpp",
    ]
    sources = [candidate(n) for n in names]
    with Evaluator(quick_config(build_cache, timing=False)) as single:
        one_by_one = [single.evaluate(vec_scale, s, "cpu").verdict_signature() for s in sources]
    with Evaluator(quick_config(build_cache, timing=False)) as batch:
        together = [
            e.verdict_signature() for e in batch.evaluate_many([(vec_scale, s, "cpu") for s in sources])
        ]
    assert together == one_by_one
    assert [v["status"] for v in together] == [
        "correct",
        "wrong_answer",
        "wrong_answer",
        "compile_error",
        "integrity_violation",
        "integrity_violation",
    ]


def test_inputs_depend_on_the_secret(build_cache, vec_scale):
    def first_input(secret: bytes):
        with Evaluator(quick_config(build_cache, secret=secret, timing=False)) as ev:
            return ev.case_reference(vec_scale).cases[-1].inputs["x"].copy()

    a, b, a_again = first_input(b"one"), first_input(b"two"), first_input(b"one")
    assert (a == a_again).all()
    assert not (a == b).all()


def test_custom_checker_accepts_any_valid_answer_and_guards_timed_calls(evaluator):
    """check.py judges outputs with several valid answers, in the correctness cases and at the bench size."""
    from regrapht.tasks import load_task
    from tests.eval.conftest import HERE

    task = load_task(HERE / "tasks" / "argmax_any")
    honest = evaluator.evaluate(task, candidate("argmax_last.cpp"), "cpu")  # differs from serial, still valid
    assert honest.status == "correct", honest.message
    lazy = evaluator.evaluate(task, candidate("argmax_lazy.cpp"), "cpu")
    assert lazy.status == "integrity_violation", lazy.message
    assert "task checker:" in lazy.message and "behaves differently on later calls" in lazy.message
