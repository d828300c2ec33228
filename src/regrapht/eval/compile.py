"""Compiling candidates into shared libraries: content-addressed cache, parallel pool, trimmed errors.

Every source gets a small C-linkage entry point appended (`__regrapht_entry`) that calls the task's
function with the task's declared parameter types. The harness only ever calls that entry, so a
candidate's own linkage does not matter, and a signature that does not match fails at compile time.
Errors that land in that appended code get a hint saying what they mean (data/compile_hints.toml).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from regrapht.eval import toolchain, trace
from regrapht.eval.entry import Entry, call_shim
from regrapht.eval.screen import strip_comments_and_strings

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

Kind = Literal["cuda", "cpu", "serial"]
ENTRY = "__regrapht_entry"
SOURCE_NAMES = {"cuda": "candidate.cu", "cpu": "candidate.cpp", "serial": "serial.cpp"}

# Libraries linked when a source includes their header.
_AUTO_LIBS = {
    "cublas": "-lcublas",
    "cublasLt": "-lcublasLt",
    "cusparse": "-lcusparse",
    "cufft": "-lcufft",
    "curand": "-lcurand",
    "cusolver": "-lcusolver",
}


@dataclass
class CompileResult:
    ok: bool
    kind: str
    library: str | None
    diagnostics: str  # trimmed for a model or a person to act on
    log: str  # the compiler's output, capped
    seconds: float
    cached: bool
    command: list[str]
    key: str
    timed_out: bool = False
    flags: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        return asdict(self)


def default_cache_dir() -> Path:
    base = os.environ.get("REGRAPHT_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "regrapht"
    )
    return Path(base) / "build"


def shim(function: str, signature_params: str, names: list[str]) -> str:
    return call_shim(function, signature_params, names)


def flags_for(kind: Kind, source: str) -> list[str]:
    if kind == "cuda":
        libs = [flag for name, flag in _AUTO_LIBS.items() if re.search(rf"#\s*include\s*[<\"]{name}", source)]
        return [
            "-O3",
            "-std=c++17",
            f"-arch={toolchain.cuda_arch()}",
            "-lineinfo",
            "-Xcompiler",
            "-fPIC",
            "-shared",
            "-cudart",
            "shared",
            "-Xlinker",
            "--no-undefined",
            # NVTX (which CUB includes) would otherwise build a loader that dlopens a profiler's
            # injection library named by an environment variable: nothing a judged kernel needs,
            # and exactly what the symbol screen refuses.
            "-DNVTX_DISABLE",
            *libs,
        ]
    base = ["-O3", "-march=native", "-std=c++17", "-fPIC", "-shared", "-Wl,--no-undefined"]
    if kind == "cpu":
        return [*base, "-fopenmp"]
    # The oracle rounds the same on every host: no fused multiply-add contraction from -march=native.
    return [*base, "-ffp-contract=off"]


def compiler_for(kind: Kind) -> tuple[str | None, str | None]:
    if kind == "cuda":
        return toolchain.nvcc_path(), toolchain.nvcc_version()
    return toolchain.gxx_path(), toolchain.gxx_version()


@dataclass(frozen=True)
class _Build:
    kind: Kind
    function: str
    full: str
    flags: list[str]
    context: dict
    exe: str | None
    key: str
    entry_dir: Path


# Threads for urgent builds, beside the pool's: few, so that they rarely wait, and few enough not to
# crowd the cores the pool's compiles use.
URGENT_JOBS = 2


class Compiler:
    """Compiles sources into shared libraries, caching by content, flags, compiler and architecture."""

    def __init__(self, cache_dir: Path | None = None, timeout_s: float = 180.0, jobs: int | None = None):
        self.cache_dir = Path(cache_dir) if cache_dir else default_cache_dir()
        self.timeout_s = timeout_s
        self.jobs = jobs or toolchain.usable_cores()
        self._pool: ThreadPoolExecutor | None = None
        # Builds that a whole batch waits on (the harness's libraries) skip the candidates' queue: in
        # session 16's trace every bench build waited 5-11 s for the host perturbation library, queued
        # behind 50-110 candidate compiles, and no candidate could start meanwhile.
        self._urgent_pool: ThreadPoolExecutor | None = None
        self._hits_pool: ThreadPoolExecutor | None = None  # answers compiles found in the cache
        self._in_flight: dict[tuple, Future] = {}
        self._lock = threading.Lock()
        # An evaluator's QuietGate (eval/timing_turn.py): a compiler process loads the cores a serial
        # timing runs on, so none starts during one. Cache hits run no process and never wait.
        self.gate: Any = None

    def compile(
        self,
        source: str,
        kind: Kind,
        function: str,
        signature_params: str,
        names: list[str],
        entry: Entry | None = None,
    ) -> CompileResult:
        """`entry` (eval/entry.py): a task's own prelude and entry point (structs, complex types, the
        kernel convention's launch); None appends the plain call."""
        build = self._build(source, kind, function, signature_params, names, entry)
        if build.exe is None:
            missing = "nvcc (the CUDA toolkit)" if kind == "cuda" else "g++"
            return CompileResult(False, kind, None, f"cannot compile: {missing} is not installed", "", 0.0, False, [], "", flags=build.flags)  # fmt: skip
        return self._cached(build) or self._run(build)

    def _build(self, source: str, kind: Kind, function: str, signature_params: str, names: list[str], entry: Entry | None) -> _Build:  # fmt: skip
        """What a compile of this source is: the full text, flags, compiler and cache key."""
        if entry is None:
            full = source + shim(function, signature_params, names)
            flags = flags_for(kind, source)
        else:
            full = entry.wrap(source, SOURCE_NAMES[kind])
            flags = [*flags_for(kind, source), *entry.flags]
        context = {
            "source_lines": source.count("\n") + 1,
            "function": function,
            "signature": f"{function}({signature_params})",
            "empty_source": not strip_comments_and_strings(source).strip(),
        }
        exe, version = compiler_for(kind)
        key_material = json.dumps(
            [kind, full, flags, version, toolchain.cpu_model() if kind != "cuda" else ""]
        )
        key = hashlib.sha256(key_material.encode()).hexdigest()
        return _Build(kind, function, full, flags, context, exe, key, self.cache_dir / key[:2] / key)

    def _cached(self, build: _Build) -> CompileResult | None:
        cached = self._load_cached(build.entry_dir, build.kind, build.key, build.flags)
        if cached is not None and not cached.ok and cached.log:
            # cached failures keep the compiler's log; their hints follow the current rules
            cached.diagnostics = trim_diagnostics(cached.log, SOURCE_NAMES[build.kind], **build.context)
        return cached

    def _run(self, build: _Build) -> CompileResult:
        kind, function, full, flags, context, exe, key, entry_dir = (
            build.kind, build.function, build.full, build.flags, build.context, build.exe, build.key, build.entry_dir)  # fmt: skip
        start = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="regrapht-build-") as tmp:
            src_path = Path(tmp) / SOURCE_NAMES[kind]
            src_path.write_text(full)
            out_path = Path(tmp) / "lib.so"
            command = [exe, *flags, "-o", str(out_path), str(src_path)]
            try:
                asked = time.time()
                with (
                    self.gate.noisy() if self.gate is not None else contextlib.nullcontext(),
                    trace.span("compile", source=kind, function=function, asked=round(asked, 4)),
                ):
                    proc = subprocess.run(
                        command, capture_output=True, text=True, timeout=self.timeout_s, cwd=tmp
                    )
            except subprocess.TimeoutExpired:
                return CompileResult(
                    False,
                    kind,
                    None,
                    f"compilation took longer than {self.timeout_s:.0f} s and was stopped",
                    "",
                    time.perf_counter() - start,
                    False,
                    command,
                    key,
                    True,
                    flags,
                )
            log = (proc.stdout + proc.stderr).replace(tmp + "/", "")
            seconds = time.perf_counter() - start
            ok = proc.returncode == 0 and out_path.is_file()
            diagnostics = "" if ok else trim_diagnostics(log, SOURCE_NAMES[kind], **context)
            result = CompileResult(
                ok,
                kind,
                None,
                diagnostics,
                log[-20000:],
                seconds,
                False,
                [Path(command[0]).name, *command[1:]],
                key,
                False,
                flags,
            )
            self._store(entry_dir, result, out_path if ok else None)
        return result

    def _load_cached(self, entry_dir: Path, kind: str, key: str, flags: list[str]) -> CompileResult | None:
        meta = entry_dir / "result.json"
        if not meta.is_file():
            return None
        try:
            data = json.loads(meta.read_text())
        except (OSError, json.JSONDecodeError):
            return None
        library = entry_dir / "lib.so"
        try:
            if data["ok"] and not library.is_file():
                return None
            data.update(cached=True, library=str(library) if data["ok"] else None, seconds=0.0)
            return CompileResult(**data)
        except (KeyError, TypeError, AttributeError):  # written by another version: compiled again
            return None

    def _store(self, entry_dir: Path, result: CompileResult, library: Path | None) -> None:
        staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=self._ensure(entry_dir.parent)))
        try:
            if library is not None:
                shutil.copy2(library, staging / "lib.so")
            (staging / "result.json").write_text(json.dumps(result.to_dict()))
            try:
                os.replace(staging, entry_dir)
            except OSError:  # another process stored the same key first
                shutil.rmtree(staging, ignore_errors=True)
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)
        result.library = str(entry_dir / "lib.so") if result.ok else None

    @staticmethod
    def _ensure(path: Path) -> Path:
        path.mkdir(parents=True, exist_ok=True)
        return path

    def submit(
        self,
        source: str,
        kind: Kind,
        function: str,
        signature_params: str,
        names: list[str],
        entry: Entry | None = None,
        urgent: bool = False,
    ) -> Future:
        """Compile on the pool; an identical compile already queued or running is shared, not repeated.
        `urgent`: on a small pool of its own, ahead of everything queued (work a batch waits on)."""
        key = (source, kind, function, signature_params, tuple(names), entry)
        # A compile already in the cache costs a file read: it is looked up here and answered on a
        # small pool of its own, not queued behind the pool's real compiles (session 16: a cached
        # candidate waited 1.6 s for a slot, its device idle). Answered there rather than here, what
        # a caller hangs on the result (the symbol screen: binutils, milliseconds) runs off its thread.
        try:
            build = self._build(source, kind, function, signature_params, names, entry)
            cached = self._cached(build) if build.exe is not None else None
        except Exception:  # an unreadable cache entry: the pool compiles, and reports what fails
            cached = None
        if cached is not None:
            with self._lock:
                if self._hits_pool is None:
                    self._hits_pool = ThreadPoolExecutor(max_workers=self.jobs, thread_name_prefix="regrapht-compile-hit")
                return self._hits_pool.submit(lambda: cached)
        with self._lock:
            if key in self._in_flight:
                return self._in_flight[key]
            if urgent:
                if self._urgent_pool is None:
                    self._urgent_pool = ThreadPoolExecutor(max_workers=URGENT_JOBS, thread_name_prefix="regrapht-compile-urgent")
                pool = self._urgent_pool
            else:
                if self._pool is None:
                    self._pool = ThreadPoolExecutor(max_workers=self.jobs, thread_name_prefix="regrapht-compile")
                pool = self._pool
            future = pool.submit(self._queued, time.time(), source, kind, function, signature_params, names, entry)
            self._in_flight[key] = future
        future.add_done_callback(lambda _: self._forget(key))
        return future

    def _queued(self, since: float, *args: Any) -> CompileResult:
        trace.record("compile_queue", since, time.time(), function=args[2])  # the pool's wait, traced
        return self.compile(*args)

    def _forget(self, key: tuple) -> None:
        with self._lock:
            self._in_flight.pop(key, None)

    def close(self) -> None:
        for pool in (self._pool, self._urgent_pool, self._hits_pool):
            if pool is not None:
                pool.shutdown(wait=True)
        self._pool = self._urgent_pool = self._hits_pool = None


_LOCATION = re.compile(r"^(?P<file>[\w.\-/]+?)(?:\((?P<l1>\d+)\)|:(?P<l2>\d+)(?::\d+)?):\s*(?P<rest>.*)$")
# nvcc reports a block left open at the end of the file without a line number.
_END_OF_SOURCE = re.compile(r"^At end of source:.*\berror\b", re.I)


@dataclass(frozen=True)
class ShimHint:
    id: str
    pattern: str  # may hold {function}
    message: str  # may hold {function} and {signature}
    when: str = ""  # "empty": only for a candidate with no code


@functools.cache
def shim_hints() -> tuple[ShimHint, ...]:
    text = (resources.files("regrapht") / "data" / "compile_hints.toml").read_text(encoding="utf-8")
    return tuple(ShimHint(**h) for h in tomllib.loads(text)["hint"])


def shim_hint(errors: list[str], function: str, signature: str, empty_source: bool) -> str | None:
    """What the errors in the appended entry point mean, or None when no hint fits them."""
    text = "\n".join(errors)
    for hint in shim_hints():
        if hint.when == "empty" and not empty_source:
            continue
        if re.search(hint.pattern.replace("{function}", re.escape(function)), text):
            return hint.message.format(function=function, signature=signature)
    return None


def trim_diagnostics(
    log: str,
    source_name: str,
    source_lines: int,
    max_lines: int = 40,
    max_chars: int = 4000,
    *,
    function: str = "",
    signature: str = "",
    empty_source: bool = False,
) -> str:
    """The errors a model needs to fix its code: error lines with their source excerpt, no noise.

    When every error is in the entry point appended after the candidate's `source_lines` lines, a hint
    (data/compile_hints.toml) says what they mean: an empty candidate, an unclosed block, a missing
    function, a kernel where a host function belongs, or a signature that does not match.
    """
    lines = log.splitlines()
    kept: list[str] = []
    own_errors: list[str] = []  # errors in the candidate's lines (or elsewhere)
    shim_errors: list[str] = []  # errors in the appended entry point
    i = 0
    while i < len(lines):
        line = lines[i]
        match = _LOCATION.match(line)
        is_error = bool(re.search(r"\berror\b", line, re.I)) and "warning" not in line.lower()[:60]
        if match and is_error:
            lineno = int(match.group("l1") or match.group("l2"))
            in_shim = match.group("file").endswith(source_name) and lineno > source_lines
            (shim_errors if in_shim else own_errors).append(line)
            kept.append(line)
            # gcc and nvcc print the offending source line and a caret under it.
            for follow in lines[i + 1 : i + 3]:
                if follow.strip() and not _LOCATION.match(follow) and "error" not in follow.lower():
                    kept.append(follow)
            i += 1
            continue
        if _END_OF_SOURCE.match(line):
            shim_errors.append(line)
        if (
            is_error
            and not line.startswith(("nvcc", "compilation terminated"))
            or "undefined reference" in line
        ):
            kept.append(line)
        i += 1
    if not kept:
        kept = [ln for ln in lines if ln.strip()][-max_lines:]
    deduped: list[str] = []
    for line in kept:
        if line not in deduped[-3:]:
            deduped.append(line)
    text = "\n".join(deduped[:max_lines])
    if len(deduped) > max_lines:
        text += f"\n... ({len(deduped) - max_lines} more lines)"
    if shim_errors and not own_errors:
        hint = shim_hint(shim_errors, function, signature or f"{function}(...)", empty_source)
        if hint:
            text = hint + "\n" + text
    return text[:max_chars]
