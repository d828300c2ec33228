"""`regrapht tasks` for torch tasks (KernelBench layout): list, show and check; wired by tasks_cmd."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.syntax import Syntax

from regrapht import tables
from regrapht.tasks import TaskError
from regrapht.tasks.torch_task import TorchTask, builtin_torch_root, iter_torch_task_dirs, load_torch_task


def select(split: str | None, difficulty: str | None, category: str | None, root: Path | None,
           broken: list[str] | None = None) -> list[TorchTask]:  # fmt: skip
    tasks = []
    for folder in iter_torch_task_dirs(root or builtin_torch_root()):
        try:
            tasks.append(load_torch_task(folder))
        except TaskError as exc:
            Console(stderr=True).print(f"[red]broken task:[/] {escape(str(exc))}")
            if broken is not None:
                broken.append(folder.name)
    return [t for t in tasks if (split is None or t.split == split) and (difficulty is None or t.difficulty == difficulty)
            and (category is None or t.category == category)]  # fmt: skip


def print_list(tasks: list[TorchTask], as_json: bool) -> None:
    if as_json:
        print(json.dumps([t.summary() for t in tasks], indent=2))
        return
    console = Console()
    console.print(f"{len(tasks)} torch tasks")
    table = tables.table("torch tasks (KernelBench layout)")
    tables.key_column(table, "id")
    for column in ("split", "level", "dtype", "difficulty", "category"):
        tables.name_column(table, column)
    tables.text_column(table, "title")
    for t in sorted(tasks, key=lambda t: (t.split, t.level, t.category, t.id)):
        table.add_row(t.id, t.split, str(t.level), t.dtype, t.difficulty, t.category, escape(t.title))
    console.print(table)


def show(t: TorchTask, as_json: bool) -> None:
    source = t.reference_path.read_text()
    if as_json:
        print(json.dumps(t.summary() | {"folder": str(t.root), "reference": source}, indent=2))
        return
    console = Console()
    console.print(f"[bold]{t.id}[/]: {escape(t.title)}  (torch, level {t.level}, {t.split}, {t.difficulty}, {t.category})")
    if t.description:
        console.print(escape(t.description))
    console.print(f"[dim]{t.root}[/]")
    console.print(f"dtype: {t.dtype}   allow_tf32: {t.allow_tf32}   tolerance: {t.tolerance.describe()}")
    console.print(f"test sizes: {list(t.test_sizes)}   bench size: {t.bench_size}")
    console.print(Syntax(source, "python", line_numbers=True, word_wrap=True))


def check(tasks: list[TorchTask], gpu: bool | None, as_json: bool, out: Path | None) -> int:
    from regrapht.eval import EvalConfig, toolchain
    from regrapht.eval.torch_suitecheck import check_torch_task

    console = Console(stderr=True)
    target = "cuda" if (toolchain.gpus() if gpu is None else gpu) else "cpu"
    results = []
    for t in tasks:
        result = check_torch_task(t, target, EvalConfig(seeds=2, timing=False))
        results.append(result.to_dict())
        if out:  # rewritten after every task, so a check that is stopped keeps what it found
            out.write_text(json.dumps(results, indent=2))
        mark = "[green]ok[/]" if result.ok else "[red]FAIL[/]"
        console.print(f"{mark} {t.id} ({target})" + "".join(f"\n    {escape(p)}" for p in result.problems)
                      + "".join(f"\n    [yellow]{escape(w)}[/]" for w in result.warnings))  # fmt: skip
    if out:
        out.write_text(json.dumps(results, indent=2))
    if as_json:
        print(json.dumps(results, indent=2))
    failed = [r["task_id"] for r in results if not r["ok"]]
    console.print(f"{len(results) - len(failed)} of {len(results)} torch tasks passed" + (f"; failed: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0
