"""Drawing a task's inputs for one size and seed, including its own gen.py, and loading check.py."""

from __future__ import annotations

import hashlib
import hmac
import importlib.util
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from regrapht.tasks import generators, structs
from regrapht.tasks.model import Arg, Task

Values = dict[str, Any]  # argument name -> numpy array (arrays) or numpy scalar (sizes, scalars)


def derive_seed(secret: bytes, *parts: object) -> int:
    """A 64-bit seed from the run's secret and a path of labels, so no candidate can predict inputs."""
    message = "/".join(str(p) for p in parts).encode()
    return int.from_bytes(hmac.new(secret, message, hashlib.sha256).digest()[:8], "little")


def _load_module(path: Path, label: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"regrapht_task_{label}_{abs(hash(path))}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_inputs(task: Task, sizes: dict[str, int], rng: np.random.Generator) -> Values:
    """Every value the function reads: sizes, scalars, input and inout arrays."""
    values: Values = {}
    for arg in task.args:
        if arg.role == "size":
            values[arg.name] = arg.dtype.numpy.type(sizes[arg.name])
    for joint in task.joint_generators:
        produced = generators.generate_joint(joint.kind, joint.params, rng, sizes)
        for slot, arg_name in joint.outputs.items():
            arg = task.arg(arg_name)
            array = produced[slot]
            expected = arg.n_elements(sizes)
            if array.size != expected:
                raise generators.GeneratorError(
                    f"{task.id}: {joint.kind} produced {array.size} elements for {arg_name!r}, "
                    f"whose length {arg.length!r} is {expected} at sizes {sizes}"
                )
            values[arg_name] = generators._cast(array, arg.dtype.numpy, joint.kind)
    custom: dict[str, Any] = {}
    if any(a.generator is not None and a.generator.kind == "custom" for a in task.args):
        assert task.generator_path is not None
        custom = _load_module(task.generator_path, "gen").generate(dict(sizes), rng)
    for arg in task.args:
        if arg.role == "scalar":
            if arg.value is not None:
                values[arg.name] = arg.dtype.numpy.type(arg.value)
            else:
                assert arg.generator is not None
                source = (
                    np.asarray(custom[arg.name]).reshape(-1)
                    if arg.generator.kind == "custom"
                    else generators.generate_array(
                        arg.generator.kind, arg.generator.params, 1, arg.dtype.numpy, rng, sizes
                    )
                )
                values[arg.name] = arg.dtype.numpy.type(source[0])
        elif arg.is_read and arg.generator is not None:
            n = arg.n_elements(sizes)
            if arg.dtype.is_compound:
                array = _compound_array(task, arg, n, custom, rng, sizes)
            elif arg.generator.kind == "custom":
                if arg.name not in custom:
                    raise generators.GeneratorError(f"{task.id}: gen.py did not produce {arg.name!r}")
                array = np.ascontiguousarray(np.asarray(custom[arg.name]).reshape(-1), dtype=arg.dtype.numpy)
                if array.size != n:
                    raise generators.GeneratorError(
                        f"{task.id}: gen.py produced {array.size} elements for {arg.name!r}, expected {n}"
                    )
            else:
                array = generators.generate_array(
                    arg.generator.kind, arg.generator.params, n, arg.dtype.numpy, rng, sizes
                )
            values[arg.name] = array
    return values


def _compound_array(
    task: Task, arg: Arg, n: int, custom: dict[str, Any], rng: np.random.Generator, sizes: dict[str, int]
) -> np.ndarray:
    """A struct or complex input: gen.py's array of that dtype (or of n x fields numbers), or a
    generator's draws of n x fields numbers of the one dtype all fields share, element by element."""
    assert arg.generator is not None
    k = len(arg.dtype.fields)
    if arg.generator.kind == "custom":
        if arg.name not in custom:
            raise generators.GeneratorError(f"{task.id}: gen.py did not produce {arg.name!r}")
        produced = np.asarray(custom[arg.name])
        if produced.dtype == arg.dtype.numpy:
            array = np.ascontiguousarray(produced.reshape(-1))
        elif produced.size == n * k and produced.dtype.kind in "iuf":
            array = structs.from_components(produced, arg.dtype, n)
        elif produced.size == n and produced.dtype.kind == "c" and arg.dtype.is_complex:
            array = np.ascontiguousarray(produced.reshape(-1).astype(arg.dtype.numpy))
        else:
            raise generators.GeneratorError(
                f"{task.id}: gen.py produced {produced.size} elements of {produced.dtype} for {arg.name!r}; "
                f"expected {n} of {arg.dtype.name} (or {n * k} numbers, {k} per element)"
            )
        if array.size != n:
            raise generators.GeneratorError(
                f"{task.id}: gen.py produced {array.size} elements for {arg.name!r}, expected {n}"
            )
        return array
    component = structs.uniform_component(arg.dtype)
    if component is None:
        raise generators.GeneratorError(
            f"{task.id}: {arg.name!r} has fields of different dtypes: draw it in gen.py (generator = custom)"
        )
    draws = generators.generate_array(
        arg.generator.kind, arg.generator.params, n * k, component.numpy, rng, sizes
    )
    return structs.from_components(draws, arg.dtype, n)


Checker = Callable[[Values, Values, Values, dict[str, int]], "str | None"]


def load_checker(task: Task) -> Checker | None:
    """The task's check.py `check(inputs, expected, actual, sizes) -> None | message`, if it has one."""
    if task.checker_path is None:
        return None
    return _load_module(task.checker_path, "check").check
