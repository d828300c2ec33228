"""Timing a torch candidate interleaved with its baselines, inside the torch worker.

Every round times each kernel once, in a fresh random order, on the same inputs: eager `Model`,
`torch.compile` (default, and max-autotune without CUDA graphs), eager replayed from a CUDA graph,
and the candidate. Before each timed call: the L2 is flushed, the device synchronized; after it the
device is synchronized again (side streams and host threads included) and both the CUDA-event time
and the host time are kept, for the parent's cross-check. Compiled baselines, CUDA-graph capture
and the candidate's own JIT (Triton) are warmed before the first timed round and their cost is
reported apart.

Inputs no call can recognize: every floating input of a round is its input set multiplied element
by element by fresh factors in [0.75, 1.25], drawn on the device from a secret seed per round (no
host round trip), so no call sees an input an earlier call saw, not even up to scale (a single
factor per round let a candidate serve a linear operator's cached output times the ratio). Outputs
of rounds drawn in secret are compared with eager's on exactly those inputs. A secret subset of
rounds is audited: the candidate runs under the dispatch audit, its output is checked, and the
round's samples are dropped for every kernel, so the audit's overhead never enters a measurement.
Baseline outputs are poisoned before their memory is released.

The hold (cuda, `hold_s` > 0): after the synchronization and before the start event, the harness's
hold kernel (data/kernels/device_check.cu, the serial path's) keeps every SM busy, so each kernel's
Python launch path (tens of microseconds for a Triton launcher or torch.compile's guards, and as
much again on a busier or slower host core) runs while the device is held instead of inside the
timed interval, and no kernel the candidate puts on a stream of its own runs before the start event.
Without it a timed call starts from an idle device, launch path and all: relu's honest Triton
candidate measured 0.80x or 0.90x over eager depending on the process (issue 17). Each call's
dispatch time (the host's time until its forward returned) is kept beside the samples: where it
exceeds the hold, the excess is still timed.
"""

from __future__ import annotations

import math
import random
import secrets
import time
from typing import Any

import torch

from regrapht.eval import torch_checks
from regrapht.eval.torch_baseline_cache import COMPILED, tampered

BASELINES = ("eager", "compile", "max-autotune", "cudagraph")
CHECK_WINDOWS = ((1, 8), (8, 64), (64, None))
AUDIT_FRACTION = 1 / 8  # of the rounds after the first audited one, each audited with this chance
PERTURB_LOW, PERTURB_HIGH = 0.75, 1.25  # per-element factors: the same range the single factor had


def _baseline(name: str, model: Any, sets: list[list[Any]], cuda: bool) -> tuple[Any, float]:
    """A callable timing `name` (taking the round's inputs), and its setup seconds (compile, capture),
    spent before any timed round."""
    began = time.perf_counter()
    if name == "eager":
        fn = model
    elif name in ("compile", "max-autotune"):
        compiled = torch.compile(model, mode="max-autotune-no-cudagraphs" if name != "compile" else None)
        with torch.no_grad(), _baseline_inductor_settings():
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


# Inductor settings of every compiled baseline, in the warming reference worker and every candidate's
# alike (eval/torch_baseline_cache.py: changing them changes what is warmed, so FORMAT follows them).
# - cpp_cache_precompile_headers: inductor's C++ backend precompiles its kernels' header before it
#   looks for the built kernel, into the temporary folder (the candidate's scratch), so a warm cache
#   still paid that compile in every worker (measured on the cpu target: most of a warm
#   torch.compile). The generated kernels are the same.
# - bundle_triton_into_fx_graph_cache: a bundled graph entry carries its statically launched Triton
#   autotuners pickled with the path of their kernel's module in the warming worker's inductor cache
#   (CachingAutotuner.filename, the warm folder); on load, a kernel with several configs reads its
#   best config beside that path (runtime/autotune_cache.py), an open the candidate's sandbox
#   refuses. Unbundled, each kernel is compiled through Triton's cache, which finds it in the
#   candidate's seeded copy, and its module and best config are the copy's.
BASELINE_INDUCTOR = {"cpp_cache_precompile_headers": False, "bundle_triton_into_fx_graph_cache": False}


def _baseline_inductor_settings() -> Any:
    """BASELINE_INDUCTOR, those of its settings this torch has, applied for the enclosed compile."""
    import contextlib

    try:
        import torch._inductor.config as inductor_config
    except ImportError:
        return contextlib.nullcontext()
    known = {k: v for k, v in BASELINE_INDUCTOR.items() if hasattr(inductor_config, k)}
    return inductor_config.patch(known) if known else contextlib.nullcontext()


def set_up_baselines(names: list[str], model: Any, sets: list[list[Any]], cuda: bool) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """Each named baseline made ready (compiled ones compiled on `sets`): `(callables, setup)`, the
    setup naming each one's seconds and, where it failed, why. A failed compile's seconds are
    reported too: they were spent all the same (on the device turn, in a candidate's worker)."""
    kernels: dict[str, Any] = {}
    setup: dict[str, dict[str, Any]] = {}
    for name in names:
        tried = time.perf_counter()
        try:
            kernels[name], seconds = _baseline(name, model, sets, cuda)
            setup[name] = {"seconds": round(seconds, 3)}
        except Exception as exc:
            setup[name] = {"error": f"{type(exc).__name__}: {str(exc)[:300]}", "seconds": round(time.perf_counter() - tried, 3)}
    return kernels, setup


def _checked_rounds(max_rounds: int) -> set[int]:
    rng = secrets.SystemRandom()
    rounds = {0}
    for low, high in CHECK_WINDOWS:
        high = max_rounds if high is None else min(high, max_rounds)
        if low < high:
            rounds.add(rng.randrange(low, high))
    return rounds


def _audited_rounds(max_rounds: int, min_rounds: int, rng: random.Random) -> set[int]:
    """Rounds whose candidate call is audited (and whose samples are dropped): one within the first
    `min_rounds` samples' reach, so every timing has one, then each later round with AUDIT_FRACTION."""
    first = rng.randrange(1, max(2, min(8, min_rounds)))
    return {first} | {r for r in range(first + 1, max_rounds + max_rounds // 4 + 2) if rng.random() < AUDIT_FRACTION}


class Perturber:
    """Each round's inputs: the round's input set times per-element factors drawn on the device from
    a fresh secret seed (two kernels per input, buffers allocated once)."""

    def __init__(self, inputs: list[Any], device: str):
        self.generator = torch.Generator(device=device)
        self.noise = [torch.empty_like(x) if _perturbable(x) else None for x in inputs]

    def apply(self, inputs: list[Any], bases: list[Any], seed: int) -> None:
        self.generator.manual_seed(seed)
        for x, base, noise in zip(inputs, bases, self.noise):
            if noise is not None:
                noise.uniform_(PERTURB_LOW, PERTURB_HIGH, generator=self.generator)
                torch.mul(base, noise, out=x)


def _perturbable(x: Any) -> bool:
    return isinstance(x, torch.Tensor) and x.is_floating_point() and x.numel() > 0


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
    sets = worker.bench_sets(spec["input_seeds"])
    bases = [[x.clone() if isinstance(x, torch.Tensor) else x for x in s] for s in sets]
    if not worker._check_globals(bindings, globals_["spaces"], globals_["state"], "before timing"):
        return
    seeded = worker.job.get("baseline_cache")
    if seeded and any(n in COMPILED for n in spec["baselines"]):
        changed = tampered(seeded["files"], seeded["dirs"])
        if changed:
            worker.send(event="timing", samples={}, setup={}, rounds=0, checked=0, problems=[
                f"the compiled baselines' cache in the candidate's scratch was tampered with before they loaded it "
                f"({changed}): a planted or edited compiled Model would make the baseline slower"])  # fmt: skip
            return
    kernels, setup = set_up_baselines(spec["baselines"], model, sets, cuda)
    # Setting up the baselines ran the harness and torch.compile on Model, nothing of the candidate's
    # (checked clean just above): whatever compilation rebound is the new normal.
    bindings.clear()
    bindings.update(torch_checks.binding_snapshot(globals_["spaces"]))
    globals_["state"] = torch_checks.torch_state(torch)
    kernels["candidate"] = candidate
    warm_began = time.perf_counter()
    first_audit = torch_checks.Audit()  # the candidate's first call at the bench shape, for the switch check
    first = True
    with torch.no_grad():
        for _ in range(max(1, int(spec["warmup_rounds"]))):
            for name, fn in kernels.items():
                for inputs in sets:
                    if name == "candidate" and first:
                        worker.call(fn, inputs, first_audit)
                        first = False
                    else:
                        fn(*inputs)
    worker.sync()
    setup["candidate"] = {"seconds": round(time.perf_counter() - warm_began, 3), "what": "warm-up of every kernel"}
    bandwidth = _bandwidth() if cuda else None
    flush = torch.empty(int(spec["flush_bytes"]), dtype=torch.uint8, device="cuda") if cuda else None
    hold_ns = int(float(spec.get("hold_s", 0.0)) * 1e9) if cuda else 0
    held = hold_ns > 0  # every timed call behind the hold: the judge widens its host-time gate only then
    # Each sample's input set too: the sets alternate, and audited rounds are dropped, so the counts
    # per set differ and the judge weighs each set the same (stats.summarize).
    samples: dict[str, dict[str, list[float]]] = {n: {"event": [], "host": [], "dispatch": [], "set": []} for n in kernels}
    problems: list[str] = []
    checked = _checked_rounds(int(spec["max_rounds"]))
    rng = random.Random(secrets.randbits(64))
    audited = _audited_rounds(int(spec["max_rounds"]), int(spec["min_rounds"]), rng)
    perturbers = [Perturber(s, worker.device) for s in sets]
    began = time.perf_counter()
    rounds = 0
    while True:
        index = rounds % len(sets)
        inputs = sets[index]
        perturbers[index].apply(inputs, bases[index], secrets.randbits(63))
        audit = torch_checks.Audit() if rounds in audited else None
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
            if hold_ns and not worker.hold(hold_ns):  # after the synchronization; only the start event follows it
                held = False
            if start is not None:
                start.record()
            t0 = time.perf_counter()
            with torch.no_grad():
                if audit is not None and name == "candidate":
                    with torch_checks.dispatch_audit(torch, audit, worker.job["dtype"], worker.stream):
                        result = fn(*inputs)
                else:
                    result = fn(*inputs)
            dispatch = time.perf_counter() - t0
            if end is not None:
                end.record()
            worker.sync()
            host = time.perf_counter() - t0
            if audit is None:  # an audited round's samples carry the audit's overhead: dropped, all kernels
                samples[name]["host"].append(host)
                samples[name]["event"].append(start.elapsed_time(end) / 1e3 if start is not None else host)
                samples[name]["dispatch"].append(dispatch)
                samples[name]["set"].append(index)
            outputs[name] = result
        if rounds in checked or audit is not None:
            problems += _check_round(worker, outputs, inputs, spec, bindings, globals_, rounds)
            if audit is not None:
                problems += _audit_problems(worker, first_audit, audit, rounds)
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
        timed = len(samples["candidate"]["host"])
        elapsed = time.perf_counter() - began
        primary = "event" if cuda else "host"
        steady = all(_rse(s[primary]) < spec["target_rse"] for s in samples.values())
        if timed >= spec["max_rounds"] or (
            timed >= spec["min_rounds"] and elapsed >= spec["min_s"] and (steady or elapsed >= spec["budget_s"])
        ):
            break
    worker.send(event="timing", samples=samples, setup=setup, rounds=len(samples["candidate"]["host"]), problems=problems,
                bandwidth_bytes_per_s=bandwidth, checked=len([r for r in checked | audited if r < rounds]),
                audited=len([r for r in audited if r < rounds]), hold_s=hold_ns / 1e9 if held else 0.0)  # fmt: skip


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


def _audit_problems(worker: Any, first: torch_checks.Audit, audit: torch_checks.Audit, round_: int) -> list[str]:
    """What an audited timed round's dispatch shows: library operators (on cuda, or beside a custom
    extension on cpu, where they are not the candidate's own work; anywhere when its first call at
    the bench shape did not run them), side streams, narrower conversions."""
    where = f"timed round {round_}"
    problems = []
    strict = worker.cuda or worker.built
    if audit.forbidden and strict:
        problems.append(f"{where}: forward called the library operator(s) {', '.join(audit.forbidden[:5])}: the work is "
                        "done by PyTorch, not by a custom kernel")  # fmt: skip
    elif (switch := torch_checks.switched(first, audit, where)) is not None:
        problems.append(switch)
    if audit.side_stream:
        problems.append(f"{where}: ran {', '.join(audit.side_stream[:5])} on a stream other than the caller's (side stream)")
    if audit.lowered and not worker.job.get("allow_lower"):
        problems.append(f"{where}: converted to a lower precision than the task's {worker.job['dtype']}: {', '.join(audit.lowered[:3])}")
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
