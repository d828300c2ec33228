"""Struct element types a task declares (`[[structs]]` in task.toml), and component views of compound
arrays (structs and complex numbers) for generating, comparing and inspecting them field by field.

A declared struct is a C struct of plain numeric fields, laid out as C lays it out (natural
alignment). The harness gives candidates and the serial reference its definition unless they define
it themselves, and then checks at compile time that their definition has the declared layout.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from regrapht.tasks.dtypes import DTYPES, DType

_IDENT = re.compile(r"^[A-Za-z_]\w*$")
# C types spelled for each field dtype in the generated definition.
_C_SPELLING = {
    "int8": "signed char",
    "uint8": "unsigned char",
    "int16": "short",
    "uint16": "unsigned short",
    "int32": "int",
    "uint32": "unsigned int",
    "int64": "long long",
    "uint64": "unsigned long long",
    "float32": "float",
    "float64": "double",
}


class StructError(ValueError):
    """A malformed struct declaration; the message names the field of task.toml."""


def parse_structs(raw: Any) -> dict[str, DType]:
    """`[[structs]]` tables -> struct dtypes by name. Raises StructError naming `structs[i]...`."""
    if raw is None:
        return {}
    if not isinstance(raw, list):
        raise StructError("structs: expected an array of tables ([[structs]])")
    out: dict[str, DType] = {}
    for i, table in enumerate(raw):
        where = f"structs[{i}]"
        if not isinstance(table, dict):
            raise StructError(f"{where}: expected a table, got {table!r}")
        unknown = set(table) - {"name", "fields"}
        if unknown:
            raise StructError(f"{where}: unknown field(s) {', '.join(sorted(unknown))} (known: name, fields)")
        name = table.get("name")
        if not isinstance(name, str) or not _IDENT.match(name):
            raise StructError(f"{where}.name: expected a C identifier, got {name!r}")
        where = f"structs[{i}] ({name})"
        if name in DTYPES or name in out:
            raise StructError(f"{where}.name: {name!r} is already a dtype")
        fields = table.get("fields")
        if not isinstance(fields, list) or not fields:
            raise StructError(f'{where}.fields: expected a list like [{{ name = "x", dtype = "float64" }}, ...]')
        parsed: list[tuple[str, DType]] = []
        for j, f in enumerate(fields):
            if not isinstance(f, dict) or set(f) != {"name", "dtype"}:
                raise StructError(f"{where}.fields[{j}]: expected {{ name = ..., dtype = ... }}, got {f!r}")
            fname, fdtype = f["name"], f["dtype"]
            if not isinstance(fname, str) or not _IDENT.match(fname):
                raise StructError(f"{where}.fields[{j}].name: expected a C identifier, got {fname!r}")
            if fdtype not in _C_SPELLING:
                raise StructError(
                    f"{where}.fields[{j}] ({fname}).dtype: {fdtype!r} is not a plain number type "
                    f"(known: {', '.join(_C_SPELLING)})"
                )
            if any(fname == other for other, _ in parsed):
                raise StructError(f"{where}.fields[{j}].name: duplicate field {fname!r}")
            parsed.append((fname, DTYPES[fdtype]))
        numpy = np.dtype([(n, d.numpy) for n, d in parsed], align=True)
        floats = [d for _, d in parsed if d.is_float]
        loosest = max(floats, key=lambda d: d.default_rtol) if floats else None
        out[name] = DType(
            name,
            numpy,
            (name, f"struct {name}"),
            False,
            loosest.default_rtol if loosest else 0.0,
            loosest.default_atol if loosest else 0.0,
            fields=tuple(parsed),
            struct=True,
        )
    return out


def c_definition(dt: DType) -> str:
    """The C definition the harness provides for a declared struct."""
    body = " ".join(f"{_C_SPELLING[f.name]} {name};" for name, f in dt.fields)
    return f"struct {dt.name} {{ {body} }};"


def layout_assertions(dt: DType) -> str:
    """Compile-time checks that the struct in scope has the declared layout (a candidate may define
    it itself, as ParEval's prompts do)."""
    checks = [f"sizeof({dt.name}) == {dt.numpy.itemsize}"]
    for name, _ in dt.fields:
        checks.append(f"offsetof({dt.name}, {name}) == {dt.numpy.fields[name][1]}")
    declared = c_definition(dt)
    return "\n".join(
        f'static_assert({c}, "struct {dt.name} must have the layout the task declares: {declared}");'
        for c in checks
    )


def defines_struct(source: str, name: str) -> bool:
    """Whether a source defines `struct NAME {` or `typedef struct ... {...} NAME;` itself."""
    code = re.sub(r"//[^\n]*|/\*.*?\*/", " ", source, flags=re.S)  # a definition in a comment is none
    pattern = rf"\bstruct\s+{re.escape(name)}\s*\{{|\}}\s*{re.escape(name)}\s*;|\busing\s+{re.escape(name)}\s*="
    return re.search(pattern, code) is not None


def components(values: np.ndarray, dt: DType) -> np.ndarray:
    """A compound array as (n, fields) numbers in float64 (for degeneracy checks); plain arrays as
    they are."""
    if not dt.is_compound:
        return values
    return np.stack([field_view(values, dt, name).astype(np.float64) for name, _ in dt.fields], axis=1)


def field_view(values: np.ndarray, dt: DType, name: str) -> np.ndarray:
    """One field of a compound array, as a (strided) array of its component dtype."""
    if dt.is_complex:
        return values.real if name == "re" else values.imag
    return values[name]


def from_components(flat: np.ndarray, dt: DType, n: int) -> np.ndarray:
    """n compound elements from n*fields component values (a generator's draws), field-major per
    element: x0, y0, x1, y1, ..."""
    k = len(dt.fields)
    flat = np.asarray(flat).reshape(n, k)
    out = np.zeros(n, dtype=dt.numpy)
    for j, (name, component) in enumerate(dt.fields):
        column = flat[:, j].astype(component.numpy)
        if dt.is_complex:
            if name == "re":
                out.real = column
            else:
                out.imag = column
        else:
            out[name] = column
    return out


def uniform_component(dt: DType) -> DType | None:
    """The one dtype every field has, or None when the fields differ."""
    kinds = {component.name for _, component in dt.fields}
    return DTYPES[kinds.pop()] if len(kinds) == 1 else None
