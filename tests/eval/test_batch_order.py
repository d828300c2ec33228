"""The batch path runs whatever is ready: a task whose bench data is still being built is passed over
while another task's candidates can run, one task's candidates keep their order, the results come
back in the order they were asked for, and the device never idles while some item could start."""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from types import SimpleNamespace

import numpy as np

from regrapht.eval import Evaluator
from regrapht.eval.bench_cache import BenchCache
from regrapht.eval.evaluator import Prepared, build_order
from regrapht.eval.reference import bench_bytes
from regrapht.tasks import load_task
from tests.eval.conftest import HERE, candidate, quick_config


def test_a_task_whose_bench_data_is_being_built_is_passed_over(build_cache, vec_scale):
    host = load_task(HERE / "tasks" / "vec_scale_host")
    slow_build, hosts_done = threading.Event(), threading.Event()
    with Evaluator(quick_config(build_cache, reference_threads=2)) as evaluator:
        evaluator.bench_reference(host)  # built: the host task's candidates are ready to run
        build = evaluator.oracle.build_bench_reference

        def slow_for_vec_scale(task):
            if task.id == vec_scale.id:
                slow_build.set()
                # Until the host task's items are done (bounded): however slow their compiles on a
                # loaded machine, vec_scale's items never become ready first (a fixed 2 s sleep
                # let them, where the batch waits for a build under way rather than start a worker).
                hosts_done.wait(30.0)
            return build(task)

        evaluator.oracle.build_bench_reference = slow_for_vec_scale
        finished: list[tuple[str, str]] = []
        finish = evaluator.finish

        def logged(p):
            ev = finish(p)
            finished.append((p.task.id, p.source))
            if sum(task == host.id for task, _ in finished) == 2:
                hosts_done.set()
            return ev

        evaluator.finish = logged
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


def _item(task_id: str, compiled: bool) -> Prepared:
    future: Future = Future()
    if compiled:
        future.set_result(SimpleNamespace(ok=True))
    task = SimpleNamespace(
        id=task_id, root=f"/tasks/{task_id}", instance_key=f"/tasks/{task_id}", convention="device", device_buffers=True
    )
    return Prepared(task, "", "cpu", [], future, {}, 0.0)  # type: ignore[arg-type]


def _stand_in_cache(evaluator: Evaluator, build=lambda task: SimpleNamespace(held_bytes=0)) -> BenchCache:
    """The evaluator's bench cache, swapped for one keyed by task id whose builds are `build`."""
    evaluator.benches = BenchCache(build, lambda task: f"/ref/{task.id}", lambda task: 0, 1 << 30, 2)
    return evaluator.benches


def _building(cache: BenchCache, task, until: threading.Event) -> threading.Thread:
    """Start `task`'s build on a thread; it lasts until `until` is set."""
    thread = threading.Thread(target=cache.get, args=(task,), daemon=True)
    thread.start()
    deadline = time.monotonic() + 5.0
    while cache.future(task) is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert cache.future(task) is not None
    return thread


def test_a_compiled_item_runs_rather_than_waiting_for_other_compiles(build_cache):
    """No item is fully ready: the compiled items' bench builds start at once, and the first compiled
    item whose data is ready runs, instead of the device idling until an unrelated compile ends."""
    gate = threading.Event()

    def build(task):
        if task.id == "b":
            gate.wait(10.0)
        return SimpleNamespace(held_bytes=0)

    with Evaluator(quick_config(build_cache, reference_threads=2)) as evaluator:
        cache = _stand_in_cache(evaluator, build=build)
        items = [_item("a", compiled=False), _item("b", compiled=True), _item("c", compiled=True)]
        began = time.perf_counter()
        assert evaluator.next_runnable(items, [0, 1, 2]) == 2  # c's data came first; a's compile never ends
        assert time.perf_counter() - began < 0.9
        assert cache.future(items[1].task) is not None and not cache.future(items[1].task).done()
        gate.set()
        cache.future(items[1].task).result(timeout=5)
        assert evaluator.next_runnable(items, [0, 1]) == 1


def test_released_bench_data_is_kept_within_the_cache_and_dropped_beyond_it(build_cache, vec_scale):
    host = load_task(HERE / "tasks" / "vec_scale_host")
    with Evaluator(quick_config(build_cache, reference_cache_gib=1.0)) as evaluator:
        first = evaluator.bench_reference(vec_scale)
        evaluator.release(vec_scale)
        assert evaluator.bench_reference(vec_scale) is first  # the next batch reuses it
        assert first.dir.is_dir()
    one_task = first.held_bytes
    # two sets of x and out, float32, n = 2^20, and (fresh inputs) the expected `out` of three more
    # checked calls: five in all, one per checked timed call
    assert one_task == 2 * (2 * 4 * 1048576) + 3 * 4 * 1048576
    assert one_task == bench_bytes(vec_scale, 2, fresh=True)
    # room for one task's data: releasing a second task drops the least recently released one
    with Evaluator(quick_config(build_cache, reference_cache_gib=1.5 * one_task / (1 << 30))) as evaluator:
        a = evaluator.bench_reference(vec_scale)
        evaluator.release(vec_scale)
        b = evaluator.bench_reference(host)
        evaluator.release(host)
        assert not a.dir.exists() and b.dir.is_dir()
        assert evaluator.bench_reference(host) is b
        assert evaluator.bench_reference(vec_scale) is not a  # built again


def _sized(task_id: str, n: int) -> SimpleNamespace:
    """A task stand-in whose bench data holds `n` float32 elements per input set."""
    array = SimpleNamespace(
        name="data", n_elements=lambda sizes: n, dtype=SimpleNamespace(numpy=np.dtype("float32"))
    )
    return SimpleNamespace(
        id=task_id,
        root=f"/tasks/{task_id}",
        instance_key=f"/tasks/{task_id}",
        convention="device",
        device_buffers=True,
        arrays=[array],
        args=(),
        bench_size={},
    )


def test_bench_data_is_built_from_both_ends_of_the_size_ranking():
    tasks = [
        _sized("mid", 300),
        _sized("huge", 4000),
        _sized("tiny", 10),
        _sized("big", 900),
        _sized("small", 50),
    ]
    assert bench_bytes(tasks[1], 2) == 2 * 4 * 4000
    assert [t.id for t in build_order(tasks, 2)] == ["tiny", "huge", "small", "big", "mid"]
    assert [t.id for t in build_order(tasks[:2], 2)] == ["mid", "huge"]


def test_while_nothing_is_ready_the_task_whose_data_comes_soonest_runs(build_cache):
    """Not waiting for bench data (wait_for_bench_data off): both waiting tasks' data is being built,
    so the smaller one's candidate starts (its data comes first); a task whose build has not started
    comes after both."""
    done = threading.Event()
    with Evaluator(quick_config(build_cache, wait_for_bench_data=False)) as evaluator:
        cache = _stand_in_cache(evaluator, build=lambda task: done.wait(10.0))
        items = []
        for task in (_sized("unstarted", 1), _sized("large", 10**6), _sized("small", 10**3)):
            p = _item(task.id, compiled=True)
            p.task = task
            items.append(p)
        builds = [_building(cache, items[1].task, done), _building(cache, items[2].task, done)]
        assert evaluator.next_runnable(items, [0, 1, 2]) == 2
        cache.release(items[2].task)  # dropped while being built
        assert evaluator.next_runnable(items, [0, 1, 2]) == 1
        cache.release(items[1].task)
        assert evaluator.next_runnable(items, [0, 1, 2]) == 0  # none being built: the first
        done.set()
        for thread in builds:
            thread.join(timeout=5)


def test_no_worker_starts_while_its_bench_data_is_being_built(build_cache):
    """By default nothing starts while every compiled item waits for bench data under way: the item
    whose build ends first runs (the second task's here), as soon as it ends."""
    gates = {"large": threading.Event(), "small": threading.Event()}
    with Evaluator(quick_config(build_cache)) as evaluator:
        cache = _stand_in_cache(evaluator, build=lambda task: gates[task.id].wait(10.0))
        items = []
        for task in (_sized("large", 10**6), _sized("small", 10**3)):
            p = _item(task.id, compiled=True)
            p.task = task
            items.append(p)
        builds = [_building(cache, p.task, gates[p.task.id]) for p in items]
        chosen: list[int] = []
        picker = threading.Thread(target=lambda: chosen.append(evaluator.next_runnable(items, [0, 1])), daemon=True)
        picker.start()
        picker.join(timeout=0.5)
        assert picker.is_alive() and not chosen
        gates["small"].set()
        began = time.perf_counter()
        picker.join(timeout=5.0)
        assert chosen == [1]
        assert time.perf_counter() - began < 0.9  # woken by the build's end, not the 1 s poll
        gates["large"].set()
        for thread in builds:
            thread.join(timeout=5)


def test_a_task_whose_build_nobody_started_gets_one_and_is_waited_for(build_cache):
    """A compiled item whose task's bench data is neither built nor being built: its build starts at
    once, off the device, and the item runs when it ends, rather than a worker that would build the
    data itself while holding its device. With wait_for_bench_data off, it runs at once as before."""
    gate, calls = threading.Event(), []

    def build(task):
        calls.append(task.id)
        gate.wait(10.0)
        return SimpleNamespace(held_bytes=0)

    with Evaluator(quick_config(build_cache)) as evaluator:
        cache = _stand_in_cache(evaluator, build=build)
        unstarted = _item("unstarted", compiled=True)
        unstarted.task = _sized("unstarted", 1)
        chosen: list[int] = []
        picker = threading.Thread(target=lambda: chosen.append(evaluator.next_runnable([unstarted], [0])), daemon=True)
        picker.start()
        picker.join(timeout=0.5)
        assert picker.is_alive() and not chosen  # waiting for the build it started
        assert calls == ["unstarted"] and cache.future(unstarted.task) is not None
        gate.set()
        picker.join(timeout=5.0)
        assert chosen == [0]
        assert cache.get(unstarted.task).held_bytes == 0 and calls == ["unstarted"]  # built once
    with Evaluator(quick_config(build_cache, wait_for_bench_data=False)) as evaluator:
        cache = _stand_in_cache(evaluator, build=build)
        other = _item("other", compiled=True)
        other.task = _sized("other", 1)
        assert evaluator.next_runnable([other], [0]) == 0 and cache.future(other.task) is None


def test_a_batch_starts_one_build_of_its_own_at_a_time(build_cache):
    """Three waiting tasks, none being built, one build thread (reference_threads=1): the batch starts
    the first one's build and waits for it before it starts another (a batch of many tasks never
    starts every build at once)."""
    gates = {name: threading.Event() for name in ("t0", "t1", "t2")}
    calls: list[str] = []

    def build(task):
        calls.append(task.id)
        gates[task.id].wait(10.0)
        return SimpleNamespace(held_bytes=0)

    with Evaluator(quick_config(build_cache, reference_threads=1)) as evaluator:
        _stand_in_cache(evaluator, build=build)
        items = []
        for name in gates:
            p = _item(name, compiled=True)
            p.task = _sized(name, 1)
            items.append(p)
        chosen: list[int] = []
        picker = threading.Thread(target=lambda: chosen.append(evaluator.next_runnable(items, [0, 1, 2])), daemon=True)
        picker.start()
        picker.join(timeout=0.6)
        assert picker.is_alive() and calls == ["t0"]
        gates["t0"].set()
        picker.join(timeout=5.0)
        assert chosen == [0] and calls == ["t0"]
        for gate in gates.values():
            gate.set()


def test_build_now_registers_the_build_before_returning_and_hands_errors_to_every_caller():
    def build(task):
        if task.id == "bad":
            raise ValueError("no inputs")
        return SimpleNamespace(held_bytes=1)

    cache = BenchCache(build, lambda task: f"/ref/{task.id}", lambda task: 0, 1 << 30, 2)
    good, bad = _sized("good", 1), _sized("bad", 1)
    future = cache.build_now(good)
    assert cache.future(good) is future and cache.build_now(good) is future
    assert future.result(timeout=5).held_bytes == 1 and cache.get(good) is future.result()
    failed = cache.build_now(bad)
    assert isinstance(failed.exception(timeout=5), ValueError)
    try:
        cache.get(bad)
    except ValueError as exc:
        assert "no inputs" in str(exc)
    else:
        raise AssertionError("the failed build's error was not handed to a later caller")
    cache.close()
    late = _sized("late", 1)
    assert isinstance(cache.build_now(late).exception(timeout=1), RuntimeError) and cache.future(late) is None


def test_builds_run_ahead_past_the_count_while_their_data_fits():
    """Two tasks are built ahead and unreleased (the lookahead count): a third starts anyway when the
    data of all three fits the cache's cap, and waits when it does not."""
    for cap, starts in ((1 << 30, True), (1000, False)):
        built: list[str] = []
        cache = BenchCache(
            lambda task, built=built: built.append(task.id), lambda task: f"/ref/{task.id}", lambda task: 8000, cap, 2
        )
        cache.lookahead = 2
        cache.build_ahead(_sized("a", 2000))
        cache.build_ahead(_sized("b", 2000))
        worker = threading.Thread(target=cache.build_ahead, args=(_sized("c", 1000),), daemon=True)
        worker.start()
        worker.join(timeout=5.0 if starts else 0.5)  # a loaded machine may start the thread late
        assert (built == ["a", "b", "c"]) is starts
        cache.close()  # lets a waiting build give up
        worker.join(timeout=3)
        assert not worker.is_alive()
        assert built[2:] == (["c"] if starts else [])


def test_bench_sets_drawn_on_threads_equal_a_sequential_draw(tmp_path, vec_scale):
    """Each set comes from its own generator, so drawing them at once changes nothing: every array
    equals the one a sequential draw makes, the sets differ, and all share the first set's scalars."""
    from regrapht.eval.reference import draw_bench_sets
    from regrapht.tasks import make_inputs

    def seed_of(*parts):
        return hash(parts) & 0xFFFF_FFFF

    sets = draw_bench_sets(vec_scale, tmp_path, 3, seed_of)
    first = make_inputs(vec_scale, vec_scale.bench_size, np.random.default_rng(seed_of("bench", 0)))
    for s, case in enumerate(sets):
        alone = make_inputs(vec_scale, vec_scale.bench_size, np.random.default_rng(seed_of("bench", s)))
        for arg in vec_scale.args:
            if arg.is_array and arg.is_read:
                assert np.array_equal(np.load(case.dir / f"{arg.name}.npy"), alone[arg.name])
            elif not arg.is_array:
                assert case.inputs[arg.name] == first[arg.name]
    assert not np.array_equal(np.load(sets[0].dir / "x.npy"), np.load(sets[1].dir / "x.npy"))
