"""The batch path runs whatever is ready: a task whose bench data is still being built is passed over
while another task's candidates can run, one task's candidates keep their order, and the results
come back in the order they were asked for."""

from __future__ import annotations

import threading
import time

from regrapht.eval import Evaluator
from regrapht.tasks import load_task
from tests.eval.conftest import HERE, candidate, quick_config


def test_a_task_whose_bench_data_is_being_built_is_passed_over(build_cache, vec_scale):
    host = load_task(HERE / "tasks" / "vec_scale_host")
    slow_build = threading.Event()
    with Evaluator(quick_config(build_cache, reference_threads=2)) as evaluator:
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
    assert order.index(host.id) < order.index(vec_scale.id)  # the ready task went first
    assert [src for task, src in finished if task == vec_scale.id] == [first, second]
