"""Why a torch candidate's speedup over eager moves between processes (issue 17), in one GPU call.

relu's honest Triton candidate measured 0.80x in some fresh evaluations and 0.90x in others, each
within +-0.5%: a per-process effect. This probe starts fresh child processes one after another;
each does what a candidate's worker does at timing (eval/torch_worker.py, eval/torch_timing.py,
the real code) once per timing variant, in a rotated order:

  none      the current method: each timed call starts from an idle device, launch path and all
  holdNNN   the harness's hold (data/kernels/device_check.cu) for NNN us before each timed call

and records what could tell a fast process from a slow one: each kernel's dispatch time (the host's
time until its forward returned), the CPU and NUMA node it ran on, context switches, the pointers of
inputs and outputs (mod 2 MiB and 1 GiB) and the allocator's segments, the GPU's SM and memory
clocks and clock-event reasons (NVML, sampled by the parent through the children's timings).
Children differ by process mode, rotated (--modes; each default-off in the evaluator):

  plain       as a candidate's worker, unconfined
  load        three background processes importing torch and inductor (the evaluator's spare workers)
  sandbox     confined by the torch sandbox (seccomp, Landlock) as production workers are
  pin         pinned to the CPUs local to the GPU (sysfs local_cpulist)
  expandable  PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (another placement of the tensors)

Writes torch_repeat_probe.json (every run) and torch_repeat_probe.txt (the summary) under --out.
On the GPU machine, from the repository root (about 150 s):
  PYTHONPATH=src CUDA_VISIBLE_DEVICES=0 python3 benchmarks/torch_repeat_probe.py --out $OUT
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import json
import os
import resource
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from torch_repeat import spread, two_modes  # noqa: E402

RESULT, SUMMARY = "torch_repeat_probe.json", "torch_repeat_probe.txt"
MODES = ("plain", "load", "sandbox", "pin", "plain", "load", "expandable")
VARIANTS = ("none", "hold100", "hold300")
LOADERS = 3  # background importers in the `load` mode: EvalConfig.torch_spares


# ---- NVML, through ctypes (pynvml may be absent) ----------------------------------------------
class Nvml:
    """SM and memory clocks, clock-event reasons, power and temperature of one GPU; `ok` False where
    the library or the device cannot be had (then every read is empty)."""

    def __init__(self, bus_id: str | None):
        self.ok, self.handle = False, ctypes.c_void_p()
        try:
            self.lib = ctypes.CDLL("libnvidia-ml.so.1")
            if self.lib.nvmlInit_v2() != 0 or not bus_id:
                return
            self.ok = self.lib.nvmlDeviceGetHandleByPciBusId_v2(bus_id.encode(), ctypes.byref(self.handle)) == 0
        except (OSError, AttributeError):
            return
        self.reasons = getattr(self.lib, "nvmlDeviceGetCurrentClocksEventReasons", None) or getattr(
            self.lib, "nvmlDeviceGetCurrentClocksThrottleReasons", None
        )

    def read(self) -> dict[str, Any]:
        if not self.ok:
            return {}
        out: dict[str, Any] = {"t": time.time()}
        value, wide = ctypes.c_uint(), ctypes.c_ulonglong()
        for name, clock in (("sm_mhz", 1), ("mem_mhz", 2)):
            if self.lib.nvmlDeviceGetClockInfo(self.handle, clock, ctypes.byref(value)) == 0:
                out[name] = value.value
        if self.reasons is not None and self.reasons(self.handle, ctypes.byref(wide)) == 0:
            out["reasons"] = wide.value
        if self.lib.nvmlDeviceGetPowerUsage(self.handle, ctypes.byref(value)) == 0:
            out["power_w"] = value.value / 1e3
        if self.lib.nvmlDeviceGetTemperature(self.handle, 0, ctypes.byref(value)) == 0:
            out["temp_c"] = value.value
        return out


def gpu_bus_id() -> str | None:
    """The PCI bus id (NVML's form) of the GPU CUDA_VISIBLE_DEVICES names first, by nvidia-smi's
    index (PCI order; a child records the bus id torch reports, to check the mapping)."""
    first = os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0].strip() or "0"
    try:
        rows = subprocess.run(["nvidia-smi", "--query-gpu=index,pci.bus_id", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=20).stdout.splitlines()  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    for row in rows:
        index, _, bus = (x.strip() for x in row.partition(","))
        if index == first or bus.lower().endswith(first.lower()):
            return bus
    return None


def local_cpus(bus_id: str | None) -> list[int]:
    """The CPUs sysfs says are local to the GPU, among those this process may use."""
    if not bus_id:
        return []
    domain, _, rest = bus_id.lower().partition(":")
    path = Path(f"/sys/bus/pci/devices/{domain[-4:]}:{rest}/local_cpulist")
    with contextlib.suppress(OSError, ValueError):
        return sorted(parse_cpulist(path.read_text()) & os.sched_getaffinity(0))
    return []


def parse_cpulist(text: str) -> set[int]:
    cpus: set[int] = set()
    for part in text.strip().split(","):
        if part:
            low, _, high = part.partition("-")
            cpus.update(range(int(low), int(high or low) + 1))
    return cpus


def cpu_now() -> dict[str, Any]:
    """The CPU this process last ran on, its NUMA node and SMT siblings."""
    fields = Path("/proc/self/stat").read_text().rpartition(")")[2].split()
    cpu = int(fields[36])  # field 39 of proc(5), counted after the command name
    base = Path(f"/sys/devices/system/cpu/cpu{cpu}")
    nodes = [p.name for p in base.glob("node*")]
    siblings = ""
    with contextlib.suppress(OSError):
        siblings = (base / "topology" / "thread_siblings_list").read_text().strip()
    return {"cpu": cpu, "node": nodes[0] if nodes else None, "siblings": siblings}


# ---- the child: one fresh process, every variant --------------------------------------------------
class _Capture:
    """The worker's channel, kept in memory."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.count = 0

    def send(self, **message: Any) -> None:
        self.count += 1
        self.messages.append(message)


class _Recorded:
    """A model whose first calls' output pointers are kept (a list append per call: the same small
    cost for eager and the candidate)."""

    def __init__(self, model: Any, into: list[int]):
        self.model, self.into = model, into

    def __call__(self, *inputs: Any) -> Any:
        out = self.model(*inputs)
        if len(self.into) < 16 and hasattr(out, "data_ptr"):
            self.into.append(out.data_ptr())
        return out


def _where(ptr: int) -> dict[str, int]:
    return {"mod_2mib": ptr % (2 << 20), "mod_1gib": ptr % (1 << 30), "gib": ptr >> 30}


def child(spec: dict[str, Any]) -> dict[str, Any]:
    if spec["mode"] == "pin" and spec["cpus"]:
        os.sched_setaffinity(0, spec["cpus"])
    began = time.time()
    import torch

    from regrapht.eval import torch_sandbox
    from regrapht.eval.torch_worker import TorchWorker

    cuda = spec["target"] == "cuda"
    if cuda:
        torch.cuda.init()
    props = torch.cuda.get_device_properties(0) if cuda else None
    pointers: dict[str, list[int]] = {"eager": [], "candidate": [], "inputs": []}

    class Probed(TorchWorker):
        def build_models(self, cls: Any, sizes: Any, init_seed: int, label: str) -> Any:
            built = super().build_models(cls, sizes, init_seed, label)
            if built is None:
                return None
            return _Recorded(built[0], pointers["eager"]), _Recorded(built[1], pointers["candidate"])

        def bench_sets(self, seeds: list[int]) -> list[list[Any]]:
            sets = super().bench_sets(seeds)
            pointers["inputs"] += [x.data_ptr() for s in sets for x in s if isinstance(x, torch.Tensor)]
            return sets

    channel = _Capture()
    scratch = Path(spec["scratch"])
    candidate = scratch / "candidate.py"
    shutil.copy(spec["candidate"], candidate)
    job = {"mode": "candidate", "target": spec["target"], "dtype": spec["dtype"], "reference": spec["reference"],
           "candidate": str(candidate), "form": "python", "entry": None, "cases": [], "case_dir": str(scratch),
           "allow_lower": False, "hold_library": spec["hold_library"]}  # fmt: skip
    if spec["mode"] == "sandbox":
        job["sandbox"] = torch_sandbox.spec(Path(spec["task_dir"]), scratch, Path(spec["cache_dir"]), spec["target"], ("eager",), [], False)
    worker = Probed(job, channel)  # type: ignore[arg-type]
    if not worker.confine():
        return {"error": f"the sandbox refused: {channel.messages[-1:]}"}
    loaded = worker.load_candidate()
    if loaded is None:
        return {"error": f"the candidate did not load: {channel.messages[-3:]}"}
    cls, bindings, globals_ = loaded
    nvml = Nvml(spec["bus_id"])
    started = time.time() - began
    variants = {}
    for name in spec["variants"]:
        hold_s = float(name[4:]) * 1e-6 if name.startswith("hold") else 0.0
        timing = {"sizes": spec["sizes"], "init_seed": secrets.randbits(62), "input_seeds": [secrets.randbits(62) for _ in range(2)],
                  "baselines": ["eager"], "warmup_rounds": 3, "min_rounds": 10, "max_rounds": 400, "budget_s": 1.0,
                  "min_s": 0.1, "target_rse": 0.005, "flush_bytes": max(2 * int(getattr(props, "L2_cache_size", 0) or 0), 256 << 20),
                  "hold_s": hold_s, "rtol": 0.0, "atol": 0.0}  # fmt: skip
        usage, cpu_before, t0 = resource.getrusage(resource.RUSAGE_SELF), cpu_now(), time.time()
        worker.run_timing(cls, timing, bindings, globals_)
        t1, after = time.time(), resource.getrusage(resource.RUSAGE_SELF)
        message = next((m for m in reversed(channel.messages) if m.get("event") == "timing"), None)
        if message is None or message["problems"] or "candidate" not in message["samples"]:
            variants[name] = {"error": json.dumps(message["problems"] if message else channel.messages[-3:])[:500]}
            continue
        s = message["samples"]
        eager, cand = statistics.median(s["eager"]["event"]), statistics.median(s["candidate"]["event"])
        variants[name] = {
            "speedup": eager / cand, "eager_ms": eager * 1e3, "candidate_ms": cand * 1e3, "rounds": message["rounds"],
            "hold_s": message.get("hold_s", 0.0), "window": [t0, t1],
            "dispatch_us": {k: statistics.median(v["dispatch"]) * 1e6 for k, v in s.items()},
            "host_ms": {k: statistics.median(v["host"]) * 1e3 for k, v in s.items()},
            "rse": {k: statistics.stdev(v["event"]) / len(v["event"]) ** 0.5 / statistics.mean(v["event"]) for k, v in s.items()},
            "cpu_before": cpu_before, "cpu_after": cpu_now(), "nvml_after": nvml.read(),
            "involuntary_switches": after.ru_nivcsw - usage.ru_nivcsw, "voluntary_switches": after.ru_nvcsw - usage.ru_nvcsw,
        }  # fmt: skip
    segments = [{"size_mib": seg["total_size"] / 2**20, **_where(seg["address"])} for seg in torch.cuda.memory_snapshot()
                if seg.get("segment_type") == "large"] if cuda else []  # fmt: skip
    return {
        "mode": spec["mode"], "pid": os.getpid(), "started_s": started, "seconds": time.time() - began,
        "bus_id_torch": f"{props.pci_domain_id:08x}:{props.pci_bus_id:02x}:{props.pci_device_id:02x}.0"
        if hasattr(props, "pci_bus_id") else None,
        "target": spec["target"],
        "affinity": sorted(os.sched_getaffinity(0)), "loadavg": os.getloadavg(), "variants": variants,
        "pointers": {k: [_where(p) for p in v[:8]] for k, v in pointers.items()},
        "distinct_output_blocks": {k: len(set(pointers[k])) for k in ("eager", "candidate")}, "segments": segments,
    }  # fmt: skip


# ---- the parent: children one after another, the clocks sampled throughout ------------------------
class Sampler(threading.Thread):
    def __init__(self, nvml: Nvml, period_s: float = 0.05):
        super().__init__(daemon=True)
        self.nvml, self.period_s, self.samples, self.stop = nvml, period_s, [], threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            reading = self.nvml.read()
            if reading:
                self.samples.append(reading)
            self.stop.wait(self.period_s)

    def over(self, window: list[float]) -> dict[str, Any]:
        inside = [s for s in self.samples if window[0] <= s["t"] <= window[1]]
        if not inside:
            return {}
        sm = [s["sm_mhz"] for s in inside if "sm_mhz" in s]
        reasons = 0
        for s in inside:
            reasons |= int(s.get("reasons", 0))
        return {"n": len(inside), "sm_mhz_min": min(sm, default=None), "sm_mhz_median": statistics.median(sm) if sm else None,
                "mem_mhz": sorted({s.get("mem_mhz") for s in inside if "mem_mhz" in s}), "reasons_or": hex(reasons),
                "power_w_max": max((s.get("power_w", 0.0) for s in inside), default=None)}  # fmt: skip


def start_load() -> list[subprocess.Popen]:
    """LOADERS processes importing torch and inductor over and over, as spare workers do."""
    loop = f"while :; do {sys.executable} -c 'import torch, torch._inductor.compile_fx'; done"
    return [subprocess.Popen(["bash", "-c", loop], start_new_session=True, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL) for _ in range(LOADERS)]  # fmt: skip


def stop_load(procs: list[subprocess.Popen]) -> None:
    for p in procs:  # each loader leads a session of its own: its group is it and its current import
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, 9)
        p.wait()


def hold_library(cache: Path) -> tuple[str | None, float]:
    from regrapht.eval.compile import Compiler
    from regrapht.eval.jobs import DEVICE_CHECK_SOURCE

    began = time.perf_counter()
    result = Compiler(cache).compile(DEVICE_CHECK_SOURCE.read_text(), "cuda", "regrapht_device_check", "", [])
    return (result.library if result.ok else None), time.perf_counter() - began


def summarize(runs: list[dict[str, Any]], variants: list[str]) -> list[str]:
    lines = []
    good = [r for r in runs if "variants" in r]
    for name in variants:
        rows = [(r["mode"], r["variants"][name]) for r in good if "speedup" in r["variants"].get(name, {})]
        if not rows:
            lines.append(f"{name}: no run")
            continue
        lines.append(f"{name}: " + describe([v for _, v in rows]))
        for mode in sorted({m for m, _ in rows}):
            lines.append(f"  {mode:<10} " + describe([v for m, v in rows if m == mode]))
    base = [(r, r["variants"]["none"]) for r in good if "speedup" in r["variants"].get("none", {})]
    if len(base) >= 3:
        lines.append("none, per run (what tells fast from slow): speedup | cand/eager ms | dispatch cand/eager us | cpu node | "
                     "SM MHz min | reasons | invol. switches | cand out mod 2MiB")  # fmt: skip
        for r, v in sorted(base, key=lambda x: x[1]["speedup"]):
            clocks = r.get("clocks", {}).get("none", {})
            out = r["pointers"]["candidate"][0]["mod_2mib"] if r["pointers"]["candidate"] else None
            lines.append(f"  {v['speedup']:.4f} | {v['candidate_ms']:.4f}/{v['eager_ms']:.4f} | "
                         f"{v['dispatch_us']['candidate']:.1f}/{v['dispatch_us']['eager']:.1f} | {r['mode']} "
                         f"cpu{v['cpu_after']['cpu']} {v['cpu_after']['node']} | {clocks.get('sm_mhz_min')} | "
                         f"{clocks.get('reasons_or')} | {v['involuntary_switches']} | {out}")  # fmt: skip
        for key in ("candidate", "eager"):
            r_ = correlation([v["speedup"] for _, v in base], [v["dispatch_us"][key] for _, v in base])
            lines.append(f"  correlation of the speedup with the {key}'s dispatch time: {r_:+.2f}" if r_ is not None else "")
    return [line for line in lines if line]


def describe(values: list[dict[str, Any]]) -> str:
    speedups = [v["speedup"] for v in values]
    s = spread(speedups)
    text = (f"n={len(values)} speedup median {statistics.median(speedups):.4f}, spread {'n/a' if s is None else f'{s:.2%}'} (target <= 1%); cand "
            f"{statistics.median(v['candidate_ms'] for v in values):.4f} ms, eager {statistics.median(v['eager_ms'] for v in values):.4f} ms; "
            f"dispatch cand {statistics.median(v['dispatch_us']['candidate'] for v in values):.1f} us")  # fmt: skip
    modes = two_modes(speedups)
    if modes is not None:
        (lo, n_lo), (hi, n_hi) = modes
        text += f"; two modes: {lo:.4f} (x{n_lo}) and {hi:.4f} (x{n_hi})"
    return text


def correlation(xs: list[float], ys: list[float]) -> float | None:
    if len(xs) < 3 or statistics.pstdev(xs) == 0 or statistics.pstdev(ys) == 0:
        return None
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    cov = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / len(xs)
    return cov / (statistics.pstdev(xs) * statistics.pstdev(ys))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("/tmp/out"))
    parser.add_argument("--budget-s", type=float, default=150.0, help="No child starts that would end after this.")
    parser.add_argument("--modes", default=",".join(MODES), help="Process modes, rotated (repeat one to weigh it).")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="Timing variants in every child (none, holdNNN in us).")
    parser.add_argument("--task", default="relu")
    parser.add_argument("--candidate", type=Path, default=None, help="Default: the task's candidates/triton_relu.py.")
    parser.add_argument("--cache", type=Path, default=None, help="Build cache (default: the evaluator's).")
    parser.add_argument("--target", default="cuda", help="cpu: the plumbing only, with a plain-torch candidate (no hold).")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(json.loads(args.child)), default=str), flush=True)
        os._exit(0)
    began = time.monotonic()
    from regrapht.eval import torch_sandbox
    from regrapht.eval.compile import default_cache_dir
    from regrapht.tasks import find_task

    task = find_task(args.task)
    candidate = args.candidate or Path(task.root) / "candidates" / "triton_relu.py"
    modes, variants = args.modes.split(","), args.variants.split(",")
    args.out.mkdir(parents=True, exist_ok=True)
    library, build_s = hold_library(args.cache or default_cache_dir()) if args.target == "cuda" else (None, 0.0)
    bus = gpu_bus_id()
    cpus = local_cpus(bus)
    nvml = Nvml(bus)
    sampler = Sampler(nvml)
    sampler.start()
    result: dict[str, Any] = {"task": task.id, "candidate": str(candidate), "hold_library": library, "build_s": build_s,
                              "bus_id": bus, "gpu_local_cpus": cpus, "affinity": sorted(os.sched_getaffinity(0)),
                              "nproc": os.cpu_count(), "nvml": nvml.ok, "modes": modes, "variants": variants, "runs": []}  # fmt: skip
    durations: list[float] = []
    with tempfile.TemporaryDirectory(prefix="torch-probe-") as tmp:
        for i in range(10_000):
            left = args.budget_s - (time.monotonic() - began)
            expect = max(durations[-3:] or [20.0])
            if left < expect:
                result["stopped"] = f"{i} children fit {args.budget_s:.0f} s"
                break
            mode = modes[i % len(modes)]
            k = i % len(variants)
            scratch = Path(tmp) / f"c{i}"
            scratch.mkdir()
            env = dict(os.environ)
            if mode == "sandbox":
                env.update(torch_sandbox.env(scratch))
            if mode == "expandable":
                env["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"
            spec = {"mode": mode, "variants": variants[k:] + variants[:k], "cpus": cpus, "bus_id": bus, "scratch": str(scratch),
                    "candidate": str(candidate), "reference": str(task.reference_path), "task_dir": str(task.root),
                    "cache_dir": str(args.cache or default_cache_dir()), "dtype": task.dtype, "sizes": task.bench_for(args.target),
                    "hold_library": library, "target": args.target}  # fmt: skip
            load = start_load() if mode == "load" else []
            t0 = time.monotonic()
            try:
                done = subprocess.run([sys.executable, __file__, "--child", json.dumps(spec)], env=env, capture_output=True,
                                      text=True, timeout=max(5.0, left))  # fmt: skip
                lines = done.stdout.strip().splitlines()
                run = json.loads(lines[-1]) if lines else {"error": done.stderr[-2000:]}
                if done.returncode != 0 and "variants" not in run:
                    run["error"] = done.stderr[-2000:]
            except subprocess.TimeoutExpired:
                run = {"error": "timed out"}
            finally:
                stop_load(load)
            durations.append(time.monotonic() - t0)
            run.setdefault("mode", mode)
            run["clocks"] = {n: sampler.over(v["window"]) for n, v in run.get("variants", {}).items() if "window" in v}
            result["runs"].append(run)
            brief = {n: round(v["speedup"], 4) for n, v in run.get("variants", {}).items() if "speedup" in v}
            print(f"child {i} ({mode}, {durations[-1]:.1f} s): {brief or run.get('error', '')[:300]}", flush=True)
            (args.out / RESULT).write_text(json.dumps(result, indent=1, default=str))
    sampler.stop.set()
    lines = [f"{len(result['runs'])} children in {time.monotonic() - began:.0f} s; hold library "
             f"{'built' if library else 'MISSING'} ({build_s:.1f} s); GPU {bus}, local CPUs {cpus or 'unknown'}, "
             f"NVML {'on' if nvml.ok else 'off'}"]  # fmt: skip
    lines += summarize(result["runs"], variants)
    result["summary"] = lines
    (args.out / RESULT).write_text(json.dumps(result, indent=1, default=str))
    (args.out / SUMMARY).write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
