"""Operation peaks per SM per clock, by GPU architecture and compute unit (data/gpu_peaks.toml)."""

from __future__ import annotations

import sys
from functools import cache
from importlib import resources
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


@cache
def _table() -> dict[str, Any]:
    return tomllib.loads(resources.files("regrapht").joinpath("data/gpu_peaks.toml").read_text())


def units() -> dict[str, str]:
    return dict(_table()["units"])


def arch_key(major: int | None, minor: int | None) -> str | None:
    return None if major is None or minor is None else f"{int(major)}.{int(minor)}"


def unit_rate(arch: str | None, unit: str) -> int | None:
    """Operations per SM per clock of `unit` on `arch`, or None where the table has no figure."""
    rates = _table()["arch"].get(arch or "")
    return None if rates is None else rates.get(unit)


def bound_rate(arch: str | None) -> int:
    """The fastest rate of the architecture: the plausibility gate divides by this, so no honest
    kernel, whatever unit it uses, can be called faster than physics."""
    rates = _table()["arch"].get(arch or "")
    return max(rates.values()) if rates else int(_table()["unknown_bound"])
