"""The lane options every command that evaluates shares: --gpus, --lanes and (bench) --ray."""

from __future__ import annotations

from typing import Any

import typer

GPUS_HELP = (
    "GPUs to evaluate on, numbered as nvidia-smi lists those this process sees: 0,1 runs a lane on each, "
    "0,0,1 two on GPU 0. Default: every visible GPU."
)
LANES_HELP = "Lanes per GPU (cuda), or CPU lanes (cpu): each evaluates its own share of the candidates."
RAY_HELP = (
    "Spread evaluations over the GPUs (cuda) or nodes (cpu, --lanes each) of the Ray cluster at this address "
    "('auto': the cluster this machine belongs to). Needs the ray extra on every node."
)


def gpus_option() -> Any:
    return typer.Option(None, "--gpus", help=GPUS_HELP)


def lanes_option() -> Any:
    return typer.Option(1, "--lanes", min=1, help=LANES_HELP)


def ray_option() -> Any:
    return typer.Option(None, "--ray", help=RAY_HELP)


def _usage_error(exc: Exception) -> typer.Exit:
    from rich.console import Console
    from rich.markup import escape

    Console(stderr=True).print(f"[red]error:[/] {escape(str(exc))}")
    return typer.Exit(2)


def check_lanes(target: str, gpus: str | None, lanes: int, ray: str | None = None) -> None:
    """Refuse a lane list that names nothing usable (exit 2, with the reason) before anything is
    opened or written. A Ray cluster's lanes are checked when the pool is opened."""
    from regrapht.eval.devices import LaneSpecError, lanes_for

    if ray is not None:
        if gpus is not None:
            raise _usage_error(LaneSpecError("--gpus and --ray exclude each other: Ray lanes take the cluster's GPUs"))
        return
    try:
        lanes_for(target, gpus, lanes)
    except LaneSpecError as exc:
        raise _usage_error(exc) from None


def open_evaluator(config: Any, target: str, gpus: str | None, lanes: int, ray: str | None = None) -> Any:
    """The command's evaluator (eval/pool.py's open_evaluator); lanes that name nothing usable, or a
    Ray cluster that cannot be had, are a usage error (exit 2, with the reason)."""
    from regrapht.eval.devices import LaneSpecError
    from regrapht.eval.pool import open_evaluator as open_pool
    from regrapht.eval.ray_pool import RayUnavailable

    try:
        return open_pool(config, target, gpus, lanes, ray)
    except (LaneSpecError, RayUnavailable) as exc:
        raise _usage_error(exc) from None


def first_gpu(target: str, gpus: str | None) -> str | None:
    """For a command that evaluates one candidate: the first GPU --gpus names (None: the default device)."""
    from regrapht.eval.devices import parse_gpu_list

    if gpus is None:
        return None
    check_lanes(target, gpus, 1)
    positions = parse_gpu_list(gpus)
    return str(positions[0]) if positions else None
