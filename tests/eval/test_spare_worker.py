"""Spare workers: a process started ahead of its job takes the next job, and a dead or mismatched
spare is never trusted with one."""

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
