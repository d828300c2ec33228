"""The serial baseline on the GPU machine: in a cuda batch (compiles, spares, candidates on the device),
each serial timing runs alone and is kept, and a later evaluator divides by the kept one.

Run on the GPU machine: pytest -m gpu tests/eval/test_gpu_serial_baseline.py
"""

from __future__ import annotations

import pytest

from regrapht.eval import Evaluator
from regrapht.tasks import load_task
from tests.eval.conftest import HERE, candidate, quick_config

pytestmark = pytest.mark.gpu


def test_a_cuda_batch_times_each_serial_baseline_alone_and_a_later_run_reuses_it(tmp_path, build_cache, vec_scale):
    host = load_task(HERE / "tasks" / "vec_scale_host")
    config = quick_config(
        build_cache, call_timeout_s=15.0, serial_store=str(tmp_path / "baselines.sqlite"), reference_threads=2
    )
    config.timing_config.serial_quiet_wait_s = 600.0
    config.timing_config.serial_max_median_error = 1e9  # kept whatever the samples' spread on a 0.3 s budget
    items = [
        (task, candidate("correct.cu", "hostile_cuda") + f"\n// variant {i}\n", "cuda")
        for i in range(3)
        for task in (vec_scale,)
    ] + [(host, candidate("correct.cpp") + f"\n// variant {i}\n", "cpu") for i in range(2)]
    with Evaluator(config) as evaluator:
        first = evaluator.evaluate_many(items)
    assert all(r.status == "correct" for r in first), [r.message for r in first]
    serials = [r.timings["serial"] for r in first]
    assert all(s["source"] == "measured" and s["quiet"] for s in serials)
    # A dedicated GPU host: the evaluator's own work paused, little else runs.
    assert all(s["background_cores"] is not None and s["background_cores"] <= 0.5 for s in serials), serials
    config.secret = b"a later run"
    with Evaluator(config) as evaluator:
        later = evaluator.evaluate_many(items[:1] + items[-1:])
    for before, after in zip((first[0], first[-1]), later):
        assert after.timings["serial"]["source"] == "store"
        assert after.timings["serial"]["median_s"] == before.timings["serial"]["median_s"]
