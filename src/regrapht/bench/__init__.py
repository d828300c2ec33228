"""Benchmarks of strategies over task suites: the suite runner, the metrics (pass@k, ParEval's
speedup@k and speedup_max@k, KernelBench's fast_p, geometric-mean speedup, compile and correctness
rates, cost) and the reports (HTML with inline SVG charts, terminal tables)."""

from regrapht.bench.metrics import (
    DEFAULT_KS,
    FAST_PS,
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
from regrapht.bench.report import print_bench, print_compare, render_bench, render_compare, write_compare
from regrapht.bench.runner import load_results, run_bench, sample_record, write_bench

__all__ = [
    "DEFAULT_KS",
    "FAST_PS",
    "Sample",
    "TaskSamples",
    "expected_max_at_k",
    "fast_p",
    "geomean",
    "load_results",
    "pass_at_k",
    "print_bench",
    "print_compare",
    "render_bench",
    "render_compare",
    "run_bench",
    "sample_record",
    "speedup_at_k",
    "speedup_max_at_k",
    "suite_metrics",
    "write_bench",
    "write_compare",
]
