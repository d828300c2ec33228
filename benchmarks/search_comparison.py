"""MCGS against the random walk and greedy at equal budgets, with the offline policy (no model).

The offline policy replays the steps recorded in the graph for each task, so the environment is the
graph itself: a search finds a kernel only by choosing the recorded transitions that lead to it.
For every train task with recorded steps, every distinct recorded kernel (the `after` code of each of
the task's examples) is evaluated once; the best correct one is "the best recorded kernel". Then each
strategy runs on each task at each budget with several seeds, and we report:

- found: the share of (task, seed) runs whose best kernel is the best recorded kernel ("exact"), or
  one whose speedup over serial is at least the lower end of the best's 95% confidence interval
  ("within noise");
- evaluations needed: the distinct evaluations a run had asked for when it first reached the best
  recorded kernel (mean over the runs that found it), and the generations it had spent by then.

Every evaluation goes through the run store, so each distinct kernel is measured once for all
strategies, and running the script again resumes (or reuses) what was measured.

Here (no GPU), on the cpu target with the authored OpenMP trajectories of the test fixtures:

    PYTHONPATH=src python3 benchmarks/search_comparison.py --out /tmp/search-cmp

On the GPU machine, with a cuda graph built from the train tasks' trajectories:

    PYTHONPATH=src python3 benchmarks/search_comparison.py --target cuda --graph G.json --out $OUT
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
FIXTURE_TRAJECTORIES = REPO / "tests" / "search" / "fixtures" / "cpu_trajectories.jsonl"
FIXTURE_TASKS = REPO / "tests" / "search" / "tasks"


def build_fixture_graph(path: Path, trajectories: Path, tasks_root: Path, config: Any) -> Any:
    """A cpu graph from authored trajectories, every step verified by the real evaluator."""
    from regrapht.graph.build import build_graph
    from regrapht.graph.model import ReGraph
    from regrapht.graph.relabel import OfflineRelabeler
    from regrapht.graph.store import load_graph, save_graph
    from regrapht.graph.trajectory import read_trajectories
    from regrapht.graph.verify import EvalVerifier

    graph = load_graph(path) if path.is_file() else ReGraph("cpu")
    trajs = [t for _, t in read_trajectories(trajectories)]
    with EvalVerifier(tasks_root, config) as verifier:
        report = build_graph(
            graph,
            trajs,
            OfflineRelabeler(embedder=None),
            verifier,
            verifier.starting_code,
            on_trajectory=lambda _: save_graph(graph, path),
        )
    save_graph(graph, path)
    print(
        f"graph {path}: {report.merged} merged, {report.cut} cut, {report.skipped} already there", flush=True
    )
    return graph


def task_edges_graph(graph: Any, task_id: str) -> Any:
    """The graph with only the edges that the task's own trajectories took. Each edge keeps all its
    examples, so the priors a strategy reads are the full graph's. It is an environment without dead
    edges: it separates how a strategy searches from what the edges a task never recorded cost it."""
    from regrapht.graph.store import graph_from_dict, graph_to_dict

    sub = graph_from_dict(graph_to_dict(graph))
    for key in list(sub.edges):
        if not any(ex.task == task_id for ex in sub.edges[key].examples):
            del sub.edges[key]
    return sub


def recorded_kernels(graph: Any, policy: Any, task: Any) -> dict[str, str]:
    """Distinct recorded `after` codes of a task, as a search reads them from the policy, by hash."""
    from regrapht.search.record import code_hash

    out: dict[str, str] = {}
    for _, ex in graph.examples():
        if ex.task == task.id:
            code = policy.replayed_code(ex.after, task.function)
            out.setdefault(code_hash(code), code)
    return out


def ground_truth(
    tasks: list[Any], graph: Any, policy: Any, evals: Any, target: str
) -> dict[str, dict[str, Any]]:
    from regrapht.search.evaluate import EvalRequest

    truth: dict[str, dict[str, Any]] = {}
    started = time.perf_counter()
    for i, task in enumerate(tasks, 1):
        kernels = recorded_kernels(graph, policy, task)
        shas = sorted(kernels)
        outcomes = evals.evaluate_many([EvalRequest(task, kernels[s], target) for s in shas])
        rows = []
        for sha, o in zip(shas, outcomes):
            ev = o.evaluation
            sp = (ev.speedups or {}).get("serial") if ev is not None else None
            rows.append(
                {
                    "sha": sha,
                    "status": None if ev is None else ev.status,
                    "reward": None if ev is None else ev.reward,
                    "speedup": None if sp is None else sp["value"],
                    "ci_low": None if sp is None else sp.get("ci_low"),
                }
            )
        correct = [r for r in rows if r["status"] == "correct" and r["reward"] is not None]
        best = max(correct, key=lambda r: (r["reward"], r["sha"]), default=None)
        truth[task.id] = {"kernels": rows, "best": best}
        # progress, so a run stopped at a time limit still shows how far the measuring got
        print(
            f"ground truth {i}/{len(tasks)} {task.id}: {len(rows)} kernels, {evals.fresh} measured so far, "
            f"{time.perf_counter() - started:.0f} s",
            flush=True,
        )
    return truth


class TruthTableEvals:
    """Answers a search's evaluations from the ground-truth table of an earlier run's report (the
    kernels it measured, by code hash: status, reward, speedup over serial and its 95% CI low), and
    measures nothing. The offline policy only ever proposes recorded kernels, and the table holds every
    recorded kernel of every task, so a search needs nothing else; a kernel missing from it (a changed
    graph) raises LookupError rather than being measured here under the report's machine name."""

    def __init__(self, report: dict[str, Any]) -> None:
        self.report = report
        self.table = {
            (task_id, row["sha"]): row
            for task_id, truth in report["tasks"].items()
            for row in truth["kernels"]
        }
        self.config_hash = "truth:" + json.dumps(report.get("eval_config"), sort_keys=True)
        self.fresh = 0

    def machine(self, target: str) -> str:
        return str(self.report["machine"])

    def evaluate_many(self, requests: Any) -> list[Any]:
        from regrapht.eval.record import Evaluation
        from regrapht.search.evaluate import EvalOutcome
        from regrapht.search.record import code_hash

        out = []
        for request in requests:
            sha = code_hash(request.source)
            row = self.table.get((request.task.id, sha))
            if row is None:
                raise LookupError(f"task {request.task.id}: kernel {sha[:12]} is not in the replayed report")
            ev = Evaluation(request.task.id, request.target, row["status"], "", sha)
            ev.reward = row["reward"] if row["reward"] is not None else -1.0
            if row["speedup"] is not None:
                ev.speedups = {
                    "serial": {
                        "value": row["speedup"],
                        "ci_low": row["ci_low"],
                        "ci_high": None,
                        "baseline": "serial",
                    }
                }
            out.append(EvalOutcome(ev, f"truth:{request.task.id}:{sha}", reused=True))
        return out


def score_run(result: Any, best: dict[str, Any]) -> dict[str, Any]:
    """Whether and when a run reached the best recorded kernel."""
    exact_at = noise_at = None
    for a in result.attempts:
        if not a.correct or a.code_sha is None:
            continue
        if exact_at is None and a.code_sha == best["sha"]:
            exact_at = a
        sp = a.speedup("serial")
        if noise_at is None and sp is not None and best["ci_low"] is not None and sp >= best["ci_low"]:
            noise_at = a
    top = result.best_attempt
    top_speedup = None if top is None else top.speedup("serial")
    return {
        "task": result.task["id"],
        "seed": result.seed,
        "found_exact": exact_at is not None,
        "found_noise": noise_at is not None or exact_at is not None,
        "evaluations_to_exact": None if exact_at is None else exact_at.evaluations_so_far,
        "generations_to_exact": None if exact_at is None else exact_at.index + 1,
        "evaluations_to_noise": None if noise_at is None else noise_at.evaluations_so_far,
        "best_reward": None if top is None else top.reward,
        "best_recorded_reward": best["reward"],
        "best_speedup": top_speedup,
        "best_recorded_speedup": best["speedup"],
        "evaluations": result.spent.evaluations,
        "generations": result.spent.generations,
    }


def _mean(xs: list[float]) -> float | None:
    return statistics.fmean(xs) if xs else None


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    exact = [r for r in rows if r["found_exact"]]
    noise = [r for r in rows if r["found_noise"]]
    return {
        "runs": len(rows),
        "found_exact": len(exact) / len(rows) if rows else None,
        "found_within_noise": len(noise) / len(rows) if rows else None,
        "mean_evaluations_to_best": _mean([r["evaluations_to_exact"] for r in exact]),
        "mean_generations_to_best": _mean([r["generations_to_exact"] for r in exact]),
        "mean_evaluations_spent": _mean([r["evaluations"] for r in rows]),
        # speedup of the run's best kernel over that of the best recorded one (1.0: found it)
        "mean_best_over_recorded": _mean(
            [
                (r["best_speedup"] or 0.0) / r["best_recorded_speedup"]
                for r in rows
                if r["best_recorded_speedup"]
            ]
        ),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--target", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument(
        "--graph", type=Path, help="graph file (default: the shipped one; on cpu, built from the fixtures)"
    )
    ap.add_argument(
        "--trajectories", type=Path, default=FIXTURE_TRAJECTORIES, help="cpu: authored trajectories"
    )
    ap.add_argument(
        "--tasks-root", type=Path, help="task folders (default: shipped tasks; cpu fixtures when built)"
    )
    ap.add_argument("--split", default="train")
    ap.add_argument("--skip-tasks", default="", help="comma-separated task ids to leave out")
    ap.add_argument("--strategies", default="mcgs,walk,greedy")
    ap.add_argument("--budgets", default="4,8,16")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--eval-budget", type=float, default=None, help="timing seconds per evaluation")
    ap.add_argument("--out", type=Path, default=Path("search-comparison"))
    ap.add_argument("--store", type=Path, help="run store (default: OUT/search_comparison.sqlite)")
    ap.add_argument(
        "--replay-machine",
        metavar="NAME",
        help="search from evaluations recorded on machine NAME in the store (e.g. 'gpu:NVIDIA H200'), "
        "measuring nothing: the searches of a GPU run can be replayed anywhere from its carried store",
    )
    ap.add_argument(
        "--replay-truth",
        type=Path,
        metavar="REPORT",
        help="search from the ground-truth table of an earlier run's search_comparison.json (every "
        "recorded kernel as it measured them), measuring nothing; its machine and graph must match",
    )
    ap.add_argument(
        "--task-edges-only",
        action="store_true",
        help="ablation: each task searches the graph cut down to the edges its own trajectories took",
    )
    args = ap.parse_args(argv)

    from regrapht.eval import EvalConfig, Evaluator, TimingConfig
    from regrapht.graph.recognize import tree_sitter_available
    from regrapht.graph.store import default_graph_path, load_graph
    from regrapht.search import (
        Budget,
        EvalRequest,
        EvalService,
        OfflinePolicy,
        SearchJob,
        SearchStore,
        graph_info,
        make_strategy,
        run_searches,
    )
    from regrapht.store import RunStore
    from regrapht.tasks import load_suite

    # Where generated code sits on the graph depends on what the recognizer can see: say which one ran.
    recognizer = "tree-sitter" if tree_sitter_available() else "lexical only (tree-sitter-cuda missing)"
    args.out.mkdir(parents=True, exist_ok=True)
    budget_s = args.eval_budget if args.eval_budget is not None else (0.3 if args.target == "cpu" else 2.0)
    config = EvalConfig(timing_config=TimingConfig(budget_s=budget_s, serial_budget_s=max(budget_s, 0.5)))
    tasks_root = args.tasks_root
    graph_path = args.graph or default_graph_path(args.target)
    started = time.perf_counter()
    if not graph_path.is_file():
        if args.target != "cpu" or args.graph is not None:
            print(f"no graph at {graph_path}: pass --graph", file=sys.stderr)
            return 2
        graph_path = args.out / "graph-cpu.json"
        tasks_root = tasks_root or FIXTURE_TASKS
        graph = build_fixture_graph(graph_path, args.trajectories, tasks_root, config)
    else:
        graph = load_graph(graph_path)
    if graph.target != args.target:
        print(f"{graph_path} is a {graph.target} graph, not {args.target}", file=sys.stderr)
        return 2
    with_steps = {ex.task for _, ex in graph.examples()}
    skipped = {t.strip() for t in args.skip_tasks.split(",") if t.strip()}
    tasks = [
        t
        for t in load_suite(tasks_root)
        if t.split == args.split and t.id in with_steps and t.id not in skipped
    ]
    if not tasks:
        print(f"no {args.split} task has recorded steps on {graph_path}", file=sys.stderr)
        return 2
    budgets = [int(b) for b in args.budgets.split(",")]
    strategies = [s.strip() for s in args.strategies.split(",") if s.strip()]
    policy = OfflinePolicy(graph)
    meta = {"identity": policy.identity, "offline": True, "label": policy.label, "spec": "offline"}
    ginfo = graph_info(graph, graph_path, policy.digest)
    store_path = args.store or args.out / "search_comparison.sqlite"
    runs: list[dict[str, Any]] = []
    table: dict[str, dict[str, Any]] = {}
    with RunStore(store_path) as raw_store, Evaluator(config) as evaluator:
        store = SearchStore(raw_store)
        replay = {args.target: args.replay_machine} if args.replay_machine else None
        evals: Any = EvalService(evaluator, store, machines=replay)
        if args.replay_truth:
            report = json.loads(args.replay_truth.read_text(encoding="utf-8"))
            if report["graph"].get("sha256") != ginfo.get("sha256") or report["target"] != args.target:
                print(
                    f"--replay-truth: {args.replay_truth} measured another graph or target "
                    f"({report['graph'].get('sha256', '?')[:12]}, {report['target']})",
                    file=sys.stderr,
                )
                return 2
            evals = TruthTableEvals(report)
        elif args.replay_machine:
            missing = sorted(
                t.id
                for t in tasks
                for code in recorded_kernels(graph, policy, t).values()
                if evals.lookup(evals.key(EvalRequest(t, code, args.target))) is None
            )
            if missing:
                print(
                    f"--replay-machine: {len(missing)} recorded kernels have no evaluation from "
                    f"{args.replay_machine!r} in {store_path} (tasks: {', '.join(sorted(set(missing)))})",
                    file=sys.stderr,
                )
                return 2
        truth = ground_truth(tasks, graph, policy, evals, args.target)
        tasks = [t for t in tasks if truth[t.id]["best"] is not None]
        print(
            f"{len(tasks)} tasks with a correct recorded kernel; {evals.fresh} new evaluations so far",
            flush=True,
        )
        # One environment for all tasks, or (ablation) one cut-down graph per task.
        if args.task_edges_only:
            envs = []
            for t in tasks:
                sub = task_edges_graph(graph, t.id)
                envs.append(([t], sub, graph_info(sub, None)))
        else:
            envs = [(tasks, graph, ginfo)]
        for name in strategies:
            for budget in budgets:
                strategy = make_strategy(name)
                results = []
                for env_tasks, env_graph, env_info in envs:
                    results += run_searches(
                        [SearchJob(t, seed) for t in env_tasks for seed in range(args.seeds)],
                        strategy=strategy,
                        target=args.target,
                        budget=Budget(budget),
                        model=policy,
                        model_meta=meta,
                        evals=evals,
                        graph=env_graph,
                        graph_meta=env_info,
                        store=store,
                        group=f"search-comparison:{name}:{budget}",
                    )
                rows = [
                    score_run(r, truth[r.task["id"]]["best"]) | {"strategy": name, "budget": budget}
                    for r in results
                ]
                runs.extend(rows)
                table[f"{name}@{budget}"] = {"strategy": name, "budget": budget, **summarize(rows)}
                print(f"{name}@{budget}: {len(rows)} runs, {time.perf_counter() - started:.0f} s", flush=True)
        fresh = evals.fresh
        machine = evals.machine(args.target)

    print()
    print(
        f"offline policy ({policy.label}); {len(tasks)} {args.split} tasks x {args.seeds} seeds; machine {machine}; "
        f"method recognizer: {recognizer}"
        + ("; each task on its own recorded edges only" if args.task_edges_only else "")
    )
    header = f"{'strategy':10} {'budget':>6} {'found':>7} {'~found':>7} {'evals to best':>14} {'gens to best':>13} {'evals spent':>12} {'best/recorded':>14}"
    print(header)
    print("-" * len(header))

    def f(v: Any, spec: str) -> str:
        return "n/a" if v is None else format(v, spec)

    for row in table.values():
        print(
            f"{row['strategy']:10} {row['budget']:>6} {f(row['found_exact'], '.0%'):>7} {f(row['found_within_noise'], '.0%'):>7} "
            f"{f(row['mean_evaluations_to_best'], '.2f'):>14} {f(row['mean_generations_to_best'], '.2f'):>13} "
            f"{f(row['mean_evaluations_spent'], '.2f'):>12} {f(row['mean_best_over_recorded'], '.3f'):>14}"
        )
    report = {
        "benchmark": "search_comparison",
        "environment": "task edges only" if args.task_edges_only else "full graph",
        "target": args.target,
        "split": args.split,
        "seeds": args.seeds,
        "budgets": budgets,
        "strategies": strategies,
        "graph": ginfo,
        "model": meta,
        "machine": machine,
        "eval_config": {"timing_budget_s": budget_s},
        "recognizer": recognizer,
        "replayed_from": None if args.replay_truth is None else str(args.replay_truth),
        "tasks": {t.id: truth[t.id] for t in tasks},
        "summary": table,
        "runs": runs,
        "new_evaluations": fresh,
        "wall_s": round(time.perf_counter() - started, 2),
    }
    path = args.out / "search_comparison.json"
    path.write_text(json.dumps(report, indent=1, default=float) + "\n", encoding="utf-8")
    print(f"\nwrote {path} ({report['wall_s']} s, {fresh} new evaluations)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
