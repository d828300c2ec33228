"""The `torch` task.toml schema (docs/task-format.md, agreed on issue 17): a checker for what the KernelBench
importer writes and for the shipped torch tasks, and a writer for the few TOML shapes the importer needs.

The torch task loader (tasks/torch_task.py) is the judge's; this module only says whether a file keeps to
the agreed schema, so an importer's output and the shipped suite can be checked without it.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from typing import Any

from regrapht.tasks import expr
from regrapht.tasks.variants import VariantError, parse_torch_spec

CATEGORIES = (
    "matmul",
    "convolution",
    "reduction",
    "normalization",
    "activation",
    "loss",
    "scan",
    "elementwise",
    "pooling",
    "attention",
    "fusion",
    "model",
)
DIFFICULTIES = ("easy", "medium", "hard")
SPLITS = ("train", "test", "example")
DTYPES = ("float32", "bfloat16", "float16")
COMPUTE = ("fp64", "fp32", "int32", "fp64_tensor", "tf32_tensor", "fp16_tensor", "fp8_tensor", "int8_tensor")
_TOP = {
    "kind",
    "title",
    "category",
    "difficulty",
    "split",
    "level",
    "dtype",
    "allow_tf32",
    "description",
    "tags",
    "source",
    "sizes",
    "tolerance",
    "roofline",
    "variants",  # RL problem randomization (docs/task-format.md); the fields are tasks/variants.py's
}
_REQUIRED = ("kind", "title", "category", "difficulty", "split", "level", "dtype", "sizes", "tolerance")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def reference_sizes(source: str) -> dict[str, int]:
    """The module-level integer constants of a reference (what [sizes] may name)."""
    found: dict[str, int] = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign):
            try:
                value = expr.evaluate(ast.unparse(node.value), found)
            except expr.ExprError:
                continue
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = value
    return found


def _tolerance(t: Any, where: str, problems: list[str]) -> None:
    if not isinstance(t, Mapping):
        problems.append(f"{where}: expected a table with rtol and atol")
        return
    for key in ("rtol", "atol"):
        value = t.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            problems.append(f"{where}.{key}: expected a non-negative number, got {value!r}")


def check(data: Mapping[str, Any], reference_source: str | None = None) -> list[str]:
    """Every way `data` (a parsed task.toml) breaks the torch schema; empty when it keeps to it."""
    problems: list[str] = []
    for key in sorted(set(data) - _TOP):
        problems.append(f"unknown field {key!r}")
    for key in _REQUIRED:
        if key not in data:
            problems.append(f"missing field {key!r}")
    if problems:
        return problems
    choices = {
        "kind": ("torch",),
        "category": CATEGORIES,
        "difficulty": DIFFICULTIES,
        "split": SPLITS,
        "dtype": DTYPES,
    }
    for key, allowed in choices.items():
        if data[key] not in allowed:
            problems.append(f"{key}: {data[key]!r} is not one of {', '.join(allowed)}")
    if data["level"] not in (1, 2, 3, 4) or isinstance(data["level"], bool):
        problems.append(f"level: expected 1, 2, 3 or 4, got {data['level']!r}")
    for key in ("title", "description", "source"):
        if key in data and not isinstance(data[key], str):
            problems.append(f"{key}: expected a string")
    if not str(data.get("title", "")).strip():
        problems.append("title: empty")
    if "allow_tf32" in data and not isinstance(data["allow_tf32"], bool):
        problems.append("allow_tf32: expected true or false")
    if "tags" in data and not (isinstance(data["tags"], list) and all(isinstance(t, str) for t in data["tags"])):
        problems.append("tags: expected a list of strings")

    known = reference_sizes(reference_source) if reference_source is not None else None
    sizes = data["sizes"]
    all_sizes: list[dict[str, Any]] = []
    if not isinstance(sizes, Mapping) or not isinstance(sizes.get("test"), list) or not sizes.get("test"):
        problems.append("sizes.test: expected a non-empty list of tables")
    else:
        all_sizes += [(f"sizes.test[{i}]", s) for i, s in enumerate(sizes["test"])]
    if isinstance(sizes, Mapping):
        for key in sorted(set(sizes) - {"test", "bench", "cpu_bench"}):
            problems.append(f"sizes: unknown field {key!r}")
        if not isinstance(sizes.get("bench"), Mapping):
            problems.append("sizes.bench: expected a table")
        else:
            all_sizes.append(("sizes.bench", sizes["bench"]))
        if "cpu_bench" in sizes:
            all_sizes.append(("sizes.cpu_bench", sizes["cpu_bench"]))
    names = None
    for where, s in all_sizes:
        if not isinstance(s, Mapping):
            problems.append(f"{where}: expected a table")
            continue
        if names is None:
            names = set(s)
        elif set(s) != names:
            problems.append(f"{where}: names {sorted(s)} differ from the other sizes' {sorted(names)}")
        for name, value in s.items():
            if not _IDENT.match(name):
                problems.append(f"{where}.{name}: not a Python name")
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:  # padding = 0 is a size
                problems.append(f"{where}.{name}: expected a non-negative integer, got {value!r}")
            if known is not None and name not in known:
                problems.append(f"{where}.{name}: reference.py has no module-level integer constant {name!r}")

    tol = data["tolerance"]
    _tolerance(tol, "tolerance", problems)
    if isinstance(tol, Mapping):
        for key in sorted(set(tol) - {"rtol", "atol", "outputs"}):
            problems.append(f"tolerance: unknown field {key!r}")
        for i, out in enumerate(tol.get("outputs", [])):
            _tolerance(out, f"tolerance.outputs[{i}]", problems)
            index = out.get("index") if isinstance(out, Mapping) else None
            if isinstance(index, bool) or not isinstance(index, int) or index < 0:
                problems.append(f"tolerance.outputs[{i}].index: expected a non-negative integer")

    roof = data.get("roofline")
    if roof is not None:
        if not isinstance(roof, Mapping):
            problems.append("roofline: expected a table")
        else:
            for key in sorted(set(roof) - {"bytes", "flops", "compute"}):
                problems.append(f"roofline: unknown field {key!r}")
            if roof.get("compute", "fp32") not in COMPUTE:
                problems.append(f"roofline.compute: {roof['compute']!r} is not one of {', '.join(COMPUTE)}")
            for key in ("bytes", "flops"):
                if key not in roof:
                    continue
                for where, s in all_sizes:
                    if not isinstance(s, Mapping):
                        continue
                    try:
                        if expr.evaluate(roof[key], s) < 0:
                            problems.append(f"roofline.{key}: negative at {where}")
                    except expr.ExprError as exc:
                        problems.append(f"roofline.{key}: {exc}")
                        break
    if "variants" in data and isinstance(sizes, Mapping) and isinstance(sizes.get("bench"), Mapping):
        try:
            parse_torch_spec(data["variants"], dict(sizes["bench"]), lambda at, label: _roofline_problem(roof, at, label),
                             data["dtype"], DTYPES)  # fmt: skip
        except VariantError as exc:
            problems.append(str(exc))
    return problems


def _roofline_problem(roof: Any, sizes: dict[str, int], label: str) -> str | None:
    for key in ("bytes", "flops"):
        if isinstance(roof, Mapping) and key in roof:
            try:
                if expr.evaluate(roof[key], sizes) < 0:
                    return f"roofline.{key} is negative at {label}"
            except expr.ExprError as exc:
                return f"roofline.{key} does not evaluate at {label}: {exc}"
    return None


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)  # a JSON string is a valid TOML basic string
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f"{k} = {_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {type(v).__name__} to TOML")


def dumps(data: Mapping[str, Any]) -> str:
    """TOML for a task.toml: scalars first, then one [table] per mapping (nested mappings inline) and
    [[tolerance.outputs]] as an array of tables; a list of tables is written one table a line."""
    lines = []
    for key, value in data.items():
        if not isinstance(value, Mapping):
            lines.append(f"{key} = {_value(value)}")
    for key, value in data.items():
        if not isinstance(value, Mapping):
            continue
        lines.append(f"\n[{key}]")
        arrays = []
        for sub, item in value.items():
            if isinstance(item, list) and item and all(isinstance(x, Mapping) for x in item) and key == "tolerance":
                arrays.append((sub, item))
            elif isinstance(item, list) and item and all(isinstance(x, Mapping) for x in item):
                lines.append(f"{sub} = [\n" + "".join(f"  {_value(x)},\n" for x in item) + "]")
            else:
                lines.append(f"{sub} = {_value(item)}")
        for sub, items in arrays:
            for item in items:
                lines.append(f"[[{key}.{sub}]]")
                lines.extend(f"{k} = {_value(x)}" for k, x in item.items())
    return "\n".join(lines) + "\n"
