"""Suite metrics against hand-computed values."""

from __future__ import annotations

import math

import pytest

from regrapht.bench.metrics import (
    Sample,
    TaskSamples,
    expected_max_at_k,
    fast_p,
    geomean,
    pass_at_k,
    speedup_at_k,
    speedup_max_at_k,
    suite_metrics,
)


def test_pass_at_k_is_the_unbiased_estimator():
    assert pass_at_k(5, 2, 1) == pytest.approx(0.4)  # 1 - C(3,1)/C(5,1) = 1 - 3/5
    assert pass_at_k(5, 2, 2) == pytest.approx(0.7)  # 1 - C(3,2)/C(5,2) = 1 - 3/10
    assert pass_at_k(5, 2, 4) == 1.0  # fewer than 4 failures: every 4-subset holds a correct one
    assert pass_at_k(3, 0, 1) == 0.0
    assert pass_at_k(10, 10, 5) == 1.0
    assert pass_at_k(2, 1, 5) is None  # not defined with fewer samples than k
    with pytest.raises(ValueError):
        pass_at_k(3, 4, 1)


def test_speedup_at_k_is_the_expected_best_of_k_samples():
    speedups = [2.0, None, 4.0, 1.0]  # the second sample is not correct: speedup 0
    assert speedup_at_k(speedups, 1) == pytest.approx(1.75)  # the mean: (2 + 0 + 4 + 1) / 4
    # pairs: (0,1) 1, (0,2) 2, (0,4) 4, (1,2) 2, (1,4) 4, (2,4) 4 -> 17 / 6
    assert speedup_at_k(speedups, 2) == pytest.approx(17 / 6)
    assert speedup_at_k(speedups, 4) == pytest.approx(4.0)
    assert speedup_at_k(speedups, 5) is None
    # ParEval's script's variant, over correct samples only: pairs of (2, 4, 1) -> (2 + 4 + 4) / 3
    assert speedup_at_k(speedups, 2, correct_only=True) == pytest.approx(10 / 3)
    assert speedup_at_k([None, None], 1, correct_only=True) == 0.0


def test_expected_max_matches_brute_force():
    import itertools

    values = [0.5, 3.0, 1.25, 7.0, 2.0, 0.0]
    for k in range(1, len(values) + 1):
        subsets = list(itertools.combinations(values, k))
        brute = sum(max(s) for s in subsets) / len(subsets)
        assert expected_max_at_k(values, k) == pytest.approx(brute)


def test_speedup_max_at_k_takes_the_best_resource_configuration():
    by_config = {"gpu A": [1.0, 3.0], "gpu B": [2.0, None]}
    assert speedup_max_at_k(by_config, 1) == pytest.approx(2.0)  # A: 2.0, B: 1.0
    assert speedup_max_at_k(by_config, 2) == pytest.approx(3.0)
    assert speedup_max_at_k({"one": [1.0, 3.0]}, 1) == speedup_at_k([1.0, 3.0], 1)


def test_fast_p_and_geomean():
    samples = [(True, 2.0), (True, 0.5), (False, None), (True, 1.5)]
    assert fast_p(samples, 0) == 0.75  # fast_0: correct
    assert fast_p(samples, 1) == 0.5
    assert fast_p(samples, 1.5) == 0.25  # strictly faster than p
    assert fast_p(samples, 2) == 0.0
    assert fast_p([], 1) is None
    assert geomean([1.0, 4.0]) == pytest.approx(2.0)
    assert geomean([]) is None


def sample(correct: bool, speedup: float | None = None, compiled: bool = True, **kw) -> Sample:
    return Sample(
        correct=correct,
        compiled=compiled,
        speedups={"serial": speedup} if speedup is not None else {},
        machine="m",
        generations=2,
        prompt_tokens=10,
        completion_tokens=5,
        gpu_seconds=1.5,
        evaluations=1,
        attempts=2,
        attempts_compiled=1 + int(compiled),
        attempts_correct=int(correct),
        **kw,
    )


def test_suite_metrics_average_over_tasks_and_break_down():
    tasks = [
        TaskSamples("a", "easy", "x", [sample(True, 2.0), sample(False, compiled=False)]),
        TaskSamples("b", "hard", "y", [sample(True, 4.0), sample(True, 1.0)]),
        TaskSamples("c", "hard", "y", [sample(False, error="task c: the serial reference failed")]),
    ]
    m = suite_metrics(tasks, ks=(1, 2))
    o = m["overall"]
    assert o["tasks"] == 3 and o["samples"] == 4 and o["task_errors"] == 1
    # pass@1: a 1/2, b 1, c has no usable sample (excluded) -> 0.75
    assert o["pass@k"]["1"] == pytest.approx(0.75)
    assert o["pass@k"]["2"] == pytest.approx(1.0)
    s = o["speedup"]["serial"]
    assert s["speedup@k"]["1"] == pytest.approx((1.0 + 2.5) / 2)  # a: (2 + 0)/2, b: (4 + 1)/2
    assert s["speedup@k"]["2"] == pytest.approx((2.0 + 4.0) / 2)
    assert s["speedup_max@k"]["1"] == s["speedup@k"]["1"]  # one resource configuration
    assert s["fast_p"]["1"] == pytest.approx(0.5) and s["fast_p"]["0"] == pytest.approx(0.75)
    assert s["geomean_correct"] == pytest.approx(2.0) and s["n_correct"] == 3  # (2 * 4 * 1) ** (1/3)
    assert o["compile_rate"] == pytest.approx(3 / 4) and o["correct_rate"] == pytest.approx(3 / 4)
    assert o["attempt_compile_rate"] == pytest.approx(7 / 8) and o["attempt_correct_rate"] == pytest.approx(
        3 / 8
    )
    assert o["cost"] == {
        "generations": 8,
        "prompt_tokens": 40,
        "completion_tokens": 20,
        "tokens": 60,
        "gpu_seconds": 6.0,
        "evaluations": 4,
        "attempts": 8,
    }
    assert list(m["by_difficulty"]) == ["easy", "hard"]
    assert m["by_difficulty"]["easy"]["pass@k"]["1"] == pytest.approx(0.5)
    assert m["by_difficulty"]["hard"]["pass@k"]["1"] == pytest.approx(1.0)
    assert m["by_category"]["y"]["speedup"]["serial"]["geomean_correct"] == pytest.approx(2.0)
    assert m["per_task"]["b"]["speedup"]["serial"]["best"] == 4.0
    assert math.isclose(m["per_task"]["a"]["pass@k"]["1"], 0.5)
