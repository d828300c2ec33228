"""The parent-worker protocol: every message a worker sends, every reply the parent sends back, and
the job a worker is given, defined once and used by both sides.

The channel is the system's trust boundary: the worker runs candidate code, and candidate code can
write to the worker's channel. So the parent checks every message against these definitions
(`check_message`) before anything reads it, and an unknown event or a malformed field ends the
evaluation with a clear error instead of a KeyError in the parent.

Messages travel as JSON lines; arrays travel as files. Only the standard library is imported here:
the worker process starts with NumPy and ctypes alone.
"""

from __future__ import annotations

import json
from typing import Any, TypedDict


class Event:
    """The `event` of each message a worker sends, in the order a worker sends them."""

    HELLO = "hello"  # the process is up (and its CUDA context, where it uses one)
    SANDBOX = "sandbox"  # what the OS sandbox confined
    LOADED = "loaded"  # the libraries loaded
    CALLING = "calling"  # a correctness call begins
    CASE_DONE = "case_done"  # a correctness call's outputs are in files
    READY_FOR_TIMING = "ready_for_timing"  # every case ran: waiting for the timing spec
    TIMING_READY = "timing_ready"  # bench data staged: the timed calls begin
    TIMING_PROGRESS = "timing_progress"  # one timed round ended
    ANCHOR = "anchor"  # a checked output kept in device memory, offered to the parent to judge there
    TIMING = "timing"  # the samples and the checked calls
    CUDA_ERROR = "cuda_error"  # the job failed on a CUDA error
    ERROR = "error"  # the job failed on another exception
    DONE = "done"  # the last message: how many were sent, so the parent knows none was lost


EVENTS: frozenset[str] = frozenset(v for k, v in vars(Event).items() if k.isupper())

# The parent's word to a spare worker on its stdin: create the CUDA context now. A spare's next
# line is the path of its job file.
OPEN_CONTEXT = "open-context"


# ---- worker -> parent -----------------------------------------------------------------------------
class Message(TypedDict, total=False):
    event: str
    t: float  # seconds since the worker began, stamped by the worker's channel


class Hello(Message, total=False):
    pid: int
    nonce: str | None  # echoes the job's: a spare that ran anything else is found out
    context_s: float
    spare: bool
    ready_at: float  # a spare's: CLOCK_MONOTONIC when it was ready for its job
    cuda_runtime: int
    cuda_driver: int
    l2_bytes: int
    sm_count: int
    clock_khz: int
    cc_major: int
    cc_minor: int
    memory: list[int]
    bandwidth_bytes_per_s: float


class SandboxReport(Message, total=False):
    landlock: int | None
    seccomp: bool
    reason: str | None
    seconds: float
    broken: str | None  # the harness's own calls failed inside the sandbox: the machine's fault


class InputsReport(TypedDict, total=False):
    """Bench inputs a worker copied from the parent's device masters before loading (worker_inputs)."""

    arrays: int
    bytes: int
    seconds: float
    failed: str  # why none were copied (the timing loop then uploads them from files)


class Loaded(Message, total=False):
    libs: list[str]
    inputs: InputsReport


class Calling(Message, total=False):
    lib: str
    case: int
    run: int


class CaseDone(Calling, total=False):
    files: dict[str, str]  # output name -> file of the whole buffer, guards included
    at_return: dict[str, str]  # output name -> file of the output as the call returned


class TimingProgress(Message, total=False):
    round: int


class Anchor(Message, total=False):
    lib: str
    round: int
    set: int
    slot: int  # fresh inputs: the checked call's slot
    handles: dict[str, str]  # output name -> CUDA IPC handle (hex)


class LateWrite(TypedDict):
    count: int
    first: int


class Check(TypedDict, total=False):
    """One checked timed call, as the worker reports it."""

    lib: str
    round: int
    set: int
    late: dict[str, LateWrite]  # outputs that changed after the call returned
    final: bool
    slot: int  # fresh inputs
    files: dict[str, str]
    same_as: int  # identical, bit for bit, to this earlier round's checked output of the same set
    judged_on_device: bool


class Samples(TypedDict):
    host: list[float]
    event: list[float]
    set: list[int]


class LoopReport(TypedDict, total=False):
    """How the timing loop went: its rounds, why it stopped, and where the host's time went in it."""

    rounds: int  # rounds run, warm-up and final included
    warmup: int  # of them, warm-up rounds (untimed)
    stop: str  # stop_rule.STOP_REASONS: why the rule was met (the final checked round came after)
    stop_round: int  # the round before which it was met
    # seconds, summed over the loop: staging each call's inputs, poison and the cache flush (queued),
    # the synchronization before each call (the device finishing them), the hold, the timed calls
    # (host clock), checking timed outputs, each round's progress message, the schedule and stop
    # rule after each round, and the rest (the call order, the loop itself)
    stage_s: float
    sync_s: float
    hold_s: float
    call_s: float
    check_s: float
    report_s: float
    rule_s: float
    rest_s: float


class Timing(Message, total=False):
    samples: dict[str, Samples]
    checks: list[Check]
    seconds: float
    check_s: float
    hold_s: float
    fresh: bool
    loop: LoopReport


class CudaErrorReport(Message, total=False):
    name: str
    text: str
    where: str


class ErrorReport(Message, total=False):
    kind: str
    text: str


class Done(Message, total=False):
    messages: int


# The definition of each event's message (its fields beyond `event` and `t`).
MESSAGES: dict[str, type] = {
    Event.HELLO: Hello,
    Event.SANDBOX: SandboxReport,
    Event.LOADED: Loaded,
    Event.CALLING: Calling,
    Event.CASE_DONE: CaseDone,
    Event.READY_FOR_TIMING: Message,
    Event.TIMING_READY: Message,
    Event.TIMING_PROGRESS: TimingProgress,
    Event.ANCHOR: Anchor,
    Event.TIMING: Timing,
    Event.CUDA_ERROR: CudaErrorReport,
    Event.ERROR: ErrorReport,
    Event.DONE: Done,
}


# ---- parent -> worker (replies on the worker's stdin) ---------------------------------------------
class TimingReply(TypedDict):
    timing: dict[str, Any] | None  # a TimingSpec; None: no timing


class AnchorReply(TypedDict):
    judged: bool


def timing_reply(spec: TimingSpec | dict[str, Any] | None) -> TimingReply:
    """The parent's answer to READY_FOR_TIMING."""
    return {"timing": dict(spec) if spec is not None else None}


def anchor_reply(judged: bool) -> AnchorReply:
    """The parent's answer to ANCHOR: True when it judged the output where it lies."""
    return {"judged": bool(judged)}


def read_timing_reply(line: str) -> dict[str, Any] | None:
    """The timing spec in the parent's answer to READY_FOR_TIMING (None: end without timing; an empty
    line: the parent is gone)."""
    spec = json.loads(line or "{}").get("timing")
    return spec if isinstance(spec, dict) else None


def read_anchor_reply(line: str) -> bool:
    """Whether the parent judged an offered anchor (False also when the parent is gone)."""
    return bool(json.loads(line or "{}").get("judged"))


# ---- the job ------------------------------------------------------------------------------------
class ArgSpec(TypedDict):
    name: str
    role: str  # input, output, inout, scalar
    dtype: str
    array: bool
    itemsize: int


class CaseSpec(TypedDict, total=False):
    label: str
    dir: str  # the case's input files and scalars.json
    nbytes: dict[str, int]
    perturb: dict[str, Any]  # a checked timed call's inputs: key and bounds (reference.Perturbation)


class SandboxSpec(TypedDict):
    read: list[str]
    write: list[str]
    require: bool


class FreshSpec(TypedDict):
    slots: list[list[int]]  # per checked call: [base set, key]
    arrays: dict[str, list[list[float] | None]]  # input name -> per set: bounds, or None


class IntervalSpec(TypedDict):
    paired_with: str  # the lib whose median and ratios to the others the interval rule bounds
    halfwidth: float  # of each paired ratio's median (log)
    own_halfwidth: float  # of its own median (log)
    floor_rounds: int  # timed rounds before the rule applies
    lib_halfwidth: dict[str, float]  # per other lib where its ratio's bound differs from halfwidth


class TimingSpec(TypedDict, total=False):
    dir: str  # the bench sets: set{i}/NAME.npy and scalars.json
    sets: int
    nbytes: dict[str, int]
    libs: list[str]  # timed, interleaved
    check_libs: list[str]  # whose timed outputs are checked
    warmup_rounds: int
    warmup_s: float
    min_rounds: int
    min_s: float
    max_rounds: int
    budget_s: float
    target_rse: float
    lib_target_rse: dict[str, float]  # per lib where it differs from target_rse
    floor_rounds: int
    order_seed: int
    flush_bytes: int
    hold_s: float
    fresh: FreshSpec
    judge_on_device: bool
    interval: IntervalSpec  # a candidate's: the interval stop rule (eval/stop_rule.py)


class InputsSpec(TypedDict):
    """The parent's device masters of the bench inputs (eval/bench_masters.py), for the worker to copy
    before loading: their raw IPC handles are in `file`, in the order of `arrays`."""

    dir: str  # the bench folder they are the inputs of (the timing spec's `dir`)
    file: str
    arrays: list[list[Any]]  # per handle: [set index, name, nbytes]


class Job(TypedDict, total=False):
    libs: dict[str, str]  # name -> shared library
    check_libs: list[str]  # whose correctness outputs are reported
    args: list[ArgSpec]
    cases: list[CaseSpec]
    runs_per_case: int
    guard_bytes: int
    canary: int
    poison: list[int]
    out_dir: str
    uses_cuda: bool
    device_buffers: bool
    libcudart: str
    measure_bandwidth: bool
    timing: TimingSpec | None  # time at once; else ask (await_timing) or never time
    await_timing: bool
    inputs: InputsSpec  # bench inputs to copy from the parent's device masters
    trusted: bool  # the serial reference: reports only what it writes
    host_perturb: str | None  # the harness's host perturbation library
    device_check: str | None  # the harness's device library (compare, hold, perturb)
    sandbox: SandboxSpec | None
    nonce: str  # added by the runner


# ---- checking what a worker sent ------------------------------------------------------------------
_INT = (int,)
_NUM = (int, float)
_STR = (str,)
_DICT = (dict,)
_LIST = (list,)
_BOOL = (bool,)
_OPT_STR = (str, type(None))
# event -> (required fields, optional fields), each field -> the JSON types it may take. bool is an
# int in Python: where an int is required, a bool is refused explicitly in `_fits`.
FIELDS: dict[str, tuple[dict[str, tuple[type, ...]], dict[str, tuple[type, ...]]]] = {
    Event.HELLO: (
        {"pid": _INT},
        {
            "nonce": _OPT_STR,
            "context_s": _NUM,
            "spare": _BOOL,
            "ready_at": _NUM,
            "cuda_runtime": _INT,
            "cuda_driver": _INT,
            "l2_bytes": _INT,
            "sm_count": _INT,
            "clock_khz": _INT,
            "cc_major": _INT,
            "cc_minor": _INT,
            "memory": _LIST,
            "bandwidth_bytes_per_s": _NUM,
        },
    ),
    Event.SANDBOX: (
        {"landlock": (int, type(None)), "seccomp": _BOOL, "reason": _OPT_STR},
        {"seconds": _NUM, "broken": _OPT_STR},
    ),
    Event.LOADED: ({"libs": _LIST}, {"inputs": _DICT}),
    Event.CALLING: ({"lib": _STR, "case": _INT, "run": _INT}, {}),
    Event.CASE_DONE: ({"lib": _STR, "case": _INT, "run": _INT, "files": _DICT, "at_return": _DICT}, {}),
    Event.READY_FOR_TIMING: ({}, {}),
    Event.TIMING_READY: ({}, {}),
    Event.TIMING_PROGRESS: ({"round": _INT}, {}),
    # An anchor's fields are checked where it is judged: a malformed one is not judged on the device,
    # and its output comes as a file instead (evaluator's device judging).
    Event.ANCHOR: ({}, {"lib": _STR, "round": _INT, "set": _INT, "slot": _INT, "handles": _DICT}),
    Event.TIMING: (
        {"samples": _DICT, "checks": _LIST, "seconds": _NUM},
        {"check_s": _NUM, "hold_s": _NUM, "fresh": _BOOL, "loop": _DICT},
    ),
    Event.CUDA_ERROR: ({"name": _STR, "text": _STR, "where": _STR}, {}),
    Event.ERROR: ({"kind": _STR, "text": _STR}, {}),
    Event.DONE: ({"messages": _INT}, {}),
}
CHECK_FIELDS: tuple[dict[str, tuple[type, ...]], dict[str, tuple[type, ...]]] = (
    {"lib": _STR, "round": _INT, "set": _INT, "late": _DICT, "final": _BOOL},
    {"slot": _INT, "files": _DICT, "same_as": _INT, "judged_on_device": _BOOL},
)
_SAMPLE_KEYS = ("host", "event", "set")


class ProtocolError(ValueError):
    """A worker's message is not one the protocol defines (the worker, or code in it, is broken)."""


def _fits(value: Any, types: tuple[type, ...]) -> bool:
    if isinstance(value, bool) and bool not in types:
        return False  # True is an int to Python, never a count or an index to the protocol
    return isinstance(value, types)


def _check_fields(what: str, data: dict[str, Any], spec: tuple[dict, dict]) -> None:
    required, optional = spec
    for name, types in required.items():
        if name not in data:
            raise ProtocolError(f"{what} lacks its field {name!r}")
        if not _fits(data[name], types):
            raise ProtocolError(f"{what}: field {name!r} is a {type(data[name]).__name__}")
    for name, types in optional.items():
        if name in data and not _fits(data[name], types):
            raise ProtocolError(f"{what}: field {name!r} is a {type(data[name]).__name__}")


def check_message(message: Any) -> dict[str, Any]:
    """`message` itself when it is a message the protocol defines; else ProtocolError saying what is
    wrong. Extra fields are allowed (a newer worker may add some); a known field of the wrong type,
    a missing required field, or an unknown event, is not."""
    if not isinstance(message, dict):
        raise ProtocolError(f"a message is a JSON object, not a {type(message).__name__}")
    event = message.get("event")
    if event not in EVENTS:
        raise ProtocolError(f"unknown event {event!r}")
    if "t" in message and not _fits(message["t"], _NUM):
        raise ProtocolError(f"{event} message: field 't' is a {type(message['t']).__name__}")
    _check_fields(f"{event} message", message, FIELDS[event])
    if event == Event.TIMING:
        for lib, samples in message["samples"].items():
            if not isinstance(samples, dict) or any(
                not isinstance(samples.get(k), list) or not all(_fits(x, _NUM) for x in samples[k])
                for k in _SAMPLE_KEYS
            ):
                raise ProtocolError(f"timing message: the samples of {lib!r} are not lists of numbers")
        for i, check in enumerate(message["checks"]):
            if not isinstance(check, dict):
                raise ProtocolError(f"timing message: check {i} is not an object")
            _check_fields(f"timing message, check {i}", check, CHECK_FIELDS)
            for name, where in check["late"].items():
                if not isinstance(where, dict) or not all(_fits(where.get(k), _INT) for k in ("count", "first")):
                    raise ProtocolError(f"timing message, check {i}: late write of {name!r} is malformed")
            if not all(isinstance(p, str) for p in check.get("files", {}).values()):
                raise ProtocolError(f"timing message, check {i}: a file is not a path")
    if event == Event.CASE_DONE:
        for name in ("files", "at_return"):
            if not all(isinstance(p, str) for p in message[name].values()):
                raise ProtocolError(f"case_done message: a file in {name!r} is not a path")
    return message
