"""The worker process: spares (a process started ahead of its job takes the next one; a dead or
mismatched spare is never trusted with it), and late writes found in timed calls."""

from __future__ import annotations

import pytest

from regrapht.eval.runner import SpareWorker, run_worker


@pytest.fixture()
def reference_job(evaluator, vec_scale):
    tests = evaluator._test_reference(vec_scale)
    job_dir = evaluator._job_dir()
    job = evaluator._job(
        vec_scale,
        {"reference": evaluator._serial_library(vec_scale)},
        tests.cases,
        ["reference"],
        job_dir,
        uses_cuda=False,
        device_buffers=False,
        runs=1,
    )
    return job, job_dir, len(tests.cases)


def test_a_spare_takes_the_next_job(reference_job):
    job, job_dir, cases = reference_job
    spare = SpareWorker(job["libcudart"])
    outcome = run_worker(job, job_dir / "job.json", 10.0, 60.0, 1 << 30, spare=spare)
    assert outcome.complete, outcome.output_head
    assert outcome.last("hello")["pid"] == spare.proc.pid
    assert len(outcome.all("case_done")) == cases


def test_a_spare_whose_cuda_start_failed_runs_the_job_in_a_fresh_image(reference_job):
    """A runtime that failed to start may stay failed: the job must not inherit it."""
    job, job_dir, cases = reference_job
    job = dict(job, libcudart="/nonexistent/libcudart.so")  # the spare's start-up fails
    spare = SpareWorker(job["libcudart"])
    outcome = run_worker(job, job_dir / "job.json", 10.0, 60.0, 1 << 30, spare=spare)
    assert outcome.complete, outcome.output_head
    assert outcome.last("hello")["pid"] == spare.proc.pid  # the same process, a new image
    assert len(outcome.all("case_done")) == cases


def test_a_dead_spare_is_replaced_by_a_fresh_process(reference_job):
    job, job_dir, cases = reference_job
    spare = SpareWorker(job["libcudart"])
    spare.proc.kill()
    spare.proc.wait()
    outcome = run_worker(job, job_dir / "job.json", 10.0, 60.0, 1 << 30, spare=spare)
    assert outcome.complete, outcome.output_head
    assert outcome.last("hello")["pid"] != spare.proc.pid
    assert len(outcome.all("case_done")) == cases


def test_a_spare_for_another_cuda_library_is_not_used(reference_job):
    job, job_dir, _ = reference_job
    spare = SpareWorker("/nonexistent/libcudart.so")
    outcome = run_worker(job, job_dir / "job.json", 10.0, 60.0, 1 << 30, spare=spare)
    assert outcome.complete
    assert outcome.last("hello")["pid"] != spare.proc.pid
    assert spare.proc.poll() is not None  # discarded, not left running


def test_a_spare_without_a_job_goes_away():
    spare = SpareWorker("")
    spare.discard()
    assert spare.proc.poll() is not None


def test_late_writes_in_timed_calls_are_found_in_the_worker():
    import numpy as np

    from regrapht.eval.worker import late_elements

    final = np.arange(64, dtype=np.float32).view(np.uint8)
    assert late_elements(final.copy(), final, 4) is None
    early = final.copy()
    early[4 * 9 + 1] ^= 0xFF  # element 9, one byte
    early[4 * 20 : 4 * 22] = 0  # elements 20 and 21
    assert late_elements(early, final, 4) == {"count": 3, "first": 9}


def test_a_late_write_reported_for_a_timed_call_is_an_integrity_violation(evaluator, vec_scale, tmp_path):
    from regrapht.eval import Evaluation
    from regrapht.eval.runner import WorkerOutcome

    bench = evaluator._bench_reference(vec_scale)
    files = {}
    for arg in vec_scale.written:
        path = tmp_path / f"{arg.name}.bin"
        bench.sets[0].expected[arg.name].tofile(path)  # right values: only the late write is wrong
        files[arg.name] = str(path)
    name = vec_scale.written[0].name
    check = {"lib": "candidate", "round": 3, "set": 0, "files": files, "final": True}
    samples = {"candidate": {"host": [1e-3] * 5, "event": [1e-3] * 5}}
    for late, status in (({}, "correct"), ({name: {"count": 7, "first": 3}}, "integrity_violation")):
        outcome = WorkerOutcome(
            messages=[{"event": "timing", "samples": samples, "checks": [dict(check, late=late)]}]
        )
        ev = Evaluation(vec_scale.id, "cpu", "correct", "", "x")
        evaluator._judge_timing(ev, vec_scale, "cpu", bench, outcome)
        assert ev.status == status, ev.message
    assert ev.message.startswith("in timed call 4: the call returned before its work was done: 7 elements")


def test_late_writes_in_correctness_cases_are_found_from_the_snapshot_file(tmp_path):
    import numpy as np

    from regrapht.eval.evaluator import _late_writes

    final = np.arange(10, dtype=np.int32)
    path = tmp_path / "out.at_return.bin"
    final.tofile(path)
    assert _late_writes([{"out": final}], [{"out": str(path)}]) is None
    early = final.copy()
    early[[4, 7]] = -1
    early.tofile(path)
    message = _late_writes([{"out": final}], [{"out": str(path)}])
    assert message is not None
    assert "2 elements of `out` changed after it returned (first at index 4)" in message
