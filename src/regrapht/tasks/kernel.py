"""The `kernel` convention's launch configuration (`[launch]` in task.toml), validated at every size.

A kernel task declares its function as one `__global__` kernel, and how the harness launches it:

    [launch]
    threads = "N"                  # at least N threads (1-D); or a list, one per dimension
    block = 256                    # optional with `threads` (default 256); a list for 2-D/3-D
    # or, explicitly:
    grid = ["ceil_div(N, 32)", "ceil_div(N, 32)"]
    block = [32, 32]
    shared = "8*256"               # dynamic shared memory per block, bytes (default 0)

Every expression may use only the kernel's size parameters (the harness computes the configuration
from the values it passes), and is checked at every test and bench size against the limits every
CUDA GPU since Volta has.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from regrapht.tasks import expr

MAX_BLOCK_THREADS = 1024
MAX_BLOCK_DIMS = (1024, 1024, 64)
MAX_GRID_DIMS = (2**31 - 1, 65535, 65535)
# The most dynamic shared memory a block may opt in to on the smallest of sm_80/sm_90 (A100: 163 KiB);
# above 48 KiB the harness opts in (cudaFuncSetAttribute) before the launch.
MAX_SHARED_BYTES = 163 * 1024
DEFAULT_BLOCK = 256
_KEYS = ("threads", "grid", "block", "shared")


class LaunchError(ValueError):
    """A malformed or impossible launch; the message names the field (`launch.grid[1]`, ...)."""


@dataclass(frozen=True)
class Launch:
    grid: tuple[str, ...]  # expressions, one per dimension (x, y, z)
    block: tuple[str, ...]
    shared: str = "0"
    threads: tuple[str, ...] = ()  # the declared "at least" counts, when the grid was derived from them

    def dims(self, sizes: dict[str, int]) -> tuple[tuple[int, ...], tuple[int, ...], int]:
        """(grid, block, shared bytes) at the given sizes."""
        return (
            tuple(expr.evaluate(g, sizes) for g in self.grid),
            tuple(expr.evaluate(b, sizes) for b in self.block),
            expr.evaluate(self.shared, sizes),
        )

    def describe(self) -> str:
        text = f"grid ({', '.join(self.grid)}), block ({', '.join(self.block)})"
        if self.shared != "0":
            text += f", {self.shared} bytes of dynamic shared memory"
        if self.threads:
            text += f": at least {' x '.join(self.threads)} threads"
        return text


def _exprs(raw: Any, where: str) -> tuple[str, ...]:
    items = raw if isinstance(raw, list) else [raw]
    if not 1 <= len(items) <= 3:
        raise LaunchError(f"{where}: expected 1 to 3 expressions (x, y, z), got {len(items)}")
    out = []
    for i, item in enumerate(items):
        if isinstance(item, bool) or not isinstance(item, (int, str)):
            raise LaunchError(f"{where}[{i}]: expected an integer expression, got {item!r}")
        out.append(str(item))
    return tuple(out)


def parse_launch(raw: Any) -> Launch:
    """A `[launch]` table -> Launch (not yet checked against sizes: `check_launch`)."""
    if not isinstance(raw, dict):
        raise LaunchError("launch: the kernel convention needs a [launch] table (threads or grid, block)")
    unknown = set(raw) - set(_KEYS)
    if unknown:
        raise LaunchError(f"launch: unknown field(s) {', '.join(sorted(unknown))} (known: {', '.join(_KEYS)})")
    shared = str(raw.get("shared", 0))
    if "threads" in raw:
        if "grid" in raw:
            raise LaunchError("launch: give `threads` (the harness derives the grid) or `grid`, not both")
        threads = _exprs(raw["threads"], "launch.threads")
        if "block" in raw:
            block = _exprs(raw["block"], "launch.block")
        else:
            block = (str(DEFAULT_BLOCK),) if len(threads) == 1 else ("16", "16", "4")[: len(threads)]
        if len(block) != len(threads):
            raise LaunchError(f"launch.block: has {len(block)} dimension(s) but `threads` has {len(threads)}")
        # At least one block, so a size of zero still launches (and the kernel's bounds check is judged).
        grid = tuple(f"max(1, ceil_div({t}, {b}))" for t, b in zip(threads, block))
        return Launch(grid, block, shared, threads)
    if "grid" not in raw or "block" not in raw:
        raise LaunchError("launch: give `threads` (at least that many threads), or both `grid` and `block`")
    grid, block = _exprs(raw["grid"], "launch.grid"), _exprs(raw["block"], "launch.block")
    return Launch(grid, block, shared)


def check_launch(launch: Launch, allowed: set[str], sizes: list[tuple[str, dict[str, int]]]) -> None:
    """Every expression uses only `allowed` names, and gives a launch CUDA accepts at every size
    ((label, sizes) pairs, such as ("sizes.test[0]", {...}))."""
    fields = [("launch.grid", launch.grid), ("launch.block", launch.block), ("launch.shared", (launch.shared,))]
    for where, exprs in fields:
        for i, text in enumerate(exprs):
            label = f"{where}[{i}]" if where != "launch.shared" else where
            try:
                unknown = expr.names_in(text) - allowed
            except expr.ExprError as exc:
                raise LaunchError(f"{label}: {exc}") from None
            if unknown:
                raise LaunchError(
                    f"{label}: uses {', '.join(sorted(unknown))}, which the kernel does not receive "
                    f"(launch expressions may use its size parameters: {', '.join(sorted(allowed)) or 'none'})"
                )
    for label, s in sizes:
        try:
            grid, block, shared = launch.dims(s)
        except expr.ExprError as exc:
            raise LaunchError(f"launch: {exc} (at {label})") from None
        at = f"at {label} {s}"
        threads = 1
        for i, b in enumerate(block):
            if not 1 <= b <= MAX_BLOCK_DIMS[i]:
                raise LaunchError(f"launch.block[{i}]: {b} {at}; a block's dimension {i} is 1..{MAX_BLOCK_DIMS[i]}")
            threads *= b
        if threads > MAX_BLOCK_THREADS:
            raise LaunchError(f"launch.block: {threads} threads per block {at}; at most {MAX_BLOCK_THREADS}")
        for i, g in enumerate(grid):
            if not 1 <= g <= MAX_GRID_DIMS[i]:
                raise LaunchError(f"launch.grid[{i}]: {g} {at}; the grid's dimension {i} is 1..{MAX_GRID_DIMS[i]}")
        if not 0 <= shared <= MAX_SHARED_BYTES:
            raise LaunchError(f"launch.shared: {shared} bytes {at}; 0..{MAX_SHARED_BYTES}")
