"""Safe evaluation of the integer size expressions used in task files ("n*m", "n+1", "ceil_div(n, 32)",
"N*log2(N)"), and of the conditions a task requires of its sizes ("is_pow2(N)", "M >= 2 and M % 4 == 0")."""

from __future__ import annotations

import ast
from collections.abc import Mapping


class ExprError(ValueError):
    """An expression that is malformed or uses something other than integers and size names."""


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _log2(a: int) -> int:
    """floor(log2(a)), exact on integers (a float log2 rounds 2**53 - 1 up)."""
    if a <= 0:
        raise ValueError(f"log2 of {a}: the argument must be positive")
    return a.bit_length() - 1


def _ceil_log2(a: int) -> int:
    if a <= 0:
        raise ValueError(f"ceil_log2 of {a}: the argument must be positive")
    return (a - 1).bit_length()


def _pow2(a: int) -> int:
    if a < 0 or a > 62:
        raise ValueError(f"pow2 of {a}: the exponent must be in 0..62")
    return 1 << a


def _is_pow2(a: int) -> int:
    return int(a > 0 and a & (a - 1) == 0)


# name -> (function, number of arguments; None: one or more)
_FUNCTIONS = {
    "min": (min, None),
    "max": (max, None),
    "ceil_div": (_ceil_div, 2),
    "log2": (_log2, 1),
    "ceil_log2": (_ceil_log2, 1),
    "pow2": (_pow2, 1),
    "is_pow2": (_is_pow2, 1),
}
FUNCTION_NAMES: tuple[str, ...] = tuple(_FUNCTIONS)

_COMPARE = {
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
}

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


def holds(condition: str, sizes: Mapping[str, int]) -> bool:
    """Whether a condition on the sizes holds: an expression with comparisons (== != < <= > >=),
    `and`, `or` and `not`; a bare integer expression holds when it is non-zero."""
    return bool(_eval(_parse(condition).body, sizes, condition, conditions=True))


def _parse(expression: str) -> ast.Expression:
    if not isinstance(expression, str) or not expression.strip():
        raise ExprError(f"expected an integer expression, got {expression!r}")
    try:
        return ast.parse(expression.strip(), mode="eval")
    except SyntaxError as exc:
        raise ExprError(f"cannot parse expression {expression!r}: {exc.msg}") from None


def _eval(node: ast.AST, sizes: Mapping[str, int], source: str, conditions: bool = False) -> int:
    if conditions:
        if isinstance(node, ast.Compare):
            left = _eval(node.left, sizes, source)
            for op, right_node in zip(node.ops, node.comparators):
                if type(op) not in _COMPARE:
                    break
                right = _eval(right_node, sizes, source)
                if not _COMPARE[type(op)](left, right):
                    return 0
                left = right
            else:
                return 1
        if isinstance(node, ast.BoolOp):
            values = (_eval(v, sizes, source, True) for v in node.values)
            return int(all(values) if isinstance(node.op, ast.And) else any(values))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            return int(not _eval(node.operand, sizes, source, True))
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
        function, arity = _FUNCTIONS[node.func.id]
        args = [_eval(arg, sizes, source) for arg in node.args]
        if (arity is not None and len(args) != arity) or not args:
            count = f"{arity} argument{'s' if arity != 1 else ''}" if arity else "one or more arguments"
            raise ExprError(f"expression {source!r}: {node.func.id} takes {count}, got {len(args)}")
        if node.func.id == "ceil_div" and args[1] == 0:
            raise ExprError(f"expression {source!r}: ceil_div by zero")
        try:
            return int(function(*args))
        except ValueError as exc:
            raise ExprError(f"expression {source!r}: {exc}") from None
    allowed = ", ".join(FUNCTION_NAMES)
    raise ExprError(
        f"expression {source!r} may only use integers, size names, + - * // % ** and {allowed}"
        + ("; conditions add == != < <= > >=, and, or, not" if conditions else "")
    )
