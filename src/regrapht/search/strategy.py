"""The strategy protocol and the registry of strategies.

A strategy spends a budget of model generations on one task and keeps the best correct code it found.
It is a small object with parameters (dataclass fields, documented defaults) and a `run(ctx)`
generator that takes steps through `SearchContext.attempt` (see `regrapht.search.context`).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Protocol, runtime_checkable

from regrapht.search.context import SearchContext, Steps


@runtime_checkable
class Strategy(Protocol):
    name: str  # registry name, e.g. "mcgs"
    needs_graph: bool  # whether it reads the ReGraph
    default_budget: int  # generations when the caller does not say

    def params(self) -> dict[str, Any]:
        """Its parameters, as recorded with every run."""
        ...

    def run(self, ctx: SearchContext) -> Steps:
        """Spend ctx's budget; the context records attempts and the best one."""
        ...


class ParamsMixin:
    def params(self) -> dict[str, Any]:
        return dataclasses.asdict(self)  # type: ignore[call-overload]


def _coerce(value: Any, kind: Any, name: str, strategy: str) -> Any:
    if not isinstance(value, str):
        return value
    text = value.strip()
    kinds = str(kind)
    try:
        if kinds in ("bool", "<class 'bool'>"):
            low = text.lower()
            if low in ("1", "true", "yes", "on"):
                return True
            if low in ("0", "false", "no", "off"):
                return False
            raise ValueError
        if kinds in ("int", "<class 'int'>"):
            return int(text)
        if kinds in ("float", "<class 'float'>"):
            return float(text)
    except ValueError:
        raise ValueError(f"strategy {strategy}: parameter {name} must be a {kinds}, got {value!r}") from None
    return text


def strategy_names() -> list[str]:
    return sorted(_registry())


def _registry() -> dict[str, type]:
    from regrapht.search.baselines import (
        ContrastiveStrategy,
        CoTStrategy,
        GreedyStrategy,
        RAGStrategy,
        RefineStrategy,
        StandardStrategy,
        WalkStrategy,
    )
    from regrapht.search.mcgs import MCGS

    classes = [
        MCGS,
        StandardStrategy,
        CoTStrategy,
        RAGStrategy,
        WalkStrategy,
        GreedyStrategy,
        RefineStrategy,
        ContrastiveStrategy,
    ]
    return {c.name: c for c in classes}


def make_strategy(name: str, **params: Any) -> Strategy:
    """A strategy by registry name with parameters (strings are converted to the field's type)."""
    registry = _registry()
    if name not in registry:
        raise ValueError(f"unknown strategy {name!r}; known: {', '.join(sorted(registry))}")
    cls = registry[name]
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(params) - set(fields))
    if unknown:
        raise ValueError(
            f"strategy {name}: unknown parameter(s) {', '.join(unknown)}; known: {', '.join(sorted(fields)) or 'none'}"
        )
    values = {k: _coerce(v, fields[k].type, k, name) for k, v in params.items()}
    return cls(**values)


def strategy_help() -> str:
    """Every strategy with its parameters and defaults, one block each (for --help and docs)."""
    lines = []
    for name, cls in sorted(_registry().items()):
        doc = (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""
        lines.append(f"{name}: {doc} (default budget {cls.default_budget} generations)")
        for f in dataclasses.fields(cls):
            lines.append(f"    {f.name} = {f.default!r}")
    return "\n".join(lines)
