"""The child side of `tasks import kernelbench`: imports one untrusted KernelBench-layout module and runs
its reference, so the importing process never executes a problem's code.

Run as `python -m regrapht.tasks.kb_probe REQUEST.json RESULT.json`. The module may print anything, so
the result goes to a file. What it does:

- finds small test sizes the reference accepts on the CPU, trying odd extents first and, where a layer
  needs divisible ones, the bench extents halved, then each extent made odd on its own (kept where the
  reference still runs); every run is bounded in time (SIGALRM) and in memory (RLIMIT_AS);
- checks, at each accepted size, that outputs are finite, that a seed reproduces inputs and outputs,
  and that two seeds draw different inputs;
- traces the reference on the meta device (no memory, no compute) at the bench size and at variations
  of each size, recording the shapes of inputs, parameters and outputs, the ATen ops and FlopCounterMode's
  count, so the parent can fit roofline expressions.
"""

from __future__ import annotations

import importlib.util
import json
import resource
import signal
import sys
import time
from math import log, prod
from pathlib import Path
from typing import Any


class _Timeout(Exception):
    pass


def _alarm(_signum: int, _frame: Any) -> None:
    raise _Timeout()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:300] if text else ''}".rstrip(": ")


def _limit_memory(extra_mb: int) -> None:
    # Counted from what the interpreter and torch already map, so only the reference's own use is capped.
    vm_kb = 0
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            vm_kb = int(line.split()[1])
    limit = vm_kb * 1024 + extra_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def _odd(value: int) -> int:
    return value if value % 2 else value + 1


class Probe:
    def __init__(self, request: dict[str, Any]):
        import torch

        self.torch = torch
        self.request = request
        self.bench: dict[str, int] = request["bench"]
        self.shrink: list[str] = request["shrink"]
        self.batch: list[str] = request["batch"]
        self.timeout = float(request["trial_timeout_s"])
        self.failures: list[dict[str, Any]] = []
        self.timed_out = False
        spec = importlib.util.spec_from_file_location("kb_reference", request["module"])
        assert spec and spec.loader
        self.module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(self.module)

    # one run of the reference ------------------------------------------------------------------------
    def _run(self, sizes: dict[str, int], seed: int, meta: bool = False) -> dict[str, Any]:
        torch = self.torch
        for name, value in sizes.items():
            setattr(self.module, name, value)
        torch.manual_seed(seed)
        if meta:
            from torch.utils._python_dispatch import TorchDispatchMode
            from torch.utils.flop_counter import FlopCounterMode

            ops: set[str] = set()

            class _Ops(TorchDispatchMode):
                def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # noqa: ANN001
                    ops.add(func.overloadpacket.__name__)
                    return func(*args, **(kwargs or {}))

            with torch.device("meta"):
                model = self.module.Model(*self.module.get_init_inputs())
                inputs = list(self.module.get_inputs())
                counter = FlopCounterMode(display=False)
                with torch.no_grad(), counter, _Ops():
                    outputs = model(*inputs)
            flops = int(counter.get_total_flops())
        else:
            model = self.module.Model(*self.module.get_init_inputs())
            inputs = list(self.module.get_inputs())
            with torch.no_grad():
                outputs = model(*inputs)
            ops, flops = set(), 0
        if isinstance(outputs, torch.Tensor):
            outputs = [outputs]
        elif isinstance(outputs, (tuple, list)) and all(isinstance(o, torch.Tensor) for o in outputs):
            outputs = list(outputs)
        else:
            raise TypeError(f"forward returned {type(outputs).__name__}, not a tensor or a tuple of tensors")
        return {
            "model": model,
            "inputs": inputs,
            "params": [p for p in model.parameters()],
            "outputs": outputs,
            "ops": sorted(ops),
            "flops": flops,
        }

    def _describe(self, tensors: list[Any]) -> list[dict[str, Any]]:
        torch = self.torch
        out = []
        for t in tensors:
            if isinstance(t, torch.Tensor):
                out.append({"shape": list(t.shape), "dtype": str(t.dtype).removeprefix("torch.")})
            else:
                out.append({"shape": None, "dtype": type(t).__name__})
        return out

    def _bounded(self, sizes: dict[str, int], seed: int) -> dict[str, Any]:
        signal.setitimer(signal.ITIMER_REAL, self.timeout)
        try:
            return self._run(sizes, seed)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)

    # test sizes --------------------------------------------------------------------------------------
    def try_sizes(self, sizes: dict[str, int]) -> dict[str, Any] | None:
        torch = self.torch
        start = time.perf_counter()
        try:
            run = self._bounded(sizes, seed=1)
        except _Timeout:
            self.timed_out = True
            self.failures.append({"sizes": sizes, "error": f"no result within {self.timeout:g} s"})
            return None
        except (Exception, MemoryError) as exc:  # noqa: BLE001 - any failure of untrusted code is a verdict
            self.failures.append({"sizes": sizes, "error": _first_line(exc)})
            return None
        seconds = time.perf_counter() - start
        for i, o in enumerate(run["outputs"]):
            if o.is_floating_point() and not bool(torch.isfinite(o).all()):
                self.failures.append({"sizes": sizes, "error": f"output {i} has NaN or Inf"})
                return None
        return {
            "sizes": sizes,
            "seconds": round(seconds, 4),
            "inputs": self._describe(run["inputs"]),
            "params": self._describe(run["params"]),
            "outputs": self._describe(run["outputs"]),
        }

    def _candidate(self, target: int, batch_value: int, divisible: bool) -> dict[str, int]:
        sizes = dict(self.bench)
        for i, name in enumerate(self.shrink):
            bench = self.bench[name]
            if divisible:  # keeps every odd factor of the bench extent and some of its powers of two
                value = bench
                while value % 2 == 0 and value // 2 >= target:
                    value //= 2
            else:  # distinct odd extents, so a transposed index shows
                value = _odd(target + 2 * i)
            sizes[name] = min(value, bench)
        for name in self.batch:
            sizes[name] = min(batch_value, self.bench[name])
        return sizes

    def _largest_target(self, accepted: list[dict[str, Any]]) -> int | None:
        """The extent that makes the largest test's inputs and parameters about `largest_test_elements` elements,
        extrapolated from the growth of the inputs between the two smaller tests (an extent may appear
        in several dimensions: a square matmul's inputs grow as n**2)."""
        if not accepted or not self.shrink:
            return None

        def elements(result: dict[str, Any]) -> int:  # parameters too: a layer's weight can dwarf its input
            tensors = result["inputs"] + result["params"]
            return sum(prod(t["shape"]) for t in tensors if t["shape"] is not None) or 1

        last = accepted[-1]
        power = float(len(self.shrink))
        if len(accepted) >= 2 and last["target"] > accepted[-2]["target"] and elements(last) > elements(accepted[-2]):
            power = max(1.0, log(elements(last) / elements(accepted[-2])) / log(last["target"] / accepted[-2]["target"]))
        budget = float(self.request["largest_test_elements"]) / elements(last)
        target = int(last["target"] * budget ** (1.0 / power))
        return target if target > last["target"] + 4 else None

    def find_tests(self) -> list[dict[str, Any]]:
        accepted: list[dict[str, Any]] = []
        seen: list[dict[str, int]] = []

        def accept(result: dict[str, Any] | None, target: int = 0) -> bool:
            if result and result["sizes"] not in seen:
                seen.append(result["sizes"])
                accepted.append(dict(result, target=target))
            return result is not None

        levels: list[tuple[int | None, int]] = [(3, 1), (17, 3), (None, 2)]
        for target, batch_value in levels:
            if target is None:
                target = self._largest_target(accepted)
                if target is None:
                    break
            if self.timed_out:
                break  # a reference that does not finish at a small size will not at a larger one
            odd = self._candidate(target, batch_value, divisible=False)
            if odd in seen or accept(self.try_sizes(odd), target):
                continue
            base = self._candidate(target, batch_value, divisible=True)
            if base in seen:
                continue
            if not accept(self.try_sizes(base), target):
                # an extent tied to a pinned constant (num_channels = embed_dim) must keep its bench
                # value: put each back on its own and keep the first that makes the reference run
                for name in self.shrink:
                    trial = dict(base, **{name: self.bench[name]})
                    if trial != base and trial not in seen and not self.timed_out and accept(self.try_sizes(trial), target):
                        base = trial
                        break
                else:
                    continue
            at = len(accepted) - 1
            for name in self.shrink:  # make each extent odd on its own where the reference allows it
                trial = dict(base, **{name: odd[name]})
                if trial != base and trial not in seen and not self.timed_out:
                    result = self.try_sizes(trial)
                    if result:
                        accepted[at], seen[at], base = dict(result, target=target), trial, trial
        if not accepted and not self.timed_out:
            accept(self.try_sizes(dict(self.bench, **{b: 1 for b in self.batch})))
        return accepted

    def precision(self, sizes: dict[str, int]) -> dict[str, Any]:
        """How far the reference in its own dtype is from itself run in float64, as the factor by which
        each candidate tolerance of `tolerance[dtype]` would have to grow to cover it (<= 1: it does).
        Candidates are judged against the float64 run, so a tolerance below this fails an exact one."""
        torch = self.torch
        signal.setitimer(signal.ITIMER_REAL, self.timeout)
        try:
            low = self._run(sizes, seed=5)
            dtypes = [t.dtype for t in low["inputs"] + low["outputs"] if isinstance(t, torch.Tensor) and t.is_floating_point()]
            for name, value in sizes.items():
                setattr(self.module, name, value)
            torch.manual_seed(5)
            model = self.module.Model(*self.module.get_init_inputs()).to(torch.float64)
            inputs = [
                t.to(torch.float64) if isinstance(t, torch.Tensor) and t.is_floating_point() else t
                for t in self.module.get_inputs()
            ]
            with torch.no_grad():
                exact = model(*inputs)
        except (Exception, _Timeout, MemoryError) as exc:  # noqa: BLE001
            return {"error": "timed out" if isinstance(exc, _Timeout) else _first_line(exc)}
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        exact = [exact] if isinstance(exact, torch.Tensor) else list(exact)
        dtype = str(dtypes[0]).removeprefix("torch.") if dtypes else "float32"
        factors: dict[str, float] = {}
        for kind, tol in self.request["tolerance"].get(dtype, {}).items():
            worst = 0.0
            for out, ref in zip(low["outputs"], exact):
                if not out.is_floating_point() or out.shape != ref.shape:
                    continue
                ref = ref.to(torch.float64)
                bound = tol["atol"] + tol["rtol"] * ref.abs()
                worst = max(worst, float(((out.to(torch.float64) - ref).abs() / bound).max()) if out.numel() else 0.0)
            factors[kind] = worst
        return {"dtype": dtype, "factors": factors}

    def determinism(self, sizes: dict[str, int]) -> dict[str, Any]:
        torch = self.torch

        def same(x: list[Any], y: list[Any]) -> bool:
            return all(
                torch.equal(p, q) if isinstance(p, torch.Tensor) else p == q for p, q in zip(x, y, strict=True)
            )

        try:  # one run alive at a time beside the first, and no parameters kept: a big layer fits twice
            a = self._bounded(sizes, 11)
            a.pop("params")
            # again on the same model and inputs, without reseeding: a forward that draws random
            # numbers (or reads uninitialised memory) differs here, even though a seed reproduces it
            signal.setitimer(signal.ITIMER_REAL, self.timeout)
            try:
                with torch.no_grad():
                    again = a.pop("model")(*a["inputs"])
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            again = [again] if isinstance(again, torch.Tensor) else list(again)
            forward_repeats = same(a["outputs"], again)
            del again
            b = self._bounded(sizes, 11)
            b.pop("params"), b.pop("model")
            inputs_reproduce = same(a["inputs"], b["inputs"])
            outputs_reproduce = same(a["outputs"], b["outputs"])
            del b
            c = self._bounded(sizes, 12)
            c.pop("params"), c.pop("model")
        except (Exception, _Timeout, MemoryError) as exc:  # noqa: BLE001
            return {"error": _first_line(exc) if not isinstance(exc, _Timeout) else "timed out"}

        drawn = [t for t in a["inputs"] if isinstance(t, torch.Tensor)]
        return {
            "inputs_reproduce": inputs_reproduce,
            "outputs_reproduce": outputs_reproduce and forward_repeats,
            "seeds_differ": bool(drawn) and not same(a["inputs"], c["inputs"]),
        }

    # meta trace --------------------------------------------------------------------------------------
    def trace(self) -> dict[str, Any]:
        import torch.utils._python_dispatch  # noqa: F401 - imported before the clock runs
        import torch.utils.flop_counter  # noqa: F401

        points = []
        varied = [dict(self.bench)]
        for name in self.shrink + self.batch:
            v = self.bench[name]
            for value in (2 * v, 3 * v, v + 1, v + 3):
                varied.append(dict(self.bench, **{name: value}))
        ops: list[str] = []
        error = None
        # one budget for the whole trace: a recurrent layer unrolls every step on the meta device
        deadline = time.monotonic() + float(self.request["trace_timeout_s"])
        for sizes in varied:
            left = deadline - time.monotonic()
            if left <= 0:
                if not points:
                    error = "no result within the time limit"
                break
            signal.setitimer(signal.ITIMER_REAL, left)
            try:
                run = self._run(sizes, seed=1, meta=True)
            except (Exception, _Timeout) as exc:  # noqa: BLE001
                if sizes == self.bench:  # (a slow meta trace says nothing of the CPU runs: no timed_out)
                    error = "no result within the time limit" if isinstance(exc, _Timeout) else _first_line(exc)
                    break
                continue
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            run.pop("model")
            if sizes == self.bench:
                ops = run["ops"]
            points.append(
                {
                    "sizes": sizes,
                    "inputs": self._describe(run["inputs"]),
                    "params": self._describe(run["params"]),
                    "outputs": self._describe(run["outputs"]),
                    "flops": run["flops"],
                }
            )
        return {"points": points, "ops": ops, "error": error}


def main(argv: list[str]) -> int:
    request = json.loads(Path(argv[0]).read_text())
    result_path = Path(argv[1])
    result: dict[str, Any] = {}

    def save() -> None:
        result_path.write_text(json.dumps(result))

    import torch

    torch.set_num_threads(1)
    _limit_memory(int(request["memory_mb"]))
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, float(request["trial_timeout_s"]))
    try:
        probe = Probe(request)
    except _Timeout:
        result["import_error"] = f"importing the module took over {request['trial_timeout_s']} s"
        save()
        return 0
    except BaseException as exc:  # noqa: BLE001 - a module that raises (or exits) on import is a verdict
        result["import_error"] = _first_line(exc)
        save()
        return 0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    result["trace"] = probe.trace()
    save()  # the trace survives a later hang that makes the parent kill this process
    tests = probe.find_tests()
    result["tests"] = tests
    result["failures"] = probe.failures[:12]
    result["determinism"] = [probe.determinism(t["sizes"]) for t in tests]
    if tests:  # the largest test size: the longest reductions, the most rounding
        result["precision"] = probe.precision(tests[-1]["sizes"])
    save()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
