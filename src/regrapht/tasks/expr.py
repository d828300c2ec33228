"""Safe evaluation of the integer size expressions used in task files ("n*m", "n+1", "ceil_div(n, 32)")."""

from __future__ import annotations

import ast
from collections.abc import Mapping


class ExprError(ValueError):
    """An expression that is malformed or uses something other than integers and size names."""


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


_FUNCTIONS = {"min": min, "max": max, "ceil_div": _ceil_div}

_BINOPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a**b,
}


def names_in(expression: str) -> set[str]:
    """The size names an expression refers to (raises ExprError when it does not parse)."""
    tree = _parse(expression)
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id not in _FUNCTIONS}


def evaluate(expression: str | int, sizes: Mapping[str, int]) -> int:
    """Evaluate an integer expression over the given size values."""
    if isinstance(expression, bool):
        raise ExprError(f"expected an integer expression, got {expression!r}")
    if isinstance(expression, int):
        return expression
    return _eval(_parse(expression).body, sizes, expression)


def _parse(expression: str) -> ast.Expression:
    if not isinstance(expression, str) or not expression.strip():
        raise ExprError(f"expected an integer expression, got {expression!r}")
    try:
        return ast.parse(expression.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExprError(f"cannot parse expression {expression!r}: {exc.msg}") from None


def _eval(node: ast.AST, sizes: Mapping[str, int], source: str) -> int:
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.Name):
        if node.id not in sizes:
            known = ", ".join(sorted(sizes)) or "none"
            raise ExprError(f"expression {source!r} uses unknown size {node.id!r} (known: {known})")
        return int(sizes[node.id])
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        left, right = _eval(node.left, sizes, source), _eval(node.right, sizes, source)
        if isinstance(node.op, (ast.FloorDiv, ast.Mod)) and right == 0:
            raise ExprError(f"expression {source!r} divides by zero")
        return _BINOPS[type(node.op)](left, right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_eval(node.operand, sizes, source)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in _FUNCTIONS
        and not node.keywords
    ):
        args = [_eval(arg, sizes, source) for arg in node.args]
        if node.func.id == "ceil_div" and (len(args) != 2 or args[1] == 0):
            raise ExprError(f"expression {source!r}: ceil_div takes two arguments, the second non-zero")
        return int(_FUNCTIONS[node.func.id](*args))
    raise ExprError(
        f"expression {source!r} may only use integers, size names, + - * // % **, min, max and ceil_div"
    )
