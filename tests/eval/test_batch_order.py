"""The batch path runs whatever is ready: a task whose bench data is still being built is passed over
while another task's candidates can run, one task's candidates keep their order, the results come
back in the order they were asked for, and the device never idles while some item could start."""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from types import SimpleNamespace

from regrapht.eval import Evaluator
from regrapht.eval.evaluator import _Prepared
from regrapht.tasks import load_task
from tests.eval.conftest import HERE, candidate, quick_config


def test_a_task_whose_bench_data_is_being_built_is_passed_over(build_cache, vec_scale):
    host = load_task(HERE / "tasks" / "vec_scale_host")
    slow_build = threading.Event()
    with Evaluator(quick_config(build_cache, reference_threads=2)) as evaluator:
        evaluator._bench_reference(host)  # built: the host task's candidates are ready to run
        build = evaluator._build_bench_reference

        def slow_for_vec_scale(task):
            if task.id == vec_scale.id:
                slow_build.set()
                time.sleep(2.0)
            return build(task)

        evaluator._build_bench_reference = slow_for_vec_scale
        finished: list[tuple[str, str]] = []
        finish = evaluator._finish

        def logged(p):
            ev = finish(p)
            finished.append((p.task.id, p.source))
            return ev

        evaluator._finish = logged
        first, second = candidate("correct.cpp"), candidate("correct.cpp") + "\n// again\n"
        items = [
            (vec_scale, first, "cpu"),
            (vec_scale, second, "cpu"),
            (host, candidate("correct.cpp"), "cpu"),
            (host, candidate("wrong.cpp"), "cpu"),
        ]
        results = evaluator.evaluate_many(items)
    assert slow_build.is_set()
    assert [r.task_id for r in results] == [vec_scale.id, vec_scale.id, host.id, host.id]
    assert [r.status for r in results] == ["correct", "correct", "correct", "wrong_answer"]
    order = [task for task, _ in finished]
    assert order[:2] == [host.id, host.id]  # the ready task went first
    assert [src for task, src in finished if task == vec_scale.id] == [first, second]


def _item(task_id: str, compiled: bool) -> _Prepared:
    future: Future = Future()
    if compiled:
        future.set_result(SimpleNamespace(ok=True))
    task = SimpleNamespace(id=task_id, root=f"/tasks/{task_id}", convention="device")
    return _Prepared(task, "", "cpu", [], future, {}, 0.0)  # type: ignore[arg-type]


def test_a_compiled_item_runs_rather_than_waiting_for_other_compiles(build_cache):
    """No item is fully ready: the first compiled one starts (its bench data is built as it runs),
    instead of the device idling until an unrelated compile ends."""
    with Evaluator(quick_config(build_cache)) as evaluator:
        evaluator._task_dir = lambda task: f"/ref/{task.id}"  # type: ignore[method-assign]
        items = [_item("a", compiled=False), _item("b", compiled=True), _item("c", compiled=True)]
        began = time.perf_counter()
        assert evaluator._next_runnable(items, [0, 1, 2]) == 1
        assert time.perf_counter() - began < 0.5
        built: Future = Future()
        built.set_result(None)
        evaluator._benches["/ref/c"] = built  # c's data is ready: c goes before b
        assert evaluator._next_runnable(items, [0, 1, 2]) == 2


def test_released_bench_data_is_kept_within_the_cache_and_dropped_beyond_it(build_cache, vec_scale):
    host = load_task(HERE / "tasks" / "vec_scale_host")
    with Evaluator(quick_config(build_cache, reference_cache_gib=1.0)) as evaluator:
        first = evaluator._bench_reference(vec_scale)
        evaluator.release(vec_scale)
        assert evaluator._bench_reference(vec_scale) is first  # the next batch reuses it
        assert first.dir.is_dir()
    one_task = first.held_bytes
    assert one_task == 2 * (2 * 4 * 1048576)  # two sets of x and out, float32, n = 2^20
    # room for one task's data: releasing a second task drops the least recently released one
    with Evaluator(quick_config(build_cache, reference_cache_gib=1.5 * one_task / (1 << 30))) as evaluator:
        a = evaluator._bench_reference(vec_scale)
        evaluator.release(vec_scale)
        b = evaluator._bench_reference(host)
        evaluator.release(host)
        assert not a.dir.exists() and b.dir.is_dir()
        assert evaluator._bench_reference(host) is b
        assert evaluator._bench_reference(vec_scale) is not a  # built again
