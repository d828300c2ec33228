"""A worker's bench inputs, copied device to device from the parent's master copies
(eval/bench_masters.py) before any candidate code is loaded. Runs inside the worker process: ctypes
and NumPy only.

The handles come in a file the parent wrote to the job's folder. They are read straight into a
ctypes buffer this module owns (no Python bytes or str object ever holds them), every array is
mapped, copied into a buffer of the worker's own (past its guard, as the timing loop's staged sets
are) and, once the device has finished the copies, unmapped; then the buffer is zeroed and the file
removed. Any failure leaves nothing copied: the timing loop then uploads the inputs from their files
as before, on the worker's time.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import time
from typing import Any

from regrapht.eval.cudart import IPC_HANDLE_BYTES, IpcMemHandle

D2D = 3


def read_handles(path: str, count: int) -> ctypes.Array:
    """`count` raw handles from `path`, read into a fresh ctypes buffer; the file is removed whether
    or not the read succeeds (OSError when it holds too few bytes or cannot be read)."""
    buffer = ctypes.create_string_buffer(IPC_HANDLE_BYTES * count)
    try:
        fd = os.open(path, os.O_RDONLY)
        try:
            view, got = memoryview(buffer).cast("B"), 0
            while got < len(view):
                n = os.readv(fd, [view[got:]])
                if n == 0:
                    raise OSError(f"{path} holds {got} bytes, not the {len(view)} of {count} handles")
                got += n
            view.release()
        finally:
            os.close(fd)
    except BaseException:
        ctypes.memset(buffer, 0, ctypes.sizeof(buffer))
        raise
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
    return buffer


def copy_from_masters(
    rt: Any, alloc: Any, free: Any, spec: dict[str, Any], guard: int
) -> tuple[dict[tuple[int, str], Any], dict[str, Any]]:
    """Copy every master array the job names (`spec`: protocol.InputsSpec) into buffers of
    `alloc(nbytes + 2 * guard)`, at `guard`. Returns the buffers by (set index, name) and the report the
    LOADED message carries: arrays, bytes, seconds, and `failed` (why nothing was copied) on failure."""
    began = time.perf_counter()
    arrays = [(int(s), str(name), int(nbytes)) for s, name, nbytes in spec["arrays"]]
    copied: dict[tuple[int, str], Any] = {}
    opened: list[int] = []
    report: dict[str, Any] = {"arrays": 0, "bytes": 0}
    buffer = None
    try:
        buffer = read_handles(spec["file"], len(arrays))
        for i, (s, name, nbytes) in enumerate(arrays):
            remote = rt.ipc_open_struct(IpcMemHandle.from_buffer(buffer, i * IPC_HANDLE_BYTES))
            opened.append(remote)
            copied[(s, name)] = alloc(nbytes + 2 * guard)
            rt.memcpy(copied[(s, name)] + guard, remote, nbytes, D2D)
        # A device-to-device cudaMemcpy may return before it is done: unmapped only once it is.
        rt.check(rt.synchronize(), "copying the bench inputs from the parent's masters")
        report.update(arrays=len(copied), bytes=sum(n for _, _, n in arrays))
    except Exception as exc:
        rt.last_error()  # the harness's failure, not a candidate's: not left to be read later
        for handle in copied.values():
            free(handle)
        copied = {}
        report["failed"] = f"{type(exc).__name__}: {exc}"[:300]
    finally:
        if opened:
            rt.synchronize()  # nothing may still read a mapping as it goes (its status read below)
        for remote in opened:
            rt.ipc_close(remote)
        rt.last_error()
        if buffer is not None:
            ctypes.memset(buffer, 0, ctypes.sizeof(buffer))
    report["seconds"] = round(time.perf_counter() - began, 6)
    return copied, report
