"""Lanes on a Ray cluster: an actor per GPU (or CPU lanes on the cpu target), each holding an Evaluator.

`ray_pool(config, address, target)` returns a `DevicePool` (eval/pool.py) whose lanes are actors,
so scheduling, ordering and what happens when a lane dies are the pool's: an actor whose node dies
raises `LaneDied` here, and its evaluations run again on the other actors. The actors only
evaluate; the driver (the process that called `ray_pool`) writes the store.

Tasks travel with the calls: a task's files (those its content hash covers) are sent to each node
and written there under the temporary folder, keyed by that hash, so nodes need no shared file
system. regrapht itself must be installed on every node (the same version as the driver).

Ray is an optional extra (`pip install 'regrapht[ray]'`); nothing else imports this module.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from regrapht.eval.config import EvalConfig
from regrapht.eval.devices import LaneSpec, LaneSpecError, machine_name
from regrapht.eval.lanes import LaneDied, LaneState
from regrapht.eval.pool import DevicePool, pool_config
from regrapht.tasks import Task, load_task


class RayUnavailable(RuntimeError):
    """Ray is not installed, or the cluster cannot be reached."""


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RayUnavailable(
            "Ray is not installed: `pip install 'regrapht[ray]'` (on the driver and every node)"
        ) from None
    return ray


# ---- tasks sent to the nodes ---------------------------------------------------------------------------
@dataclass(frozen=True)
class TaskFiles:
    """A task folder's defining files, as sent to a node."""

    key: str  # the task's content hash
    folder: str  # the folder's name
    files: tuple[tuple[str, bytes], ...]

    @classmethod
    def of(cls, task: Task) -> TaskFiles:
        files = tuple(
            (p.name, p.read_bytes())
            for p in sorted(task.root.iterdir())
            if p.is_file() and p.suffix != ".pyc"
        )
        return cls(task.content_hash(), task.root.name, files)

    def land(self, root: Path) -> Task:
        """The task, loaded from its files written under `root` (once per node: the folder is
        named by the hash, and written beside and renamed into place, as other actors may race)."""
        home = root / self.key / self.folder
        if not home.is_dir():
            home.parent.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=".landing-", dir=home.parent))
            for name, data in self.files:
                (staging / name).write_bytes(data)
            try:
                staging.rename(home)
            except OSError:  # another actor landed it first
                for name, _ in self.files:
                    (staging / name).unlink(missing_ok=True)
                staging.rmdir()
        return load_task(home)


def _ship(value: Any, sent: dict[int, tuple[Task, TaskFiles]]) -> Any:
    if isinstance(value, Task):
        known = sent.get(id(value))
        if known is None or known[0] is not value:
            known = sent[id(value)] = (value, TaskFiles.of(value))
        return known[1]
    if isinstance(value, (list, tuple)):
        return type(value)(_ship(v, sent) for v in value)
    return value


def _land(value: Any, landed: dict[str, Task], root: Path) -> Any:
    if isinstance(value, TaskFiles):
        if value.key not in landed:
            landed[value.key] = value.land(root)
        return landed[value.key]
    if isinstance(value, (list, tuple)):
        return type(value)(_land(v, landed, root) for v in value)
    return value


# ---- the actor and its driver-side lane ---------------------------------------------------------------
class LaneActor:
    """Runs in a Ray worker process. Ray has set CUDA_VISIBLE_DEVICES to the actor's GPU(s) before
    this starts, so the evaluator and its workers see that GPU as device 0."""

    def __init__(self, config: EvalConfig, target: str, lanes_on_node: int, slot: int) -> None:
        import ray

        from regrapht.eval import toolchain

        toolchain.gpus.cache_clear()
        node = ray.util.get_node_ip_address()
        gpu = toolchain.gpus()[0] if target == "cuda" and toolchain.gpus() else None
        if target == "cuda" and gpu is None:
            raise LaneSpecError(f"Ray gave this lane on {node} a GPU, but nvidia-smi shows none to it")
        label = f"gpu{gpu.index}" if gpu is not None else "cpu"
        self.spec = LaneSpec(f"{node}/{label}" + (f"{slot}" if gpu is None else ""), gpu)
        if config.jobs is None:  # this node's cores, shared by its lanes
            config.jobs = max(1, (os.cpu_count() or 1) // max(1, lanes_on_node))
        self.machine = machine_name(target)
        self.state = LaneState(self.spec, config)
        self.landed: dict[str, Task] = {}
        self.root = Path(tempfile.gettempdir()) / "regrapht-ray-tasks"

    def describe(self) -> tuple[str, str, str]:
        import ray

        return self.spec.name, self.machine, ray.get_runtime_context().get_node_id()

    def rename(self, name: str) -> None:
        """The name the driver gives it, unique in the pool (nodes of one host share an address)."""
        self.spec = self.state.spec = dataclasses.replace(self.spec, name=name)

    def call(self, fn: Any, args: tuple[Any, ...]) -> Any:
        return fn(self.state, *_land(args, self.landed, self.root))

    def close(self) -> None:
        self.state.close()


class RayLane:
    """The driver's handle on one actor."""

    def __init__(self, actor: Any, name: str, machine: str, node_id: str) -> None:
        self.actor, self.name, self.machine, self.node_id = actor, name, machine, node_id
        # Slices of one GPU are named NAME#2, ...: they share the GPU.
        self.gpu = f"{node_id}/{name.split('#')[0]}" if machine.startswith("gpu:") else None
        self._dead: str | None = None
        self._calls = threading.Lock()
        self._sent: dict[int, tuple[Task, TaskFiles]] = {}

    @property
    def alive(self) -> bool:
        return self._dead is None

    @property
    def busy(self) -> bool:
        """A call is in flight."""
        return self._calls.locked()

    def call(self, fn: Any, *args: Any) -> Any:
        ray = _ray()
        if self._dead is not None:
            raise LaneDied(self._dead)
        try:
            with self._calls:
                return ray.get(self.actor.call.remote(fn, _ship(args, self._sent)))
        except (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError) as exc:
            self._dead = f"lane {self.name}: its Ray actor died during {fn.__name__} ({type(exc).__name__})"
            raise LaneDied(self._dead) from exc

    def post(self, fn: Any, *args: Any) -> None:
        if self._dead is None:
            self.actor.call.remote(fn, _ship(args, self._sent))  # errors surface at the next call

    def close(self) -> None:
        ray = _ray()
        if self._dead is None:
            # a dead or stuck actor is killed below all the same
            with contextlib.suppress(Exception):
                ray.get(self.actor.close.remote(), timeout=60)
        ray.kill(self.actor)
        self._dead = self._dead or f"lane {self.name}: closed"


def ray_pool(
    config: EvalConfig | None,
    address: str | None,
    target: str,
    lanes_per_gpu: int = 1,
    cpu_lanes_per_node: int = 1,
) -> DevicePool:
    """A pool over the GPUs (cuda) or `cpu_lanes_per_node` CPU lanes per node (cpu) of the Ray cluster
    at `address` ("auto": the one this machine belongs to; None: a local one started here)."""
    ray = _ray()
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    if lanes_per_gpu < 1 or cpu_lanes_per_node < 1:
        raise LaneSpecError("lanes per GPU and per node must be at least 1")
    if not ray.is_initialized():
        try:
            ray.init(address=address, log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise RayUnavailable(f"cannot reach the Ray cluster at {address!r}: {exc}") from None
    shared = pool_config(config, 1)
    shared.jobs = None if config is None else config.jobs  # each actor divides its own node's cores
    remote = ray.remote(LaneActor)
    actors = []
    for node in (n for n in ray.nodes() if n.get("Alive")):
        resources = node.get("Resources", {})
        if target == "cuda":
            count, options = int(resources.get("GPU", 0)) * lanes_per_gpu, {"num_gpus": 1 / lanes_per_gpu, "num_cpus": 0}
        else:
            count = cpu_lanes_per_node if resources.get("CPU", 0) >= cpu_lanes_per_node else 0
            options = {"num_cpus": 1}
        strategy = NodeAffinitySchedulingStrategy(node_id=node["NodeID"], soft=False)
        for slot in range(count):
            actors.append(
                remote.options(**options, scheduling_strategy=strategy, max_restarts=0).remote(
                    shared, target, count, slot
                )
            )
    if not actors:
        what = "GPUs" if target == "cuda" else f"nodes with {cpu_lanes_per_node} free CPU(s)"
        raise LaneSpecError(f"the Ray cluster at {address!r} has no {what} to run lanes on")
    try:
        described = ray.get([actor.describe.remote() for actor in actors])
    except ray.exceptions.RayError as exc:  # an actor that could not start: say why, leave none behind
        for actor in actors:
            ray.kill(actor)
        raise RayUnavailable(f"a lane could not start on the Ray cluster at {address!r}: {exc}") from None
    machines = sorted({machine for _, machine, _ in described})
    if len(machines) > 1:
        for actor in actors:
            ray.kill(actor)
        raise LaneSpecError(
            f"the Ray cluster's lanes run on different machines ({'; '.join(machines)}): stored evaluations "
            "are filed per machine, so one pool times on one kind"
        )
    seen: dict[str, int] = {}
    lanes = []
    for actor, (name, machine, node_id) in zip(actors, described):
        seen[name] = seen.get(name, 0) + 1  # two slices of one GPU, or two nodes of one host
        if seen[name] > 1:
            name = f"{name}#{seen[name]}"
            ray.get(actor.rename.remote(name))
        lanes.append(RayLane(actor, name, machine, node_id))
    return DevicePool(shared, lanes)
