"""The `torch` task kind: a PyTorch `Model` in the KernelBench layout plus our task.toml.

The folder format is fixed in docs/task-format.md ("torch tasks"). Loading validates task.toml field by
field and reads reference.py's syntax tree (never imports it: a reference runs only inside a worker
process, see eval/torch_judge.py), so a malformed task fails here with the file and the field named.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from regrapht.tasks import expr
from regrapht.tasks.loader import TaskError
from regrapht.tasks.model import COMPUTE_UNITS, DIFFICULTIES, SPLITS, Roofline, folder_hash, instance_key
from regrapht.tasks.variants import DtypeChoice, VariantError, VariantSpec, parse_torch_spec

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

TASK_FILE = "task.toml"
KIND = "torch"
CATEGORIES = (
    "matmul", "convolution", "reduction", "normalization", "activation", "loss", "scan",
    "elementwise", "pooling", "attention", "fusion", "model",
)  # fmt: skip
DTYPES = ("float32", "bfloat16", "float16")
DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2}
LEVELS = (1, 2, 3)
_REQUIRED = ("kind", "title", "category", "difficulty", "split", "level", "dtype", "sizes", "tolerance")
_OPTIONAL = ("allow_tf32", "description", "tags", "source", "roofline", "variants")
_REFERENCE_NAMES = ("Model", "get_inputs", "get_init_inputs")


class TorchTaskError(TaskError):
    """A torch task folder that cannot be used; the message names the file and the field."""


@dataclass(frozen=True)
class OutputTolerance:
    rtol: float
    atol: float

    def describe(self) -> str:
        return f"rtol={self.rtol:g}, atol={self.atol:g}"


@dataclass(frozen=True)
class TorchTask:
    id: str
    title: str
    category: str
    difficulty: str
    split: str
    level: int
    dtype: str
    allow_tf32: bool
    test_sizes: tuple[dict[str, int], ...]
    bench_size: dict[str, int]
    cpu_bench_size: dict[str, int] | None
    tolerance: OutputTolerance
    output_tolerances: dict[int, OutputTolerance]
    roofline: Roofline
    root: Path
    size_names: tuple[str, ...]  # reference.py's module-level integer constants
    description: str = ""
    tags: tuple[str, ...] = ()
    source: str = ""
    # What an RL episode may vary (tasks/variants.py): bench sizes and dtype; without `[variants]`,
    # only the input seed.
    variants: VariantSpec = field(default_factory=VariantSpec)
    kind: str = field(default=KIND)

    @property
    def instance_key(self) -> str:
        """What tells two tasks apart within a run (as `Task.instance_key`): folder, id, sizes, dtype."""
        return instance_key(self.root, self.id, self.bench_size, list(self.test_sizes), self.cpu_bench_size, self.dtype)

    def with_dtype(self, choice: DtypeChoice) -> TorchTask:
        """This task computing in another dtype, with that dtype's tolerance for every output. The
        roofline's byte count was written for the declared dtype: for a narrower one it scales down
        by the element sizes' ratio, for a wider one it stays, so the "faster than physically
        possible" floor only ever gets lower (never a false verdict on an honest kernel)."""
        tolerance = OutputTolerance(choice.rtol, choice.atol)
        roofline = self.roofline
        old, new = DTYPE_BYTES[self.dtype], DTYPE_BYTES[choice.dtype]
        if roofline.bytes and new < old:
            roofline = replace(roofline, bytes=f"({roofline.bytes}) * {new} // {old}")
        return replace(self, dtype=choice.dtype, tolerance=tolerance, output_tolerances={}, roofline=roofline)

    @property
    def reference_path(self) -> Path:
        return self.root / "reference.py"

    @property
    def solution_path(self) -> Path | None:
        path = self.root / "solution.py"
        return path if path.is_file() else None

    @property
    def cpu_solution_path(self) -> Path | None:
        path = self.root / "cpu_solution.py"
        return path if path.is_file() else None

    def tolerance_of(self, index: int) -> OutputTolerance:
        return self.output_tolerances.get(index, self.tolerance)

    def bench_for(self, target: str) -> dict[str, int]:
        if target == "cpu" and self.cpu_bench_size is not None:
            return dict(self.cpu_bench_size)
        return dict(self.bench_size)

    def content_hash(self) -> str:
        return folder_hash(self.root)

    def floor_bytes(self, sizes: dict[str, int]) -> int:
        return expr.evaluate(self.roofline.bytes, sizes) if self.roofline.bytes else 0

    def floor_flops(self, sizes: dict[str, int]) -> int:
        return expr.evaluate(self.roofline.flops, sizes) if self.roofline.flops else 0

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "title": self.title,
            "category": self.category,
            "difficulty": self.difficulty,
            "split": self.split,
            "level": self.level,
            "dtype": self.dtype,
            "allow_tf32": self.allow_tf32,
            "has_solution": self.solution_path is not None,
            "bench_size": dict(self.bench_size),
            "test_sizes": [dict(s) for s in self.test_sizes],
            "tolerance": self.tolerance.describe(),
        }


def is_torch_task_dir(path: str | Path) -> bool:
    """Whether a folder's task.toml declares `kind = "torch"` (a file that does not parse is not)."""
    task_file = Path(path) / TASK_FILE if Path(path).is_dir() else Path(path)
    try:
        return tomllib.loads(task_file.read_text()).get("kind") == KIND
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return False


def load_torch_task(path: str | Path) -> TorchTask:
    """Load and validate a torch task folder (or its task.toml)."""
    root = Path(path)
    if root.is_file() and root.name == TASK_FILE:
        root = root.parent
    task_file = root / TASK_FILE
    if not root.is_dir():
        raise TorchTaskError(f"{root}: not a task folder (no such directory)")
    if not task_file.is_file():
        raise TorchTaskError(f"{root}: not a task folder: {TASK_FILE} is missing")
    try:
        data = tomllib.loads(task_file.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise TorchTaskError(f"{task_file}: invalid TOML: {exc}") from None
    return _build(data, root, task_file)


def _fail(where: Path, field_name: str, message: str) -> TorchTaskError:
    return TorchTaskError(f"{where}: {field_name}: {message}")


def _typed(data: dict[str, Any], key: str, kind: type | tuple[type, ...], where: Path, default: Any = None) -> Any:
    if key not in data:
        if default is not None or key not in _REQUIRED:
            return default
        raise _fail(where, key, "missing required field")
    value = data[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds or not isinstance(value, kinds):
        names = " or ".join(k.__name__ for k in kinds)
        raise _fail(where, key, f"expected {names}, got {value!r}")
    return value


def _choice(value: Any, allowed: tuple, where: Path, key: str) -> Any:
    if value not in allowed:
        raise _fail(where, key, f"{value!r} is not one of {', '.join(map(str, allowed))}")
    return value


def _build(data: dict[str, Any], root: Path, where: Path) -> TorchTask:
    unknown = set(data) - set(_REQUIRED) - set(_OPTIONAL)
    if unknown:
        raise _fail(where, "task", f"unknown field(s) {', '.join(sorted(unknown))}")
    for key in _REQUIRED:
        if key not in data:
            raise _fail(where, key, "missing required field")
    if data["kind"] != KIND:
        raise _fail(where, "kind", f"expected {KIND!r}, got {data['kind']!r}")
    reference = root / "reference.py"
    if not reference.is_file():
        raise TorchTaskError(f"{root}: reference.py is missing (a torch task's reference is a PyTorch Model)")
    constants = reference_constants(reference)
    sizes = _typed(data, "sizes", dict, where)
    test, bench, cpu_bench = _size_sets(sizes, constants, where)
    tol_raw = _typed(data, "tolerance", dict, where)
    tolerance, per_output = _tolerances(tol_raw, where)
    tags = _typed(data, "tags", list, where, [])
    if not all(isinstance(t, str) for t in tags):
        raise _fail(where, "tags", "expected a list of strings")
    dtype = _choice(_typed(data, "dtype", str, where), DTYPES, where, "dtype")
    roofline = _roofline(data.get("roofline"), set(constants), where)
    try:
        variants = parse_torch_spec(data.get("variants"), bench, lambda sizes, label: _roofline_at(roofline, sizes, label),
                                    dtype, DTYPES)
    except VariantError as exc:
        raise TorchTaskError(f"{where}: {exc}") from None
    return TorchTask(
        id=root.name,
        title=_typed(data, "title", str, where),
        category=_choice(_typed(data, "category", str, where), CATEGORIES, where, "category"),
        difficulty=_choice(_typed(data, "difficulty", str, where), DIFFICULTIES, where, "difficulty"),
        split=_choice(_typed(data, "split", str, where), SPLITS, where, "split"),
        level=_choice(_typed(data, "level", int, where), LEVELS, where, "level"),
        dtype=dtype,
        allow_tf32=_typed(data, "allow_tf32", bool, where, False),
        test_sizes=test,
        bench_size=bench,
        cpu_bench_size=cpu_bench,
        tolerance=tolerance,
        output_tolerances=per_output,
        roofline=roofline,
        root=root,
        size_names=tuple(constants),
        description=_typed(data, "description", str, where, ""),
        tags=tuple(tags),
        source=_typed(data, "source", str, where, ""),
        variants=variants,
    )


def _roofline_at(roofline: Roofline, sizes: dict[str, int], label: str) -> str | None:
    """Why the roofline does not hold at a variant's sizes (None: it does); the loader's check at the
    corners of `[variants]`'s ranges."""
    for key in ("bytes", "flops"):
        text = getattr(roofline, key)
        if not text:
            continue
        try:
            value = expr.evaluate(text, sizes)
        except expr.ExprError as exc:
            return f"roofline.{key} does not evaluate at {label}: {exc}"
        if value < 0:
            return f"roofline.{key} is negative ({value}) at {label}"
    return None


def reference_constants(reference: Path) -> dict[str, int]:
    """reference.py's module-level integer constants, after checking it defines the KernelBench names.
    Reads the syntax tree only: nothing of the file runs here."""
    try:
        tree = ast.parse(reference.read_text(), filename=str(reference))
    except SyntaxError as exc:
        raise TorchTaskError(f"{reference}:{exc.lineno}: syntax error: {exc.msg}") from None
    except UnicodeDecodeError:
        raise TorchTaskError(f"{reference}: not UTF-8 text") from None
    defined: set[str] = set()
    constants: dict[str, int] = {}
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            defined.add(node.name)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value
            if isinstance(value, ast.Constant) and type(value.value) is int:
                constants[node.targets[0].id] = value.value
    missing = [name for name in _REFERENCE_NAMES if name not in defined]
    if missing:
        raise TorchTaskError(
            f"{reference}: does not define {', '.join(missing)} at module level "
            "(the KernelBench layout: class Model(nn.Module), get_inputs(), get_init_inputs())"
        )
    return constants


def _size_set(raw: Any, constants: dict[str, int], where: Path, key: str) -> dict[str, int]:
    if not isinstance(raw, dict) or not raw:
        raise _fail(where, key, f"expected a table of size names to integers, got {raw!r}")
    out: dict[str, int] = {}
    for name, value in raw.items():
        if name not in constants:
            known = ", ".join(sorted(constants)) or "none"
            raise _fail(
                where, f"{key}.{name}", f"reference.py has no module-level integer constant {name!r} (it has: {known})"
            )
        if type(value) is not int or value < 0:
            raise _fail(where, f"{key}.{name}", f"expected a non-negative integer, got {value!r}")
        out[name] = value
    return out


def _size_sets(
    sizes: dict[str, Any], constants: dict[str, int], where: Path
) -> tuple[tuple[dict[str, int], ...], dict[str, int], dict[str, int] | None]:
    unknown = set(sizes) - {"test", "bench", "cpu_bench"}
    if unknown:
        raise _fail(where, "sizes", f"unknown field(s) {', '.join(sorted(unknown))} (known: test, bench, cpu_bench)")
    if "test" not in sizes or "bench" not in sizes:
        raise _fail(where, "sizes", "needs `test` (a list of size tables) and `bench` (one size table)")
    if not isinstance(sizes["test"], list) or not sizes["test"]:
        raise _fail(where, "sizes.test", "expected a non-empty list of size tables")
    test = tuple(_size_set(s, constants, where, f"sizes.test[{i}]") for i, s in enumerate(sizes["test"]))
    bench = _size_set(sizes["bench"], constants, where, "sizes.bench")
    cpu = _size_set(sizes["cpu_bench"], constants, where, "sizes.cpu_bench") if "cpu_bench" in sizes else None
    return test, bench, cpu


def _pair(raw: dict[str, Any], where: Path, key: str) -> OutputTolerance:
    values = []
    for name in ("rtol", "atol"):
        value = raw.get(name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise _fail(where, f"{key}.{name}", f"expected a non-negative number, got {value!r}")
        values.append(float(value))
    return OutputTolerance(*values)


def _tolerances(raw: dict[str, Any], where: Path) -> tuple[OutputTolerance, dict[int, OutputTolerance]]:
    unknown = set(raw) - {"rtol", "atol", "outputs"}
    if unknown:
        raise _fail(where, "tolerance", f"unknown field(s) {', '.join(sorted(unknown))} (known: rtol, atol, outputs)")
    default = _pair(raw, where, "tolerance")
    per_output: dict[int, OutputTolerance] = {}
    outputs = raw.get("outputs", [])
    if not isinstance(outputs, list):
        raise _fail(where, "tolerance.outputs", "expected an array of tables ([[tolerance.outputs]])")
    for i, entry in enumerate(outputs):
        key = f"tolerance.outputs[{i}]"
        if not isinstance(entry, dict) or type(entry.get("index")) is not int or entry["index"] < 0:
            raise _fail(where, key, "expected a table with a non-negative integer `index`, `rtol` and `atol`")
        per_output[entry["index"]] = _pair(entry, where, key)
    return default, per_output


def _roofline(raw: Any, known: set[str], where: Path) -> Roofline:
    if raw is None:
        return Roofline()
    if not isinstance(raw, dict) or set(raw) - {"bytes", "flops", "compute"}:
        raise _fail(where, "roofline", "expected a table with `bytes`, `flops` expressions and `compute`")
    compute = raw.get("compute", "fp32")
    if compute not in COMPUTE_UNITS:
        raise _fail(where, "roofline.compute", f"unknown unit {compute!r} (known: {', '.join(COMPUTE_UNITS)})")
    for key in ("bytes", "flops"):
        if key in raw:
            try:
                unknown = expr.names_in(str(raw[key])) - known
            except expr.ExprError as exc:
                raise _fail(where, f"roofline.{key}", str(exc)) from None
            if unknown:
                raise _fail(where, f"roofline.{key}", f"uses unknown size(s) {', '.join(sorted(unknown))}")
    return Roofline(
        bytes=str(raw["bytes"]) if "bytes" in raw else None,
        flops=str(raw["flops"]) if "flops" in raw else None,
        compute=compute,
    )


def builtin_torch_root() -> Path:
    from importlib import resources

    return Path(str(resources.files("regrapht") / "data" / "tasks_torch"))


def iter_torch_task_dirs(root: Path) -> list[Path]:
    return [f.parent for f in sorted(root.rglob(TASK_FILE)) if is_torch_task_dir(f)]


def load_torch_suite(root: Path | None = None, split: str | None = None) -> list[TorchTask]:
    tasks = [load_torch_task(d) for d in iter_torch_task_dirs(root or builtin_torch_root())]
    return [t for t in tasks if split is None or t.split == split]
