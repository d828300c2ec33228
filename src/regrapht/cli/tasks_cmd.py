"""`regrapht tasks`: list, show and check the task suite."""

from __future__ import annotations

import json
import os
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import Progress
from rich.syntax import Syntax

from regrapht import tables
from regrapht.cli import lane_options
from regrapht.cli.tasks_import_cmd import import_app
from regrapht.eval import EvalConfig, TimingConfig, toolchain
from regrapht.eval.suitecheck import check_tasks, reusable_results
from regrapht.tasks import TaskError, builtin_tasks_root, find_task, iter_task_dirs, load_task

SPLIT_ORDER = {"example": 0, "train": 1, "test": 2}

tasks_app = typer.Typer(
    help="The task suites: serial C++ functions to turn into CUDA, and PyTorch models (--kind torch).",
    no_args_is_help=True,
)
tasks_app.add_typer(import_app, name="import")




def register(app: typer.Typer) -> None:
    app.add_typer(tasks_app, name="tasks")


def _select(
    split: str | None,
    difficulty: str | None,
    category: str | None,
    root: Path | None,
    broken: list[str] | None = None,
):
    """The tasks that load and match; folders that fail to load are reported (and collected in `broken`)."""
    tasks = []
    for folder in iter_task_dirs(root or builtin_tasks_root()):
        try:
            tasks.append(load_task(folder))
        except TaskError as exc:
            Console(stderr=True).print(f"[red]broken task:[/] {escape(str(exc))}")
            if broken is not None:
                broken.append(folder.name)
    return [
        t
        for t in tasks
        if (split is None or t.split == split)
        and (difficulty is None or t.difficulty == difficulty)
        and (category is None or t.category == category)
    ]


@tasks_app.command("list")
def list_command(
    split: str = typer.Option(None, help="train, test or example."),
    difficulty: str = typer.Option(None, help="easy, medium or hard."),
    category: str = typer.Option(None, help="A category such as reduction or stencil."),
    root: Path = typer.Option(None, help="A folder of task folders instead of the shipped suite."),
    as_json: bool = typer.Option(False, "--json", help="Print the tasks as JSON."),
    kind: str = typer.Option("serial", help="serial (serial C++ tasks) or torch (PyTorch Models, KernelBench layout)."),
) -> None:
    """List the tasks, filtered by split, difficulty or category."""
    if kind == "torch":
        from regrapht.cli import tasks_torch

        tasks_torch.print_list(tasks_torch.select(split, difficulty, category, root), as_json)
        return
    tasks = _select(split, difficulty, category, root)
    if as_json:
        print(json.dumps([t.summary() for t in tasks], indent=2))
        return
    console = Console()
    console.print(f"{len(tasks)} tasks")
    # one table per split, so the columns a user needs (the id to type, the title) get the room
    splits = sorted({t.split for t in tasks}, key=lambda s: (SPLIT_ORDER.get(s, len(SPLIT_ORDER)), s))
    for split_name in splits:
        console.print()
        chosen = sorted((t for t in tasks if t.split == split_name), key=lambda t: (t.category, t.id))
        table = tables.table(f"{split_name}: {len(chosen)} tasks")
        tables.key_column(table, "id")
        for column in ("difficulty", "category"):
            tables.name_column(table, column)
        tables.text_column(table, "title")
        for t in chosen:
            table.add_row(t.id, t.difficulty, t.category, escape(t.title))
        console.print(table)


@tasks_app.command("show")
def show_command(
    task: str = typer.Argument(..., help="A task id or folder."),
    as_json: bool = typer.Option(False, "--json", help="Print the task as JSON."),
) -> None:
    """Show a task: its arguments, sizes, tolerance and the serial reference."""
    try:
        t = find_task(task)
    except (TaskError, FileNotFoundError) as exc:
        Console(stderr=True).print(f"[red]error:[/] {escape(str(exc))}")
        raise typer.Exit(2) from None
    if getattr(t, "kind", None) == "torch":
        from regrapht.cli import tasks_torch

        tasks_torch.show(t, as_json)  # type: ignore[arg-type]
        return
    if as_json:
        data = t.summary() | {"folder": str(t.root), "serial": t.serial_source()}
        print(json.dumps(data, indent=2))
        return
    console = Console()
    console.print(f"[bold]{t.id}[/]: {escape(t.title)}  ({t.split}, {t.difficulty}, {t.category})")
    if t.description:
        console.print(escape(t.description))
    console.print(f"[dim]{t.root}[/]")
    console.print(f"signature: {t.signature}   convention: {t.convention}")
    if t.launch is not None:
        console.print(f"launch: {escape(t.launch.describe())}")
    if t.requires:
        console.print(f"requires: {escape(', '.join(t.requires))}")
    table = tables.table()
    tables.key_column(table, "arg")
    for column in ("role", "dtype", "length"):
        tables.name_column(table, column)
    tables.text_column(table, "generator / tolerance")
    for a in t.args:
        detail = (
            a.tolerance.describe()
            if a.tolerance
            else (
                f"{a.generator.kind} {a.generator.params}"
                if a.generator
                else (str(a.value) if a.value is not None else "")
            )
        )
        if a.initial is not None:
            detail = f"starts at {a.initial}; {detail}"
        table.add_row(a.name, a.role, a.dtype.name, a.length or "", escape(detail))
    console.print(table)
    console.print(f"test sizes: {list(t.test_sizes)}   bench size: {t.bench_size}")
    # wrapped, not cropped: a long line of the reference is as much the task as a short one
    console.print(Syntax(t.serial_source(), "cpp", line_numbers=True, word_wrap=True))


def _write_atomically(path: Path, rows: list) -> None:
    # A call killed mid-write must leave the previous file whole, or --resume cannot read it.
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(rows, indent=2))
    os.replace(tmp, path)


def _train_tasks(checked: list) -> list:
    """What test tasks are screened against for near-duplicates: the shipped tasks a Reasoning Graph
    is built from (train and example splits) and such tasks among those checked (a user's own suite)."""
    from regrapht.tasks.similarity import GRAPH_SPLITS

    shipped = [t for t in _select(None, None, None, None) if t.split in GRAPH_SPLITS]
    seen = {t.root.resolve() for t in shipped}
    return shipped + [t for t in checked if t.split in GRAPH_SPLITS and t.root.resolve() not in seen]


def _check_lanes(on_gpu: bool, gpus: str | None, lanes: int) -> list:
    """GPU lanes for a check on the GPU (one task at a time on each); none otherwise."""
    if not on_gpu:
        if gpus is not None:
            Console(stderr=True).print("[red]error:[/] --gpus needs a check on the GPU (--gpu, and a GPU)")
            raise typer.Exit(2)
        return []
    from regrapht.eval.devices import LaneSpecError, lanes_for
    from regrapht.eval.pool import runs_in_process

    try:
        specs = lanes_for("cuda", gpus, lanes)
        return [] if runs_in_process(specs) else specs
    except LaneSpecError as exc:
        Console(stderr=True).print(f"[red]error:[/] {escape(str(exc))}")
        raise typer.Exit(2) from None


def _judge_tier(task, check) -> None:
    """The measured tier joins a check here: eval/ runs the check but must not import the graph's
    recognizer (docs/suite.md, Measured tiers)."""
    from regrapht.bench.tiers import judge_tier as judge

    judge(task, check)


def _with_tier(task, row: dict) -> dict:
    """A kept row of a resumed check, judged by the tier rule if it was written before the rule."""
    from dataclasses import fields

    from regrapht.eval.suitecheck import TaskCheck

    check = TaskCheck(**{f.name: row[f.name] for f in fields(TaskCheck) if f.name in row})
    _judge_tier(task, check)
    return row | check.to_dict()


@tasks_app.command("check")
def check_command(
    ids: list[str] = typer.Argument(None, help="Task ids or folders; all shipped tasks when omitted."),
    gpu: bool = typer.Option(
        None, "--gpu/--no-gpu", help="Run naive.cu and solution.cu on the GPU. Default: when one is present."
    ),
    split: str = typer.Option(None, help="Only this split."),
    out: Path = typer.Option(None, help="Write the full results as JSON here."),
    budget: float = typer.Option(1.0, min=0.05, help="Seconds of timing per kernel evaluation."),
    serial_budget: float = typer.Option(3.0, min=0.05, help="Seconds of timing for each serial reference."),
    reference_threads: int = typer.Option(
        1, min=1, help="Build bench references on this many threads (faster; serial timings get noisier)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
    resume: bool = typer.Option(
        False,
        "--resume",
        help="Keep the passing results already in --out for tasks whose files have not changed since "
        "(same GPU, same regrapht), and check only the rest. Rows of tasks not selected stay in the file.",
    ),
    gpus: str = lane_options.gpus_option(),
    lanes: int = lane_options.lanes_option(),
    kind: str = typer.Option("serial", help="serial, or torch: check the shipped torch tasks (or the torch ids given)."),
) -> None:
    """Validate tasks: the serial reference compiles, runs deterministically, and its outputs depend on
    the inputs and the seed (not constant, not zero); naive.cu and solution.cu compile with nvcc; on a
    GPU, both pass, the bench size is long enough to measure, and naive.cu is a fair baseline (not
    slower than the serial reference, and its largest launch fills the GPU, unless task.toml's
    waivers table says why). A test task must not be a near-duplicate of a task on a Reasoning Graph
    (train or example: token similarity of serial.cpp and naive.cu, threshold in
    regrapht/data/leakage.toml), and its declared difficulty must be its measured tier (the steps
    the method recognizer finds in solution.cu beyond naive.cu; with --gpu, also best/naive and
    naive's roofline fraction; rule in regrapht/data/tiers.toml). Exit status 1 if any task fails.

    --out is rewritten after every task, so a check that is stopped keeps what it measured, and
    `--resume` with the same --out continues it."""
    broken: list[str] = []
    console = Console(stderr=True)
    try:
        if kind == "torch" and not ids:
            from regrapht.cli import tasks_torch

            tasks = tasks_torch.select(split, None, None, None, broken)
        else:
            tasks = [find_task(i) for i in ids] if ids else _select(split, None, None, None, broken)
    except (TaskError, FileNotFoundError) as exc:
        console.print(f"[red]error:[/] {escape(str(exc))}")
        raise typer.Exit(2) from None
    torch_tasks = [t for t in tasks if getattr(t, "kind", None) == "torch"]
    if torch_tasks:
        from regrapht.cli import tasks_torch

        if len(torch_tasks) != len(tasks):
            console.print("[red]error:[/] check serial and torch tasks in separate calls")
            raise typer.Exit(2)
        code = tasks_torch.check(torch_tasks, gpu, as_json, out)  # type: ignore[arg-type]
        raise typer.Exit(1 if broken else code)
    kept: list[dict] = []
    others: list[dict] = []  # rows of tasks this call does not check, written back unchanged
    if resume:
        if out is None:
            console.print("[red]error:[/] --resume needs --out, the results file to continue")
            raise typer.Exit(2)
        if out.is_file():
            try:
                previous = json.loads(out.read_text())
            except (OSError, json.JSONDecodeError) as exc:
                console.print(f"[red]error:[/] cannot resume from {out}: {escape(str(exc))}")
                raise typer.Exit(2) from None
            visible = toolchain.gpus()
            on_gpu = bool(visible) if gpu is None else gpu
            rows = [r for r in previous if isinstance(r, dict)] if isinstance(previous, list) else []
            reuse = reusable_results(rows, tasks, on_gpu, visible[0].name if visible else "")
            kept = [_with_tier(t, reuse[t.id]) for t in tasks if t.id in reuse]
            selected = {t.id for t in tasks}
            others = [r for r in rows if r.get("task_id") not in selected]
            tasks = [t for t in tasks if t.id not in reuse]
            console.print(f"resuming {out}: {len(kept)} kept, {len(tasks)} to check")
    config = EvalConfig(timing_config=TimingConfig(budget_s=budget, serial_budget_s=serial_budget))
    on_gpu = bool(toolchain.gpus()) if gpu is None else gpu
    specs = _check_lanes(on_gpu, gpus, lanes)  # empty: this process checks, on its first GPU
    with Progress(console=console, transient=True) as progress:
        bar = progress.add_task("checking tasks", total=len(tasks))

        done: list = []

        by_id = {t.id: t for t in tasks}

        def advance(check) -> None:
            _judge_tier(by_id[check.task_id], check)
            progress.advance(bar)
            done.append(check)
            if out:  # rewritten after every task, so an interrupted check keeps what it measured
                _write_atomically(out, others + kept + [c.to_dict() for c in done])
            mark = "[green]ok[/]" if check.ok else "[red]FAIL[/]"
            console.print(
                f"{mark} {check.task_id}"
                + "".join(f"\n    {escape(p)}" for p in check.problems)
                + "".join(f"\n    [yellow]{escape(w)}[/]" for w in check.warnings)
            )

        train = _train_tasks(tasks)
        if specs:
            from regrapht.eval.pool import DevicePool, check_on_lane

            with DevicePool.local(config, specs) as pool:
                calls = [(t, on_gpu, config, reference_threads, train) for t in tasks]
                results = pool.map(check_on_lane, calls, on_result=lambda _, check: advance(check))
        else:
            results = check_tasks(
                tasks, gpu=gpu, config=config, on_result=advance, reference_threads=reference_threads, train=train
            )
    data = kept + [r.to_dict() for r in results]
    if out:
        _write_atomically(out, others + data)
    if as_json:
        print(json.dumps(data, indent=2))
    failed = [r["task_id"] for r in data if not r["ok"]] + broken
    console.print(
        f"{len(data) + len(broken) - len(failed)} of {len(data) + len(broken)} tasks passed"
        + (f"; failed: {', '.join(failed)}" if failed else "")
    )
    raise typer.Exit(1 if failed else 0)


def _levels(text: str | None) -> list[int] | None:
    if not text:
        return None
    try:
        return [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise typer.BadParameter(f"expected levels such as 1,2,3, got {text!r}") from None


@import_app.command("kernelbench")
def import_kernelbench_command(
    path: Path = typer.Argument(..., help="A KernelBench checkout, or a folder of problems in its layout."),
    out: Path = typer.Option(Path("kernelbench_tasks"), help="Where the task folders go."),
    levels: str = typer.Option(None, help="Only these levels, e.g. 1,2,3 (default: every levelN folder)."),
    split: str = typer.Option("test", help="The split the tasks get: train, test or example."),
    level: int = typer.Option(1, min=1, max=4, help="The level of problems outside any levelN folder."),
    timeout: float = typer.Option(180.0, min=5, help="Seconds one problem's reference may run in all."),
    jobs: int = typer.Option(1, min=1, help="Problems probed at once."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Convert KernelBench-layout problems (class Model, get_inputs(), get_init_inputs() and module-level
    size constants) into torch task folders.

    Each problem's reference runs in a child process with a time and memory limit: small odd test sizes
    are found and checked on the CPU, and the roofline is fitted from a trace on the meta device. The
    report names, per task, what could not be inferred, and, per problem not converted, why. Files the
    importer wrote before are overwritten; files edited since are left alone. Exit status 1 if a problem
    was not converted."""
    from dataclasses import asdict

    from regrapht.tasks import kernelbench

    console = Console(stderr=True)
    try:
        chosen = _levels(levels)
        problems = kernelbench.discover(path, chosen)
    except (FileNotFoundError, typer.BadParameter) as exc:
        console.print(f"[red]error:[/] {escape(str(exc))}")
        raise typer.Exit(2) from None
    if not problems:
        console.print(f"[red]error:[/] no problem files (*.py) under {escape(str(path))}")
        raise typer.Exit(2)
    if split not in SPLIT_ORDER:
        console.print(f"[red]error:[/] --split must be train, test or example, not {escape(split)!r}")
        raise typer.Exit(2)
    with Progress(console=console, transient=True) as progress:
        bar = progress.add_task(f"importing {len(problems)} problems", total=len(problems))
        outcomes = kernelbench.import_kernelbench(
            path, out, chosen, split, level, timeout, jobs, on_outcome=lambda _o: progress.advance(bar)
        )
    if as_json:
        print(json.dumps([asdict(o) for o in outcomes], indent=2))
    else:
        _print_import_report(outcomes, out)
    raise typer.Exit(1 if any(o.status == "failed" for o in outcomes) else 0)


def _print_import_report(outcomes: list, out: Path) -> None:
    console = Console()
    done = [o for o in outcomes if o.status != "failed"]
    table = tables.table(f"{len(done)} of {len(outcomes)} problems converted into {out}")
    tables.key_column(table, "task")
    for column in ("status", "category", "dtype"):
        tables.name_column(table, column)
    for o in outcomes:
        table.add_row(o.task_id or o.source, o.status, o.category, o.dtype)
    console.print(table)
    # the reasons on lines of their own: in a column they would wrap a word a line
    for o in outcomes:
        lines = [o.reason] if o.status in ("failed", "kept") else o.not_inferred
        if lines:
            console.print(f"[bold]{escape(o.task_id or o.source)}[/] ({escape(o.source)})")
            for line in lines:
                console.print(f"  {escape(line)}")
    console.print(f"full report: {out / 'import-report.json'}")
