"""The bench shape's input sets (eval/torch_worker.py, TorchWorker.bench_sets): drawn by the
reference's get_inputs on the task's device, one set per seed, reproducible from the seed."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from regrapht.eval.torch_worker import TorchWorker, set_sizes  # noqa: E402
from regrapht.tasks import find_task  # noqa: E402


def _worker(target: str) -> TorchWorker:
    task = find_task("relu")
    job = {"target": target, "dtype": "float32", "reference": str(task.reference_path)}
    worker = TorchWorker(job, channel=None)
    set_sizes(worker.reference, {"batch_size": 5, "dim": 33})
    return worker


def _check(worker: TorchWorker, device: str) -> None:
    a, b, again = worker.bench_sets([11, 12]) + worker.bench_sets([11])
    assert [tuple(x.shape) for x in a] == [(5, 33)] and a[0].device.type == device and a[0].dtype == torch.float32
    assert not torch.equal(a[0], b[0])  # one set per seed
    assert torch.equal(a[0], again[0])  # the same seed draws the same set
    assert torch.get_default_device().type == "cpu"  # the device is the default only while drawing


def test_bench_sets_are_drawn_per_seed_on_the_cpu_target() -> None:
    _check(_worker("cpu"), "cpu")


@pytest.mark.gpu
def test_bench_sets_are_drawn_on_the_gpu() -> None:
    _check(_worker("cuda"), "cuda")
