"""The Reasoning Graph (ReGraph): data model, construction (relabel -> verify -> merge), method
taxonomy, static recognition of methods in code, retrieval of worked examples, the advisor, views.

Nothing here imports strategies or the CLI. Heavy pieces (tree-sitter, the MiniLM model, the
evaluator) load lazily, when first used.
"""

from regrapht.graph.build import BuildEvent, BuildReport, build_graph
from regrapht.graph.merge import LabeledStep, merge_graphs, merge_trajectory
from regrapht.graph.model import (
    INITIAL,
    Edge,
    EdgeStats,
    Example,
    GraphError,
    Node,
    ReGraph,
    Speedup,
    TrajectoryRecord,
)
from regrapht.graph.relabel import Label, ModelRelabeler, OfflineRelabeler, Relabeler, RelabelError
from regrapht.graph.store import (
    GraphFormatError,
    default_graph_path,
    dumps_graph,
    graph_from_dict,
    graph_to_dict,
    load_graph,
    loads_graph,
    save_graph,
)
from regrapht.graph.taxonomy import Method, Taxonomy, default_taxonomy, load_taxonomy
from regrapht.graph.trajectory import Step, Trajectory, TrajectoryFormatError, read_trajectories
from regrapht.graph.validate import Issue, validate_graph, validate_graph_dict
from regrapht.graph.verify import EvalVerifier, StepCheck, Verdict, Verifier, unverified

__all__ = [
    "INITIAL",
    "BuildEvent",
    "BuildReport",
    "Edge",
    "EdgeStats",
    "EvalVerifier",
    "Example",
    "GraphError",
    "GraphFormatError",
    "Issue",
    "Label",
    "LabeledStep",
    "Method",
    "ModelRelabeler",
    "Node",
    "OfflineRelabeler",
    "ReGraph",
    "RelabelError",
    "Relabeler",
    "Speedup",
    "Step",
    "StepCheck",
    "Taxonomy",
    "Trajectory",
    "TrajectoryFormatError",
    "TrajectoryRecord",
    "Verdict",
    "Verifier",
    "build_graph",
    "default_graph_path",
    "default_taxonomy",
    "dumps_graph",
    "graph_from_dict",
    "graph_to_dict",
    "load_graph",
    "load_taxonomy",
    "loads_graph",
    "merge_graphs",
    "merge_trajectory",
    "read_trajectories",
    "save_graph",
    "unverified",
    "validate_graph",
    "validate_graph_dict",
]
