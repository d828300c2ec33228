"""Loading a task folder and validating every field, with errors that name the file and the field."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from regrapht.tasks import expr, format_v2, generators, variants
from regrapht.tasks.dtypes import DTYPES, DType, dtype
from regrapht.tasks.model import (
    COMPUTE_UNITS,
    CONVENTIONS,
    DIFFICULTIES,
    ROLES,
    SPLITS,
    Arg,
    Generator,
    JointGenerator,
    Roofline,
    Task,
    Tolerance,
)
from regrapht.tasks.signature import SignatureError, parse_signature

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

TASK_FILE = "task.toml"
_TOP_LEVEL = {
    "id",
    "title",
    "category",
    "difficulty",
    "split",
    "function",
    "signature",
    "convention",
    "description",
    "tags",
    "args",
    "sizes",
    "generators",
    "roofline",
    "waivers",
    # task format v2 (see the functions at the end of this file)
    "require",
    "launch",
    "structs",
    "variants",
}
# Why a task's naive.cu may break a baseline-fairness rule of `tasks check` (docs/task-format.md).
WAIVERS = ("naive_slower_than_serial", "naive_underfills_gpu")
_ARG_KEYS = {"name", "role", "dtype", "length", "generator", "value", "tolerance", "perturb", "initial"}
PERTURB = ("values", "none")


class TaskError(ValueError):
    """A task folder that cannot be used; the message names the file and the field."""


class _Ctx:
    def __init__(self, path: Path):
        self.path = path

    def fail(self, where: str, message: str) -> TaskError:
        return TaskError(f"{self.path}: {where}: {message}")


def load_task(path: str | Path) -> Task:
    """Load and validate a task folder (or its task.toml)."""
    root = Path(path)
    if root.is_file() and root.name == TASK_FILE:
        root = root.parent
    task_file = root / TASK_FILE
    if not root.is_dir():
        raise TaskError(f"{root}: not a task folder (no such directory)")
    if not task_file.is_file():
        raise TaskError(f"{root}: not a task folder: {TASK_FILE} is missing")
    ctx = _Ctx(task_file)
    try:
        data = tomllib.loads(task_file.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise TaskError(f"{task_file}: invalid TOML: {exc}") from None
    return _build(data, root, ctx)


def _req(data: dict[str, Any], key: str, ctx: _Ctx, where: str, kind: type | tuple[type, ...]) -> Any:
    if key not in data:
        raise ctx.fail(where, f"missing required field {key!r}")
    value = data[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise ctx.fail(f"{where}.{key}" if where != "task" else key, f"expected {names}, got {value!r}")
    return value


def _choice(value: str, allowed: tuple[str, ...], ctx: _Ctx, where: str) -> str:
    if value not in allowed:
        raise ctx.fail(where, f"{value!r} is not one of {', '.join(allowed)}")
    return value


def _build(data: dict[str, Any], root: Path, ctx: _Ctx) -> Task:
    unknown = set(data) - _TOP_LEVEL
    if unknown:
        raise ctx.fail("task", f"unknown field(s) {', '.join(sorted(unknown))}")
    task_id = _req(data, "id", ctx, "task", str)
    if not task_id.replace("_", "").replace("-", "").isalnum():
        raise ctx.fail("id", f"{task_id!r} may only use letters, digits, '_' and '-'")
    function = _req(data, "function", ctx, "task", str)
    signature = _req(data, "signature", ctx, "task", str)
    convention = _choice(data.get("convention", "device"), CONVENTIONS, ctx, "convention")

    raw_args = _req(data, "args", ctx, "task", list)
    if not raw_args:
        raise ctx.fail("args", "a task needs at least one argument")
    sizes_table = _req(data, "sizes", ctx, "task", dict)
    test_sizes = _req(sizes_table, "test", ctx, "sizes", list)
    bench_size = _req(sizes_table, "bench", ctx, "sizes", dict)

    declared_structs = format_v2.declared_structs(data, ctx)
    args = [_arg(i, raw, ctx, declared_structs) for i, raw in enumerate(raw_args)]
    names = [a.name for a in args]
    duplicates = {n for n in names if names.count(n) > 1}
    if duplicates:
        raise ctx.fail("args", f"duplicate argument name(s) {', '.join(sorted(duplicates))}")
    size_names = {a.name for a in args if a.role == "size"}
    if not any(a.is_written for a in args):
        raise ctx.fail("args", "no output: at least one argument must have role 'output' or 'inout'")

    tests = [_sizes(s, f"sizes.test[{i}]", ctx) for i, s in enumerate(test_sizes)]
    if len(tests) < 2:
        raise ctx.fail("sizes.test", "give at least two test sizes (include tiny and odd ones)")
    bench = _sizes(bench_size, "sizes.bench", ctx)
    known = set(bench)
    for i, s in enumerate(tests):
        if set(s) != known:
            raise ctx.fail(f"sizes.test[{i}]", f"names {sorted(s)} differ from sizes.bench's {sorted(known)}")
    missing = size_names - known
    if missing:
        raise ctx.fail("sizes.bench", f"no value for size argument(s) {', '.join(sorted(missing))}")

    joint = [_joint(i, raw, ctx, set(names)) for i, raw in enumerate(data.get("generators", []))]
    roofline = _roofline(data.get("roofline", {}), ctx, known)
    for key in ("bytes", "flops"):
        value = getattr(roofline, key)
        if value is not None:
            try:
                expr.evaluate(value, bench)
            except expr.ExprError as exc:
                raise ctx.fail(f"roofline.{key}", str(exc)) from None

    _check_signature(function, signature, args, ctx)
    format_v2.check_convention(convention, signature, ctx)
    format_v2.check_scratch(signature, args, ctx)
    requires = format_v2.preconditions(data, ctx, bench, tests)
    launch = format_v2.kernel_launch(data, convention, args, ctx, bench, tests)
    _check_coverage(args, joint, root, ctx)
    for a in args:
        if a.length is not None:
            try:
                unknown_names = expr.names_in(a.length) - known
            except expr.ExprError as exc:
                raise ctx.fail(f"args.{a.name}.length", str(exc)) from None
            if unknown_names:
                raise ctx.fail(
                    f"args.{a.name}.length", f"uses unknown size(s) {', '.join(sorted(unknown_names))}"
                )
            for label, s in [("sizes.bench", bench)] + [(f"sizes.test[{i}]", t) for i, t in enumerate(tests)]:
                try:
                    n = expr.evaluate(a.length, s)
                except expr.ExprError as exc:
                    raise ctx.fail(f"args.{a.name}.length", f"{exc} (at {label})") from None
                if n < 0:
                    raise ctx.fail(f"args.{a.name}.length", f"is negative ({n}) at {label}")

    try:
        variant_spec = variants.parse_spec(
            data.get("variants"), bench, lambda s, label: _holds_at(args, roofline, s, label)
        )
    except variants.VariantError as exc:
        raise ctx.fail(str(exc).split(":", 1)[0], str(exc).split(":", 1)[1].strip()) from None

    if not (root / "serial.cpp").is_file():
        raise ctx.fail("serial.cpp", "missing: every task needs its serial C++ reference")
    if function not in (root / "serial.cpp").read_text():
        raise ctx.fail("serial.cpp", f"does not define the task's function {function!r}")

    return Task(
        id=task_id,
        title=_req(data, "title", ctx, "task", str),
        category=_req(data, "category", ctx, "task", str),
        difficulty=_choice(_req(data, "difficulty", ctx, "task", str), DIFFICULTIES, ctx, "difficulty"),
        split=_choice(_req(data, "split", ctx, "task", str), SPLITS, ctx, "split"),
        function=function,
        signature=" ".join(signature.split()),
        convention=convention,
        args=tuple(args),
        test_sizes=tuple(tests),
        bench_size=bench,
        joint_generators=tuple(joint),
        roofline=roofline,
        root=root.resolve(),
        description=str(data.get("description", "")),
        tags=tuple(data.get("tags", ())),
        waivers=_waivers(data.get("waivers", {}), ctx),
        launch=launch,
        requires=requires,
        structs=tuple(declared_structs.values()),
        variants=variant_spec,
    )


def _waivers(raw: Any, ctx: _Ctx) -> tuple[tuple[str, str], ...]:
    if not isinstance(raw, dict):
        raise ctx.fail("waivers", f"expected a table, got {raw!r}")
    for key, reason in raw.items():
        if key not in WAIVERS:
            raise ctx.fail(f"waivers.{key}", f"unknown waiver (known: {', '.join(WAIVERS)})")
        if not isinstance(reason, str) or not reason.strip():
            raise ctx.fail(f"waivers.{key}", "must say why, as a non-empty string")
    return tuple(sorted((k, v.strip()) for k, v in raw.items()))


def _holds_at(args: list[Arg], roofline: Roofline, sizes: dict[str, int], label: str) -> str | None:
    """Why a variant's sizes break the task (a length or roofline expression fails or goes negative)."""
    exprs = [(f"args.{a.name}.length", a.length) for a in args if a.length is not None]
    exprs += [(f"roofline.{k}", getattr(roofline, k)) for k in ("bytes", "flops") if getattr(roofline, k)]
    for where, text in exprs:
        try:
            n = expr.evaluate(text, sizes)
        except expr.ExprError as exc:
            return f"{where}: {exc} at {label}"
        if n < 0:
            return f"{where}: is negative ({n}) at {label}"
    return None


def _arg(index: int, raw: Any, ctx: _Ctx, declared_structs: dict[str, DType] | None = None) -> Arg:
    where = f"args[{index}]"
    if not isinstance(raw, dict):
        raise ctx.fail(where, f"expected a table, got {raw!r}")
    name = _req(raw, "name", ctx, where, str)
    where = f"args[{index}] ({name})"
    unknown = set(raw) - _ARG_KEYS
    if unknown:
        raise ctx.fail(where, f"unknown field(s) {', '.join(sorted(unknown))}")
    raw, initial, scalar_result = format_v2.output_declaration(raw, ctx, where)
    role = _choice(_req(raw, "role", ctx, where, str), ROLES, ctx, f"{where}.role")
    dtype_name = _req(raw, "dtype", ctx, where, str)
    declared_structs = declared_structs or {}
    if dtype_name not in DTYPES and dtype_name not in declared_structs:
        known = ", ".join([*DTYPES, *declared_structs])
        raise ctx.fail(
            f"{where}.dtype", f"unknown dtype {dtype_name!r} (known: {known}; structs are declared in [[structs]])"
        )
    dt = declared_structs[dtype_name] if dtype_name in declared_structs else dtype(dtype_name)
    if dt.is_compound and role not in ("input", "output", "inout", "scratch"):
        raise ctx.fail(f"{where}.dtype", f"{dtype_name} is a compound type: only arrays may have it, not {role}s")
    if dt.name == "bool" and role not in ("input", "output", "inout", "scratch"):
        raise ctx.fail(f"{where}.dtype", f"bool is for arrays (masks, flags), not {role}s")
    length = raw.get("length")
    is_array = role in ("input", "output", "inout", "scratch")
    if is_array:
        if length is None:
            raise ctx.fail(where, "arrays need `length`, an integer expression of the sizes")
        length = str(length)
    elif length is not None:
        raise ctx.fail(f"{where}.length", f"only arrays have a length; {role} arguments do not")
    if role == "size" and dt.is_float:
        raise ctx.fail(f"{where}.dtype", "size arguments must be integers")

    gen = None
    if "generator" in raw:
        if role not in ("input", "inout", "scalar"):
            raise ctx.fail(f"{where}.generator", f"{role} arguments are not generated")
        spec = raw["generator"]
        if not isinstance(spec, dict) or not isinstance(spec.get("kind"), str):
            raise ctx.fail(f"{where}.generator", "expected a table with a string `kind`")
        kind = spec["kind"]
        if kind != "custom" and kind not in generators.SINGLE:
            raise ctx.fail(
                f"{where}.generator.kind",
                f"unknown generator {kind!r} (known: {', '.join(sorted(generators.SINGLE))}, custom)",
            )
        gen = Generator(kind, {k: v for k, v in spec.items() if k != "kind"})
    value = raw.get("value")
    if value is not None and role != "scalar":
        raise ctx.fail(f"{where}.value", "only scalar arguments take a fixed value")
    if role == "scalar" and value is None and gen is None:
        raise ctx.fail(where, "a scalar needs a fixed `value` or a `generator`")

    tolerance = None
    if role in ("output", "inout") and dt.is_compound:
        tolerance = format_v2.compound_tolerance(raw.get("tolerance"), dt, ctx, f"{where}.tolerance", _tolerance)
    elif role in ("output", "inout"):
        tolerance = _tolerance(raw.get("tolerance"), dt, ctx, f"{where}.tolerance")
    elif "tolerance" in raw:
        raise ctx.fail(f"{where}.tolerance", "only outputs and inouts are compared")
    perturb = raw.get("perturb")
    if perturb is not None:
        if role not in ("input", "inout"):
            raise ctx.fail(f"{where}.perturb", f"only inputs and inouts are perturbed; {role} arguments are not")
        perturb = _choice(perturb, PERTURB, ctx, f"{where}.perturb")
        if perturb == "values" and dt.name == "bool":
            raise ctx.fail(f"{where}.perturb", "bool inputs are not perturbed")
        if perturb == "values" and dt.is_compound and initial is None:
            raise ctx.fail(f"{where}.perturb", f"{dt.name} inputs are not perturbed (compound element type)")
    return Arg(
        name,
        role,  # type: ignore[arg-type]
        dt,
        length,
        gen,
        value,
        tolerance,
        perturb=perturb,
        initial=initial,
        scalar_result=scalar_result,
    )


def _tolerance(raw: Any, dt: Any, ctx: _Ctx, where: str) -> Tolerance:
    if raw is None:
        return Tolerance("close", dt.default_rtol, dt.default_atol) if dt.is_float else Tolerance("exact")
    if raw in ("exact", "custom"):
        return Tolerance(raw)
    if isinstance(raw, dict) and set(raw) <= {"rtol", "atol"} and raw:
        if not dt.is_float:
            raise ctx.fail(where, 'integer outputs are compared exactly; use "exact" or "custom"')
        values = {k: float(v) for k, v in raw.items()}
        if any(v < 0 for v in values.values()):
            raise ctx.fail(where, "rtol and atol must be non-negative")
        return Tolerance("close", values.get("rtol", 0.0), values.get("atol", 0.0))
    raise ctx.fail(where, f'expected "exact", "custom" or {{ rtol = ..., atol = ... }}, got {raw!r}')


def _sizes(raw: Any, where: str, ctx: _Ctx) -> dict[str, int]:
    if not isinstance(raw, dict) or not raw:
        raise ctx.fail(where, f"expected a table of size names to integers, got {raw!r}")
    out = {}
    for key, value in raw.items():
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ctx.fail(f"{where}.{key}", f"expected a non-negative integer, got {value!r}")
        out[key] = value
    return out


def _joint(index: int, raw: Any, ctx: _Ctx, names: set[str]) -> JointGenerator:
    where = f"generators[{index}]"
    if not isinstance(raw, dict):
        raise ctx.fail(where, f"expected a table, got {raw!r}")
    kind = _req(raw, "kind", ctx, where, str)
    try:
        slots = generators.joint_slots(kind)
    except generators.GeneratorError as exc:
        raise ctx.fail(f"{where}.kind", str(exc)) from None
    outputs = _req(raw, "outputs", ctx, where, dict)
    for slot, arg_name in outputs.items():
        if slot not in slots:
            raise ctx.fail(f"{where}.outputs", f"{kind} has no slot {slot!r} (slots: {', '.join(slots)})")
        if arg_name not in names:
            raise ctx.fail(f"{where}.outputs.{slot}", f"no argument named {arg_name!r}")
    params = {k: v for k, v in raw.items() if k not in ("kind", "outputs")}
    return JointGenerator(kind, dict(outputs), params)


def _roofline(raw: Any, ctx: _Ctx, known: set[str]) -> Roofline:
    if not isinstance(raw, dict):
        raise ctx.fail("roofline", "expected a table with `bytes` and/or `flops` expressions")
    if set(raw) - {"bytes", "flops", "compute"}:
        unknown = ", ".join(sorted(set(raw) - {"bytes", "flops", "compute"}))
        raise ctx.fail("roofline", f"unknown field(s) {unknown} (known: bytes, flops, compute)")
    compute = raw.get("compute", "fp32")
    if compute not in COMPUTE_UNITS:
        raise ctx.fail("roofline.compute", f"unknown unit {compute!r} (known: {', '.join(COMPUTE_UNITS)})")
    for key, value in raw.items():
        if key == "compute":
            continue
        try:
            unknown = expr.names_in(str(value)) - known
        except expr.ExprError as exc:
            raise ctx.fail(f"roofline.{key}", str(exc)) from None
        if unknown:
            raise ctx.fail(f"roofline.{key}", f"uses unknown size(s) {', '.join(sorted(unknown))}")
    return Roofline(
        bytes=str(raw["bytes"]) if "bytes" in raw else None,
        flops=str(raw["flops"]) if "flops" in raw else None,
        compute=compute,
    )


def _check_signature(function: str, signature: str, args: list[Arg], ctx: _Ctx) -> None:
    try:
        name, params = parse_signature(signature)
    except SignatureError as exc:
        raise ctx.fail("signature", str(exc)) from None
    if name != function:
        raise ctx.fail("signature", f"names function {name!r} but `function` is {function!r}")
    if [p.name for p in params] != [a.name for a in args]:
        raise ctx.fail(
            "signature",
            f"parameters ({', '.join(p.name for p in params)}) must match args in order "
            f"({', '.join(a.name for a in args)})",
        )
    for i, (param, arg) in enumerate(zip(params, args)):
        if param.is_pointer != arg.is_array:
            kind = "a pointer" if arg.is_array else "a value"
            raise ctx.fail("signature", f"parameter {param.name!r} must be {kind} for role {arg.role!r}")
        if param.base_type not in arg.dtype.c_names:
            raise ctx.fail(
                "signature",
                f"parameter {param.name!r} has C type {param.base_type!r}, which does not match dtype "
                f"{arg.dtype.name} ({' / '.join(arg.dtype.c_names)})",
            )
        if param.is_const and arg.is_written:
            raise ctx.fail("signature", f"parameter {param.name!r} is const but the task writes it")
        object.__setattr__(args[i], "c_type", param.spelled)


def _check_coverage(args: list[Arg], joint: list[JointGenerator], root: Path, ctx: _Ctx) -> None:
    covered: dict[str, str] = {}
    for j in joint:
        for arg_name in j.outputs.values():
            if arg_name in covered:
                raise ctx.fail("generators", f"argument {arg_name!r} is filled by two generators")
            covered[arg_name] = j.kind
    custom = [a.name for a in args if a.generator is not None and a.generator.kind == "custom"]
    if custom and not (root / "gen.py").is_file():
        raise ctx.fail("gen.py", f"missing, but argument(s) {', '.join(custom)} use the custom generator")
    if (
        any(a.tolerance is not None and a.tolerance.kind == "custom" for a in args)
        and not (root / "check.py").is_file()
    ):
        raise ctx.fail("check.py", "missing, but an output uses the custom tolerance")
    for a in args:
        if a.is_read and a.generator is None and a.name not in covered:
            raise ctx.fail(
                f"args.{a.name}", "has no generator (give `generator`, or name it in [[generators]])"
            )
        if a.name in covered and a.generator is not None:
            raise ctx.fail(f"args.{a.name}", f"has a generator but is also filled by {covered[a.name]}")
        if a.name in covered and not a.is_read:
            raise ctx.fail(f"args.{a.name}", f"is filled by {covered[a.name]} but is not an input")
