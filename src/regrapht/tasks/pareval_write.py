"""Writing an imported ParEval problem (tasks/pareval.py reads it): serial.cpp, the baseline behind a
wrapper with the kernel's parameters, and task.toml."""

from __future__ import annotations

import json
import re

from regrapht.tasks.pareval_read import C_TYPES, ArraySpec, NeedsHand, Param, task_id_for

_SERIAL_HEADERS = [
    *("algorithm", "array", "cassert", "cfloat", "climits", "cmath", "complex", "cstddef", "cstdint"),
    *("cstdlib", "cstring", "functional", "limits", "map", "numeric", "queue", "set", "stack", "stdexcept"),
    *("string",),
    *("tuple", "type_traits", "unordered_map", "unordered_set", "utility", "vector"),
]

_HELPERS = """
// Between the kernel's buffers and the baseline's std containers (same element layout).
template <class T> static void rg_resize(std::vector<T>& v, size_t n) { v.assign(n, T()); }
template <class T, size_t K> static void rg_resize(std::array<T, K>& a, size_t) { a.fill(T()); }
template <class C, class P> static void rg_load(C& c, const P* p, size_t n) {
    rg_resize(c, n);
    if constexpr (std::is_same<typename C::value_type, bool>::value) {  // std::vector<bool> packs bits
        for (size_t i = 0; i < n; ++i) c[i] = p[i];
    } else {
        static_assert(sizeof(typename C::value_type) == sizeof(P), "the baseline's element type differs from the kernel's");
        if (n) std::memcpy((void*)&c[0], (const void*)p, n * sizeof(P));
    }
}
template <class C, class P> static void rg_store(const C& c, P* p, size_t n) {
    // An output the baseline leaves shorter (a convex hull of fewer points than the buffer holds)
    // has no defined value past its end: such a problem needs a checker of its own (check.py).
    if ((size_t)c.size() < n) throw std::length_error("regrapht: the baseline's result is shorter than the kernel's output buffer; this problem needs a check.py");
    size_t k = n;
    if constexpr (std::is_same<typename C::value_type, bool>::value) {
        for (size_t i = 0; i < k; ++i) p[i] = c[i];
    } else {
        static_assert(sizeof(typename C::value_type) == sizeof(P), "the baseline's element type differs from the kernel's");
        if (k) std::memcpy((void*)p, (const void*)&c[0], k * sizeof(P));
    }
}
"""


def _c_length(length: str) -> str:
    return "(size_t)(" + length.replace("//", "/") + ")"


def host_preamble(preamble: str) -> str:
    """The prompt's declarations the baseline may use (`__constant__` tables, `__device__` helpers),
    as host code; its structs come from the task's [[structs]]."""
    code = re.sub(r"struct\s+\w+\s*\{[^}]*\}\s*;", "", preamble)
    code = re.sub(r"__constant__\s+", "static const ", code)
    code = re.sub(r"__device__\s+", "static ", code)
    return code.strip()


def serial_source(
    kernel: str,
    params: list[Param],
    arrays: list[ArraySpec],
    call: str,
    baseline: str,
    members: dict[str, str],
    preamble: str = "",
) -> str:
    body = []
    for a in arrays:
        if a.host is None:
            continue
        container = members.get(a.host)
        if container is None:
            raise NeedsHand(f"the Context declares no {a.host}")
        n = _c_length(a.length)
        body.append(f"    {container} v_{a.param.name};")
        if a.role == "output" and a.initial is None:
            body.append(f"    rg_resize(v_{a.param.name}, {n});")
        else:
            body.append(f"    rg_load(v_{a.param.name}, {a.param.name}, {n});")
    body.append(f"    {call}")
    for a in arrays:
        if a.host is not None and a.role != "input":
            body.append(f"    rg_store(v_{a.param.name}, {a.param.name}, {_c_length(a.length)});")
    signature = ", ".join(_c_param(p) for p in params)
    baseline = re.sub(r"^\s*#\s*pragma\s+once\s*$", "", baseline, flags=re.M)
    includes = "\n".join(f"#include <{h}>" for h in _SERIAL_HEADERS)
    complex_header = "#include <cuComplex.h>\n" if any(a.dtype.startswith("complex") for a in arrays) else ""
    return (
        "// Imported by `regrapht tasks import pareval`: ParEval's baseline.hpp, unchanged, and a wrapper\n"
        "// with the kernel's parameters that makes the driver's best() call.\n"
        f"{includes}\n{complex_header}\n#define NO_INLINE\n#define NO_OPTIMIZE\n\n"
        + (f"// ---- the prompt's declarations ----\n{preamble}\n\n" if preamble else "")
        + f"// ---- baseline.hpp ----\n{baseline.strip()}\n// ---- end of baseline.hpp ----\n{_HELPERS}\n"
        f"void {kernel}({signature}) {{\n" + "\n".join(body) + "\n}\n"
    )


def _c_param(p: Param) -> str:
    return f"{'const ' if p.const else ''}{p.c_type}{'*' if p.pointer else ''} {p.name}"


def _q(text: str) -> str:
    return json.dumps(text)  # a TOML basic string


def task_toml(problem, kernel, params, arrays, scalars, structs, structs_used, description, preamble,
          tolerance, threads, block, pow2, size_params, tests, bench) -> str:
    by_name = {a.param.name: a for a in arrays}
    note = (
        f" ParEval's check, kept here: |actual - expected| <= {tolerance:g} (absolute), at one size."
        if tolerance is not None
        else " ParEval compares the results exactly."
    )
    prompt_note = f" The prompt also declares: {' '.join(preamble.split())}" if preamble else ""
    lines = [
        f"# Imported from ParEval {problem.category}/{problem.name} by `regrapht tasks import pareval`.",
        f"id = {_q(task_id_for(problem.name))}",
        f"title = {_q('ParEval ' + problem.name)}",
        f"category = {_q(problem.category)}",
        'difficulty = "medium"',
        'split = "example"',
        f"function = {_q(kernel)}",
        f"signature = {_q('__global__ void ' + kernel + '(' + ', '.join(_c_param(p) for p in params) + ')')}",
        'convention = "kernel"',
        f"description = {_q(description + prompt_note + note)}",
    ]
    if pow2:
        lines.append(f"require = [{_q('is_pow2(' + size_params[0].name + ')')}]")
    for name in sorted(structs_used):
        fields = ", ".join(f"{{ name = {_q(f)}, dtype = {_q(d)} }}" for f, d in structs[name])
        lines += ["", "[[structs]]", f"name = {_q(name)}", f"fields = [{fields}]"]
    for p in params:
        lines += ["", "[[args]]", f"name = {_q(p.name)}"]
        if p.name in by_name:
            a = by_name[p.name]
            lines += [f"role = {_q(a.role)}", f"dtype = {_q(a.dtype)}"]
            if not (a.role == "output" and a.length == "1"):
                lines.append(f"length = {_q(a.length)}")
            if a.generator is not None:
                gen = ", ".join(f"{k} = {_q(v) if isinstance(v, str) else repr(v)}" for k, v in a.generator.items())
                lines.append(f"generator = {{ {gen} }}")
            if a.initial is not None:
                lines.append(f"initial = {a.initial!r}")
            if a.role != "input":
                lines.append(f"tolerance = {_tolerance_toml(a, structs, tolerance)}")
        elif p.name in scalars:
            lines += ['role = "scalar"', f"dtype = {_q(C_TYPES[p.c_type])}", f"value = {scalars[p.name]}"]
        else:
            lines += ['role = "size"', f"dtype = {_q(C_TYPES.get(p.c_type, 'uint64'))}"]
    lines += ["", "[launch]", f"threads = [{', '.join(_q(t) for t in threads)}]", f"block = [{', '.join(block)}]"]
    lines += ["", "[sizes]", f"test = [{', '.join(_inline(t) for t in tests)}]", f"bench = {_inline(bench)}", ""]
    return "\n".join(lines)


def _inline(sizes: dict[str, int]) -> str:
    return "{ " + ", ".join(f"{k} = {v}" for k, v in sizes.items()) + " }"


def _tolerance_toml(a: ArraySpec, structs: dict, tolerance: float | None) -> str:
    floats = a.dtype.startswith(("float", "complex")) or (
        a.dtype in structs and any(d.startswith("float") for _, d in structs[a.dtype])
    )
    if tolerance is None or not floats:
        return '"exact"'
    return f"{{ rtol = 0.0, atol = {tolerance!r} }}"
