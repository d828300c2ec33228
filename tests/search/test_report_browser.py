"""The optimize, bench and comparison pages rendered by a real headless Chromium (skipped when it is
not installed), and checked for being self-contained and escaping what they show."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from regrapht.bench import render_bench, render_compare, run_bench
from regrapht.graph.model import INITIAL
from regrapht.search import OFFLINE_LABEL, Budget, OfflinePolicy, SearchJob, make_strategy, run_searches
from regrapht.search.report import render_optimize

from .conftest import FakeEvaluator, offline_meta, synthetic_graph

CHROMIUM = next((p for p in (shutil.which("chromium"), shutil.which("chromium-browser")) if p), None)
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Chromium is not installed (Debian: apt-get install -y chromium); the page tests need it",
)

STEPS = [(INITIAL, "p", "serial", "P"), ("p", "a", "P", "PA"), ("p", "b", "P", "PB"), ("a", "b", "PA", "PAB")]
TABLE = {"P": ("correct", 1.5), "PA": ("correct", 2.0), "PB": ("wrong_answer", None), "PAB": ("correct", 5.0)}


def dump_dom(page: Path, tmp_path: Path) -> str:
    cmd = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--dump-dom",
        page.as_uri(),
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=90).stdout


@pytest.fixture(scope="module")
def search_result(axpy):
    graph = synthetic_graph(axpy, STEPS)
    policy = OfflinePolicy(graph)
    [result] = run_searches(
        [SearchJob(axpy, 0)],
        strategy=make_strategy("mcgs"),
        target="cpu",
        budget=Budget(8),
        model=policy,
        model_meta=offline_meta(policy),
        evals=FakeEvaluator(TABLE),
        graph=graph,
    )
    return result


@pytest.fixture(scope="module")
def bench_results(axpy, row_sums):
    graph = synthetic_graph(axpy, STEPS)
    policy = OfflinePolicy(graph)
    results, _ = run_bench(
        [axpy, row_sums],
        strategy=make_strategy("mcgs"),
        target="cpu",
        budget=Budget(4),
        samples=2,
        seed=0,
        model=policy,
        model_meta=offline_meta(policy),
        evals=FakeEvaluator(TABLE),
        graph=graph,
        ks=(1, 2),
        split="train",
    )
    return results


def self_contained(page: str) -> None:
    assert not re.search(r'(src|href)="(https?:)?//', page)
    assert "<script" not in page


@needs_chromium
def test_optimize_page_renders(search_result, tmp_path):
    page = tmp_path / "opt.html"
    page.write_text(render_optimize(search_result))
    self_contained(page.read_text())
    dom = dump_dom(page, tmp_path)
    assert 'id="offline-label"' in dom and OFFLINE_LABEL in dom
    assert dom.count('class="chart"') == 2  # the path diagram and the reward chart
    path = search_result.path()
    assert dom.count('class="pathbox"') == len(path) + 1  # the start box and one box per step ...
    assert all(f'id="step-{i}"' in dom for i in range(1, len(path) + 1))  # ... and one section per step
    assert dom.count('class="attempt"') == len(search_result.attempts)
    assert 'class="add"' in dom and 'class="del"' in dom  # each step's diff
    assert "5x (95% CI 4.75-5.25)" in dom  # the best speedup with its confidence interval
    assert 'id="roofline"' in dom


@needs_chromium
def test_bench_and_compare_pages_render(bench_results, tmp_path):
    bench = tmp_path / "bench.html"
    bench.write_text(render_bench(bench_results))
    compare = tmp_path / "compare.html"
    compare.write_text(render_compare([bench_results, bench_results], ["first", "second"]))
    for page in (bench, compare):
        self_contained(page.read_text())
    dom = dump_dom(bench, tmp_path)
    assert OFFLINE_LABEL in dom
    charts = set(re.findall(r'data-chart="([\w.]+)"', dom))
    assert {"pass_by_difficulty", "fast_p_serial", "speedups_serial", "correct_by_category"} <= charts
    assert dom.count('class="task"') == 2 and dom.count('class="bar"') >= 3
    dom = dump_dom(compare, tmp_path)
    assert dom.count('class="metric"') > 10 and "first" in dom and "second" in dom
    assert {"compare_pass", "compare_fast_p_serial"} <= set(re.findall(r'data-chart="([\w.]+)"', dom))


def test_pages_escape_what_they_show(search_result):
    search_result.attempts[-1].message = "<script>alert(1)</script>"
    search_result.attempts[-1].status = "wrong_answer"
    page = render_optimize(search_result)
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)" in page


def test_cpu_runs_are_not_labelled_gpu_seconds(search_result, bench_results):
    import copy

    from rich.console import Console

    from regrapht.bench.report import print_bench, print_compare

    def printed(show, *args) -> str:
        console = Console(record=True, width=200)
        show(console, *args)
        return console.export_text()

    cpu_views = {
        "optimize page": render_optimize(search_result),
        "bench page": render_bench(bench_results),
        "compare page": render_compare([bench_results], ["cpu"]),
        "bench table": printed(print_bench, bench_results),
        "report table": printed(print_compare, [bench_results], ["cpu"]),
    }
    for name, text in cpu_views.items():
        assert "GPU-s" not in text and "gpu-seconds" not in text, name
        assert "worker-seconds" in text, name
    cuda = copy.deepcopy(bench_results)
    cuda["config"]["target"] = "cuda"
    assert "GPU-seconds" in render_bench(cuda) and "GPU-seconds" in printed(print_bench, cuda)
    assert "GPU-seconds" in printed(print_compare, [cuda], ["cuda"])


def test_bench_and_compare_tables_cut_nothing_at_80_columns(bench_results):
    import copy

    from rich.console import Console

    from regrapht.bench.report import print_bench, print_compare

    wide = copy.deepcopy(bench_results)  # two baselines and a long category, as a cuda run on the suite has
    m = wide["metrics"]
    m["baselines"] = ["serial", "naive"]
    for g in [m["overall"], *m["by_difficulty"].values(), *m["by_category"].values()]:
        g["speedup"]["naive"] = g["speedup"]["serial"]
    m["by_category"]["sparse_linear_algebra"] = m["by_category"].pop(next(iter(m["by_category"])))
    for show, args in ((print_bench, (wide,)), (print_compare, ([wide, wide], ["mcgs-qwen-7b", "walk-qwen-7b"]))):
        console = Console(record=True, width=80)
        show(console, *args)
        text = console.export_text()
        assert "…" not in text, text
        assert all(len(line) <= 80 for line in text.splitlines())
    console = Console(record=True, width=80)
    print_bench(console, wide)
    lines = console.export_text().splitlines()
    for whole in ("pass@1", "pass@2", "compiled", "correct", "speedup@1", "fast_1", "geomean", "sparse_linear_algebra"):
        assert any(whole in line.split() for line in lines), whole
