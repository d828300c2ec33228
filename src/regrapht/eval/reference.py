"""The task's reference data: inputs drawn from the run's secret and the serial reference's outputs,
computed in a separate process and kept in the evaluator's process only."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from regrapht.tasks import Task, make_inputs


@dataclass
class RefCase:
    label: str
    sizes: dict[str, int]
    seed_index: int
    dir: Path  # what the worker reads: input arrays as .npy and scalars.json; never expected outputs
    inputs: dict[str, Any]
    nbytes: dict[str, int]
    expected: dict[str, np.ndarray] = field(default_factory=dict)


@dataclass
class TestReference:
    cases: list[RefCase]
    seconds: float = 0.0


@dataclass
class BenchReference:
    dir: Path
    sets: list[RefCase]
    serial_samples: list[float]
    seconds: float = 0.0
    phases: dict[str, float] = field(default_factory=dict)  # seconds drawing inputs, running the reference
    # Where the serial samples come from and how far to trust them (SerialBaseline.to_record).
    serial: dict[str, Any] = field(default_factory=dict)

    @property
    def nbytes(self) -> dict[str, int]:
        return self.sets[0].nbytes

    @property
    def held_bytes(self) -> int:
        """Memory the data holds while kept: the input files (memory-backed where possible) and
        the expected outputs, per set (each argument counted once, as input or output)."""
        return sum(sum(s.nbytes.values()) for s in self.sets)


def write_case(
    task: Task, case_dir: Path, label: str, sizes: dict[str, int], seed_index: int, inputs: dict[str, Any]
) -> RefCase:
    case_dir.mkdir(parents=True, exist_ok=True)
    scalars = {a.name: inputs[a.name].item() for a in task.args if not a.is_array}
    (case_dir / "scalars.json").write_text(json.dumps(scalars))
    for arg in task.args:
        if arg.is_read and arg.is_array:
            np.save(case_dir / f"{arg.name}.npy", inputs[arg.name])
    return RefCase(label, dict(sizes), seed_index, case_dir, inputs, array_nbytes(task, sizes))


def array_nbytes(task: Task, sizes: dict[str, int]) -> dict[str, int]:
    return {a.name: a.n_elements(sizes) * a.dtype.numpy.itemsize for a in task.arrays}


def bench_bytes(task: Task, input_sets: int) -> int:
    """What a task's bench data will hold while kept (`BenchReference.held_bytes`), before it is built."""
    return sum(array_nbytes(task, task.bench_size).values()) * input_sets


def draw_test_cases(task: Task, root: Path, seeds: int, seed_of) -> list[RefCase]:
    cases = []
    for size_index, sizes in enumerate(task.test_sizes):
        for seed_index in range(seeds):
            rng = np.random.default_rng(seed_of("test", size_index, seed_index))
            label = ", ".join(f"{k}={v}" for k, v in sizes.items()) + f", seed {seed_index + 1}"
            cases.append(
                write_case(
                    task, root / f"case{len(cases)}", label, sizes, seed_index, make_inputs(task, sizes, rng)
                )
            )
    return cases


def draw_bench_sets(task: Task, root: Path, count: int, seed_of) -> list[RefCase]:
    """The bench-size input sets, drawn and written on a thread each: each set has its own generator,
    and NumPy's generators and array operations release the GIL, so a multi-gigabyte task's sets
    take the time of one (its first candidate waits on them). All sets share the first one's scalars."""
    with ThreadPoolExecutor(max_workers=max(1, count), thread_name_prefix="regrapht-bench-set") as pool:
        drawn = list(
            pool.map(
                lambda s: make_inputs(task, task.bench_size, np.random.default_rng(seed_of("bench", s))),
                range(count),
            )
        )
        first_scalars = {a.name: drawn[0][a.name] for a in task.args if not a.is_array} if drawn else {}
        for inputs in drawn:
            inputs.update(first_scalars)  # one set of scalars for every timed call
        sets = list(
            pool.map(
                lambda s: write_case(
                    task, root / f"set{s}", f"bench set {s + 1}", task.bench_size, s, drawn[s]
                ),
                range(count),
            )
        )
    (root / "scalars.json").write_text((sets[0].dir / "scalars.json").read_text())
    return sets
