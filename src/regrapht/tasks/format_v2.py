"""Task format v2 in task.toml: struct element types, outputs' initial values and scalar results,
compound tolerances, preconditions (`require`), the kernel convention's launch, scratch workspaces.
The loader calls these; each raises through `ctx.fail(field, message)`, naming the file and field."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from regrapht.tasks import expr, kernel, structs
from regrapht.tasks.dtypes import DType
from regrapht.tasks.model import Arg, Tolerance
from regrapht.tasks.signature import parse_signature


def declared_structs(data: dict[str, Any], ctx: Any) -> dict[str, DType]:
    try:
        return structs.parse_structs(data.get("structs"))
    except structs.StructError as exc:
        where, _, message = str(exc).partition(": ")
        raise ctx.fail(where, message) from None


def output_declaration(raw: dict[str, Any], ctx: Any, where: str) -> tuple[dict[str, Any], Any, bool]:
    """An output's `initial` value and a missing `length` (a scalar result), rewritten into what the
    rest of the loader knows: an output that starts at a declared value is an inout whose input is
    that value (the harness restores inouts before every call), never perturbed; a scalar result is
    an array of one. Returns (the rewritten table, the declared initial value, scalar result)."""
    role = raw.get("role")
    initial = raw.get("initial")
    if initial is not None and role != "output":
        raise ctx.fail(f"{where}.initial", f"only outputs declare an initial value ({role} arguments do not)")
    scalar_result = role == "output" and "length" not in raw
    if initial is None and not scalar_result:
        return raw, None, False
    table = dict(raw)
    if scalar_result:
        table["length"] = "1"
    if initial is not None:
        if isinstance(initial, bool) or not isinstance(initial, (int, float, dict)):
            raise ctx.fail(
                f"{where}.initial", f"expected a number or a generator table {{ kind = ... }}, got {initial!r}"
            )
        if "generator" in raw or "perturb" in raw:
            raise ctx.fail(where, "an output with `initial` takes no `generator` or `perturb` (it is never perturbed)")
        table["role"] = "inout"
        table["generator"] = {"kind": "constant", "value": initial} if not isinstance(initial, dict) else initial
        table["perturb"] = "none"
    return table, initial, scalar_result


def compound_tolerance(
    raw: Any, dt: DType, ctx: Any, where: str, plain: Callable[..., Tolerance]
) -> Tolerance:
    """A struct's or complex number's tolerance: one for every float field (integer fields exact),
    or a table of per-field tolerances ({ x = { atol = 1e-9 }, id = "exact" })."""
    floats = [f for _, f in dt.fields if f.is_float]
    loosest = floats[0] if floats else None
    if raw is None or raw in ("exact", "custom"):
        if raw is None and loosest is not None:
            return Tolerance("close", loosest.default_rtol, loosest.default_atol)
        return Tolerance(raw or "exact")
    if isinstance(raw, dict) and raw and set(raw) <= {"rtol", "atol"}:
        if loosest is None:
            raise ctx.fail(where, f"{dt.name} has no float field; it is compared exactly")
        return plain(raw, loosest, ctx, where)
    field_names = [name for name, _ in dt.fields]
    if isinstance(raw, dict) and raw and set(raw) <= set(field_names):
        per_field = tuple(
            (name, plain(raw[name], component, ctx, f"{where}.{name}"))
            for name, component in dt.fields
            if name in raw
        )
        if any(t.kind == "custom" for _, t in per_field):
            raise ctx.fail(where, '"custom" applies to a whole output, not to one field')
        return Tolerance("close" if floats else "exact", fields=per_field)
    raise ctx.fail(
        where,
        f'expected "exact", "custom", {{ rtol = ..., atol = ... }} or a table of fields '
        f"({', '.join(field_names)}) to tolerances, got {raw!r}",
    )


def preconditions(
    data: dict[str, Any], ctx: Any, bench: dict[str, int], tests: list[dict[str, int]]
) -> tuple[str, ...]:
    """`require = ["is_pow2(N)", "M >= 2"]`: conditions every test and bench size must meet."""
    raw = data.get("require", [])
    if not isinstance(raw, list) or not all(isinstance(r, str) for r in raw):
        raise ctx.fail("require", f"expected a list of conditions on the sizes, got {raw!r}")
    labelled = [("sizes.bench", bench)] + [(f"sizes.test[{i}]", t) for i, t in enumerate(tests)]
    for i, condition in enumerate(raw):
        for label, s in labelled:
            try:
                met = expr.holds(condition, s)
            except expr.ExprError as exc:
                raise ctx.fail(f"require[{i}]", str(exc)) from None
            if not met:
                raise ctx.fail(f"require[{i}]", f"{condition!r} does not hold at {label} {s}")
    return tuple(raw)


def check_convention(convention: str, signature: str, ctx: Any) -> None:
    is_kernel = signature.lstrip().startswith("__global__")
    if convention == "kernel" and not is_kernel:
        raise ctx.fail("signature", 'the kernel convention declares a kernel: `__global__ void NAME(...)`')
    if convention != "kernel" and is_kernel:
        raise ctx.fail("signature", f'a __global__ kernel needs convention = "kernel" (this task says {convention!r})')


def kernel_launch(
    data: dict[str, Any],
    convention: str,
    args: list[Arg],
    ctx: Any,
    bench: dict[str, int],
    tests: list[dict[str, int]],
) -> kernel.Launch | None:
    if convention != "kernel":
        if "launch" in data:
            raise ctx.fail("launch", 'only the kernel convention (convention = "kernel") declares a launch')
        return None
    allowed = {a.name for a in args if a.role == "size"}
    labelled = [("sizes.bench", bench)] + [(f"sizes.test[{i}]", t) for i, t in enumerate(tests)]
    try:
        launch = kernel.parse_launch(data.get("launch"))
        kernel.check_launch(launch, allowed, labelled)
    except kernel.LaunchError as exc:
        where, _, message = str(exc).partition(": ")
        raise ctx.fail(where, message) from None
    return launch


def check_scratch(signature: str, args: list[Arg], ctx: Any) -> None:
    _, params = parse_signature(signature)
    for param, arg in zip(params, args):
        if arg.role == "scratch" and param.is_const:
            raise ctx.fail("signature", f"parameter {param.name!r} is a scratch workspace: it cannot be const")
