"""`regrapht optimize`, `regrapht bench` and `regrapht report`: searches, suite runs, their reports."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from regrapht.cli import lane_options

TARGET_HELP = "cuda (nvcc, needs a GPU) or cpu (OpenMP C++ with g++, runs anywhere)."
GRAPH_HELP = (
    "The ReGraph file. Default: the shipped graph of the target. "
    "Needed by mcgs, walk, greedy and rag, and by the offline policy."
)
MODEL_HELP = (
    "The model spec (see `regrapht llm --help`), e.g. openai:NAME@URL for an OpenAI-compatible server, "
    "or `offline` for the offline policy that replays the graph's recorded steps (no model; for measuring "
    "search algorithms)."
)


def register(app: typer.Typer) -> None:
    app.command("optimize")(optimize_command)
    app.command("bench")(bench_command)
    app.command("report")(report_command)


def _err() -> Console:
    return Console(stderr=True, highlight=False)


def _fail(message: str, code: int = 2) -> typer.Exit:
    _err().print(f"[red]error:[/] {message}")
    return typer.Exit(code)


def _parse_params(items: list[str] | None) -> dict[str, str]:
    params: dict[str, str] = {}
    for item in items or []:
        if "=" not in item:
            raise _fail(f"--param {item!r}: write it as NAME=VALUE, e.g. --param c=2")
        k, v = item.split("=", 1)
        params[k.strip()] = v.strip()
    return params


def _strategy(name: str, params: list[str] | None) -> Any:
    from regrapht.search.strategy import make_strategy

    try:
        return make_strategy(name, **_parse_params(params))
    except ValueError as exc:
        raise _fail(str(exc)) from None


def _check_target(target: str, cluster: str | None = None) -> None:
    if target not in ("cuda", "cpu"):
        raise _fail(f"--target must be cuda or cpu, not {target!r}")
    if target == "cuda" and cluster is None:  # a Ray cluster's GPUs are checked when its lanes start
        from regrapht.eval import toolchain

        if not toolchain.gpus():
            raise _fail(
                "no NVIDIA GPU is visible here (nvidia-smi finds none), so cuda candidates cannot run. Use "
                "--target cpu (OpenMP C++, with a cpu graph), or run this on a GPU machine. `regrapht doctor` "
                "shows what is missing."
            )


def _graph(path: Path | None, target: str, needed: bool) -> tuple[Any, Any]:
    """(graph or None, its info)."""
    from regrapht.graph.store import GraphFormatError, default_graph_path, load_graph
    from regrapht.search.session import graph_info

    p = path or default_graph_path(target)
    if not p.is_file():
        if not needed:
            return None, None
        if path is None:
            raise _fail(
                f"this needs a graph, and there is no shipped {target} graph at {p}. Build one with "
                "`regrapht graph build TRAJECTORIES.jsonl --out G.json` and pass --graph G.json."
            )
        raise _fail(f"no graph file at {p}")
    try:
        g = load_graph(p)
    except GraphFormatError as exc:
        raise _fail(str(exc)) from None
    if g.target != target:
        raise _fail(f"the graph {p} is a {g.target} graph, but --target is {target}")
    return g, graph_info(g, p)


def _settings(temperature: float, max_tokens: int, examples: int, start: str) -> Any:
    from regrapht.llm.types import SamplingParams
    from regrapht.search.context import StepSettings

    return StepSettings(
        sampling=SamplingParams(temperature=temperature, max_tokens=max_tokens),
        examples=examples,
        start=start,
    )


def _eval_config(eval_budget: float, eval_seeds: int) -> Any:
    from regrapht.eval import EvalConfig, TimingConfig

    return EvalConfig(seeds=eval_seeds, timing_config=TimingConfig(budget_s=eval_budget))


def _embedder(embed: bool) -> Any:
    if not embed:
        return None
    from regrapht.graph.embed import load_embedder

    emb, notice = load_embedder()
    if emb is None:
        _err().print(f"[yellow]note:[/] {notice}; retrieval falls back to lexical similarity")
    return emb


class _Progress:
    """A live line per run: best speedup so far, evaluations, tokens, generations."""

    def __init__(self, console: Console, total_runs: int, budget: int, label: str) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[info]}"),
            TimeElapsedColumn(),
            console=console,
            transient=False,
        )
        self.label = label
        self.runs = self.progress.add_task(f"{label} runs", total=total_runs, info="")
        self.budget = budget
        self.tasks: dict[str, Any] = {}
        self.totals = {"generations": 0, "evaluations": 0, "tokens": 0}
        self.best: float | None = None
        self.single = total_runs == 1
        self.gen = self.progress.add_task("generations", total=budget, info="") if self.single else None

    def __enter__(self) -> _Progress:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.__exit__(*exc)  # type: ignore[arg-type]

    def _info(self) -> str:
        best = "none yet" if self.best is None else f"{self.best:.3g}x"
        t = self.totals
        return f"best speedup {best} | {t['evaluations']} evaluations | {t['tokens']} tokens"

    def attempt(self, ctx: Any, attempt: Any) -> None:
        self.totals["generations"] += 1
        self.totals["evaluations"] += int(attempt.new_evaluation)
        self.totals["tokens"] += attempt.prompt_tokens + attempt.completion_tokens
        sp = attempt.speedup("serial") if attempt.correct else None
        if sp is not None and (self.best is None or sp > self.best):
            self.best = sp
        if self.gen is not None:
            self.progress.update(self.gen, completed=ctx.spent.generations, info=self._info())
        self.progress.update(self.runs, info=self._info())

    def finished(self, result: Any, resumed: bool) -> None:
        self.progress.advance(self.runs)
        best = result.best_attempt
        if best is not None:
            sp = best.speedup("serial")
            if sp is not None and (self.best is None or sp > self.best):
                self.best = sp
        self.progress.update(self.runs, info=self._info())


def _interrupted(store_path: Path) -> typer.Exit:
    _err().print(
        f"\n[yellow]interrupted.[/] The run store {store_path} keeps every model call and evaluation made so far; "
        "run the same command again to resume."
    )
    return typer.Exit(130)


def _model_failed(exc: Exception, store_path: Path) -> typer.Exit:
    return _fail(
        f"the model failed: {exc}\nThe run store {store_path} keeps what was done; run the same command again "
        "to resume once the model works."
    )


def _check_model_spec(spec: str) -> None:
    """Refuse a malformed model spec before anything is written (no empty run store is left behind)."""
    from regrapht.llm.errors import ModelSpecError
    from regrapht.llm.spec import parse_model_spec
    from regrapht.search.offline import is_offline_spec

    if is_offline_spec(spec):
        graph_file = spec.strip()[len("offline") :].lstrip(":").strip()
        if graph_file and not Path(graph_file).is_file():
            raise _fail(f"cannot open the model: {spec!r} names no graph file {graph_file}")
        return
    try:
        parse_model_spec(spec)
    except ModelSpecError as exc:
        raise _fail(f"cannot open the model: {exc}") from None


def _unwritten(path: Path) -> list[Path]:
    """`path` and those of its parent folders that do not exist yet, innermost first."""
    missing = []
    for p in [path, *path.parents]:
        if p.exists():
            break
        missing.append(p)
    return missing


def _remove_unused(created: list[Path]) -> None:
    """Remove a run store (with SQLite's side files) and the folders made for it, when a run could
    not start: a model that cannot be opened leaves nothing behind."""
    store, *folders = created
    for p in (store, *(store.with_name(store.name + s) for s in ("-wal", "-shm", "-journal"))):
        p.unlink(missing_ok=True)
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:  # not empty: something else is in it now
            break


# ------------------------------------------------------------------------------------------ optimize


def optimize_command(
    task: str = typer.Argument(..., help="A task folder, or the id of a shipped task."),
    model: str = typer.Option(..., "--model", "-m", help=MODEL_HELP),
    strategy: str = typer.Option(
        "mcgs", "--strategy", "-s", help="mcgs, walk, greedy, standard, cot, rag, refine or contrastive."
    ),
    budget: int = typer.Option(
        None, "--budget", "-b", min=1, help="Model generations to spend. Default: the strategy's (mcgs 16)."
    ),
    target: str = typer.Option("cuda", "--target", "-t", help=TARGET_HELP),
    graph: Path = typer.Option(None, "--graph", "-g", dir_okay=False, help=GRAPH_HELP),
    seed: int = typer.Option(0, "--seed", help="Seed of the search's choices and of the model's sampling."),
    out: Path = typer.Option(
        None,
        "--out",
        "-o",
        file_okay=False,
        help="Output folder. Default: TASK-STRATEGY-sSEED under regrapht-runs.",
    ),
    store: Path = typer.Option(
        None, "--store", dir_okay=False, help="The run store (SQLite). Default: OUT/run.sqlite."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the run record as JSON on stdout."),
    gpu_seconds: float = typer.Option(
        None, "--gpu-seconds", min=0.001, help="Also stop after this many evaluator worker seconds."
    ),
    tokens: int = typer.Option(
        None, "--tokens", min=1, help="Also stop after this many prompt + completion tokens."
    ),
    param: list[str] = typer.Option(
        None,
        "--param",
        "-p",
        help="A strategy parameter NAME=VALUE (repeatable), e.g. c=2 (mcgs; docs/search.md lists them).",
    ),
    tasks_root: Path = typer.Option(
        None, "--tasks-root", file_okay=False, help="Find task ids here instead of the shipped tasks."
    ),
    start: str = typer.Option(
        "serial", "--start", help="Start from the task's serial code or its naive.cu (serial|naive)."
    ),
    temperature: float = typer.Option(0.7, min=0.0, help="Sampling temperature."),
    max_tokens: int = typer.Option(4096, min=16, help="Completion tokens per generation."),
    examples: int = typer.Option(2, min=0, help="Worked examples per step prompt."),
    eval_budget: float = typer.Option(2.0, min=0.05, help="Timing seconds per evaluation."),
    eval_seeds: int = typer.Option(3, min=1, help="Random input sets per test size."),
    embed: bool = typer.Option(
        False, "--embed", help="Retrieve examples with the MiniLM model (extra `embed`)."
    ),
    gpus: str = lane_options.gpus_option(),
    lanes: int = lane_options.lanes_option(),
) -> None:
    """Optimize TASK with a strategy (MCGS by default) guided by the Reasoning Graph.

    It spends a budget of model generations and keeps the best verified kernel.

    Writes OUT/best.cu (or best.cpp), OUT/result.json (the run record with the evaluation records of the
    path) and OUT/report.html (the path through the graph, each step's diff and reward, speedups with
    confidence intervals, roofline position). Interrupted runs resume from the store: model calls come
    from its call cache and evaluations from its evaluation table. Exit status: 0 when a correct kernel
    was found, 1 when none was, 2 on errors.

    Examples (the graph defaults to the shipped one for the target):

      regrapht optimize saxpy --model offline --target cpu --budget 6

      regrapht optimize saxpy --model openai:qwen@http://localhost:8000/v1
    """
    from regrapht.eval import ReferenceError
    from regrapht.llm.errors import ModelError
    from regrapht.search.budget import Budget
    from regrapht.search.evaluate import EvalService
    from regrapht.search.folder import REPORT_FILE, write_optimize_folder
    from regrapht.search.offline import is_offline_spec
    from regrapht.search.session import SearchJob, evaluation_records, open_search_model, run_searches
    from regrapht.search.store import SearchStore
    from regrapht.store import RunStore
    from regrapht.tasks import TaskError, find_task

    err = _err()
    try:
        task_obj = find_task(task, tasks_root)
    except (TaskError, FileNotFoundError) as exc:
        raise _fail(str(exc)) from None
    if getattr(task_obj, "kind", None) == "torch":
        from regrapht.search.task_kinds import refusal

        raise _fail(refusal(task_obj) or "")
    _check_target(target)
    lane_options.check_lanes(target, gpus, lanes)
    strat = _strategy(strategy, param)
    g, g_info = _graph(graph, target, strat.needs_graph or is_offline_spec(model))
    if start not in ("serial", "naive"):
        raise _fail("--start must be serial or naive")
    _check_model_spec(model)
    out_dir = out or Path("regrapht-runs") / f"{task_obj.id}-{strat.name}-s{seed}"
    store_path = store or out_dir / "run.sqlite"
    run_budget = Budget(budget or strat.default_budget, gpu_seconds, tokens)
    config = _eval_config(eval_budget, eval_seeds)
    created = _unwritten(store_path)
    with RunStore(store_path) as run_store:
        try:
            chat, meta = open_search_model(model, graph=g, store=run_store)
        except Exception as exc:  # model specs and servers report their own problems
            run_store.close()
            if created:
                _remove_unused(created)
            raise _fail(f"cannot open the model: {exc}") from None
        if meta["offline"]:
            err.print(f"[bold yellow]{meta['label']}[/]")
        search_store = SearchStore(run_store)
        try:
            with lane_options.open_evaluator(config, target, gpus, lanes) as evaluator:
                evals = EvalService(evaluator, search_store)
                with _Progress(err, 1, run_budget.generations, strat.name) as progress:
                    [result] = run_searches(
                        [SearchJob(task_obj, seed)],
                        strategy=strat,
                        target=target,
                        budget=run_budget,
                        model=chat,
                        model_meta=meta,
                        evals=evals,
                        graph=g,
                        graph_meta=g_info,
                        settings=_settings(temperature, max_tokens, examples, start),
                        store=search_store,
                        embedder=_embedder(embed),
                        on_attempt=progress.attempt,
                        on_finish=progress.finished,
                    )
                records = evaluation_records(result, evals)
        except KeyboardInterrupt:
            raise _interrupted(store_path) from None
        except ReferenceError as exc:
            raise _fail(f"task error: {exc}") from None
        except ModelError as exc:
            raise _model_failed(exc, store_path) from None
        finally:
            chat.close()
    record = write_optimize_folder(out_dir, result, records, meta["label"] if meta["offline"] else None)
    report = out_dir / REPORT_FILE
    if as_json:
        sys.stdout.write(json.dumps(record, indent=1, default=float) + "\n")
    else:
        _print_result(Console(highlight=False), result, out_dir, report)
    raise typer.Exit(2 if result.error else 0 if result.best is not None else 1)


def _print_result(console: Console, result: Any, out_dir: Path, report: Path) -> None:
    if result.model.get("offline"):
        console.print(f"[bold yellow]{result.model.get('label')}[/]")
    best = result.best_attempt
    if result.error:
        console.print(f"[red]task error:[/] {result.error}")
    if best is None:
        console.print(
            f"[bold red]no correct kernel[/] after {result.spent.generations} generations ({result.stopped})"
        )
    else:
        speed = ", ".join(f"{k} {v['value']:.3g}x" for k, v in sorted(best.speedups.items())) or "not timed"
        console.print(
            f"[bold green]best kernel[/]: attempt #{best.index}, reward {best.reward:.4g}, speedup {speed}"
        )
        for note in result.best_notes():
            console.print(f"[yellow]within noise:[/] {note}")
        path = " -> ".join(["start"] + [a.method or a.kind for a in result.path()])
        console.print(f"path: {path}")
    s = result.spent
    from regrapht.search.report import seconds_label

    seconds = seconds_label(result.target)
    console.print(
        f"spent: {s.generations} generations ({s.failed_generations} without code), {s.tokens} tokens, "
        f"{s.gpu_seconds:.2f} {seconds}, {s.evaluations} evaluations ({s.evaluations_reused} from the store); "
        f"stopped: {result.stopped}"
    )
    from regrapht.search.folder import RESULT_FILE, best_file

    best_path = f", {best_file(out_dir, result.target)}" if best is not None else ""
    console.print(f"wrote {out_dir / RESULT_FILE}, {report}{best_path}")


# ------------------------------------------------------------------------------------------ bench


def bench_command(
    model: str = typer.Option(None, "--model", "-m", help=MODEL_HELP + " Not with --kind torch."),
    out: Path = typer.Option(
        ..., "--out", "-o", file_okay=False, help="Output folder: results.json, runs.jsonl, report.html."
    ),
    split: str = typer.Option("test", "--split", help="Which tasks: train, test or example."),
    strategy: str = typer.Option(
        "mcgs", "--strategy", "-s", help="mcgs, walk, greedy, standard, cot, rag, refine or contrastive."
    ),
    samples: int = typer.Option(
        1, "--samples", "-k", min=1, help="Runs per task (for pass@k and speedup@k)."
    ),
    tasks: str = typer.Option(None, "--tasks", help="Comma-separated task ids (within the split)."),
    target: str = typer.Option("cuda", "--target", "-t", help=TARGET_HELP),
    budget: int = typer.Option(
        None, "--budget", "-b", min=1, help="Generations per run. Default: the strategy's."
    ),
    graph: Path = typer.Option(None, "--graph", "-g", dir_okay=False, help=GRAPH_HELP),
    seed: int = typer.Option(0, "--seed", help="Sample i of a task runs with seed + i."),
    store: Path = typer.Option(
        None, "--store", dir_okay=False, help="The run store. Default: OUT/bench.sqlite."
    ),
    ks: str = typer.Option(
        "1,5,10", "--ks", help="k values for pass@k and speedup@k (those above --samples are skipped)."
    ),
    gpu_seconds: float = typer.Option(
        None, "--gpu-seconds", min=0.001, help="Per-run cap on evaluator worker seconds."
    ),
    tokens: int = typer.Option(None, "--tokens", min=1, help="Per-run cap on tokens."),
    param: list[str] = typer.Option(
        None, "--param", "-p", help="A strategy parameter NAME=VALUE (repeatable)."
    ),
    tasks_root: Path = typer.Option(
        None, "--tasks-root", file_okay=False, help="A folder of task folders instead of the shipped suite."
    ),
    temperature: float = typer.Option(0.7, min=0.0, help="Sampling temperature."),
    max_tokens: int = typer.Option(4096, min=16, help="Completion tokens per generation."),
    examples: int = typer.Option(2, min=0, help="Worked examples per step prompt."),
    eval_budget: float = typer.Option(2.0, min=0.05, help="Timing seconds per evaluation."),
    eval_seeds: int = typer.Option(3, min=1, help="Random input sets per test size."),
    as_json: bool = typer.Option(False, "--json", help="Print results.json on stdout."),
    embed: bool = typer.Option(
        False, "--embed", help="Retrieve examples with the MiniLM model (extra `embed`)."
    ),
    gpus: str = lane_options.gpus_option(),
    lanes: int = lane_options.lanes_option(),
    ray: str = lane_options.ray_option(),
    kind: str = typer.Option(
        "serial-cpp", "--kind", help="serial-cpp (a search strategy with a model) or torch (a candidate set)."
    ),
    candidates: Path = typer.Option(
        None,
        "--candidates",
        file_okay=False,
        help="--kind torch: a folder of ModelNew candidates, <task id>.py (or .cu) or <task id>/*.py. "
        "Default: each task folder's own candidates/.",
    ),
    baselines: str = typer.Option(
        None, "--baselines", help="--kind torch: baselines beside each candidate (default eager,compile on cuda)."
    ),
) -> None:
    """Run a strategy over a task suite and compute its metrics.

    pass@k, speedup@k, speedup_max@k, fast_p, the geometric-mean speedup and compile/correctness rates,
    by difficulty and category, with the model-call, token and evaluator-time cost (GPU-seconds on
    cuda, worker-seconds on cpu).

    Runs are resumable: run the same command again after an interruption. Examples (the graph defaults
    to the shipped one for the target):

      regrapht bench --split train -s walk -m offline -t cpu -o runs/walk

      regrapht bench -m openai:qwen@http://localhost:8000/v1 -k 5 -o runs/mcgs

    Torch tasks have no search (no strategy's prompts or graph steps apply to a PyTorch Model): `--kind
    torch` judges a candidate set instead, one sample per candidate, with speedups over eager PyTorch and
    torch.compile:

      regrapht bench --kind torch --split example --candidates mine -o runs/t
    """
    from regrapht.bench.report import print_bench
    from regrapht.bench.runner import run_bench, write_bench
    from regrapht.llm.errors import ModelError
    from regrapht.search.budget import Budget
    from regrapht.search.evaluate import EvalService
    from regrapht.search.offline import is_offline_spec
    from regrapht.search.session import open_search_model
    from regrapht.search.store import SearchStore
    from regrapht.store import RunStore
    from regrapht.tasks import TaskError, load_suite

    err = _err()
    if kind == "torch" and ray is not None:  # argument errors before what this machine lacks
        raise _fail("--kind torch runs on this host's GPUs: drop --ray (pick the GPUs with --gpus)")
    if kind == "torch" and target == "cuda" and lanes != 1:
        raise _fail("--kind torch runs one candidate per GPU at a time: drop --lanes (pick the GPUs with --gpus)")
    if kind == "torch" and target == "cuda" and gpus and _repeats_a_gpu(gpus):
        raise _fail(f"--kind torch runs one candidate per GPU at a time: --gpus {gpus} names a GPU twice")
    _check_target(target, cluster=ray)
    if kind not in ("serial-cpp", "torch"):
        raise _fail(f"--kind must be serial-cpp or torch, not {kind!r}")
    if kind == "torch":
        from regrapht.cli.bench_torch_cmd import torch_bench
        from regrapht.search.task_kinds import refusal

        if model is not None:
            raise _fail(f"{refusal()} (drop --model)")
        lane_options.check_lanes(target, gpus, lanes)
        try:
            k_values = sorted({int(x) for x in ks.split(",") if x.strip()})
        except ValueError:
            raise _fail(f"--ks must be comma-separated integers, not {ks!r}") from None
        torch_bench(out=out, split=split, tasks=tasks, target=target, candidates=candidates, tasks_root=tasks_root,
                    ks=k_values, eval_budget=eval_budget, eval_seeds=eval_seeds, baselines=baselines, gpus=gpus,
                    lanes=lanes, as_json=as_json)  # fmt: skip
        return
    if model is None:
        raise _fail("--model is required (a search needs a model; `--kind torch --candidates DIR` judges a set)")
    if candidates is not None or baselines is not None:
        raise _fail("--candidates and --baselines are for --kind torch")
    lane_options.check_lanes(target, gpus, lanes, ray)
    strat = _strategy(strategy, param)
    g, g_info = _graph(graph, target, strat.needs_graph or is_offline_spec(model))
    try:
        suite = load_suite(tasks_root)
    except TaskError as exc:
        raise _fail(str(exc)) from None
    chosen = [t for t in suite if t.split == split]
    if tasks:
        wanted = [x.strip() for x in tasks.split(",") if x.strip()]
        known = {t.id for t in chosen}
        missing = [w for w in wanted if w not in known]
        if missing:
            raise _fail(
                f"no {split} task(s) {', '.join(missing)}; {split} tasks: {', '.join(sorted(known)) or 'none'}"
            )
        chosen = [t for t in chosen if t.id in wanted]
    if not chosen:
        raise _fail(f"no tasks in split {split!r}" + (f" under {tasks_root}" if tasks_root else ""))
    try:
        k_values = sorted({int(x) for x in ks.split(",") if x.strip()})
    except ValueError:
        raise _fail(f"--ks must be comma-separated integers, not {ks!r}") from None
    _check_model_spec(model)
    run_budget = Budget(budget or strat.default_budget, gpu_seconds, tokens)
    store_path = store or out / "bench.sqlite"
    created = _unwritten(store_path)
    with RunStore(store_path) as run_store:
        try:
            chat, meta = open_search_model(model, graph=g, store=run_store)
        except Exception as exc:  # model specs and servers report their own problems
            run_store.close()
            if created:
                _remove_unused(created)
            raise _fail(f"cannot open the model: {exc}") from None
        if meta["offline"]:
            err.print(f"[bold yellow]{meta['label']}[/]")
        search_store = SearchStore(run_store)
        try:
            with lane_options.open_evaluator(_eval_config(eval_budget, eval_seeds), target, gpus, lanes, ray) as evaluator:
                evals = EvalService(evaluator, search_store)
                with _Progress(err, len(chosen) * samples, run_budget.generations, strat.name) as progress:
                    results, runs = run_bench(
                        chosen,
                        strategy=strat,
                        target=target,
                        budget=run_budget,
                        samples=samples,
                        seed=seed,
                        model=chat,
                        model_meta=meta,
                        evals=evals,
                        store=search_store,
                        graph=g,
                        graph_meta=g_info,
                        settings=_settings(temperature, max_tokens, examples, "serial"),
                        ks=k_values,
                        split=split,
                        embedder=_embedder(embed),
                        on_attempt=progress.attempt,
                        on_finish=progress.finished,
                    )
        except KeyboardInterrupt:
            raise _interrupted(store_path) from None
        except ModelError as exc:
            raise _model_failed(exc, store_path) from None
        finally:
            chat.close()
    paths = write_bench(out, results, runs)
    if as_json:
        sys.stdout.write(json.dumps(results, indent=1, default=float) + "\n")
    else:
        console = Console(highlight=False)
        print_bench(console, results)
        console.print(f"wrote {paths['results']}, {paths['runs']}, {paths['report']}")


# ------------------------------------------------------------------------------------------ report


def report_command(
    runs: list[Path] = typer.Argument(..., help="Bench output folders (each with results.json)."),
    out: Path = typer.Option(
        None,
        "--out",
        "-o",
        dir_okay=False,
        help="The comparison page. Default: compare.html in the folder that holds the first run.",
    ),
    names: str = typer.Option(
        None, "--names", help="Comma-separated column names. Default: the folder names."
    ),
) -> None:
    """Compare bench runs side by side: a terminal table and an HTML page with charts.

    With one bench folder, its report.html is rendered again from its results.json. With one optimize
    folder (written by `regrapht optimize`), its report.html is rendered again from its result.json.
    """
    from regrapht.bench.report import print_compare, render_bench, write_compare
    from regrapht.bench.runner import REPORT_FILE, RESULTS_FILE, load_results
    from regrapht.search.folder import RESULT_FILE, is_optimize_folder, rerender_optimize_report

    optimize_runs = [d for d in runs if is_optimize_folder(d) and not (d / RESULTS_FILE).is_file()]
    if optimize_runs:
        if len(runs) == 1 and out is None:
            try:
                page = rerender_optimize_report(runs[0])
            except ValueError as exc:
                raise _fail(str(exc)) from None
            Console(highlight=False).print(
                f"{runs[0]} is an optimize run: rendered its page again from {RESULT_FILE}\nwrote {page}"
            )
            return
        raise _fail(
            f"{optimize_runs[0]} is an optimize run ({RESULT_FILE}), not a bench run: `regrapht report` compares "
            f"the folders `regrapht bench --out DIR` writes. Its own page is {optimize_runs[0] / REPORT_FILE}; "
            f"`regrapht report {optimize_runs[0]}` alone renders it again."
        )
    loaded = []
    for d in runs:
        if not d.exists():
            raise _fail(f"{d}: no such folder")
        if d.is_dir() and not (d / RESULTS_FILE).is_file():
            inside = sorted(str(sub) for sub in d.iterdir() if (sub / RESULTS_FILE).is_file())
            raise _fail(
                f"{d} holds no {RESULTS_FILE}: `regrapht report` reads the folders `regrapht bench --out DIR` writes"
                + (f"; these folders in it do: {' '.join(inside)}" if inside else "")
            )
        try:
            loaded.append(load_results(d))
        except json.JSONDecodeError as exc:
            raise _fail(f"{d}: {RESULTS_FILE} is not valid JSON ({exc})") from None
        except (OSError, ValueError) as exc:
            raise _fail(f"{d}: {exc}") from None
    labels = [x.strip() for x in names.split(",")] if names else [d.resolve().name or str(d) for d in runs]
    if len(labels) != len(loaded):
        raise _fail(f"--names gives {len(labels)} names for {len(loaded)} runs")
    console = Console(highlight=False)
    print_compare(console, loaded, labels)
    if len(loaded) == 1 and out is None:
        page = (runs[0] if runs[0].is_dir() else runs[0].parent) / REPORT_FILE
        page.write_text(render_bench(loaded[0]), encoding="utf-8")
    else:
        page = write_compare(out or _beside_first_run(runs[0]) / "compare.html", loaded, labels)
    console.print(f"wrote {page}")


def _beside_first_run(first: Path) -> Path:
    """The folder that holds the first run's folder (where its siblings usually are)."""
    folder = first if first.is_dir() else first.parent
    return folder.resolve().parent


def _repeats_a_gpu(gpus: str) -> bool:
    from regrapht.eval.devices import LaneSpecError, parse_gpu_list

    try:
        positions = parse_gpu_list(gpus)
    except LaneSpecError:
        return False  # refused with its own reason when the lanes are checked
    return len(positions) != len(set(positions))
