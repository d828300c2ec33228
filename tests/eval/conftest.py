from __future__ import annotations

from pathlib import Path

import pytest

from regrapht.eval import EvalConfig, Evaluator, TimingConfig
from regrapht.tasks import load_task

HERE = Path(__file__).parent


def quick_config(tmp_cache: Path, **overrides) -> EvalConfig:
    config = EvalConfig(
        timing_config=TimingConfig(budget_s=0.3, min_rounds=10, serial_budget_s=0.3),
        call_timeout_s=6.0,
        total_timeout_s=60.0,
        memory_limit_gib=1.0,
        cache_dir=str(tmp_cache),
        secret=b"regrapht-tests-fixed-secret",
    )
    for key, value in overrides.items():
        setattr(config, key, value)
    return config


@pytest.fixture(scope="session")
def build_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("build-cache")


@pytest.fixture(scope="session")
def vec_scale():
    return load_task(HERE / "tasks" / "vec_scale")


@pytest.fixture(scope="session")
def evaluator(build_cache: Path):
    with Evaluator(quick_config(build_cache)) as ev:
        yield ev


@pytest.fixture(scope="session")
def unscreened(build_cache: Path):
    """Source and symbol screens off, so the runtime defences are what catches a candidate."""
    with Evaluator(quick_config(build_cache, static_screen=False, symbol_screen=False)) as ev:
        yield ev


def candidate(name: str, folder: str = "hostile_cpu") -> str:
    return (HERE / folder / name).read_text()


@pytest.fixture()
def reference_job(evaluator, vec_scale):
    """A job for the serial reference on the test cases of vec_scale: (job, its folder, cases)."""
    tests = evaluator.case_reference(vec_scale)
    job_dir = evaluator.jobs.job_dir()
    job = evaluator.jobs.job(
        vec_scale,
        {"reference": evaluator.oracle.serial_library(vec_scale)},
        tests.cases,
        ["reference"],
        job_dir,
        uses_cuda=False,
        device_buffers=False,
        runs=1,
    )
    return job, job_dir, len(tests.cases)
