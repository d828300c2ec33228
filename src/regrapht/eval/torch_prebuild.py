"""Building torch candidates' extensions before their device turn, on a pool of CPU threads.

A candidate's `load_inline` call runs inside its worker, which holds the GPU; building there made the
GPU wait out nvcc. Here the parent reads the calls from the candidate's text without running any of
it (`specs_in`): a call whose arguments are literals, or names bound once to literals (strings,
lists, `+`, f-strings of literals), is fully known before the worker starts, and its build starts at
once on the pool (`BuildPool`). When the worker asks for a build, the parent hands it the pool's
result for the same content address, waiting only if that build is still running; a call the text
cannot settle (sources made at run time) is built then, as before. Nothing is trusted from the text:
the worker's own request is what is built and loaded, and a prebuild that does not match it is a
cache miss, never a substitute.
"""

from __future__ import annotations

import ast
import os
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from regrapht.eval import torch_build

_UNKNOWN = object()  # a value the text does not settle
_SPEC_ARGS = ("name", "cpp_sources", "cuda_sources", "functions", "extra_cflags", "extra_cuda_cflags",
              "extra_ldflags", "extra_include_paths")  # fmt: skip


def specs_in(source: str, form: str = "python", entry: str | None = None) -> list[dict[str, Any]]:
    """The load_inline specs (torch_build.spec_from_call) a candidate's text settles without running."""
    if form == "cuda":
        from regrapht.eval.torch_forms import entry_declaration

        assert entry is not None
        # what torch_worker._bare_cuda_module asks for
        return [torch_build.spec_from_call(("bare",), {"cpp_sources": [entry_declaration(source, entry)],
                                                       "cuda_sources": [source], "functions": [entry]})]  # fmt: skip
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    names = _bindings(tree)
    specs = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _callee(node.func) == "load_inline"):
            continue
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            continue
        args = [_value(a, names) for a in node.args[: len(_SPEC_ARGS)]]
        kwargs = {k.arg: _value(k.value, names) for k in node.keywords if k.arg in _SPEC_ARGS}
        if _UNKNOWN in args or _UNKNOWN in kwargs.values():
            continue
        specs.append(torch_build.spec_from_call(tuple(args), kwargs))
    return specs


def _callee(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _bindings(tree: ast.Module) -> dict[str, ast.expr | None]:
    """Each name assigned exactly once anywhere in the file, to its expression (None: ambiguous)."""
    found: dict[str, ast.expr | None] = {}
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        value: ast.expr | None = None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        elif isinstance(node, (ast.AugAssign, ast.For, ast.With, ast.NamedExpr)):
            # rebinding of any kind makes the name's value a run-time matter
            for sub in ast.walk(node.target if isinstance(node, (ast.AugAssign, ast.For, ast.NamedExpr)) else node):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    found[sub.id] = None
            continue
        for target in targets:
            if isinstance(target, ast.Name):
                found[target.id] = value if target.id not in found else None
            else:
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Name):
                        found[sub.id] = None
    return found


def _value(node: ast.expr, names: dict[str, ast.expr | None], depth: int = 0) -> Any:
    if depth > 20:
        return _UNKNOWN
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool, type(None))):
        return node.value
    if isinstance(node, ast.Name):
        bound = names.get(node.id)
        return _UNKNOWN if bound is None else _value(bound, names, depth + 1)
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_value(e, names, depth + 1) for e in node.elts]
        return _UNKNOWN if _UNKNOWN in items else items
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _value(node.left, names, depth + 1), _value(node.right, names, depth + 1)
        if isinstance(left, str) and isinstance(right, str) or isinstance(left, list) and isinstance(right, list):
            return left + right
        return _UNKNOWN
    if isinstance(node, ast.JoinedStr):
        parts = []
        for piece in node.values:
            if isinstance(piece, ast.Constant):
                parts.append(str(piece.value))
            elif isinstance(piece, ast.FormattedValue) and piece.conversion == -1 and piece.format_spec is None:
                inner = _value(piece.value, names, depth + 1)
                if not isinstance(inner, (str, int)) or isinstance(inner, bool):
                    return _UNKNOWN
                parts.append(str(inner))
            else:
                return _UNKNOWN
        return "".join(parts)
    return _UNKNOWN


class BuildPool:
    """Extension builds on CPU threads, one per content address, shared by everyone who asks."""

    def __init__(self, cache_dir: Path, workers: int | None = None):
        self.cache_dir = cache_dir
        # each build runs two compilers at once (g++ for the binding, nvcc for the kernels); two cores
        # stay for the device turn's own process
        self.workers = workers or max(1, ((os.cpu_count() or 2) - 2) // 2)
        self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="torch-build")
        self._futures: dict[str, Future[torch_build.BuildResult]] = {}
        self._lock = threading.Lock()

    def submit(self, spec: dict[str, Any], target: str) -> Future[torch_build.BuildResult]:
        key = torch_build.build_key(spec, target)
        with self._lock:
            future = self._futures.get(key)
            if future is None:
                future = self._pool.submit(torch_build.build, spec, target, self.cache_dir)
                self._futures[key] = future
            return future

    def pending(self, spec: dict[str, Any], target: str) -> Future[torch_build.BuildResult] | None:
        with self._lock:
            return self._futures.get(torch_build.build_key(spec, target))

    def build(self, spec: dict[str, Any], target: str) -> tuple[torch_build.BuildResult, float, bool]:
        """The build of `spec`: (result, seconds waited here, whether it was started before the ask).
        A spec nobody prebuilt is built now, in the caller's thread."""
        began = time.monotonic()
        future = self.pending(spec, target)
        if future is not None:
            result = future.result()
            if not result.ok or (result.library and Path(result.library).is_file()):
                return result, time.monotonic() - began, True
        # nobody prebuilt it (or its library went from the cache since): build it here, now
        return torch_build.build(spec, target, self.cache_dir), time.monotonic() - began, False

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
