"""`regrapht bench --kind torch`: a candidate set judged over the torch tasks (no search can run on
them: search/task_kinds.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from regrapht.cli import lane_options


def torch_bench(
    *,
    out: Path,
    split: str,
    tasks: str | None,
    target: str,
    candidates: Path | None,
    tasks_root: Path | None,
    ks: list[int],
    eval_budget: float,
    eval_seeds: int,
    baselines: str | None,
    gpus: str | None,
    lanes: int = 1,
    as_json: bool,
) -> None:
    """Judge a candidate set over the torch tasks of a split and print the suite metrics."""
    from regrapht.bench.candidates import (
        JOURNAL_FILE,
        CandidateSetError,
        find_candidates,
        run_candidate_bench,
        write_candidate_bench,
    )
    from regrapht.bench.report import print_bench
    from regrapht.eval import EvalConfig, TimingConfig
    from regrapht.eval.torch_judge import TorchReferenceError, baselines_for
    from regrapht.tasks import TaskError, load_torch_suite

    err = Console(stderr=True, highlight=False)

    def fail(message: str) -> typer.Exit:
        err.print(f"[red]error:[/] {message}")
        return typer.Exit(2)

    try:
        suite = load_torch_suite(tasks_root, split)
    except TaskError as exc:
        raise fail(str(exc)) from None
    if tasks:
        wanted = [x.strip() for x in tasks.split(",") if x.strip()]
        known = {t.id for t in suite}
        missing = [w for w in wanted if w not in known]
        if missing:
            raise fail(f"no {split} torch task(s) {', '.join(missing)}; {split} torch tasks: {', '.join(sorted(known)) or 'none'}")
        suite = [t for t in suite if t.id in wanted]
    if not suite:
        raise fail(f"no torch tasks in split {split!r}" + (f" under {tasks_root}" if tasks_root else ""))
    try:
        chosen_baselines = baselines_for(target, tuple(b.strip() for b in baselines.split(",")) if baselines else None)
        found = find_candidates(suite, candidates)
    except (ValueError, CandidateSetError) as exc:
        raise fail(str(exc)) from None
    if not found:
        where = str(candidates) if candidates else "the task folders' candidates/"
        raise fail(f"no candidate in {where} for any of the {len(suite)} selected {split} torch task(s)")
    config = EvalConfig(seeds=eval_seeds, timing_config=TimingConfig(budget_s=eval_budget), torch_baselines=chosen_baselines)
    source = str(candidates) if candidates else "task folders"
    n = sum(len(v) for v in found.values())
    # What a kept sample must match to be reused on a rerun (with the task, text, target, baselines).
    # The machine and the code too: a journal carried to another GPU, or kept across a harness change,
    # is judged anew rather than mixed in.
    settings = f"budget={eval_budget};seeds={eval_seeds};{_machine_and_code(target)}"
    try:
        with (
            lane_options.open_evaluator(config, target, gpus, lanes) as evaluator,
            Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                     console=err, transient=False) as progress,  # fmt: skip
        ):
            bar = progress.add_task(f"judging {n} candidate(s) over {len(found)} torch task(s) ({target})", total=n)

            def report(done: int, total: int, new: list) -> None:
                progress.update(bar, completed=done, total=total)
                for task_id, s in new:  # one line per verdict as it comes, for logs without a terminal
                    speed = ", ".join(f"{b} {v:.3g}x" for b, v in s["speedups"].items())
                    progress.console.print(f"{task_id}: {Path(s['candidate']).name} {s['status']}"
                                           + (f" ({speed})" if speed else ""), highlight=False)  # fmt: skip

            results = run_candidate_bench(suite, found, evaluator.evaluate_many, target=target, source=source,
                                          split=split, baselines=chosen_baselines, ks=ks, journal=out / JOURNAL_FILE,
                                          settings=settings, chunk=2 * len(getattr(evaluator, "lanes", ()) or [None]),
                                          on_progress=report)  # fmt: skip
    except (CandidateSetError, TorchReferenceError) as exc:
        raise fail(str(exc)) from None
    if results["resumed"]:
        err.print(f"[dim]{results['resumed']} of {n} candidate(s) kept from {out / JOURNAL_FILE} (same task, text, "
                  "target, baselines and settings); delete it to judge them again[/]")  # fmt: skip
    paths = write_candidate_bench(out, results)
    if as_json:
        sys.stdout.write(json.dumps(results, indent=1, default=float) + "\n")
        return
    console = Console(highlight=False)
    if results["missing"]:
        console.print(f"[dim]no candidate for {len(results['missing'])} task(s): {', '.join(results['missing'])}[/]")
    print_bench(console, results)
    console.print(f"wrote {paths['results']}, {paths['report']}")


def _machine_and_code(target: str) -> str:
    """What a kept torch sample was measured with: this regrapht, torch, and the machine as stored
    evaluations are filed (devices.machine_name)."""
    import regrapht
    from regrapht.eval.devices import machine_name

    try:
        import torch

        torch_version = torch.__version__
    except ImportError:
        torch_version = "none"
    return f"regrapht={regrapht.__version__};torch={torch_version};{machine_name(target)}"
