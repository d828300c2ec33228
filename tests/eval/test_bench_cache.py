"""The bench-reference cache through its public API, with stand-in builds: one build per task, a
failed build raised to every caller, retention within the cap and release of what falls out."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from regrapht.eval.bench_cache import BenchCache


def _task(task_id: str) -> SimpleNamespace:
    return SimpleNamespace(id=task_id, root=f"/tasks/{task_id}")


def _cache(cap: int, built: list[str], dropped: list[str]) -> BenchCache:
    def build(task):
        built.append(task.id)
        if task.id == "broken":
            raise RuntimeError("its generator failed")
        return SimpleNamespace(task_id=task.id, held_bytes=100)

    def drop(bench) -> None:
        dropped.append(bench.task_id)

    return BenchCache(build, lambda task: task.id, lambda task: 100, cap, 2, on_drop=drop)


def test_a_task_is_built_once_and_a_failed_build_is_raised_to_every_caller() -> None:
    built: list[str] = []
    cache = _cache(1000, built, [])
    a = cache.get(_task("a"))
    assert cache.get(_task("a")) is a and built == ["a"]
    assert cache.future(_task("a")).done() and cache.future(_task("b")) is None
    for _ in range(2):
        with pytest.raises(RuntimeError, match="its generator failed"):
            cache.get(_task("broken"))
    assert built == ["a", "broken"]


def test_released_data_stays_within_the_cap_and_the_least_recently_released_goes_first() -> None:
    built: list[str] = []
    dropped: list[str] = []
    cache = _cache(250, built, dropped)
    for task_id in ("a", "b"):
        cache.get(_task(task_id))
        cache.release(_task(task_id))
    assert dropped == []  # 200 bytes retained, within 250
    cache.get(_task("c"))
    cache.release(_task("c"))
    assert dropped == ["a"] and cache.future(_task("a")) is None
    cache.get(_task("b"))  # in use again: retained data no longer counts it
    assert built == ["a", "b", "c"]
    cache.get(_task("a"))
    assert built == ["a", "b", "c", "a"]  # dropped data is built again
