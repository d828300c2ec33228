"""Task variants: a task with its free bench sizes and its input seed drawn for one RL episode.

A policy trained on fixed problems can memorize a problem's sizes or outputs; drawing them per episode
(problem randomization, as Makora) takes that away. A task declares what may vary in `[variants]`
(docs/task-format.md); tasks without the section get a default (`default_spec`). Only the bench size
varies: the test sizes stay as the task declares them (tiny and odd cases chosen by hand), and the
evaluator checks the outputs of timed calls at the bench size too, so a kernel that special-cases
the test sizes still fails at a drawn bench size.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from regrapht.tasks import expr

if TYPE_CHECKING:
    from regrapht.tasks.model import Task

# A variant's id is the task's id, this mark, and the variant's label: the evaluator seeds inputs from
# the id, so each variant draws inputs of its own.
VARIANT_MARK = "@"
# The default range of a single-size task's one size: this fraction of its bench value up to the value.
DEFAULT_LOW_FRACTION = 0.25
_RANGE_KEYS = {"low", "high", "multiple_of"}
_KEYS = {"enabled", "sizes", "derived"}
# Torch tasks may also draw their dtype (`[[variants.dtypes]]`); serial tasks' element types are fixed.
_TORCH_KEYS = _KEYS | {"dtypes"}


class VariantError(ValueError):
    """A `[variants]` section that cannot be used; the message names the field."""


@dataclass(frozen=True)
class SizeRange:
    """A free size's bench value: drawn log-uniformly from [low, high], then rounded down to a multiple
    of `multiple_of` (never below `low`)."""

    low: int
    high: int
    multiple_of: int = 1

    def draw(self, rng: np.random.Generator) -> int:
        value = int(math.exp(rng.uniform(math.log(self.low), math.log(self.high + 1))))
        value = min(max(value, self.low), self.high)
        value -= value % self.multiple_of
        return value if value >= self.low else value + self.multiple_of

    def corners(self) -> tuple[int, int]:
        """The smallest and largest values a draw can give."""
        low = -(-self.low // self.multiple_of) * self.multiple_of
        return low, self.high - self.high % self.multiple_of


@dataclass(frozen=True)
class DtypeChoice:
    """A dtype a torch task's variant may compute in besides the declared one, with the tolerance
    that dtype needs (a bfloat16 variant cannot meet a float32 tolerance)."""

    dtype: str
    rtol: float
    atol: float


@dataclass(frozen=True)
class VariantSpec:
    """What may vary: free sizes with their ranges, sizes derived from them, other dtypes (torch tasks),
    and whether to vary at all. `declared` says whether the task wrote the section (False: the
    default applies)."""

    enabled: bool = True
    sizes: dict[str, SizeRange] = field(default_factory=dict)
    derived: dict[str, str] = field(default_factory=dict)
    declared: bool = False
    dtypes: tuple[DtypeChoice, ...] = ()

    def describe(self) -> str:
        if not self.enabled:
            return "off (sizes fixed; the input seed still varies)"
        parts = [f"{n} in [{r.low}, {r.high}]" + (f" step {r.multiple_of}" if r.multiple_of > 1 else "")
                 for n, r in self.sizes.items()]
        parts += [f"{n} = {e}" for n, e in self.derived.items()]
        if self.dtypes:
            parts.append("dtype also " + ", ".join(f"{d.dtype} (rtol={d.rtol:g}, atol={d.atol:g})" for d in self.dtypes))
        return ", ".join(parts) if parts else "input seed only (no free size)"


@dataclass(frozen=True)
class Variant:
    """One drawn variant: its label (a reproducible name), its bench sizes, and the task it makes."""

    label: str
    bench_size: dict[str, int]
    task: Task
    dtype: str | None = None  # torch tasks: the dtype this variant computes in

    @property
    def base_id(self) -> str:
        return self.task.id.split(VARIANT_MARK, 1)[0]

    def summary(self) -> dict[str, Any]:
        out = {"task": self.base_id, "variant": self.label, "id": self.task.id, "bench_size": dict(self.bench_size)}
        if self.dtype is not None:
            out["dtype"] = self.dtype
        return out


def default_spec(bench: dict[str, int]) -> VariantSpec:
    """Tasks without `[variants]`: a task with a single size (an element count) scales it within
    [bench/4, bench], which every such task in the suite accepts; a task with several sizes keeps them,
    since their relations (a frame count from a length and a hop, a nonzero count below rows*cols)
    cannot be guessed, and varies only its input seed until it declares its ranges."""
    if len(bench) == 1:
        (name, value), = bench.items()
        if value >= 4:
            return VariantSpec(sizes={name: SizeRange(max(1, math.ceil(value * DEFAULT_LOW_FRACTION)), value)})
    return VariantSpec()


def parse_torch_spec(raw: Any, bench: dict[str, int], check: Any, dtype: str, known_dtypes: tuple[str, ...]) -> VariantSpec:
    """A torch task's `[variants]`: the serial format's sizes, derived and enabled, plus
    `[[variants.dtypes]]` (dtype, rtol, atol). Without the section nothing but the input seed varies:
    a torch task's sizes are tied together (channels and groups, heads and widths) in ways that
    cannot be guessed, so no default range is assumed."""
    if raw is None:
        return VariantSpec()
    if not isinstance(raw, dict):
        raise VariantError(f"variants: expected a table, got {raw!r}")
    unknown = set(raw) - _TORCH_KEYS
    if unknown:
        raise VariantError(f"variants: unknown field(s) {', '.join(sorted(unknown))} (known: {', '.join(sorted(_TORCH_KEYS))})")
    rest = {k: v for k, v in raw.items() if k != "dtypes"}
    dtypes = _dtypes(raw.get("dtypes", []), dtype, known_dtypes)
    if dtypes and rest.get("enabled") is False:
        raise VariantError("variants: enabled = false takes no dtypes")
    if not rest.get("sizes") and not rest.get("derived") and rest.get("enabled", True):
        if not dtypes:
            raise VariantError("variants: name a free size in variants.sizes or a dtype in [[variants.dtypes]] (or set enabled = false)")
        return VariantSpec(enabled=True, declared=True, dtypes=dtypes)
    return dataclasses.replace(parse_spec(rest, bench, check), dtypes=dtypes)


def _dtypes(raw: Any, declared: str, known: tuple[str, ...]) -> tuple[DtypeChoice, ...]:
    if not isinstance(raw, list):
        raise VariantError("variants.dtypes: expected an array of tables ([[variants.dtypes]] with dtype, rtol, atol)")
    out: list[DtypeChoice] = []
    for i, entry in enumerate(raw):
        where = f"variants.dtypes[{i}]"
        if not isinstance(entry, dict) or set(entry) != {"dtype", "rtol", "atol"}:
            raise VariantError(f"{where}: expected a table with exactly dtype, rtol and atol, got {entry!r}")
        name = entry["dtype"]
        if name not in known:
            raise VariantError(f"{where}.dtype: {name!r} is not one of {', '.join(known)}")
        if name == declared or any(d.dtype == name for d in out):
            raise VariantError(f"{where}.dtype: {name!r} is already a choice (the task's dtype is {declared!r})")
        for key in ("rtol", "atol"):
            v = entry[key]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0:
                raise VariantError(f"{where}.{key}: expected a non-negative number, got {v!r}")
        out.append(DtypeChoice(name, float(entry["rtol"]), float(entry["atol"])))
    return tuple(out)


def parse_spec(raw: Any, bench: dict[str, int], check: Any) -> VariantSpec:
    """Validate a `[variants]` table against the task's bench sizes. `check(sizes, label)` is the
    loader's check that lengths and roofline expressions hold at a size; it runs at the smallest and
    largest corner of the ranges. Raises VariantError naming the field."""
    if raw is None:
        return default_spec(bench)
    if not isinstance(raw, dict):
        raise VariantError(f"variants: expected a table, got {raw!r}")
    unknown = set(raw) - _KEYS
    if unknown:
        raise VariantError(f"variants: unknown field(s) {', '.join(sorted(unknown))} (known: {', '.join(sorted(_KEYS))})")
    enabled = raw.get("enabled", True)
    if not isinstance(enabled, bool):
        raise VariantError(f"variants.enabled: expected true or false, got {enabled!r}")
    sizes_raw = raw.get("sizes", {})
    derived_raw = raw.get("derived", {})
    if not isinstance(sizes_raw, dict) or not isinstance(derived_raw, dict):
        raise VariantError("variants.sizes and variants.derived must be tables")
    if not enabled and (sizes_raw or derived_raw):
        raise VariantError("variants: enabled = false takes no sizes or derived")
    if enabled and not sizes_raw:
        raise VariantError("variants.sizes: name at least one free size (or set enabled = false)")
    sizes = {name: _range(name, spec, bench) for name, spec in sizes_raw.items()}
    derived: dict[str, str] = {}
    for name, text in derived_raw.items():
        where = f"variants.derived.{name}"
        if name not in bench:
            raise VariantError(f"{where}: no size {name!r} in sizes.bench (sizes: {', '.join(bench)})")
        if name in sizes:
            raise VariantError(f"{where}: {name!r} is also a free size; a size is drawn or derived, not both")
        if not isinstance(text, str):
            raise VariantError(f"{where}: expected an integer expression as a string, got {text!r}")
        try:
            used = expr.names_in(text)
        except expr.ExprError as exc:
            raise VariantError(f"{where}: {exc}") from None
        if used - set(bench):
            raise VariantError(f"{where}: uses unknown size(s) {', '.join(sorted(used - set(bench)))}")
        if used & set(derived_raw):
            raise VariantError(f"{where}: uses derived size(s) {', '.join(sorted(used & set(derived_raw)))}; "
                               "derive from drawn or fixed sizes only")
        derived[name] = text
    spec = VariantSpec(enabled, sizes, derived, declared=True)
    for label, corner in (("smallest", 0), ("largest", 1)):
        drawn = {n: r.corners()[corner] for n, r in sizes.items()}
        try:
            at = resolve(spec, bench, drawn)
        except VariantError as exc:
            raise VariantError(f"{exc} (at the {label} corner of the ranges)") from None
        problem = check(at, f"the {label} variant {at}")
        if problem:
            raise VariantError(f"variants: {problem}")
    return spec


def _range(name: str, spec: Any, bench: dict[str, int]) -> SizeRange:
    where = f"variants.sizes.{name}"
    if name not in bench:
        raise VariantError(f"{where}: no size {name!r} in sizes.bench (sizes: {', '.join(bench)})")
    if not isinstance(spec, dict) or set(spec) - _RANGE_KEYS or not {"low", "high"} <= set(spec):
        raise VariantError(f"{where}: expected {{ low = ..., high = ... }} with optional multiple_of, got {spec!r}")
    values = {}
    for key in spec:
        v = spec[key]
        if not isinstance(v, int) or isinstance(v, bool) or v < 1:
            raise VariantError(f"{where}.{key}: expected a positive integer, got {v!r}")
        values[key] = v
    r = SizeRange(values["low"], values["high"], values.get("multiple_of", 1))
    if r.low > r.high:
        raise VariantError(f"{where}: low ({r.low}) is above high ({r.high})")
    low, high = r.corners()
    if low > high:
        raise VariantError(f"{where}: no multiple of {r.multiple_of} lies in [{r.low}, {r.high}]")
    return r


def resolve(spec: VariantSpec, bench: dict[str, int], drawn: dict[str, int]) -> dict[str, int]:
    """The full bench sizes of a variant: drawn sizes, then derived ones, the rest as declared."""
    sizes = {**bench, **drawn}
    for name, text in spec.derived.items():
        try:
            value = expr.evaluate(text, sizes)
        except expr.ExprError as exc:
            raise VariantError(f"variants.derived.{name}: {exc}") from None
        if value < 0:
            raise VariantError(f"variants.derived.{name}: is negative ({value}) at {drawn}")
        sizes[name] = value
    return sizes


# Draws tried for sizes that meet a task's preconditions before a variant keeps the bench sizes.
REQUIRE_TRIES = 64


def draw(task: Task, seed: int, index: int) -> Variant:
    """Variant `index` of a task under a draw seed: the same (task, seed, index) gives the same variant
    on every machine. The label hashes the three, so it names the variant across runs."""
    key = hashlib.sha256(f"{task.id}\0{seed}\0{index}".encode()).digest()
    rng = np.random.default_rng(int.from_bytes(key[:8], "little"))
    spec = task.variants
    sizes = dict(task.bench_size)
    # A draw must meet the task's preconditions (`require`, such as a power of two), which ranges
    # cannot express: draw again, and keep the bench sizes (a seed-only variant) if none does.
    requires = getattr(task, "requires", ())  # torch tasks declare no preconditions
    for _ in range(REQUIRE_TRIES if spec.enabled and spec.sizes else 0):
        drawn = {n: r.draw(rng) for n, r in spec.sizes.items()}
        candidate = resolve(spec, task.bench_size, drawn)
        if all(expr.holds(condition, candidate) for condition in requires):
            sizes = candidate
            break
    if spec.enabled and not spec.sizes:
        sizes = resolve(spec, task.bench_size, {})
    label = key[8:14].hex()
    varied = dataclasses.replace(task, id=f"{task.id}{VARIANT_MARK}{label}", bench_size=sizes)
    if spec.enabled and spec.dtypes:  # drawn after the sizes, so adding dtypes keeps every size draw
        pick = int(rng.integers(len(spec.dtypes) + 1))
        if pick:
            varied = varied.with_dtype(spec.dtypes[pick - 1])  # type: ignore[attr-defined]
    dtype = getattr(varied, "dtype", None) if getattr(task, "kind", None) == "torch" else None
    return Variant(label, sizes, varied, dtype)


def size_signature(variant: Variant) -> tuple[tuple[str, int | str], ...]:
    """What two variants must differ in to be told apart by a kernel: their bench sizes (and, for a
    torch task, the dtype)."""
    sizes = tuple(sorted(variant.bench_size.items()))
    return sizes if variant.dtype is None else (*sizes, ("dtype", variant.dtype))
