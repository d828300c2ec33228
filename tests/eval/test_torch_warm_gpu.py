"""On the GPU: the compile baseline's warm cache holds Triton's kernels too and candidates load it,
a candidate that tampers with its copy is caught, and the next cuda candidate runs in the spare."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")

from regrapht.eval import EvalConfig, Evaluator, TimingConfig  # noqa: E402
from regrapht.eval import torch_baseline_cache as tbc  # noqa: E402
from regrapht.tasks import find_task  # noqa: E402

RELU = Path(__file__).resolve().parents[2] / "src/regrapht/data/tasks_torch/examples/relu/candidates"
EDITS = ("import os\nfrom pathlib import Path\nCACHE = Path(os.environ['TORCHINDUCTOR_CACHE_DIR'])\n"
         "ENTRY = next(p for p in sorted((CACHE / 'fxgraph').rglob('*')) if p.is_file())\n"
         "ENTRY.write_bytes(ENTRY.read_bytes() + b' ')\n")  # fmt: skip


@pytest.fixture(scope="module")
def warm(tmp_path_factory):
    cache = tmp_path_factory.mktemp("cache")
    config = EvalConfig(seeds=1, timing=True, timing_config=TimingConfig(budget_s=0.2, min_rounds=5, min_s=0.05),
                        call_timeout_s=120.0, total_timeout_s=300.0, memory_limit_gib=8.0, cache_dir=str(cache),
                        secret=b"regrapht-warm-gpu-tests", torch_baselines=("eager", "compile"))  # fmt: skip
    with Evaluator(config) as evaluator:
        yield evaluator, cache


def test_candidates_load_the_warm_compile_baseline_on_cuda(warm) -> None:
    evaluator, cache = warm
    source = (RELU / "triton_relu.py").read_text()
    first = evaluator.evaluate(find_task("relu"), source, "cuda")
    assert first.status == "correct", (first.message, first.integrity)
    (folder,) = (cache / "torch-baselines").iterdir()
    files = tbc.manifest(folder)
    assert files and any(f.startswith("triton/") for f in files) and any(f.startswith("inductor/fxgraph/") for f in files)
    second = evaluator.evaluate(find_task("relu"), source + "\n# again\n", "cuda")
    assert second.status == "correct" and "compile" in second.speedups, second.message
    assert tbc.digests(folder) == files  # no candidate changed the warm folder


def test_candidates_load_the_warm_max_autotune_baseline_on_cuda(tmp_path) -> None:
    # max-autotune tunes every kernel over several configs: the candidate's copy must serve its best
    # configs and Triton kernels without reaching the warm folder (issue 17)
    config = EvalConfig(seeds=1, timing=True, timing_config=TimingConfig(budget_s=0.2, min_rounds=5, min_s=0.05),
                        call_timeout_s=300.0, total_timeout_s=600.0, memory_limit_gib=8.0, cache_dir=str(tmp_path),
                        secret=b"regrapht-warm-gpu-tests", torch_baselines=("eager", "max-autotune"))  # fmt: skip
    source = (RELU / "triton_relu.py").read_text()
    with Evaluator(config) as evaluator:
        assert evaluator.evaluate(find_task("relu"), source, "cuda").status == "correct"
        (folder,) = (tmp_path / "torch-baselines").iterdir()
        files = tbc.manifest(folder)
        assert files and any(f.endswith(".best_config") for f in files), files
        second = evaluator.evaluate(find_task("relu"), source + "\n# again\n", "cuda")
    assert second.status == "correct" and "max-autotune" in second.speedups, second.message
    assert tbc.digests(folder) == files


def test_tampering_with_the_copy_is_caught_on_cuda(warm) -> None:
    evaluator, _ = warm
    ev = evaluator.evaluate(find_task("relu"), EDITS + (RELU / "triton_relu.py").read_text(), "cuda")
    assert ev.status == "integrity_violation" and "tampered with" in ev.message, ev.message


def test_the_next_cuda_candidate_runs_in_the_spare(warm, monkeypatch) -> None:
    from .test_torch_spare import _Watch

    evaluator, _ = warm
    judge = evaluator.torch_judge()
    ahead = [s[0].proc.pid for s in judge._spares]  # started by the earlier tests' candidates
    watch = _Watch(judge, monkeypatch)
    source = (RELU / "triton_relu.py").read_text()
    for tag in ("# a\n", "# b\n", "# c\n"):
        ev = evaluator.evaluate(find_task("relu"), source + tag, "cuda")
        assert ev.status == "correct", ev.message
    # every candidate ran in a spare started ahead, oldest first, and each taken one was replaced
    assert watch.hellos == (ahead + watch.spares)[:3] and len(judge._spares) == evaluator.config.torch_spares
