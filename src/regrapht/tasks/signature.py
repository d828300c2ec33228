"""Parsing the C signature a task declares, to check it against the argument list."""

from __future__ import annotations

import re
from dataclasses import dataclass

_SIGNATURE = re.compile(r"^\s*(?:__global__\s+)?void\s+([A-Za-z_]\w*)\s*\((.*)\)\s*;?\s*$", re.S)
_PARAM = re.compile(r"^(?P<type>.*?)\s*(?P<name>[A-Za-z_]\w*)\s*$", re.S)


@dataclass(frozen=True)
class Param:
    name: str
    base_type: str  # without const, restrict or the pointer star
    is_pointer: bool
    is_const: bool
    spelled: str  # the type as written


class SignatureError(ValueError):
    pass


def parse_signature(signature: str) -> tuple[str, list[Param]]:
    """Split `void f(const float* x, int n)` into the function name and its parameters."""
    match = _SIGNATURE.match(signature)
    if not match:
        raise SignatureError(
            f"cannot parse signature {signature!r}: expected `void NAME(TYPE NAME, ...)` (results are "
            "returned through output pointers)"
        )
    name, body = match.group(1), match.group(2).strip()
    params: list[Param] = []
    if body and body != "void":
        for raw in body.split(","):
            params.append(_parse_param(raw, signature))
    return name, params


def _parse_param(raw: str, signature: str) -> Param:
    text = raw.replace("*", " * ").strip()
    match = _PARAM.match(text)
    if not match or not match.group("type").strip():
        raise SignatureError(f"cannot parse parameter {raw.strip()!r} in {signature!r}")
    type_text = match.group("type")
    words = type_text.split()
    stars = words.count("*")
    if stars > 1:
        raise SignatureError(f"parameter {raw.strip()!r}: only plain pointers (one *) are supported")
    qualifiers = {"const", "__restrict__", "__restrict", "restrict", "*"}
    base = " ".join(w for w in words if w not in qualifiers)
    return Param(
        name=match.group("name"),
        base_type=base,
        is_pointer=stars == 1,
        is_const="const" in words,
        spelled=" ".join(type_text.split()).replace(" *", "*"),
    )
