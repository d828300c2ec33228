"""Fitting size expressions to measured shapes and flop counts, for the KernelBench importer's rooflines.

The probe traces a reference at the bench size and at variations of one size at a time (x2, x3, +1, +3).
Every dimension of every tensor is then fitted to a constant, to `(a*s + b)//c` of one size `s` (which
covers a convolution's or a pooling's output extent), or to a product of sizes (a flatten). Byte and
flop expressions are sums and products of those, written in the task expression language
(regrapht/tasks/expr.py) and checked against every traced and every real test run before use.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from itertools import combinations
from math import prod

from regrapht.tasks import expr

ITEMSIZE = {
    "float32": 4,
    "float16": 2,
    "bfloat16": 2,
    "float64": 8,
    "int64": 8,
    "int32": 4,
    "int16": 2,
    "int8": 1,
    "uint8": 1,
    "bool": 1,
}

Point = Mapping[str, int]


def _linear(name: str, a: int, b: int, c: int) -> str:
    head = name if a == 1 else f"{a}*{name}"
    if b:
        head = f"{head} {'+' if b > 0 else '-'} {abs(b)}"
    return head if c == 1 else f"({head})//{c}"


def fit_dim(points: Sequence[Point], values: Sequence[int], names: Sequence[str]) -> str | None:
    """An expression over `names` equal to values[i] at points[i], or None."""
    if len(set(values)) == 1:
        return str(values[0])
    for name in names:
        for c in (1, 2, 3, 4):
            for a in (1, 2, 3, 4):
                low = max(c * d - a * p[name] for p, d in zip(points, values))
                high = min(c * d + c - 1 - a * p[name] for p, d in zip(points, values))
                if low <= high:
                    b = min(range(low, high + 1), key=abs)
                    return _linear(name, a, b, c)
    for width in (2, 3):
        for group in combinations(names, width):
            ratios = {Fraction(d, prod(p[n] for n in group) or 1) for p, d in zip(points, values)}
            if len(ratios) == 1:
                (k,) = ratios
                if k.denominator == 1:
                    return "*".join(([str(k.numerator)] if k != 1 else []) + list(group))
    return None


def _factor(text: str) -> str:
    # a floor division is parenthesised too: a*(h - 1)//2*w is not a*((h - 1)//2)*w
    return f"({text})" if any(op in text for op in " +-/") else text


class Monomials:
    """A sum of coef * product-of-factors terms, printed as an expression."""

    def __init__(self) -> None:
        self.terms: dict[tuple[str, ...], int] = {}

    def add(self, coef: int, factors: Sequence[str]) -> None:
        numeric = prod(int(f) for f in factors if f.isdigit())
        key = tuple(sorted(_factor(f) for f in factors if not f.isdigit()))
        self.terms[key] = self.terms.get(key, 0) + coef * numeric

    def text(self) -> str:
        parts = []
        for key, coef in sorted(self.terms.items(), key=lambda kv: (-len(kv[0]), kv[0])):
            if coef == 0:
                continue
            parts.append("*".join(([str(coef)] if coef != 1 or not key else []) + list(key)))
        return " + ".join(parts) or "0"


def shape_exprs(points: Sequence[Point], shapes: Sequence[Sequence[int]], names: Sequence[str]) -> list[str] | None:
    """One expression per dimension of a tensor traced at every point (same rank at each), or None."""
    ranks = {len(s) for s in shapes}
    if len(ranks) != 1:
        return None
    dims = []
    for axis in range(ranks.pop()):
        fitted = fit_dim(points, [s[axis] for s in shapes], names)
        if fitted is None:
            return None
        dims.append(fitted)
    return dims


def numel_text(dims: Sequence[str]) -> str:
    m = Monomials()
    m.add(1, list(dims))
    return m.text()


def holds(text: str, points: Sequence[Point], values: Sequence[int]) -> bool:
    try:
        return all(expr.evaluate(text, p) == v for p, v in zip(points, values))
    except expr.ExprError:
        return False


def fit_flops(
    points: Sequence[Point], counts: Sequence[int], bench: Point, names: Sequence[str], factors: Sequence[str]
) -> str | None:
    """`coef * product(factor**e)` equal to the counts, with per-size factors among `names` and the fitted
    dimension expressions `factors`; the exponent of each is read from the points that vary one size."""
    base = counts[points.index(bench)] if bench in points else None
    if not base:
        return None
    chosen: list[str] = []
    for name in names:
        varied = [(p, n) for p, n in zip(points, counts) if p != bench and p[name] != bench[name]]
        if not varied or all(n == base for _, n in varied):
            continue
        options = [name] + [f for f in factors if expr.names_in(f) == {name} and f != name]
        for option, power in ((o, e) for e in (1, 2, 3) for o in options):
            at = expr.evaluate(option, bench)
            if at and all(
                Fraction(n, base) == Fraction(expr.evaluate(option, p), at) ** power for p, n in varied
            ):
                chosen.extend([option] * power)
                break
        else:
            return None
    coef = Fraction(base, prod(expr.evaluate(f, bench) for f in chosen) or 1)
    body = "*".join(_factor(f) for f in chosen)
    if coef.denominator == 1:
        text = "*".join(([str(coef.numerator)] if coef != 1 or not body else []) + ([body] if body else []))
    else:
        text = f"{coef.numerator}*{body}//{coef.denominator}" if body else None
    return text if text and holds(text, points, counts) else None
