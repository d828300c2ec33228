"""Which lanes a device pool runs: one per GPU (or per GPU slice), or CPU lanes on the cpu target.

GPUs are found with nvidia-smi (through `toolchain.gpus`, which honours CUDA_VISIBLE_DEVICES), never
by initializing CUDA here: the parent of the lanes holds no CUDA context. A lane is pinned to its GPU
by the GPU's UUID in CUDA_VISIBLE_DEVICES, which names the same card whatever order CUDA would
enumerate the host's GPUs in.
"""

from __future__ import annotations

import functools
import os
import platform
from dataclasses import dataclass, replace
from pathlib import Path

from regrapht.eval import toolchain
from regrapht.eval.toolchain import GpuInfo


class LaneSpecError(ValueError):
    """A `--gpus` or `--lanes` value that names no usable lanes; the message says why."""


@dataclass(frozen=True)
class LaneSpec:
    """One lane: a name for records and reports, and the GPU it is pinned to (None: a CPU lane)."""

    name: str
    gpu: GpuInfo | None = None
    # The cores the lane's process (its compiles, bench builds and workers with it) runs on; None:
    # every core its parent may use (`split_cores`).
    cores: tuple[int, ...] | None = None

    def environment(self) -> dict[str, str]:
        """What the lane's process sets before anything in it can touch CUDA."""
        if self.gpu is None:
            return {}
        return {"CUDA_VISIBLE_DEVICES": self.gpu.uuid or str(self.gpu.index)}

    @property
    def device(self) -> str | None:
        """The GPU, named as no other GPU of the host is (its UUID, else its index); None: a CPU lane."""
        if self.gpu is None:
            return None
        return self.gpu.uuid or f"gpu{self.gpu.index}"

    def fingerprint(self) -> dict[str, object]:
        """The lane and its GPU, added to every record it writes."""
        found: dict[str, object] = {"lane": self.name}
        if self.cores:
            found["lane_cores"] = len(self.cores)
        if self.gpu is not None:
            found.update(gpu=self.gpu.name, gpu_index=self.gpu.index, gpu_uuid=self.gpu.uuid or None)
        return found


def machine_name(target: str) -> str:
    """What an evaluation was measured on, as stored evaluations are filed: the GPU model (cuda) or
    the CPU model and core count (cpu) of the GPUs and cores this process sees."""
    if target == "cuda":
        gpus = toolchain.gpus()
        return f"gpu:{gpus[0].name}" if gpus else "gpu:none"
    return f"cpu:{toolchain.cpu_model()} x{os.cpu_count()} ({platform.machine()})"


def parse_gpu_list(spec: str) -> list[int]:
    """`--gpus` as positions among the visible GPUs: "0,1", "0,0,1" (two lanes on GPU 0) or "all"
    (returned as an empty list). Raises LaneSpecError for anything else."""
    text = spec.strip()
    if text.lower() == "all":
        return []
    if not text:
        raise LaneSpecError("--gpus is empty: give GPU numbers separated by commas (0,1) or 'all'")
    positions = []
    for token in (t.strip() for t in text.split(",")):
        if not token:
            raise LaneSpecError(f"--gpus {spec!r} has an empty entry: write GPU numbers separated by commas, e.g. 0,1")
        if not token.isdigit():
            raise LaneSpecError(
                f"--gpus {spec!r}: {token!r} is not a GPU number; use the numbers `nvidia-smi -L` lists "
                "(as CUDA_VISIBLE_DEVICES leaves them), e.g. --gpus 0,1"
            )
        positions.append(int(token))
    return positions


def gpu_lanes(spec: str | None, lanes_per_gpu: int = 1, visible: tuple[GpuInfo, ...] | None = None) -> list[LaneSpec]:
    """Lanes for the cuda target: each GPU `spec` names (default: every visible one), `lanes_per_gpu`
    times, in the order given. Numbers count the GPUs this process sees (after CUDA_VISIBLE_DEVICES)."""
    if lanes_per_gpu < 1:
        raise LaneSpecError(f"--lanes must be at least 1, not {lanes_per_gpu}")
    shown = toolchain.gpus() if visible is None else visible
    if not shown:
        raise LaneSpecError(
            "no NVIDIA GPU is visible here (nvidia-smi finds none, or CUDA_VISIBLE_DEVICES hides them all); "
            "evaluate with --target cpu, or run on a GPU machine"
        )
    positions = parse_gpu_list(spec) if spec is not None else []
    if not positions:
        positions = list(range(len(shown)))
    listing = ", ".join(f"{i}: {g.name}" for i, g in enumerate(shown))
    for p in positions:
        if p >= len(shown):
            raise LaneSpecError(
                f"--gpus names GPU {p}, but this process sees {len(shown)} GPU(s) ({listing})"
            )
    models = {shown[p].name for p in positions}
    if len(models) > 1:
        # Stored evaluations are keyed by the GPU model; one pool over two models would file a
        # timing from one under the other's name.
        raise LaneSpecError(
            f"--gpus mixes GPU models ({', '.join(sorted(models))}); a pool times on one model: choose GPUs "
            f"of one model ({listing})"
        )
    lanes = []
    for p in positions:
        for _ in range(lanes_per_gpu):
            lanes.append(LaneSpec(f"gpu{shown[p].index if shown[p].index >= 0 else p}", shown[p]))
    return _numbered(lanes)


def cpu_lanes(count: int) -> list[LaneSpec]:
    if count < 1:
        raise LaneSpecError(f"--lanes must be at least 1, not {count}")
    return [LaneSpec(f"cpu{i}") for i in range(count)]


def lanes_for(target: str, gpus: str | None = None, lanes: int = 1) -> list[LaneSpec]:
    """The lanes of a pool for `target`: GPU lanes (cuda) or `lanes` CPU lanes (cpu; --gpus is then
    an error, as it would silently do nothing)."""
    if target == "cuda":
        return gpu_lanes(gpus, lanes)
    if target == "cpu":
        if gpus is not None:
            raise LaneSpecError("--gpus applies to --target cuda; on the cpu target give --lanes N")
        return cpu_lanes(lanes)
    raise LaneSpecError(f"unknown target {target!r}: cuda or cpu")


def _numbered(lanes: list[LaneSpec]) -> list[LaneSpec]:
    """Slices of one GPU get distinct names: gpu0, gpu0.1, gpu0.2 ..."""
    seen: dict[str, int] = {}
    out = []
    for lane in lanes:
        n = seen.get(lane.name, 0)
        seen[lane.name] = n + 1
        out.append(lane if n == 0 else LaneSpec(f"{lane.name}.{n}", lane.gpu))
    return out


# ---- each lane's own cores ---------------------------------------------------------------------------
def parse_cpulist(text: str) -> set[int]:
    """A kernel CPU list ("0-15,32-47") as a set; an unreadable one is empty."""
    cores: set[int] = set()
    for part in text.strip().split(","):
        lo, _, hi = part.strip().partition("-")
        if not lo.isdigit() or (hi and not hi.isdigit()):
            return set()
        cores.update(range(int(lo), int(hi or lo) + 1))
    return cores


@functools.cache
def _bus_ids() -> dict[str, str]:
    """GPU UUID -> PCI address as sysfs writes it (0000:18:00.0), from nvidia-smi; empty if unknown."""
    out = toolchain._run(["nvidia-smi", "--query-gpu=uuid,pci.bus_id", "--format=csv,noheader"])
    found = {}
    for line in (out or "").splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) == 2 and parts[1].count(":") == 2:
            found[parts[0]] = parts[1][-12:].lower()  # nvidia-smi pads the PCI domain to 8 digits
    return found


def gpu_local_cores(gpu: GpuInfo) -> set[int]:
    """The cores nearest `gpu` (its PCI device's NUMA node), as the kernel lists them; empty when
    unknown (no nvidia-smi address, no sysfs)."""
    bus = _bus_ids().get(gpu.uuid)
    if not bus:
        return set()
    try:
        return parse_cpulist(Path(f"/sys/bus/pci/devices/{bus}/local_cpulist").read_text())
    except OSError:
        return set()


def split_cores(specs: list[LaneSpec], allowed: set[int], local=gpu_local_cores) -> list[LaneSpec]:
    """The lanes with disjoint shares of `allowed` (the cores the pool may use), as even as they
    divide, each taken first from its GPU's own NUMA node where the host says which that is. A
    lane's compiles, bench builds, serial timings and workers then run on its cores alone: two lanes
    on 32 cores work as two one-GPU runs on 16 cores each, and a lane's inputs and CUDA context sit
    in the memory next to its GPU. Fewer cores than lanes: the lanes are left unpinned. So are CPU
    lanes: their candidates time on the cores, and a share would change what every timing of the
    machine (filed by its CPU model and core count) measures."""
    if len(specs) < 2 or len(allowed) < len(specs) or any(spec.gpu is None for spec in specs):
        return list(specs)
    base, extra = divmod(len(allowed), len(specs))
    free = sorted(allowed)
    shares: list[list[int]] = []
    for i, spec in enumerate(specs):
        want = base + (1 if i < extra else 0)
        near = local(spec.gpu) if spec.gpu is not None else set()
        mine = [c for c in free if c in near][:want]
        mine += [c for c in free if c not in mine][: want - len(mine)]
        free = [c for c in free if c not in mine]
        shares.append(mine)
    return [replace(spec, cores=tuple(sorted(share))) for spec, share in zip(specs, shares)]
