"""The parent's device judge gets a task's expected outputs before a worker starts, where the task's
bench data is built: the worker does not hold the device while the parent copies them."""

from __future__ import annotations

from concurrent.futures import Future
from types import SimpleNamespace

from regrapht.eval import Evaluator
from regrapht.eval.candidates import CandidateRun
from tests.eval.conftest import quick_config


class _Judging:
    def __init__(self) -> None:
        self.staged: list[tuple[str, object]] = []

    def stage(self, task, bench, libcudart, device_check) -> bool:
        self.staged.append((task.id, bench))
        return True


def test_expected_outputs_are_staged_ahead_only_for_bench_data_that_is_built(build_cache, tmp_path):
    task = SimpleNamespace(id="t", instance_key="/tasks/t")
    job = {"libcudart": "libcudart.so", "device_check": "check.so"}
    with Evaluator(quick_config(build_cache)) as evaluator:
        runner = evaluator.candidates
        runner.device_judging = judging = _Judging()
        futures: dict[str, Future] = {}
        runner.benches = SimpleNamespace(future=lambda t: futures.get(t.id))
        run = CandidateRun(job_dir=tmp_path, planned=0)
        runner._stage_judge_ahead(task, job, run)  # nothing built or being built
        futures["t"] = Future()
        runner._stage_judge_ahead(task, job, run)  # being built: the worker's turn stages it
        futures["t"].set_exception(RuntimeError("the build failed"))
        runner._stage_judge_ahead(task, job, run)  # failed: the worker reports the error
        assert judging.staged == [] and "judge_stage_ahead" not in run.waits
        bench = object()
        futures["t"] = Future()
        futures["t"].set_result(bench)
        runner._stage_judge_ahead(task, job, run)
        assert judging.staged == [("t", bench)] and run.waits["judge_stage_ahead"] >= 0
