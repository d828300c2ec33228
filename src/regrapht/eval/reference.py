"""The task's reference data: inputs drawn from the run's secret and the serial reference's outputs,
computed in a separate process and kept in the evaluator's process only."""

from __future__ import annotations

import json
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from regrapht.eval.perturb import Bounds, bounds_of, perturbed
from regrapht.tasks import Task, make_inputs

# Checked timed calls per candidate: the first timed call, one in each of three widening windows
# (`worker.CHECK_WINDOWS`) and the final one. With fresh inputs each has its own perturbation key.
CHECKED_CALLS = 5


@dataclass
class RefCase:
    label: str
    sizes: dict[str, int]
    seed_index: int
    dir: Path  # what the worker reads: input arrays as .npy and scalars.json; never expected outputs
    inputs: dict[str, Any]
    nbytes: dict[str, int]
    expected: dict[str, np.ndarray] = field(default_factory=dict)
    # A checked timed call's inputs: the base set in `dir`, perturbed with `key` (fresh inputs)
    perturb: Perturbation | None = None


@dataclass
class Perturbation:
    key: int
    bounds: dict[str, Bounds | None]  # per perturbable input; None: left as it is

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "bounds": {k: b.to_list() if b else None for k, b in self.bounds.items()}}


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
    # Fresh inputs: the checked timed calls (base set, key, expected outputs), in check-slot order,
    # and each set's bounds per perturbable input. Empty: timed calls rotate the sets as drawn.
    checked: list[RefCase] = field(default_factory=list)
    bounds: list[dict[str, Bounds | None]] = field(default_factory=list)
    fresh_reason: str = ""  # why timed calls do not get fresh inputs, when they do not

    @property
    def fresh(self) -> bool:
        return bool(self.checked)
    # Where the serial samples come from and how far to trust them (SerialBaseline.to_record).
    serial: dict[str, Any] = field(default_factory=dict)
    # A serial timing still under way when the data was handed out (timed in turns beside a batch):
    # it fills `serial_samples` and `serial` when done. Candidates time without it; their verdicts
    # wait for it (`wait_serial`).
    serial_timing: Future | None = None

    def wait_serial(self) -> None:
        """Wait for the serial timing if it is still under way; its failure (a ReferenceError) is
        raised here."""
        if self.serial_timing is not None:
            self.serial_timing.result()

    @property
    def nbytes(self) -> dict[str, int]:
        return self.sets[0].nbytes

    written_bytes: int = 0  # one call's outputs: what each checked call's expected outputs hold

    @property
    def held_bytes(self) -> int:
        """Memory the data holds while kept: the input files (memory-backed where possible) and
        the expected outputs, per set (each argument counted once, as input or output), and the
        expected outputs of checked calls beyond one per set (fresh inputs)."""
        extra = max(0, len(self.checked) - len(self.sets)) * self.written_bytes
        return sum(sum(s.nbytes.values()) for s in self.sets) + extra


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


def bench_bytes(task: Task, input_sets: int, fresh: bool = False) -> int:
    """What a task's bench data will hold while kept (`BenchReference.held_bytes`), before it is built."""
    sizes = array_nbytes(task, task.bench_size)
    extra = 0
    if fresh and has_perturbable(task):
        written = sum(sizes[a.name] for a in task.written)
        extra = max(0, CHECKED_CALLS - input_sets) * written
    return sum(sizes.values()) * input_sets + extra


def has_perturbable(task: Task) -> bool:
    return any(a.perturbable for a in task.args)


def set_bounds(task: Task, inputs: dict[str, Any]) -> dict[str, Bounds | None]:
    """The range each perturbable input of one drawn set keeps when perturbed."""
    return {a.name: bounds_of(np.asarray(inputs[a.name])) for a in task.args if a.perturbable}


def checked_calls(
    task: Task, sets: list[RefCase], bounds: list[dict[str, Bounds | None]], seed_of, build: int
) -> list[RefCase]:
    """The checked timed calls of fresh-input timing: each its own key, drawn from the run's secret,
    on a base set taken in turn from a secret start, so every set is checked. Their expected outputs
    are the serial reference's on exactly these perturbed inputs (filled in by the reference run)."""
    start = seed_of("checked-start", build) % len(sets)
    calls = []
    for slot in range(CHECKED_CALLS):
        s = (start + slot) % len(sets)
        key = seed_of("perturb", build, slot)
        calls.append(
            RefCase(
                f"bench set {s + 1}, checked timed call {slot + 1}",
                dict(sets[s].sizes),
                s,
                sets[s].dir,
                {},
                dict(sets[s].nbytes),
                perturb=Perturbation(key, bounds[s]),
            )
        )
    return calls


def perturbed_inputs(task: Task, case: RefCase) -> dict[str, Any]:
    """A case's inputs as its call saw them: read back from the files the workers used, with the
    case's perturbation applied (the inputs a task's checker judges a checked timed call by)."""
    values: dict[str, Any] = json.loads((case.dir / "scalars.json").read_text())
    for arg in task.args:
        if arg.is_array and arg.is_read:
            base = np.load(case.dir / f"{arg.name}.npy", mmap_mode="r")
            if case.perturb is not None and arg.name in case.perturb.bounds:
                values[arg.name] = perturbed(np.asarray(base), case.perturb.key, case.perturb.bounds[arg.name])
            else:
                values[arg.name] = base
    return values


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
