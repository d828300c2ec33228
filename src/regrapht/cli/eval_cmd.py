"""`regrapht eval`: judge one candidate for one task."""

from __future__ import annotations

import sys
from pathlib import Path

import typer
from rich.console import Console

from regrapht import tables
from regrapht.cli import lane_options
from regrapht.eval import EvalConfig, Evaluation, ReferenceError, TimingConfig, toolchain
from regrapht.eval.entry import EntryError
from regrapht.eval.evaluator import SandboxUnavailable
from regrapht.eval.torch_judge import TorchReferenceError
from regrapht.tasks import TaskError, find_task

STATUS_STYLE = {
    "correct": "bold green",
    "wrong_answer": "bold red",
    "integrity_violation": "bold magenta",
    "timeout": "bold yellow",
    "runtime_error": "bold red",
    "compile_error": "bold red",
}


def register(app: typer.Typer) -> None:
    app.command("eval")(eval_command)


def eval_command(
    task: str = typer.Argument(
        ..., help="A task folder, or the id of a shipped task (see `regrapht tasks list`)."
    ),
    candidate: Path = typer.Argument(..., exists=True, dir_okay=False, help="The candidate source file."),
    target: str = typer.Option(
        None,
        "--target",
        "-t",
        help="cuda (nvcc, runs on the GPU) or cpu (g++ -fopenmp). Default: from the file's extension (.cu -> cuda).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the full evaluation record as JSON."),
    timing: bool = typer.Option(
        True, "--timing/--no-timing", help="Time the candidate against its baselines."
    ),
    seeds: int = typer.Option(3, min=1, help="Random input sets per test size."),
    budget: float = typer.Option(
        2.0, min=0.05, help="Seconds of timing for the candidate and its GPU baselines."
    ),
    secret: str = typer.Option(
        None,
        help="Hex secret for the input seeds, to reproduce a run exactly. Default: fresh and random.",
    ),
    no_screen: bool = typer.Option(
        False,
        "--no-screen",
        help="Record the source and symbol screens' findings but run the candidate anyway.",
    ),
    sandbox: bool = typer.Option(
        True,
        "--sandbox/--no-sandbox",
        help="Confine the candidate's process with Landlock and seccomp where the kernel offers them.",
    ),
    require_sandbox: bool = typer.Option(
        False, "--require-sandbox", help="Refuse to run where the kernel cannot confine the candidate."
    ),
    gpus: str = typer.Option(
        None, "--gpus", help="The GPU to evaluate on, by number as nvidia-smi lists it (the first of a list)."
    ),
    baselines: str = typer.Option(
        None,
        "--baselines",
        help="Torch tasks: baselines timed beside the candidate, comma-separated, from eager, compile, "
        "max-autotune, cudagraph (eager always). Default: eager,compile on cuda, eager on cpu.",
    ),
    reward_baseline: str = typer.Option(
        None, "--reward-baseline", help="Torch tasks: the baseline the reward divides by (default eager)."
    ),
) -> None:
    """Compile, verify and time CANDIDATE for TASK, and print the verdict.

    The candidate runs in its own process on guarded, poisoned buffers over several sizes and
    secret seeds, then is timed interleaved with the task's baselines (the serial reference, and
    naive.cu on the GPU). Exit status: 0 when correct, 1 for any other verdict, 2 when the task
    or the tools are at fault.

    Examples:

      regrapht eval saxpy my_saxpy.cu

      regrapht eval path/to/task solution.cpp --target cpu --json
    """
    console = Console(stderr=True)
    try:
        task_obj = find_task(task)
    except (TaskError, FileNotFoundError) as exc:
        console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from None
    source = read_candidate(candidate, console)
    torch_task = getattr(task_obj, "kind", None) == "torch"
    if torch_task:  # a Python or .cu candidate for a PyTorch Model: the GPU where there is one
        chosen = target or ("cuda" if toolchain.gpus() else "cpu")
    else:
        chosen = target or ("cuda" if candidate.suffix in (".cu", ".cuh") else "cpu")
    if chosen not in ("cuda", "cpu"):
        console.print(f"[red]error:[/] --target must be cuda or cpu, not {chosen!r}")
        raise typer.Exit(2)
    if chosen == "cuda" and not toolchain.gpus():
        console.print(
            "[red]error:[/] no NVIDIA GPU is visible here (nvidia-smi finds none), so a cuda candidate "
            "cannot run. Evaluate an OpenMP candidate with --target cpu, or run this on a GPU machine. "
            "`regrapht doctor` shows what is missing."
        )
        raise typer.Exit(2)
    gpu = lane_options.first_gpu(chosen, gpus)
    config = EvalConfig(
        seeds=seeds,
        timing=timing,
        timing_config=TimingConfig(budget_s=budget),
        static_screen=not no_screen,
        symbol_screen=not no_screen,
        sandbox=sandbox or require_sandbox,
        require_sandbox=require_sandbox,
        secret=bytes.fromhex(secret) if secret else None,
    )
    if torch_task:
        from regrapht.eval.torch_judge import baselines_for

        try:
            config.torch_baselines = baselines_for(chosen, tuple(b.strip() for b in baselines.split(",")) if baselines else None)
        except ValueError as exc:
            console.print(f"[red]error:[/] --baselines: {exc}")
            raise typer.Exit(2) from None
        if reward_baseline:
            if reward_baseline not in config.torch_baselines:
                console.print(f"[red]error:[/] --reward-baseline {reward_baseline!r} is not among the baselines "
                              f"({', '.join(config.torch_baselines)})")  # fmt: skip
                raise typer.Exit(2)
            config.reward_baseline = reward_baseline
    try:
        with (
            lane_options.open_evaluator(config, chosen, gpu, 1) as evaluator,
            console.status(f"evaluating {candidate.name} on {task_obj.id} ({chosen})"),
        ):
            result = evaluator.evaluate(task_obj, source, chosen)
    except (ReferenceError, EntryError, TorchReferenceError) as exc:
        console.print(f"[red]task error:[/] {exc}")
        raise typer.Exit(2) from None
    except SandboxUnavailable as exc:
        console.print(f"[red]error:[/] {exc}")
        raise typer.Exit(2) from None
    if as_json:
        sys.stdout.write(result.to_json() + "\n")
    else:
        print_evaluation(Console(), result)
    raise typer.Exit(0 if result.correct else 1)


def read_candidate(path: Path, console: Console) -> str:
    """The candidate's source text; a file that is not UTF-8 text is a usage error (exit 2)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        console.print(f"[red]error:[/] cannot read {path}: {exc.strerror or exc}")
        raise typer.Exit(2) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        console.print(
            f"[red]error:[/] {path} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}); "
            "a candidate is C++ (--target cpu) or CUDA (--target cuda) source code",
            highlight=False,
        )
        raise typer.Exit(2) from None


def footer(ev: Evaluation) -> str:
    """The machine and the tools that judged the candidate: the compiler of its target, never one it
    did not use (a cpu evaluation records no nvcc)."""
    fp = ev.fingerprint
    parts = [fp.get("gpu") or fp.get("cpu") or "unknown machine"]
    if ev.target == "cuda":
        parts.append(f"nvcc {fp.get('nvcc') or 'not found'}")
    parts += [fp.get("gxx") or "g++ not found", f"regrapht {fp.get('regrapht')}"]
    return " | ".join(parts)


def print_evaluation(console: Console, ev: Evaluation) -> None:
    style = STATUS_STYLE.get(ev.status, "bold")
    console.print(
        f"[{style}]{ev.status}[/]  task [bold]{ev.task_id}[/] on [bold]{ev.target}[/]"
        + (f"  reward {ev.reward:.3f}" if ev.reward is not None else "")
    )
    if ev.message:
        console.print(ev.message, markup=False, highlight=False)
    for finding in ev.screen:
        where = f"line {finding['line']}" if finding["line"] else f"built library: `{finding['excerpt']}`"
        console.print(
            f"[dim]screen ({finding['severity']}): {where}: {finding['message']}[/]", markup=True, highlight=False
        )
    if ev.sandbox:
        box = ev.sandbox
        active = [f"Landlock ABI {box['landlock']}"] * bool(box.get("landlock")) + ["seccomp"] * bool(box.get("seccomp"))
        console.print(
            f"[dim]sandbox: {', '.join(active) or 'none'}"
            + (f" ({box['reason']})" if box.get("reason") else "")
            + "[/]",
            highlight=False,
        )
    for note in ev.integrity:
        console.print(f"[dim]{note}[/]")
    if ev.cases:
        passed = sum(c.status == "correct" for c in ev.cases)
        console.print(
            f"correctness: {passed}/{len(ev.cases)} cases passed"
            + (f", max relative error {max(c.max_rel_error for c in ev.cases):.2e}" if passed else "")
        )
    if ev.timings:
        table = tables.table("timing (median over interleaved calls, cold L2)")
        tables.key_column(table, "kernel")
        for column in ("median ms", "IQR ms", "calls", "speedup of candidate", "95% CI"):
            tables.number_column(table, column)
        for name, t in sorted(ev.timings.items(), key=lambda kv: kv[0] != "candidate"):
            s = ev.speedups.get(name)
            table.add_row(
                name,
                f"{t['median_s'] * 1e3:.4f}",
                f"{t['iqr_s'] * 1e3:.4f}",
                str(t["n"]),
                f"{s['value']:.2f}x" if s else "",
                f"{s['ci_low']:.2f}-{s['ci_high']:.2f}" if s else "",
            )
        console.print(table)
    roof = ev.roofline
    if roof.get("fraction_of_floor") is not None:
        console.print(
            f"roofline: {roof['fraction_of_floor'] * 100:.1f}% of the physical floor "
            f"({roof['floor_s'] * 1e3:.4f} ms at {roof['bandwidth_bytes_per_s'] / 1e12:.2f} TB/s measured)"
        )
    console.print(footer(ev), style="dim", markup=False, highlight=False)
