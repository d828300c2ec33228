"""Validating tasks: the reference compiles, runs, is deterministic, and its outputs depend on the
inputs and the seed (the degenerate-task screen); naive.cu and solution.cu pass on the GPU and the
bench size is large enough to measure the GPU rather than a launch."""

from __future__ import annotations

import os
import re
import time
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

import regrapht
from regrapht.eval import toolchain
from regrapht.eval.compile import Compiler
from regrapht.eval.config import EvalConfig
from regrapht.eval.entry import for_task
from regrapht.eval.evaluator import Evaluator, ReferenceError, _params
from regrapht.tasks import Task
from regrapht.tasks.similarity import leakage_problem
from regrapht.tasks.structs import components

MIN_NAIVE_MS = 1.0  # a bench size whose naive kernel runs shorter measures launches, not the GPU
# A launch can fill the GPU when every multiprocessor gets a block and at least two warps, so that
# half of its four warp schedulers have work (docs/suite.md, Fair baselines).
FILL_THREADS_PER_SM = 64
# A best-known solution's distinct optimization steps set its task's tier (docs/suite.md).
STEPS_BY_DIFFICULTY = {"easy": (1, 2), "medium": (3, 5), "hard": (6, None)}
STEPS_PREFIX = "// steps:"


def solution_steps(source: str) -> list[str] | None:
    """The methods a solution.cu lists on its first line (`// steps: a, b, c`), or None."""
    first = source.lstrip().splitlines()[0] if source.strip() else ""
    if not first.startswith(STEPS_PREFIX):
        return None
    return [m.strip() for m in first[len(STEPS_PREFIX) :].split(",") if m.strip()]


def steps_problem(source: str, difficulty: str) -> str | None:
    """Why solution.cu's step list does not fit the task's difficulty, or None."""
    steps = solution_steps(source)
    if not steps:
        return f"solution.cu must begin with `{STEPS_PREFIX} method, method, ...` (its optimization steps)"
    if len(set(steps)) != len(steps):
        return f"solution.cu lists a step twice: {', '.join(steps)}"
    low, high = STEPS_BY_DIFFICULTY[difficulty]
    if len(steps) < low or (high is not None and len(steps) > high):
        span = f"{low} or more" if high is None else f"{low} to {high}"
        return f"solution.cu lists {len(steps)} steps, but a {difficulty} task's solution takes {span}"
    return None


@dataclass
class TaskCheck:
    task_id: str
    split: str
    difficulty: str
    category: str
    ok: bool = True
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    measured: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0  # wall time of this task's check, to see where a suite run's time goes
    task_hash: str = ""  # the task files checked (Task.content_hash): a resumed check redoes changed tasks
    on_gpu: bool = False  # whether the GPU side ran
    gpu_name: str = ""  # which GPU, and which regrapht, judged it: a resumed check redoes other ones
    regrapht_version: str = ""

    def fail(self, message: str) -> None:
        self.ok = False
        self.problems.append(message)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def degenerate_problems(task: Task, cases: list) -> list[str]:
    """Reasons a task's reference outputs cannot tell right from wrong: constant, zero, or blind to the seed."""
    problems = []
    by_size: dict[tuple, list] = {}
    for case in cases:
        by_size.setdefault(tuple(sorted(case.sizes.items())), []).append(case)
    biggest = max(by_size.values(), key=lambda group: sum(group[0].nbytes.values()))
    for arg in task.written:
        outputs = [components(c.expected[arg.name], arg.dtype) for c in biggest]
        first = outputs[0]
        if all(np.array_equal(first, other, equal_nan=True) for other in outputs[1:]):
            problems.append(
                f"`{arg.name}` is identical for every seed at {biggest[0].label.rsplit(',', 1)[0]}: "
                "the output does not depend on the inputs"
            )
        values = first.astype(np.float64)
        finite = values[np.isfinite(values)]
        if first.size >= 8:
            if finite.size == 0:
                problems.append(f"`{arg.name}` has no finite values")
            elif np.all(finite == 0):
                problems.append(f"`{arg.name}` is all zeros: an unwritten output could pass")
            elif np.unique(first).size == 1:
                problems.append(f"`{arg.name}` is constant ({first[0]!r}): a trivial kernel could pass")
            elif np.count_nonzero(finite) < 0.01 * finite.size:
                problems.append(
                    f"`{arg.name}` is more than 99% zeros: a kernel that writes zeros nearly passes"
                )
    return problems


def check_task(task: Task, evaluator: Evaluator, gpu: bool, compiler: Compiler | None = None) -> TaskCheck:
    result = TaskCheck(task.id, task.split, task.difficulty, task.category)
    try:
        tests = evaluator.case_reference(task)
    except ReferenceError as exc:
        result.fail(str(exc))
        return result
    # Determinism: a second evaluator with the same secret draws the same inputs; the reference must agree.
    with Evaluator(
        EvalConfig(timing=False, secret=evaluator.secret, cache_dir=evaluator.config.cache_dir)
    ) as again:
        repeat = again.case_reference(task)
    for first, second in zip(tests.cases, repeat.cases):
        for name, value in first.expected.items():
            dt = task.arg(name).dtype
            if not np.array_equal(components(value, dt), components(second.expected[name], dt), equal_nan=True):
                result.fail(
                    f"the reference is not deterministic: `{name}` differs between two runs [{first.label}]"
                )
                break
    for problem in degenerate_problems(task, tests.cases):
        result.fail(problem)
    compiler = compiler or evaluator.compiler
    solution = _solution(task)
    for label, source in (
        ("naive.cu", task.naive_source()),
        ("library.cu", task.library_source()),
        ("solution.cu", solution),
    ):
        if source is None:
            if label == "naive.cu":
                result.warnings.append("no naive.cu: the GPU baseline is missing")
            continue
        built = compiler.compile(
            source, "cuda", task.function, _params(task), [a.name for a in task.args], entry=for_task(task, "cuda")
        )
        if not built.ok:
            missing = _missing_library_header(built.diagnostics) if label == "library.cu" else None
            if missing is not None:
                result.warnings.append(
                    f"library.cu was not built here: this CUDA toolkit has no {missing} (the GPU check builds it)"
                )
                continue
            result.fail(f"{label} does not compile with nvcc:\n{built.diagnostics}")
    if task.split == "test" and task.solution_path is None:
        result.fail("test tasks need solution.cu, the best-known solution")
    if solution is not None and (problem := steps_problem(solution, task.difficulty)):
        result.fail(problem)
    if gpu and result.ok:
        _check_on_gpu(task, evaluator, result)
    return result


_MISSING_HEADER = re.compile(r"fatal error: ([\w./]+): No such file or directory")
_VENDOR_HEADERS = ("cublas", "cusparse", "cufft", "curand", "cusolver", "cub/", "thrust/", "cuda/")


def _missing_library_header(diagnostics: str) -> str | None:
    """The vendor-library header a toolkit without that library lacks, when that is why a build
    failed (CPU-only machines often carry nvcc without cuBLAS or cuSPARSE)."""
    match = _MISSING_HEADER.search(diagnostics or "")
    if match and match.group(1).startswith(_VENDOR_HEADERS):
        return match.group(1)
    return None


def _solution(task: Task) -> str | None:
    return task.solution_path.read_text() if task.solution_path else None


def _check_on_gpu(task: Task, evaluator: Evaluator, result: TaskCheck) -> None:
    measured = result.measured
    try:
        naive = evaluator.evaluate(task, task.naive_source() or "", "cuda") if task.naive_path else None
    except ReferenceError as exc:
        result.fail(str(exc))
        return
    bench = evaluator.bench_reference(task)
    bench.wait_serial()
    measured["serial_ms"] = float(np.median(bench.serial_samples)) * 1e3
    if naive is not None:
        if naive.status != "correct":
            result.fail(f"naive.cu is {naive.status} on the GPU: {naive.message}")
        else:
            measured["naive_ms"] = naive.timings["candidate"]["median_s"] * 1e3
            measured["naive_speedup_over_serial"] = naive.speedups["serial"]["value"]
            measured["naive_roofline"] = naive.roofline.get("fraction_of_floor")
            if measured["naive_ms"] < MIN_NAIVE_MS:
                result.warnings.append(
                    f"naive.cu runs {measured['naive_ms']:.3f} ms at the bench size "
                    f"(aim for >= {MIN_NAIVE_MS:g} ms)"
                )
            measured["gpu"] = naive.fingerprint.get("gpu")
            _check_fairness(task, evaluator, result, bench)
    if task.library_path is not None:
        _check_library(task, evaluator, result)
    solution = _solution(task)
    if solution is not None:
        best = evaluator.evaluate(task, solution, "cuda")
        if best.status != "correct":
            result.fail(f"solution.cu is {best.status} on the GPU: {best.message}")
        else:
            measured["solution_ms"] = best.timings["candidate"]["median_s"] * 1e3
            measured["solution_speedup_over_serial"] = best.speedups["serial"]["value"]
            if "naive" in best.speedups:
                measured["solution_speedup_over_naive"] = best.speedups["naive"]["value"]
                measured["solution_speedup_over_naive_ci"] = [
                    best.speedups["naive"]["ci_low"],
                    best.speedups["naive"]["ci_high"],
                ]
            measured["solution_roofline"] = best.roofline.get("fraction_of_floor")
            if "library" in best.speedups:
                measured["solution_fraction_of_library"] = best.speedups["library"]["value"]


def _check_library(task: Task, evaluator: Evaluator, result: TaskCheck) -> None:
    """library.cu is a baseline: it must be correct on every test size, like naive.cu, or every
    candidate's fraction of it would be measured against a wrong answer."""
    library = evaluator.evaluate(task, task.library_source() or "", "cuda")
    if library.status != "correct":
        result.fail(f"library.cu is {library.status} on the GPU: {library.message}")
        return
    result.measured["library_ms"] = library.timings["candidate"]["median_s"] * 1e3
    result.measured["library_speedup_over_serial"] = library.speedups["serial"]["value"]
    result.measured["library_roofline"] = library.roofline.get("fraction_of_floor")


def fairness_problems(task: Task, measured: dict[str, Any]) -> list[str]:
    """Why naive.cu is not a fair baseline, from what the GPU check measured: slower than the serial
    reference, or a largest launch that cannot fill the GPU; a task's `[waivers]` may say why either
    is right for it."""
    problems = []
    serial_ms, naive_ms = measured.get("serial_ms"), measured.get("naive_ms")
    slow = serial_ms is not None and naive_ms is not None and naive_ms > serial_ms
    if slow and not task.waiver("naive_slower_than_serial"):
        problems.append(
            f"naive.cu runs {naive_ms:.3f} ms at the bench size, slower than the serial reference "
            f"({serial_ms:.1f} ms): a direct port should not lose to one CPU thread (or say why in "
            "task.toml's [waivers] naive_slower_than_serial)"
        )
    launch = measured.get("naive_launch")
    if launch is not None:
        sms = launch["sms"]
        if (launch["max_blocks"] < sms or launch["max_threads"] < FILL_THREADS_PER_SM * sms) and not task.waiver(
            "naive_underfills_gpu"
        ):
            problems.append(
                f"naive.cu's largest launch at the bench size has {launch['max_blocks']} blocks of "
                f"{launch['max_threads']} threads in all, too few to fill the GPU's {sms} multiprocessors "
                f"(a block and {FILL_THREADS_PER_SM} threads each): a direct port gives each output or "
                "slice of work a thread (or say why not in task.toml's [waivers] naive_underfills_gpu)"
            )
    return problems


PROBE_FLOOR_S = 60.0  # the probe child's imports, CUDA context and input loads, with room to spare
PROBE_CEILING_S = 300.0


def probe_timeout_s(measured: dict[str, Any]) -> float:
    """How long the launch probe may take: its fixed start-up cost plus many times the one call it
    makes, whose time the check has just measured. A probed call that hangs (session 12: a naive.cu
    whose host loop never ended under the probe) then costs a minute of the check, not five."""
    naive_ms = measured.get("naive_ms")
    if naive_ms is None:
        return PROBE_CEILING_S
    return min(PROBE_CEILING_S, max(PROBE_FLOOR_S, PROBE_FLOOR_S + 100.0 * naive_ms / 1e3))


def _check_fairness(task: Task, evaluator: Evaluator, result: TaskCheck, bench: Any) -> None:
    """Measure naive.cu's launches at the bench size (the launch probe) and apply fairness_problems."""
    from regrapht.eval.launch_probe import ProbeError, probe_launches

    built = evaluator.compiler.compile(
        task.naive_source() or "",
        "cuda",
        task.function,
        _params(task),
        [a.name for a in task.args],
        entry=for_task(task, "cuda"),
    )
    try:
        if not built.ok or built.library is None:
            raise ProbeError("naive.cu did not build for the probe")
        stats = probe_launches(
            task, built.library, bench.sets[0].dir, bench.sets[0].sizes, timeout_s=probe_timeout_s(result.measured)
        )
        result.measured["naive_launch"] = stats.to_dict()
    except ProbeError as exc:  # the probe's own failure: no finding about the task either way
        result.warnings.append(f"launch probe: {exc}")
    for problem in fairness_problems(task, result.measured):
        result.fail(problem)


def _screen_leakage(task: Task, train: list[Task], check: TaskCheck) -> None:
    problem, near = leakage_problem(task, train)
    if near is not None:
        check.measured["nearest_train"] = {
            "task": near.other,
            "score": round(near.score, 3),
            "serial": round(near.serial, 3),
            "naive": round(near.naive, 3),
        }
    if problem is not None:
        check.fail(problem)


def reusable_results(
    previous: list[dict[str, Any]], tasks: list[Task], gpu: bool, gpu_name: str = ""
) -> dict[str, dict[str, Any]]:
    """Passing results of an earlier check (its JSON rows) that still hold: same task files, same GPU
    (or none), same regrapht. Failures are always checked again."""
    current = {t.id: t.content_hash() for t in tasks}
    return {
        row["task_id"]: row
        for row in previous
        if isinstance(row, dict)
        and row.get("ok") is True
        and row.get("task_id") in current
        and row.get("task_hash") == current[row["task_id"]]
        and bool(row.get("on_gpu")) == gpu
        and row.get("gpu_name", "") == (gpu_name if gpu else "")
        and row.get("regrapht_version") == regrapht.__version__
    }


def strict_library_bounds(config: EvalConfig) -> EvalConfig:
    """The suite's library fractions are its numbers: library.cu timed to the candidate's own bounds
    (not the looser ones an evaluation's timing gives it, config.TimingConfig.library_target_rse)."""
    tc = config.timing_config
    return replace(config, timing_config=replace(tc, library_target_rse=tc.target_rse, library_halfwidth=tc.interval_halfwidth))


def check_tasks(
    tasks: list[Task],
    gpu: bool | None = None,
    config: EvalConfig | None = None,
    on_result=None,
    reference_threads: int = 1,
    train: list[Task] | None = None,
) -> list[TaskCheck]:
    """Check each task; test tasks are also screened against `train` (the suite's train tasks) for
    near-duplicates (regrapht/data/leakage.toml), on the GPU or not."""
    gpu = bool(toolchain.gpus()) if gpu is None else gpu
    results = []
    config = config or EvalConfig()
    config = strict_library_bounds(config)
    if config.jobs is None:
        # Leave cores to the timed worker and the reference threads, so timings are not descheduled.
        config.jobs = max(1, (os.cpu_count() or 2) - reference_threads - 2)
    with Evaluator(config) as evaluator:
        # Every nvcc build starts now on the compile pool; the checks below then hit the cache.
        for task in tasks:
            for source in (task.naive_source(), _solution(task)):
                if source is not None:
                    evaluator.compiler.submit(
                        source,
                        "cuda",
                        task.function,
                        _params(task),
                        [a.name for a in task.args],
                        entry=for_task(task, "cuda"),
                    )
        if gpu:
            evaluator.prefetch(tasks, threads=reference_threads)
        gpu_info = (toolchain.gpus() or [None])[0]
        for task in tasks:
            began = time.perf_counter()
            task_hash = task.content_hash()  # before the check: an edit made meanwhile is checked next time
            try:
                check = check_task(task, evaluator, gpu)
            except Exception as exc:  # one broken task must not end the check of the others
                check = TaskCheck(task.id, task.split, task.difficulty, task.category)
                check.fail(f"internal error while checking: {type(exc).__name__}: {exc}")
            if train is not None:
                _screen_leakage(task, train, check)
            check.seconds = round(time.perf_counter() - began, 2)
            check.task_hash, check.on_gpu, check.regrapht_version = task_hash, gpu, regrapht.__version__
            check.gpu_name = gpu_info.name if gpu and gpu_info is not None else ""
            results.append(check)
            if on_result is not None:
                on_result(check)
            evaluator.release(task)
    return results
