"""An evaluator's scratch folder (in /dev/shm where it has room): made with an owner file naming its
process, so folders of evaluators killed outright (SIGKILL, the OOM killer) can be found and
swept by later evaluators on the same host, boot and pid namespace."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path


def scratch_root() -> str | None:
    """/dev/shm where it has 4 GiB free, else None (the temporary folder)."""
    shm = Path("/dev/shm")
    try:
        if shm.is_dir() and shutil.disk_usage(shm).free > (4 << 30):
            return str(shm)
    except OSError:
        pass
    return None


OWNER_FILE = "owner"  # in each evaluator's scratch folder: "pid start-time boot/pid-namespace" of its maker


def owner_context() -> str | None:
    """Where a pid means this process's pid: the host's boot and the pid namespace. A /dev/shm shared
    between containers, or a TMPDIR shared between hosts, holds folders whose pids mean nothing here."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        return f"{boot}/{os.readlink('/proc/self/ns/pid')}"
    except OSError:
        return None


def process_start(pid: int) -> str | None:
    """The start time of process `pid` (field 22 of /proc/PID/stat), None when it does not exist."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2 :].split()[19]


def sweep_stale_scratch(root: str | None) -> list[Path]:
    """Remove scratch folders of evaluators whose process is gone: one killed outright (SIGKILL, the
    OOM killer) cannot clean up, and its bench data can hold gigabytes of /dev/shm. Folders of live
    processes, folders made on another boot, host or pid namespace, and folders without an owner file,
    are left alone. Returns the folders removed."""
    removed: list[Path] = []
    context = owner_context()
    if context is None:
        return removed
    for folder in Path(root or tempfile.gettempdir()).glob("regrapht-eval-*"):
        try:
            pid_text, started, their_context = (folder / OWNER_FILE).read_text().split()
            pid = int(pid_text)
        except (OSError, ValueError):
            continue
        if their_context != context:
            continue
        if process_start(pid) != started:  # gone, or its pid now belongs to another process
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def make_workdir() -> Path:
    """A fresh scratch folder for one evaluator, after sweeping stale ones. Both places are swept
    first: a /dev/shm filled by killed evaluators is what sends the scratch to the temporary folder."""
    sweep_stale_scratch("/dev/shm" if Path("/dev/shm").is_dir() else None)
    sweep_stale_scratch(None)
    workdir = Path(tempfile.mkdtemp(prefix="regrapht-eval-", dir=scratch_root()))
    started, context = process_start(os.getpid()), owner_context()
    if started is not None and context is not None:
        (workdir / OWNER_FILE).write_text(f"{os.getpid()} {started} {context}\n")
    return workdir
