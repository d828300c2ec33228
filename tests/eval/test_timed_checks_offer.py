"""A kept output is offered to the parent's device judge only once its copy is done (session 13's
false integrity_violation: the device-to-device copy into the kept buffer returns before it ends, and
the parent reads the buffer from its own context, unordered with the worker's stream)."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from regrapht.eval.cudart import CudaError
from regrapht.eval.timed_checks import TimedChecks


class Log:
    def __init__(self) -> None:
        self.calls: list[str] = []
        self.pending = False  # a device-to-device copy queued and not yet synchronized
        self.sync_code = 0


class FakeMem:
    def __init__(self, log: Log):
        self.log, self.next = log, 100

    def alloc(self, nbytes: int) -> int:
        self.next += 1
        return self.next

    def copy(self, dst, dst_off, src, src_off, nbytes) -> None:
        self.log.calls.append(f"copy {src}->{dst}")
        self.log.pending = True

    def differences(self, *args):
        return None

    def ipc_handle(self, handle: int) -> str:
        self.log.calls.append(f"ipc {handle}")
        return f"h{handle}"

    def free(self, handle) -> None:
        pass


class FakeRuntime:
    def __init__(self, log: Log):
        self.log = log

    def synchronize(self) -> int:
        self.log.calls.append("sync")
        self.log.pending = False
        return self.log.sync_code

    def check(self, code: int, where: str) -> None:
        if code:
            raise CudaError(code, "cudaErrorLaunchFailure", "unspecified launch failure", where)

    def last_error(self) -> int:
        return 0


class FakeChannel:
    def __init__(self, log: Log):
        self.log = log

    def send(self, **message) -> None:
        # What the parent would read now: an unfinished copy is a wrong verdict on an honest kernel.
        self.log.calls.append("send unfinished" if self.log.pending else "send")


def _checks(log: Log, tmp_path: Path) -> TimedChecks:
    written = [{"name": "y", "itemsize": 4}]
    worker = SimpleNamespace(
        mem=FakeMem(log),
        rt=FakeRuntime(log),
        channel=FakeChannel(log),
        buffer=lambda name, nbytes, tag="": 7,
        guard=0,
        written=written,
        out_dir=tmp_path,
    )
    spec = {"check_libs": ["candidate"], "sets": 2, "judge_on_device": True}
    return TimedChecks(worker, spec, {"y": 64}, fresh=True)


@pytest.mark.parametrize("slot", [0, 2, 4])
def test_a_fresh_check_is_offered_after_its_copy_is_synchronized(tmp_path: Path, monkeypatch, slot: int) -> None:
    log = Log()
    checks = _checks(log, tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO('{"judged": true}\n'))
    entry = checks.check("candidate", 13, 0, False, {"y": 5}, {"y": 7}, slot)
    assert entry["judged_on_device"] and entry["slot"] == slot
    assert "send unfinished" not in log.calls
    assert log.calls.index("sync") > log.calls.index(next(c for c in log.calls if c.startswith("copy")))


def test_a_set_anchor_is_offered_after_its_copy_is_synchronized(tmp_path: Path, monkeypatch) -> None:
    log = Log()
    written = [{"name": "y", "itemsize": 4}]
    worker = SimpleNamespace(
        mem=FakeMem(log), rt=FakeRuntime(log), channel=FakeChannel(log), buffer=lambda *a, **k: 7,
        guard=0, written=written, out_dir=tmp_path,
    )
    checks = TimedChecks(worker, {"check_libs": ["candidate"], "sets": 2, "judge_on_device": True}, {"y": 64}, False)
    monkeypatch.setattr(sys, "stdin", io.StringIO('{"judged": true}\n'))
    entry = checks.check("candidate", 3, 1, False, {"y": 5}, {"y": 7})
    assert entry["judged_on_device"] and log.calls[-1] == "send"


def test_an_error_surfacing_at_the_synchronization_ends_the_check(tmp_path: Path, monkeypatch) -> None:
    log = Log()
    log.sync_code = 719
    checks = _checks(log, tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO('{"judged": true}\n'))
    with pytest.raises(CudaError):
        checks.check("candidate", 13, 0, False, {"y": 5}, {"y": 7}, 2)
    assert not any(c.startswith("send") for c in log.calls)
