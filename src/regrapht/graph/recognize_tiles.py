"""Shared-memory tiles, for the method recognizer (graph/recognize.py): which shared buffers are
staged from memory and then read back more than once, through any of their aliases
(recognize_memory.SharedFlow), and the array fields of structs laid over shared memory.

Staging is a store of a value loaded from memory outside shared memory (or an asynchronous copy into
it); reuse is a read inside a loop or at two different indices. A block sum's warp partials pass
through shared memory too, but they are computed in registers: a reduction, not a tile.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from regrapht.graph.recognize_memory import ROW_POINTER, SharedFlow, array_dims
from regrapht.graph.recognize_memory import node_text as _text
from regrapht.graph.recognize_memory import walk as _walk


def _descendants(node: Any, *types: str) -> Iterable[Any]:
    return (n for n in _walk(node) if n.type in types and n.id != node.id)


_ASYNC_CALL = re.compile(r"memcpy_async|cp_async")


def async_copy_params(flow: SharedFlow) -> dict[int, set[int]]:
    """Function id -> the indices of its parameters that are the shared destination of an asynchronous
    copy: a cp.async wrapper (`__cvta_generic_to_shared(dst)` beside inline PTX `cp.async`) or a helper
    that hands the parameter to `__pipeline_memcpy_async` / `cuda::memcpy_async`."""
    out: dict[int, set[int]] = {}
    for f in flow.functions:
        params = flow.params[f.id]
        body = _text(f)
        idx: set[int] = set()
        if "cp.async" in body:
            for c in _descendants(f, "call_expression"):
                fn, args = c.child_by_field_name("function"), c.child_by_field_name("arguments")
                if fn is not None and _text(fn) == "__cvta_generic_to_shared" and args is not None:
                    idx |= {i for i, p in enumerate(params) if p and any(_text(a) == p for a in args.named_children)}
        for c in _descendants(f, "call_expression"):
            fn, args = c.child_by_field_name("function"), c.child_by_field_name("arguments")
            if fn is not None and _ASYNC_CALL.search(_text(fn)) and args is not None and args.named_children:
                first = _text(args.named_children[0])
                idx |= {i for i, p in enumerate(params) if p and re.search(rf"\b{re.escape(p)}\b", first)}
        if idx:
            out[f.id] = idx
    return out


def _inside_loop(node: Any) -> bool:
    p = node.parent
    while p is not None and p.type != "function_definition":
        if p.type in ("for_statement", "while_statement", "do_statement"):
            return True
        p = p.parent
    return False


def _outermost_access(node: Any) -> Any:
    while node.parent is not None and node.parent.type == "subscript_expression":
        arg = node.parent.child_by_field_name("argument")
        if arg is None or arg.id != node.id:
            break
        node = node.parent
    return node


def shared_tiles(flow: SharedFlow, nodes: list[Any], skip: Iterable[Any] = ()) -> dict[str, list[int]]:
    """Shared roots staged from elsewhere (a store of a value not read from shared memory, or an
    asynchronous copy) and read back more than once (inside a loop, or at two different indices),
    through any alias: root -> lines of the reads. Reads inside the `skip` nodes (tree reductions'
    halving loops) do not count as reuse."""
    skip = list(skip)
    copy_params = async_copy_params(flow)
    defs: dict[int, dict[str, list[Any]]] = {}

    def defs_of(f: Any) -> dict[str, list[Any]]:
        if f is None:
            return {}
        if f.id not in defs:
            table: dict[str, list[Any]] = {}
            for d in _descendants(f, "init_declarator", "assignment_expression"):
                name = d.child_by_field_name("declarator" if d.type == "init_declarator" else "left")
                value = d.child_by_field_name("value" if d.type == "init_declarator" else "right")
                if name is not None and value is not None and name.type == "identifier":
                    table.setdefault(_text(name), []).append(value)
            defs[f.id] = table
        return defs[f.id]

    staged: set[str] = set()
    reads: dict[str, list[tuple[int, bool, str]]] = {}

    def note_read(roots: set[str], at: Any, index: str) -> None:
        if any(s.start_byte <= at.start_byte and at.end_byte <= s.end_byte for s in skip):
            return
        for r in roots:
            reads.setdefault(r, []).append((at.start_point[0] + 1, _inside_loop(at), index))

    for n in nodes:
        if n.type == "assignment_expression":
            left, right = n.child_by_field_name("left"), n.child_by_field_name("right")
            if left is None or right is None or _text(n.children[1]) != "=":
                continue
            al = flow.aliases_at(n)
            roots = flow.access_roots(left, al) if left.type != "identifier" else set()
            if not roots:
                continue
            if _reads_memory(right, flow, al, defs_of(flow.function_of(n))):
                staged |= roots
        elif n.type == "call_expression":
            fn, args = n.child_by_field_name("function"), n.child_by_field_name("arguments")
            if fn is None or args is None:
                continue
            al = flow.aliases_at(n)
            argv = args.named_children
            if _ASYNC_CALL.search(_text(fn)) and argv:
                staged |= flow.bases(argv[0], al)
            for g in flow.callees(n):
                for i in copy_params.get(g.id, ()):
                    if i < len(argv):
                        staged |= flow.bases(argv[i], al)
            if _text(fn).endswith("load_matrix_sync") and len(argv) >= 2:  # a tensor-core operand from the tile
                note_read(flow.bases(argv[1], al), n, _text(argv[1]))
        elif n.type == "subscript_expression" and _outermost_access(n).id == n.id:
            al = flow.aliases_at(n)
            roots = flow.access_roots(n, al)
            address_only = n.parent is not None and n.parent.type == "pointer_expression" and _text(n.parent)[:1] == "&"
            if roots and not _is_store(n) and not address_only and not _names_a_row(n):
                note_read(roots, n, _text(n))
    out: dict[str, list[int]] = {}
    for root in sorted(staged):
        got = reads.get(root, [])
        in_loop = [line for line, loop, _ in got if loop]
        if in_loop or len({index for _, _, index in got}) >= 2:
            out[root] = sorted(set(in_loop or [line for line, _, _ in got]))
    return out


_LOADS = re.compile(r"__ld\w*|tex\w*D\w*")


def _reads_memory(value: Any, flow: SharedFlow, aliases: dict[str, set[str]], defs: dict[str, list[Any]]) -> bool:
    """True when a value stored into shared memory comes from memory outside it: an element or a
    dereference of another array, an `__ldg`-style load, or a local variable defined from one. A value
    computed in registers (a warp's partial sum, a twiddle from sincos) is not staged data."""

    def direct(v: Any) -> bool:
        for n in _walk(v):
            if n.type == "subscript_expression" and not flow.access_roots(n, aliases):
                return True
            if n.type == "pointer_expression" and _text(n)[:1] == "*" and not flow.bases(n, aliases):
                arg = n.child_by_field_name("argument")
                if arg is not None and not flow.bases(arg, aliases):
                    return True
            if n.type == "call_expression":
                fn = n.child_by_field_name("function")
                if fn is not None and _LOADS.fullmatch(_text(fn)):
                    return True
        return False

    if direct(value):
        return True
    names = {_text(n) for n in _walk(value) if n.type == "identifier"}
    return any(direct(v) for name in names for v in defs.get(name, ()) if v is not value)


def _names_a_row(access: Any) -> bool:
    """`float* row = tile[w]` and `float (*t)[33] = tile[w]` take an address, they read nothing."""
    p = access.parent
    if p is not None and p.type == "init_declarator":
        core = p.child_by_field_name("declarator")
        return core is not None and core.type in ("pointer_declarator", "reference_declarator")
    if p is not None and p.type == "assignment_expression":
        left = p.child_by_field_name("left")
        return left is not None and left.id != access.id and bool(ROW_POINTER.fullmatch(_text(left)))
    return False


def _is_store(access: Any) -> bool:
    p = access.parent
    if p is not None and p.type == "assignment_expression" and _text(p.children[1]) == "=":
        left = p.child_by_field_name("left")
        return left is not None and left.id == access.id
    return False


def shared_struct_fields(root: Any, types: set[str]) -> list[tuple[int, list[str]]]:
    """(line, dimensions) of every array field of the structs named in `types` (unions inside included)."""
    out = []
    for s in _walk(root):
        if s.type != "struct_specifier":
            continue
        name = s.child_by_field_name("name")
        body = s.child_by_field_name("body")
        if name is None or body is None or _text(name) not in types:
            continue
        for fd in _descendants(body, "field_declaration"):
            for ad in fd.named_children:
                if ad.type == "array_declarator":
                    out.append((ad.start_point[0] + 1, array_dims(ad)[1]))
    return out
