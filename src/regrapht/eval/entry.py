"""The code regrapht puts around a candidate: the C-linkage entry point the harness calls, and, for
tasks that need it, a prelude (declared structs, complex types) and the kernel convention's launch.

The entry's parameters are named `__regrapht_a0, __regrapht_a1, ...`, never the task's own names, so
a parameter named like the function (`void ranks(..., int* ranks)`) cannot hide the function it
calls. For a `kernel` task on the cuda target the entry is a host function that launches the
candidate's `__global__` kernel once, on the default stream, with the configuration the task
declares, computed from the sizes it passes: the worker then calls it like any `device` task's
function, with the same guards, poison, checked timed calls and side-stream checks, and reports a
launch the GPU refuses (too many registers for the block, say) with CUDA's own error.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from importlib import resources

from regrapht.tasks import structs
from regrapht.tasks.expr import FUNCTION_NAMES
from regrapht.tasks.model import Task

ENTRY = "__regrapht_entry"
_PARAM = "__regrapht_a"
# Above this many bytes of dynamic shared memory a kernel must opt in before its launch.
_SHARED_OPT_IN = 48 * 1024


class EntryError(ValueError):
    """A task whose candidates the requested build cannot call (a kernel on the cpu target)."""


@dataclass(frozen=True)
class Entry:
    """What goes before and after a source, and the extra compiler flags it needs."""

    prelude: str = ""
    appended: str = ""
    flags: tuple[str, ...] = field(default_factory=tuple)
    # (struct name, C definition): given before a source that does not define the struct itself
    # (ParEval-style answers repeat the prompt's `struct Point`); the appended checks hold either way.
    definitions: tuple[tuple[str, str], ...] = ()

    def wrap(self, source: str, source_name: str) -> str:
        missing = [d for name, d in self.definitions if not structs.defines_struct(source, name)]
        prelude = "\n".join(p for p in (self.prelude, *missing) if p)
        head = f'{prelude}\n#line 1 "{source_name}"\n' if prelude else ""
        return head + source + self.appended


def renamed_params(signature_params: str, names: list[str]) -> list[str]:
    """`const float* x, int n` -> `const float* __regrapht_a0, int __regrapht_a1`."""
    parts = [p.strip() for p in signature_params.split(",")] if signature_params.strip() not in ("", "void") else []
    if len(parts) != len(names):
        raise ValueError(f"signature parameters {signature_params!r} do not match names {names}")
    out = []
    for i, (part, name) in enumerate(zip(parts, names)):
        typed = re.sub(rf"\b{re.escape(name)}\s*$", "", part).rstrip()
        out.append(f"{typed} {_PARAM}{i}")
    return out


def call_shim(function: str, signature_params: str, names: list[str]) -> str:
    """The plain entry: calls the host function with the harness's arguments."""
    params = renamed_params(signature_params, names)
    args = ", ".join(f"{_PARAM}{i}" for i in range(len(names)))
    return (
        "\n\n// ---- appended by regrapht: the entry point the harness calls ----\n"
        f'extern "C" void {ENTRY}({", ".join(params)}) {{ {function}({args}); }}\n'
    )


def for_task(task: Task, kind: str) -> Entry | None:
    """The entry for building `task`'s code as `kind` (cuda, cpu, serial); None: the plain call shim
    and no prelude (every task of the first format)."""
    needs_prelude = any(a.dtype.is_compound for a in task.args)
    if task.convention != "kernel" and not needs_prelude:
        return None
    if task.convention == "kernel" and kind == "cpu":
        raise EntryError(
            f"task {task.id} uses the kernel convention: its candidates are CUDA __global__ kernels, "
            "which the cpu target cannot run; evaluate it on the cuda target"
        )
    params = task.signature[task.signature.index("(") + 1 : task.signature.rindex(")")]
    names = [a.name for a in task.args]
    prelude, flags = _prelude(task, kind)
    if task.convention == "kernel" and kind == "cuda":
        appended = _launch_shim(task, params, names)
    else:
        appended = call_shim(task.function, params, names)
    definitions = tuple((dt.name, structs.c_definition(dt)) for dt in task.structs)
    return Entry(prelude, _struct_checks(task) + appended, tuple(flags), definitions)


def _prelude(task: Task, kind: str) -> tuple[str, list[str]]:
    """Headers and struct definitions the signature's types need; `#line 1` follows them, so the
    candidate's own line numbers are unchanged."""
    lines: list[str] = []
    flags: list[str] = []
    if any(a.dtype.is_complex for a in task.args):
        lines.append("#include <cuComplex.h>")
        if kind != "cuda":
            flags.append(f"-I{resources.files('regrapht') / 'data' / 'include'}")
    if task.structs:
        lines.append("#include <cstddef>")
    return "\n".join(lines), flags


def _struct_checks(task: Task) -> str:
    if not task.structs:
        return ""
    return "\n\n// ---- appended by regrapht: the task's structs, checked against their declaration ----\n" + "\n".join(
        structs.layout_assertions(dt) for dt in task.structs
    )


# ---- the kernel launch ----------------------------------------------------------------------------

_HELPERS = """
static inline long long __regrapht_floordiv(long long a, long long b) { long long q = a / b; return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; }
static inline long long __regrapht_mod(long long a, long long b) { long long r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }
static inline long long __regrapht_pow(long long a, long long b) { long long r = 1; while (b-- > 0) r *= a; return r; }
static inline long long __regrapht_min(long long a, long long b) { return a < b ? a : b; }
static inline long long __regrapht_max(long long a, long long b) { return a > b ? a : b; }
static inline long long __regrapht_ceil_div(long long a, long long b) { return -__regrapht_floordiv(-a, b); }
static inline long long __regrapht_log2(long long a) { long long r = -1; while (a > 0) { a >>= 1; ++r; } return r; }
static inline long long __regrapht_ceil_log2(long long a) { return a <= 1 ? 0 : __regrapht_log2(a - 1) + 1; }
static inline long long __regrapht_pow2(long long a) { return 1LL << a; }
static inline long long __regrapht_is_pow2(long long a) { return a > 0 && (a & (a - 1)) == 0; }
"""

_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*"}
_CALLS = {ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow"}


def c_expression(text: str, params: dict[str, str]) -> str:
    """An integer size expression as C++ over the entry's parameters (64-bit arithmetic, Python's
    floor division and modulo). The loader has already checked the names and the values."""
    return _c(ast.parse(text.strip(), mode="eval").body, params)


def _c(node: ast.AST, params: dict[str, str]) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return f"{node.value}LL"
    if isinstance(node, ast.Name):
        return f"((long long)({params[node.id]}))"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return f"(-{_c(node.operand, params)})"
    if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
        return f"({_c(node.left, params)} {_BINOPS[type(node.op)]} {_c(node.right, params)})"
    if isinstance(node, ast.BinOp) and type(node.op) in _CALLS:
        return f"__regrapht_{_CALLS[type(node.op)]}({_c(node.left, params)}, {_c(node.right, params)})"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FUNCTION_NAMES:
        args = [_c(a, params) for a in node.args]
        if node.func.id in ("min", "max"):
            folded = args[0]
            for a in args[1:]:
                folded = f"__regrapht_{node.func.id}({folded}, {a})"
            return folded
        return f"__regrapht_{node.func.id}({', '.join(args)})"
    raise ValueError(f"cannot translate {ast.dump(node)} to C")


def _launch_shim(task: Task, signature_params: str, names: list[str]) -> str:
    launch = task.launch
    assert launch is not None, f"task {task.id}: a kernel task without [launch]"
    params = renamed_params(signature_params, names)
    by_name = {name: f"{_PARAM}{i}" for i, name in enumerate(names)}
    grid = ", ".join(f"(unsigned)({c_expression(g, by_name)})" for g in launch.grid)
    block = ", ".join(f"(unsigned)({c_expression(b, by_name)})" for b in launch.block)
    shared = c_expression(launch.shared, by_name)
    args = ", ".join(by_name[n] for n in names)
    return (
        "\n\n// ---- appended by regrapht: the entry point the harness calls; it launches the task's "
        f"kernel: {launch.describe()} ----\n"
        f"{_HELPERS}"
        f'extern "C" void {ENTRY}({", ".join(params)}) {{\n'
        f"    const dim3 __regrapht_grid({grid});\n"
        f"    const dim3 __regrapht_block({block});\n"
        f"    const size_t __regrapht_shared = (size_t)({shared});\n"
        f"    if (__regrapht_shared > {_SHARED_OPT_IN}) cudaFuncSetAttribute({task.function}, "
        "cudaFuncAttributeMaxDynamicSharedMemorySize, (int)__regrapht_shared);\n"
        # An error of the launch itself is left for the worker's check after the call, which names it.
        f"    {task.function}<<<__regrapht_grid, __regrapht_block, __regrapht_shared>>>({args});\n"
        "}\n"
    )
