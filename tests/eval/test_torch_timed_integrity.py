"""Timed calls a torch candidate cannot game (eval/torch_timing.py, eval/torch_worker.py), on the cpu
target: the second run of every case and a secret subset of the timed rounds are audited, so a
candidate that defers to the library after its first call is caught; every timed round perturbs
its inputs element by element, so a candidate that recognizes inputs up to scale never replays a
cached output, and one that replays the nearest is caught by a checked round."""

from __future__ import annotations

import random

import pytest

torch = pytest.importorskip("torch")

from regrapht.eval import Evaluator, TimingConfig  # noqa: E402
from regrapht.eval.torch_timing import AUDIT_FRACTION, PERTURB_HIGH, PERTURB_LOW, Perturber, _audited_rounds  # noqa: E402
from regrapht.tasks import find_task  # noqa: E402
from tests.eval.test_torch_cpu import HOSTILE, torch_config  # noqa: E402


@pytest.fixture(scope="module")
def timed():
    config = torch_config(timing=True, call_timeout_s=60.0,
                          timing_config=TimingConfig(budget_s=1.0, min_rounds=24, min_s=0.1, max_rounds=40))
    with Evaluator(config) as evaluator:
        yield evaluator


def run(judge, name: str, task: str = "matmul"):
    return judge.evaluate(find_task(task), (HOSTILE / name).read_text(), "cpu")


def test_switching_to_the_library_on_the_second_call_is_caught(timed) -> None:
    ev = run(timed, "switches_to_matmul_second_call.py")
    assert ev.status == "integrity_violation", (ev.status, ev.message)
    assert "its second call on the same inputs dispatched the library operator(s) aten::mm" in ev.message


def test_switching_to_the_library_in_timed_rounds_is_caught(timed) -> None:
    ev = run(timed, "switches_to_matmul_when_timed.py")
    assert ev.status == "integrity_violation", (ev.status, ev.message)
    assert ev.message.startswith("timed round ") and "aten::mm" in ev.message and "first call at that shape" in ev.message


def test_memorizing_by_scale_is_timed_as_doing_the_work(timed) -> None:
    # Its own product is far slower than eager's matmul; its replay (an O(MN) multiply) faster. Under
    # one scale factor per round it replayed every timed call: measured 2.5x over eager at the cpu
    # bench shape, correct. Per-element factors: it never recognizes a set, and is timed computing.
    ev = run(timed, "memorizes_by_scale.py")
    assert ev.status == "correct", (ev.status, ev.message)
    assert ev.speedups["eager"]["value"] < 0.5, ev.speedups["eager"]


def test_memorizing_by_nearest_scale_is_caught(timed) -> None:
    ev = run(timed, "memorizes_by_nearest_scale.py")
    assert ev.status == "integrity_violation", (ev.status, ev.message)
    assert "differ from eager's on the same inputs" in ev.message


def test_honest_candidate_passes_audited_and_perturbed_rounds(timed) -> None:
    ev = run(timed, "plain_torch_matmul.py")
    assert ev.status == "correct", (ev.message, ev.integrity)
    assert ev.timings["candidate"]["n"] >= 24


def test_perturbation_is_per_element_secret_and_in_range() -> None:
    base = [torch.randn(64, 33), torch.arange(5), torch.randn(7)]
    inputs = [x.clone() for x in base]
    perturber = Perturber(inputs, "cpu")
    perturber.apply(inputs, base, 1234)
    ratio = inputs[0] / base[0]
    assert float(ratio.min()) >= PERTURB_LOW and float(ratio.max()) <= PERTURB_HIGH
    assert float(ratio.std()) > 0.1  # not one factor: element by element
    assert torch.equal(inputs[1], base[1])  # integers (indices, sizes) are never perturbed
    first = inputs[0].clone()
    perturber.apply(inputs, base, 1234)
    assert torch.equal(inputs[0], first)  # the seed decides
    perturber.apply(inputs, base, 99)
    assert not torch.allclose(inputs[0] / base[0], ratio)


def test_audited_rounds_are_secret_early_and_a_fraction() -> None:
    draws = [_audited_rounds(10_000, 5, random.Random(seed)) for seed in range(200)]
    assert all(1 <= min(d) < 5 for d in draws)
    assert len({min(d) for d in draws}) == 4  # the first one moves
    fraction = sum(len(d) for d in draws) / (200 * (10_000 + 10_000 // 4 + 2))
    assert abs(fraction - AUDIT_FRACTION) < 0.01
