"""Checked timed calls, inside the worker: the buffers they need (allocated before the first timed
call), the comparisons made where the outputs are (late writes, an output against its set's first
checked output), and what goes to the parent: a verdict-free report, the output as a file, or the
kept output offered for the parent to judge in device memory."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from regrapht.eval.protocol import Check, Event, read_anchor_reply


class TimedChecks:
    """The checks of one timing run. `worker` lends its memory, buffers, channel and outputs."""

    def __init__(self, worker: Any, spec: dict[str, Any], nbytes: dict[str, int], fresh: bool):
        self.mem, self.rt, self.channel = worker.mem, worker.rt, worker.channel
        self.buffer, self.guard = worker.buffer, worker.guard
        self.written: list[dict[str, Any]] = worker.written
        self.out_dir: Path = worker.out_dir
        self.nbytes = nbytes
        self.anchors = self._allocate(spec, nbytes, fresh)
        # Whether the parent judges timed outputs in device memory (False for good once it cannot).
        self.judge_on_device = bool(spec.get("judge_on_device")) and self.anchors is not None

    def free(self) -> None:
        for anchor in (self.anchors or {}).values():
            for handle in anchor["buffers"].values():
                self.mem.free(handle)

    def _allocate(
        self, spec: dict[str, Any], nbytes: dict[str, int], fresh: bool
    ) -> dict[tuple[str, int], dict[str, Any]] | None:
        """Every buffer the timed checks need, allocated before the first timed call: an allocation
        (or a drop in free memory) between calls would tell a candidate which calls are checked.
        The snapshot at return per output, and one anchor per checked library, input set and output.
        With fresh inputs no two checked outputs are alike: one kept copy per checked library, for
        the parent to judge in device memory, and only where it will. None when the anchors do not
        fit: every check then sends its output to the parent."""
        for a in self.written:
            self.buffer(a["name"], nbytes[a["name"]], tag=".at_return")
        if fresh and not spec.get("judge_on_device"):
            return None
        anchors: dict[tuple[str, int], dict[str, Any]] = {}
        try:
            for lib in spec["check_libs"]:
                for s in range(1 if fresh else int(spec["sets"])):
                    anchor: dict[str, Any] = {"round": None, "buffers": {}}
                    anchors[(lib, s)] = anchor
                    for a in self.written:
                        anchor["buffers"][a["name"]] = self.mem.alloc(nbytes[a["name"]])
        except Exception as exc:
            from regrapht.eval.cudart import CudaError

            if not isinstance(exc, (CudaError, MemoryError)):
                raise
            if self.rt is not None:
                self.rt.last_error()  # a failed cudaMalloc leaves its error to be read: read it here
            for anchor in anchors.values():
                for handle in anchor["buffers"].values():
                    self.mem.free(handle)
            return None
        return anchors

    def check(
        self,
        lib: str,
        round_index: int,
        set_index: int,
        final: bool,
        handles: dict[str, Any],
        snapshots: dict[str, Any],
        slot: int | None = None,
    ) -> Check:
        """One checked timed call. Bench outputs run to gigabytes, so comparisons happen where the
        buffers are and only their verdicts travel: the output as the call returned against the
        output after synchronization (late writes), and the output against this input set's first
        checked output (its anchor). Only an anchor, or an output that differs from its anchor,
        crosses to the parent as a file for the full check against the expected values."""
        written = self.written
        late = {}
        for a in written:
            changed = self.mem.differences(
                snapshots[a["name"]], 0, handles[a["name"]], self.guard, self.nbytes[a["name"]], int(a["itemsize"])
            )
            if changed:
                late[a["name"]] = changed
        entry: Check = {
            "lib": lib,
            "round": round_index,
            "set": set_index,
            "late": late,
            "final": final,
        }
        if slot is not None:
            return self._check_fresh(entry, lib, round_index, set_index, slot, handles)
        anchor = None if self.anchors is None else self.anchors.get((lib, set_index))
        if (
            anchor is not None
            and anchor["round"] is not None
            and not any(
                self.mem.differences(
                    anchor["buffers"][a["name"]],
                    0,
                    handles[a["name"]],
                    self.guard,
                    self.nbytes[a["name"]],
                    int(a["itemsize"]),
                )
                for a in written
            )
        ):
            entry.update(files={}, same_as=anchor["round"])
            return entry
        sources = {a["name"]: (handles[a["name"]], self.guard) for a in written}
        if anchor is not None and anchor["round"] is None:
            # The set's first check: keep the output first and send the kept copy, so the anchor
            # is exactly what the parent judges.
            for a in written:
                self.mem.copy(
                    anchor["buffers"][a["name"]], 0, handles[a["name"]], self.guard, self.nbytes[a["name"]]
                )
                sources[a["name"]] = (anchor["buffers"][a["name"]], 0)
            anchor["round"] = round_index
            if self.judge_on_device and self._offer(lib, round_index, set_index, anchor):
                entry.update(files={}, judged_on_device=True)
                return entry
        files = {}
        for a in written:
            path = self.out_dir / f"timed.{lib}.r{round_index}.{a['name']}.bin"
            handle, offset = sources[a["name"]]
            self.mem.download_to(handle, offset, self.nbytes[a["name"]], path)
            files[a["name"]] = str(path)
        entry["files"] = files
        return entry

    def _check_fresh(
        self,
        entry: Check,
        lib: str,
        round_index: int,
        set_index: int,
        slot: int,
        handles: dict[str, Any],
    ) -> Check:
        """A checked call with fresh inputs: its output is like no other call's, so it is judged in
        full against its own expected values (its slot's), in device memory where the parent can,
        else as a file."""
        entry["slot"] = slot
        anchor = None if self.anchors is None else self.anchors.get((lib, 0))
        if anchor is not None and self.judge_on_device:
            for a in self.written:
                self.mem.copy(anchor["buffers"][a["name"]], 0, handles[a["name"]], self.guard, self.nbytes[a["name"]])
            if self._offer(lib, round_index, set_index, anchor, slot):
                entry.update(files={}, judged_on_device=True)
                return entry
        files = {}
        for a in self.written:
            path = self.out_dir / f"timed.{lib}.r{round_index}.{a['name']}.bin"
            self.mem.download_to(handles[a["name"]], self.guard, self.nbytes[a["name"]], path)
            files[a["name"]] = str(path)
        entry["files"] = files
        return entry

    def _offer(
        self, lib: str, round_index: int, set_index: int, anchor: dict[str, Any], slot: int | None = None
    ) -> bool:
        """Offer the parent the kept output: it maps it into its own context and judges it there,
        while this process waits (the device idle). False when it could not: the output then goes
        as a file. Where this platform cannot export device memory, no later anchor is offered."""
        from regrapht.eval.cudart import CudaError

        # The kept copy was made by a device-to-device cudaMemcpy, which returns before the copy is
        # done, and the parent reads it from its own context, unordered with this process's stream:
        # offered unfinished, the parent judged the previous check's output (or part of it) and an
        # honest kernel was flagged (session 13). An error of the candidate's surfacing here ends
        # the timing as any other would.
        self.rt.check(self.rt.synchronize(), f"keeping timed call {round_index + 1}'s output for the parent")
        try:
            handles = {a["name"]: self.mem.ipc_handle(anchor["buffers"][a["name"]]) for a in self.written}
        except CudaError:
            self.rt.last_error()  # the harness's failure, not the candidate's: not left to be read
            self.judge_on_device = False
            return False
        extra = {} if slot is None else {"slot": slot}
        self.channel.send(event=Event.ANCHOR, lib=lib, round=round_index, set=set_index, handles=handles, **extra)
        return read_anchor_reply(sys.stdin.readline())
