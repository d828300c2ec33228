"""Verdicts on a worker's run: why it ended (a crash, a timeout, a memory ceiling), how each
correctness case went, outputs written after the call returned, and where the time went. Pure
functions of the worker's messages, the files it wrote and the task's expected outputs: the
evaluator calls them, and tests call them directly."""

from __future__ import annotations

from typing import Any

import numpy as np

from regrapht.eval import correctness
from regrapht.eval.protocol import Event
from regrapht.eval.record import RANK, CaseResult, Evaluation
from regrapht.eval.reference import RefCase
from regrapht.eval.runner import WorkerOutcome
from regrapht.eval.worker_memory import late_elements
from regrapht.tasks import Task, Tolerance

GUARD_BYTES = 256
CANARY = 0xA5
POISON = (0xFF, 0x7B)  # NaN / -1 in the first run, 1.3e36 / 0x7B7B7B7B in the second
_EXACT = Tolerance("exact")


def crash_message(outcome: WorkerOutcome, memory_limit_gib: float) -> str | None:
    """What ended a worker that did not finish its job (in words for the record), or None."""
    at = where(outcome)
    if outcome.memory_exceeded:
        return (
            f"used more than {memory_limit_gib:g} GiB of host memory{at} and was stopped"
        )
    if outcome.oom_killed:
        return (
            f"was stopped by the kernel's out-of-memory killer{at}: the machine ran out of host memory "
            f"and the killer chose this process, the one holding the most (at least "
            f"{outcome.peak_rss / (1 << 30):.2f} GiB of host memory seen; ceiling "
            f"{memory_limit_gib:g} GiB)"
        )
    if outcome.timed_out:
        return f"{outcome.timeout_reason}{at}: likely an infinite loop, a deadlock or a far too slow kernel"
    cuda = outcome.last(Event.CUDA_ERROR)
    if cuda:
        message = f"CUDA error {cuda['where']}: {cuda['text']} ({cuda['name']})"
        if cuda["name"] == "cudaErrorMemoryAllocation":
            message += (
                ": out of memory on the device; the candidate holds memory it never frees, or needs more "
                "than the GPU has"
            )
        return message
    error = outcome.last(Event.ERROR)
    if error:
        return f"{error['kind']}: {error['text']}"
    if outcome.signal_name == "SIGSYS" and outcome.last(Event.SANDBOX):
        return (
            f"the sandbox stopped the process{at}: it made a system call a candidate may not make "
            "(creating a process, tracing or reaching into another one)"
        )
    if outcome.signal_name:
        return f"the process was killed by {outcome.signal_name}{at}"
    if outcome.channel_error:
        return f"the result channel was corrupted{at}: {outcome.channel_error}"
    if not outcome.complete:
        code = outcome.returncode
        return f"the process ended on its own (exit status {code}){at} before finishing: the candidate called exit or similar"
    return None


def where(outcome: WorkerOutcome) -> str:
    """Where in its job the worker was when it ended: " while timing (round 3)", say."""
    last = outcome.last(Event.CALLING)
    progress = outcome.last(Event.TIMING_PROGRESS)
    if progress and (not last or outcome.messages.index(progress) > outcome.messages.index(last)):
        return f" while timing (round {progress['round'] + 1})"
    if last:
        return f" during correctness case {last['case'] + 1}, run {last['run'] + 1}"
    if outcome.last(Event.LOADED) is None and outcome.last(Event.HELLO) is not None:
        return " while loading the library"
    return ""


def judge_run(
    ev: Evaluation,
    outcome: WorkerOutcome,
    judged: dict[int, CaseResult],
    memory_limit_gib: float,
    planned: int = 0,
) -> bool:
    """Set `ev`'s status from how the worker ended and its judged cases (`judged`: case index ->
    verdict; `planned`: how many the job held, every one of which must have been judged); True when
    nothing failed, so the timing is left to judge."""
    crash = None if outcome.stopped_early else crash_message(outcome, memory_limit_gib)
    error = outcome.last(Event.ERROR)
    if crash and error and outcome.last(Event.LOADED) is None:
        ev.status, ev.message = "compile_error", f"the compiled library does not load: {error['text']}"
        return False
    ev.cases = [judged[i] for i in sorted(judged)]
    failed = sorted((c for c in ev.cases if c.status != "correct"), key=lambda c: RANK[c.status])
    if crash:
        ev.status = "timeout" if outcome.timed_out else "runtime_error"
        if outcome.signal_name == "SIGSYS" and outcome.last(Event.SANDBOX):
            ev.status = "integrity_violation"
        ev.message = crash
        return False
    if failed:
        ev.status, ev.message = failed[0].status, f"{failed[0].message} [{failed[0].label}]"
        return False
    if len(judged) < planned:
        # Candidate code shares the worker's process and could write a `done` of its own: a run
        # that ends before every case was judged is no pass.
        ev.status = "runtime_error"
        ev.message = (
            f"the worker ended after {len(judged)} of {planned} correctness cases were judged "
            "(its run ended early; candidate code must not write to the harness's channel)"
        )
        return False
    return True


def judge_case(task: Task, case: RefCase, runs: list[dict[str, Any]], checker: Any) -> CaseResult:
    """The verdict on one correctness case from the two runs' outputs (files the worker wrote)."""
    result = CaseResult(case.label, case.sizes, case.seed_index, "correct")
    raw = [
        {name: np.fromfile(path, dtype=np.uint8) for name, path in run["files"].items()} for run in runs
    ]
    values = [{a.name: correctness.data(r[a.name], GUARD_BYTES, a) for a in task.arrays} for r in raw]
    problems: list[tuple[str, str]] = []
    late = late_writes(values, [run.get("at_return", {}) for run in runs])
    if late:
        problems.append(("integrity_violation", late))
    for arg in task.arrays:
        for r in range(2):
            damage = correctness.guard_damage(raw[r][arg.name], GUARD_BYTES, CANARY)
            if damage:
                problems.append(("wrong_answer", f"wrote out of bounds of `{arg.name}`: {damage}"))
                break
        if arg.role == "input":
            for r in range(2):
                mismatch = correctness.compare(values[r][arg.name], case.inputs[arg.name], _EXACT)
                if mismatch:
                    problems.append(
                        (
                            "integrity_violation",
                            "modified an input the task declares read-only: "
                            + mismatch.describe(arg.name, _EXACT, what="changed"),
                        )
                    )
                    break
    for arg in task.written:
        if arg.role == "output":
            mask = correctness.unwritten([v[arg.name] for v in values], list(POISON), arg)
            if mask.any():
                first = int(np.flatnonzero(mask)[0])
                problems.append(
                    (
                        "wrong_answer",
                        f"left {int(mask.sum())} of {mask.size} elements of "
                        f"`{arg.name}` unwritten (first at index {first})",
                    )
                )
                continue
        assert arg.tolerance is not None
        if arg.tolerance.kind == "custom":
            continue
        outcomes = [
            correctness.compare(v[arg.name], case.expected[arg.name], arg.tolerance) for v in values
        ]
        if outcomes[0] and outcomes[1]:
            problems.append(("wrong_answer", outcomes[0].describe(arg.name, arg.tolerance)))
        elif outcomes[0] or outcomes[1]:
            bad = outcomes[0] or outcomes[1]
            problems.append(
                (
                    "wrong_answer",
                    "results differ between two runs on the same inputs (a race or "
                    "uninitialised memory): " + bad.describe(arg.name, arg.tolerance),
                )
            )
        abs_err, rel_err = correctness.max_errors(values[0][arg.name], case.expected[arg.name])
        result.max_abs_error = max(result.max_abs_error, abs_err)
        result.max_rel_error = max(result.max_rel_error, rel_err)
    if checker is not None and not problems:
        for r in range(2):
            actual = {a.name: values[r][a.name] for a in task.written}
            verdict = checker(case.inputs, case.expected, actual, case.sizes)
            if verdict:
                problems.append(("wrong_answer", f"task checker: {verdict}"))
                break
    if problems:
        problems.sort(key=lambda item: RANK[item[0]])
        result.status, result.message = problems[0][0], "; ".join(m for _, m in problems[:3])
    return result


def phases(outcome: WorkerOutcome) -> dict[str, float]:
    """Where the worker's time went, from the timestamps on its messages."""
    stamps = {m["event"]: m["t"] for m in outcome.messages if "t" in m}
    last_case = max((m["t"] for m in outcome.all(Event.CASE_DONE)), default=None)
    phases = {}
    if Event.HELLO in stamps:
        phases["startup"] = stamps[Event.HELLO]
        hello = outcome.last(Event.HELLO) or {}
        if "context_s" in hello:
            # A spare created its context before its job came, after the previous worker had exited.
            phases["cuda_context_ahead" if hello.get("spare") else "cuda_context"] = hello["context_s"]
    sandbox_report = outcome.last(Event.SANDBOX)
    if sandbox_report and "seconds" in sandbox_report:
        # Entering the sandbox and checking the harness still works inside it, before the library loads.
        phases["sandbox"] = sandbox_report["seconds"]
    inputs = (outcome.last(Event.LOADED) or {}).get("inputs")
    if isinstance(inputs, dict) and isinstance(inputs.get("seconds"), (int, float)):
        # Bench inputs copied from the parent's device masters, before the sandbox and the library
        # (the time of a copy that failed, after which the timing loop uploaded them, named apart).
        phases["inputs_copy_failed" if inputs.get("failed") else "inputs_copy"] = inputs["seconds"]
    if Event.LOADED in stamps and last_case is not None:
        phases["correctness"] = last_case - stamps[Event.LOADED]
    if Event.READY_FOR_TIMING in stamps and Event.TIMING_READY in stamps:
        phases["bench_setup"] = stamps[Event.TIMING_READY] - stamps[Event.READY_FOR_TIMING]
    timing = outcome.last(Event.TIMING)
    if timing:
        phases["timing"] = timing["seconds"]
        if "check_s" in timing:
            phases["timing_checks"] = timing["check_s"]  # part of "timing"
        # The rest of "timing", split by the worker's loop (protocol.LoopReport): queuing each call's
        # inputs, waiting for the device before it, the hold, the calls, and the rest of the rounds.
        loop = timing.get("loop") or {}
        for part in ("stage", "sync", "hold", "call", "report", "rule", "rest"):
            if isinstance(loop.get(f"{part}_s"), (int, float)):
                phases[f"timing_{part}"] = loop[f"{part}_s"]
    hello = outcome.last(Event.HELLO) or {}
    wait = 0.0
    if hello.get("spare") and isinstance(hello.get("ready_at"), (int, float)) and outcome.started_at:
        # A job handed to a spare still making its CUDA context waits for it: the spare's clock starts
        # only then, so without this the wait would show as the end of the worker's time ("exit").
        wait = min(max(0.0, float(hello["ready_at"]) - outcome.started_at), outcome.seconds)
        phases["context_wait"] = wait
    if Event.DONE in stamps and hello.get("spare"):
        # A spare's clock starts when it reads its job: what follows its last message, less the wait
        # for its context, is the parent's ending of it (its teardown is reaped in the background).
        phases["exit"] = max(0.0, outcome.seconds - stamps[Event.DONE] - wait)
    return {k: round(v, 4) for k, v in phases.items()}


def late_writes(values: list[dict[str, np.ndarray]], at_return: list[dict[str, str]]) -> str | None:
    """Outputs that changed after the function returned: work it left running outside the calling stream."""
    for run_values, snapshots in zip(values, at_return):
        for name, path in snapshots.items():
            final = run_values[name]
            changed = late_elements(
                np.fromfile(path, dtype=np.uint8), final.view(np.uint8), final.dtype.itemsize
            )
            if changed:
                return late_message(name, changed["count"], changed["first"])
    return None


def late_message(name: str, count: int, first: int) -> str:
    return (
        f"the call returned before its work was done: {count} elements of `{name}` "
        f"changed after it returned (first at index {first}); work left running on a side "
        "stream or host thread escapes the timer. Finish (or synchronize) all work before returning"
    )


def fmt_sizes(sizes: dict[str, int]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sizes.items())
