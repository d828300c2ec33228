"""The serial baseline: timed once in quiet, kept per machine, task, bench size and toolchain, reused
by later evaluators with its spread, and never reused for anything its key does not match."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from regrapht.eval import Evaluator
from regrapht.eval.serial_baselines import (
    SERIAL_METHOD,
    SerialBaseline,
    SerialBaselineStore,
    baseline_key,
    machine_identity,
)
from regrapht.tasks import load_task
from tests.eval.conftest import HERE, candidate, quick_config

KEY_ARGS = dict(
    task_id="vec_scale",
    task_hash="0123456789abcdef",
    bench_size={"n": 1 << 20},
    input_sets=2,
    serial_build_key="build-key",
    serial_budget_s=3.0,
    serial_max_rounds=50,
)


def _config(tmp_path: Path, build_cache: Path, **overrides):
    """A store of its own; acceptance that depends on the evaluator alone (not on how busy the shared
    test machine is), unless a test asks otherwise."""
    config = quick_config(build_cache, serial_store=str(tmp_path / "baselines.sqlite"))
    config.timing_config.serial_max_median_error = 1e9
    config.timing_config.serial_max_background = 1e9
    for key, value in overrides.items():
        setattr(config.timing_config, key, value)
    return config


def _serial(ev) -> dict:
    assert ev.status == "correct", ev.message
    return ev.timings["serial"]


# ---- the key -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("task_id", "vec_scale_2"),
        ("task_hash", "fedcba9876543210"),  # any file of the task folder changed
        ("bench_size", {"n": 1 << 21}),
        ("input_sets", 3),
        ("serial_build_key", "other-build"),  # source, flags, compiler version, CPU model
        ("serial_budget_s", 1.0),
        ("serial_max_rounds", 10),
    ],
)
def test_every_field_of_the_key_changes_it(field, value):
    base, _ = baseline_key(**KEY_ARGS)
    changed, _ = baseline_key(**{**KEY_ARGS, field: value})
    assert changed != base


def test_the_key_names_the_machine_and_the_method():
    key, fields = baseline_key(**KEY_ARGS)
    assert key == baseline_key(**KEY_ARGS)[0]  # stable
    assert fields["machine"] == machine_identity()
    assert {"host", "machine_id", "cpu", "cpus", "usable_cpus", "memory_bytes"} <= set(fields["machine"])
    assert fields["method"] == SERIAL_METHOD and fields["regrapht"]


def test_the_compile_key_of_serial_cpp_covers_compiler_flags_and_cpu(evaluator, vec_scale):
    """The serial build's key is the compile cache's: source, flags, compiler version, CPU model."""
    build = evaluator.oracle.serial_build(vec_scale)
    assert build.key and "-O3" in build.flags
    key, fields = evaluator.oracle.serial_key(vec_scale)
    assert fields["serial_build"] == build.key and fields["task_hash"] == vec_scale.content_hash()


# ---- the store ---------------------------------------------------------------------------------
def test_the_store_keeps_the_first_acceptable_timing_and_forgets_on_request(tmp_path):
    key, fields = baseline_key(**KEY_ARGS)
    store = SerialBaselineStore(tmp_path / "b.sqlite")
    assert store.get(key) is None
    first = SerialBaseline([1.0e-3, 1.1e-3, 1.2e-3], quiet=True, background_cores=0.1)
    assert store.put(key, fields, first)
    assert not store.put(key, fields, SerialBaseline([9e-3], quiet=True, background_cores=0.0))
    store.close()
    again = SerialBaselineStore(tmp_path / "b.sqlite")  # another evaluator, later
    kept = again.get(key)
    assert kept is not None and kept.samples == first.samples and kept.source == "store"
    assert kept.quiet and kept.background_cores == pytest.approx(0.1) and kept.key == key
    assert again.forget("another_task") == 0 and again.get(key) is not None
    assert again.forget("vec_scale") == 1 and again.get(key) is None
    again.close()


def test_a_damaged_entry_is_timed_again_never_divided_by(tmp_path):
    key, fields = baseline_key(**KEY_ARGS)
    store = SerialBaselineStore(tmp_path / "b.sqlite")
    store.put(key, fields, SerialBaseline([1e-3], quiet=True, background_cores=0.0))
    store.store.execute("UPDATE serial_baselines SET samples_json = '[0.0]'")
    assert store.get(key) is None
    store.close()


@pytest.mark.parametrize(
    ("baseline", "phrase"),
    [
        (SerialBaseline([1e-3] * 5, quiet=False, background_cores=0.0), "still running"),
        (SerialBaseline([1e-3] * 5, quiet=True, background_cores=1.5), "1.50 cores busy"),
        (SerialBaseline([1e-3] * 5, quiet=True, background_cores=None), "could not be measured"),
        (SerialBaseline([1e-3, 1e-3, 2e-3, 2e-3], quiet=True, background_cores=0.0), "known to"),
        (SerialBaseline([], quiet=True, background_cores=0.0), "no samples"),
    ],
)
def test_a_timing_that_is_not_quiet_or_spreads_too_far_is_not_kept(baseline, phrase):
    assert phrase in baseline.problem(max_median_error=0.01, max_background=0.5)


def test_what_is_kept_depends_on_how_well_the_median_is_known():
    """A 5% spread over 27 samples pins the median to under 1%; the same spread over 3 does not."""
    import numpy as np

    many = SerialBaseline(list(1e-3 * np.linspace(0.95, 1.05, 27)), quiet=True, background_cores=0.0)
    few = SerialBaseline(list(1e-3 * np.linspace(0.95, 1.05, 3)), quiet=True, background_cores=0.0)
    assert many.rel_iqr == pytest.approx(0.05) and few.rel_iqr == pytest.approx(0.05)
    assert many.rel_median_error < 0.01 < few.rel_median_error
    assert many.problem(max_median_error=0.01, max_background=0.5) is None
    assert "3 samples" in few.problem(max_median_error=0.01, max_background=0.5)


def test_a_quiet_tight_timing_is_kept():
    assert SerialBaseline([1.00e-3, 1.01e-3, 1.02e-3], quiet=True, background_cores=0.2).problem(0.03, 0.5) is None


# ---- the evaluator -----------------------------------------------------------------------------
def test_a_later_evaluator_reuses_the_kept_baseline_without_timing_it(
    tmp_path, build_cache, vec_scale, monkeypatch
):
    import regrapht.eval.candidates as candidates_module
    import regrapht.eval.oracle as oracle_module

    config = _config(tmp_path, build_cache)
    with Evaluator(config) as first:
        measured = _serial(first.evaluate(vec_scale, candidate("correct.cpp"), "cpu"))
    assert measured["source"] == "measured" and measured["quiet"] and measured["not_kept"] == ""
    assert measured["background_cores"] is not None and measured["background_cores"] >= 0
    assert measured["rel_iqr"] == pytest.approx(measured["iqr_s"] / measured["median_s"])

    jobs = []
    real = oracle_module.run_worker

    def recording(job, *args, **kwargs):
        jobs.append(job)
        return real(job, *args, **kwargs)

    monkeypatch.setattr(oracle_module, "run_worker", recording)
    monkeypatch.setattr(candidates_module, "run_worker", recording)
    config.secret = b"another run, other inputs"
    with Evaluator(config) as later:
        reused = _serial(later.evaluate(vec_scale, candidate("correct.cpp"), "cpu"))
    assert reused["source"] == "store"
    for field in ("median_s", "q1_s", "q3_s", "n", "rel_iqr", "measured_at", "baseline_key", "background_cores"):
        assert reused[field] == measured[field], field
    references = [job for job in jobs if job.get("trusted")]
    assert references and all(job["timing"] is None and not job.get("await_timing") for job in references)


def test_a_changed_task_or_bench_size_is_timed_again(tmp_path, build_cache, vec_scale):
    config = _config(tmp_path, build_cache)
    with Evaluator(config) as evaluator:
        original = _serial(evaluator.evaluate(vec_scale, candidate("correct.cpp"), "cpu"))
    edited_root = tmp_path / "vec_scale"
    shutil.copytree(vec_scale.root, edited_root)
    serial = edited_root / "serial.cpp"
    serial.write_text(serial.read_text() + "\n// edited: a different reference\n")
    toml = edited_root / "task.toml"
    with Evaluator(config) as evaluator:
        edited = _serial(evaluator.evaluate(load_task(edited_root), candidate("correct.cpp"), "cpu"))
    serial.write_text(serial.read_text().replace("// edited: a different reference\n", ""))
    toml.write_text(toml.read_text().replace("bench = { n = 1048576 }", "bench = { n = 1048577 }"))
    with Evaluator(config) as evaluator:
        resized = _serial(evaluator.evaluate(load_task(edited_root), candidate("correct.cpp"), "cpu"))
    assert [edited["source"], resized["source"]] == ["measured", "measured"]
    assert len({original["baseline_key"], edited["baseline_key"], resized["baseline_key"]}) == 3


def test_a_timing_that_is_not_acceptable_serves_its_run_only(tmp_path, build_cache, vec_scale):
    config = _config(tmp_path, build_cache, serial_max_background=-1.0)  # nothing is quiet enough
    for _ in range(2):
        with Evaluator(config) as evaluator:
            serial = _serial(evaluator.evaluate(vec_scale, candidate("correct.cpp"), "cpu"))
        assert serial["source"] == "measured" and "cores busy" in serial["not_kept"]


def test_with_the_cache_off_every_run_times_and_nothing_is_written(tmp_path, build_cache, vec_scale):
    config = _config(tmp_path, build_cache)
    config.serial_cache = False
    with Evaluator(config) as evaluator:
        serial = _serial(evaluator.evaluate(vec_scale, candidate("correct.cpp"), "cpu"))
    assert serial["source"] == "measured" and "off" in serial["not_kept"]
    assert not (tmp_path / "baselines.sqlite").exists()


@pytest.mark.parametrize("damage", ["a file where its folder should be", "not a database"])
def test_an_unusable_store_costs_only_the_reuse(tmp_path, build_cache, vec_scale, damage):
    config = _config(tmp_path, build_cache)
    if damage == "not a database":
        Path(config.serial_store).write_bytes(b"this is no SQLite file" * 100)
    else:
        blocked = tmp_path / "not-a-folder"
        blocked.write_text(damage)
        config.serial_store = str(blocked / "baselines.sqlite")
    with Evaluator(config) as evaluator:
        serial = _serial(evaluator.evaluate(vec_scale, candidate("correct.cpp"), "cpu"))
    assert serial["source"] == "measured" and "unavailable" in serial["not_kept"]


def test_a_batch_settles_its_serial_baselines_alone_at_its_end(tmp_path, build_cache, vec_scale, monkeypatch):
    """Compiles, builds and candidates run side by side in a batch, and a task's serial reference is
    first timed beside them (waiting for quiet there idles the device). The baseline the records
    divide by was timed with no input draw and no candidate worker running (a worker waiting idle
    for its own task's bench data aside), and the records' speedups and rewards use it."""
    import threading
    import time

    import numpy as np

    import regrapht.eval.candidates as candidates_module
    import regrapht.eval.oracle as oracle_module
    from regrapht.eval.record import hierarchical_reward

    noisy: list[tuple[float, float]] = []
    timings: list[tuple[float, float, float]] = []  # began, ended, median of the samples
    lock = threading.Lock()
    real_run, real_draw = oracle_module.run_worker, oracle_module.draw_bench_sets

    def recording_run(job, *args, on_message=None, **kwargs):
        began = [time.monotonic()]
        if job.get("trusted"):
            if not job.get("await_timing"):
                return real_run(job, *args, on_message=on_message, **kwargs)
            inner = on_message

            def watched(message):
                reply = inner(message)
                if message.get("event") == "ready_for_timing":
                    began[0] = time.monotonic()  # the timing starts when the parent answers
                if message.get("event") == "timing":
                    median = float(np.median(message["samples"]["reference"]["host"]))
                    with lock:
                        timings.append((began[0], time.monotonic(), median))
                return reply

            return real_run(job, *args, on_message=watched, **kwargs)
        inner_candidate = on_message

        def idle_while_its_bench_is_built(message):
            if message.get("event") != "ready_for_timing":
                return inner_candidate(message)
            with lock:
                noisy.append((began[0], time.monotonic()))  # the worker waits for the parent's answer
            try:
                return inner_candidate(message)
            finally:
                began[0] = time.monotonic()

        outcome = real_run(job, *args, on_message=idle_while_its_bench_is_built, **kwargs)
        with lock:
            noisy.append((began[0], time.monotonic()))
        return outcome

    def recording_draw(*args, **kwargs):
        began = time.monotonic()
        try:
            return real_draw(*args, **kwargs)
        finally:
            with lock:
                noisy.append((began, time.monotonic()))

    monkeypatch.setattr(oracle_module, "run_worker", recording_run)
    monkeypatch.setattr(candidates_module, "run_worker", recording_run)
    monkeypatch.setattr(oracle_module, "draw_bench_sets", recording_draw)
    host = load_task(HERE / "tasks" / "vec_scale_host")
    # Nothing is kept during the batch: each task's baseline must be settled at its end; one task
    # at a time, alone (the pinned settle, several at once, is tests/eval/test_settle.py's).
    config = _config(tmp_path, build_cache, serial_max_background=-1.0, serial_settle_width=1)
    config.reference_threads = 2
    items = [
        (task, candidate("correct.cpp") + f"\n// variant {i}\n", "cpu") for i in range(3) for task in (vec_scale, host)
    ]
    with Evaluator(config) as evaluator:
        results = evaluator.evaluate_many(items)
    assert len(timings) == 4  # each task: once beside the batch, once alone at its end
    for r in results:
        serial = _serial(r)
        assert serial["source"] == "measured" and serial["quiet"]
        settled = [t for t in timings if t[2] == serial["median_s"]]
        assert settled, "the record divides by one of the timings"
        began, ended, _ = settled[-1]
        assert not [n for n in noisy if n[0] < ended and began < n[1]], "timed beside other work"
        speedup = serial["median_s"] / r.timings["candidate"]["median_s"]
        assert r.speedups["serial"]["value"] == pytest.approx(speedup)
        assert r.reward == pytest.approx(hierarchical_reward("correct", speedup))
        assert r.seconds["serial_settle"] > 0
    assert len({(r.task_id, _serial(r)["median_s"]) for r in results}) == 2  # one baseline per task


def test_a_batch_with_kept_baselines_times_no_serial_reference(tmp_path, build_cache, vec_scale, monkeypatch):
    import regrapht.eval.candidates as candidates_module
    import regrapht.eval.oracle as oracle_module

    host = load_task(HERE / "tasks" / "vec_scale_host")
    config = _config(tmp_path, build_cache)
    items = [(task, candidate("correct.cpp"), "cpu") for task in (vec_scale, host)]
    with Evaluator(config) as evaluator:
        first = evaluator.evaluate_many(items)
    jobs = []
    real = oracle_module.run_worker

    def recording(job, *args, **kwargs):
        jobs.append(job)
        return real(job, *args, **kwargs)

    monkeypatch.setattr(oracle_module, "run_worker", recording)
    monkeypatch.setattr(candidates_module, "run_worker", recording)
    config.secret = b"the next batch"
    with Evaluator(config) as evaluator:
        later = evaluator.evaluate_many(items)
    assert [_serial(r)["median_s"] for r in later] == [_serial(r)["median_s"] for r in first]
    assert all(_serial(r)["source"] == "store" for r in later)
    assert not [job for job in jobs if job.get("trusted") and (job["timing"] or job.get("await_timing"))]
