"""Read the almost-JSON that language models write.

Models wrap JSON in prose and fences, use single quotes and trailing commas, add // comments, put raw
newlines and bare backslashes inside code strings, leave double quotes in code unescaped, and stop
mid-element when they run out of tokens. `loads_lenient` repairs what can be repaired without
guessing content, says what it repaired, and gives up (ValueError) otherwise.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

_VALID_ESCAPES = set('"\\/bfnrtu')
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")
# A quote ends a string only if valid JSON can follow it; otherwise it is an unescaped quote inside
# the string (code like printf("%d", x)). In an array any value may follow a comma; in an object
# only a key ("name":) may, which tells `printf("a", "b")` apart from the end of a value.
_STRING_END_IN_ARRAY = re.compile(
    r"""\s*(?:$|[:}\]]|,\s*(?:$|["'{\[\]}]|-?\d|true\b|false\b|null\b|True\b|False\b|None\b|//|/\*))"""
)
_STRING_END_IN_OBJECT = re.compile(r"""\s*(?:$|[:}\]]|,\s*(?:$|"[^"\n]*"\s*:|'[^'\n]*'\s*:|[}\]]|//|/\*))""")
_PY_WORDS = {"True": "true", "False": "false", "None": "null"}


@dataclass
class Repaired:
    value: Any
    notes: list[str] = field(default_factory=list)


@dataclass
class _Scan:
    text: str
    notes: set[str] = field(default_factory=set)
    # Offsets in the repaired output where a top-level array element has just been completed.
    element_ends: list[int] = field(default_factory=list)


def _repair(src: str) -> _Scan:
    out: list[str] = []
    notes: set[str] = set()
    element_ends: list[int] = []
    stack: list[str] = []
    i, n = 0, len(src)
    pending_comma: int | None = None  # index in `out` of a comma that may turn out to be trailing
    in_string: str | None = None

    def emit(s: str) -> None:
        out.append(s)

    while i < n:
        c = src[i]
        if in_string is not None:
            if c == "\\" and i + 1 < n:
                nxt = src[i + 1]
                if in_string == "'" and nxt == "'":
                    emit("'")
                elif nxt == "u" and _HEX4.match(src, i + 2):
                    emit(src[i : i + 6])
                    i += 6
                    continue
                elif nxt in _VALID_ESCAPES and nxt != "u":
                    emit("\\" + nxt)
                else:
                    notes.add("escaped stray backslashes inside strings")
                    # A bare backslash (C code like '\0' written unescaped): keep it literally.
                    emit("\\\\" + nxt)
                i += 2
                continue
            if c == in_string:
                ending = _STRING_END_IN_OBJECT if stack and stack[-1] == "{" else _STRING_END_IN_ARRAY
                if ending.match(src, i + 1):
                    emit('"')
                    in_string = None
                else:
                    notes.add("escaped quotes inside strings")
                    emit('\\"')
                i += 1
                continue
            if c == '"':  # a double quote inside a single-quoted string
                emit('\\"')
                i += 1
                continue
            emit(c)
            i += 1
            continue

        # Outside strings.
        if c in "\"'":
            if c == "'":
                notes.add("single-quoted strings")
            if pending_comma is not None:
                pending_comma = None
            in_string = c
            emit('"')
            i += 1
            continue
        if src.startswith("//", i):
            end = src.find("\n", i)
            i = n if end < 0 else end
            notes.add("comments removed")
            continue
        if src.startswith("/*", i):
            end = src.find("*/", i + 2)
            i = n if end < 0 else end + 2
            notes.add("comments removed")
            continue
        if c in "{[":
            pending_comma = None
            stack.append(c)
            emit(c)
            i += 1
            continue
        if c in "}]":
            if pending_comma is not None:
                out[pending_comma] = ""
                notes.add("trailing commas removed")
                pending_comma = None
            if stack:
                stack.pop()
            emit(c)
            i += 1
            if len(stack) == 1 and stack[0] == "[":
                element_ends.append(len("".join(out)))
            continue
        if c == ",":
            pending_comma = len(out)
            emit(c)
            i += 1
            continue
        if c.isalpha():
            m = re.match(r"[A-Za-z_]\w*", src[i:])
            word = m.group(0) if m else c
            if word in _PY_WORDS:
                notes.add("Python literals (True/False/None)")
                word = _PY_WORDS[word]
            pending_comma = None
            emit(word)
            i += len(m.group(0)) if m else 1
            continue
        if not c.isspace():
            pending_comma = None
        emit(c)
        i += 1
    return _Scan("".join(out), notes, element_ends)


def _decode_prefix(text: str) -> tuple[Any, int]:
    decoder = json.JSONDecoder(strict=False)
    return decoder.raw_decode(text)


def loads_lenient(text: str) -> Repaired:
    """Parse the JSON value that starts at the beginning of `text` (leading whitespace allowed).
    Text after the value is ignored (noted). Raises ValueError when nothing can be recovered."""
    stripped = text.lstrip()
    try:
        value, end = _decode_prefix(stripped)
        notes = ["ignored text after the JSON"] if stripped[end:].strip() else []
        return Repaired(value, notes)
    except json.JSONDecodeError:
        pass
    scan = _repair(stripped)
    notes = sorted(scan.notes)
    try:
        value, end = _decode_prefix(scan.text)
        if scan.text[end:].strip():
            notes.append("ignored text after the JSON")
        return Repaired(value, notes)
    except json.JSONDecodeError as e:
        error = e
    # Truncated output: keep the complete elements of the top-level array.
    if scan.text.startswith("[") and scan.element_ends:
        cut = scan.element_ends[-1]
        try:
            value, _ = _decode_prefix(scan.text[:cut] + "]")
        except json.JSONDecodeError:
            pass
        else:
            notes.append("the final element was cut off (truncated output) and dropped")
            return Repaired(value, notes)
    raise ValueError(f"not JSON even after repairs ({error.msg} at offset {error.pos})")
