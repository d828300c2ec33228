"""Reading a KernelBench-layout module without running it: its entry points and its size constants.

A module-level integer constant is a size the harness may set (by assigning the module global before
calling get_inputs()/get_init_inputs()) only if nothing reads it while the module loads: `bias_shape =
(out_channels, 1, 1)` is computed once at import, so a harness that changed `out_channels` afterwards
would leave `bias_shape` stale. Such constants are pinned at their value and the report says why.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from regrapht.tasks import expr

ENTRY_POINTS = ("get_inputs", "get_init_inputs")


class SourceProblem(ValueError):
    """A module the importer cannot convert; the message says why."""


@dataclass
class Source:
    text: str
    docstring: str
    ints: dict[str, int]  # every module-level integer constant, in order
    sizes: list[str]  # the ones the harness may set
    pinned: dict[str, str] = field(default_factory=dict)  # constant -> what reads it at import
    unused: list[str] = field(default_factory=list)
    others: dict[str, str] = field(default_factory=dict)  # non-integer constants, as written
    imports: list[str] = field(default_factory=list)


def _loads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _import_time_loads(node: ast.stmt) -> set[str]:
    """Names a top-level statement reads while the module loads (function bodies run later)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return set().union(*(_loads(d) for d in node.decorator_list + node.args.defaults), set())
    if isinstance(node, ast.ClassDef):
        found: set[str] = set()
        for part in node.bases + node.keywords + node.decorator_list:
            found |= _loads(part)
        for stmt in node.body:
            found |= _import_time_loads(stmt)
        return found
    return _loads(node)


def read_source(text: str) -> Source:
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise SourceProblem(f"syntax error at line {exc.lineno}: {exc.msg}") from None
    top = {n.name: n for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))}
    model = top.get("Model")
    if not isinstance(model, ast.ClassDef):
        raise SourceProblem("no class Model at module level")
    missing = [f"{name}()" for name in ENTRY_POINTS if not isinstance(top.get(name), ast.FunctionDef)]
    if missing:
        raise SourceProblem(f"no function {' or '.join(missing)} at module level")

    ints: dict[str, int] = {}
    others: dict[str, str] = {}
    read_at_import: dict[str, str] = {}  # name -> the first statement that reads it at import
    imports: list[str] = []
    for node in tree.body:
        for name in _import_time_loads(node):
            read_at_import.setdefault(name, _describe(node))
        if isinstance(node, ast.Import):
            imports += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            imports.append(node.module or "")
        if isinstance(node, ast.Assign) and all(isinstance(t, ast.Name) for t in node.targets):
            names = [t.id for t in node.targets]  # `height = width = 128` sets both
            value_text = ast.unparse(node.value)
            try:
                value = expr.evaluate(value_text, ints)  # 2048 * 2, or M * 2 (then M is read at import)
            except expr.ExprError:
                value = None
            if value is not None and not isinstance(value, bool) and value >= 0:  # -1 is a bound, not an extent
                for name in names:
                    ints[name] = value
                    others.pop(name, None)
                continue
            for name in names:
                others[name] = value_text
                ints.pop(name, None)

    used: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for stmt in node.body:
                used |= _loads(stmt)
    pinned = {n: read_at_import[n] for n in ints if n in read_at_import}
    unused = [n for n in ints if n not in used and n not in pinned]
    sizes = [n for n in ints if n in used and n not in pinned]
    return Source(
        text=text,
        docstring=ast.get_docstring(model) or "",
        ints=ints,
        sizes=sizes,
        pinned=pinned,
        unused=unused,
        others=others,
        imports=imports,
    )


def _describe(node: ast.stmt) -> str:
    if isinstance(node, ast.Assign):
        return " = ".join(ast.unparse(t) for t in node.targets)
    if isinstance(node, ast.ClassDef):
        return f"class {node.name}"
    return ast.unparse(node).splitlines()[0][:60]


def words(stem: str) -> list[str]:
    """The words of a problem's file name: `19_ReLU` -> ['relu']."""
    return [w for w in re.split(r"[^a-z0-9]+", stem.lower()) if w and not w.isdigit()]


def title(stem: str) -> str:
    text = re.sub(r"^\d+_", "", stem).replace("_", " ")
    return re.sub(r"\s+", " ", text).strip() or stem


def task_id(stem: str, level: int | None) -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", stem.lower()).strip("_")
    return f"kb_l{level}_{slug}" if level is not None else f"kb_{slug}"
