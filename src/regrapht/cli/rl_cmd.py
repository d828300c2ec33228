"""`regrapht serve` (also `regrapht rl serve`): the reward service over HTTP."""

from __future__ import annotations

import os
import sys

import typer

from regrapht.eval import EvalConfig, Evaluator, TimingConfig
from regrapht.tasks import TaskError, find_task, load_suite
from regrapht.tasks.torch_task import load_torch_suite

rl_app = typer.Typer(help="The RL environment: a reward service for trainers.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(rl_app, name="rl")
    # The name for it; `regrapht rl serve` is the same command.
    app.command("serve", help=(serve_command.__doc__ or "").replace("regrapht rl serve", "regrapht serve"))(serve_command)


TORCH_BASELINES = ("eager", "compile", "max-autotune", "cudagraph")


@rl_app.command("serve")
def serve_command(
    task: list[str] = typer.Option(
        None, "--task", help="A task id or folder (serial-cpp or torch); repeat for several. Default: the "
        "shipped train split of --kind."
    ),
    kind: str = typer.Option("serial-cpp", help="serial-cpp or torch: the suite whose train split is served "
                             "when no --task is given."),
    target: str = typer.Option("cuda", help="cuda or cpu: what candidates are compiled for."),
    reward: str = typer.Option("hierarchical", help="The reward (docs/rl.md)."),
    baseline: str = typer.Option(None, help="What speedups divide: serial or naive (serial-cpp tasks); eager, "
                                 "compile, max-autotune or cudagraph (torch tasks). Default: serial, or eager "
                                 "for torch tasks."),
    torch_language: str = typer.Option("any", help="Torch tasks on cuda: what prompts ask for (any, cuda, triton)."),
    seed: int = typer.Option(0, help="The seed of the problem draws."),
    train_variants: int = typer.Option(16, min=1, help="Training variants per task."),
    heldout_variants: int = typer.Option(4, min=0, help="Held-out variants per task."),
    replay: str = typer.Option(
        None,
        help="A run-store file for the replay buffer; turns on contrastive prompts, which show "
        "earlier callers' code.",
    ),
    host: str = typer.Option("127.0.0.1", help="The address to bind; beyond loopback a token is required."),
    port: int = typer.Option(8765, help="The port."),
    queue_size: int = typer.Option(64, min=1, help="Jobs that may wait; more are answered busy."),
    timeout: float = typer.Option(600.0, min=1.0, help="Seconds a request waits for its result."),
    budget: float = typer.Option(1.0, min=0.05, help="Seconds of timing per candidate."),
    shutdown_grace: float = typer.Option(30.0, min=0.0, help="On SIGTERM or Ctrl-C: seconds queued and "
                                         "running requests may still finish; the rest are answered 503."),
) -> None:
    """Serve the environment over HTTP for trainers on other machines.

    The token comes from the REGRAPHT_RL_TOKEN environment variable, never the command line. Stop
    with SIGTERM (a service manager) or Ctrl-C: requests finish within --shutdown-grace, or are
    answered 503 "shutting_down" saying whether they were evaluated; then it exits with status 0.

    Examples:

        regrapht rl serve --task saxpy --target cpu --port 8765

        regrapht rl serve --kind torch --baseline compile --port 8765
    """
    from regrapht.rl import EnvConfig, ReplayBuffer, RewardConfig, RewardConfigError, RewardEnv
    from regrapht.rl.service import RewardService, ServiceConfig, ServiceConfigError

    try:
        if kind not in ("serial-cpp", "torch"):
            raise ValueError(f"unknown kind {kind!r} (known: serial-cpp, torch)")
        if task:
            tasks = [find_task(t) for t in task]
        else:
            tasks = load_torch_suite(split="train") if kind == "torch" else [t for t in load_suite() if t.split == "train"]
        if baseline is None:
            baseline = "eager" if all(getattr(t, "kind", None) == "torch" for t in tasks) else "serial"
        config = EnvConfig(
            target=target,
            reward=RewardConfig(reward, baseline),
            seed=seed,
            train_variants=train_variants,
            heldout_variants=heldout_variants,
            contrastive=replay is not None,
            torch_language=torch_language,
        )
        service_config = ServiceConfig(
            host=host, port=port, token=os.environ.get("REGRAPHT_RL_TOKEN") or None,
            queue_size=queue_size, request_timeout_s=timeout, shutdown_grace_s=shutdown_grace,
        )
    except (TaskError, FileNotFoundError, RewardConfigError, ServiceConfigError, ValueError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    # A torch baseline other than eager is timed only when asked for (torch.compile costs its setup).
    torch_baselines = ("eager", baseline) if baseline in TORCH_BASELINES else None
    evaluator = Evaluator(EvalConfig(
        timing=config.reward.needs_timing, timing_config=TimingConfig(budget_s=budget), torch_baselines=torch_baselines,
    ))
    buffer = ReplayBuffer(replay) if replay else None
    try:
        env = RewardEnv(tasks, evaluator, config, buffer)
        service = RewardService(env, service_config)
        typer.echo(f"serving {len(tasks)} task(s) on {service.url} (reward {reward}, baseline {baseline}, "
                   f"target {target}); SIGTERM or Ctrl-C stops", err=True)
        sys.stderr.flush()
        service.serve_forever()
        if service.cancelled:
            # Their requests are answered; their candidates' workers would outlive this process.
            from regrapht.eval.runner import end_workers

            typer.echo(f"{service.cancelled} request(s) were still being evaluated at the end of the grace "
                       f"period: answered 503, {end_workers()} worker(s) ended", err=True)
        typer.echo(f"stopped ({service.stop_signal or 'shut down'}): {service.counts()}", err=True)
    except (RewardConfigError, OSError) as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    finally:
        if buffer is not None:
            buffer.close()
        evaluator.close()
