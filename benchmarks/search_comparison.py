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


def best_over_recorded(row: dict[str, Any]) -> float:
    """The speedup of the run's best kernel over that of the best recorded one (1.0: found it)."""
    return (row["best_speedup"] or 0.0) / row["best_recorded_speedup"]


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
        "mean_best_over_recorded": _mean([best_over_recorded(r) for r in rows if r["best_recorded_speedup"]]),
    }


def per_task(rows: list[dict[str, Any]], metric: Any) -> dict[str, float]:
    """The metric averaged over each task's seeds."""
    by_task: dict[str, list[float]] = {}
    for r in rows:
        by_task.setdefault(r["task"], []).append(float(metric(r)))
    return {t: statistics.fmean(v) for t, v in by_task.items()}


def paired_bootstrap(
    a: dict[str, float], b: dict[str, float], resamples: int = 4000, seed: int = 0
) -> dict[str, float]:
    """Mean over tasks of a - b (per-task means over seeds, paired by task) with a 95% percentile
    bootstrap interval that resamples tasks: the unit a suite generalizes over."""
    import random

    tasks = sorted(set(a) & set(b))
    diffs = [a[t] - b[t] for t in tasks]
    rng = random.Random(seed)
    means = sorted(statistics.fmean(rng.choices(diffs, k=len(diffs))) for _ in range(resamples))
    return {
        "diff": statistics.fmean(diffs),
        "ci_low": means[int(0.025 * resamples)],
        "ci_high": means[int(0.975 * resamples) - 1],
        "tasks": len(tasks),
    }


def found_exact(row: dict[str, Any]) -> float:
    return 1.0 if row["found_exact"] else 0.0


def parse_spec(spec: str) -> tuple[str, str, dict[str, str]]:
    """'mcgs:prior=uniform;step_cap=0' -> (label, strategy name, params)."""
    name, _, rest = spec.partition(":")
    params = dict(item.split("=", 1) for item in rest.split(";") if item)
    return spec, name.strip(), {k.strip(): v.strip() for k, v in params.items()}


# The paper's ablations of MCGS's parts, plus the components this implementation adds.
ABLATIONS = [
    "mcgs:prior=uniform",  # no graph statistics in selection
    "mcgs:value=reward",  # raw Eq. 3 reward as the value instead of log speedup
    "mcgs:step_cap=0",  # no rollout dives
    "mcgs:resample=false",  # one sample per (state, method)
]


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
    ap.add_argument(
        "--strategies",
        default="mcgs,greedy,walk",
        help="comma-separated; a strategy with parameters is NAME:K=V;K=V (e.g. mcgs:prior=uniform); the first is compared with the others",
    )
    ap.add_argument("--ablations", action="store_true", help="add the MCGS ablations: " + ", ".join(ABLATIONS))
    ap.add_argument("--budgets", default="4,8,16,32,64")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument(
        "--env",
        default="sim",
        choices=("sim", "replay"),
        help="sim: the stochastic simulator (regrapht.search.simulator); replay: the deterministic offline policy",
    )
    ap.add_argument("--sim-unchanged", type=float, default=0.5, help="sim: share of unrecorded steps giving back the code")
    ap.add_argument("--sim-skill", type=float, default=1.0, help="sim: multiplier on recorded steps' success rates")
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
    from regrapht.search.record import code_hash
    from regrapht.search.simulator import SimRates, SimulatedPolicy, TruthTableEvals
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
    specs = [parse_spec(s) for s in args.strategies.split(",") if s.strip()]
    if args.ablations:
        specs += [parse_spec(s) for s in ABLATIONS]
    for _, name, params in specs:
        make_strategy(name, **params)  # a bad spec fails here, not after the ground truth
    replay = OfflinePolicy(graph)
    if args.env == "sim":
        rates = SimRates.fit(graph, unchanged=args.sim_unchanged, skill=args.sim_skill)
        policy: Any = SimulatedPolicy(graph, rates)
        meta = {"identity": policy.identity, "offline": True, "label": policy.label, "spec": "simulated"}
    else:
        policy = replay
        meta = {"identity": replay.identity, "offline": True, "label": replay.label, "spec": "offline"}
    ginfo = graph_info(graph, graph_path, replay.digest)
    store_path = args.store or args.out / "search_comparison.sqlite"
    rows_by: dict[tuple[str, int], list[dict[str, Any]]] = {}
    table: dict[str, dict[str, Any]] = {}
    with RunStore(store_path) as raw_store, Evaluator(config) as evaluator:
        store = SearchStore(raw_store)
        machines = {args.target: args.replay_machine} if args.replay_machine else None
        evals: Any = EvalService(evaluator, store, machines=machines)
        if args.replay_truth:
            report = json.loads(args.replay_truth.read_text(encoding="utf-8"))
            if report["target"] != args.target:
                print(f"--replay-truth: {args.replay_truth} measured target {report['target']}", file=sys.stderr)
                return 2
            evals = TruthTableEvals(report)
            if report["graph"].get("sha256") != ginfo.get("sha256"):
                # Another graph (a later build adds examples): usable for the tasks whose every
                # recorded kernel the table measured, since a search here only ever asks for those.
                uncovered = sorted(
                    {
                        t.id
                        for t in tasks
                        for code in recorded_kernels(graph, replay, t).values()
                        if (t.id, code_hash(code)) not in evals.table
                    }
                )
                if uncovered:
                    print(
                        f"--replay-truth: {args.replay_truth} measured another graph "
                        f"({report['graph'].get('sha256', '?')[:12]}) and lacks recorded kernels of "
                        f"{len(uncovered)} tasks ({', '.join(uncovered)}); pass --skip-tasks for them",
                        file=sys.stderr,
                    )
                    return 2
                print(
                    f"--replay-truth: another graph than the table's ({report['graph'].get('sha256', '?')[:12]}); "
                    f"the table holds every recorded kernel of the {len(tasks)} tasks searched",
                    flush=True,
                )
        elif args.replay_machine:
            missing = sorted(
                t.id
                for t in tasks
                for code in recorded_kernels(graph, replay, t).values()
                if evals.lookup(evals.key(EvalRequest(t, code, args.target))) is None
            )
            if missing:
                print(
                    f"--replay-machine: {len(missing)} recorded kernels have no evaluation from "
                    f"{args.replay_machine!r} in {store_path} (tasks: {', '.join(sorted(set(missing)))})",
                    file=sys.stderr,
                )
                return 2
        truth = ground_truth(tasks, graph, replay, evals, args.target)
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
        for label, name, params in specs:
            for budget in budgets:
                strategy = make_strategy(name, **params)
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
                        group=f"search-comparison:{label}:{budget}",
                    )
                rows = [
                    score_run(r, truth[r.task["id"]]["best"]) | {"strategy": label, "budget": budget}
                    for r in results
                ]
                rows_by[(label, budget)] = rows
                table[f"{label}@{budget}"] = {"strategy": label, "budget": budget, **summarize(rows)}
                print(f"{label}@{budget}: {len(rows)} runs, {time.perf_counter() - started:.0f} s", flush=True)
        fresh = evals.fresh
        machine = evals.machine(args.target)

    # Paired comparisons of MCGS (the first strategy) with every other, per budget, over tasks.
    lead = specs[0][0]
    paired: dict[str, dict[str, Any]] = {}
    for label, _, _ in specs[1:]:
        for budget in budgets:
            a, b = rows_by[(lead, budget)], rows_by[(label, budget)]
            paired[f"{lead} - {label}@{budget}"] = {
                "budget": budget,
                "against": label,
                "found_exact": paired_bootstrap(per_task(a, found_exact), per_task(b, found_exact)),
                "best_over_recorded": paired_bootstrap(
                    per_task(a, best_over_recorded), per_task(b, best_over_recorded)
                ),
            }

    print()
    env_text = (
        f"simulated policy (rates {policy.rates.to_dict()})" if args.env == "sim" else f"offline policy ({replay.label})"
    )
    print(
        f"{env_text}; {len(tasks)} {args.split} tasks x {args.seeds} seeds; machine {machine}; "
        f"method recognizer: {recognizer}; priors and examples leave the searched task out"
        + ("; each task on its own recorded edges only" if args.task_edges_only else "")
    )
    width = max(len(label) for label, _, _ in specs) + 2
    header = (
        f"{'strategy':{width}} {'budget':>6} {'found':>7} {'~found':>7} {'evals to best':>14} "
        f"{'gens to best':>13} {'evals spent':>12} {'best/recorded':>14}"
    )
    print(header)
    print("-" * len(header))

    def f(v: Any, spec: str) -> str:
        return "n/a" if v is None else format(v, spec)

    for row in table.values():
        print(
            f"{row['strategy']:{width}} {row['budget']:>6} {f(row['found_exact'], '.0%'):>7} "
            f"{f(row['found_within_noise'], '.0%'):>7} {f(row['mean_evaluations_to_best'], '.2f'):>14} "
            f"{f(row['mean_generations_to_best'], '.2f'):>13} {f(row['mean_evaluations_spent'], '.2f'):>12} "
            f"{f(row['mean_best_over_recorded'], '.3f'):>14}"
        )
    if paired:
        print(f"\npaired over tasks, {lead} minus the other (mean, 95% bootstrap CI over tasks):")
        for key, p in paired.items():
            fe, br = p["found_exact"], p["best_over_recorded"]
            print(
                f"  {key:{width + 12}} found {fe['diff']:+.3f} [{fe['ci_low']:+.3f}, {fe['ci_high']:+.3f}]   "
                f"best/recorded {br['diff']:+.3f} [{br['ci_low']:+.3f}, {br['ci_high']:+.3f}]"
            )
    report = {
        "benchmark": "search_comparison",
        "environment": ("simulated" if args.env == "sim" else "deterministic replay")
        + (", task edges only" if args.task_edges_only else ", full graph"),
        "simulator_rates": policy.rates.to_dict() if args.env == "sim" else None,
        "simulator_draws": dict(policy.draws) if args.env == "sim" else None,
        "leave_task_out": True,
        "target": args.target,
        "split": args.split,
        "seeds": args.seeds,
        "budgets": budgets,
        "strategies": [label for label, _, _ in specs],
        "graph": ginfo,
        "model": meta,
        "machine": machine,
        "eval_config": {"timing_budget_s": budget_s},
        "recognizer": recognizer,
        "replayed_from": None if args.replay_truth is None else str(args.replay_truth),
        "tasks": {t.id: truth[t.id] for t in tasks},
        "summary": table,
        "paired": paired,
        "runs": [r for rows in rows_by.values() for r in rows],
        "new_evaluations": fresh,
        "wall_s": round(time.perf_counter() - started, 2),
    }
    path = args.out / "search_comparison.json"
    path.write_text(json.dumps(report, indent=1, default=float) + "\n", encoding="utf-8")
    print(f"\nwrote {path} ({report['wall_s']} s, {fresh} new evaluations)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
