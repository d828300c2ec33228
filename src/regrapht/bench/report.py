"""Reports of bench runs: one run's HTML page, a side-by-side comparison of several, terminal tables.

Pages are rendered from regrapht/data/report/{bench,compare}.html.j2 with inline SVG charts; they
need no network and run no script.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from regrapht import tables
from regrapht.search.report import report_env, seconds_label
from regrapht.search.svg import bar_chart, histogram, line_chart

FAST_CURVE_POINTS = 40


def _get(d: dict[str, Any] | None, *keys: str) -> Any:
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return None
        d = d[k]
    return d


def fast_curve(results: dict[str, Any], baseline: str) -> list[tuple[float, float]]:
    """(p, fast_p) for p from 0 up past the largest speedup: the task-averaged share of samples that
    are correct and more than p times faster than `baseline`."""
    tasks = [t for t in results["tasks"] if any(s.get("error") is None for s in t["samples"])]
    speeds = [
        s["speedups"][baseline]
        for t in tasks
        for s in t["samples"]
        if s["correct"] and baseline in s["speedups"]
    ]
    if not tasks:
        return []
    top = max(speeds, default=1.0) * 1.1 or 1.0
    curve = []
    for i in range(FAST_CURVE_POINTS + 1):
        p = top * i / FAST_CURVE_POINTS
        shares = []
        for t in tasks:
            ss = [s for s in t["samples"] if s.get("error") is None]
            hits = sum(1 for s in ss if s["correct"] and (p <= 0 or s["speedups"].get(baseline, 0.0) > p))
            shares.append(hits / len(ss))
        curve.append((p, sum(shares) / len(shares)))
    return curve


def _label(results: dict[str, Any]) -> str:
    c = results["config"]
    model = c["model"].get("identity", "?")
    return f"{c['strategy']} / {model}"


def bench_charts(results: dict[str, Any]) -> list[str]:
    m = results["metrics"]
    ks = [str(k) for k in m["ks"]]
    charts = []
    diffs = list(m["by_difficulty"])
    charts.append(
        bar_chart(
            "pass_by_difficulty",
            "pass@k by difficulty",
            ["all", *diffs],
            {
                f"pass@{k}": [_get(m, "overall", "pass@k", k)]
                + [_get(m, "by_difficulty", d, "pass@k", k) for d in diffs]
                for k in ks
            },
            y_label="pass@k",
            y_max=1.0,
        )
    )
    for b in m["baselines"]:
        charts.append(
            line_chart(
                f"fast_p_{b}",
                f"fast_p over {b}: share of samples correct and more than p times faster",
                {b: fast_curve(results, b)},
                x_label="p",
                y_label="fast_p",
                y_min=0.0,
                y_max=1.0,
            )
        )
        speeds = [
            s["speedups"][b]
            for t in results["tasks"]
            for s in t["samples"]
            if s["correct"] and b in s["speedups"]
        ]
        charts.append(histogram(f"speedups_{b}", f"Speedups over {b} of the correct samples", speeds))
    cats = list(m["by_category"])
    if cats:
        charts.append(
            bar_chart(
                "correct_by_category",
                "Correct samples by category",
                cats,
                {"correct rate": [_get(m, "by_category", c, "correct_rate") for c in cats]},
                y_label="share",
                y_max=1.0,
            )
        )
    return charts


def render_bench(results: dict[str, Any]) -> str:
    from markupsafe import Markup

    return (
        report_env()
        .get_template("bench.html.j2")
        .render(
            title=f"regrapht bench: {_label(results)} on {results['config'].get('split') or 'selected'} tasks ({results['config']['target']})",
            r=results,
            m=results["metrics"],
            ks=[str(k) for k in results["metrics"]["ks"]],
            charts=[Markup(c) for c in bench_charts(results)],
            generated=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        )
    )


def compare_rows(runs: Sequence[dict[str, Any]]) -> list[tuple[str, list[Any]]]:
    """(metric name, value per run) rows of the comparison table, overall metrics."""
    ks = sorted({str(k) for r in runs for k in r["metrics"]["ks"]}, key=int)
    baselines = sorted({b for r in runs for b in r["metrics"]["baselines"]}, key=lambda b: (b != "serial", b))
    rows: list[tuple[str, list[Any]]] = [
        ("tasks", [_get(r, "metrics", "overall", "tasks") for r in runs]),
        ("samples", [_get(r, "metrics", "overall", "samples") for r in runs]),
    ]
    rows += [(f"pass@{k}", [_get(r, "metrics", "overall", "pass@k", k) for r in runs]) for k in ks]
    rows += [
        ("compile rate", [_get(r, "metrics", "overall", "compile_rate") for r in runs]),
        ("correct rate", [_get(r, "metrics", "overall", "correct_rate") for r in runs]),
    ]
    for b in baselines:
        rows += [
            (
                f"speedup@{k} ({b})",
                [_get(r, "metrics", "overall", "speedup", b, "speedup@k", k) for r in runs],
            )
            for k in ks
        ]
        rows += [
            (
                f"speedup_max@{k} ({b})",
                [_get(r, "metrics", "overall", "speedup", b, "speedup_max@k", k) for r in runs],
            )
            for k in ks
        ]
        rows += [
            (f"fast_{p} ({b})", [_get(r, "metrics", "overall", "speedup", b, "fast_p", p) for r in runs])
            for p in ("1", "1.5", "2")
        ]
        rows.append(
            (
                f"geomean speedup ({b})",
                [_get(r, "metrics", "overall", "speedup", b, "geomean_correct") for r in runs],
            )
        )
    for key in ("generations", "tokens", "gpu_seconds", "evaluations"):
        name = seconds_label(r["config"]["target"] for r in runs) if key == "gpu_seconds" else key
        rows.append((name, [_get(r, "metrics", "overall", "cost", key) for r in runs]))
    return rows


def render_compare(runs: Sequence[dict[str, Any]], names: Sequence[str]) -> str:
    from markupsafe import Markup

    rows = compare_rows(runs)
    charts = [
        bar_chart(
            "compare_pass",
            "pass@1 and correct rate by run",
            list(names),
            {
                "pass@1": [_get(r, "metrics", "overall", "pass@k", "1") for r in runs],
                "correct rate": [_get(r, "metrics", "overall", "correct_rate") for r in runs],
            },
            y_max=1.0,
        )
    ]
    baselines = sorted({b for r in runs for b in r["metrics"]["baselines"]}, key=lambda b: (b != "serial", b))
    for b in baselines:
        charts.append(
            line_chart(
                f"compare_fast_p_{b}",
                f"fast_p over {b}",
                {n: fast_curve(r, b) for n, r in zip(names, runs)},
                x_label="p",
                y_label="fast_p",
                y_min=0.0,
                y_max=1.0,
            )
        )
    return (
        report_env()
        .get_template("compare.html.j2")
        .render(
            title=f"regrapht report: {len(runs)} runs side by side",
            runs=list(zip(names, runs)),
            rows=rows,
            charts=[Markup(c) for c in charts],
            generated=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        )
    )


def fmt(v: Any) -> str:
    if v is None:
        return "n/a"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "n/a"
        return f"{v:.3g}"
    return str(v)


def print_compare(console: Any, runs: Sequence[dict[str, Any]], names: Sequence[str]) -> None:
    table = tables.table("regrapht runs side by side")
    tables.key_column(table, "metric")
    for n in names:
        tables.number_column(table, n)
    for metric, values in compare_rows(runs):
        table.add_row(metric, *(fmt(v) for v in values))
    console.print(table)
    for n, r in zip(names, runs):
        if r.get("offline"):
            console.print(f"[yellow]{n}: {r.get('label')}[/]")


def _groups(m: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [("all", m["overall"])] + list(m["by_difficulty"].items()) + list(m["by_category"].items())


def print_bench(console: Any, results: dict[str, Any]) -> None:
    """The metrics as terminal tables: correctness, then speed over each baseline. One wide table
    would not fit an 80-column terminal, and rich would cut its headers."""
    m = results["metrics"]
    if results.get("offline"):
        console.print(f"[bold yellow]{results.get('label')}[/]")
    ks = [str(k) for k in m["ks"]]
    table = tables.table(
        f"{_label(results)}: {m['overall']['tasks']} tasks, {m['overall']['samples']} samples"
    )
    tables.key_column(table, "tasks")
    for k in ks:
        tables.number_column(table, f"pass@{k}")
    tables.number_column(table, "compiled")
    tables.number_column(table, "correct")
    for name, g in _groups(m):
        table.add_row(
            name, *(fmt(_get(g, "pass@k", k)) for k in ks), fmt(g["compile_rate"]), fmt(g["correct_rate"])
        )
    console.print(table)
    for b in m["baselines"]:
        speed = tables.table(f"speedup over {b}")
        tables.key_column(speed, "tasks")
        for header in (f"speedup@{ks[0]}", "fast_1", "geomean"):
            tables.number_column(speed, header)
        for name, g in _groups(m):
            speed.add_row(
                name,
                fmt(_get(g, "speedup", b, "speedup@k", ks[0])),
                fmt(_get(g, "speedup", b, "fast_p", "1")),
                fmt(_get(g, "speedup", b, "geomean_correct")),
            )
        console.print(speed)
    legend = "pass@k: share of tasks solved within k samples; compiled, correct: share of samples"
    if m["baselines"]:
        legend += (
            f"; speedup@{ks[0]}: expected best speedup of {ks[0]} sample(s); fast_1: share of samples correct "
            "and faster than the baseline; geomean: geometric mean over the correct samples"
        )
    console.print(f"[dim]{legend}.[/]")
    cost = m["overall"]["cost"]
    console.print(
        f"cost: {cost['generations']} generations, {cost['tokens']} tokens, "
        f"{cost['gpu_seconds']:.1f} {seconds_label(results['config']['target'])}, "
        f"{cost['evaluations']} evaluations"
    )


def write_compare(out: str | Path, runs: Sequence[dict[str, Any]], names: Sequence[str]) -> Path:
    p = Path(out)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(render_compare(runs, names), encoding="utf-8")
    return p
