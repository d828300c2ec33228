"""The torch worker's OS sandbox (eval/torch_sandbox.py) on the cpu target: a candidate that reads
the expected outputs, writes outside its scratch, opens a socket or starts a process is caught with
a specific message; honest candidates still pass; unconfined, the read attack really works."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")

from regrapht.eval import Evaluator, sandbox, torch_sandbox  # noqa: E402
from regrapht.tasks import find_task  # noqa: E402
from tests.eval.test_torch_cpu import HOSTILE, RELU_EXAMPLES, torch_config  # noqa: E402

OFFERED = sandbox.probe()
needs_landlock = pytest.mark.skipif(not OFFERED["landlock"], reason="the kernel offers no Landlock")
needs_seccomp = pytest.mark.skipif(not OFFERED["seccomp"], reason="the kernel offers no seccomp")


@pytest.fixture(scope="module")
def judge():
    with Evaluator(torch_config()) as evaluator:
        yield evaluator


def run(judge, name: str, task: str = "relu"):
    return judge.evaluate(find_task(task), (HOSTILE / name).read_text(), "cpu")


@needs_landlock
def test_reading_the_expected_outputs_is_refused(judge) -> None:
    ev = run(judge, "reads_expected.py")
    assert ev.status == "integrity_violation", (ev.status, ev.message)
    # the reference's folder has a secret name: finding it needs the scratch's listing, refused
    assert "the sandbox refused access to" in ev.message, ev.message


def test_unconfined_the_expected_outputs_are_readable() -> None:
    # The attack is real: without the sandbox the same candidate is judged correct.
    with Evaluator(torch_config(sandbox=False)) as evaluator:
        ev = evaluator.evaluate(find_task("relu"), (HOSTILE / "reads_expected.py").read_text(), "cpu")
    assert ev.status == "correct", ev.message
    assert ev.sandbox["reason"] == "turned off (EvalConfig.sandbox)"


@needs_landlock
def test_writing_outside_the_scratch_is_refused_and_leaves_nothing(judge) -> None:
    ev = run(judge, "writes_outside_scratch.py")
    assert ev.status == "integrity_violation", (ev.status, ev.message)
    assert "the sandbox refused access to" in ev.message and "planted-by-a-candidate.txt" in ev.message
    assert not list(Path(judge.workdir).rglob("planted-by-a-candidate.txt"))


@needs_seccomp
def test_opening_a_network_socket_is_refused(judge) -> None:
    ev = run(judge, "opens_socket.py")
    assert ev.status == "integrity_violation", (ev.status, ev.message)
    assert "the sandbox refused opening a network socket" in ev.message, ev.message


@needs_seccomp
def test_creating_a_process_kills_the_worker_on_cpu(judge) -> None:
    ev = run(judge, "forks_process.py")
    assert ev.status == "integrity_violation", (ev.status, ev.message)
    assert "the sandbox stopped the process" in ev.message


@pytest.mark.parametrize("name", ["cpp_relu.py", "plain_torch_relu.py", "entry_relu.py"])
def test_honest_candidates_pass_confined(judge, name: str) -> None:
    ev = judge.evaluate(find_task("relu"), (HOSTILE / RELU_EXAMPLES / name).read_text()
                        if (RELU_EXAMPLES / name).exists() else (HOSTILE / name).read_text(), "cpu")
    assert ev.status == "correct", (ev.message, ev.integrity)
    assert ev.sandbox["landlock"] == OFFERED["landlock"] and ev.sandbox["seccomp"] == OFFERED["seccomp"]
    assert ev.sandbox["processes"] is False  # cpu, eager only: no compiler runs in the worker
    assert ev.sandbox["seconds"] < 1.0


def test_processes_are_kept_only_where_compilers_run() -> None:
    assert torch_sandbox.processes_needed("cuda", ("eager",))
    assert torch_sandbox.processes_needed("cpu", ("eager", "compile"))
    assert not torch_sandbox.processes_needed("cpu", ("eager",))


def test_seccomp_program_lifts_only_process_creation() -> None:
    strict = sandbox.seccomp_program("x86_64", 7)
    loose = sandbox.seccomp_program("x86_64", 7, processes=True)
    numbers = sandbox._syscall_table()["numbers"]["x86_64"]
    compared = [k for (_, _, _, k) in strict]
    kept = [k for (_, _, _, k) in loose]
    for name in ("fork", "vfork", "execve", "execveat", "clone"):
        assert numbers[name] in compared and numbers[name] not in kept
    for name in ("ptrace", "process_vm_readv", "socket", "setsid", "kill"):
        assert numbers[name] in kept


def test_expected_outputs_never_lie_beneath_a_readable_folder(judge, tmp_path: Path) -> None:
    task = find_task("relu")
    torch_judge = judge.torch_judge()
    ref = torch_judge.reference(task, "cpu")
    spec = torch_sandbox.spec(task.root, tmp_path, torch_judge.cache_dir, "cpu", ("eager",), [ref.expected_dir.parent], False)
    assert torch_sandbox.exposed(spec["secret"], [*sandbox.system_read_paths(), *spec["read"]]) == []
    # and the worker refuses to run a candidate where they would
    assert torch_sandbox.exposed([str(ref.expected_dir)], [str(Path(ref.expected_dir).parent.parent)])


def test_caches_and_temporary_files_point_into_the_scratch(tmp_path: Path) -> None:
    env = torch_sandbox.env(tmp_path)
    for name in ("TMPDIR", "TRITON_CACHE_DIR", "TORCHINDUCTOR_CACHE_DIR"):
        assert Path(env[name]).is_relative_to(tmp_path) and Path(env[name]).is_dir()


@needs_landlock
def test_a_sandbox_that_breaks_the_harness_falls_back_to_unconfined(monkeypatch) -> None:
    # A readable folder holding the expected outputs is a broken sandbox (the worker refuses to run
    # the candidate there): the judge runs it again unconfined, and every later candidate too.
    real = torch_sandbox.spec

    def exposing(task_dir, scratch, cache_dir, target, baselines, secret_dirs, require):
        out = real(task_dir, scratch, cache_dir, target, baselines, secret_dirs, require)
        out["read"].append(str(Path(secret_dirs[0]).parent))
        return out

    monkeypatch.setattr(torch_sandbox, "spec", exposing)
    with Evaluator(torch_config()) as evaluator:
        first = evaluator.evaluate(find_task("relu"), (HOSTILE / "plain_torch_relu.py").read_text(), "cpu")
        second = evaluator.evaluate(find_task("relu"), (HOSTILE / "plain_torch_relu.py").read_text(), "cpu")
    assert first.status == second.status == "correct", first.message
    for ev in (first, second):
        assert ev.sandbox["landlock"] is None and "lie beneath a folder the worker must read" in ev.sandbox["reason"]
