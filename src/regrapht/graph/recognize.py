"""Static recognition of the optimization methods a CUDA (or OpenMP C++) source already uses.

The source is parsed with tree-sitter's CUDA grammar. Two kinds of signals are used:

- lexical signals, from the taxonomy data (`[method.recognize]` in methods.toml): names of called
  intrinsics, types, namespaces, qualifiers, inline-PTX substrings, include paths and pragmas. They are
  matched on the syntax tree's tokens, so comments and ordinary string literals never count (PTX is
  read only from `asm(...)` strings); pragmas and includes are read from preprocessor lines;
- structural signals that need the tree, keyed by method name in this module: `__global__`
  kernels, grid-stride loops, halving tree reductions, shared-memory tiles that are staged from global
  memory and reused, padded or swizzled shared arrays, register accumulator arrays, privatized and
  warp-aggregated atomics, `const __restrict__` kernel parameters, `__launch_bounds__`,
  `__cluster_dims__`, persistent work loops. Shared memory is followed through its aliases and
  compile-time constants are resolved (recognize_memory.py, recognize_tiles.py); register-resident
  arrays and registers are judged in recognize_registers.py.

Methods with no static signal (memory coalescing, kernel fusion, algorithmic change, ...) are never
reported; `unrecognizable()` lists them. Without tree-sitter, a regex tokenizer stands in for the
lexical signals and the structural ones are skipped (`Recognition.notice` says so).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from regrapht.graph.recognize_memory import SharedFlow, constants, is_constant_expr, padded_pitch
from regrapht.graph.recognize_memory import subscript_index as _subscript_index
from regrapht.graph.recognize_registers import register_arrays, register_cache, runtime_indexed
from regrapht.graph.recognize_tiles import shared_struct_fields, shared_tiles
from regrapht.graph.taxonomy import Taxonomy, default_taxonomy

MAX_EVIDENCE = 6
STRUCTURAL = frozenset(
    {
        "parallelize",
        "grid_stride_loop",
        "launch_config_tuning",
        "shared_memory_tiling",
        "block_tree_reduction",
        "bank_conflict_avoidance",
        "register_tiling",
        "atomic_privatization",
        "read_only_cache",
        "persistent_kernel",
        "loop_unrolling",
        "warp_aggregated_atomics",
    }
)


@dataclass(frozen=True)
class Evidence:
    line: int  # 1-based
    text: str  # the source line, stripped and shortened
    why: str  # which signal fired

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "text": self.text, "why": self.why}


@dataclass
class Recognition:
    """Methods found in a source, each with evidence (sorted by method name)."""

    methods: dict[str, list[Evidence]] = field(default_factory=dict)
    notice: str = ""

    @property
    def names(self) -> list[str]:
        return sorted(self.methods)

    def to_dict(self) -> dict[str, Any]:
        return {
            "methods": {m: [e.to_dict() for e in self.methods[m]] for m in sorted(self.methods)},
            "notice": self.notice,
        }


@dataclass(frozen=True)
class Token:
    text: str
    kind: str  # tree-sitter node type, or "word"/"punct" from the regex tokenizer
    line: int
    in_asm: bool = False


# --------------------------------------------------------------------------- parsing


@lru_cache(maxsize=1)
def _parser() -> Any:
    import tree_sitter_cuda
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_cuda.language()))


def tree_sitter_available() -> bool:
    try:
        _parser()
    except (ImportError, OSError, ValueError):
        return False
    return True


def _walk(node: Any) -> Iterator[Any]:
    cursor = node.walk()
    visited_children = False
    while True:
        if not visited_children:
            yield cursor.node
            if cursor.goto_first_child():
                continue
        if cursor.goto_next_sibling():
            visited_children = False
        elif cursor.goto_parent():
            visited_children = True
        else:
            return


def _text(node: Any) -> str:
    return node.text.decode("utf-8", "replace")


def _tree_tokens(root: Any) -> list[Token]:
    """Leaf tokens in source order; comments and non-asm string contents left out."""
    out: list[Token] = []

    def rec(node: Any, in_asm: bool) -> None:
        t = node.type
        if t == "comment":
            return
        if t == "gnu_asm_expression":
            in_asm = True
        if t in ("string_literal", "raw_string_literal", "char_literal", "system_lib_string") and not in_asm:
            out.append(Token("<str>", "string", node.start_point[0] + 1))
            return
        if node.child_count == 0:
            out.append(Token(_text(node), t, node.start_point[0] + 1, in_asm))
            return
        for c in node.children:
            rec(c, in_asm)

    rec(root, False)
    return out


_COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_TOKEN_RE = re.compile(r"[A-Za-z_]\w*|::|\d[\w.]*|\S")
# A kernel attribute the CUDA grammar does not know: parsed as is, it turns the kernel into a broken
# declaration, so it is blanked (same length, lines kept) before parsing and recognized by regex.
_CLUSTER_DIMS_RE = re.compile(r"\b__cluster_dims__\s*\([^()]*\)")


# `__align__(n)` on a shared declaration likewise hides the declaration from the grammar.
_ALIGN_RE = re.compile(r"\b__align__\s*\([^()]*\)")


def _blank_unknown_attributes(source: str) -> str:
    blank = lambda m: re.sub(r"[^\n]", " ", m.group(0))  # noqa: E731
    return _ALIGN_RE.sub(blank, _CLUSTER_DIMS_RE.sub(blank, source))


def _regex_tokens(source: str) -> list[Token]:
    """Fallback tokenizer: comments blanked (newlines kept), strings kept only inside asm(...)."""
    blanked = _COMMENT_RE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), source)
    out: list[Token] = []
    for lineno, line in enumerate(blanked.splitlines(), start=1):
        if line.lstrip().startswith("#"):
            continue
        is_asm = bool(re.search(r"\basm\b", line))
        for part in re.split(r'("(?:[^"\\]|\\.)*")', line):
            if part.startswith('"') and len(part) >= 2:
                out.append(
                    Token(part[1:-1], "string_content", lineno, True)
                    if is_asm
                    else Token("<str>", "string", lineno)
                )
                continue
            for m in _TOKEN_RE.finditer(part):
                text = m.group(0)
                kind = "identifier" if (text[0].isalpha() or text[0] == "_") else "punct"
                out.append(Token(text, kind, lineno))
    return out


# --------------------------------------------------------------------------- the analysis


class _Analysis:
    def __init__(self, source: str, taxonomy: Taxonomy, target: str) -> None:
        self.source = source
        self.lines = source.splitlines()
        self.taxonomy = taxonomy
        self.target = target
        self.found: dict[str, dict[int, Evidence]] = {}
        self.notice = ""
        try:
            parser = _parser()
        except (ImportError, OSError, ValueError) as exc:
            parser = None
            self.notice = (
                f"tree-sitter with the CUDA grammar is not available ({exc}); only lexical signals were "
                "used (pip install tree-sitter tree-sitter-cuda)"
            )
        parsed = _blank_unknown_attributes(source).encode("utf-8")
        self.root = parser.parse(parsed).root_node if parser is not None else None
        self.tokens = _tree_tokens(self.root) if self.root is not None else _regex_tokens(source)
        self.nodes = list(_walk(self.root)) if self.root is not None else []

    # ---- helpers
    def add(self, method: str, line: int, why: str) -> None:
        if method not in self.taxonomy or self.target not in self.taxonomy[method].targets:
            return
        ev = self.found.setdefault(method, {})
        if line not in ev and len(ev) < MAX_EVIDENCE:
            text = self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""
            ev[line] = Evidence(line, text if len(text) <= 120 else text[:117] + "...", why)

    def of_type(self, *types: str) -> Iterator[Any]:
        return (n for n in self.nodes if n.type in types)

    # ---- lexical signals from the taxonomy
    def lexical(self) -> None:
        toks = self.tokens
        qualified: list[str] = []  # qualified name ending at each token ("cuda::memcpy_async")
        for i, t in enumerate(toks):
            if i >= 2 and toks[i - 1].text == "::" and qualified[i - 2]:
                qualified.append(f"{qualified[i - 2]}::{t.text}")
            else:
                qualified.append(t.text if _is_word(t.text) else "")
        for m in self.taxonomy.for_target(self.target):
            rec = m.recognize
            calls = set(rec.get("calls", ()))
            types = set(rec.get("types", ()))
            spaces = set(rec.get("namespaces", ()))
            quals = set(rec.get("qualifiers", ()))
            asm = rec.get("asm", ())
            for i, t in enumerate(toks):
                if t.in_asm and t.kind in ("string_content", "string_fragment"):
                    for a in asm:
                        if a in t.text:
                            self.add(m.name, t.line, f"inline PTX {a}")
                    continue
                if not _is_word(t.text):
                    continue
                q = qualified[i]
                nxt = toks[i + 1].text if i + 1 < len(toks) else ""
                if _match(t.text, q, calls):
                    self.add(m.name, t.line, f"calls {t.text}")
                elif _match(t.text, q, types) and (
                    t.kind in ("type_identifier", "primitive_type")
                    or nxt in ("*", "&", ">", ",", "::")
                    or _is_word(nxt)
                ):
                    self.add(m.name, t.line, f"uses type {q or t.text}")
                elif t.text in quals:
                    self.add(m.name, t.line, f"declares {t.text}")
                elif (t.kind == "namespace_identifier" or nxt == "::") and _match(t.text, q, spaces):
                    self.add(m.name, t.line, f"uses namespace {q or t.text}")
        for lineno, line in enumerate(self.lines, start=1):
            s = line.strip()
            if s.startswith("#include"):
                for m in self.taxonomy.for_target(self.target):
                    for inc in m.recognize.get("includes", ()):
                        if inc in s:
                            self.add(m.name, lineno, f"includes {s[8:].strip()}")
            elif s.startswith("#pragma"):
                body = " ".join(s[len("#pragma") :].split())
                for m in self.taxonomy.for_target(self.target):
                    for p in m.recognize.get("pragmas", ()):
                        if p in body and not (
                            m.name == "loop_unrolling" and re.fullmatch(r"unroll\s*\(?\s*1\s*\)?", body)
                        ):
                            self.add(m.name, lineno, f"#pragma {body}")

    # ---- structural signals
    def structural(self) -> None:
        if self.root is None:
            return
        kernels = [
            f for f in self.of_type("function_definition") if any(c.type == "__global__" for c in f.children)
        ]
        code = _COMMENT_RE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), self.source)
        self.consts = constants(self.root, code)
        self.flow = SharedFlow(self.nodes)
        for k in kernels:
            self.add("parallelize", k.start_point[0] + 1, "defines a __global__ kernel")
            for p in _descendants(k, "parameter_declaration"):
                words = {t for t in re.findall(r"\w+", _text(p))}
                if "__restrict__" in words and "const" in words:
                    self.add("read_only_cache", p.start_point[0] + 1, "const __restrict__ kernel parameter")
        for n in self.of_type("launch_bounds"):
            self.add("launch_config_tuning", n.start_point[0] + 1, "__launch_bounds__")
        for t in self.tokens:
            if t.text == "__launch_bounds__":
                self.add("launch_config_tuning", t.line, "__launch_bounds__")
        for m in _CLUSTER_DIMS_RE.finditer(code):
            self.add("thread_block_clusters", code.count("\n", 0, m.start()) + 1, "__cluster_dims__ kernel attribute")
        self._grid_stride()
        self._shared()
        self._shared_aliases()
        self._register_tiles(kernels)
        self._atomics()
        self._persistent(kernels)
        self._wide_async_copies()

    def _grid_stride(self) -> None:
        stride_vars: set[str] = set()
        for d in self.of_type("init_declarator", "assignment_expression"):
            words = set(re.findall(r"\w+", _text(d)))
            if "gridDim" in words and d.children:
                first = d.children[0]
                if first.type == "identifier":
                    stride_vars.add(_text(first))
        for a in self.of_type("assignment_expression", "update_expression"):
            txt = _text(a)
            if "+=" not in txt or not _inside(a, ("for_statement", "while_statement", "do_statement")):
                continue
            rhs = txt.split("+=", 1)[1]
            words = set(re.findall(r"\w+", rhs))
            if ("gridDim" in words and ("blockDim" in words or len(words) <= 3)) or words & stride_vars:
                self.add("grid_stride_loop", a.start_point[0] + 1, "loop advances by gridDim*blockDim")

    def _shared_arrays(self) -> dict[str, int]:
        """Names of __shared__ arrays -> line of declaration."""
        names: dict[str, int] = {}
        for line_no, line in enumerate(self.lines, start=1):
            if "__shared__" not in line:
                continue
            decl = line.split("__shared__", 1)[1].split(";")[0]
            for m in re.finditer(r"(\w+)\s*\[", decl):
                names.setdefault(m.group(1), line_no)
        return names

    def _shared_counters(self) -> tuple[set[str], set[tuple[int, str]]]:
        """`__shared__` scalars whose address reaches an atomic (a block's private counter standing in
        for a global one, e.g. a block-local queue's length), and the (function id, parameter) pairs of
        the file's own functions that receive such an address."""
        names: set[str] = set()
        for d in self.of_type("declaration"):
            if not any(c.type in ("storage_class_specifier", "type_qualifier") and "__shared__" in _text(c) for c in d.children):
                continue
            if not any(c.type in ("primitive_type", "sized_type_specifier") for c in d.children):
                continue
            for decl in d.named_children:
                core = decl.child_by_field_name("declarator") if decl.type == "init_declarator" else decl
                if core is not None and core.type == "identifier":
                    names.add(_text(core))
        params: set[tuple[int, str]] = set()
        for c in self.of_type("call_expression"):
            args = c.child_by_field_name("arguments")
            for g in self.flow.callees(c):
                for i, arg in enumerate(args.named_children if args is not None else ()):
                    m = re.fullmatch(r"&\s*(\w+)", _text(arg))
                    if m and m.group(1) in names and i < len(self.flow.params[g.id]):
                        params.add((g.id, self.flow.params[g.id][i]))
        return names, params

    def _shared_ranks(self) -> dict[str, int]:
        """Names of __shared__ arrays -> number of declared dimensions."""
        ranks: dict[str, int] = {}
        for line in self.lines:
            if "__shared__" in line:
                decl = line.split("__shared__", 1)[1].split(";")[0]
                for m in re.finditer(r"(\w+)\s*((?:\[[^\]]*\]\s*)+)", decl):
                    ranks.setdefault(m.group(1), m.group(2).count("["))
        return ranks

    def _is_halving_loop(self, loop: Any) -> bool:
        head = _loop_head(loop)
        return bool(
            re.search(r">>=\s*1\b|/=\s*2\b|=\s*\w+\s*/\s*2\b|=\s*\w+\s*>>\s*1\b|<<=\s*1\b|\*=\s*2\b", head)
        )

    def _shared(self) -> None:
        shared = self._shared_arrays()
        if not shared:
            return
        has_sync = any(t.text in ("__syncthreads", "__syncwarp", "sync") for t in self.tokens) or any(
            t.text == "barrier" for t in self.tokens
        )
        # padded or swizzled shared arrays
        for line_no, line in enumerate(self.lines, start=1):
            if "__shared__" in line:
                decl = line.split("__shared__", 1)[1].split(";")[0]
                if re.search(r"\[[^\]\[]*\+\s*(1|PAD\w*|SKEW\w*)\s*\]", decl):
                    self.add("bank_conflict_avoidance", line_no, "padded shared array dimension")
        subs = [s for s in self.of_type("subscript_expression") if _base_name(s) in shared]
        ranks = self._shared_ranks()
        for s in subs:
            # a swizzle XORs the innermost index; an XOR on an outer index toggles buffers
            if s.parent is not None and s.parent.type == "subscript_expression":
                continue
            if _depth(s) < ranks.get(_base_name(s), 1):
                continue  # buf[b ^ 1] of a buf[2][N]: a whole buffer, not an element
            idx = s.child_by_field_name("indices") or s.child_by_field_name("index")
            if idx is not None and "^" in _text(idx):
                self.add("bank_conflict_avoidance", s.start_point[0] + 1, "XOR-swizzled shared index")
        # tree reductions: halving loops with a barrier that read a shared array
        halving = [lp for lp in self.of_type("for_statement", "while_statement") if self._is_halving_loop(lp)]
        for lp in halving:
            body = _text(lp)
            if any(re.search(rf"\b{re.escape(n)}\s*\[", body) for n in shared) and (
                "__syncthreads" in body or "__syncwarp" in body
            ):
                self.add(
                    "block_tree_reduction",
                    lp.start_point[0] + 1,
                    "halving loop over a shared array with barriers",
                )
        if not has_sync:
            return
        # tiling: a shared array staged from another array and reused outside halving loops
        staged: set[str] = set()
        for a in self.of_type("assignment_expression"):
            left = a.child_by_field_name("left")
            right = a.child_by_field_name("right")
            if left is None or right is None or _text(a.children[1]) != "=":
                continue
            if left.type == "subscript_expression":
                names = {_base_name(left)}
            elif left.type == "pointer_expression":  # *reinterpret_cast<float4*>(&tile[r][c]) = ...
                names = {n for n in shared if re.search(rf"&\s*{re.escape(n)}\s*\[", _text(left))}
            else:
                continue
            rhs_subs = list(_descendants(right, "subscript_expression", include_self=True))
            is_constant = right.type in ("number_literal", "true", "false", "null") or not re.search(
                r"[A-Za-z_]", _text(right)
            )
            from_shared_only = rhs_subs and all(_base_name(r) in shared for r in rhs_subs)
            if not is_constant and not from_shared_only:
                staged |= names & set(shared)
        for c in self.of_type("call_expression"):  # asynchronous copies into shared memory
            fn = c.child_by_field_name("function")
            args = c.child_by_field_name("arguments")
            if fn is None or args is None or not args.named_children:
                continue
            if re.search(r"memcpy_async|cp_async", _text(fn)):
                dst = _text(args.named_children[0])
                staged |= {n for n in shared if re.search(rf"\b{re.escape(n)}\b", dst)}
        for name in sorted(staged):
            reads = [
                s
                for s in subs
                if _base_name(s) == name
                and not _is_write_target(s)
                and not any(_contains(lp, s) for lp in halving)
            ]
            in_loop = [s for s in reads if _inside(s, ("for_statement", "while_statement"))]
            distinct = {_subscript_index(s) for s in reads}
            if in_loop or len(distinct) >= 2:
                self.add(
                    "shared_memory_tiling",
                    shared[name],
                    f"__shared__ {name} staged from global memory and reused",
                )
                for s in (in_loop or reads)[:2]:
                    self.add("shared_memory_tiling", s.start_point[0] + 1, f"reads the {name} tile")

    def _shared_aliases(self) -> None:
        """Tiles and padding that the shared array's own name does not show: reached through pointers,
        references, struct fields and helpers' parameters (recognize_memory.SharedFlow)."""
        halving = [lp for lp in self.of_type("for_statement", "while_statement") if self._is_halving_loop(lp)]
        if any(t.text in ("__syncthreads", "__syncwarp", "sync", "barrier") for t in self.tokens):
            for root, lines in shared_tiles(self.flow, self.nodes, halving).items():
                name = root.split(":", 1)[1]
                self.add("shared_memory_tiling", self.flow.root_line[root], f"__shared__ {name} staged and reused")
                for line in lines[:2]:
                    self.add("shared_memory_tiling", line, f"reads the {name} tile")
        for root, dims in self.flow.dims.items():
            if why := padded_pitch(dims, self.consts):
                self.add("bank_conflict_avoidance", self.flow.root_line[root], f"padded shared array: {why}")
        for line, dims in shared_struct_fields(self.root, self.flow.struct_types):
            if why := padded_pitch(dims, self.consts):
                self.add("bank_conflict_avoidance", line, f"padded tile of a struct in shared memory: {why}")

    def _register_tiles(self, kernels: list[Any]) -> None:
        funcs = kernels + [
            f for f in self.of_type("function_definition") if any(c.type == "__device__" for c in f.children)
        ]
        for f in funcs:
            locals_: dict[str, int] = {}
            named_dims: set[str] = set()  # sized by a lower-case constant (kItems): held to true accumulation
            for d in _descendants(f, "declaration"):
                txt = _text(d)
                if any(q in txt.split("[")[0] for q in ("__shared__", "static", "extern", "__constant__")):
                    continue
                for ad in _descendants(d, "array_declarator"):
                    if ad.parent is not None and ad.parent.type == "array_declarator":
                        continue
                    dims = re.findall(r"\[([^\]]*)\]", _text(ad))
                    old_form = all(re.fullmatch(r"\s*(\d+|[A-Z_][A-Z0-9_]*)\s*", x or "") for x in dims)
                    if dims and (old_form or all(x.strip() and is_constant_expr(x, self.consts) for x in dims)):
                        name = re.match(r"\s*(\w+)", _text(ad))
                        if name:
                            locals_[name.group(1)] = ad.start_point[0] + 1
                            if not old_form:
                                named_dims.add(name.group(1))
            if not locals_:
                continue
            for a in _descendants(f, "assignment_expression"):
                op = _text(a.children[1]) if a.child_count > 1 else ""
                left = a.child_by_field_name("left")
                if (
                    op in ("+=", "-=", "=")
                    and left is not None
                    and left.type == "subscript_expression"
                    and _base_name(left) in locals_
                    and _inside(a, ("for_statement",))
                    and (op != "=" or re.search(r"\bfmaf?\b|\+", _text(a.child_by_field_name("right") or a)))
                    and (op != "=" or _base_name(left) not in named_dims or _text(left) in _text(a.child_by_field_name("right")))
                    and not runtime_indexed(left, self.consts)
                ):
                    name = _base_name(left)
                    self.add("register_tiling", locals_[name], f"per-thread accumulator array {name}")
                    self.add("register_tiling", a.start_point[0] + 1, f"accumulates into {name} in a loop")
            for line, why in register_arrays(f, locals_, consts=self.consts):
                self.add("register_tiling", line, why)
        for line, why in register_cache(funcs):
            self.add("register_tiling", line, why)

    def _atomics(self) -> None:
        atomic_names = (
            set(self.taxonomy["atomic_operations"].recognize.get("calls", ()))
            if "atomic_operations" in self.taxonomy
            else set()
        )
        shared = self._shared_arrays()
        counters, counter_params = self._shared_counters()
        for c in self.of_type("call_expression"):
            fn = c.child_by_field_name("function")
            if fn is None or _text(fn).split("::")[-1] not in atomic_names:
                continue
            args = c.child_by_field_name("arguments")
            first = args.named_children[0] if args is not None and args.named_children else None
            line = c.start_point[0] + 1
            if first is not None and (
                any(re.search(rf"\b{re.escape(n)}\b", _text(first)) for n in shared)
                or self.flow.bases(first, self.flow.aliases_at(c))
            ):
                self.add("atomic_privatization", line, "atomic on a shared-memory private copy")
                continue
            if first is not None:
                m = re.fullmatch(r"&\s*(\w+)", _text(first))
                f = self.flow.function_of(c)
                if (m and m.group(1) in counters) or (
                    f is not None and first.type == "identifier" and (f.id, _text(first)) in counter_params
                ):
                    self.add("atomic_privatization", line, "atomic on a block's shared-memory counter")
                    continue
            value = args.named_children[1] if args is not None and len(args.named_children) > 1 else None
            if value is not None and re.search(r"\b__popc(ll)?\s*\(", _text(value)):
                # one atomic carries the population count of a lane mask: the warp's lanes were aggregated
                # (its old value used or not: a queue append keeps it as the lanes' base offset)
                self.add("warp_aggregated_atomics", line, "one atomic adds the count of a mask of lanes")
                continue
            if c.parent is not None and c.parent.type in ("assignment_expression", "init_declarator"):
                continue  # the old value is used: a work counter or a lock, not a merged partial result
            if value is not None and value.type == "number_literal":
                continue  # counting, not merging a partial result
            cond = _enclosing_if_condition(c)
            if cond and re.search(
                r"(threadIdx\.x|tid|lane\w*|laneId|warp_lane|thread_rank\(\))\s*==\s*0|0\s*==", cond
            ):
                self.add("atomic_privatization", line, "one atomic per block or warp after a local reduction")

    def _wide_async_copies(self) -> None:
        """A cp.async of 8 or 16 bytes moves a vector per thread per instruction, as a float4 load does
        (the 4-byte form does not)."""
        for t in self.tokens:
            if t.in_asm and _WIDE_CP_ASYNC.search(t.text):
                self.add("vectorized_access", t.line, "cp.async of 16 (or 8) bytes per thread")
        for c in self.of_type("call_expression"):
            fn, args = c.child_by_field_name("function"), c.child_by_field_name("arguments")
            argv = args.named_children if args is not None else []
            if (
                fn is not None
                and _text(fn) == "__pipeline_memcpy_async"
                and len(argv) >= 3
                and re.fullmatch(r"(8|16)[uU]?|sizeof\((float[24]|int[24]|uint[24]|double2|uint4|int4)\)", _text(argv[2]))
            ):
                self.add("vectorized_access", c.start_point[0] + 1, "asynchronous copy of 16 (or 8) bytes per thread")

    def _persistent(self, kernels: list[Any]) -> None:
        sm_count = [
            t for t in self.tokens if t.text in ("multiProcessorCount", "cudaDevAttrMultiProcessorCount")
        ]
        for k in kernels:
            for lp in _descendants(k, "while_statement", "for_statement", "do_statement"):
                body = _text(lp)
                if re.search(r"=\s*atomicAdd\s*\(", body):
                    self.add(
                        "persistent_kernel",
                        lp.start_point[0] + 1,
                        "loop that pulls work items from a counter",
                    )
                    break
            else:
                continue
        for k in kernels if sm_count else ():  # cooperative: all levels in one resident grid, grid.sync() between
            grids = {
                _declared_name_of(d)
                for d in _descendants(k, "declaration")
                if re.search(r"\bgrid_group\b|\bthis_grid\s*\(", _text(d))
            }
            for lp in _descendants(k, "while_statement", "for_statement", "do_statement"):
                if any(re.search(rf"\b{re.escape(g)}\s*\.\s*sync\s*\(", _text(lp)) for g in grids if g) or re.search(
                    r"this_grid\s*\(\s*\)\s*\.\s*sync\s*\(", _text(lp)
                ):
                    self.add("persistent_kernel", lp.start_point[0] + 1, "loop of phases in one grid, grid.sync() between")
                    break
            from_block = {  # variables that start at the block's index: int tile = blockIdx.x
                m.group(1)
                for d in _descendants(k, "init_declarator", "assignment_expression")
                if (m := _FROM_BLOCK.fullmatch(_text(d).strip()))
            }
            for lp in _descendants(k, "for_statement"):  # blocks walk the tiles: tile = blockIdx.x; ...; += gridDim.x
                step = lp.child_by_field_name("update")
                stride = _BY_GRID.fullmatch(_text(step).strip()) if step is not None else None
                if stride and stride.group(1) in from_block:
                    self.add("persistent_kernel", lp.start_point[0] + 1, "each block loops over tiles, striding by the grid")
                    break
        if sm_count and "persistent_kernel" in self.found:
            self.add("persistent_kernel", sm_count[0].line, "grid sized by the SM count")


_FROM_BLOCK = re.compile(r"(\w+)\s*=\s*(?:\(\w+(?:\s+\w+)*\)\s*|static_cast<[\w\s]+>\()?blockIdx\.x\)?")
_BY_GRID = re.compile(r"(\w+)\s*\+=\s*(?:\(\w+(?:\s+\w+)*\)\s*|static_cast<[\w\s]+>\()?gridDim\.x\)?")
_WIDE_CP_ASYNC = re.compile(r"cp\.async\.c[ag]\.shared\.global\S*\s*\[[^\]]*\]\s*,\s*\[[^\]]*\]\s*,\s*(8|16)\b")


def _declared_name_of(declaration: Any) -> str:
    for d in declaration.named_children:
        core = d.child_by_field_name("declarator") if d.type == "init_declarator" else d
        if core is not None and core.type == "identifier":
            return _text(core)
    return ""


def _is_word(s: str) -> bool:
    return bool(s) and (s[0].isalpha() or s[0] == "_")


def _match(name: str, qualified: str, entries: set[str]) -> bool:
    if name in entries:
        return True
    return any("::" in e and qualified.endswith(e) for e in entries)


def _descendants(node: Any, *types: str, include_self: bool = False) -> Iterator[Any]:
    for n in _walk(node):
        if n.type in types and (include_self or n.id != node.id):
            yield n


def _inside(node: Any, types: Iterable[str]) -> bool:
    types = tuple(types)
    p = node.parent
    while p is not None:
        if p.type in types:
            return True
        if p.type == "function_definition":
            return False
        p = p.parent
    return False


def _contains(outer: Any, inner: Any) -> bool:
    return outer.start_byte <= inner.start_byte and inner.end_byte <= outer.end_byte


def _base_name(sub: Any) -> str:
    n = sub
    while n is not None and n.type == "subscript_expression":
        n = n.child_by_field_name("argument") or (n.children[0] if n.children else None)
    return _text(n) if n is not None and n.type == "identifier" else ""


def _depth(sub: Any) -> int:
    """How many subscripts a subscript chain applies: tile[r][c] -> 2."""
    n, depth = sub, 0
    while n is not None and n.type == "subscript_expression":
        depth += 1
        n = n.child_by_field_name("argument") or (n.children[0] if n.children else None)
    return depth




def _is_write_target(sub: Any) -> bool:
    """True if this subscript is (part of) the left side of a plain assignment."""
    n, p = sub, sub.parent
    while p is not None and p.type == "subscript_expression":
        n, p = p, p.parent
    if p is not None and p.type == "assignment_expression":
        left = p.child_by_field_name("left")
        op = _text(p.children[1]) if p.child_count > 1 else ""
        return left is not None and left.id == n.id and op == "="
    return False


def _loop_head(loop: Any) -> str:
    if loop.type == "for_statement":
        body = loop.child_by_field_name("body")
        end = body.start_byte if body is not None else loop.end_byte
        return loop.text[: end - loop.start_byte].decode("utf-8", "replace")
    return _text(loop)


def _enclosing_if_condition(node: Any) -> str:
    p = node.parent
    while p is not None and p.type != "function_definition":
        if p.type == "if_statement":
            c = p.child_by_field_name("condition")
            return _text(c) if c is not None else ""
        p = p.parent
    return ""


def recognize(source: str, target: str = "cuda", taxonomy: Taxonomy | None = None) -> Recognition:
    """The canonical methods `source` already uses, with evidence (line numbers)."""
    tax = taxonomy if taxonomy is not None else default_taxonomy()
    a = _Analysis(source, tax, target)
    a.lexical()
    a.structural()
    methods = {m: sorted(ev.values(), key=lambda e: e.line) for m, ev in sorted(a.found.items())}
    return Recognition(methods, a.notice)


def recognizable(
    target: str = "cuda", taxonomy: Taxonomy | None = None, structural: bool | None = None
) -> list[str]:
    """Methods this recognizer can see in code for `target`. Methods with structural signals count
    only with the syntax tree (`structural`: by default, whether tree-sitter's CUDA grammar loads):
    without it their absence from a recognition says nothing, and a search that took it as evidence
    would place every kernel back on the initial node."""
    tax = taxonomy if taxonomy is not None else default_taxonomy()
    structural = tree_sitter_available() if structural is None else structural
    return sorted(
        m.name
        for m in tax.for_target(target)
        if (m.name in STRUCTURAL and structural) or (m.recognize and m.name not in STRUCTURAL)
    )


def unrecognizable(target: str = "cuda", taxonomy: Taxonomy | None = None) -> list[str]:
    """Methods with no static signal for `target` (they are judged by trajectories, not by reading code)."""
    tax = taxonomy if taxonomy is not None else default_taxonomy()
    seen = set(recognizable(target, tax, structural=True))
    return sorted(m.name for m in tax.for_target(target) if m.name not in seen)
