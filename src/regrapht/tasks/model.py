"""The task model: what a serial-cpp task declares, after validation."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from regrapht.tasks import expr
from regrapht.tasks.dtypes import DType
from regrapht.tasks.variants import VariantSpec

# What a task's operations run on (`[roofline] compute`); the peak of each, per GPU architecture,
# is data: regrapht/data/gpu_peaks.toml.
COMPUTE_UNITS = (
    "fp64",
    "fp32",
    "int32",
    "fp64_tensor",
    "tf32_tensor",
    "fp16_tensor",
    "fp8_tensor",
    "int8_tensor",
)

# Generators whose float values a timed call may see perturbed by default (None: a joint generator's
# slot, such as a CSR matrix's values).
CONTINUOUS_GENERATORS = ("uniform", "normal", "lognormal", "exponential", "grid", "points", None)

# scratch: a workspace the harness allocates, guards and poisons before every call; never read as
# input, never compared.
Role = Literal["size", "scalar", "input", "output", "inout", "scratch"]
ROLES: tuple[str, ...] = ("size", "scalar", "input", "output", "inout", "scratch")
DIFFICULTIES: tuple[str, ...] = ("easy", "medium", "hard")
SPLITS: tuple[str, ...] = ("train", "test", "example")
CONVENTIONS: tuple[str, ...] = ("device", "host", "kernel")


def folder_hash(root: Path) -> str:
    """A hash over every file of a task folder (its top level): changes invalidate cached references."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.iterdir() if p.is_file() and p.suffix != ".pyc"):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def instance_key(root: Path, task_id: str, *sizes: object) -> str:
    """What tells two tasks (of any kind) apart within a run: folder, id and sizes."""
    return f"{root}@{task_id}@{json.dumps(list(sizes), sort_keys=True)}"


@dataclass(frozen=True)
class Tolerance:
    """How an output is compared: exactly, within rtol/atol, or by the task's own checker."""

    kind: Literal["exact", "close", "custom"]
    rtol: float = 0.0
    atol: float = 0.0
    # Compound outputs (structs, complex numbers): a tolerance per field; empty means `self` for
    # every float field and exact for integer fields.
    fields: tuple[tuple[str, Tolerance], ...] = ()

    def for_field(self, name: str, is_float: bool) -> Tolerance:
        for field_name, tolerance in self.fields:
            if field_name == name:
                return tolerance
        if self.kind == "close" and not is_float:
            return Tolerance("exact")
        return Tolerance(self.kind, self.rtol, self.atol)

    def describe(self) -> str:
        if self.fields:
            return ", ".join(f"{name}: {t.describe()}" for name, t in self.fields)
        if self.kind == "close":
            return f"rtol={self.rtol:g}, atol={self.atol:g}"
        return self.kind


@dataclass(frozen=True)
class Generator:
    kind: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Arg:
    name: str
    role: Role
    dtype: DType
    length: str | None = None  # integer expression of the sizes, for arrays
    generator: Generator | None = None  # inputs, inouts and scalars
    value: float | int | None = None  # a fixed scalar
    tolerance: Tolerance | None = None  # outputs and inouts
    c_type: str = ""  # the parameter's type as the signature spells it
    # Whether the evaluator may perturb this input's values before each timed call (so no timed call
    # repeats an earlier one): "values" or "none"; None takes the default (`perturbable`).
    perturb: str | None = None
    # What an output holds before every call, as declared (`initial`: a number, or a generator
    # table); such an output is loaded as an inout whose input is that value, never perturbed.
    initial: Any = None
    scalar_result: bool = False  # an output declared without `length`: one value, through a pointer

    @property
    def is_array(self) -> bool:
        return self.role in ("input", "output", "inout", "scratch")

    @property
    def is_written(self) -> bool:
        return self.role in ("output", "inout")

    @property
    def is_read(self) -> bool:
        return self.role in ("input", "inout")

    @property
    def perturbable(self) -> bool:
        """Whether timed calls see this input's values perturbed. By default only float inputs drawn
        from a continuous distribution (or filled by a joint generator's value slot): integers are
        often structure (indices, row pointers, permutations); sorted or custom-drawn floats may
        carry an invariant (order, symmetry, a sum) that an honest kernel relies on; and floats
        drawn as integers, choices or bits may be meant to tie, or to sum exactly. A task declares
        the rest (`perturb`)."""
        if not self.is_read or not self.is_array or self.dtype.is_compound or self.initial is not None:
            return False
        if self.perturb is not None:
            return self.perturb == "values"
        kind = self.generator.kind if self.generator is not None else None
        return self.dtype.is_float and kind in CONTINUOUS_GENERATORS

    def n_elements(self, sizes: dict[str, int]) -> int:
        assert self.length is not None
        return expr.evaluate(self.length, sizes)


@dataclass(frozen=True)
class JointGenerator:
    """A generator that fills several arrays at once (a CSR matrix's row_ptr, col_idx and values)."""

    kind: str
    outputs: dict[str, str]  # generator slot -> argument name
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Roofline:
    bytes: str | None = None
    flops: str | None = None
    # The unit the operations run on, which sets the peak a kernel's "% of roofline" is judged
    # against (the plausibility gate always uses the highest rate the GPU has, whatever this says).
    compute: str = "fp32"


@dataclass(frozen=True)
class Task:
    id: str
    title: str
    category: str
    difficulty: str
    split: str
    function: str
    signature: str
    convention: str
    args: tuple[Arg, ...]
    test_sizes: tuple[dict[str, int], ...]
    bench_size: dict[str, int]
    joint_generators: tuple[JointGenerator, ...]
    roofline: Roofline
    root: Path
    description: str = ""
    tags: tuple[str, ...] = ()
    # (rule, why) pairs: the baseline-fairness rules of `tasks check` this task's naive.cu may break
    waivers: tuple[tuple[str, str], ...] = ()

    def waiver(self, rule: str) -> str | None:
        """Why this task's naive.cu may break `rule`, or None when it may not."""
        return dict(self.waivers).get(rule)
    # Task format v2: the kernel convention's launch (tasks/kernel.py), the conditions every size
    # must meet (`require`), and the struct element types the task declares.
    launch: Any = None
    requires: tuple[str, ...] = ()
    structs: tuple[DType, ...] = ()

    @property
    def device_buffers(self) -> bool:
        """Whether the harness passes device pointers on the cuda target (device and kernel
        conventions), or host ones (host convention)."""
        return self.convention in ("device", "kernel")
    # What an RL episode may vary (tasks/variants.py); a task without `[variants]` gets the default.
    variants: VariantSpec = field(default_factory=VariantSpec)

    @property
    def instance_key(self) -> str:
        """What tells two tasks apart within a run: the folder, and the id and sizes, since a variant
        (tasks/variants.py) shares its task's folder but not its id (which seeds its inputs) or its
        sizes, so each needs references of its own."""
        return instance_key(self.root, self.id, self.bench_size, list(self.test_sizes))

    @property
    def serial_path(self) -> Path:
        return self.root / "serial.cpp"

    @property
    def naive_path(self) -> Path | None:
        path = self.root / "naive.cu"
        return path if path.is_file() else None

    @property
    def solution_path(self) -> Path | None:
        path = self.root / "solution.cu"
        return path if path.is_file() else None

    @property
    def library_path(self) -> Path | None:
        """library.cu: the task done by a vendor library (cuBLAS, CUB, cuSPARSE, cuFFT...), timed
        beside cuda candidates like naive.cu, so reports can state a kernel's fraction of it."""
        path = self.root / "library.cu"
        return path if path.is_file() else None

    @property
    def generator_path(self) -> Path | None:
        path = self.root / "gen.py"
        return path if path.is_file() else None

    @property
    def checker_path(self) -> Path | None:
        path = self.root / "check.py"
        return path if path.is_file() else None

    def arg(self, name: str) -> Arg:
        for a in self.args:
            if a.name == name:
                return a
        raise KeyError(name)

    @property
    def arrays(self) -> tuple[Arg, ...]:
        return tuple(a for a in self.args if a.is_array)

    @property
    def written(self) -> tuple[Arg, ...]:
        return tuple(a for a in self.args if a.is_written)

    def serial_source(self) -> str:
        return self.serial_path.read_text()

    def naive_source(self) -> str | None:
        return self.naive_path.read_text() if self.naive_path else None

    def library_source(self) -> str | None:
        return self.library_path.read_text() if self.library_path else None

    def content_hash(self) -> str:
        return folder_hash(self.root)

    def io_bytes(self, sizes: dict[str, int]) -> int:
        """Bytes every correct implementation must move: inputs read once, outputs written once."""
        total = 0
        for a in self.arrays:
            if a.role == "scratch":  # a workspace is the implementation's choice, not a floor
                continue
            per_element = a.dtype.numpy.itemsize * a.n_elements(sizes)
            total += per_element * (2 if a.role == "inout" else 1)
        return total

    def floor_bytes(self, sizes: dict[str, int]) -> int:
        if self.roofline.bytes is not None:
            return expr.evaluate(self.roofline.bytes, sizes)
        return self.io_bytes(sizes)

    def floor_flops(self, sizes: dict[str, int]) -> int:
        if self.roofline.flops is not None:
            return expr.evaluate(self.roofline.flops, sizes)
        return 0

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "category": self.category,
            "difficulty": self.difficulty,
            "split": self.split,
            "function": self.function,
            "signature": self.signature,
            "convention": self.convention,
            "has_naive": self.naive_path is not None,
            "has_library": self.library_path is not None,
            "bench_size": dict(self.bench_size),
            "test_sizes": [dict(s) for s in self.test_sizes],
        }
