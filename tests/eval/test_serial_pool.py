"""Quiet serial timings pooled across runs until the pool can be kept (eval/serial_baselines.py)."""

from __future__ import annotations

import pytest

from regrapht.eval.serial_baselines import (
    POOL_KEEP_TIMINGS,
    SerialBaseline,
    SerialBaselineStore,
    keep_or_pool,
)

FIELDS = {"task": "t"}


def _quiet(samples: list[float]) -> SerialBaseline:
    return SerialBaseline(list(samples), quiet=True, background_cores=0.1)


def _settle(store: SerialBaselineStore, baseline: SerialBaseline) -> SerialBaseline:
    keep_or_pool(store, "k", FIELDS, baseline, max_median_error=0.01, max_background=0.5)
    return baseline


def test_a_wide_quiet_timing_is_pooled_across_runs_and_kept_after_enough_runs(tmp_path) -> None:
    store = SerialBaselineStore(tmp_path / "b.sqlite")
    runs = [[1.0, 1.2, 1.4], [1.1, 1.3, 1.5], [0.9, 1.2, 1.6]]  # each too wide to pin the median
    settled = []
    for i, run in enumerate(runs):
        settled.append(_settle(store, _quiet(run)))
        assert settled[-1].timings == i + 1 and len(settled[-1].samples) == 3 * (i + 1)
        if i + 1 < POOL_KEEP_TIMINGS:
            assert "known to" in settled[-1].not_kept and store.get("k") is None
    assert settled[1].source == "pooled" and "pooled from 2 quiet runs" in settled[1].not_kept
    last = settled[-1]
    assert last.timings == POOL_KEEP_TIMINGS and last.not_kept == ""
    kept = store.get("k")
    assert kept is not None and sorted(kept.samples) == sorted(s for r in runs for s in r)
    assert kept.source == "store" and kept.timings == POOL_KEEP_TIMINGS
    assert kept.median_s == pytest.approx(last.median_s)
    store.close()


def test_a_tight_timing_is_kept_at_once_and_a_busy_one_never_joins_the_pool(tmp_path) -> None:
    store = SerialBaselineStore(tmp_path / "b.sqlite")
    busy = _settle(store, SerialBaseline([1.0, 1.5, 2.0], quiet=True, background_cores=3.0))
    assert "cores busy" in busy.not_kept and busy.timings == 1 and busy.samples == [1.0, 1.5, 2.0]
    tight = _settle(store, _quiet([1.000, 1.001, 1.002, 1.001]))
    assert tight.not_kept == "" and tight.timings == 1  # the busy run left nothing in the pool
    assert store.get("k") is not None
    store.close()


def test_forgetting_a_task_empties_its_pool_too(tmp_path) -> None:
    store = SerialBaselineStore(tmp_path / "b.sqlite")
    _settle(store, _quiet([1.0, 1.2, 1.4]))
    store.forget("t")
    again = _settle(store, _quiet([1.1, 1.3, 1.5]))
    assert again.timings == 1 and len(again.samples) == 3
    store.close()


def _oracle_stub(store: SerialBaselineStore, timings: list[list[float]], background: float | list[float] = 0.1):
    """An object with what `Oracle.time_serial_kept` uses: each `time_serial` call is one quiet
    timing in a fresh process, here the next of `timings`."""
    from types import SimpleNamespace

    from regrapht.eval.config import TimingConfig

    tc = TimingConfig()
    calls: list[int] = []

    def time_serial(task, root, cases, hold, quiet):
        calls.append(1)
        busy = background[len(calls) - 1] if isinstance(background, list) else background
        return SerialBaseline(list(timings[len(calls) - 1]), quiet=quiet, background_cores=busy)

    def keep_baseline(store_, key, fields, baseline):
        if store_ is None:
            baseline.not_kept = "no store"
            return
        keep_or_pool(store_, key, fields, baseline, tc.serial_max_median_error, tc.serial_max_background)

    return SimpleNamespace(config=SimpleNamespace(timing_config=tc), time_serial=time_serial,
                           keep_baseline=keep_baseline), calls


def test_a_quiet_timing_that_does_not_pin_its_median_is_repeated_until_its_pool_is_kept(tmp_path) -> None:
    from regrapht.eval.oracle import Oracle

    store = SerialBaselineStore(tmp_path / "b.sqlite")
    wide = [[1.0, 1.2, 1.4], [1.1, 1.3, 1.5], [0.9, 1.2, 1.6], [5.0, 5.0, 5.0]]
    stub, calls = _oracle_stub(store, wide)
    baseline = Oracle.time_serial_kept(stub, None, None, [], None, True, store, "k", FIELDS)
    assert len(calls) == POOL_KEEP_TIMINGS  # the fourth timing is never taken
    assert baseline.not_kept == "" and baseline.timings == POOL_KEEP_TIMINGS
    assert store.get("k") is not None and len(store.get("k").samples) == 9
    # a later run reuses the pool: the first run's baseline is the one every later run divides by
    assert store.get("k").median_s == pytest.approx(baseline.median_s)
    store.close()


@pytest.mark.parametrize("case", ["tight", "in turns", "busy", "no store"])
def test_only_a_quiet_wide_timing_with_a_store_is_repeated(tmp_path, case) -> None:
    from regrapht.eval.oracle import Oracle

    store = SerialBaselineStore(tmp_path / "b.sqlite")
    samples = [[1.0, 1.001, 1.002, 1.001]] if case == "tight" else [[1.0, 1.2, 1.4]] * 3
    stub, calls = _oracle_stub(store, samples, background=3.0 if case == "busy" else 0.1)
    quiet = case != "in turns"
    Oracle.time_serial_kept(stub, None, None, [], None, quiet, None if case == "no store" else store, "k", FIELDS)
    assert len(calls) == 1
    store.close()


def test_a_repeat_disturbed_by_other_work_leaves_the_quiet_pool_in_place(tmp_path) -> None:
    from regrapht.eval.oracle import Oracle

    store = SerialBaselineStore(tmp_path / "b.sqlite")
    stub, calls = _oracle_stub(store, [[1.0, 1.2, 1.4], [9.0, 9.5, 9.9]], background=[0.1, 3.0])
    baseline = Oracle.time_serial_kept(stub, None, None, [], None, True, store, "k", FIELDS)
    assert len(calls) == 2 and baseline.samples == [1.0, 1.2, 1.4]  # the run divides by its quiet timing
    stub, calls = _oracle_stub(SerialBaselineStore(tmp_path / "c.sqlite"), [[1.0, 1.2, 1.4]] * 3)
    Oracle.time_serial_kept(stub, None, None, [], None, True, store, "k2", FIELDS, lambda: False)
    assert len(calls) == 1  # a batch began: no repeat holds it up
    store.close()
