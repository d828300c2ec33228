"""Reading ParEval's files (tasks/pareval.py imports them): a CUDA prompt's kernel signature,
description and structs, and the patterns of its drivers (the Context, init/reset/compute/best,
sizes and array lengths). Anything else raises NeedsHand with what was not understood."""

from __future__ import annotations

import re
from dataclasses import dataclass

# C types in ParEval's kernel signatures -> dtypes.
C_TYPES = {
    "double": "float64",
    "float": "float32",
    "int": "int32",
    "int32_t": "int32",
    "unsigned int": "uint32",
    "uint32_t": "uint32",
    "size_t": "uint64",
    "uint64_t": "uint64",
    "unsigned long long": "uint64",
    "long": "int64",
    "int64_t": "int64",
    "long long": "int64",
    "char": "int8",
    "uint8_t": "uint8",
    "bool": "bool",
    "cuDoubleComplex": "complex128",
    "cuFloatComplex": "complex64",
}



class NeedsHand(Exception):
    """A problem whose driver or prompt does not follow the patterns the importer reads."""


# ---- reading the prompt ----------------------------------------------------------------------------

_KERNEL = re.compile(r"__global__\s+void\s+(\w+)\s*\((.*?)\)\s*\{?\s*$", re.S)


@dataclass
class Param:
    name: str
    c_type: str  # base type, without const or *
    pointer: bool
    const: bool
    fixed_length: str | None = None  # `size_t bins[256]`


def read_prompt(text: str) -> tuple[str, list[Param], str, str]:
    """(kernel name, parameters, description, preamble) of a ParEval CUDA prompt."""
    match = _KERNEL.search(text.strip())
    if match is None:
        raise NeedsHand("the prompt has no `__global__ void NAME(...)` kernel signature")
    head = text[: text.rfind("__global__")]
    comment_start = head.rfind("/*")
    description = head[comment_start:].strip() if comment_start >= 0 else ""
    preamble = head[:comment_start].strip() if comment_start >= 0 else head.strip()
    description = re.sub(r"^\s*/\*|\*/\s*$", "", description).strip()
    params = [_param(p) for p in _split_top(match.group(2)) if p.strip()]
    return match.group(1), params, " ".join(description.split()), preamble


def _split_top(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for ch in text:
        depth += (ch in "<([") - (ch in ">)]")
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    return [*parts, current]


def _param(raw: str) -> Param:
    text = raw.strip()
    fixed = None
    array = re.search(r"\[\s*(\d+)\s*\]\s*$", text)
    if array:
        fixed, text = array.group(1), text[: array.start()]
    words = text.replace("*", " * ").split()
    if len(words) < 2:
        raise NeedsHand(f"cannot read the kernel parameter {raw.strip()!r}")
    name = words[-1]
    stars = words.count("*")
    base = " ".join(w for w in words[:-1] if w not in ("const", "*", "__restrict__"))
    return Param(name, base, stars == 1 or fixed is not None, "const" in words, fixed)


def prompt_structs(preamble: str) -> dict[str, list[tuple[str, str]]]:
    """`struct Point { double x, y; };` -> {"Point": [("x", "float64"), ("y", "float64")]}."""
    structs = {}
    for match in re.finditer(r"struct\s+(\w+)\s*\{([^}]*)\}\s*;", preamble):
        fields = []
        for decl in match.group(2).split(";"):
            decl = decl.strip()
            if not decl:
                continue
            words = decl.split(None, 1)
            type_words = decl.rsplit(None, 1)[0] if "," not in decl else words[0]
            names = [n.strip() for n in (decl[len(type_words):] if "," in decl else decl.rsplit(None, 1)[1]).split(",")]
            dtype = C_TYPES.get(type_words.strip())
            if dtype is None or dtype.startswith("complex"):
                raise NeedsHand(f"struct {match.group(1)} has a field of type {type_words!r}")
            fields += [(n, dtype) for n in names if n]
        structs[match.group(1)] = fields
    return structs


# ---- reading the driver ---------------------------------------------------------------------------


def function_body(source: str, name: str) -> str:
    match = re.search(rf"\b{name}\s*\(\s*(?:Context\s*\*\s*ctx)?\s*\)\s*\{{", source)
    if match is None:
        raise NeedsHand(f"the driver has no {name}() function")
    depth, i = 1, match.end()
    while depth and i < len(source):
        depth += {"{": 1, "}": -1}.get(source[i], 0)
        i += 1
    return source[match.end() : i - 1]


def strip_comments(source: str) -> str:
    return re.sub(r"//[^\n]*|/\*.*?\*/", "", source, flags=re.S)


def context_fields(source: str) -> dict[str, str]:
    """Context's members -> their declared types ("h_x" -> "std::vector<double>")."""
    match = re.search(r"struct\s+Context\s*\{(.*?)\};", source, re.S)
    if match is None:
        raise NeedsHand("the driver has no `struct Context`")
    fields: dict[str, str] = {}
    for decl in match.group(1).split(";"):
        decl = " ".join(decl.split())
        if not decl:
            continue
        # the type ends where the first declarator begins: a name, or a `*` before one
        head = re.match(r"^(.*?[>\w])\s*(\*?\s*\w+(?:\s*,\s*\*?\s*\w+)*)$", decl)
        if head is None:
            continue
        base = head.group(1)
        for declarator in head.group(2).split(","):
            pointer = "*" in declarator
            fields[declarator.replace("*", "").strip()] = base + ("*" if pointer else "")
    return fields


_SIZE_ATOM = re.compile(r"^[\w\s+\-*/()<>]+$")


class Sizes:
    """Context fields that are sizes: `ctx->N = DRIVER_PROBLEM_SIZE;` and kin, as expressions of the
    problem size P."""

    def __init__(self, init_body: str):
        self.fields: dict[str, str] = {}
        for match in re.finditer(r"ctx->(\w+)\s*=\s*([^;]*DRIVER_PROBLEM_SIZE[^;]*);", init_body):
            self.fields[match.group(1)] = match.group(2).strip()
        self.resized: dict[str, str] = {
            m.group(1): m.group(2).strip() for m in re.finditer(r"ctx->(\w+)\.resize\(([^;]*)\);", init_body)
        }


def expression(text: str, sizes: Sizes, names: dict[str, str]) -> str:
    """A driver expression over ctx fields -> a size expression over the kernel's size parameters."""
    text = text.strip()

    def field(match: re.Match) -> str:
        name, size_call = match.group(1), match.group(2)
        if size_call:
            if name not in sizes.resized:
                raise NeedsHand(f"ctx->{name}.size() is not set by a resize() in init()")
            return f"({expression(sizes.resized[name], sizes, names)})"
        if name in names:
            return names[name]
        raise NeedsHand(f"ctx->{name} is not one of the kernel's size parameters")

    translated = re.sub(r"ctx->(\w+)(\.size\(\))?", field, text)
    translated = translated.replace("/", "//").replace("////", "//")
    if not _SIZE_ATOM.match(translated) or "<<" in translated or ">>" in translated:
        raise NeedsHand(f"cannot read the size expression {text!r}")
    return " ".join(translated.split())


def integer(text: str) -> int:
    """ParEval's "(1<<18)", "1024" or "(1<<10) / 2" -> the integer (shifts, + - * and / only)."""
    if not re.fullmatch(r"[\d\s()<>*/+\-]+", text or ""):
        raise NeedsHand(f"{text!r} is not an integer expression")
    # a tiny evaluator of the file's integers (no eval of file contents)
    tokens = re.findall(r"\d+|<<|[()*/+\-]", text)
    value, end = _parse_sum(tokens, 0)
    if end != len(tokens):
        raise NeedsHand(f"cannot read the integer expression {text!r}")
    return value


def _parse_sum(tokens: list[str], i: int) -> tuple[int, int]:
    value, i = _parse_shift(tokens, i)
    while i < len(tokens) and tokens[i] in "+-":
        op = tokens[i]
        right, i = _parse_shift(tokens, i + 1)
        value = value + right if op == "+" else value - right
    return value, i


def _parse_shift(tokens: list[str], i: int) -> tuple[int, int]:
    value, i = _parse_product(tokens, i)
    while i < len(tokens) and tokens[i] == "<<":
        right, i = _parse_product(tokens, i + 1)
        value <<= right
    return value, i


def _parse_product(tokens: list[str], i: int) -> tuple[int, int]:
    value, i = _parse_atom(tokens, i)
    while i < len(tokens) and tokens[i] in "*/":
        op = tokens[i]
        right, i = _parse_atom(tokens, i + 1)
        if op == "/" and right == 0:
            raise NeedsHand("a size expression divides by zero")
        value = value * right if op == "*" else value // right
    return value, i


def _parse_atom(tokens: list[str], i: int) -> tuple[int, int]:
    if i >= len(tokens):
        raise NeedsHand("a size expression ends early")
    if tokens[i] == "(":
        value, i = _parse_sum(tokens, i + 1)
        return value, i + 1
    return int(tokens[i]), i + 1


def task_id_for(name: str) -> str:
    return "pareval_" + re.sub(r"[^A-Za-z0-9_-]", "_", name)


@dataclass
class ArraySpec:
    """One pointer parameter of the kernel, as the importer has read it."""

    param: Param
    dtype: str
    length: str
    member: str = ""  # the Context member compute() passes (the device buffer)
    host: str | None = None  # the Context member best() reads or writes
    generator: dict | None = None
    initial: float | int | None = None
    role: str = "input"
