"""The self-contained HTML report of one search run (`regrapht optimize`).

Templates are data files (regrapht/data/report/*.html.j2), rendered with autoescaping; charts are
inline SVG made by `regrapht.search.svg`. The page needs no network and runs no script.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from datetime import datetime, timezone
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from regrapht.search.offline import OFFLINE_LABEL
from regrapht.search.record import Attempt, SearchResult
from regrapht.search.svg import line_chart, path_diagram

REPORT_DIR = "report"


@lru_cache(maxsize=1)
def report_env() -> Any:
    """The Jinja2 environment of the report templates (autoescaped HTML)."""
    import jinja2

    root = str(resources.files("regrapht").joinpath("data", REPORT_DIR))
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(root),
        undefined=jinja2.StrictUndefined,
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["num"] = _num
    env.filters["speedup"] = _speedup
    env.filters["pct"] = _pct
    env.globals["OFFLINE_LABEL"] = OFFLINE_LABEL
    env.globals["seconds_label"] = seconds_label
    return env


def seconds_label(targets: str | Iterable[str]) -> str:
    """The name of a budget's `gpu_seconds` for runs on `targets`. They are evaluator worker seconds:
    on the GPU for cuda runs, and on the CPU for cpu runs, which use no GPU at all."""
    chosen = {targets} if isinstance(targets, str) else set(targets)
    return "GPU-seconds" if chosen == {"cuda"} else "worker-seconds"


def _num(v: Any, fmt: str = ".3g") -> str:
    if v is None:
        return "n/a"
    try:
        return format(float(v), fmt)
    except (TypeError, ValueError):
        return str(v)


def _speedup(s: dict[str, Any] | None) -> str:
    if not s or s.get("value") is None:
        return "n/a"
    text = f"{float(s['value']):.3g}x"
    if s.get("ci_low") is not None and s.get("ci_high") is not None:
        text += f" (95% CI {float(s['ci_low']):.3g}-{float(s['ci_high']):.3g})"
    return text


def _pct(v: Any) -> str:
    return "n/a" if v is None else f"{100 * float(v):.1f}%"


def diff_lines(before: str, after: str) -> list[tuple[str, str]]:
    """A unified diff as (css class, line) pairs: add, del, hunk or ctx."""
    out = []
    for line in difflib.unified_diff(
        before.splitlines(), after.splitlines(), "before", "after", lineterm="", n=3
    ):
        if line.startswith(("+++", "---")):
            continue
        kind = (
            "add"
            if line.startswith("+")
            else "del"
            if line.startswith("-")
            else "hunk"
            if line.startswith("@@")
            else "ctx"
        )
        out.append((kind, line))
    return out


def _step_view(result: SearchResult, attempt: Attempt, previous_code: str | None) -> dict[str, Any]:
    code = result.code_of(attempt)
    return {
        "attempt": attempt,
        "code": code,
        "diff": diff_lines(previous_code or "", code or "") if code is not None else [],
        "serial": attempt.speedups.get("serial"),
        "naive": attempt.speedups.get("naive"),
        "library": attempt.speedups.get("library"),
    }


def optimize_context(
    result: SearchResult, evaluations: dict[str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """Everything the optimize page shows, as plain data."""
    evaluations = evaluations or {}
    path = result.path() if result.best is not None else []
    steps = []
    previous = result.code_of(None)
    for a in path:
        view = _step_view(result, a, previous)
        steps.append(view)
        previous = view["code"]
    best = result.best_attempt
    best_eval = evaluations.get(best.eval_key) if best is not None and best.eval_key else None
    diagram = path_diagram(
        "path",
        "Path through the graph to the best kernel",
        [("start", "/".join(result.start.get("position", [])) or "serial code", "start")]
        + [(a.method or a.kind, f"{a.status} r={a.reward:.3g}", a.status) for a in path],
    )
    rewards = [(float(a.index), a.reward) for a in result.attempts]
    best_so_far: list[tuple[float, float]] = []
    top = None
    for a in result.attempts:
        if a.correct and (top is None or a.reward > top):
            top = a.reward
        if top is not None:
            best_so_far.append((float(a.index), top))
    chart = line_chart(
        "rewards",
        "Reward of every attempt (ReGraphT Eq. 3) and the best so far",
        {"best correct so far": best_so_far},
        x_label="attempt",
        y_label="reward",
        markers={"attempt": [(x, y, f"#{int(x)}: {y:.3g}") for x, y in rewards]},
        steps=True,
    )
    return {
        "title": f"regrapht optimize: {result.task['id']} ({result.target}, {result.strategy})",
        "result": result,
        "offline": bool(result.model.get("offline")),
        "steps": steps,
        "start_code": result.code_of(None),
        "best": best,
        "best_code": result.best_code,
        "best_eval": best_eval,
        "diagram": diagram,
        "chart": chart,
        "mcgs": result.details.get("mcgs"),
        "generated": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "fence": "cuda" if result.target == "cuda" else "cpp",
    }


def render_optimize(result: SearchResult, evaluations: dict[str, dict[str, Any]] | None = None) -> str:
    from markupsafe import Markup

    ctx = optimize_context(result, evaluations)
    ctx["diagram"] = Markup(ctx["diagram"])
    ctx["chart"] = Markup(ctx["chart"])
    return report_env().get_template("optimize.html.j2").render(**ctx)


def write_optimize_report(
    result: SearchResult, path: str | Path, evaluations: dict[str, dict[str, Any]] | None = None
) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(render_optimize(result, evaluations), encoding="utf-8")
    return p
