"""The messages a torch task's worker (eval/torch_worker.py) sends its parent: one definition per
kind, checked at the trust boundary as eval/protocol.py checks the serial worker's. The parent
(eval/torch_judge.py) reads no message this module does not accept."""

from __future__ import annotations

from typing import Any

from regrapht.eval.protocol import ProtocolError

_STR, _INT, _BOOL, _LIST, _DICT = (str,), (int,), (bool,), (list,), (dict,)
_NUM = (int, float)

# event -> {field: (allowed types, required)}; extra fields are allowed, a known one of the wrong type
# or a missing required one is not.
TORCH_FIELDS: dict[str, dict[str, tuple[tuple[type, ...], bool]]] = {
    "hello": {"pid": (_INT, True), "l2_bytes": (_INT, False), "sm_count": (_INT, False), "gpu": (_STR, False)},
    "build": {"spec": (_DICT, True)},
    "load_error": {"kind": (_STR, True), "text": (_STR, True)},
    "loaded": {},
    "integrity": {"check": (_STR, True), "text": (_STR, True)},
    "parameters": {"sizes": (_STR, True), "loaded": (_LIST + _BOOL + _INT, True)},
    "case": {
        "label": (_STR, True),
        "error": (_STR, False),
        "cuda": (_BOOL, False),
        "integrity": (_LIST, False),
        "kind": (_STR, False),
        "ops": (_DICT, False),
        "forbidden": (_LIST, False),
    },
    "reference_case": {
        "label": (_STR, True),
        "outputs": (_LIST, True),
        "native_error": (_LIST, True),
        "deterministic": (_BOOL, True),
        "spread": (_LIST, True),
    },
    "sandbox": {"seconds": (_NUM, True), "seccomp": (_BOOL, True), "reason": (_STR + (type(None),), False),
                "broken": (_STR + (type(None),), False)},
    "baselines": {"setup": (_DICT, True)},
    "ready_for_timing": {},
    "timing": {
        "samples": (_DICT, True),
        "setup": (_DICT, True),
        "rounds": (_INT, True),
        "problems": (_LIST, True),
        "checked": (_INT, True),
        "audited": (_INT, False),
        "hold_s": (_NUM, False),
    },
    "error": {"kind": (_STR, True), "text": (_STR, True)},
    "done": {"messages": (_INT, True)},
}
TORCH_EVENTS = frozenset(TORCH_FIELDS)


def check_torch_message(message: Any) -> dict[str, Any]:
    """`message` itself when the torch worker's protocol defines it; else ProtocolError saying why."""
    if not isinstance(message, dict):
        raise ProtocolError(f"a message is a JSON object, not a {type(message).__name__}")
    event = message.get("event")
    if event not in TORCH_FIELDS:
        raise ProtocolError(f"unknown event {event!r}")
    if "t" in message and (isinstance(message["t"], bool) or not isinstance(message["t"], _NUM)):
        raise ProtocolError(f"{event} message: field 't' is a {type(message['t']).__name__}")
    for name, (types, required) in TORCH_FIELDS[event].items():
        if name not in message:
            if required:
                raise ProtocolError(f"{event} message: field {name!r} is missing")
            continue
        value = message[name]
        if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
            raise ProtocolError(f"{event} message: field {name!r} is a {type(value).__name__}")
    if event == "timing":
        for lib, samples in message["samples"].items():
            if not isinstance(samples, dict) or not all(
                isinstance(v, list) and all(isinstance(x, _NUM) and not isinstance(x, bool) for x in v)
                for v in samples.values()
            ):
                raise ProtocolError(f"timing message: the samples of {lib!r} are not lists of numbers")
    return message
