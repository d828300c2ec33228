"""Timing a torch candidate interleaved with its baselines, inside the torch worker.

Every round times each kernel once, in a fresh random order, on the same inputs: eager `Model`,
`torch.compile` (default, and max-autotune without CUDA graphs), eager replayed from a CUDA graph,
and the candidate. Before each timed call: the L2 is flushed, the device synchronized; after it the
device is synchronized again (side streams and host threads included) and both the CUDA-event time
and the host time are kept, for the parent's cross-check. Compiled baselines, CUDA-graph capture
and the candidate's own JIT (Triton) are warmed before the first timed round and their cost is
reported apart. The inputs of each round are the round's input set scaled by a fresh factor, so no
call sees an input an earlier call saw; outputs of calls drawn in secret are compared with eager's
on the same inputs, and baseline outputs are poisoned before their memory is released.
"""

from __future__ import annotations

import math
import random
import secrets
import time
from typing import Any

import torch

from regrapht.eval import torch_checks

BASELINES = ("eager", "compile", "max-autotune", "cudagraph")
CHECK_WINDOWS = ((1, 8), (8, 64), (64, None))


def _baseline(name: str, model: Any, sets: list[list[Any]], cuda: bool) -> tuple[Any, float]:
    """A callable timing `name` (taking the round's inputs), and its setup seconds (compile, capture),
    spent before any timed round."""
    began = time.perf_counter()
    if name == "eager":
        fn = model
    elif name in ("compile", "max-autotune"):
        compiled = torch.compile(model, mode="max-autotune-no-cudagraphs" if name != "compile" else None)
        with torch.no_grad():
            for inputs in sets:
                compiled(*inputs)  # compiles (once per input set's guards) outside the timed region
        fn = compiled
    elif name == "cudagraph":
        if not cuda:
            raise RuntimeError("CUDA graphs exist on the cuda target only")
        static = [x.clone() if isinstance(x, torch.Tensor) else x for x in sets[0]]
        warm = torch.cuda.Stream()
        warm.wait_stream(torch.cuda.current_stream())
        with torch.no_grad(), torch.cuda.stream(warm):
            for _ in range(2):
                model(*static)
        torch.cuda.current_stream().wait_stream(warm)
        graph = torch.cuda.CUDAGraph()
        with torch.no_grad(), torch.cuda.graph(graph):
            out = model(*static)

        def replay(*inputs: Any) -> Any:
            graph.replay()
            return out

        replay.static_inputs = static  # type: ignore[attr-defined]
        fn = replay
    else:
        raise ValueError(f"unknown baseline {name!r} (known: {', '.join(BASELINES)})")
    if cuda:
        torch.cuda.synchronize()
    return fn, time.perf_counter() - began


def _checked_rounds(max_rounds: int) -> set[int]:
    rng = secrets.SystemRandom()
    rounds = {0}
    for low, high in CHECK_WINDOWS:
        high = max_rounds if high is None else min(high, max_rounds)
        if low < high:
            rounds.add(rng.randrange(low, high))
    return rounds


def _rse(values: list[float]) -> float:
    if len(values) < 2:
        return math.inf
    mean = sum(values) / len(values)
    var = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return math.sqrt(var / len(values)) / mean if mean > 0 else math.inf


def _disagreement(ours: list[Any], eager: list[Any], rtol: float, atol: float) -> str | None:
    if len(ours) != len(eager):
        return f"returned {len(ours)} outputs, eager {len(eager)}"
    for i, (a, b) in enumerate(zip(ours, eager)):
        if a.shape != b.shape:
            return f"output {i} has shape {tuple(a.shape)}, eager's {tuple(b.shape)}"
        a64, b64 = a.double(), b.double()
        bad = ~((a64 - b64).abs() <= atol + rtol * b64.abs()) & ~(a64.isnan() & b64.isnan())
        if bool(bad.any()):
            return f"output {i}: {int(bad.sum())} of {a.numel()} elements differ from eager's on the same inputs"
    return None


def time_interleaved(worker: Any, cls: Any, spec: dict[str, Any], bindings: dict[str, Any], globals_: dict[str, Any]) -> None:
    cuda = worker.cuda
    built = worker.build_models(cls, spec["sizes"], spec["init_seed"], "bench")
    if built is None:
        return
    model, candidate = built
    ref = worker.reference
    from regrapht.eval.torch_worker import to_task

    sets = []
    for seed in spec["input_seeds"]:
        torch.manual_seed(seed)
        sets.append([to_task(x, worker.dtype, worker.device) for x in ref.get_inputs()])
    bases = [[x.clone() if isinstance(x, torch.Tensor) else x for x in s] for s in sets]
    kernels: dict[str, Any] = {}
    setup: dict[str, dict[str, Any]] = {}
    if not worker._check_globals(bindings, globals_["spaces"], globals_["state"], "before timing"):
        return
    for name in spec["baselines"]:
        try:
            kernels[name], seconds = _baseline(name, model, sets, cuda)
            setup[name] = {"seconds": round(seconds, 3)}
        except Exception as exc:
            setup[name] = {"error": f"{type(exc).__name__}: {str(exc)[:300]}"}
    # Setting up the baselines ran the harness and torch.compile on Model, nothing of the candidate's
    # (checked clean just above): whatever compilation rebound is the new normal.
    bindings.clear()
    bindings.update(torch_checks.binding_snapshot(globals_["spaces"]))
    globals_["state"] = torch_checks.torch_state(torch)
    kernels["candidate"] = candidate
    warm_began = time.perf_counter()
    with torch.no_grad():
        for _ in range(max(1, int(spec["warmup_rounds"]))):
            for fn in kernels.values():
                for inputs in sets:
                    fn(*inputs)
    worker.sync()
    setup["candidate"] = {"seconds": round(time.perf_counter() - warm_began, 3), "what": "warm-up of every kernel"}
    bandwidth = _bandwidth() if cuda else None
    flush = torch.empty(int(spec["flush_bytes"]), dtype=torch.uint8, device="cuda") if cuda else None
    samples: dict[str, dict[str, list[float]]] = {n: {"event": [], "host": []} for n in kernels}
    problems: list[str] = []
    checked = _checked_rounds(int(spec["max_rounds"]))
    rng = random.Random(secrets.randbits(64))
    began = time.perf_counter()
    rounds = 0
    while True:
        index = rounds % len(sets)
        inputs = sets[index]
        scale = rng.uniform(0.75, 1.25)
        for x, base in zip(inputs, bases[index]):
            if isinstance(x, torch.Tensor) and x.is_floating_point():
                x.copy_(base).mul_(scale)
        order = list(kernels)
        rng.shuffle(order)
        outputs: dict[str, Any] = {}
        for name in order:
            fn = kernels[name]
            static = getattr(fn, "static_inputs", None)
            if static is not None:
                for s, x in zip(static, inputs):
                    if isinstance(s, torch.Tensor):
                        s.copy_(x)
            if flush is not None:
                flush.zero_()
            worker.sync()
            start = torch.cuda.Event(enable_timing=True) if cuda else None
            end = torch.cuda.Event(enable_timing=True) if cuda else None
            if start is not None:
                start.record()
            t0 = time.perf_counter()
            with torch.no_grad():
                result = fn(*inputs)
            if end is not None:
                end.record()
            worker.sync()
            host = time.perf_counter() - t0
            samples[name]["host"].append(host)
            samples[name]["event"].append(start.elapsed_time(end) / 1e3 if start is not None else host)
            outputs[name] = result
        if rounds in checked:
            problems += _check_round(worker, outputs, inputs, spec, bindings, globals_, rounds)
            if problems:
                break
        for name, result in outputs.items():
            if name != "candidate":
                flat = torch_checks.flat_outputs(torch, result)
                for t in flat if not isinstance(flat, str) else []:
                    if t.is_floating_point() and getattr(kernels[name], "static_inputs", None) is None:
                        t.fill_(float("nan"))  # released memory must not hold a right answer
        outputs.clear()
        rounds += 1
        elapsed = time.perf_counter() - began
        primary = "event" if cuda else "host"
        steady = all(_rse(s[primary]) < spec["target_rse"] for s in samples.values())
        if rounds >= spec["max_rounds"] or (
            rounds >= spec["min_rounds"] and elapsed >= spec["min_s"] and (steady or elapsed >= spec["budget_s"])
        ):
            break
    worker.send(event="timing", samples=samples, setup=setup, rounds=rounds, problems=problems,
                bandwidth_bytes_per_s=bandwidth, checked=len([r for r in checked if r < rounds]))  # fmt: skip


def _check_round(worker: Any, outputs: dict[str, Any], inputs: list[Any], spec: dict[str, Any],
                 bindings: dict[str, Any], globals_: dict[str, Any], round_: int) -> list[str]:  # fmt: skip
    ours = torch_checks.flat_outputs(torch, outputs["candidate"])
    if isinstance(ours, str):
        return [f"timed round {round_}: {ours}"]
    problems = [f"timed round {round_}: {p}" for p in torch_checks.aliases(ours, inputs)]
    eager = outputs.get("eager")  # eager is always timed (eval/torch_judge.py: baselines_for)
    if eager is not None:
        flat = torch_checks.flat_outputs(torch, eager)
        if not isinstance(flat, str):
            wrong = _disagreement(ours, flat, spec["rtol"], spec["atol"])
            if wrong:
                problems.append(f"timed round {round_}: {wrong} (the output of a timed call differs from the checked calls')")
    if not worker._check_globals(bindings, globals_["spaces"], globals_["state"], f"timed round {round_}"):
        problems.append(f"timed round {round_}: changed global state or rebound torch (see above)")
    return problems


def _bandwidth() -> float:
    """The device's copy bandwidth (bytes read + written per second), for the plausibility gate."""
    n = 256 << 20
    a = torch.empty(n, dtype=torch.uint8, device="cuda").fill_(1)
    b = torch.empty_like(a)
    best = 0.0
    for _ in range(5):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        b.copy_(a)
        end.record()
        torch.cuda.synchronize()
        best = max(best, 2 * n / max(start.elapsed_time(end) / 1e3, 1e-9))
    del a, b
    return best
