"""Input sets staged on the device once per task (EvalConfig.stage_inputs_ahead): workers copy them
from the parent's device copy before their candidate loads, instead of uploading the files. The
verdicts and speedups must not change, and a second candidate of the task must find them staged.

Run on the GPU machine: PYTHONPATH=src pytest -m gpu tests/eval/test_gpu_prestage.py
"""

from __future__ import annotations

import pytest

from regrapht.eval import Evaluator
from regrapht.tasks import builtin_tasks_root, load_task
from tests.eval.conftest import quick_config

pytestmark = pytest.mark.gpu
SAXPY = builtin_tasks_root() / "examples" / "saxpy"


@pytest.mark.parametrize("sandbox", [True, False])
def test_prestaged_inputs_give_the_same_verdicts_and_skip_the_upload(build_cache, sandbox):
    task = load_task(SAXPY)
    sources = [(SAXPY / "candidates" / name).read_text() for name in ("correct.cu", "correct.cu", "wrong.cu")]
    sources[1] += "\n// the same kernel, compiled again\n"
    items = [(task, source, "cuda") for source in sources]
    records = {}
    for ahead in (True, False):
        config = quick_config(build_cache, stage_inputs_ahead=ahead, sandbox=sandbox)
        with Evaluator(config) as evaluator:
            records[ahead] = evaluator.evaluate_many(items)
    assert [r.status for r in records[True]] == [r.status for r in records[False]] == ["correct", "correct", "wrong_answer"]
    for on, off in zip(records[True][:2], records[False][:2]):
        assert on.timings["candidate"]["n"] > 0
        ratio = on.speedups["naive"]["value"] / off.speedups["naive"]["value"]
        assert 0.9 < ratio < 1.1  # the same kernel on the same inputs
    staged = [r.seconds for r in records[True][:2]]
    # the first candidate's task data was built when its worker started (the batch waits for it):
    # both found the inputs on the device, and neither uploaded them at its timing
    assert all(s.get("staging_prestage", 0.0) > 0.0 for s in staged), staged
    assert all(s["staging_sets"] < 0.05 for s in staged), staged
    assert all("staging_prestage" not in r.seconds or r.seconds["staging_prestage"] == 0.0 for r in records[False])
