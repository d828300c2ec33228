"""Scratch folders left by evaluators that were killed outright are removed by the next evaluator."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import pytest

from regrapht.eval import EvalConfig, Evaluator
from regrapht.eval import scratch as scratch_mod
from regrapht.eval.scratch import OWNER_FILE, owner_context, process_start, sweep_stale_scratch

pytestmark = pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs /proc")


def _folder(root, name: str, owner: str | None):
    folder = root / f"regrapht-eval-{name}"
    (folder / "bench0").mkdir(parents=True)
    (folder / "bench0" / "data.bin").write_bytes(b"x" * 1024)
    if owner is not None:
        (folder / OWNER_FILE).write_text(owner)
    return folder


def test_only_folders_of_dead_owners_are_swept(tmp_path) -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    started = process_start(child.pid)
    child.wait()
    ns = owner_context()
    dead = _folder(tmp_path, "dead", f"{child.pid} {started} {ns}")
    live = _folder(tmp_path, "live", f"{os.getpid()} {process_start(os.getpid())} {ns}")
    reused_pid = _folder(tmp_path, "reused", f"{os.getpid()} 1 {ns}")  # same pid, another start time
    elsewhere = _folder(tmp_path, "elsewhere", f"{child.pid} {started} other-boot/pid:[1]")  # another host
    unowned = _folder(tmp_path, "unowned", None)
    garbled = _folder(tmp_path, "garbled", "not a pid")
    other = tmp_path / "someone-else"
    other.mkdir()
    removed = sweep_stale_scratch(str(tmp_path))
    assert not dead.exists() and not reused_pid.exists()
    assert live.exists() and unowned.exists() and garbled.exists() and other.exists() and elsewhere.exists()
    assert sorted(removed) == sorted([dead, reused_pid])


def test_a_new_evaluator_sweeps_and_marks_its_own_folder(tmp_path, monkeypatch) -> None:
    # the scratch falls back to the temporary folder (as when /dev/shm is full): that one is swept too
    monkeypatch.setattr(scratch_mod, "scratch_root", lambda: str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    stale = _folder(tmp_path, "stale", f"999999999 12345 {owner_context()}")
    with Evaluator(EvalConfig(timing=False)) as ev:
        assert not stale.exists()
        pid, started, ns = (ev.workdir / OWNER_FILE).read_text().split()
        assert int(pid) == os.getpid() and started == process_start(os.getpid()) and ns == owner_context()
        # a second evaluator in the same process leaves the first one's folder alone
        with Evaluator(EvalConfig(timing=False)) as other:
            assert ev.workdir.exists() and other.workdir != ev.workdir
    assert not ev.workdir.exists()
