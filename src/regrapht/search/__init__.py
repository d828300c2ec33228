"""Exploration: strategies that spend a budget of model generations on a task, guided by the ReGraph.

    from regrapht.search import Budget, make_strategy, open_search_model, run_searches, SearchJob

One protocol (`Strategy`), MCGS (`regrapht.search.mcgs`), the baselines (`regrapht.search.baselines`:
standard, cot, rag, walk, greedy, refine, contrastive), the offline policy that replays recorded steps
(`regrapht.search.offline`), budgets, run records, and the store-backed evaluation service that makes
runs resumable. Nothing here imports the bench layer or the CLI.
"""

from regrapht.search.budget import Budget, BudgetExhausted, Spend
from regrapht.search.context import ModelInfo, Point, SearchContext, StepSettings, task_variables
from regrapht.search.driver import Run, drive
from regrapht.search.evaluate import EvalBackend, EvalOutcome, EvalRequest, EvalService, machine_name
from regrapht.search.mcgs import MCGS, puct
from regrapht.search.offline import (
    NO_RECORDED_STEP,
    OFFLINE_LABEL,
    OfflinePolicy,
    is_offline_spec,
)
from regrapht.search.record import Attempt, SearchResult, code_hash
from regrapht.search.session import (
    SearchJob,
    evaluation_records,
    graph_info,
    open_search_model,
    run_searches,
)
from regrapht.search.store import SEARCH_SCHEMA, SearchStore
from regrapht.search.strategy import Strategy, make_strategy, strategy_help, strategy_names

__all__ = [
    "MCGS",
    "NO_RECORDED_STEP",
    "OFFLINE_LABEL",
    "SEARCH_SCHEMA",
    "Attempt",
    "Budget",
    "BudgetExhausted",
    "EvalBackend",
    "EvalOutcome",
    "EvalRequest",
    "EvalService",
    "ModelInfo",
    "OfflinePolicy",
    "Point",
    "Run",
    "SearchContext",
    "SearchJob",
    "SearchResult",
    "SearchStore",
    "Spend",
    "StepSettings",
    "Strategy",
    "code_hash",
    "drive",
    "evaluation_records",
    "graph_info",
    "is_offline_spec",
    "machine_name",
    "make_strategy",
    "open_search_model",
    "puct",
    "run_searches",
    "strategy_help",
    "strategy_names",
    "task_variables",
]
