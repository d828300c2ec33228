"""Where data lives, for the method recognizer (graph/recognize.py): compile-time constants, and which
pointers and references point into shared memory.

Tuned kernels rarely index a `__shared__` array by its own name: dynamic shared memory is carved into
typed pointers (`float* tile = smem + off`), tile structs are placed on raw bytes
(`Tiles& s = *reinterpret_cast<Tiles*>(raw)`), a warp takes its row (`float* mine = sub[warp]`), and
helpers receive the tile as a parameter (`load_rows(tile, ...)`, a cp.async wrapper `copy16(&s.a[..])`).
`SharedFlow` follows those aliases inside each function and through calls to the functions the file
defines, so the recognizer can see a tile staged through one name and read through another. A
value read out of shared memory (`tile[i]` of a 1-D tile, a shared scalar) is data, never an alias.

Everything here is static and works on the tree-sitter syntax tree.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from typing import Any

# A constant's value is looked up through at most this many definitions (A = B + 1, B = C * 2, ...).
_MAX_DEPTH = 8
_CONST_QUALIFIERS = ("constexpr", "const")


def node_text(node: Any) -> str:
    """A syntax node's source text (the recognizer modules' shared helper)."""
    return node.text.decode("utf-8", "replace")


def walk(node: Any) -> Iterator[Any]:
    """Every node below `node`, itself first, in source order."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


def subscript_index(sub: Any) -> str:
    """The index text of a subscript chain, outermost first: tile[r][c] -> "rc"."""
    idx = sub.child_by_field_name("indices") or sub.child_by_field_name("index")
    if idx is None:
        return node_text(sub)
    outer = sub.child_by_field_name("argument")
    prefix = subscript_index(outer) if outer is not None and outer.type == "subscript_expression" else ""
    return prefix + node_text(idx)


_text, _walk = node_text, walk


# --------------------------------------------------------------------------- constants


def constants(root: Any, source: str) -> dict[str, str | None]:
    """Compile-time integer constants of the file: name -> defining expression (None for a template
    parameter, whose value is not known here). Sources: object-like `#define`s, `const`/`constexpr`
    declarations (also `static constexpr` struct members) and non-type template parameters."""
    out: dict[str, str | None] = {}
    maybe: dict[str, str] = {}  # plain `const` locals: constants only if their value is one
    for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+([^\n]+)$", source, re.M):
        out[m.group(1)] = re.sub(r"//.*|/\*.*?\*/", "", m.group(2)).strip()
    for n in _walk(root):
        if n.type == "template_parameter_list":
            for p in n.named_children:
                if p.type in ("parameter_declaration", "optional_parameter_declaration"):
                    name = p.child_by_field_name("declarator")
                    if name is not None and name.type == "identifier":
                        out.setdefault(_text(name), None)
        elif n.type in ("declaration", "field_declaration"):
            quals = {_text(c) for c in n.children if c.type == "type_qualifier"}
            if not quals & set(_CONST_QUALIFIERS):
                continue
            if n.type == "field_declaration":
                name, value = n.child_by_field_name("declarator"), n.child_by_field_name("default_value")
                if name is not None and value is not None and name.type == "field_identifier":
                    out[_text(name)] = _text(value)
                continue
            for d in n.named_children:
                if d.type == "init_declarator":
                    name, value = d.child_by_field_name("declarator"), d.child_by_field_name("value")
                    if name is not None and value is not None and name.type == "identifier":
                        (out if "constexpr" in quals else maybe)[_text(name)] = _text(value)
    for _ in range(_MAX_DEPTH):
        known = {k: v for k, v in maybe.items() if k not in out and _over_constants(v, out)}
        if not known:
            break
        out.update(known)
    return out


def _over_constants(expr: str, consts: dict[str, str | None]) -> bool:
    names = re.findall(r"[A-Za-z_]\w*", expr)
    return all(n in consts for n in names) and not re.search(r"[\[(]", expr.replace("sizeof(", ""))


def _last_name(expr: str) -> str:
    """`Layout<D>::LDH` and `Lay::LDH` name the member LDH."""
    return expr.rsplit("::", 1)[-1].strip()


def constant_value(expr: str, consts: dict[str, str | None], depth: int = 0) -> int | None:
    """The integer value of a constant expression over literals and known constants, else None."""
    if depth > _MAX_DEPTH:
        return None
    expr = re.sub(r"(?<=\d)[uUlL]+\b", "", expr.strip())
    try:
        tree = ast.parse(expr.replace("/", "//").replace("////", "//"), mode="eval")
    except SyntaxError:
        return None

    def ev(node: ast.AST) -> int | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
            return node.value
        if isinstance(node, ast.Name):
            definition = consts.get(node.id)
            return None if definition is None else constant_value(definition, consts, depth + 1)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            v = ev(node.operand)
            return None if v is None else -v
        if isinstance(node, ast.BinOp):
            a, b = ev(node.left), ev(node.right)
            if a is None or b is None:
                return None
            ops = {ast.Add: a + b, ast.Sub: a - b, ast.Mult: a * b}
            if type(node.op) in ops:
                return ops[type(node.op)]
            if isinstance(node.op, ast.FloorDiv) and b:
                return int(a / b)
            if isinstance(node.op, ast.LShift) and 0 <= b < 64:
                return a << b
            if isinstance(node.op, ast.RShift) and 0 <= b < 64:
                return a >> b
        return None

    return ev(tree.body)


def is_constant_expr(expr: str, consts: dict[str, str | None]) -> bool:
    """True when every name in `expr` is a known compile-time constant (or reads like one: UPPER_CASE)."""
    names = re.findall(r"[A-Za-z_]\w*", re.sub(r"\w+\s*<[^<>]*>\s*::", "", expr))
    return all(n in consts or re.fullmatch(r"[A-Z_][A-Z0-9_]*", n) for n in names)


def resolve(expr: str, consts: dict[str, str | None]) -> str:
    """A dimension written as one named constant, replaced by its definition (once): `LD` -> `BK + 8`."""
    name = _last_name(expr)
    definition = consts.get(name) if re.fullmatch(r"[A-Za-z_]\w*", name) else None
    return definition if definition is not None else expr.strip()


# --------------------------------------------------------------------------- shared-memory aliases


def _split_top(expr: str, sep: str) -> list[str]:
    """Split on `sep` outside parentheses and brackets."""
    parts, depth, cur = [], 0, ""
    for ch in expr:
        depth += ch in "(["
        depth -= ch in ")]"
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return [p.strip() for p in parts]


def array_dims(declarator: Any) -> tuple[str, list[str]]:
    """(name, dimension texts outermost first) of an array declarator."""
    dims: list[str] = []
    n = declarator
    while n is not None and n.type == "array_declarator":
        size = n.child_by_field_name("size")
        dims.insert(0, _text(size) if size is not None else "")
        n = n.child_by_field_name("declarator")
    return (_text(n) if n is not None else ""), dims


def padded_pitch(dims: list[str], consts: dict[str, str | None]) -> str:
    """Why a 2-D (or flattened 2-D) shared layout's row pitch is padded against bank conflicts, or "".
    The pitch is the innermost factor; padding is a small addend on it (`BK + 8`, `BN + PAD`, or a
    pitch one more than a power-of-two row, 33 for 32) that no other dimension has (a stencil's halo
    widens every dimension the same way)."""
    factors = [f for d in dims for f in _split_top(d, "*") if f]
    if len(factors) < 2:
        return ""
    *outer, pitch = factors
    resolved = resolve(pitch, consts)

    def addend(expr: str) -> str:
        terms = _split_top(resolve(expr, consts), "+")
        if len(terms) < 2 or not re.search(r"[A-Za-z_]", " ".join(terms[:-1])):
            return ""
        pad = terms[-1]
        value = constant_value(pad, consts)
        if not re.fullmatch(r"\w+", pad):  # 2 * R is a stencil's halo, not a pad
            return ""
        if re.fullmatch(r"(PAD|SKEW)\w*|k?(Pad|Skew)\w*", pad) or (value is not None and 1 <= value <= 16):
            return pad
        return ""

    pad = addend(pitch)
    if pad and not any(addend(o) for o in outer):
        return f"row pitch {pitch} = {resolved} (padded by {pad})"
    p = constant_value(pitch, consts)
    rows = [constant_value(o, consts) for o in outer]
    if p is not None and p - 1 >= 8 and (p - 1) & (p - 2) == 0 and p - 1 in rows and p not in rows:
        return f"row pitch {pitch} = {p}, one more than the {p - 1}-wide row"
    return ""


# `float (*rows)[33] = tile[warp];` declares a pointer to rows; the grammar reads it as an assignment
# to a subscripted call, so the declared name is taken from the text.
ROW_POINTER = re.compile(r"\w+\s*\(\s*\*\s*(\w+)\s*\)\s*\[[^\]]*\]")


class SharedFlow:
    """Which names point into shared memory, per function, and which `__shared__` declaration each
    reaches (a root: "line:name"). Aliases flow through pointer and reference declarations and
    assignments, casts, `&x[...]`, pointer arithmetic, the rows of multi-dimensional arrays, the
    fields of a shared struct, conditionals, and into the parameters of the file's own functions."""

    def __init__(self, nodes: list[Any]) -> None:
        self.functions = [n for n in nodes if n.type == "function_definition"]
        self.aliases: dict[int, dict[str, set[str]]] = {f.id: {} for f in self.functions}
        self.ranks: dict[str, int] = {}  # root -> declared number of dimensions
        self.root_line: dict[str, int] = {}
        self.dims: dict[str, list[str]] = {}  # root -> its dimension texts, outermost first
        self.struct_types: set[str] = set()  # struct types laid over shared memory
        self.params = {f.id: _param_names(f) for f in self.functions}
        by_name: dict[str, list[Any]] = {}
        for f in self.functions:
            by_name.setdefault(_function_name(f), []).append(f)
        self._by_name = by_name
        for f in self.functions:
            self._seed(f)
        for _ in range(10):  # fixpoint over calls; real files settle in two or three rounds
            if not any([self._propagate(f) for f in self.functions]):
                break
        for c in (n for n in nodes if n.type == "call_expression"):  # reinterpret_cast<Tiles*>(raw)
            fn, args = c.child_by_field_name("function"), c.child_by_field_name("arguments")
            m = re.match(r"reinterpret_cast\s*<\s*(?:const\s+)?(\w+)\s*[*&]", _text(fn)) if fn is not None else None
            if m and args is not None and any(self.bases(a, self.aliases_at(c)) for a in args.named_children):
                self.struct_types.add(m.group(1))

    # ---- construction
    def _seed(self, f: Any) -> None:
        for d in _descendants(f, "declaration"):
            if not any(c.type == "storage_class_specifier" and "__shared__" in _text(c) for c in d.children) and (
                "__shared__" not in _text(d).split("=")[0]
            ):
                continue
            primitive = any(c.type in ("primitive_type", "sized_type_specifier") for c in d.children)
            type_name = next((_text(c) for c in d.children if c.type == "type_identifier"), "")
            for decl in d.named_children:
                core = decl.child_by_field_name("declarator") if decl.type == "init_declarator" else decl
                if core is None:
                    continue
                if core.type == "array_declarator":
                    name, dims = array_dims(core)
                elif core.type == "identifier" and not primitive:  # a shared struct (a shared scalar is data)
                    name, dims = _text(core), []
                else:
                    continue
                root = f"{d.start_point[0] + 1}:{name}"
                self.aliases[f.id][name] = {root}
                self.ranks[root] = len(dims)
                self.root_line[root] = d.start_point[0] + 1
                self.dims[root] = dims
                if type_name:
                    self.struct_types.add(type_name)

    def _propagate(self, f: Any) -> bool:
        changed = False
        mine = self.aliases[f.id]
        for _ in range(4):
            grew = False
            for d in _descendants(f, "init_declarator"):
                core, value = d.child_by_field_name("declarator"), d.child_by_field_name("value")
                if core is None or value is None or core.type not in ("pointer_declarator", "reference_declarator"):
                    continue
                grew |= self._add(mine, _declared_name(core), self.bases(value, mine))
            for a in _descendants(f, "assignment_expression"):
                left, right = a.child_by_field_name("left"), a.child_by_field_name("right")
                if left is not None and right is not None and left.type == "identifier" and left.text:
                    grew |= self._add(mine, _text(left), self.bases(right, mine))
                elif left is not None and right is not None and (m := ROW_POINTER.fullmatch(_text(left))):
                    grew |= self._add(mine, m.group(1), self.bases(right, mine))
            changed |= grew
            if not grew:
                break
        for c in _descendants(f, "call_expression"):
            args = c.child_by_field_name("arguments")
            for g in self.callees(c):
                params = self.params[g.id]
                for i, arg in enumerate(args.named_children if args is not None else ()):
                    if i < len(params) and params[i]:
                        changed |= self._add(self.aliases[g.id], params[i], self.bases(arg, mine))
        return changed

    @staticmethod
    def _add(table: dict[str, set[str]], name: str, roots: set[str]) -> bool:
        if not name or not roots or roots <= table.get(name, set()):
            return False
        table.setdefault(name, set()).update(roots)
        return True

    def callees(self, call: Any) -> list[Any]:
        fn = call.child_by_field_name("function")
        if fn is None:
            return []
        if fn.type == "template_function":
            fn = fn.child_by_field_name("name") or fn
        return self._by_name.get(_last_name(_text(fn)), [])

    # ---- queries
    def bases(self, expr: Any, aliases: dict[str, set[str]]) -> set[str]:
        """The shared roots a pointer-valued expression points into (empty for a value)."""
        t = expr.type
        if t == "identifier":
            return set(aliases.get(_text(expr), ()))
        if t in ("parenthesized_expression", "cast_expression"):
            inner = expr.child_by_field_name("value") or (expr.named_children[-1] if expr.named_children else None)
            return self.bases(inner, aliases) if inner is not None else set()
        if t == "binary_expression":
            op = expr.child_by_field_name("operator")
            if op is not None and _text(op) in ("+", "-"):
                return self.bases(expr.child_by_field_name("left"), aliases) | self.bases(
                    expr.child_by_field_name("right"), aliases
                )
            return set()
        if t == "conditional_expression":
            return self.bases(expr.child_by_field_name("consequence"), aliases) | self.bases(
                expr.child_by_field_name("alternative"), aliases
            )
        if t == "call_expression":  # reinterpret_cast<T*>(p), static_cast<T&>(p)
            fn = expr.child_by_field_name("function")
            args = expr.child_by_field_name("arguments")
            if fn is not None and re.match(r"(reinterpret|static|const)_cast\b", _text(fn)) and args is not None:
                return set().union(*(self.bases(a, aliases) for a in args.named_children))
            return set()
        if t == "pointer_expression":
            arg = expr.child_by_field_name("argument")
            if arg is None:
                return set()
            if _text(expr).lstrip().startswith("&"):
                return self.access_roots(arg, aliases)
            return self.bases(arg, aliases)
        if t == "field_expression":  # s.a decays to a pointer into the shared struct s
            arg = expr.child_by_field_name("argument")
            return self.bases(arg, aliases) if arg is not None else set()
        if t == "subscript_expression":  # a row of a multi-dimensional shared array
            roots = self.access_roots(expr, aliases)
            depth = _depth(expr)
            return {r for r in roots if depth < self.ranks.get(r, 0)}
        return set()

    def access_roots(self, node: Any, aliases: dict[str, set[str]]) -> set[str]:
        """The shared roots an element access (`tile[i][j]`, `s.a[st][r][k]`, `p[i]`) reads or writes."""
        n = node
        while n is not None and n.type in (
            "subscript_expression",
            "field_expression",
            "parenthesized_expression",
            "pointer_expression",
        ):
            if n.type == "pointer_expression" or n.type == "parenthesized_expression":
                return self.bases(n, aliases)
            n = n.child_by_field_name("argument") or (n.named_children[0] if n.named_children else None)
        return set(aliases.get(_text(n), ())) if n is not None and n.type == "identifier" else set()

    def function_of(self, node: Any) -> Any | None:
        p = node.parent
        while p is not None and p.type != "function_definition":
            p = p.parent
        return p

    def aliases_at(self, node: Any) -> dict[str, set[str]]:
        f = self.function_of(node)
        return self.aliases.get(f.id, {}) if f is not None else {}


# --------------------------------------------------------------------------- small tree helpers


def _descendants(node: Any, *types: str) -> Iterable[Any]:
    return (n for n in _walk(node) if n.type in types and n.id != node.id)


def _depth(sub: Any) -> int:
    n, depth = sub, 0
    while n is not None and n.type in ("subscript_expression", "field_expression"):
        depth += n.type == "subscript_expression"
        if n.type == "field_expression":
            break
        n = n.child_by_field_name("argument")
    return depth


def _declared_name(declarator: Any) -> str:
    n = declarator
    while n is not None and n.type in ("pointer_declarator", "reference_declarator", "type_qualifier"):
        n = n.child_by_field_name("declarator") or (n.named_children[-1] if n.named_children else None)
    return _text(n) if n is not None and n.type == "identifier" else ""


def _function_name(f: Any) -> str:
    d = f.child_by_field_name("declarator")
    while d is not None and d.type != "function_declarator":
        d = d.child_by_field_name("declarator")
    name = d.child_by_field_name("declarator") if d is not None else None
    return _last_name(_text(name)) if name is not None else ""


def _param_names(f: Any) -> list[str]:
    d = f.child_by_field_name("declarator")
    while d is not None and d.type != "function_declarator":
        d = d.child_by_field_name("declarator")
    params = d.child_by_field_name("parameters") if d is not None else None
    out = []
    for p in params.named_children if params is not None else ():
        core = p.child_by_field_name("declarator")
        out.append(_declared_name(core) if core is not None else "")
    return out
