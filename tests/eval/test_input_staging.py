"""Input sets staged ahead (EvalConfig.stage_inputs_ahead), without a GPU: the parent's judge keeps
each task's input sets once, within its budget, never dropping the task's own expected outputs for
them; a worker's timing uses the copies it made at start and uploads from the files only what it
lacks. The device copy itself runs in tests/eval/test_gpu_prestage.py."""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from regrapht.eval.cudart import CudaError
from regrapht.eval.device_judge import INPUTS_KEY, DeviceJudge
from regrapht.eval.timing_loop import TimingRun, prestage_sets
from regrapht.eval.worker_memory import HostMemory


class FakeRuntime:
    """Device memory as numbered allocations; `fail_copies` makes every copy fail as a full device would."""

    def __init__(self, fail_copies: bool = False):
        self.next, self.live, self.fail_copies = 1, set(), fail_copies

    def malloc(self, nbytes: int) -> int:
        self.next += 1
        self.live.add(self.next)
        return self.next

    def free(self, ptr: int) -> None:
        self.live.discard(ptr)

    def memcpy(self, dst: int, src: int, nbytes: int, kind: int) -> None:
        if self.fail_copies:
            raise CudaError(2, "cudaErrorMemoryAllocation", "out of memory", "cudaMemcpy")

    def ipc_handle(self, ptr: int) -> str:
        return f"{ptr:0128x}"

    def last_error(self) -> int:
        return 0


def _judge(budget: int, rt: FakeRuntime | None = None) -> DeviceJudge:
    judge = object.__new__(DeviceJudge)  # no CUDA context: its bookkeeping only
    judge.rt, judge.budget_bytes = rt or FakeRuntime(), budget
    judge.staged, judge.staged_bytes, judge.input_handles = OrderedDict(), {}, {}
    judge.lock = threading.Lock()
    return judge


def _sets(n: int) -> list[dict[str, np.ndarray]]:
    return [{"x": np.full(n, s, dtype=np.float32), "y": np.zeros(n, dtype=np.float32)} for s in range(2)]


def test_a_tasks_input_sets_are_staged_once_with_a_handle_and_size_each():
    judge = _judge(1 << 20)
    handles = judge.stage_inputs("/bench/a", _sets(1000))
    assert handles is not None and len(handles) == 2
    assert {name: size for name, (_, size) in handles[0].items()} == {"x": 4000, "y": 4000}
    allocated = set(judge.rt.live)
    assert judge.stage_inputs("/bench/a", _sets(1000)) == handles  # once per task
    assert judge.rt.live == allocated
    judge.forget("/bench/a")
    assert not judge.rt.live and "/bench/a" + INPUTS_KEY not in judge.input_handles


def test_inputs_make_room_by_dropping_other_tasks_never_their_own_outputs():
    judge = _judge(40_000)
    assert judge.stage("/bench/a", [{"out": np.zeros(2500, dtype=np.float32)}])  # 10 kB of expected outputs
    assert judge.stage_inputs("/bench/b", _sets(1500)) is not None  # 24 kB
    assert judge.stage_inputs("/bench/a", _sets(1500)) is not None  # b's inputs go, a's outputs stay
    assert list(judge.staged) == ["/bench/a", "/bench/a" + INPUTS_KEY]
    assert judge.stage_inputs("/bench/c", _sets(10_000)) is None  # more than the whole budget


def test_a_failed_device_copy_leaves_nothing_staged():
    rt = FakeRuntime(fail_copies=True)
    judge = _judge(1 << 20, rt)
    assert judge.stage_inputs("/bench/a", _sets(100)) is None
    assert not rt.live and not judge.staged


def test_timing_uses_the_sets_copied_at_start_and_uploads_the_rest(tmp_path: Path):
    bench = tmp_path / "bench"
    for s in range(2):
        (bench / f"set{s}").mkdir(parents=True)
        for name in ("x", "y"):
            np.save(bench / f"set{s}" / f"{name}.npy", np.full(16, 10 * s + (name == "y"), dtype=np.float32))
    (bench / "scalars.json").write_text("{}")
    mem = HostMemory(None)
    pool: dict = {}
    kept = mem.alloc(64 + 2 * 8)  # the worker's own copy of set 1's x, made at its start
    mem.fill(kept, 0, 64 + 16, 0)
    worker = SimpleNamespace(
        mem=mem, rt=None, guard=8, job={"args": [
            {"name": "x", "array": True, "role": "input", "dtype": "float32"},
            {"name": "y", "array": True, "role": "inout", "dtype": "float32"},
        ]},
        read_in_place=lambda: set(),
        mapped=lambda path: np.load(path, mmap_mode="r"),
        buffer=lambda name, nbytes, tag="": pool.setdefault((name + tag, nbytes), mem.alloc(nbytes + 16)),
        prestaged={(1, "x"): (kept, 64), (0, "y"): (mem.alloc(80), 32)},  # the second: a size that does not match
    )
    staged = TimingRun(worker, {"nbytes": {"x": 64, "y": 64}, "dir": str(bench), "sets": 2}).stage_bench()
    assert staged.sets[1]["x"] is kept
    assert not kept[8:72].view(np.float32).any()  # used as it was copied: not uploaded again
    assert staged.sets[0]["y"] is pool[("y.set0", 64)]  # the wrong size was not used: read from its file
    assert (staged.sets[0]["y"][8:72].view(np.float32) == 1).all()
    assert (staged.sets[1]["y"][8:72].view(np.float32) == 11).all()
    # nothing to copy from off the cuda target, or without device sets in the job
    assert prestage_sets(SimpleNamespace(job={"device_sets": [{}]}, rt=None, trusted=False)) == ({}, 0.0)
