"""`regrapht graph stats|show|build|check|validate|merge|report` and `regrapht advise`: the Reasoning Graph."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.syntax import Syntax

from regrapht import tables
from regrapht.graph.model import ReGraph
from regrapht.graph.store import GraphFormatError, default_graph_path, load_graph, save_graph
from regrapht.graph.trajectory import TrajectoryFormatError, read_trajectories

graph_app = typer.Typer(
    name="graph",
    help="Build, inspect, check and merge Reasoning Graphs (ReGraph files).",
    no_args_is_help=True,
)

GRAPH_HELP = "A graph file. Default: the shipped graph of the target."


def register(app: typer.Typer) -> None:
    app.add_typer(graph_app, name="graph")
    app.command("advise")(advise_command)


def _out() -> Console:
    return Console(highlight=False, soft_wrap=False)


def _err() -> Console:
    return Console(stderr=True, highlight=False)


def _check_target(target: str) -> str:
    if target not in ("cuda", "cpu"):
        _err().print(f"[red]error:[/] --target must be cuda or cpu, not {target!r}")
        raise typer.Exit(2)
    return target


def _open_graph(path: Path | None, target: str) -> ReGraph:
    p = path or default_graph_path(target)
    if not p.is_file():
        if path is None:
            _err().print(
                f"[red]error:[/] no graph given and no shipped {target} graph at {p}. Shipped graphs: "
                f"{', '.join(sorted(q.stem for q in p.parent.glob('*.json'))) or 'none'} (choose with --target). "
                "Or build one with `regrapht graph build TRAJECTORIES.jsonl --out G.json` and pass `--graph G.json`."
            )
        else:
            _err().print(f"[red]error:[/] no graph file at {p}")
        raise typer.Exit(2)
    try:
        return load_graph(p)
    except GraphFormatError as exc:
        _err().print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from None


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.2f}x"


# ------------------------------------------------------------------------------------------ stats


@graph_app.command("stats")
def stats_command(
    graph: Path = typer.Option(None, "--graph", "-g", help=GRAPH_HELP, dir_okay=False),
    target: str = typer.Option("cuda", "--target", "-t", help="cuda or cpu: which shipped graph by default."),
    as_json: bool = typer.Option(False, "--json", help="Print the statistics as JSON."),
    top: int = typer.Option(10, min=1, help="How many transitions to list by count and by gain."),
) -> None:
    """Size and quality of a graph: nodes, edges, examples, verified share, tasks, top transitions."""
    from regrapht.graph.stats import graph_stats

    g = _open_graph(graph, _check_target(target))
    st = graph_stats(g, top=top)
    if as_json:
        typer.echo(json.dumps(st, indent=2))
        return
    con = _out()
    con.print(
        f"[bold]ReGraph[/] target={st['target']}  nodes={st['nodes']} ({st['method_nodes']} methods, "
        f"{len(st['new_methods'])} new)  edges={st['edges']} (self-loops {st['self_loops']})"
    )
    con.print(
        f"examples={st['examples']} (distinct)  verified={st['verified']} ({st['verified_share']:.0%})  "
        f"failures={st['failures']}  unverified={st['unverified']}  tasks={st['distinct_tasks']}  "
        f"trajectories: {st['trajectories']['merged']} merged, {st['trajectories']['cut']} cut, "
        f"{st['trajectories']['unreproduced']} unreproduced, {st['trajectories']['dropped']} dropped  "
        f"reused steps={st['reused_steps']}"
    )
    if st["failure_kinds"]:
        con.print("failures by kind: " + ", ".join(f"{k} {v}" for k, v in st["failure_kinds"].items()))
    if st["machines"]:
        con.print("measured on: " + ", ".join(f"{k} ({v})" for k, v in st["machines"].items()))
    for key, title in (
        ("top_by_count", "Top transitions by count"),
        ("top_by_gain", "Top transitions by gain"),
    ):
        t = tables.table(title)
        tables.key_column(t, "from")
        tables.name_column(t, "to")
        for col in ("taken", "verified", "failures", "geomean", "measured"):
            tables.number_column(t, col)
        for r in st[key]:
            t.add_row(
                r["source"],
                r["target"],
                str(r["taken"]),
                str(r["verified"]),
                str(r["failures"]),
                _fmt(r["geomean"]),
                str(r["measured"]),
            )
        con.print(t)


# ----------------------------------------------------------------------------------------- report


@graph_app.command("report")
def report_command(
    out: Path = typer.Option(
        None, "--out", "-o", help="Write the report into this Markdown file (between its report markers)."
    ),
    graph: Path = typer.Option(None, "--graph", "-g", help=GRAPH_HELP, dir_okay=False),
    target: str = typer.Option("cuda", "--target", "-t", help="cuda or cpu: which shipped graph by default."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    measure: bool = typer.Option(
        False,
        "--measure",
        help="Time the tasks' best kernels that carry no measured time, on this machine (cuda: needs the "
        "GPU), into the graph's timings file (NAME.timings.json beside it).",
    ),
    budget: float = typer.Option(0.5, min=0.05, help="Seconds of timing per kernel with --measure."),
    time_limit: float = typer.Option(None, "--time-limit", min=1.0, help="With --measure: stop after this long."),
) -> None:
    """The graph against the issue's targets: tasks, distinct verified examples, methods, examples per
    edge, failures by kind, machines, the teacher kernels' share of the roofline floor, leakage."""
    import time

    from regrapht.graph.report import (
        graph_report,
        load_timings,
        measure_final_kernels,
        render_markdown,
        save_timings,
        splice,
        timings_path,
    )

    tgt = _check_target(target)
    path = graph or default_graph_path(tgt)
    g = _open_graph(graph, tgt)
    tpath = timings_path(path)
    timings = load_timings(tpath)
    if measure:
        from regrapht.eval import EvalConfig, TimingConfig
        from regrapht.graph.report import code_sha, final_kernels

        started = time.monotonic()
        tasks = {code_sha(f.example.after): t for t, f in final_kernels(g).items()}

        def saved(task: str, timing: object) -> None:
            save_timings(tpath, timings, tasks)
            _err().print(f"[{time.monotonic() - started:.0f}s] {task}: {timing or 'not timed (the kernel failed)'}")

        n = measure_final_kernels(
            g,
            timings,
            EvalConfig(seeds=1, timing_config=TimingConfig(budget_s=budget)),
            on_task=saved,
            should_stop=lambda: time_limit is not None and time.monotonic() - started > time_limit,
        )
        save_timings(tpath, timings, tasks)
        _err().print(f"timed {n} kernels; timings in {tpath}")
    report = graph_report(g, timings=timings)
    if as_json:
        typer.echo(json.dumps(report, indent=2))
    command = f"regrapht graph report --target {tgt}" + (f" --out {out}" if out else "")
    text = render_markdown(report, command)
    if out is not None:
        doc = out.read_text(encoding="utf-8") if out.exists() else ""
        out.write_text(splice(doc, tgt, text), encoding="utf-8")
        _err().print(f"wrote the {tgt} report into {out}")
    elif not as_json:
        typer.echo(text)
    missed = [t["name"] for t in report["targets"] if not t["met"]]
    if missed:
        _err().print(f"[yellow]targets not met:[/] {', '.join(missed)}")


# ------------------------------------------------------------------------------------------ check


@graph_app.command("check")
def check_command(
    trajectories: list[Path] = typer.Argument(..., help="Authored trajectory files (JSONL).", exists=True),
    target: str = typer.Option("cuda", "--target", "-t", help="cuda or cpu: the trajectories' target."),
    graph: Path = typer.Option(
        None, "--graph", "-g", dir_okay=False,
        help="Skip the steps this graph already measured, as a build resuming it would. Default: the shipped "
        "graph of the target.",
    ),
    every_step: bool = typer.Option(False, "--all", help="Compile every step, measured ones included."),
) -> None:
    """Check trajectory files before a build, without a GPU: every line parses, every step's method is a
    canonical method by name or synonym, and every step the build will measure compiles (the evaluator's
    compiler and flags, the task's entry) and passes the static screen. Exit status 1 on any problem."""
    from regrapht.graph.precheck import measured_steps, precheck

    tgt = _check_target(target)
    known: set[tuple[str, str]] = set()
    if not every_step and (graph is not None or default_graph_path(tgt).is_file()):
        known = measured_steps(_open_graph(graph, tgt))
    err = _err()
    report = precheck(trajectories, tgt, known, on_step=lambda task, i: err.print(f"compiling {task} step {i}"))
    for problem in report.problems:
        err.print(problem.describe(), markup=False)
    err.print(
        f"{report.trajectories} trajectories, {report.steps} steps: {report.compiled} compiled, {report.known} "
        f"already measured on the graph, {len(report.problems)} problems"
    )
    if not report.ok:
        raise typer.Exit(1)


# ------------------------------------------------------------------------------------------- show


@graph_app.command("show")
def show_command(
    html: Path = typer.Option(..., "--html", help="Write a self-contained HTML page of the graph here."),
    graph: Path = typer.Option(None, "--graph", "-g", help=GRAPH_HELP, dir_okay=False),
    target: str = typer.Option("cuda", "--target", "-t", help="cuda or cpu: which shipped graph by default."),
    title: str = typer.Option(None, help="Page title."),
) -> None:
    """Draw the graph as one HTML page (no network needed): click an edge to read its examples."""
    from regrapht.graph.html import write_html

    g = _open_graph(graph, _check_target(target))
    out = write_html(g, html, title)
    _err().print(f"wrote {out} ({len(g.nodes)} nodes, {len(g.edges)} edges)")


# --------------------------------------------------------------------------------------- validate


@graph_app.command("validate")
def validate_command(
    path: Path = typer.Argument(..., help="The graph file to check.", dir_okay=False),
    as_json: bool = typer.Option(False, "--json", help="Print the issues as JSON."),
) -> None:
    """Check a graph file: format, references, derived statistics, and nodes against the taxonomy.
    Exit status 0 when valid (warnings allowed), 1 with errors."""
    from regrapht.graph.store import graph_from_dict
    from regrapht.graph.taxonomy import default_taxonomy
    from regrapht.graph.validate import Issue, validate_graph, validate_graph_dict

    if not path.is_file():
        _err().print(f"[red]error:[/] no graph file at {path}")
        raise typer.Exit(2)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        issues = validate_graph_dict(data)
    except json.JSONDecodeError as exc:
        issues = [Issue("error", f"line {exc.lineno} column {exc.colno}", f"not valid JSON: {exc.msg}")]
    if not any(i.level == "error" for i in issues):
        g = graph_from_dict(data, str(path))
        issues = validate_graph(g, default_taxonomy())
    errors = [i for i in issues if i.level == "error"]
    if as_json:
        typer.echo(json.dumps({"valid": not errors, "issues": [i.__dict__ for i in issues]}, indent=2))
    else:
        con = _out()
        for i in issues:
            style = "red" if i.level == "error" else "yellow"
            con.print(f"[{style}]{i.level}[/]: {i.path}: {i.message}")
        con.print(f"{path}: " + ("[green]valid[/]" if not errors else f"[red]{len(errors)} error(s)[/]"))
    raise typer.Exit(1 if errors else 0)


# ------------------------------------------------------------------------------------------ merge


@graph_app.command("merge")
def merge_command(
    graphs: list[Path] = typer.Argument(..., help="Two or more graph files, merged in this order."),
    out: Path = typer.Option(..., "--out", "-o", help="Where to write the merged graph."),
) -> None:
    """Merge graphs (as if their trajectories were replayed in order through Algorithm 1)."""
    from regrapht.graph.merge import merge_graphs
    from regrapht.graph.model import GraphError

    if len(graphs) < 2:
        _err().print("[red]error:[/] give at least two graphs to merge")
        raise typer.Exit(2)
    loaded = [_open_graph(p, "cuda") for p in graphs]
    merged = loaded[0]
    try:
        for g in loaded[1:]:
            merged = merge_graphs(merged, g)
    except GraphError as exc:
        _err().print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from None
    save_graph(merged, out)
    _err().print(f"wrote {out}: {merged!r}")


# ------------------------------------------------------------------------------------------ build


@graph_app.command("build")
def build_command(
    trajectories: list[Path] = typer.Argument(None, help="Authored trajectory files (JSONL, one per line)."),
    out: Path = typer.Option(..., "--out", "-o", help="The graph file to build; an existing one is resumed."),
    target: str = typer.Option("cuda", "--target", "-t", help="cuda or cpu: the graph's target."),
    verify: bool = typer.Option(
        True, "--verify/--no-verify", help="Verify every step with the evaluator (--no-verify: drafts only)."
    ),
    relabel_model: str = typer.Option(
        None,
        "--relabel-model",
        help="Relabel with this model spec (as the paper). Default: offline relabeling.",
    ),
    embed: bool = typer.Option(
        True, "--embed/--no-embed", help="Offline relabeling may use MiniLM similarity."
    ),
    teacher: str = typer.Option(None, "--teacher", help="Also generate trajectories with this model spec."),
    task_refs: list[str] = typer.Option(
        None, "--task", help="Task ids (or folders) for the teacher; repeatable."
    ),
    samples: int = typer.Option(1, min=1, help="Teacher trajectories per task."),
    max_steps: int = typer.Option(6, min=1, help="Most steps the teacher may take."),
    save_trajectories: Path = typer.Option(
        None, "--save-trajectories", help="Append the teacher's trajectories here (JSONL) for review."
    ),
    tasks_root: Path = typer.Option(None, help="Folder of task folders. Default: the shipped tasks."),
    seeds: int = typer.Option(3, min=1, help="Random input sets per test size when verifying."),
    budget: float = typer.Option(2.0, min=0.05, help="Seconds of timing per evaluation when verifying."),
    reference_threads: int = typer.Option(
        2, min=1, help="Tasks whose bench data and serial timing are prepared ahead, in parallel."
    ),
    retry_cut: bool = typer.Option(
        False,
        "--retry-cut",
        help="Verify again the trajectories a failing step cut off the graph, or whose expected failure "
        "did not show (after fixing their task).",
    ),
    call_timeout: float = typer.Option(
        20.0, min=1.0, help="Seconds an evaluation call may go without progress before it counts as a hang."
    ),
    time_limit: float = typer.Option(
        None,
        "--time-limit",
        min=1.0,
        help="Start no new trajectory after this many seconds; the graph is saved and the same command "
        "resumes it (for machines lent by the call).",
    ),
) -> None:
    """Build (or resume) a graph from trajectories: relabel, verify each step, merge (Algorithm 1).

    Trajectories come from authored JSONL files and/or a teacher model (--teacher SPEC --task ID).

    The graph is saved after every trajectory; run the same command again to resume. Trajectories
    already on the graph (same content hash) are skipped; with --retry-cut, those a failing step cut
    short are taken off and verified again. A step already on the graph (same edge and code) is
    neither measured nor added again: the trajectory continues from it.
    """
    import time

    from regrapht.graph.build import RETRIED, SETTLED, BuildEvent, build_graph
    from regrapht.graph.relabel import ModelRelabeler, OfflineRelabeler
    from regrapht.graph.verify import EvalVerifier, StepCheck

    target = _check_target(target)
    err = _err()
    if retry_cut and not verify:
        err.print(
            "[red]error:[/] --retry-cut verifies cut trajectories again; it cannot run with --no-verify"
        )
        raise typer.Exit(2)
    try:
        items = [t for path in trajectories or [] for _, t in read_trajectories(path)]
    except (TrajectoryFormatError, OSError) as exc:
        err.print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from None
    if not items and not teacher:
        err.print("[red]error:[/] give trajectory files, or --teacher MODEL with --task TASK")
        raise typer.Exit(2)
    if teacher and not task_refs:
        err.print("[red]error:[/] --teacher needs at least one --task")
        raise typer.Exit(2)
    if out.exists():
        graph = _open_graph(out, target)
        if graph.target != target:
            err.print(f"[red]error:[/] {out} is a {graph.target} graph, not {target}")
            raise typer.Exit(2)
        err.print(f"resuming {out}: {graph!r}")
    else:
        graph = ReGraph(target)
    if teacher:
        items += _teach(teacher, task_refs, tasks_root, graph, samples, max_steps, save_trajectories, err)
    if relabel_model:
        from regrapht.llm.factory import open_model

        relabeler = ModelRelabeler(open_model(relabel_model))
    else:
        relabeler = OfflineRelabeler(embedder="auto" if embed else None)
        if relabeler.notice:
            err.print(f"[yellow]notice:[/] {relabeler.notice}")
    verifier = None
    if verify:
        from regrapht.eval import EvalConfig, TimingConfig

        verifier = EvalVerifier(
            tasks_root,
            EvalConfig(seeds=seeds, call_timeout_s=call_timeout, timing_config=TimingConfig(budget_s=budget)),
        )
    starter = verifier or EvalVerifier(tasks_root)
    started = time.monotonic()
    if verifier is not None:
        settled = tuple(o for o in SETTLED if not (retry_cut and o in RETRIED))
        done = {h for h, record in graph.ledger.items() if record.outcome in settled}
        todo = [t for t in items if t.hash not in done]
        # steps already on the graph are not measured again, so they need no compile either
        known = {(x.task, x.after) for _, x in graph.examples() if x.status != "unverified"}
        verifier.prepare(todo, target, reference_threads, known)
        err.print(f"{len(todo)} of {len(items)} trajectories to build ({len(items) - len(todo)} already on the graph)")
    counts = {"merged": 0, "cut": 0, "unreproduced": 0, "dropped": 0, "skipped": 0}
    # Without a terminal (a lent machine's log) a live bar prints nothing until the end: one line per
    # trajectory instead, so a build stopped by its call limit still shows how far it got.
    plain = not err.is_terminal
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[status]}"),
        console=err,
        transient=False,
        disable=plain,
    )
    try:
        with progress:
            bar = progress.add_task("trajectories", total=len(items), status="")

            def on_step(check: StepCheck) -> None:
                progress.update(bar, status=f"{check.task} step {check.step}")

            def on_trajectory(ev: BuildEvent) -> None:
                counts[ev.outcome] += 1
                if ev.outcome != "skipped":
                    save_graph(graph, out)
                    if plain:
                        err.print(
                            f"[{ev.index + 1}/{len(items)} {time.monotonic() - started:.0f}s] {ev.trajectory.task} "
                            f"{ev.hash[:12]}: {ev.outcome}, {ev.merged_steps} new, {ev.reused_steps} reused, "
                            f"{ev.evaluated_steps} evaluated" + (f" ({ev.reason})" if ev.reason else "")
                        )
                progress.update(
                    bar,
                    advance=1,
                    status=f"{counts['merged']} merged, {counts['cut']} cut, {counts['unreproduced']} "
                    f"unreproduced, {counts['dropped']} dropped, {counts['skipped']} skipped",
                )

            def should_stop() -> bool:
                return time_limit is not None and time.monotonic() - started > time_limit

            report = build_graph(
                graph,
                items,
                relabeler,
                verifier,
                starter.starting_code,
                on_trajectory=on_trajectory,
                on_step=on_step,
                retry_cut=retry_cut,
                should_stop=should_stop,
            )
    finally:
        starter.close()
    save_graph(graph, out)
    for reason in report.reasons:
        err.print(f"  {reason}")
    err.print(
        f"trajectories: {counts['merged']} merged, {counts['cut']} cut, {counts['unreproduced']} unreproduced, "
        f"{counts['dropped']} dropped, {counts['skipped']} skipped"
    )
    err.print(
        f"steps: {report.steps_evaluated} evaluated, {report.steps_reused} reused without measuring, "
        f"{report.steps_merged} new examples, {report.failures_labelled} expected failures reproduced, "
        f"{report.unreproduced} expected failures not reproduced"
    )
    if report.stopped:
        err.print(
            f"[yellow]stopped at the time limit ({time_limit:.0f} s):[/] the graph is saved; run the same "
            "command again to continue"
        )
    err.print(f"wrote {out}: {graph!r}")


def _teach(
    spec: str,
    task_refs: list[str],
    tasks_root: Path | None,
    graph: ReGraph,
    samples: int,
    max_steps: int,
    save: Path | None,
    err: Console,
) -> list:
    from regrapht.graph.teacher import generate_trajectories
    from regrapht.graph.trajectory import write_trajectories
    from regrapht.llm.errors import ModelError
    from regrapht.llm.factory import open_model
    from regrapht.tasks import TaskError, find_task

    try:
        tasks = [find_task(ref, tasks_root) for ref in task_refs]
    except (TaskError, FileNotFoundError) as exc:
        err.print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from None
    try:
        model = open_model(spec)
        with err.status(f"the teacher writes {samples * len(tasks)} trajectories"):
            generated = generate_trajectories(model, tasks, graph, samples=samples, max_steps=max_steps)
        model.close()
    except ModelError as exc:
        err.print(f"[red]error:[/] the teacher failed: {exc}")
        raise typer.Exit(2) from None
    good = [g.trajectory for g in generated if g.trajectory is not None]
    for g in generated:
        if g.trajectory is None:
            err.print(f"  [yellow]{g.task} sample {g.sample}: no usable trajectory ({g.problem})[/]")
    if save is not None and good:
        existing = [t for _, t in read_trajectories(save)] if save.exists() else []
        write_trajectories(existing + good, save)
    err.print(f"the teacher wrote {len(good)} usable trajectories of {len(generated)}")
    return good


# ----------------------------------------------------------------------------------------- advise


def advise_command(
    kernel: Path = typer.Argument(
        ..., exists=True, dir_okay=False, help="The CUDA (or OpenMP C++) source file."
    ),
    graph: Path = typer.Option(None, "--graph", "-g", help=GRAPH_HELP, dir_okay=False),
    target: str = typer.Option(None, "--target", "-t", help="cuda or cpu. Default: .cu -> cuda, else cpu."),
    as_json: bool = typer.Option(False, "--json", help="Print the advice as JSON."),
    top: int = typer.Option(5, min=1, help="How many next methods to rank."),
    examples: int = typer.Option(1, min=0, help="Worked examples per suggested method."),
    failures: int = typer.Option(
        1, min=0, help="Failed attempts per suggested method to show as 'what went wrong here'."
    ),
) -> None:
    """Which optimization method should come next for KERNEL, by the graph's measured evidence.

    No model is used: the methods the code already uses are recognized statically, the code is
    placed on the graph, and the methods that followed there are ranked by evidence: how many tasks
    took the step, its verified share (failures count against it), its measured gain shrunk by how
    often it was measured, and how close KERNEL is to the code the examples started from.
    """
    from regrapht.graph.advise import advise, input_warnings

    tgt = _check_target(target or ("cuda" if kernel.suffix in (".cu", ".cuh") else "cpu"))
    code = kernel.read_text(encoding="utf-8", errors="replace")
    if not code.strip():
        _err().print(f"[red]error:[/] {kernel} is empty: give a source file with the kernel to advise on")
        raise typer.Exit(2)
    g = _open_graph(graph, tgt)
    advice = advise(g, code, top=top, examples_per_method=examples, failures_per_method=failures)
    if as_json:
        typer.echo(json.dumps(advice.to_dict(), indent=2))
        return
    con = _out()
    for w in input_warnings(code, tgt):
        _err().print(f"[yellow]warning:[/] {kernel.name}: {w}")
    rec = advice.recognition
    if rec.notice:
        con.print(f"[yellow]notice:[/] {rec.notice}")
    t = tables.table(f"Methods recognized in {kernel.name}")
    tables.key_column(t, "method")
    tables.text_column(t, "evidence")
    for m in rec.names:
        ev = rec.methods[m]
        t.add_row(m, "; ".join(f"line {e.line}: {e.why}" for e in ev[:3]))
    if not rec.names:
        t.add_row("(none)", "no optimization method was recognized")
    con.print(t)
    con.print(f"placed on the graph at: [bold]{', '.join(advice.position)}[/]")
    if not advice.suggestions:
        con.print("[yellow]the graph has no transition to suggest from here[/]")
        return
    s_tab = tables.table("Suggested next methods (by evidence)")
    tables.number_column(s_tab, "#")
    tables.key_column(s_tab, "method")
    for col in ("score", "examples", "verified", "failures", "gain (95% CI)", "tasks", "similar"):
        tables.number_column(s_tab, col)
    tables.text_column(s_tab, "via")
    for i, s in enumerate(advice.suggestions, start=1):
        st = s.stats
        ci = s.gain_interval
        gain = _fmt(st.geomean) + (f" ({ci[0]:.2f}-{ci[1]:.2f})" if ci else "")
        s_tab.add_row(
            str(i),
            s.method,
            f"{s.score:.2f}",
            str(st.taken),
            f"{st.verified} ({st.verified_share:.0%})",
            str(st.failures),
            gain,
            str(st.tasks),
            f"{s.similarity:.2f}",
            ", ".join(s.via) + (" (anywhere)" if s.from_anywhere else ""),
        )
    con.print(s_tab)
    for s in advice.suggestions:
        for r in s.examples:
            x = r.example
            gain = _fmt(x.speedup.value if x.speedup else None)
            if r.is_failure:
                # a rule's title is cut to one line: the edge and task go on their own line, which wraps
                con.rule("what went wrong here")
                con.print(f"[bold]{r.edge.source} -> {r.edge.target}[/]: {x.task} ({x.failure_kind})")
                if x.failure is not None and x.failure.why:
                    con.print(f"[bold]what went wrong:[/] {x.failure.why.strip()}")
                con.print(f"[bold]evaluator:[/] {x.status}" + (f": {' '.join(x.message.split())}" if x.message else ""))
            else:
                con.rule(f"{r.edge.source} -> {r.edge.target}")
                con.print(f"[bold]{x.task}[/] step {x.step} ({x.status}, {gain})")
                con.print(f"[bold]why:[/] {x.think.strip()}")
            con.print(f"[bold]change:[/] {x.detail.strip()}")
            diff = "\n".join(
                difflib.unified_diff(
                    x.before.splitlines(), x.after.splitlines(), "before", "after", lineterm="", n=2
                )
            )
            con.print(Syntax(diff or "(no change)", "diff", theme="ansi_light", word_wrap=True))
