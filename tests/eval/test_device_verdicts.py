"""The parent's side of judging timed outputs in device memory, with a stand-in for the CUDA judge:
how a worker's `anchor` message becomes a verdict, and how the timing judgement uses that verdict.
The CUDA half (IPC, the comparison kernel) runs in tests/eval/test_gpu.py."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from regrapht.eval import Evaluation, Evaluator
from regrapht.eval.cudart import CudaError
from regrapht.eval.device_judge import DeviceCount
from regrapht.eval.evaluator import CandidateRun
from regrapht.eval.reference import BenchReference, RefCase
from regrapht.eval.runner import WorkerOutcome
from tests.eval.conftest import quick_config


class StandInJudge:
    """Answers `count` as the real judge would for a handle that maps `outputs[handle]`."""

    def __init__(self, outputs: dict[str, np.ndarray], fail: Exception | None = None):
        self.outputs, self.fail, self.closed = outputs, fail, False
        self.forgotten: list[str] = []

    def count(self, key, set_index, name, handle_hex, tolerance, expected) -> DeviceCount:
        if self.fail is not None:
            raise self.fail
        if handle_hex not in self.outputs:
            raise ValueError(f"the worker's handle for `{name}` does not open: unknown handle")
        actual = self.outputs[handle_hex]
        bad = int(np.count_nonzero(~np.isclose(actual, expected, rtol=tolerance.rtol, atol=tolerance.atol)))
        return DeviceCount(bad, actual if bad else None)

    def close(self) -> None:
        self.closed = True

    def forget(self, key: str) -> None:
        self.forgotten.append(key)


@pytest.fixture
def judged(tmp_path: Path, build_cache: Path, vec_scale):
    expected = np.linspace(-1.0, 1.0, 1000, dtype=np.float32)
    sets = [
        RefCase(
            f"bench set {s + 1}", {"n": 1000}, s, tmp_path, {}, {"x": 4000, "out": 4000}, {"out": expected}
        )
        for s in range(2)
    ]
    bench = BenchReference(tmp_path, sets, [1e-3] * 5)
    wrong = expected.copy()
    wrong[17] += 0.5
    judge = StandInJudge({"aa" * 64: expected, "bb" * 64: wrong})
    with Evaluator(quick_config(build_cache)) as evaluator:
        evaluator.device_judging.judge = judge
        yield evaluator, bench, vec_scale


def anchor(lib="candidate", set_index=0, round_index=3, handle="aa" * 64) -> dict:
    return {"event": "anchor", "lib": lib, "set": set_index, "round": round_index, "handles": {"out": handle}}


def timing_with(checks: list[dict]) -> WorkerOutcome:
    samples = {"host": [1.1e-3] * 10, "event": [1e-3] * 10, "set": [0, 1] * 5}
    outcome = WorkerOutcome()
    outcome.messages.append(
        {
            "event": "timing",
            "samples": {"candidate": samples},
            "checks": checks,
            "hold_s": 0.0,
            "check_s": 0.0,
        }
    )
    return outcome


def check(round_index: int, set_index: int, **extra) -> dict:
    return {"lib": "candidate", "round": round_index, "set": set_index, "late": {}, "final": False, **extra}


def judge_timing(evaluator: Evaluator, task, bench, run: CandidateRun, checks: list[dict]) -> Evaluation:
    ev = Evaluation(task_id=task.id, target="cuda", status="correct", message="", candidate_sha256="")
    evaluator.timing_judge().judge(ev, task, "cuda", bench, timing_with(checks), run.device_verdicts)
    return ev


def test_right_outputs_judged_on_device_pass(judged):
    evaluator, bench, task = judged
    run = CandidateRun(job_dir=bench.dir, bench=bench)
    assert evaluator.device_judging.judge_anchor(task, run, anchor(set_index=0, round_index=3)) is True
    assert evaluator.device_judging.judge_anchor(task, run, anchor(set_index=1, round_index=4)) is True
    checks = [check(3, 0, files={}, judged_on_device=True), check(4, 1, files={}, judged_on_device=True)]
    checks.append(check(9, 0, files={}, same_as=3))
    ev = judge_timing(evaluator, task, bench, run, checks)
    assert ev.status == "correct", ev.message
    assert ev.timings["candidate"]["judged_on_device"] is True


def test_a_wrong_output_judged_on_device_is_described_from_the_host_copy(judged):
    evaluator, bench, task = judged
    run = CandidateRun(job_dir=bench.dir, bench=bench)
    evaluator.device_judging.judge_anchor(task, run, anchor(handle="bb" * 64))
    ev = judge_timing(evaluator, task, bench, run, [check(3, 0, files={}, judged_on_device=True)])
    assert ev.status == "wrong_answer"
    assert "wrong at the bench size" in ev.message and "first at index 17" in ev.message


def test_a_handle_that_does_not_open_sends_the_output_as_a_file(judged):
    """Forged, or this platform's IPC failing: either way the worker is told to send a file, which
    is judged in full, so the candidate is neither blamed nor passed on the parent's failure."""
    evaluator, bench, task = judged
    run = CandidateRun(job_dir=bench.dir, bench=bench)
    assert evaluator.device_judging.judge_anchor(task, run, anchor(handle="cc" * 64)) is False
    assert run.device_verdicts == {}
    assert evaluator.device_judging.judge is not None  # not the judge's own failure: it stays


def test_the_parents_own_cuda_failure_retires_the_judge(judged):
    evaluator, bench, task = judged
    judge = evaluator.device_judging.judge
    judge.fail = CudaError(700, "cudaErrorIllegalAddress", "an illegal memory access", "judging")
    run = CandidateRun(job_dir=bench.dir, bench=bench)
    assert evaluator.device_judging.judge_anchor(task, run, anchor()) is False
    assert run.device_verdicts == {}
    assert evaluator.device_judging.judge is None and judge.closed
    assert evaluator.device_judging.off.startswith("judging on the device failed")
    assert evaluator.device_judging.judge_anchor(task, run, anchor(set_index=1)) is False  # later anchors: files


def test_a_host_memory_failure_while_describing_a_mismatch_falls_back_to_files(judged):
    evaluator, bench, task = judged
    evaluator.device_judging.judge.fail = MemoryError()
    run = CandidateRun(job_dir=bench.dir, bench=bench)
    assert evaluator.device_judging.judge_anchor(task, run, anchor()) is False
    assert evaluator.device_judging.judge is not None


@pytest.mark.parametrize(
    "message",
    [
        anchor(set_index=2),  # no such input set
        anchor(set_index="0"),
        anchor(round_index=None),
        {**anchor(), "handles": ["aa" * 64]},
    ],
)
def test_malformed_anchor_messages_are_not_judged(judged, message):
    evaluator, bench, task = judged
    run = CandidateRun(job_dir=bench.dir, bench=bench)
    assert evaluator.device_judging.judge_anchor(task, run, message) is False
    assert run.device_verdicts == {}


def test_a_report_claiming_a_judgement_the_parent_never_made_is_a_protocol_error(judged):
    evaluator, bench, task = judged
    run = CandidateRun(job_dir=bench.dir, bench=bench)
    evaluator.device_judging.judge_anchor(task, run, anchor(round_index=3))
    # The worker claims round 5 was the one judged: not what the parent saw.
    ev = judge_timing(evaluator, task, bench, run, [check(5, 0, files={}, judged_on_device=True)])
    assert ev.status == "runtime_error" and "never judged it" in ev.message
    # Or it says nothing of an output the parent found wrong.
    run = CandidateRun(job_dir=bench.dir, bench=bench)
    evaluator.device_judging.judge_anchor(task, run, anchor(set_index=1, round_index=4, handle="bb" * 64))
    ev = judge_timing(evaluator, task, bench, run, [check(3, 0, files={}, same_as=3)])
    assert ev.status == "runtime_error"


def test_a_repeated_anchor_for_one_set_is_refused(judged):
    evaluator, bench, task = judged
    run = CandidateRun(job_dir=bench.dir, bench=bench)
    assert evaluator.device_judging.judge_anchor(task, run, anchor(handle="bb" * 64)) is True
    # A second try with a right output is not judged: the first verdict stands.
    assert evaluator.device_judging.judge_anchor(task, run, anchor(handle="aa" * 64)) is False
    assert "first at index 17" in run.device_verdicts[("candidate", 0)].problem


def test_a_released_tasks_expected_outputs_leave_the_device(build_cache, vec_scale):
    """Dropped bench data (nothing queued needs it, and the cache is full) frees its device copies."""
    judge = StandInJudge({})
    with Evaluator(quick_config(build_cache, reference_cache_gib=0.0)) as evaluator:
        evaluator.device_judging.judge = judge
        bench = evaluator.bench_reference(vec_scale)
        evaluator.release(vec_scale)
        assert judge.forgotten == [str(bench.dir)]
        assert not bench.dir.exists()


def test_a_parent_without_a_usable_cuda_runtime_has_no_judge(tmp_path):
    from regrapht.eval.device_judge import DeviceJudge, JudgeUnavailable

    with pytest.raises(JudgeUnavailable):
        DeviceJudge(str(tmp_path / "libcudart.so.13"), str(tmp_path / "device_check.so"))


def test_a_failure_staging_expected_outputs_retires_the_judge(judged):
    evaluator, bench, task = judged

    def broken_stage(key, expected):
        raise MemoryError("no room")

    evaluator.device_judging.judge.stage = broken_stage
    assert evaluator.device_judging.stage(task, bench, "", "") is False
    assert evaluator.device_judging.judge is None
    assert evaluator.device_judging.off.startswith("staging expected outputs failed")
