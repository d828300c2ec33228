"""Within a batch, a task's bench data is handed out once its inputs and expected outputs exist: the
serial timing in turns runs after it, beside the candidate's own timing, and only the candidate's
verdict (its speedup over serial) waits for it. Outside a batch the timing is quiet and comes first."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from regrapht.eval import Evaluator
from regrapht.eval.oracle import Oracle
from regrapht.eval.record import hierarchical_reward
from regrapht.eval.serial_baselines import SerialBaseline
from tests.eval.conftest import candidate, quick_config

SLOW_S = 2.0  # added to every serial timing in turns: far above a candidate's wait for its data


def _config(tmp_path: Path, build_cache: Path, keep: bool):
    config = quick_config(build_cache, serial_store=str(tmp_path / "baselines.sqlite"))
    # Acceptance that does not depend on how busy the shared test machine is: every timing kept,
    # or none (then the batch's end settles it).
    config.timing_config.serial_max_median_error = 1e9
    config.timing_config.serial_max_background = 1e9 if keep else -1.0
    return config


@pytest.fixture
def slow_serial_in_turns(monkeypatch) -> list[tuple[bool, float]]:
    """Serial timings made SLOW_S slower when in turns; records (quiet, when it ended)."""
    real = Oracle.time_serial
    ended: list[tuple[bool, float]] = []

    def slow(self, task, root, cases, hold, quiet) -> SerialBaseline:
        if not quiet:
            time.sleep(SLOW_S)
        baseline = real(self, task, root, cases, hold, quiet)
        ended.append((quiet, time.monotonic()))
        return baseline

    monkeypatch.setattr(Oracle, "time_serial", slow)
    return ended


def test_a_candidate_in_a_batch_does_not_wait_for_its_task_serial_timing(
    tmp_path, build_cache, vec_scale, slow_serial_in_turns
):
    config = _config(tmp_path, build_cache, keep=True)
    config.timing_config.serial_quiet = False  # no settling at the end: the record keeps the batch's timing
    with Evaluator(config) as evaluator:
        [ev] = evaluator.evaluate_many([(vec_scale, candidate("correct.cpp"), "cpu")])
    assert ev.status == "correct", ev.message
    assert ev.seconds["bench_wait"] < SLOW_S / 2, "the worker waited for the serial timing"
    assert ev.seconds["serial_wait"] >= 0.0  # the verdict's wait for it, after the worker ended
    assert [quiet for quiet, _ in slow_serial_in_turns] == [False]
    serial = ev.timings["serial"]
    assert serial["source"] == "measured" and serial["samples"] > 0 and "restated_from" not in serial
    # The verdict waited for the timing that ran after the worker began timing, and divides by it.
    speedup = serial["median_s"] / ev.timings["candidate"]["median_s"]
    assert ev.speedups["serial"]["value"] == pytest.approx(speedup)
    assert ev.reward == pytest.approx(hierarchical_reward("correct", speedup))


def test_a_settled_record_says_what_it_restated(tmp_path, build_cache, vec_scale, slow_serial_in_turns):
    with Evaluator(_config(tmp_path, build_cache, keep=False)) as evaluator:
        [ev] = evaluator.evaluate_many([(vec_scale, candidate("correct.cpp"), "cpu")])
    assert ev.status == "correct", ev.message
    assert [quiet for quiet, _ in slow_serial_in_turns][:2] == [False, True]  # in turns, then alone
    serial = ev.timings["serial"]
    assert serial["quiet"] and serial["restated_from"]["quiet"] is False
    assert serial["restated_from"]["median_s"] > 0 and "alone" in serial["restated_from"]["why"]


def test_outside_a_batch_the_quiet_timing_comes_before_the_data(
    tmp_path, build_cache, vec_scale, slow_serial_in_turns
):
    with Evaluator(_config(tmp_path, build_cache, keep=True)) as evaluator:
        bench = evaluator.bench_reference(vec_scale)
        assert bench.serial_timing is None and bench.serial_samples  # timed before it was handed out
    assert [quiet for quiet, _ in slow_serial_in_turns] == [True]


@pytest.mark.gpu
def test_a_cuda_candidate_in_a_batch_times_and_is_judged_on_the_device_before_its_serial_timing_ends(
    tmp_path, build_cache, vec_scale, slow_serial_in_turns
):
    """Run on the GPU machine: pytest -m gpu tests/eval/test_serial_after.py"""
    config = _config(tmp_path, build_cache, keep=True)
    config.call_timeout_s = 15.0
    config.timing_config.serial_quiet = False
    with Evaluator(config) as evaluator:
        [ev] = evaluator.evaluate_many([(vec_scale, candidate("correct.cu", "hostile_cuda"), "cuda")])
    assert ev.status == "correct", ev.message
    assert ev.seconds["bench_wait"] < SLOW_S / 2, "the worker waited for the serial timing"
    assert ev.timings["candidate"]["fresh_inputs"]
    assert ev.timings["serial"]["samples"] > 0
    speedup = ev.timings["serial"]["median_s"] / ev.timings["candidate"]["median_s"]
    assert ev.speedups["serial"]["value"] == pytest.approx(speedup)
