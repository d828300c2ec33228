"""The worker's timing loop, in named pieces: the bench data staged once, the inputs staged before each
call, one timed call, and the rounds between the schedule's first call and its stop rule. Every
timed call is bracketed alike whether or not it is checked; only what happens after it differs."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from regrapht.eval.protocol import Check, Event, Samples
from regrapht.eval.stop_rule import stop_reason
from regrapht.eval.timed_checks import TimedChecks
from regrapht.eval.timing_plan import CheckSchedule, FreshInputs


@dataclass
class BenchBuffers:
    """The bench data as the timed calls read it. Each input set lives in its own buffer and is
    copied into the argument buffers before every call, so consecutive calls see different data at
    the same pointers. The trusted reference reads its inputs in place instead, from the files its
    output runs mapped."""

    scalars: dict[str, Any]
    arrays: list[dict[str, Any]]  # the array arguments
    readable: list[dict[str, Any]]  # those the call reads
    in_place: set[str]  # inputs read where they are mapped (the reference's)
    sets: list[dict[str, Any]] = field(default_factory=list)  # per set: name -> staged buffer
    mapped: list[dict[str, np.ndarray]] = field(default_factory=list)  # per set: inputs read in place
    bases: list[dict[str, np.ndarray]] = field(default_factory=list)  # per set: the mapped base file
    handles: dict[str, Any] = field(default_factory=dict)  # the argument buffers


@dataclass
class CallTiming:
    host_s: float
    event_s: float
    snapshots: dict[str, Any]  # outputs as the call returned (checked calls only)


class TimingRun:
    """One timing run of a worker (`worker` lends its memory, buffers, runtime and channel)."""

    def __init__(self, worker: Any, spec: dict[str, Any]):
        self.w, self.spec = worker, spec
        self.mem, self.rt, self.guard = worker.mem, worker.rt, worker.guard
        self.nbytes: dict[str, int] = spec["nbytes"]

    # ---- staging ---------------------------------------------------------------------------
    def stage_bench(self) -> BenchBuffers:
        w, spec, nbytes = self.w, self.spec, self.nbytes
        bench_dir = Path(spec["dir"])
        arrays = [a for a in w.job["args"] if a["array"]]
        bench = BenchBuffers(
            scalars=json.loads((bench_dir / "scalars.json").read_text()),
            arrays=arrays,
            readable=[a for a in arrays if a["role"] in ("input", "inout")],
            in_place=w.read_in_place(),
        )
        # Copied from the parent's masters before the library loaded, where they were (and are of
        # this bench data, at these sizes); uploaded from the files here otherwise.
        prestaged, w.prestaged = dict(w.prestaged), {}
        if w.prestaged_dir != str(spec["dir"]):
            for handle, _ in prestaged.values():
                self.mem.free(handle)
            prestaged = {}
        for s in range(int(spec["sets"])):
            staged, mapped, base = {}, {}, {}
            for a in bench.readable:
                data = w.mapped(bench_dir / f"set{s}" / f"{a['name']}.npy")
                if a["name"] in bench.in_place:
                    mapped[a["name"]] = data
                    continue
                handle, size = prestaged.pop((s, a["name"]), (None, None))
                if handle is None or size != nbytes[a["name"]]:
                    if handle is not None:
                        self.mem.free(handle)
                    handle = w.buffer(a["name"], nbytes[a["name"]], tag=f".set{s}")
                    self.mem.upload(handle, self.guard, data)
                staged[a["name"]] = handle
                base[a["name"]] = data
            bench.sets.append(staged)
            bench.mapped.append(mapped)
            bench.bases.append(base)
        for handle, _ in prestaged.values():  # of no set or input this timing reads
            self.mem.free(handle)
        bench.handles = {
            a["name"]: w.buffer(a["name"], nbytes[a["name"]]) for a in arrays if a["name"] not in bench.in_place
        }
        return bench

    def stage_inputs(
        self, bench: BenchBuffers, set_index: int, key: int, round_index: int, fresh: FreshInputs | None
    ) -> None:
        """The round's inputs into the argument buffers (perturbed with `key` where fresh inputs apply),
        and the poison into the outputs."""
        handles, nbytes = bench.handles, self.nbytes
        for a in bench.readable:
            if a["name"] in bench.in_place:
                continue
            bounds = None if fresh is None else fresh.bounds[set_index].get(a["name"])
            if bounds is not None:
                self.mem.perturb(
                    handles[a["name"]],
                    self.guard,
                    bench.sets[set_index][a["name"]],
                    self.guard,
                    nbytes[a["name"]],
                    a["dtype"],
                    key,
                    bounds,
                    bench.bases[set_index][a["name"]],
                )
                continue
            self.mem.copy(handles[a["name"]], self.guard, bench.sets[set_index][a["name"]], self.guard, nbytes[a["name"]])
        for a in bench.arrays:
            if a["role"] == "output":  # also the reference's: its pages are touched before the call
                poison = self.w.poison[round_index % len(self.w.poison)]
                self.mem.fill(handles[a["name"]], self.guard, nbytes[a["name"]], poison)

    # ---- one timed call ----------------------------------------------------------------------
    def timed_call(
        self, fn: Any, args: list[Any], handles: dict[str, Any], checked: bool, events: tuple[Any, Any], where: str
    ) -> CallTiming:
        """One call, timed on the host clock (bracketed by device synchronization) and, on the cuda
        target, by events on the calling stream; a checked call's outputs are snapshotted as it
        returned, before anything synchronizes."""
        if self.rt is not None:
            start_ev, end_ev = events
            t0 = time.perf_counter_ns()
            self.rt.record(start_ev)
            fn(*args)
            self.rt.record(end_ev)
            snapshots = self.w.snapshot(handles, self.nbytes) if checked else {}
            code = self.rt.synchronize()
            t1 = time.perf_counter_ns()
            self.w.raise_if(code or self.rt.last_error(), where)
            return CallTiming((t1 - t0) / 1e9, self.rt.elapsed_s(start_ev, end_ev), snapshots)
        t0 = time.perf_counter_ns()
        fn(*args)
        t1 = time.perf_counter_ns()
        snapshots = self.w.snapshot(handles, self.nbytes) if checked else {}
        return CallTiming((t1 - t0) / 1e9, (t1 - t0) / 1e9, snapshots)

    # ---- the rounds ----------------------------------------------------------------------------
    def run(self) -> None:
        w, spec = self.w, self.spec
        rng = np.random.default_rng(int(spec["order_seed"]))
        bench = self.stage_bench()
        flush_bytes = int(spec.get("flush_bytes") or w.default_flush_bytes())
        flush = self.mem.alloc(flush_bytes)
        hold_ns = int(float(spec.get("hold_s", 0.0)) * 1e9)
        fresh = FreshInputs.from_spec(spec.get("fresh"), len(bench.sets))
        checker = TimedChecks(w, spec, self.nbytes, fresh is not None)
        events: tuple[Any, Any] = (0, 0)
        if self.rt is not None:
            events = (self.rt.event(), self.rt.event())
        # Each set's argument list, made once: the argument buffers stay where they are, and a call's
        # arguments are passed by value (nothing a candidate does changes these objects).
        arguments = [w.arguments(bench.handles, bench.scalars, bench.mapped[s]) for s in range(len(bench.sets))]
        w.channel.send(event=Event.TIMING_READY)
        libs = list(spec["libs"])
        samples: dict[str, Samples] = {lib: {"host": [], "event": [], "set": []} for lib in libs}
        schedule = CheckSchedule(spec, rng, len(bench.sets), fresh)
        checks: list[Check] = []
        loop = LoopClock()
        began = time.perf_counter()
        round_index = rounds_run = 0
        held = False
        while True:
            timed, final = schedule.timed(round_index), schedule.final(round_index)
            order = [libs[i] for i in rng.permutation(len(libs))]
            set_index = schedule.sequence[round_index]
            slot = schedule.slot(round_index)
            key = schedule.key(round_index)
            for lib in order:
                t0 = time.perf_counter()
                self.stage_inputs(bench, set_index, key, round_index, fresh)
                self.mem.fill(flush, 0, flush_bytes, round_index & 0xFF)
                checked = schedule.checked(lib, round_index)
                # The flush is queued before this synchronization, never after it: a kernel on the
                # candidate's own non-blocking stream could run beside a flush still in flight,
                # before the start event, untimed. The hold queued next fills every SM's thread
                # slots instead, so the candidate's launches are queued while it runs (the host's
                # launch latency is not timed) and no kernel of theirs can run until it ends.
                t1 = time.perf_counter()
                w.sync_and_check("before a timed call")
                t2 = time.perf_counter()
                held = self.mem.hold(hold_ns)  # nothing but the start event between it and the call
                t3 = time.perf_counter()
                call = self.timed_call(
                    w.entries[lib],
                    arguments[set_index],
                    bench.handles,
                    checked,
                    events,
                    f"in timed call {round_index + 1} of {lib}",
                )
                t4 = time.perf_counter()
                if timed:
                    samples[lib]["host"].append(call.host_s)
                    samples[lib]["event"].append(call.event_s)
                    samples[lib]["set"].append(set_index)
                if checked:
                    checks.append(
                        checker.check(lib, round_index, set_index, final, bench.handles, call.snapshots, slot)
                    )
                loop.add(t0, t1, t2, t3, t4, time.perf_counter() if checked else t4)
            # Every round reports, so a slow but live kernel is never mistaken for a hang.
            r0 = time.perf_counter()
            w.channel.send(event=Event.TIMING_PROGRESS, round=round_index)
            r1 = time.perf_counter()
            rounds_run = round_index + 1
            if final:
                loop.between(r1 - r0, 0.0)
                break
            round_index += 1
            schedule.next_round(round_index, r1 - began)
            elapsed = time.perf_counter() - began
            timed_rounds = schedule.timed_rounds(round_index)
            reason = None if schedule.stop_after is not None else stop_reason(
                samples, spec, elapsed, round_index, timed_rounds
            )
            loop.between(r1 - r0, time.perf_counter() - r1)
            if reason is not None:
                loop.stopped(reason, round_index)
                if schedule.stop(round_index):
                    break  # nothing to check, so no final round is owed (the serial reference)
        seconds = time.perf_counter() - began
        self.mem.free(flush)
        checker.free()
        w.channel.send(
            event=Event.TIMING,
            samples=samples,
            checks=checks,
            seconds=seconds,
            check_s=loop.check_s,
            hold_s=hold_ns / 1e9 if held else 0.0,
            fresh=fresh is not None,
            loop=loop.report(rounds_run, schedule.timed_from, seconds),
        )


class LoopClock:
    """Where the timing loop's host time goes, call by call, and why it stopped (the TIMING message's
    `loop`, protocol.LoopReport): which rule ends a timing, after how many rounds, and how much of each
    round is the harness's own work rather than the timed calls."""

    def __init__(self) -> None:
        self.stage_s = self.sync_s = self.hold_s = self.call_s = self.check_s = 0.0
        self.report_s = self.rule_s = 0.0
        self.stop: str | None = None
        self.stop_round: int | None = None

    def add(self, t0: float, t1: float, t2: float, t3: float, t4: float, t5: float) -> None:
        """One call: staged t0-t1, synchronized t1-t2, held t2-t3, called t3-t4, checked t4-t5."""
        self.stage_s += t1 - t0
        self.sync_s += t2 - t1
        self.hold_s += t3 - t2
        self.call_s += t4 - t3
        self.check_s += t5 - t4

    def between(self, report_s: float, rule_s: float) -> None:
        """After a round: its progress message sent (report_s), the schedule and stop rule (rule_s)."""
        self.report_s += report_s
        self.rule_s += rule_s

    def stopped(self, reason: str, round_index: int) -> None:
        if self.stop is None:
            self.stop, self.stop_round = reason, round_index

    def report(self, rounds: int, timed_from: int | None, seconds: float) -> dict[str, Any]:
        parts = {
            "stage_s": self.stage_s,
            "sync_s": self.sync_s,
            "hold_s": self.hold_s,
            "call_s": self.call_s,
            "check_s": self.check_s,
            "report_s": self.report_s,
            "rule_s": self.rule_s,
        }
        report: dict[str, Any] = {
            "rounds": rounds,
            "warmup": rounds if timed_from is None else timed_from,
            **{k: round(v, 6) for k, v in parts.items()},
            "rest_s": round(max(0.0, seconds - sum(parts.values())), 6),
        }
        if self.stop is not None:
            report.update(stop=self.stop, stop_round=self.stop_round)
        return report
