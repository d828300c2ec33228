"""The OS sandbox of a candidate's worker (Landlock + seccomp), on the cpu target.

The source and symbol screens are turned off here, so what stops each candidate is the kernel."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from regrapht.eval import Evaluator, sandbox, toolchain
from regrapht.eval import evaluator as evaluator_mod
from regrapht.eval.evaluator import SandboxUnavailable

from .conftest import candidate, quick_config

OFFERED = sandbox.probe()
needs_sandbox = pytest.mark.skipif(
    not (OFFERED["landlock"] and OFFERED["seccomp"]), reason=f"kernel lacks it: {OFFERED['reason']}"
)
needs_gxx = pytest.mark.skipif(toolchain.gxx_path() is None, reason="needs g++")

_CHILD = r"""
import json, os, socket, sys, threading
from regrapht.eval import sandbox
inputs, scratch, outside = sys.argv[1:4]
report = sandbox.confine([inputs], [scratch])
seen = {"report": report}
def attempt(name, action):
    try:
        action()
        seen[name] = "allowed"
    except OSError as exc:
        seen[name] = exc.errno
attempt("read_input", lambda: open(os.path.join(inputs, "in.txt")).read())
attempt("read_outside", lambda: open(os.path.join(outside, "secret.txt")).read())
attempt("write_scratch", lambda: open(os.path.join(scratch, "mine.txt"), "w").write("x"))
attempt("write_outside", lambda: open(os.path.join(outside, "escape.txt"), "w").write("x"))
attempt("list_home", lambda: os.listdir(os.path.expanduser("~")))
def move_within():  # a cache's write-then-rename between two of the scratch's folders
    os.makedirs(os.path.join(scratch, "tmp.1")); os.makedirs(os.path.join(scratch, "cache"))
    open(os.path.join(scratch, "tmp.1", "k.bin"), "w").write("x")
    os.replace(os.path.join(scratch, "tmp.1", "k.bin"), os.path.join(scratch, "cache", "k.bin"))
attempt("rename_within_scratch", move_within)
attempt("rename_out_of_scratch", lambda: os.replace(os.path.join(scratch, "cache", "k.bin"), os.path.join(outside, "k.bin")))
attempt("rename_input_in", lambda: os.replace(os.path.join(inputs, "in.txt"), os.path.join(scratch, "in.txt")))
# a hard link of a read-only input in the scratch would be writable through the scratch's rights
attempt("link_input_in", lambda: os.link(os.path.join(inputs, "in.txt"), os.path.join(scratch, "in.link")))
attempt("link_within_scratch", lambda: os.link(os.path.join(scratch, "cache", "k.bin"), os.path.join(scratch, "k.link")))
attempt("rename_scratch_itself", lambda: os.rename(scratch, scratch + ".moved"))
attempt("tcp_socket", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM))
attempt("signal_parent", lambda: os.kill(os.getppid(), 0))
attempt("signal_self", lambda: os.kill(os.getpid(), 0))
def in_thread():
    attempt("thread_write_outside", lambda: open(os.path.join(outside, "thread.txt"), "w").write("x"))
thread = threading.Thread(target=in_thread)
thread.start(); thread.join()
import numpy
seen["numpy"] = float(numpy.arange(4).sum())
print(json.dumps(seen), flush=True)
os.fork()  # the filter kills the whole process here
print("forked", flush=True)
"""


@needs_sandbox
def test_confined_process_reads_its_inputs_writes_its_scratch_and_nothing_else(tmp_path: Path) -> None:
    inputs, scratch, outside = tmp_path / "inputs", tmp_path / "scratch", tmp_path / "outside"
    for folder in (inputs, scratch, outside):
        folder.mkdir()
    (inputs / "in.txt").write_text("input")
    (outside / "secret.txt").write_text("secret")
    env = {**os.environ, "PYTHONPATH": str(Path(sandbox.__file__).parents[2])}
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, str(inputs), str(scratch), str(outside)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    lines = proc.stdout.splitlines()
    assert lines, proc.stderr
    seen = json.loads(lines[0])
    assert seen["report"]["landlock"] == OFFERED["landlock"] and seen["report"]["seccomp"] is True
    assert seen["report"]["reason"] is None
    assert seen["read_input"] == "allowed" and seen["write_scratch"] == "allowed"
    assert seen["read_outside"] == 13 and seen["write_outside"] == 13 and seen["list_home"] == 13
    assert seen["thread_write_outside"] == 13  # threads started inside inherit the domain
    assert seen["rename_within_scratch"] == "allowed"
    assert seen["rename_out_of_scratch"] in (13, 18) and seen["rename_input_in"] in (13, 18)  # EACCES or EXDEV
    assert seen["link_input_in"] in (13, 18) and seen["link_within_scratch"] == "allowed"
    assert seen["rename_scratch_itself"] in (13, 18)
    assert seen["tcp_socket"] in (1, 13)
    assert seen["signal_parent"] == 1 and seen["signal_self"] == "allowed"
    assert seen["numpy"] == 6.0  # imports still work
    assert proc.returncode == -31 and "forked" not in proc.stdout  # SIGSYS: no child, no parent
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert sorted(p.name for p in inputs.iterdir()) == ["in.txt"] and (inputs / "in.txt").stat().st_nlink == 1


@pytest.mark.skipif(not OFFERED["seccomp"], reason=f"kernel lacks seccomp: {OFFERED['reason']}")
def test_where_landlock_is_missing_the_rest_applies_and_the_report_says_why(tmp_path: Path) -> None:
    child = (
        "import json, os\n"
        "from regrapht.eval import sandbox\n"
        "sandbox.landlock_abi = lambda: None  # as on a kernel without Landlock\n"
        f"report = sandbox.confine([], [{str(tmp_path)!r}])\n"
        "print(json.dumps(report), flush=True)\n"
        "open('/tmp/regrapht-no-landlock-probe', 'a').close()  # unconfined reads and writes still work\n"
        "os.remove('/tmp/regrapht-no-landlock-probe')\n"
        "print('files ok', flush=True)\n"
        "os.fork()\n"
    )
    env = {**os.environ, "PYTHONPATH": str(Path(sandbox.__file__).parents[2])}
    proc = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, env=env, timeout=60)
    lines = proc.stdout.splitlines()
    report = json.loads(lines[0])
    assert report["landlock"] is None and report["seccomp"] is True
    assert report["reason"] == "Landlock: the kernel offers no Landlock"
    assert lines[1] == "files ok" and proc.returncode == -31  # seccomp still stops the fork


def test_the_filter_refuses_clone_without_clone_thread() -> None:
    """The BPF program, read back: clone's body tests CLONE_THREAD, fork is killed, the end allows."""
    program = sandbox.seccomp_program("x86_64", 4242)
    numbers = {56: "clone", 57: "fork", 41: "socket", 62: "kill"}
    jumps = {k: i for i, (code, _, _, k) in enumerate(program) if code == 0x15 and k in numbers and i > 3}
    assert program[jumps[57] + 1] == (0x06, 0, 0, 0x80000000)  # fork: kill the process
    clone = program[jumps[56] + 1 : jumps[56] + 5]
    assert clone[1] == (0x45, 0, 1, 0x10000) and clone[2][3] == 0x7FFF0000 and clone[3][3] == 0x80000000
    kill = program[jumps[62] + 1 : jumps[62] + 5]
    assert kill[1] == (0x15, 0, 1, 4242) and kill[3][3] == 0x00050001  # others: EPERM
    assert program[-1] == (0x06, 0, 0, 0x7FFF0000)
    assert len(sandbox.seccomp_program("aarch64", 1)) > 10  # a table for the other common architecture


@pytest.fixture
def confined(build_cache: Path):
    with Evaluator(quick_config(build_cache, static_screen=False, symbol_screen=False, timing=False)) as ev:
        yield ev


@pytest.fixture
def unconfined(build_cache: Path):
    with Evaluator(
        quick_config(build_cache, static_screen=False, symbol_screen=False, timing=False, sandbox=False)
    ) as ev:
        yield ev


@needs_sandbox
@needs_gxx
def test_honest_candidate_runs_correct_under_the_sandbox(build_cache: Path, vec_scale) -> None:
    with Evaluator(quick_config(build_cache)) as ev:  # the defaults: sandbox on, timing on
        record = ev.evaluate(vec_scale, candidate("correct.cpp"), "cpu")
    assert record.status == "correct", record.message
    assert record.sandbox == {"landlock": OFFERED["landlock"], "seccomp": True, "reason": None}
    assert 0 < record.seconds["sandbox"] < 1.0


@needs_sandbox
@needs_gxx
def test_a_candidate_cannot_leave_a_file_outside_its_scratch(
    confined: Evaluator, unconfined: Evaluator, vec_scale, tmp_path: Path, monkeypatch
) -> None:
    escape, cwd = tmp_path / "escape.txt", tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)  # the evaluator's working folder: the worker's, before it moves to its scratch
    monkeypatch.setenv("REGRAPHT_TEST_ESCAPE", str(escape))
    record = confined.evaluate(vec_scale, candidate("writes_outside_scratch.cpp"), "cpu")
    assert record.status == "correct", record.message  # the writes failed; the computation is right
    assert not escape.exists() and list(cwd.iterdir()) == []
    assert not list(confined.workdir.glob("job*")), "the scratch is removed after the verdict"
    # The same candidate unconfined does leave the file: the test can fail.
    unconfined.evaluate(vec_scale, candidate("writes_outside_scratch.cpp"), "cpu")
    assert escape.exists()


@needs_sandbox
@needs_gxx
def test_a_candidate_cannot_read_outside_its_inputs(
    confined: Evaluator, unconfined: Evaluator, vec_scale, tmp_path: Path, monkeypatch
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("the answer")
    monkeypatch.setenv("REGRAPHT_TEST_SECRET", str(secret))
    assert confined.evaluate(vec_scale, candidate("reads_outside.cpp"), "cpu").status == "correct"
    assert unconfined.evaluate(vec_scale, candidate("reads_outside.cpp"), "cpu").status == "wrong_answer"


@needs_sandbox
@needs_gxx
def test_a_candidate_gets_no_network(confined: Evaluator, unconfined: Evaluator, vec_scale) -> None:
    assert confined.evaluate(vec_scale, candidate("opens_socket.cpp"), "cpu").status == "correct"
    assert unconfined.evaluate(vec_scale, candidate("opens_socket.cpp"), "cpu").status == "wrong_answer"


@needs_sandbox
@needs_gxx
def test_a_candidate_that_forks_is_stopped(confined: Evaluator, vec_scale) -> None:
    record = confined.evaluate(vec_scale, candidate("forks.cpp"), "cpu")
    assert record.status == "integrity_violation", record.message
    assert "the sandbox stopped the process" in record.message
    assert "creating a process" in record.message and record.reward == -1.0


@needs_sandbox
@needs_gxx
def test_a_sandbox_that_breaks_the_harness_is_not_the_candidates_fault(
    confined: Evaluator, vec_scale, monkeypatch
) -> None:
    # A sandbox that leaves the worker no writable scratch breaks the harness's own writes: found
    # before the library loads, the candidate runs again unconfined, and the record says why.
    real = Evaluator.sandbox_spec

    def no_scratch(self, task, job, job_dir):
        spec = real(self, task, job, job_dir)
        return None if spec is None else {**spec, "write": []}

    monkeypatch.setattr(Evaluator, "sandbox_spec", no_scratch)
    record = confined.evaluate(vec_scale, candidate("correct.cpp"), "cpu")
    assert record.status == "correct", record.message
    assert record.sandbox["landlock"] is None and record.sandbox["seccomp"] is False
    assert "the sandbox broke the harness's own calls" in record.sandbox["reason"]
    assert "Permission denied" in record.sandbox["reason"]
    # every later candidate of this evaluator runs unconfined, saying so, without trying again
    again = confined.evaluate(vec_scale, candidate("correct.cpp"), "cpu")
    assert again.status == "correct" and again.sandbox == record.sandbox


@needs_gxx
def test_a_required_sandbox_fails_clearly_where_the_kernel_lacks_it(build_cache: Path, monkeypatch) -> None:
    monkeypatch.setattr(
        evaluator_mod.sandbox,
        "probe",
        lambda: {"landlock": None, "seccomp": True, "reason": "the kernel offers no Landlock"},
    )
    with pytest.raises(SandboxUnavailable, match="require_sandbox is set.*offers no Landlock"):
        Evaluator(quick_config(build_cache, require_sandbox=True))


@needs_gxx
def test_turned_off_the_record_says_so(unconfined: Evaluator, vec_scale) -> None:
    record = unconfined.evaluate(vec_scale, candidate("correct.cpp"), "cpu")
    assert record.status == "correct"
    assert record.sandbox == {"landlock": None, "seccomp": False, "reason": "turned off (EvalConfig.sandbox)"}


@needs_sandbox
@needs_gxx
@pytest.mark.parametrize("cuda_start_fails", [False, True])
def test_a_spare_worker_is_confined_once_its_job_comes(build_cache: Path, vec_scale, cuda_start_fails: bool) -> None:
    """Spares start before their job exists; the sandbox applies to whichever process runs it, a spare
    or the fresh image a spare whose CUDA start failed runs its job in."""
    from regrapht.eval.runner import SpareWorker, run_worker

    with Evaluator(quick_config(build_cache, timing=False)) as ev:
        tests = ev.case_reference(vec_scale)
        library = ev.compiler.compile(
            candidate("writes_outside_scratch.cpp"), "cpu", vec_scale.function,
            "int n, float a, const float* x, float* out", ["n", "a", "x", "out"],
        ).library
        assert library is not None
        job_dir = ev.jobs.job_dir()
        job = ev.jobs.job(vec_scale, {"candidate": library}, tests.cases, ["candidate"], job_dir,
                      uses_cuda=False, device_buffers=False, runs=1)
        if cuda_start_fails:
            job["libcudart"] = "/nonexistent/libcudart.so"
        job["sandbox"] = ev.sandbox_spec(vec_scale, job, job_dir)
        spare = SpareWorker(job["libcudart"])
        if cuda_start_fails:
            spare.open_context()
        outcome = run_worker(job, job_dir / "job.json", 10.0, 60.0, 1 << 30, spare=spare)
        assert outcome.complete, outcome.output_head
        assert outcome.last("hello")["pid"] == spare.proc.pid
        report = outcome.last("sandbox")
        assert report and report["landlock"] and report["seccomp"] and not report["broken"]
        # its relative write landed in its scratch, not in the working folder it was started in
        assert not (Path.cwd() / "regrapht-left-behind.txt").exists()
        assert (job_dir / "out" / "regrapht-left-behind.txt").exists()


@needs_sandbox
@needs_gxx
def test_shipped_openmp_candidates_run_correct_under_the_sandbox(build_cache: Path) -> None:
    from regrapht.tasks import builtin_tasks_root, load_task

    examples = sorted((builtin_tasks_root() / "examples").glob("*/candidates/correct_omp.cpp"))
    assert len(examples) >= 3
    with Evaluator(quick_config(build_cache, timing=False, require_sandbox=True)) as ev:
        for path in examples:
            record = ev.evaluate(load_task(path.parent.parent), path.read_text(), "cpu")
            assert record.status == "correct", f"{path}: {record.message}"
            assert record.sandbox["seccomp"] and record.sandbox["landlock"], record.sandbox
