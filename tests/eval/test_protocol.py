"""The parent-worker protocol: every message kind a worker sends is handled by the parent and every
kind the parent handles is sent; replies likewise; malformed messages are refused with clear errors."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from regrapht.eval import protocol
from regrapht.eval.protocol import EVENTS, Event, ProtocolError, check_message

EVAL = Path(protocol.__file__).resolve().parent
# The worker process's own modules: what they send is the worker's side of the protocol.
WORKER_MODULES = {"worker.py", "worker_memory.py", "timing_plan.py", "timing_loop.py", "timed_checks.py"}


def _trees(worker_side: bool) -> list[tuple[str, ast.AST]]:
    return [
        (path.name, ast.parse(path.read_text()))
        for path in sorted(EVAL.glob("*.py"))
        # torch tasks' worker and judge speak their own protocol (eval/torch_protocol.py; tested below)
        if path.name != "protocol.py" and not path.name.startswith("torch_")
        and (path.name in WORKER_MODULES) == worker_side
    ]


def _event_refs(tree: ast.AST) -> tuple[set[str], set[str]]:
    """Event members used as a message's `event=` (sent), and used anywhere else (matched)."""
    sent: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "event":
            value = node.value
            assert isinstance(value, ast.Attribute) and getattr(value.value, "id", "") == "Event", (
                f"a message's event is an Event member, not {ast.unparse(value)}"
            )
            sent.add(getattr(Event, value.attr))
    used = {
        getattr(Event, node.attr)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and getattr(node.value, "id", "") == "Event"
    }
    return sent, used - sent


def test_every_event_sent_by_the_worker_is_handled_by_the_parent_and_vice_versa() -> None:
    sent = set().union(*(_event_refs(tree)[0] for _, tree in _trees(worker_side=True)))
    handled = set().union(*(_event_refs(tree)[1] for _, tree in _trees(worker_side=False)))
    assert sent == set(EVENTS), f"defined but never sent: {sorted(set(EVENTS) - sent)}"
    assert handled == set(EVENTS), f"sent but never handled by the parent: {sorted(sent - handled)}"


def test_the_parent_matches_events_only_through_the_protocol() -> None:
    """No event name as a bare string on the parent's side: a renamed event would go unhandled."""
    for name, tree in _trees(worker_side=False):
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
                arg = node.args[0]
                assert not (
                    node.func.attr in ("last", "all") and isinstance(arg, ast.Constant) and arg.value in EVENTS
                ), f"{name}:{node.lineno}: {ast.unparse(node)}"
            if isinstance(node, ast.Compare) and "event" in ast.unparse(node).replace("Event.", ""):
                for side in (node.left, *node.comparators):
                    assert not (isinstance(side, ast.Constant) and side.value in EVENTS), (
                        f"{name}:{node.lineno}: {ast.unparse(node)}"
                    )


def _names(trees: list[tuple[str, ast.AST]]) -> set[str]:
    return {
        node.id if isinstance(node, ast.Name) else node.attr
        for _, tree in trees
        for node in ast.walk(tree)
        if isinstance(node, (ast.Name, ast.Attribute))
    }


def test_every_reply_the_parent_sends_is_read_by_the_worker() -> None:
    parent, worker = _names(_trees(worker_side=False)), _names(_trees(worker_side=True))
    for make, read in (("timing_reply", "read_timing_reply"), ("anchor_reply", "read_anchor_reply")):
        assert make in parent and read in worker, (make, read)
    assert "OPEN_CONTEXT" in parent and "OPEN_CONTEXT" in worker
    spec = {"dir": "/bench", "sets": 2}
    assert protocol.read_timing_reply(json.dumps(protocol.timing_reply(spec))) == spec
    assert protocol.read_timing_reply(json.dumps(protocol.timing_reply(None))) is None
    assert protocol.read_timing_reply("") is None  # the parent is gone: no timing
    assert protocol.read_anchor_reply(json.dumps(protocol.anchor_reply(True))) is True
    assert protocol.read_anchor_reply(json.dumps(protocol.anchor_reply(False))) is False
    assert protocol.read_anchor_reply("") is False


VALID = {
    Event.HELLO: {"pid": 7, "nonce": "ab", "context_s": 0.2, "spare": True, "memory": [1, 2]},
    Event.SANDBOX: {"landlock": 3, "seccomp": True, "reason": None, "seconds": 0.01, "broken": None},
    Event.LOADED: {"libs": ["candidate"]},
    Event.CALLING: {"lib": "candidate", "case": 0, "run": 1},
    Event.CASE_DONE: {"lib": "candidate", "case": 0, "run": 1, "files": {"y": "/o/y"}, "at_return": {}},
    Event.READY_FOR_TIMING: {},
    Event.TIMING_READY: {},
    Event.TIMING_PROGRESS: {"round": 4},
    Event.ANCHOR: {"lib": "candidate", "round": 3, "set": 0, "handles": {"y": "aa"}},
    Event.TIMING: {
        "samples": {"candidate": {"host": [0.1], "event": [0.1], "set": [0]}},
        "checks": [
            {"lib": "candidate", "round": 2, "set": 0, "late": {}, "final": False, "files": {"y": "/o/y"}},
            {"lib": "candidate", "round": 3, "set": 0, "late": {"y": {"count": 1, "first": 0}}, "final": True,
             "same_as": 2},
        ],
        "seconds": 1.0,
        "check_s": 0.1,
        "hold_s": 0.0,
        "fresh": False,
    },
    Event.CUDA_ERROR: {"name": "cudaErrorIllegalAddress", "text": "illegal", "where": "after the call"},
    Event.ERROR: {"kind": "OSError", "text": "gone"},
    Event.DONE: {"messages": 9},
}


def test_each_message_definition_names_the_fields_the_parent_checks() -> None:
    """The typed definitions and the checks the parent applies cannot drift apart."""
    from typing import get_type_hints

    assert set(protocol.MESSAGES) == set(EVENTS)
    for event, definition in protocol.MESSAGES.items():
        required, optional = protocol.FIELDS[event]
        assert set(get_type_hints(definition)) - {"event", "t"} == set(required) | set(optional), event
    check_fields = set(protocol.CHECK_FIELDS[0]) | set(protocol.CHECK_FIELDS[1])
    assert set(get_type_hints(protocol.Check)) == check_fields


def test_every_message_kind_has_a_valid_example_that_passes() -> None:
    assert set(VALID) == set(EVENTS)
    for event, fields in VALID.items():
        message = {"event": event, "t": 0.5, **fields}
        assert check_message(json.loads(json.dumps(message))) == message


@pytest.mark.parametrize(
    "message, says",
    [
        ([1, 2], "JSON object, not a list"),
        ({"event": "timing_done"}, "unknown event 'timing_done'"),
        ({"case": 0}, "unknown event None"),
        ({"event": Event.CALLING, "lib": "candidate", "case": 0}, "lacks its field 'run'"),
        ({"event": Event.CALLING, "lib": "candidate", "case": "0", "run": 0}, "field 'case' is a str"),
        ({"event": Event.CALLING, "lib": "candidate", "case": True, "run": 0}, "field 'case' is a bool"),
        ({"event": Event.DONE, "messages": 3, "t": "soon"}, "field 't' is a str"),
        ({"event": Event.CASE_DONE, "lib": "c", "case": 0, "run": 0, "files": {"y": 3}, "at_return": {}},
         "not a path"),
        ({**VALID[Event.TIMING], "event": Event.TIMING, "samples": {"candidate": {"host": ["x"]}}},
         "not lists of numbers"),
        ({**VALID[Event.TIMING], "event": Event.TIMING, "checks": [{"lib": "c", "round": 1}]},
         "check 0 lacks its field 'set'"),
        ({**VALID[Event.TIMING], "event": Event.TIMING,
          "checks": [{"lib": "c", "round": 1, "set": 0, "late": {"y": {"count": 1}}, "final": True}]},
         "late write of 'y' is malformed"),
        ({"event": Event.HELLO, "pid": 1, "sm_count": 1.5}, "field 'sm_count' is a float"),
    ],
)
def test_malformed_messages_get_a_clear_error(message: object, says: str) -> None:
    with pytest.raises(ProtocolError, match=says.replace("(", r"\(").replace(")", r"\)")):
        check_message(message)


def test_a_message_forged_by_the_candidate_is_refused_with_a_clear_error(unscreened, vec_scale) -> None:
    """Candidate code shares the worker's process, so it can write to the result channel: what it
    writes is checked like any message, and a malformed one ends the evaluation as a corrupted
    channel (never a crash of the parent, never a verdict)."""
    from tests.eval.conftest import candidate

    ev = unscreened.evaluate(vec_scale, candidate("forges_message.cpp"), "cpu")
    assert ev.status == "runtime_error", ev.message
    assert "result channel was corrupted" in ev.message and "field 'case' is a str" in ev.message


# ---- the torch worker's protocol (eval/torch_protocol.py) ------------------------------------------
TORCH_WORKER_MODULES = ("torch_worker.py", "torch_timing.py")


def _torch_sent() -> set[str]:
    sent = set()
    for name in TORCH_WORKER_MODULES:
        for node in ast.walk(ast.parse((EVAL / name).read_text())):
            if isinstance(node, ast.keyword) and node.arg == "event":
                assert isinstance(node.value, ast.Constant), f"{name}:{node.value.lineno}: event is not a literal"
                sent.add(node.value.value)
    return sent


def test_every_torch_event_sent_is_defined_and_handled_by_the_judge() -> None:
    from regrapht.eval.torch_protocol import TORCH_EVENTS

    sent = _torch_sent()
    assert sent == set(TORCH_EVENTS), (sorted(sent - TORCH_EVENTS), sorted(TORCH_EVENTS - sent))
    # the judge hears the worker through its per-candidate state (torch_state.py)
    matched = {
        node.value
        for module in ("torch_judge.py", "torch_state.py")
        for node in ast.walk(ast.parse((EVAL / module).read_text()))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in TORCH_EVENTS
    }
    # what the judge acts on; "loaded" and "done" are read by the runner (the done count) or only logged
    assert sent - matched <= {"loaded", "done"}, sorted(sent - matched)


@pytest.mark.parametrize(
    ("message", "phrase"),
    [
        ({"event": "nope"}, "unknown event"),
        ({"event": "case"}, "'label' is missing"),
        ({"event": "case", "label": 3}, "'label' is a int"),
        ({"event": "timing", "samples": {"x": {"event": ["a"]}}, "setup": {}, "rounds": 1, "problems": [],
          "checked": 0}, "not lists of numbers"),
        ({"event": "done", "messages": True}, "'messages' is a bool"),
    ],
)  # fmt: skip
def test_the_torch_protocol_refuses_malformed_messages(message, phrase) -> None:
    from regrapht.eval.torch_protocol import check_torch_message

    with pytest.raises(ProtocolError, match=phrase):
        check_torch_message(message)
