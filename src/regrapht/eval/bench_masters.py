"""The parent's master copies of each task's bench inputs on its GPU, for workers to copy device to
device instead of uploading gigabytes from files while they hold the GPU (session 13: 0.188 s per
candidate, `staging`).

The parent already keeps a CUDA context for its device judge (eval/device_judge.py). There, once per
task, it uploads every input set's readable arrays and keeps them. A worker is given their IPC handles
in a file of its job folder (never in its job's JSON, never on its channel), reads them into memory it
owns before any candidate code is loaded, copies each array into buffers of its own, closes the
mappings, zeroes the handle bytes and removes the file. Candidate code thus never sees a master copy
mapped, nor the handles that would map it.

As a second line, every master array carries a keyed sum (`regrapht_keyed_sum` in the harness's
device library, the key known to this process only), recomputed before each hand-out: a master copy
that changed anyway is uploaded again from its file before the next worker copies it, and the event
is counted (`repairs`), so no candidate's verdict can rest on inputs an earlier one changed.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from regrapht.eval.cudart import IPC_HANDLE_BYTES, CudaError

H2D = 1
_GOLDEN, _MIX1, _MIX2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB
HANDLES_FILE = "inputs.handles"  # in the job's folder, beside job.json (not in the worker's out/)


def bind_keyed_sum(library: Any) -> Any:
    """`regrapht_keyed_sum(data, nbytes, key, device scratch, host out[1])` -> cudaError_t, typed."""
    function = library.regrapht_keyed_sum
    function.restype = ctypes.c_int
    function.argtypes = [
        ctypes.c_void_p,
        ctypes.c_ulonglong,
        ctypes.c_ulonglong,
        ctypes.c_void_p,
        ctypes.POINTER(ctypes.c_ulonglong),
    ]
    return function


def keyed_sum_host(data: np.ndarray, key: int) -> int:
    """The device's keyed sum, on the host (the same value, bit for bit): splitmix64 of (key xor word)
    at each 8-byte word's index, the last partial word zero-padded, summed modulo 2^64."""
    raw = np.ascontiguousarray(data).reshape(-1).view(np.uint8)
    n = raw.size // 8
    words = raw[: 8 * n].view(np.uint64)
    tail = raw[8 * n :]
    if tail.size:
        padded = np.zeros(8, dtype=np.uint8)
        padded[: tail.size] = tail
        words = np.concatenate([words, padded.view(np.uint64)])
    with np.errstate(over="ignore"):
        z = (np.arange(1, words.size + 1, dtype=np.uint64) * np.uint64(_GOLDEN)) + (np.uint64(key) ^ words)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(_MIX1)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(_MIX2)
        z = z ^ (z >> np.uint64(31))
        return int(z.sum(dtype=np.uint64))


@dataclass
class MasterArray:
    set_index: int
    name: str
    nbytes: int
    ptr: int  # device memory in the parent's context
    handle: bytes  # its IPC handle, IPC_HANDLE_BYTES raw bytes
    path: Path  # the file it was uploaded from (and is uploaded from again if it changed)
    keyed: int = 0  # the keyed sum it had when uploaded


@dataclass
class MasterSet:
    arrays: list[MasterArray] = field(default_factory=list)
    nbytes: int = 0
    stamp: tuple = ()  # its files' (inode, mtime, size), in order: a rebuild in the same folder differs
    leases: int = 0  # workers given its handles and not yet done: never dropped meanwhile
    owner: Any = None  # the InputMasters that keeps it (a lease is given back there, even after a close)


class InputMasters:
    """Master copies of bench inputs by key (a task's bench folder), in the context of `rt` (the
    parent's CudaRuntime), at most `budget_bytes` of them (least recently offered dropped first,
    never one a worker may still be copying). `keyed_sum(ptr, nbytes, key) -> int` sums on the device."""

    def __init__(self, rt: Any, keyed_sum: Any, budget_bytes: int, key: int | None = None):
        self.rt, self.keyed_sum, self.budget_bytes = rt, keyed_sum, budget_bytes
        self.key = secrets.randbits(64) if key is None else key  # never leaves this process
        self.masters: OrderedDict[str, MasterSet] = OrderedDict()
        self.lock = threading.Lock()
        self.closed = False
        self.tampered = 0  # leases given back with a master changed during them
        self.repairs = 0  # master arrays found changed and uploaded again
        self.uploads = 0  # master arrays uploaded from their files (repairs included)
        self.verify_s = 0.0

    @classmethod
    def on_device(cls, rt: Any, check_library: str, budget_bytes: int | None = None) -> InputMasters:
        """Masters in `rt`'s context, summed by the harness's device library (OSError, AttributeError
        where it cannot be loaded or lacks the sum). By default an eighth of the GPU's memory, at most
        16 GiB: the workers' own copies of the same inputs and the candidates need the rest."""
        lib = ctypes.CDLL(check_library, mode=os.RTLD_NOW | os.RTLD_LOCAL)
        function = bind_keyed_sum(lib)
        scratch = rt.malloc(8)

        def keyed_sum(ptr: int, nbytes: int, key: int) -> int:
            out = (ctypes.c_ulonglong * 1)()
            rt.check(function(ptr, nbytes, key, scratch, out), "summing a master input on the device")
            return int(out[0])

        budget = budget_bytes if budget_bytes is not None else min(16 << 30, rt.mem_info()[1] // 8)
        return cls(rt, keyed_sum, budget)

    def offer(self, key: str, sources: list[tuple[int, str, Path]]) -> MasterSet | None:
        """The key's master arrays, uploaded from `sources` (set index, array name, .npy file) at the
        first offer and checked against their keyed sums at every later one (a changed array is
        uploaded again), leased until `release`. None when they do not fit the budget or the device."""
        stamp = _stamp(sources)
        with self.lock:
            master = self.masters.get(key)
            if master is not None and master.stamp != stamp:
                # The folder's data was built again: these masters are of the old files.
                if master.leases:
                    return None  # a worker may still copy them: this one uploads from the files
                self._drop(key)
                master = None
            if master is not None:
                self.masters.move_to_end(key)
                self._intact(master)
            else:
                master = self._stage(key, sources)
                if master is None:
                    return None
                master.stamp = stamp
                master.owner = self
            master.leases += 1
            return master

    def _intact(self, master: MasterSet) -> bool:
        """Check every array against the keyed sum it was uploaded with; a changed one is uploaded
        again from its file. Whether all were intact."""
        began, intact = time.perf_counter(), True
        for array in master.arrays:
            if self.keyed_sum(array.ptr, array.nbytes, self.key) != array.keyed:
                self.repairs += 1
                intact = False
                self._upload(array)
        self.verify_s += time.perf_counter() - began
        return intact

    def release(self, master: MasterSet) -> bool:
        """A worker is done with `master`: whether it stayed intact through the lease (checked again
        now: checked at the offer only, a change between the offer and the worker's copy, by code of
        an earlier worker still exiting, would reach that worker's inputs unseen). A changed master is
        uploaded again; the caller judges that candidate again from files."""
        with self.lock:
            master.leases = max(0, master.leases - 1)
            try:
                intact = self.closed or self._intact(master)
            except Exception:
                intact = False  # the device failed: that run's inputs cannot be vouched for
            if not intact:
                self.tampered += 1
            if self.closed and master.leases == 0:
                with contextlib.suppress(Exception):  # the context may be gone with the judge's
                    self._free(master)
            return intact

    def forget(self, key: str) -> None:
        """Free a key's masters (its task's bench data is gone); kept while a worker holds a lease."""
        with self.lock:
            master = self.masters.get(key)
            if master is not None and master.leases == 0:
                self._drop(key)

    def close(self) -> None:
        """Free every master no worker holds; a leased one is freed when its lease is given back
        (a worker may be copying it now)."""
        with self.lock:
            self.closed = True
            for key in list(self.masters):
                if self.masters[key].leases == 0:
                    self._drop(key)
                else:
                    self.masters.pop(key)

    def _stage(self, key: str, sources: list[tuple[int, str, Path]]) -> MasterSet | None:
        arrays = [(s, name, np.load(path, mmap_mode="r"), Path(path)) for s, name, path in sources]
        need = sum(int(data.nbytes) for _, _, data, _ in arrays)
        if need > self.budget_bytes or not arrays:
            return None
        while self._held() + need > self.budget_bytes:
            idle = next((k for k, m in self.masters.items() if m.leases == 0), None)
            if idle is None:
                return None
            self._drop(idle)
        master = MasterSet(nbytes=need)
        try:
            for s, name, data, path in arrays:
                try:
                    ptr = self.rt.malloc(int(data.nbytes))
                except CudaError:
                    self.rt.last_error()  # no room on the device now: uploads from files, this time
                    for array in master.arrays:
                        self.rt.free(array.ptr)
                    return None
                array = MasterArray(s, name, int(data.nbytes), ptr, b"", path)
                master.arrays.append(array)
                # Before the upload: where memory cannot be exported, no master is of any use.
                array.handle = self.rt.ipc_handle_bytes(ptr)
                self._upload(array, data)
        except Exception:
            self.rt.last_error()  # no IPC here, or the device failed: the caller stops using masters
            for array in master.arrays:
                self.rt.free(array.ptr)
            raise
        self.masters[key] = master
        return master

    def _upload(self, array: MasterArray, data: np.ndarray | None = None) -> None:
        """Copy the array's file to its master and record the keyed sum it now has."""
        values = np.ascontiguousarray(np.load(array.path, mmap_mode="r") if data is None else data)
        if values.nbytes != array.nbytes:
            raise ValueError(f"{array.path} holds {values.nbytes} bytes, not the master's {array.nbytes}")
        self.rt.memcpy(array.ptr, values.ctypes.data, array.nbytes, H2D)
        array.keyed = self.keyed_sum(array.ptr, array.nbytes, self.key)
        self.uploads += 1

    def _held(self) -> int:
        return sum(m.nbytes for m in self.masters.values())

    def _drop(self, key: str) -> None:
        self._free(self.masters.pop(key))

    def _free(self, master: MasterSet) -> None:
        arrays, master.arrays = master.arrays, []
        for array in arrays:
            self.rt.free(array.ptr)


def _stamp(sources: list[tuple[int, str, Path]]) -> tuple:
    stats = [os.stat(path) for _, _, path in sources]
    return tuple((st.st_ino, st.st_mtime_ns, st.st_size) for st in stats)


def write_handles(path: Path, master: MasterSet) -> list[list[Any]]:
    """Write the master arrays' raw handles to `path` (readable by this user only), in order, and
    return the manifest the job carries: [set index, name, nbytes] per handle, nothing secret."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        data = b"".join(array.handle for array in master.arrays)
        assert len(data) == IPC_HANDLE_BYTES * len(master.arrays)
        while data:
            data = data[os.write(fd, data) :]
    finally:
        os.close(fd)
    return [[array.set_index, array.name, array.nbytes] for array in master.arrays]
