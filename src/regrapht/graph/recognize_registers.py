"""Register-resident data, for the method recognizer (graph/recognize.py): whether a per-thread array
can live in registers at all, and registers that a warp uses as a cache of a moving window.

A local array stays in registers only when every index is known after unrolling; one indexed by the
variable of a loop with a run-time trip count lives in local memory (a direct port's per-thread DP
rows), which is not register tiling.
"""

from __future__ import annotations

import re
from typing import Any


def _text(node: Any) -> str:
    return node.text.decode("utf-8", "replace")


def _descendants(node: Any, *types: str) -> list[Any]:
    out, stack = [], list(reversed(node.children))
    while stack:
        n = stack.pop()
        if n.type in types:
            out.append(n)
        stack.extend(reversed(n.children))
    return out


def _subscript_index(sub: Any) -> str:
    idx = sub.child_by_field_name("indices") or sub.child_by_field_name("index")
    if idx is None:
        return _text(sub)
    outer = sub.child_by_field_name("argument")
    prefix = _subscript_index(outer) if outer is not None and outer.type == "subscript_expression" else ""
    return prefix + _text(idx)


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
