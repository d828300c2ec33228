"""On the GPU: a worker copies its bench inputs from the parent's device masters (eval/bench_masters.py)
over CUDA IPC before the candidate loads, the device's keyed sum is the host's, a master changed
behind the parent's back is uploaded again before the next worker copies it, and a candidate that
goes looking for the masters' handles finds none (the next candidate's verdict is untouched)."""

from __future__ import annotations

import numpy as np
import pytest

from regrapht.eval import Evaluator
from regrapht.eval.bench_masters import keyed_sum_host
from tests.eval.conftest import candidate, quick_config

pytestmark = pytest.mark.gpu


def _masters(ev: Evaluator):
    judging = ev.candidates.device_judging
    assert judging.masters is not None, judging.masters_off or judging.off
    return judging.masters


def test_a_built_task_s_inputs_are_copied_from_the_parent_s_device_masters(build_cache, vec_scale):
    source = candidate("correct.cu", "hostile_cuda")
    with Evaluator(quick_config(build_cache, call_timeout_s=15.0)) as ev:
        ev.bench_reference(vec_scale)  # built before the batch: its workers get the masters' handles
        records = ev.evaluate_many([(vec_scale, source, "cuda"), (vec_scale, source + "\n// 2\n", "cuda")])
        masters = _masters(ev)
        sets = ev.config.timing_config.input_sets
        assert masters.uploads == sets and masters.repairs == 0  # once per task, not per worker
        for master in masters.masters.values():
            for array in master.arrays:  # the device's sum, recorded at upload, is the host's
                assert array.keyed == keyed_sum_host(np.load(array.path), masters.key)
    for record in records:
        assert record.status == "correct", record.message
        assert record.seconds["inputs_copy"] > 0 and "inputs_copy_failed" not in record.seconds
        assert "inputs_offer_ahead" in record.seconds
        assert record.timings["candidate"]["judged_on_device"] is True


def test_a_changed_master_is_uploaded_again_before_the_next_worker_copies_it(build_cache, vec_scale):
    source = candidate("correct.cu", "hostile_cuda")
    with Evaluator(quick_config(build_cache, call_timeout_s=15.0)) as ev:
        ev.bench_reference(vec_scale)
        first = ev.evaluate(vec_scale, source, "cuda")
        masters = _masters(ev)
        (master,) = masters.masters.values()
        rt = ev.candidates.device_judging.judge.rt
        rt.memset(master.arrays[0].ptr, 0, 4096)  # as a worker that reached it would
        assert rt.synchronize() == 0
        second = ev.evaluate(vec_scale, source + "\n// 2\n", "cuda")
        assert masters.repairs == 1
    for record in (first, second):
        assert record.status == "correct", record.message
        assert record.seconds["inputs_copy"] > 0


def test_a_candidate_that_looks_for_the_masters_handles_cannot_change_the_next_verdict(build_cache, vec_scale):
    """It reads the handles file where the parent wrote it (and where job.json says it is) at load and
    at its first call, and zeroes whatever the handles map: the file is gone before it loads."""
    config = quick_config(build_cache, call_timeout_s=15.0, static_screen=False, symbol_screen=False)
    with Evaluator(config) as ev:
        ev.bench_reference(vec_scale)
        hostile, honest = ev.evaluate_many(
            [
                (vec_scale, candidate("reaches_master_inputs.cu", "hostile_cuda"), "cuda"),
                (vec_scale, candidate("correct.cu", "hostile_cuda"), "cuda"),
            ]
        )
        masters = _masters(ev)
        assert masters.repairs == 0  # nothing it did reached a master
        for master in masters.masters.values():
            for array in master.arrays:
                assert array.keyed == keyed_sum_host(np.load(array.path), masters.key)
    assert hostile.seconds["inputs_copy"] > 0 and honest.seconds["inputs_copy"] > 0
    assert honest.status == "correct", honest.message
