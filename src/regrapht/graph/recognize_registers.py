"""Register-resident data, for the method recognizer (graph/recognize.py): whether a per-thread array
can live in registers at all, and registers that a warp uses as a cache of a moving window.

A local array stays in registers only when every index is known after unrolling; one indexed by the
variable of a loop with a run-time trip count lives in local memory (a direct port's per-thread DP
rows), which is not register tiling.
"""

from __future__ import annotations

import re
from typing import Any

from regrapht.graph.recognize_memory import node_text as _text
from regrapht.graph.recognize_memory import subscript_index as _subscript_index


def _descendants(node: Any, *types: str) -> list[Any]:
    out, stack = [], list(reversed(node.children))
    while stack:
        n = stack.pop()
        if n.type in types:
            out.append(n)
        stack.extend(reversed(n.children))
    return out




def runtime_indexed(access: Any, consts: dict[str, str | None]) -> bool:
    """True when a local array is indexed by the variable of a loop with a run-time trip count: it
    cannot be unrolled into registers, so the array lives in local memory (a direct port's rows)."""
    index = _subscript_index(access)
    p = access.parent
    while p is not None and p.type != "function_definition":
        if p.type == "for_statement":
            init, cond = p.child_by_field_name("initializer"), p.child_by_field_name("condition")
            var = re.match(r"[\w\s]*?(\w+)\s*=", _text(init)) if init is not None else None
            bound = re.fullmatch(r"\s*(\w+)\s*(?:<=?|!=)\s*(.+?)\s*", _text(cond)) if cond is not None else None
            if (
                var
                and bound
                and bound.group(1) == var.group(1)
                and re.search(rf"\b{re.escape(var.group(1))}\b", index)
                and not all(n in consts for n in re.findall(r"[A-Za-z_]\w*", bound.group(2)))
            ):
                return True
        p = p.parent
    return False

def register_cache(funcs: list[Any]) -> list[tuple[int, str]]:
    """Loop-carried state in named registers that rotate (`p2 = p1; p1 = v;`) and either move between
    the lanes of a warp by shuffles (a warp's register cache of a wavefront) or take in a freshly loaded
    value each step (a sliding window of loads, each reused several times: a register queue). A plain
    recurrence rotates computed values and exchanges nothing; a swap closes its cycle (`b = t`)."""
    found: list[tuple[int, str]] = []
    for f in funcs:
        scalars = {
            _text(d.child_by_field_name("declarator") or d)
            for decl in _descendants(f, "declaration")
            if any(c.type == "primitive_type" for c in decl.children)
            for d in decl.named_children
            if d.type in ("init_declarator", "identifier")
            and (d.type == "identifier" or d.child_by_field_name("declarator").type == "identifier")
        }
        for loop in _descendants(f, "for_statement", "while_statement", "do_statement"):
            shuffled = {
                _text(c.child_by_field_name("arguments").named_children[1])
                for c in _descendants(loop, "call_expression")
                if re.fullmatch(r"__shfl\w*_sync", _text(c.child_by_field_name("function") or c))
                and len(c.child_by_field_name("arguments").named_children) > 1
            }
            declared_inside = {_text(d) for d in _descendants(loop, "init_declarator") for d in [d.children[0]]}
            for block in _descendants(loop, "compound_statement"):
                copies = [
                    (_text(e.child_by_field_name("left")), _text(e.child_by_field_name("right")), e)
                    for st in block.named_children
                    if st.type == "expression_statement" and st.named_children
                    for e in [st.named_children[0]]
                    if e.type == "assignment_expression"
                    and _text(e.children[1]) == "="
                    and e.child_by_field_name("left").type == "identifier"
                ]
                relays = {lhs for lhs, rhs, _ in copies if rhs in scalars}  # t of t = a; a = b; b = t
                loads = {
                    _text(d.child_by_field_name("declarator"))
                    for d in _descendants(loop, "init_declarator")
                    if d.child_by_field_name("value") is not None and _pure_load(d.child_by_field_name("value"))
                }
                for i, (older, newer, e) in enumerate(copies):
                    if not (older in scalars and newer in scalars and not {older, newer} & declared_inside):
                        continue
                    if any(rhs == older for _, rhs, _ in copies[i + 1 :]):
                        continue
                    fresh = [
                        (rhs, c) for lhs, rhs, c in copies[i + 1 :] if lhs == newer and rhs != older and rhs not in relays
                    ]
                    if not fresh:
                        continue
                    line = e.start_point[0] + 1
                    if {older, newer} & shuffled:
                        found.append((line, f"registers {older} <- {newer} rotate and are shuffled"))
                    elif any(rhs in loads or _pure_load(c.child_by_field_name("right")) for rhs, c in fresh):
                        found.append((line, f"loaded values slide through registers {older} <- {newer}"))
    return found


def _pure_load(value: Any) -> bool:
    """A value that is only a load from memory (`u[p + sz]`, `__ldg(q)`, `edge ? 0.0f : u[p]`), not a
    value computed from one: the newest entry of a sliding window of loads, not a recurrence's term."""
    t = value.type
    if t == "subscript_expression":
        return True
    if t == "call_expression":
        fn = value.child_by_field_name("function")
        return fn is not None and bool(re.fullmatch(r"__ld\w+", _text(fn)))
    if t == "parenthesized_expression" and value.named_children:
        return _pure_load(value.named_children[0])
    if t == "conditional_expression":
        arms = [value.child_by_field_name("consequence"), value.child_by_field_name("alternative")]
        if any(a is None for a in arms):
            return False
        return all(_pure_load(a) or a.type == "number_literal" for a in arms) and any(_pure_load(a) for a in arms)
    return False


def register_arrays(f: Any, locals_: dict[str, int], consts: dict[str, str | None]) -> list[tuple[int, str]]:
    """(line, why) of the constant-size local arrays of function `f` (name -> declaration line) that
    hold register tiles beyond plain accumulation: per-thread state updated in place by an unrolled
    loop that an outer loop repeats (`h[k] = g(h[k], ...)`, a DP strip), and arrays of tensor-core
    accumulator fragments (`wmma::mma_sync(acc[i][j], a, b, acc[i][j])`, each loaded operand reused)."""
    found: list[tuple[int, str]] = []
    for a in _descendants(f, "assignment_expression"):
        left = a.child_by_field_name("left")
        if left is None or left.type != "subscript_expression" or _base_name(left) not in locals_:
            continue
        inner = _enclosing(a, "for_statement")
        if (
            _text(a.children[1]) == "="
            and inner is not None
            and _enclosing(inner, "for_statement", "while_statement", "do_statement") is not None
            and not runtime_indexed(left, consts)
            and any(
                _text(r) == _text(left) and r.id != left.id and not _is_write_target(r)
                for r in _descendants(inner, "subscript_expression")
            )
        ):
            name = _base_name(left)
            found.append((locals_[name], f"per-thread state array {name} in registers"))
            found.append((a.start_point[0] + 1, f"updates {name} in place in an unrolled loop"))
    for c in _descendants(f, "call_expression"):
        fn, args = c.child_by_field_name("function"), c.child_by_field_name("arguments")
        first = args.named_children[0] if args is not None and args.named_children else None
        if (
            fn is not None
            and _text(fn).split("::")[-1] == "mma_sync"
            and first is not None
            and first.type == "subscript_expression"
            and _base_name(first) in locals_
            and _enclosing(c, "for_statement") is not None
        ):
            name = _base_name(first)
            found.append((locals_[name], f"array of accumulator fragments {name}"))
            found.append((c.start_point[0] + 1, f"accumulates into {name} in a loop"))
    return found


def _base_name(sub: Any) -> str:
    n = sub
    while n is not None and n.type == "subscript_expression":
        n = n.child_by_field_name("argument")
    return _text(n) if n is not None and n.type == "identifier" else ""


def _enclosing(node: Any, *types: str) -> Any | None:
    """The nearest ancestor of one of `types` inside the same function, or None."""
    p = node.parent
    while p is not None and p.type != "function_definition":
        if p.type in types:
            return p
        p = p.parent
    return None


def _is_write_target(sub: Any) -> bool:
    """True if this subscript is (part of) the left side of a plain assignment."""
    n, p = sub, sub.parent
    while p is not None and p.type == "subscript_expression":
        n, p = p, p.parent
    if p is None or p.type != "assignment_expression" or _text(p.children[1]) != "=":
        return False
    left = p.child_by_field_name("left")
    return left is not None and left.id == n.id
