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
