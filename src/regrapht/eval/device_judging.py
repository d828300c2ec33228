"""Judging timed outputs in the worker's device memory: the parent's DeviceJudge (eval/device_judge.py)
holds a task's expected outputs on the GPU, and a worker offers a checked call's output there
(an ANCHOR message) instead of copying gigabytes to a file. Any failure of the parent's own falls
back to files, judged in full: no such failure is blamed on the candidate or passes it."""

from __future__ import annotations

import contextlib
import threading
from pathlib import Path
from typing import Any

from regrapht.eval import correctness
from regrapht.eval.bench_masters import InputMasters, MasterSet
from regrapht.eval.cudart import CudaError
from regrapht.eval.device_judge import DeviceJudge, JudgeUnavailable
from regrapht.eval.reference import BenchReference
from regrapht.eval.timing_verdict import DeviceVerdict
from regrapht.tasks import Task


class DeviceJudging:
    """The parent's device judge, made at first use and retired for good after a failure of its own
    (`off` says why it is not used). `judge` may be set to a stand-in by tests."""

    def __init__(self) -> None:
        self.judge: DeviceJudge | None = None
        self.off: str | None = None  # why the parent does not judge on the device
        self._lock = threading.Lock()
        self.masters: InputMasters | None = None  # the bench inputs' device masters, in the judge's context
        self.masters_off: str | None = None  # why there are none

    def close(self) -> None:
        with self._lock:
            if self.masters is not None:
                self.masters.close()
                self.masters = None
            if self.judge is not None:
                self.judge.close()
                self.judge = None

    def forget(self, key: str) -> None:
        """Free the device copies of a dropped task's expected outputs."""
        judge, masters = self.judge, self.masters
        if judge is not None:
            judge.forget(key)
        if masters is not None:
            masters.forget(key)

    def stage(self, task: Task, bench: BenchReference, libcudart: str, device_check: str) -> bool:
        """Whether this candidate's timed outputs are judged in device memory: the parent's judge
        is up and holds the task's expected outputs. Custom checkers read outputs on the host."""
        if any(arg.tolerance is None or arg.tolerance.kind == "custom" for arg in task.written):
            return False
        judge = self._up(libcudart, device_check)
        if judge is None:
            return False
        try:
            return judge.stage(str(bench.dir), [case.expected for case in bench.checked or bench.sets])
        except Exception as exc:  # the parent's own failure: files, as without a judge
            self.retire(f"staging expected outputs failed: {exc}")
            return False

    def _up(self, libcudart: str, device_check: str) -> DeviceJudge | None:
        """The judge, made at first use; None once it could not be or was retired."""
        with self._lock:
            if self.judge is None and self.off is None:
                try:
                    self.judge = DeviceJudge(libcudart, device_check)
                except JudgeUnavailable as exc:
                    self.off = str(exc)
            return self.judge

    def offer_inputs(
        self, key: str, sources: list[tuple[int, str, Path]], libcudart: str, device_check: str
    ) -> MasterSet | None:
        """The bench inputs' device masters in the judge's context (eval/bench_masters.py), leased
        to one worker (`release_inputs` when it is done); None where they cannot be had: the worker
        then uploads its inputs from the files, as without them."""
        judge = self._up(libcudart, device_check)
        if judge is None:
            return None
        with self._lock:
            if self.masters is None and self.masters_off is None:
                try:
                    self.masters = InputMasters.on_device(judge.rt, device_check)
                except (OSError, AttributeError, CudaError) as exc:
                    self.masters_off = f"no device masters of the bench inputs: {exc}"
            masters = self.masters
        if masters is None:
            return None
        try:
            return masters.offer(key, sources)
        except OSError:  # its files went (the bench cache dropped them) since the caller looked
            return None
        except Exception as exc:  # the parent's own failure: uploads from files, as without them
            with self._lock:
                self.masters, self.masters_off = None, f"keeping the bench inputs on the device failed: {exc}"
            with contextlib.suppress(Exception):
                masters.close()
            return None

    def release_inputs(self, master: MasterSet) -> bool:
        """Give back a worker's lease; whether the master stayed intact through it (the caller judges
        the candidate again from files where not)."""
        return master.owner.release(master) if master.owner is not None else True

    def judge_anchor(self, task: Task, run: Any, message: dict[str, Any]) -> bool:
        """Judge the output a worker kept in device memory for a checked timed call, where it lies;
        True when judged. The call is an input set's first checked one, or (fresh inputs) any
        checked call, named by its slot. False for anything else (a malformed or repeated message,
        a handle that does not open or maps too little, a failure of the parent's own): the worker
        then sends the output as a file, judged in full as before, so no such failure is blamed on
        the candidate or passes it."""
        if run.bench is None:  # no bench data yet: nothing this message can name
            return False
        fresh = run.bench.fresh
        index = message.get("slot") if fresh else message.get("set")
        cases = run.bench.checked if fresh else run.bench.sets
        key = (str(message.get("lib")), index)
        round_index, handles, judge = message.get("round"), message.get("handles"), self.judge
        if (
            judge is None  # retired by an earlier failure of its own
            or not isinstance(index, int)
            or not 0 <= index < len(cases)
            or (fresh and message.get("set") != cases[index].seed_index)
            or not isinstance(round_index, int)
            or not isinstance(handles, dict)
            or key in run.device_verdicts
        ):
            return False
        case = cases[index]
        problem = None
        for arg in task.written:
            assert arg.tolerance is not None
            expected = case.expected[arg.name]
            try:
                counted = judge.count(
                    str(run.bench.dir),
                    index,
                    arg.name,
                    str(handles.get(arg.name, "")),
                    arg.tolerance,
                    expected,
                )
                mismatch = (
                    correctness.compare(counted.actual, expected, arg.tolerance)
                    if counted.actual is not None
                    else None
                )
            except CudaError as exc:  # the parent's own device work: its context may be unusable
                self.retire(f"judging on the device failed: {exc}")
                return False
            except Exception:  # a bad handle, this platform's IPC, no host memory: the file will tell
                return False
            if mismatch:
                problem = mismatch.describe(arg.name, arg.tolerance)
                break
        run.device_verdicts[key] = DeviceVerdict(round_index, problem)
        return True

    def retire(self, reason: str) -> None:
        """Later candidates send their outputs as files: a failed call may have left the parent's
        context unusable."""
        with self._lock:
            judge, self.judge = self.judge, None
            masters, self.masters = self.masters, None
            self.off = self.masters_off = reason
        if masters is not None:
            with contextlib.suppress(Exception):
                masters.close()
        if judge is not None:
            with contextlib.suppress(CudaError):
                judge.close()
