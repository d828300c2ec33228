"""The parent's device masters of the bench inputs and a worker's copy of them (eval/bench_masters.py,
eval/worker_inputs.py), on a stand-in device: uploaded once per task, checked by their keyed sum before
every hand-out and uploaded again when changed, leased while a worker may copy them, and handed to the
worker through a file it reads into memory it zeroes, and removes, before any candidate code loads."""

from __future__ import annotations

import ctypes
from concurrent.futures import Future
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from regrapht.eval import Evaluator, worker_inputs
from regrapht.eval.bench_masters import HANDLES_FILE, InputMasters, keyed_sum_host, write_handles
from regrapht.eval.candidates import CandidateRun
from regrapht.eval.cudart import IPC_HANDLE_BYTES, IpcMemHandle
from regrapht.eval.protocol import Event, check_message
from regrapht.eval.worker_memory import HostMemory
from tests.eval.conftest import quick_config


class FakeDevice:
    """Device memory as byte arrays at made-up addresses; an IPC handle names its address."""

    def __init__(self) -> None:
        self.memory: dict[int, bytearray] = {}
        self.next = 1 << 20
        self.calls: list[str] = []

    def malloc(self, nbytes: int) -> int:
        self.next += 1 << 20
        self.memory[self.next] = bytearray(max(nbytes, 1))
        return self.next

    def free(self, ptr: int) -> None:
        self.memory.pop(ptr)

    def _find(self, ptr: int) -> tuple[bytearray, int]:
        base = max(b for b in self.memory if b <= ptr)
        return self.memory[base], ptr - base

    def memcpy(self, dst: int, src: int, nbytes: int, kind: int) -> None:
        self.calls.append(f"memcpy {kind}")
        data = ctypes.string_at(src, nbytes) if kind == 1 else bytes(self._find(src)[0][self._find(src)[1] :][:nbytes])
        buf, off = self._find(dst)
        buf[off : off + nbytes] = data

    def ipc_handle_bytes(self, ptr: int) -> bytes:
        return ptr.to_bytes(8, "little") + bytes(IPC_HANDLE_BYTES - 8)

    def ipc_open_struct(self, handle: IpcMemHandle) -> int:
        ptr = int.from_bytes(ctypes.string_at(ctypes.addressof(handle), 8), "little")
        if ptr not in self.memory:
            raise OSError("no such allocation")
        self.calls.append("open")
        return ptr

    def ipc_close(self, ptr: int) -> int:
        self.calls.append("close")
        return 0

    def synchronize(self) -> int:
        self.calls.append("sync")
        return 0

    def check(self, code: int, where: str) -> None:
        assert code == 0, where

    def last_error(self) -> int:
        return 0

    def keyed_sum(self, ptr: int, nbytes: int, key: int) -> int:
        return keyed_sum_host(np.frombuffer(bytes(self.memory[ptr][:nbytes]), np.uint8), key)


def _sets(folder: Path, sizes=(1000, 24)) -> list[tuple[int, str, Path]]:
    rng = np.random.default_rng(0)
    sources = []
    for s in range(2):
        (folder / f"set{s}").mkdir(parents=True, exist_ok=True)
        for name, size in zip(("x", "y"), sizes, strict=True):
            path = folder / f"set{s}" / f"{name}.npy"
            np.save(path, rng.standard_normal(size).astype(np.float32))
            sources.append((s, name, path))
    return sources


def test_the_keyed_sum_sees_any_change_and_depends_on_its_key():
    data = np.random.default_rng(1).integers(0, 256, 1003, dtype=np.uint8)  # a partial last word
    base = keyed_sum_host(data, 7)
    assert keyed_sum_host(data.copy(), 7) == base
    assert keyed_sum_host(data, 8) != base
    for at in (0, 500, 1002):
        changed = data.copy()
        changed[at] ^= 1
        assert keyed_sum_host(changed, 7) != base
    swapped = data.copy()
    swapped[:8], swapped[8:16] = data[8:16], data[:8]  # the same words at other places
    assert keyed_sum_host(swapped, 7) != base


def test_masters_are_uploaded_once_and_a_changed_one_again_before_the_next_hand_out(tmp_path):
    device = FakeDevice()
    masters = InputMasters(device, device.keyed_sum, budget_bytes=1 << 20, key=12345)
    sources = _sets(tmp_path)
    first = masters.offer("task", sources)
    assert first is not None and masters.uploads == 4 and first.leases == 1
    masters.release(first)
    assert masters.offer("task", sources) is first and masters.uploads == 4 and masters.repairs == 0
    masters.release(first)
    victim = first.arrays[1]
    device.memory[victim.ptr][:8] = bytes(8)  # as a worker that reached the master would
    assert masters.offer("task", sources) is first
    assert masters.repairs == 1 and masters.uploads == 5
    on_file = np.load(victim.path).view(np.uint8).tobytes()
    assert bytes(device.memory[victim.ptr]) == on_file
    masters.release(first)
    np.save(victim.path, np.zeros(24, dtype=np.float32))  # the folder's data built again
    again = masters.offer("task", sources)
    assert again is not first and masters.uploads == 9
    assert bytes(device.memory[again.arrays[1].ptr]) == bytes(24 * 4)


def test_masters_beyond_the_budget_are_not_kept_and_a_leased_one_is_never_dropped(tmp_path):
    device = FakeDevice()
    one_task = 2 * (1000 + 24) * 4
    masters = InputMasters(device, device.keyed_sum, budget_bytes=one_task + 100)
    a = masters.offer("a", _sets(tmp_path / "a"))
    assert a is not None
    assert masters.offer("b", _sets(tmp_path / "b")) is None  # "a" is leased: no room made
    assert len(device.memory) == 4
    masters.release(a)
    b = masters.offer("b", _sets(tmp_path / "b"))
    assert b is not None and list(masters.masters) == ["b"] and len(device.memory) == 4
    assert masters.offer("big", _sets(tmp_path / "big", sizes=(1 << 16, 1))) is None
    masters.forget("b")  # leased: kept
    assert "b" in masters.masters
    masters.release(b)
    masters.forget("b")
    assert not masters.masters and not device.memory


def test_no_room_on_the_device_is_no_master_this_time_but_no_ipc_is_an_error(tmp_path):
    from regrapht.eval.cudart import CudaError

    device = FakeDevice()
    masters = InputMasters(device, device.keyed_sum, budget_bytes=1 << 20)
    real_malloc, calls = device.malloc, []

    def malloc(nbytes: int) -> int:
        calls.append(nbytes)
        if len(calls) == 3:
            raise CudaError(2, "cudaErrorMemoryAllocation", "out of memory", "cudaMalloc")
        return real_malloc(nbytes)

    device.malloc = malloc
    sources = _sets(tmp_path)
    assert masters.offer("task", sources) is None and not device.memory and not masters.masters
    uploads = masters.uploads
    device.malloc = real_malloc
    device.ipc_handle_bytes = lambda ptr: (_ for _ in ()).throw(CudaError(1, "e", "not supported", "ipc"))
    with pytest.raises(CudaError):
        masters.offer("task", sources)
    assert not device.memory and masters.uploads == uploads  # refused before any upload


def test_a_worker_copies_the_masters_then_zeroes_the_handles_and_removes_their_file(tmp_path, monkeypatch):
    device = FakeDevice()
    masters = InputMasters(device, device.keyed_sum, budget_bytes=1 << 20)
    master = masters.offer("task", _sets(tmp_path / "bench"))
    path = tmp_path / HANDLES_FILE
    manifest = write_handles(path, master)
    assert path.stat().st_mode & 0o777 == 0o600
    assert manifest == [[a.set_index, a.name, a.nbytes] for a in master.arrays]
    read: list[ctypes.Array] = []
    real_read = worker_inputs.read_handles
    monkeypatch.setattr(worker_inputs, "read_handles", lambda p, n: read.append(real_read(p, n)) or read[-1])
    guard = 64
    copied, report = worker_inputs.copy_from_masters(
        device, device.malloc, device.free, {"dir": "d", "file": str(path), "arrays": manifest}, guard
    )
    assert not path.exists()
    assert read and read[0].raw == bytes(len(read[0].raw))  # no handle left in the worker's memory
    assert report["arrays"] == 4 and report["bytes"] == master.nbytes and "failed" not in report
    for array in master.arrays:
        buf = device.memory[copied[(array.set_index, array.name)]]
        assert bytes(buf[guard : guard + array.nbytes]) == bytes(device.memory[array.ptr])
    # Every mapping is closed, and only after the device finished the copies.
    assert device.calls.count("open") == 4 == device.calls.count("close")
    assert device.calls.index("sync") < device.calls.index("close")


def test_a_worker_that_cannot_copy_keeps_nothing_and_still_removes_the_file(tmp_path):
    device = FakeDevice()
    masters = InputMasters(device, device.keyed_sum, budget_bytes=1 << 20)
    master = masters.offer("task", _sets(tmp_path / "bench"))
    path = tmp_path / HANDLES_FILE
    manifest = write_handles(path, master)
    path.write_bytes(path.read_bytes()[: 3 * IPC_HANDLE_BYTES])  # one handle short
    before = set(device.memory)
    copied, report = worker_inputs.copy_from_masters(
        device, device.malloc, device.free, {"dir": "d", "file": str(path), "arrays": manifest}, 0
    )
    assert copied == {} and "holds" in report["failed"] and not path.exists()
    assert set(device.memory) == before  # nothing allocated is left behind
    path.write_bytes(b"".join(a.handle for a in master.arrays))
    masters.release(master)
    masters.forget("task")  # the handles now name nothing: opening fails, nothing is kept
    copied, report = worker_inputs.copy_from_masters(
        device, device.malloc, device.free, {"dir": "d", "file": str(path), "arrays": manifest}, 0
    )
    assert copied == {} and report["failed"] and not device.memory


def test_the_loaded_message_may_carry_the_copy_report():
    message = {"event": Event.LOADED, "libs": ["candidate"], "inputs": {"arrays": 2, "bytes": 8, "seconds": 0.01}}
    check_message(message)
    with pytest.raises(ValueError):
        check_message({**message, "inputs": "all of them"})


def test_the_timing_loop_uses_the_copied_inputs_of_its_own_bench_data_only(tmp_path):
    from regrapht.eval.timing_loop import TimingRun

    bench = tmp_path / "bench"
    for s in range(2):
        (bench / f"set{s}").mkdir(parents=True)
        np.save(bench / f"set{s}" / "x.npy", np.full(4, s + 1, dtype=np.float32))
    (bench / "scalars.json").write_text("{}")
    mem, uploads = HostMemory(), []
    real_upload = mem.upload
    mem.upload = lambda handle, offset, data: uploads.append(1) or real_upload(handle, offset, data)
    args = [{"name": "x", "role": "input", "array": True}, {"name": "out", "role": "output", "array": True}]

    def worker(prestaged_dir: str):
        pool: dict = {}
        w = SimpleNamespace(
            job={"args": args},
            mem=mem,
            rt=None,
            guard=8,
            read_in_place=lambda: set(),
            mapped=lambda path: np.load(path, mmap_mode="r"),
            buffer=lambda name, nbytes, tag="": pool.setdefault((name + tag, nbytes), mem.alloc(nbytes + 16)),
            prestaged={(0, "x"): (mem.alloc(32), 16)},
            prestaged_dir=prestaged_dir,
        )
        return w

    w = worker(str(bench))
    kept = w.prestaged[(0, "x")][0]
    staged = TimingRun(w, {"dir": str(bench), "sets": 2, "nbytes": {"x": 16, "out": 16}}).stage_bench()
    assert staged.sets[0]["x"] is kept and len(uploads) == 1  # set 1 was not copied: uploaded
    assert w.prestaged == {}
    uploads.clear()
    w = worker(str(tmp_path / "another"))
    staged = TimingRun(w, {"dir": str(bench), "sets": 2, "nbytes": {"x": 16, "out": 16}}).stage_bench()
    assert len(uploads) == 2  # copies of other bench data are not used


def test_inputs_are_offered_only_where_the_bench_data_is_built(build_cache, tmp_path):
    task = SimpleNamespace(id="t", instance_key="/tasks/t")
    bench = SimpleNamespace(dir=tmp_path / "bench")
    sources = _sets(bench.dir, sizes=(8, 8))
    offered: list = []
    master = SimpleNamespace(arrays=[SimpleNamespace(set_index=s, name=n, nbytes=32, handle=bytes(64)) for s, n, _ in sources])
    judging = SimpleNamespace(offer_inputs=lambda key, src, rt, dc: offered.append((key, src)) or master)
    job = {
        "libcudart": "libcudart.so",
        "device_check": "check.so",
        "args": [
            {"name": "x", "role": "input", "array": True},
            {"name": "y", "role": "inout", "array": True},
            {"name": "out", "role": "output", "array": True},
            {"name": "n", "role": "size", "array": False},
        ],
    }
    with Evaluator(quick_config(build_cache)) as evaluator:
        runner = evaluator.candidates
        runner.device_judging = judging
        futures: dict[str, Future] = {}
        runner.benches = SimpleNamespace(future=lambda t: futures.get(t.id))
        run = CandidateRun(job_dir=tmp_path, planned=0)
        assert runner._offer_inputs(task, job, tmp_path, run) is None and not offered
        futures["t"] = Future()
        assert runner._offer_inputs(task, job, tmp_path, run) is None  # being built
        futures["t"].set_result(bench)
        assert runner._offer_inputs(task, job, tmp_path, run) is master
        assert offered == [(str(bench.dir), sources)]
        assert job["inputs"]["file"] == str(tmp_path / HANDLES_FILE) and len(job["inputs"]["arrays"]) == 4
        assert (tmp_path / HANDLES_FILE).stat().st_size == 4 * IPC_HANDLE_BYTES
        assert run.waits["inputs_offer_ahead"] >= 0


def test_the_worker_keeps_its_copies_by_set_and_name_and_drops_handles_it_cannot_use(tmp_path):
    from regrapht.eval.worker import Worker

    device = FakeDevice()
    masters = InputMasters(device, device.keyed_sum, budget_bytes=1 << 20)
    master = masters.offer("task", _sets(tmp_path / "bench"))
    path = tmp_path / HANDLES_FILE
    spec = {"dir": str(tmp_path / "bench"), "file": str(path), "arrays": write_handles(path, master)}
    w = Worker.__new__(Worker)
    w.job, w.rt, w.guard = {"inputs": spec, "device_buffers": True}, device, 16
    w.mem = SimpleNamespace(alloc=device.malloc, free=device.free)
    w.prestaged, w.prestaged_dir, w.inputs_report = {}, None, None
    w.take_inputs()
    assert w.prestaged_dir == spec["dir"] and w.inputs_report["arrays"] == 4
    assert {k: n for k, (_, n) in w.prestaged.items()} == {(a.set_index, a.name): a.nbytes for a in master.arrays}
    write_handles(path, master)
    w.rt, w.prestaged, w.inputs_report = None, {}, None  # the host convention: nothing to copy into
    w.take_inputs()
    assert not path.exists() and w.prestaged == {} and w.inputs_report is None


def test_a_master_changed_during_a_lease_is_reported_at_its_release_and_uploaded_again(tmp_path):
    """Checked at the offer only, a change made after it (by an earlier worker's code still exiting)
    would reach the worker that copies next: the release checks again and says so."""
    device = FakeDevice()
    masters = InputMasters(device, device.keyed_sum, budget_bytes=1 << 20, key=99)
    sources = _sets(tmp_path)
    untouched = masters.offer("task", sources)
    assert masters.release(untouched) is True and masters.tampered == 0
    leased = masters.offer("task", sources)
    device.memory[leased.arrays[0].ptr][:4] = b"\xff\xff\xff\xff"  # during the lease
    assert masters.release(leased) is False
    assert masters.tampered == 1 and masters.repairs == 1
    assert bytes(device.memory[leased.arrays[0].ptr]) == np.load(sources[0][2]).tobytes()  # uploaded again
    assert masters.release(masters.offer("task", sources)) is True


def test_closing_frees_a_leased_master_only_when_its_lease_is_given_back(tmp_path):
    device = FakeDevice()
    masters = InputMasters(device, device.keyed_sum, budget_bytes=1 << 20, key=5)
    leased = masters.offer("a", _sets(tmp_path / "a"))
    idle = masters.offer("b", _sets(tmp_path / "b"))
    masters.release(idle)
    masters.close()
    assert all(a.ptr not in device.memory for a in idle.arrays)
    assert all(a.ptr in device.memory for a in leased.arrays)  # a worker may be copying it now
    assert masters.release(leased) is True
    assert not device.memory  # freed at the release, once closed


def test_bench_files_gone_before_the_offer_cost_that_offer_only(tmp_path):
    from regrapht.eval.device_judging import DeviceJudging

    device = FakeDevice()
    judging = DeviceJudging()
    judging.masters = InputMasters(device, device.keyed_sum, budget_bytes=1 << 20, key=1)
    judging._up = lambda libcudart, device_check: object()  # type: ignore[method-assign]
    sources = _sets(tmp_path)
    sources[1][2].unlink()  # the bench cache dropped the folder meanwhile
    assert judging.offer_inputs("task", sources, "libcudart", "check") is None
    assert judging.masters is not None and judging.masters_off is None  # still in use for the next
    assert judging.offer_inputs("task", _sets(tmp_path), "libcudart", "check") is not None
