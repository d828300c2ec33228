"""Merging trajectories into a graph (the paper's Algorithm 1) and merging two graphs.

Algorithm 1: start at the initial node; for each step with (relabeled) method m and example x:
if the edge prev -> m exists, append x to it; elif the node m exists, add the edge prev -> m with x;
else add the node m and the edge prev -> m with x; then move to m. Cycles and repeated methods are
allowed (a step may apply the method the previous step applied: a self-loop).

One example per (edge, code before, code after): a step identical to an example already on its edge
(a trajectory that copies another's first steps verbatim) walks the edge without adding to it, and
counts as a reused step of its trajectory.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from regrapht.graph.model import INITIAL, Example, GraphError, Node, ReGraph, TrajectoryRecord
from regrapht.graph.taxonomy import Taxonomy, default_taxonomy


@dataclass(frozen=True)
class LabeledStep:
    """A trajectory step after relabeling: the canonical method it lands on and its example."""

    method: str
    example: Example


NodeFactory = Callable[[LabeledStep], Node]


def taxonomy_node_factory(taxonomy: Taxonomy | None = None) -> NodeFactory:
    """New nodes take name, definition and category from the taxonomy; a method the taxonomy does
    not know becomes a node of origin "new", defined by the teacher's own name and detail."""
    tax = taxonomy if taxonomy is not None else default_taxonomy()

    def make(step: LabeledStep) -> Node:
        m = tax.get(step.method)
        if m is not None:
            return Node(m.name, m.definition, m.category, "taxonomy")
        detail = " ".join(step.example.detail.split())
        first = detail.split(". ")[0].rstrip(".")
        definition = f"{step.example.raw_method}: {first}." if first else step.example.raw_method
        return Node(step.method, definition[:400], None, "new")

    return make


def merge_trajectory(
    graph: ReGraph,
    steps: Sequence[LabeledStep],
    record: TrajectoryRecord | None = None,
    node_factory: NodeFactory | None = None,
) -> list[str]:
    """Merge one relabeled trajectory (Algorithm 1) and record it in the ledger. Returns the path of
    nodes walked, starting with the initial node. `record.merged_steps` and `record.reused_steps`
    are set to the examples added and the steps that were already on the graph."""
    if record is not None and record.hash in graph.ledger:
        raise GraphError(f"trajectory {record.hash[:12]} ({record.task}) is already on the graph")
    make = node_factory or taxonomy_node_factory()
    for st in steps:
        if st.method == INITIAL:
            raise GraphError(
                f"step {st.example.step} of {st.example.task}: no step may land on the initial node"
            )
    cur = graph.initial
    path = [cur]
    added = reused = 0
    for st in steps:
        if graph.has_edge(cur, st.method):
            edge = graph.edge(cur, st.method)
        elif graph.has_node(st.method):
            edge = graph.add_edge(cur, st.method)
        else:
            graph.add_node(make(st))
            edge = graph.add_edge(cur, st.method)
        if graph.find_example(cur, st.method, st.example.before, st.example.after) is None:
            edge.examples.append(st.example)
            added += 1
        else:
            reused += 1
        cur = st.method
        path.append(cur)
    if record is not None:
        record.merged_steps, record.reused_steps = added, reused
        graph.ledger[record.hash] = record
    return path


def record_dropped(graph: ReGraph, record: TrajectoryRecord) -> None:
    """Note a trajectory that contributed nothing (relabeling did not line up, unknown task...)."""
    if record.outcome != "dropped" or record.merged_steps:
        raise GraphError("record_dropped takes a record with outcome 'dropped' and no merged steps")
    graph.ledger[record.hash] = record


def merge_graphs(a: ReGraph, b: ReGraph) -> ReGraph:
    """A new graph holding both. Equivalent to replaying b's trajectories after a's through
    Algorithm 1: a trajectory both graphs hold (same content hash) is taken from `a` alone; nodes
    keep a's definitions; b's examples are appended after a's on shared edges, except those a
    already holds (same edge, code before and after), which count as reused steps."""
    if a.target != b.target:
        raise GraphError(f"cannot merge a {a.target!r} graph with a {b.target!r} graph")
    out = copy.deepcopy(a)
    skip = set(a.ledger)
    for name in b.method_nodes():
        if name not in out.nodes:
            out.add_node(copy.deepcopy(b.nodes[name]))
    for key in sorted(b.edges):
        src = b.edges[key]
        new = [copy.deepcopy(x) for x in src.examples if x.trajectory not in skip]
        if not new:
            continue
        edge = out.edges.get(key) or out.add_edge(*key)
        edge.examples.extend(new)
    for h, rec in b.ledger.items():
        if h not in skip:
            out.ledger[h] = copy.deepcopy(rec)
    out.dedupe()
    # a node of b reached only by skipped trajectories has no edge: leave it out
    for name in out.method_nodes():
        if name not in a.nodes and not out.in_edges(name):
            del out.nodes[name]
    return out
