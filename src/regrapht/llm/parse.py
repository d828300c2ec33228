"""Turn model responses into code and into the ReGraphT paper's JSON formats.

Tolerant about form (fences with or without a language, several blocks, a missing closing fence,
prose around the code, <think> sections, almost-JSON), strict about what reaches the compiler: when
nothing usable is found the result is a `ParseFailure` that says why, never a guess. Every success
says which rule chose the code and what was repaired.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from regrapht.llm.lenient_json import loads_lenient

C_FAMILY = frozenset({"cuda", "cu", "cuh", "cpp", "c++", "cxx", "cc", "c", "h", "hpp", "hxx", "objective-c"})

# --------------------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True)
class ParseFailure:
    """Nothing usable was found. `reason` is one of: empty, inside_think, no_code, function_missing,
    unbalanced_braces, no_json, bad_shape, count_mismatch, unknown_method."""

    reason: str
    message: str
    notes: tuple[str, ...] = ()
    ok: Literal[False] = False


@dataclass(frozen=True)
class ExtractedCode:
    code: str
    language: str | None
    rule: str
    notes: tuple[str, ...] = ()
    ok: Literal[True] = True


@dataclass(frozen=True)
class TrajectoryStep:
    think: str
    method: str
    detail: str
    code: str


@dataclass(frozen=True)
class ParsedTrajectory:
    steps: tuple[TrajectoryStep, ...]
    notes: tuple[str, ...] = ()
    ok: Literal[True] = True


@dataclass(frozen=True)
class RelabelItem:
    existed: bool
    method: str


@dataclass(frozen=True)
class ParsedRelabel:
    items: tuple[RelabelItem, ...]
    notes: tuple[str, ...] = ()
    ok: Literal[True] = True


# --------------------------------------------------------------------------------------------------
# Reasoning sections

_THINK_TAGS = ("think", "thinking", "reasoning")


def strip_reasoning(text: str) -> tuple[str, list[str]]:
    """Remove <think>...</think> sections (and <thinking>, <reasoning>). Returns the rest and notes.
    A response whose chat template opened the tag in the prompt starts mid-thought and has only the
    closing tag: everything before it is reasoning. A tag that never closes swallows the rest."""
    notes: list[str] = []
    for tag in _THINK_TAGS:
        closed = re.compile(rf"<{tag}>.*?</{tag}>", re.DOTALL | re.IGNORECASE)
        text, count = closed.subn("", text)
        if count:
            notes.append(f"removed {count} <{tag}> section(s)")
        close_only = re.search(rf"</{tag}>", text, re.IGNORECASE)
        if close_only:
            text = text[close_only.end() :]
            notes.append(f"removed reasoning before a lone </{tag}>")
        open_only = re.search(rf"<{tag}>", text, re.IGNORECASE)
        if open_only:
            text = text[: open_only.start()]
            notes.append(f"the response ended inside <{tag}>; removed the unfinished reasoning")
    return text, notes


# --------------------------------------------------------------------------------------------------
# Fenced blocks

_FENCE_OPEN = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*)$")


@dataclass(frozen=True)
class CodeBlock:
    language: str | None
    code: str
    closed: bool
    index: int

    @property
    def c_family(self) -> bool:
        if self.language is not None:
            return self.language in C_FAMILY
        return _looks_like_c(self.code)


def _looks_like_c(code: str) -> bool:
    return ";" in code and ("{" in code or "#include" in code)


def find_code_blocks(text: str) -> list[CodeBlock]:
    """Fenced blocks in order. An unclosed last block runs to the end of the text."""
    blocks: list[CodeBlock] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        m = _FENCE_OPEN.match(lines[i])
        if not m:
            i += 1
            continue
        fence = m.group("fence")
        info = m.group("info").strip()
        language = info.split()[0].lower().strip("{}.") if info else None
        body: list[str] = []
        closed = False
        i += 1
        while i < len(lines):
            line = lines[i]
            stripped = line.strip()
            if stripped.startswith(fence[0] * len(fence)) and stripped.strip(fence[0]) == "":
                closed = True
                i += 1
                break
            if stripped.endswith(fence) and not _FENCE_OPEN.match(line):
                # Closing fence glued to the last line of code: "}```".
                body.append(line.rstrip()[: -len(fence)])
                closed = True
                i += 1
                break
            body.append(line)
            i += 1
        blocks.append(CodeBlock(language or None, "\n".join(body).strip("\n"), closed, len(blocks)))
    return blocks


# --------------------------------------------------------------------------------------------------
# Checks on code


def _strip_comments_and_literals(code: str) -> str:
    pattern = re.compile(
        r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'",
        re.DOTALL,
    )
    return pattern.sub(" ", code)


def brace_balance(code: str) -> tuple[int, int]:
    bare = _strip_comments_and_literals(code)
    return bare.count("{"), bare.count("}")


def _mentions_function(code: str, name: str) -> bool:
    return re.search(rf"\b{re.escape(name)}\s*\(", _strip_comments_and_literals(code)) is not None


def _defines_function(code: str, name: str) -> bool:
    # name ( params ) [qualifiers] {   -- params may span lines but contain no ; { }
    pattern = rf"\b{re.escape(name)}\s*\([^;{{}}]*\)\s*(?:const\s*|noexcept\s*|override\s*)*\{{"
    return re.search(pattern, _strip_comments_and_literals(code)) is not None


def _check_code(
    code: str, notes: list[str], function_name: str | None, rule: str, language: str | None
) -> ExtractedCode | ParseFailure:
    code = code.strip("\n")
    if not code.strip():
        return ParseFailure("empty", "the chosen code block is empty", tuple(notes))
    opens, closes = brace_balance(code)
    if opens != closes:
        hint = " (the output looks truncated)" if opens > closes else ""
        return ParseFailure(
            "unbalanced_braces",
            f"the code has {opens} '{{' but {closes} '}}'{hint}; not sending it to the compiler",
            tuple(notes),
        )
    if function_name and not _mentions_function(code, function_name):
        return ParseFailure(
            "function_missing", f"the code does not contain function `{function_name}`", tuple(notes)
        )
    return ExtractedCode(code, language, rule, tuple(notes))


# --------------------------------------------------------------------------------------------------
# Code extraction

_CODE_START = re.compile(
    r"^\s*(#\s*(include|define|pragma|if|ifndef)\b|__global__|__device__|__host__|template\s*<|extern\b|"
    r"static\b|inline\b|namespace\b|using\b|typedef\b|struct\b|class\b|constexpr\b|"
    r"(const\s+)?(void|int|float|double|bool|char|size_t|long|unsigned|auto|std::\w+)\b[\w\s\*&<>:,]*\()"
)


def _unfenced_code(text: str) -> tuple[str, str, list[str]] | None:
    lines = text.strip("\n").split("\n")
    start = next((i for i, line in enumerate(lines) if _CODE_START.match(line)), None)
    if start is None:
        return None
    end = max((i for i, line in enumerate(lines) if line.rstrip() in ("}", "};")), default=None)
    if end is None or end < start:
        return None
    notes: list[str] = []
    prose_before = any(line.strip() for line in lines[:start])
    prose_after = any(line.strip() for line in lines[end + 1 :])
    if not prose_before and not prose_after:
        return "\n".join(lines[start : end + 1]), "unfenced: the whole response is code", notes
    if prose_before:
        notes.append("ignored prose before the code")
    if prose_after:
        notes.append("ignored prose after the code")
    return (
        "\n".join(lines[start : end + 1]),
        "unfenced: from the first line that starts code to the last closing brace",
        notes,
    )


def response_body(text: str) -> tuple[str, list[str]] | ParseFailure:
    """A response's text outside its reasoning section, with notes on what was stripped, or why
    there is none (empty, or everything inside the reasoning)."""
    if not text.strip():
        return ParseFailure("empty", "the response is empty")
    body, notes = strip_reasoning(text)
    if not body.strip():
        reason = "inside_think" if any("ended inside" in n for n in notes) else "no_code"
        return ParseFailure(reason, "the response has no text outside its reasoning section", tuple(notes))
    return body, notes


def extract_code(text: str, *, function_name: str | None = None) -> ExtractedCode | ParseFailure:
    """The C++/CUDA code in a response. With `function_name`, the block that defines (else mentions)
    that function wins; otherwise the longest cuda/cpp block. Unfenced code is accepted when it is
    the whole response or clearly delimited by prose."""
    found = response_body(text)
    if isinstance(found, ParseFailure):
        return found
    body, notes = found

    blocks = find_code_blocks(body)
    if blocks:
        if not blocks[-1].closed:
            notes.append("the closing fence is missing; took the code to the end of the response")
        candidates = [b for b in blocks if b.c_family and b.code.strip()]
        if not candidates:
            langs = ", ".join(sorted({b.language or "untagged" for b in blocks}))
            return ParseFailure(
                "no_code", f"found {len(blocks)} code block(s) ({langs}) but none is C++/CUDA", tuple(notes)
            )
        if len(blocks) > 1:
            notes.append(f"{len(blocks)} code blocks; {len(candidates)} are C++/CUDA")
        chosen: CodeBlock
        if function_name:
            for verb, matches in (
                ("defines", [b for b in candidates if _defines_function(b.code, function_name)]),
                ("mentions", [b for b in candidates if _mentions_function(b.code, function_name)]),
            ):
                if matches:
                    chosen = max(matches, key=lambda b: (len(b.code), b.index))
                    which = "only" if len(matches) == 1 else "longest"
                    rule = f"the {which} block that {verb} `{function_name}`"
                    break
            else:
                if not blocks[-1].closed and blocks[-1] in candidates:
                    # An answer cut off before the function: the truncation is the cause to report.
                    cut = _check_code(blocks[-1].code, notes, None, "", None)
                    if isinstance(cut, ParseFailure) and cut.reason == "unbalanced_braces":
                        return cut
                return ParseFailure(
                    "function_missing",
                    f"none of the {len(candidates)} C++/CUDA block(s) contains function `{function_name}`",
                    tuple(notes),
                )
        elif len(candidates) == 1:
            chosen = candidates[0]
            rule = "the only cuda/cpp block"
        else:
            # Ties go to the later block: models tend to end with their final version.
            chosen = max(candidates, key=lambda b: (len(b.code), b.index))
            rule = "the longest cuda/cpp block"
        return _check_code(chosen.code, notes, function_name, rule, chosen.language or "untagged")

    found = _unfenced_code(body)
    if found is None:
        return ParseFailure("no_code", "no fenced code block and no recognisable C++/CUDA code", tuple(notes))
    code, rule, more = found
    return _check_code(code, notes + more, function_name, rule, None)


# --------------------------------------------------------------------------------------------------
# JSON in responses


def _json_candidates(body: str) -> Iterable[tuple[str, str]]:
    """(text starting at a JSON value, where it came from), most likely first."""
    blocks = find_code_blocks(body)
    for b in blocks:
        if b.language in ("json", "json5", "jsonc", "javascript", "js"):
            yield b.code, f"```{b.language} block"
    for b in blocks:
        if b.language not in ("json", "json5", "jsonc", "javascript", "js") and b.code.lstrip()[:1] in "[{":
            yield b.code, "fenced block"
    # Unfenced: a bracket at the start of a line first, then anywhere (bounded, to stay linear-ish).
    starts = [m.start(1) for m in re.finditer(r"(?m)^[ \t]*([\[{])", body)]
    starts += [m.start() for m in re.finditer(r"[\[{]", body)][:50]
    seen: set[int] = set()
    for s in starts:
        if s not in seen:
            seen.add(s)
            yield body[s:], "inline JSON"


def _find_json(text: str, accept: Callable[[Any], Any | None]) -> tuple[Any, list[str]] | ParseFailure:
    """The first JSON value in `text` that `accept` turns into something (not None)."""
    body, notes = strip_reasoning(text)
    if not body.strip():
        reason = "inside_think" if any("ended inside" in n for n in notes) else "no_json"
        return ParseFailure(reason, "the response has no text outside its reasoning section", tuple(notes))
    last_error = "no '[' or '{' in the response"
    for candidate, origin in _json_candidates(body):
        try:
            repaired = loads_lenient(candidate)
        except ValueError as e:
            last_error = f"{origin}: {e}"
            continue
        value = accept(repaired.value)
        if value is not None:
            extra = [f"JSON from {origin}"] + [f"repaired: {n}" for n in repaired.notes]
            return value, notes + extra
        last_error = f"{origin}: JSON of the wrong shape"
    return ParseFailure("no_json", f"no usable JSON found ({last_error})", tuple(notes))


def _list_of_dicts(value: Any, wrappers: Sequence[str]) -> list[dict[str, Any]] | None:
    if isinstance(value, dict):
        for key in value:
            if str(key).lower() in wrappers and isinstance(value[key], list):
                value = value[key]
                break
        else:
            return None
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return value
    return None


def _fields(item: dict[str, Any], aliases: dict[str, Sequence[str]]) -> dict[str, Any]:
    lowered = {str(k).strip().lower(): v for k, v in item.items()}
    return {name: next((lowered[a] for a in names if a in lowered), None) for name, names in aliases.items()}


_STEP_ALIASES = {
    "think": ("think", "thought", "thinking", "reasoning", "analysis"),
    "method": ("method", "technique", "optimization", "method_name"),
    "detail": ("detail", "details", "description", "implementation"),
    "code": ("code", "cuda_code", "optimized_code", "source"),
}


def parse_trajectory(text: str, *, function_name: str | None = None) -> ParsedTrajectory | ParseFailure:
    """A teacher's step-by-step trajectory: a JSON list of {think, method, detail, code} (also
    accepted wrapped as {"steps": [...]}). Steps are kept up to the first unusable one (no method,
    no code, unbalanced braces, or missing `function_name`), because each step builds on the last."""
    found = _find_json(text, lambda v: _list_of_dicts(v, ("steps", "trajectory", "optimization_steps")))
    if isinstance(found, ParseFailure):
        return found
    items, notes = found
    steps: list[TrajectoryStep] = []
    for k, item in enumerate(items, start=1):
        f = _fields(item, _STEP_ALIASES)
        method = f["method"].strip() if isinstance(f["method"], str) else ""
        code = f["code"] if isinstance(f["code"], str) else ""
        problem = None
        if not method:
            problem = "has no method"
        elif not code.strip():
            problem = "has no code"
        else:
            if find_code_blocks(code):
                inner = extract_code(code, function_name=function_name)
                if isinstance(inner, ParseFailure):
                    problem = f"has unusable code ({inner.message})"
                else:
                    code = inner.code
                    notes.append(f"step {k}: code field was fenced; took {inner.rule}")
            if problem is None:
                checked = _check_code(code, [], function_name, "code field", None)
                if isinstance(checked, ParseFailure):
                    problem = f"has unusable code ({checked.message})"
                else:
                    code = checked.code
        if problem is not None:
            dropped = len(items) - k + 1
            notes.append(f"step {k} {problem}; dropped it and the {dropped - 1} step(s) after it")
            break
        for name in ("think", "detail"):
            if not isinstance(f[name], str) or not f[name].strip():
                notes.append(f"step {k} has no {name}")
        steps.append(
            TrajectoryStep(
                think=f["think"].strip() if isinstance(f["think"], str) else "",
                method=method,
                detail=f["detail"].strip() if isinstance(f["detail"], str) else "",
                code=code,
            )
        )
    if not steps:
        return ParseFailure("bad_shape", "no usable step in the trajectory", tuple(notes))
    return ParsedTrajectory(tuple(steps), tuple(notes))


def _normalise_method(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", name.lower()).strip()


def _as_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "yes", "y", "1"):
        return True
    if isinstance(value, str) and value.strip().lower() in ("false", "no", "n", "0"):
        return False
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    return None


def parse_relabel(
    text: str,
    *,
    expected_count: int | None = None,
    canonical_methods: Sequence[str] | None = None,
) -> ParsedRelabel | ParseFailure:
    """A relabel answer: a JSON list of {existed, method}, one per method of the trajectory, in order.
    With `canonical_methods`, an item that says existed=true must name one of them (matched ignoring
    case and punctuation, and returned in its canonical spelling)."""
    found = _find_json(text, lambda v: _list_of_dicts(v, ("methods", "relabel", "labels", "items")))
    if isinstance(found, ParseFailure):
        return found
    raw_items, notes = found
    canonical = {_normalise_method(m): m for m in canonical_methods or ()}
    items: list[RelabelItem] = []
    for k, item in enumerate(raw_items, start=1):
        f = _fields(item, {"existed": ("existed", "exists", "exist"), "method": ("method", "name")})
        existed = _as_bool(f["existed"])
        method = f["method"].strip() if isinstance(f["method"], str) else ""
        if existed is None or not method:
            return ParseFailure(
                "bad_shape",
                f"item {k} needs a boolean 'existed' and a non-empty 'method': {item}",
                tuple(notes),
            )
        if existed and canonical_methods is not None:
            match = canonical.get(_normalise_method(method))
            if match is None:
                return ParseFailure(
                    "unknown_method",
                    f"item {k} says {method!r} already exists, but it is not one of the canonical methods",
                    tuple(notes),
                )
            if match != method:
                notes.append(f"item {k}: {method!r} read as canonical {match!r}")
            method = match
        items.append(RelabelItem(existed, method))
    if expected_count is not None and len(items) != expected_count:
        return ParseFailure(
            "count_mismatch",
            f"expected {expected_count} relabel items (one per trajectory method), got {len(items)}",
            tuple(notes),
        )
    return ParsedRelabel(tuple(items), tuple(notes))
