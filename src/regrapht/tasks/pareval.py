"""`regrapht tasks import pareval PATH`: task folders from a ParEval checkout the user has.

ParEval (github.com/parallelcodefoundry/ParEval) keeps, per problem, a prompt per programming model
(`prompts/raw/<category>/<problem>/cuda`: a comment and a `__global__` kernel's signature) and a
driver (`drivers/cpp/benchmarks/<category>/<problem>/gpu.cu`, beside `baseline.hpp`, the serial
reference on std containers). The importer writes one kernel-convention task folder per problem
(docs/task-format.md):

- signature and description from the prompt, struct definitions from its preamble;
- the launch from the driver's `init()` (`gridSize = dim3((N + blockSize.x - 1) / blockSize.x)`:
  at least N threads in blocks of `blockSize`);
- array lengths from `ALLOC(ctx->d_x, EXPR * sizeof(T))`, inputs from `fillRand(ctx->h_x, lo, hi)`,
  outputs' starting values from what `reset()` copies into them;
- the serial reference: `baseline.hpp` as it is, behind a wrapper with the kernel's parameters that
  makes the driver's `best()` call on std containers;
- ParEval's tolerance (absolute, at one size) kept and noted in the description;
- the bench size from `drivers/problem-sizes.json`, test sizes from the same size expressions.

A problem that does not follow these patterns is reported as needing a hand, with the reason:
nothing is guessed. ParEval's files are read from the user's copy and written only into the user's
output folder.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from regrapht.tasks.pareval_read import (
    C_TYPES,
    ArraySpec,
    NeedsHand,
    Param,
    Sizes,
    context_fields,
    expression,
    function_body,
    integer,
    prompt_structs,
    read_prompt,
    strip_comments,
    task_id_for,
)
from regrapht.tasks.pareval_write import host_preamble, serial_source, task_toml

_SMALL = 7  # an odd test size beside a larger one
_SMALL_POW2 = 8
_LARGE = 512  # ParEval validates at 512 or 1024; 512 keeps O(N^3) references quick


@dataclass
class Problem:
    name: str  # "42_sort_sorted_ranks"
    category: str
    driver: Path  # the folder with gpu.cu and baseline.hpp
    prompt: Path


@dataclass
class Imported:
    name: str
    task_id: str
    folder: Path | None = None
    needs_hand: str = ""  # why no folder was written
    notes: list[str] = field(default_factory=list)


def find_problems(root: Path) -> list[Problem]:
    """The CUDA problems of a ParEval checkout, in order."""
    benchmarks = root / "drivers" / "cpp" / "benchmarks"
    if not benchmarks.is_dir() or not (root / "prompts" / "raw").is_dir():
        raise FileNotFoundError(f"{root}: not a ParEval checkout (no drivers/cpp/benchmarks/ and prompts/raw/)")
    return [
        Problem(gpu.parent.name, gpu.parent.parent.name, gpu.parent, root / "prompts" / "raw" / gpu.parent.parent.name / gpu.parent.name / "cuda")
        for gpu in sorted(benchmarks.glob("*/*/gpu.cu"))
    ]


def import_all(root: Path, out: Path, only: set[str] | None = None) -> list[Imported]:
    """Convert every CUDA problem (or those named in `only`) into `out/<task id>/`."""
    path = root / "drivers" / "problem-sizes.json"
    sizes = json.loads(path.read_text()) if path.is_file() else {}
    results = []
    for problem in find_problems(root):
        if only and problem.name not in only and task_id_for(problem.name) not in only:
            continue
        result = Imported(problem.name, task_id_for(problem.name))
        try:
            files = convert(problem, str((sizes.get(problem.name) or {}).get("cuda", "")), result.notes)
        except NeedsHand as exc:
            result.needs_hand = str(exc)
        except (OSError, UnicodeDecodeError) as exc:
            result.needs_hand = f"cannot read its files: {exc}"
        else:
            folder = out / result.task_id
            folder.mkdir(parents=True, exist_ok=True)
            for filename, content in files.items():
                (folder / filename).write_text(content)
            result.folder = folder
        results.append(result)
    return results


# ---- one problem --------------------------------------------------------------------------------


def convert(problem: Problem, size_text: str, notes: list[str]) -> dict[str, str]:
    """The task folder's files for one problem: task.toml and serial.cpp."""
    if not problem.prompt.is_file():
        raise NeedsHand("no CUDA prompt (prompts/raw/.../cuda)")
    kernel, params, description, preamble = read_prompt(problem.prompt.read_text())
    structs = prompt_structs(preamble)
    driver = strip_comments((problem.driver / "gpu.cu").read_text())
    baseline = (problem.driver / "baseline.hpp").read_text()
    members = context_fields(driver)
    init, reset, compute, best = (function_body(driver, n) for n in ("init", "reset", "compute", "best"))
    validate = function_body(driver, "validate")
    sizes = Sizes(init)

    # what compute() passes for each parameter
    call = re.search(rf"\b{kernel}\s*<<<\s*ctx->(\w+)\s*,\s*ctx->(\w+)\s*>>>\s*\((.*?)\)\s*;", compute, re.S)
    if call is None:
        raise NeedsHand(f"compute() does not launch {kernel}<<<ctx->gridSize, ctx->blockSize>>>(...)")
    passed = [a.strip() for a in _split(call.group(3))]
    if len(passed) != len(params):
        raise NeedsHand(f"compute() passes {len(passed)} arguments to a kernel of {len(params)} parameters")
    member_of: dict[str, str] = {}
    for p, arg in zip(params, passed):
        m = re.fullmatch(r"ctx->(\w+)", arg)
        if m is None:
            raise NeedsHand(f"compute() passes {arg!r} for {p.name}, not a member of the Context")
        member_of[p.name] = m.group(1)

    size_params = [p for p in params if not p.pointer and member_of[p.name] in sizes.fields]
    if not size_params:
        raise NeedsHand("no kernel parameter is a size set from DRIVER_PROBLEM_SIZE in init()")
    size_names: dict[str, str] = {}  # member -> the first size parameter that receives it
    for p in size_params:
        size_names.setdefault(member_of[p.name], p.name)
    scalars = _scalars(params, size_params, member_of, init + reset)

    grid_member, block_member = call.group(1), call.group(2)
    threads, block = _launch(init, grid_member, block_member, sizes, size_names)

    pow2 = bool(re.search(r"power of (2|two)", description + baseline, re.I)) or "log2(" in baseline
    bench_p = integer(size_text) if size_text else None
    if bench_p is None:
        raise NeedsHand("drivers/problem-sizes.json has no cuda size for it")
    test_values = _test_problem_sizes(pow2, bench_p)

    def at(p: int) -> dict[str, int]:
        return {
            q.name: integer(sizes.fields[member_of[q.name]].replace("DRIVER_PROBLEM_SIZE", f"({p})"))
            for q in size_params
        }

    bench = at(bench_p)
    tests = [at(v) for v in test_values]
    if any(v <= 0 for s in [bench, *tests] for v in s.values()):
        raise NeedsHand(f"a size is zero or negative at the test sizes ({tests})")

    arrays = [_array(p, structs, member_of[p.name], init, sizes, size_names) for p in params if p.pointer]
    _sources(arrays, reset, members, notes)
    tolerance = _tolerance(validate)
    scalar_members = {member_of[name]: name for name in scalars}
    call_code = _baseline_call(best, arrays, {**size_names, **scalar_members}, members)

    structs_used = {a.dtype for a in arrays if a.dtype in structs}
    serial = serial_source(kernel, params, arrays, call_code, baseline, members, host_preamble(preamble))
    toml = task_toml(
        problem, kernel, params, arrays, scalars, structs, structs_used, description, preamble,
        tolerance, threads, block, pow2, size_params, tests, bench,
    )
    return {"task.toml": toml, "serial.cpp": serial}


def _split(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for ch in text:
        depth += (ch in "([") - (ch in ")]")  # not < >: `ctx->x` has one
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    return [p for p in [*parts, current] if p.strip()]


def _scalars(params: list[Param], size_params: list[Param], member_of: dict[str, str], body: str) -> dict[str, str]:
    """Non-size value parameters set to a literal in init() or reset()."""
    out = {}
    for p in params:
        if p.pointer or p in size_params:
            continue
        m = re.search(rf"ctx->{member_of[p.name]}\s*=\s*(-?[\d.]+(?:[eE][+-]?\d+)?)[fFuUlL]*\s*;", body)
        if m is None:
            raise NeedsHand(f"the value of {p.name} is not a literal the driver sets in init() or reset()")
        out[p.name] = m.group(1)
    return out


_GRID_DIM = re.compile(r"^\(\s*(.+?)\s*\+\s*ctx->(\w+)\.([xyz])\s*-\s*1\s*\)\s*/\s*ctx->\2\.\3$")


def _launch(init: str, grid: str, block: str, sizes: Sizes, size_names: dict[str, str]) -> tuple[list[str], list[str]]:
    b = re.search(rf"ctx->{block}\s*=\s*dim3\(([^;]*)\)\s*;", init)
    g = re.search(rf"ctx->{grid}\s*=\s*dim3\(((?:[^;])*)\)\s*;", init)
    if b is None or g is None:
        raise NeedsHand("init() does not set the grid and block as dim3(...)")
    block_dims = [x.strip() for x in _split(b.group(1))]
    if not all(re.fullmatch(r"\d+", x) for x in block_dims):
        raise NeedsHand(f"the block size {b.group(1).strip()!r} is not made of integers")
    threads = []
    for dim in _split(g.group(1)):
        m = _GRID_DIM.match(dim.strip())
        if m is None or m.group(2) != block:
            raise NeedsHand(f"the grid {dim.strip()!r} is not `(THREADS + block - 1) / block`")
        threads.append(expression(m.group(1), sizes, size_names))
    if len(threads) != len(block_dims):
        raise NeedsHand("the grid and the block have different dimensions")
    return threads, block_dims


def _test_problem_sizes(pow2: bool, bench: int) -> list[int]:
    small = _SMALL_POW2 if pow2 else _SMALL
    return [small, min(_LARGE, max(small * 2, bench // 2))]


def _array(p: Param, structs: dict, member: str, init: str, sizes: Sizes, size_names: dict[str, str]) -> ArraySpec:
    dtype = structs and p.c_type in structs and p.c_type or C_TYPES.get(p.c_type)
    if not dtype:
        raise NeedsHand(f"parameter {p.name} has type {p.c_type!r}, which has no dtype")
    if p.fixed_length:
        return ArraySpec(p, dtype, p.fixed_length, member)
    m = re.search(rf"ALLOC\(\s*ctx->{member}\s*,\s*(.*?)\)\s*;", init)
    if m is None:
        raise NeedsHand(f"init() does not ALLOC ctx->{member}")
    size = m.group(1).strip()
    if re.fullmatch(r"sizeof\([^)]*\)", size):
        return ArraySpec(p, dtype, "1", member)
    count = re.fullmatch(r"(.*?)\s*\*\s*sizeof\([^)]*\)", size)
    if count is None:
        raise NeedsHand(f"ALLOC(ctx->{member}, {size}) is not COUNT * sizeof(T)")
    return ArraySpec(p, dtype, expression(count.group(1), sizes, size_names), member)


def _norm(name: str) -> str:
    return re.sub(r"^(d_|h_|cpu|host|dev)", "", name).lower()


def _sources(arrays: list[ArraySpec], reset: str, members: dict[str, str], notes: list[str]) -> None:
    """Each array's host member, generator, starting value and role, from reset()."""
    fills = {m.group(1): (m.group(2), m.group(3)) for m in re.finditer(r"fillRand\(\s*ctx->(\w+)\s*,\s*([^,]+?)\s*,\s*([^)]+?)\s*\)\s*;", reset)}
    fills.update(_rand_loops(reset))
    others = re.findall(r"(fill\w+)\(\s*ctx->(\w+)", reset)
    hosts = [name for name, t in members.items() if not t.endswith("*") and ("vector" in t or "array" in t)]
    claimed: set[str] = set()
    for a in arrays:
        member = a.member
        copy = re.search(rf"COPY_H2D\(\s*ctx->{member}\s*,\s*ctx->(\w+)\.data\(\)", reset)
        host = copy.group(1) if copy else next((h for h in hosts if _norm(h) == _norm(member)), None)
        a.host = host
        if host:
            claimed.add(host)
        scalar = re.search(rf"(\w+)\s+(\w+)\s*=\s*(-?[\d.]+(?:[eE][+-]?\d+)?)\s*;\s*COPY_H2D\(\s*ctx->{member}\s*,\s*&\2", reset)
        if host and host in fills:
            a.generator = _generator(a, *fills[host])
        elif host and (m := re.search(rf"(?:std::fill\(\s*ctx->{host}\.begin\(\)\s*,\s*ctx->{host}\.end\(\)\s*,|ctx->{host}\.fill\()\s*(-?[\d.]+)", reset)):
            a.initial = _number(m.group(1))
        elif scalar:
            a.initial = _number(scalar.group(3))
    # struct or complex inputs filled field by field from vectors of their own (`h_x`, `h_y`)
    loose = [fills[h] for h in fills if h not in claimed]
    for a in arrays:
        compound = a.dtype not in C_TYPES.values() or a.dtype.startswith("complex")
        if a.generator is None and a.initial is None and compound and loose and len(set(loose)) == 1:
            a.generator = _generator(a, *loose[0], compound=True)
            notes.append(f"{a.param.name}: every field drawn by fillRand({', '.join(loose[0])}), as the driver fills them")
    for a in arrays:
        uploaded = re.search(rf"COPY_H2D\(\s*ctx->{a.member}\s*,\s*ctx->\w+\.data\(\)", reset)
        if a.param.const or (uploaded and a.generator is None and a.initial is None):
            if a.generator is None:
                how = next((f for f, m in others if m == a.host), None)
                raise NeedsHand(
                    f"the driver fills {a.param.name} "
                    + (f"with {how}(...)" if how else "in a way the importer does not read")
                    + " (write gen.py)"
                )
            a.role = "input"
        elif a.generator is not None:
            a.role = "inout"
        else:
            a.role = "output"


_UNIFORM = r"\(\s*rand\(\)\s*/\s*\(double\)\s*RAND_MAX\s*\)\s*\*\s*([\d.]+)\s*\+\s*(-?[\d.]+)"


def _rand_loops(reset: str) -> dict[str, tuple[str, str]]:
    """Element-wise draws in a loop: `ctx->h_x[i] = rand() % K;` (integers in [0, K)) and
    `ctx->h_p[i].f = (rand() / (double) RAND_MAX) * A + B;` (uniform in [B, B + A]), each field of a
    struct drawn alike."""
    found: dict[str, set[tuple[str, str]]] = {}
    for m in re.finditer(r"ctx->(\w+)\[\w+\]\s*=\s*rand\(\)\s*%\s*(\d+)\s*;", reset):
        found.setdefault(m.group(1), set()).add(("0", m.group(2)))
    for m in re.finditer(rf"ctx->(\w+)\[\w+\](?:\.\w+)?\s*=\s*{_UNIFORM}\s*;", reset):
        low = float(m.group(3))
        found.setdefault(m.group(1), set()).add((repr(low), repr(low + float(m.group(2)))))
    return {name: draws.pop() for name, draws in found.items() if len(draws) == 1}


def _number(text: str) -> float | int:
    return float(text) if any(c in text for c in ".eE") else int(text)


def _generator(a: ArraySpec, low: str, high: str, compound: bool = False) -> dict:
    lo, hi = _literal(low), _literal(high)
    struct = a.dtype not in C_TYPES.values()  # a struct's fields are drawn alike (see _sources)
    floats = a.dtype in ("float32", "float64", "complex64", "complex128") or compound or struct
    if a.dtype == "bool" and (lo, hi) in ((0, 1), (0, 2)):
        return {"kind": "integers", "low": 0, "high": 2}
    if floats:
        return {"kind": "uniform", "low": float(lo), "high": float(hi)}
    return {"kind": "integers", "low": int(lo), "high": int(hi)}  # rand() % (max - min) + min


def _literal(text: str) -> float:
    if text in ("true", "false"):
        return float(text == "true")
    try:
        return float(text.rstrip("fFuUlL"))
    except ValueError:
        raise NeedsHand(f"fillRand's bound {text!r} is not a number") from None


def _tolerance(validate: str) -> float | None:
    """ParEval's absolute tolerance; None when it compares exactly."""
    m = re.search(r"fequal\([^;]*?,\s*([\d.]+(?:[eE][+-]?\d+)?)\s*\)", validate) or re.search(
        r"std::abs\([^;]*?\)\s*>\s*([\d.]+(?:[eE][+-]?\d+)?)", validate
    )
    return float(m.group(1)) if m else None


def _baseline_call(best: str, arrays: list[ArraySpec], size_names: dict[str, str], members: dict[str, str]) -> str:
    m = re.search(r"(?:([\w:<>]+)\s+(\w+)\s*=\s*)?(correct\w+)\s*\((.*?)\)\s*;", best, re.S)
    if m is None:
        raise NeedsHand("best() does not call a correct...() baseline")
    by_host = {a.host: a for a in arrays if a.host}
    args = []
    for arg in _split(m.group(4)):
        arg = arg.strip()
        ref = re.fullmatch(r"ctx->(\w+)", arg)
        alias = ref and next((a for a in arrays if _norm(a.member) == _norm(ref.group(1))), None)
        if ref and ref.group(1) not in by_host and alias and ref.group(1) in members:
            # best() reads another host copy of the same buffer (h_x beside the tmp_x it uploads)
            alias.host = ref.group(1)
            by_host[ref.group(1)] = alias
        if ref and ref.group(1) in by_host:
            args.append(f"v_{by_host[ref.group(1)].param.name}")
        elif ref and ref.group(1) in size_names:
            args.append(size_names[ref.group(1)])
        elif re.fullmatch(r"-?[\d.]+", arg):
            args.append(arg)
        else:
            raise NeedsHand(f"best() passes {arg!r} to the baseline, which the importer cannot map")
    call = f"{m.group(3)}({', '.join(args)})"
    if not m.group(1):
        return call + ";"
    unread = [a for a in arrays if a.role == "output" and f"v_{a.param.name}" not in args and a.length == "1"]
    if len(unread) != 1:
        raise NeedsHand("the baseline returns its result, and no single scalar output receives it")
    unread[0].host = None
    return f"*{unread[0].param.name} = {call};"
