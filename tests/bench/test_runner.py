"""The suite runner: k samples per task, batched, resumable, and its results file and report."""

from __future__ import annotations

import json

import pytest

from regrapht.bench import load_results, run_bench, write_bench
from regrapht.search import Budget, SearchStore, make_strategy
from regrapht.store import RunStore
from regrapht.tasks import load_task
from tests.search.conftest import TASKS, FakeEvaluator, ScriptedModel, fenced, marked

ANSWERS = {"axpy_small": ["A1", "A2", "A3"], "row_sums": ["R1", "R2", "R3"]}
TABLE = {
    "A1": ("correct", 2.0),
    "A2": ("wrong_answer", None),
    "A3": ("correct", 1.0),
    "R1": ("correct", 4.0),
    "R2": ("correct", 0.5),
}  # R3: not in the table, a compile error


def answering(tasks):
    seen: dict[str, list[int]] = {}

    def answer(request, k):
        task = next(t for t in tasks if f"## Task: {t.id}" in request.last_user_message())
        seeds = seen.setdefault(task.id, [])
        if request.params.seed not in seeds:
            seeds.append(request.params.seed)
        return fenced(marked(task, ANSWERS[task.id][seeds.index(request.params.seed)]))

    return answer


def bench(tasks, store, model, evals):
    return run_bench(
        tasks,
        strategy=make_strategy("standard"),
        target="cpu",
        budget=Budget(1),
        samples=3,
        seed=0,
        model=model,
        model_meta={"identity": model.identity, "offline": False},
        evals=evals,
        store=store,
        ks=(1, 2, 5),
        split="train",
    )


def test_bench_batches_samples_computes_metrics_and_resumes(tmp_path):
    tasks = [load_task(TASKS / "axpy_small"), load_task(TASKS / "row_sums")]
    with RunStore(tmp_path / "bench.sqlite") as raw:
        store = SearchStore(raw)
        model, evals = ScriptedModel(answering(tasks)), FakeEvaluator(TABLE)
        results, runs = bench(tasks, store, model, evals)
        assert model.batches == [6] and evals.batches == [6]  # every sample asked and evaluated together
        assert len(runs) == 6 and sorted({r.seed for r in runs}) == [0, 1, 2]
        o = results["metrics"]["overall"]
        assert results["metrics"]["ks"] == [1, 2]  # k=5 needs 5 samples
        assert o["pass@k"]["1"] == pytest.approx(2 / 3)
        assert o["speedup"]["serial"]["speedup@k"]["1"] == pytest.approx((1.0 + 1.5) / 2)
        assert o["compile_rate"] == pytest.approx(5 / 6) and o["correct_rate"] == pytest.approx(4 / 6)
        assert o["cost"]["generations"] == 6 and o["cost"]["tokens"] == 6 * 30
        assert results["metrics"]["per_task"]["row_sums"]["speedup"]["serial"]["best"] == 4.0
        axpy = next(t for t in results["tasks"] if t["id"] == "axpy_small")
        assert [s["status"] for s in axpy["samples"]] == ["correct", "wrong_answer", "correct"]
        assert {t["difficulty"] for t in results["tasks"]} == {"easy", "medium"}

        paths = write_bench(tmp_path / "out", results, runs)
        assert load_results(tmp_path / "out")["metrics"] == json.loads(json.dumps(results["metrics"]))
        assert len(paths["runs"].read_text().splitlines()) == 6
        page = paths["report"].read_text()
        assert "pass@1" in page and 'data-chart="pass_by_difficulty"' in page

        again_model, again_evals = ScriptedModel(answering(tasks)), FakeEvaluator(TABLE)
        again, _ = bench(tasks, store, again_model, again_evals)
        assert again_model.requests == [] and again_evals.calls == []  # finished runs are loaded
        assert again["metrics"] == results["metrics"]
