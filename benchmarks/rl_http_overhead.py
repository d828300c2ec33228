"""The reward service's overhead: the same GRPO batch scored in process and through HTTP on loopback.

One environment and one evaluator serve both paths, so the only difference is the service: JSON in
and out, the bounded queue, the dispatcher thread. The batch (rl_throughput.py's mix of correct,
wrong and non-compiling code over `--groups` tasks) is scored `--warmup` times on each path first (it
fills the compile cache and the serial baselines; left out), then `--rounds` pairs, the order within
a pair alternating (local-HTTP, HTTP-local, ...), so drift of the machine falls on both sides alike.

Reported: the ratio HTTP / in-process (the median of the per-pair ratios, with a 95% percentile
bootstrap interval over pairs), the extra seconds per batch (median of the per-pair differences,
with its interval), the payload bytes, and whether the target (overhead <= 5%) is met: "met" when
the interval's upper end is at most 1.05, "missed" when its lower end is above, else "undecided".
Every round's verdicts must equal the first round's, on both paths.

On a loaded machine the batch's own time swings by seconds from round to round, more than the
service costs, so the ratio's interval can stay wide. The second phase measures the service's cost
alone: the same batch, parse, rewards and audit, on an environment whose scorer replays the
evaluations of one real run instantly, `--replay-rounds` pairs interleaved as above. Its
difference (HTTP minus in-process, median with its interval) is what the service adds per batch;
divided by the real in-process batch time it is the overhead the target speaks of. `--reward correctness` turns
timing off: the evaluator's work per batch is then smallest, so the relative overhead is largest
(an upper bound for the timed rewards), and rounds are short enough for many pairs on a small machine.

    PYTHONPATH=src python3 benchmarks/rl_http_overhead.py --target cpu --out benchmarks/results/rl_http_cpu.json
    PYTHONPATH=src python3 benchmarks/rl_http_overhead.py --target cuda --out benchmarks/results/rl_http_h100.json
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from regrapht.eval import EvalConfig, Evaluator, TimingConfig
from regrapht.rl import EnvConfig, RewardConfig, RewardEnv
from regrapht.rl.client import RewardClient
from regrapht.rl.service import RewardService, ServiceConfig
from regrapht.tasks import find_task

sys.path.insert(0, str(Path(__file__).resolve().parent))
from rl_throughput import TASKS, completions  # noqa: E402  (the same batch as the throughput benchmark)

TARGET_OVERHEAD = 0.05


class ReplayScorer:
    """Evaluates each (task, source, target) once for real, then answers it from memory: the
    environment and the service do all their work, the evaluator none."""

    def __init__(self, inner: Any):
        self.inner = inner
        self.config = inner.config
        self.kept: dict[tuple[str, str, str], Any] = {}

    def evaluate_many(self, items: list[tuple[Any, str, str]]) -> list[Any]:
        keys = [(task.instance_key, source, target) for task, source, target in items]
        missing = [i for i, k in enumerate(keys) if k not in self.kept]
        if missing:
            for i, ev in zip(missing, self.inner.evaluate_many([items[i] for i in missing])):
                self.kept[keys[i]] = ev
        return [self.kept[k] for k in keys]


def interleaved(local: Any, http: Any, rounds: int, expected: list[list[str]]) -> list[tuple[float, float]]:
    """(in-process seconds, HTTP seconds) per pair, the order alternating; verdicts checked."""
    pairs = []
    for i in range(rounds):
        seconds = {}
        for run in (local, http) if i % 2 == 0 else (http, local):
            t0 = time.perf_counter()
            got = run()
            seconds[run] = time.perf_counter() - t0
            if got != expected:
                raise SystemExit(f"round {i}: the verdicts differ from the first round's")
        pairs.append((seconds[local], seconds[http]))
    return pairs


def paired_interval(values: list[float], seed: int = 0, resamples: int = 4000) -> dict[str, float]:
    """The median of paired values with a 95% percentile bootstrap interval over the pairs."""
    data = np.asarray(values, dtype=np.float64)
    rng = np.random.default_rng(seed)
    medians = np.median(data[rng.integers(0, data.size, (resamples, data.size))], axis=1)
    low, high = np.quantile(medians, [0.025, 0.975])
    return {"value": float(np.median(data)), "ci_low": float(low), "ci_high": float(high)}


def verdict(ratio: dict[str, float]) -> str:
    if ratio["ci_high"] <= 1 + TARGET_OVERHEAD:
        return "met"
    if ratio["ci_low"] > 1 + TARGET_OVERHEAD:
        return "missed"
    return "undecided"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", choices=["cuda", "cpu"], default="cuda")
    parser.add_argument("--groups", type=int, default=8)
    parser.add_argument("--group-size", type=int, default=8)
    parser.add_argument("--mix", default="4,2,2", help="correct,wrong,compile_error per group of that many")
    parser.add_argument("--warmup", type=int, default=1, help="unmeasured rounds per path")
    parser.add_argument("--rounds", type=int, default=10, help="measured pairs")
    parser.add_argument("--replay-rounds", type=int, default=30, help="pairs of the service-cost phase (0: skip)")
    parser.add_argument("--budget", type=float, default=0.2, help="timing seconds per candidate")
    parser.add_argument("--reward", default="hierarchical", help="the reward (correctness: no timing)")
    parser.add_argument("--tasks", nargs="+", default=None, help="task ids or folders (default: rl_throughput's eight)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    mix = tuple(int(x) for x in args.mix.split(","))
    if len(mix) != 3 or args.rounds < 2:
        raise SystemExit("--mix takes three counts (correct,wrong,compile_error); --rounds at least 2")

    tasks = [find_task(t) for t in (args.tasks or TASKS)[: args.groups]]
    reward = RewardConfig(args.reward)
    config = EvalConfig(timing=reward.needs_timing, timing_config=TimingConfig(budget_s=args.budget))
    with Evaluator(config) as evaluator:
        env = RewardEnv(tasks, evaluator, EnvConfig(target=args.target, reward=reward, train_variants=1, heldout_variants=0))
        problems = [env.sampler.find(env.sampler.train_pool(t)[0].task.id) for t in tasks]
        groups = [(p, [c for _, c in completions(p.task, args.target, args.group_size, mix)]) for p in problems]
        wire = [(p.id, c) for p, c in groups]
        fingerprint: dict[str, Any] = {}

        def paths(scorer: Any) -> tuple[Any, Any, Any, Any]:
            environment = RewardEnv(tasks, scorer, env.config)
            service = RewardService(environment, ServiceConfig(port=0, max_completions=10_000, max_batch=10_000)).start()
            client = RewardClient(service.url)

            def local() -> list[list[str]]:
                scored = environment.score_groups(groups)
                records = [r.evaluation for g in scored for r in g if r.evaluation is not None]
                fingerprint.update(records[0].fingerprint if records else {})
                return [[r.reward.evidence.status for r in g] for g in scored]

            def http() -> list[list[str]]:
                return [[r["evidence"]["status"] for r in g] for g in client.score_groups(wire)]

            return local, http, client, service

        local, http, client, service = paths(evaluator)
        try:
            warm = []
            for _ in range(args.warmup):
                for run in (local, http):
                    t0 = time.perf_counter()
                    run()
                    warm.append(time.perf_counter() - t0)
            statuses = local()
            pairs = interleaved(local, http, args.rounds, statuses)
            request_bytes = len(json.dumps({"groups": [{"problem": p, "completions": c} for p, c in wire]}))
            response_bytes = len(json.dumps(client.score_groups(wire), default=float))
        finally:
            client.close()
            service.shutdown()
        replayed: list[tuple[float, float]] = []
        if args.replay_rounds:
            local, http, client, service = paths(ReplayScorer(evaluator))
            try:
                if local() != statuses:
                    raise SystemExit("the replayed verdicts differ from the measured run's")
                replayed = interleaved(local, http, args.replay_rounds, statuses)
            finally:
                client.close()
                service.shutdown()

    ratio = paired_interval([h / loc for loc, h in pairs])
    extra = paired_interval([h - loc for loc, h in pairs])
    batch_s = statistics.median(loc for loc, _ in pairs)
    cost = paired_interval([h - loc for loc, h in replayed]) if replayed else None
    n = sum(len(c) for _, c in groups)
    result = {
        "benchmark": "rl_http_overhead",
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "host": platform.node(),
        "cpu_cores": os.cpu_count(),
        "target": args.target,
        "reward": args.reward,
        "budget_s": args.budget if reward.needs_timing else None,
        "completions": n,
        "groups": len(groups),
        "mix": dict(zip(("correct", "wrong", "compile_error"), mix)),
        "statuses": {s: sum(row.count(s) for row in statuses) for s in sorted({s for row in statuses for s in row})},
        "warmup_s": warm,
        "in_process_s": [loc for loc, _ in pairs],
        "http_s": [h for _, h in pairs],
        "in_process_median_s": statistics.median(loc for loc, _ in pairs),
        "http_median_s": statistics.median(h for _, h in pairs),
        "ratio_http_over_in_process": ratio,
        "extra_s_per_batch": extra,
        "request_bytes": request_bytes,
        "response_bytes": response_bytes,
        "target_overhead": TARGET_OVERHEAD,
        "verdict": verdict(ratio),
        "service_cost": None if cost is None else {
            "rounds": len(replayed),
            "in_process_s": [loc for loc, _ in replayed],
            "http_s": [h for _, h in replayed],
            "extra_s_per_batch": cost,
            # the service's cost over the real batch's in-process time: the overhead the target bounds
            "overhead": {k: v / batch_s for k, v in cost.items()},
            "verdict": verdict({k: 1 + v / batch_s for k, v in cost.items()}),
        },
        "fingerprint": fingerprint,
    }
    text = json.dumps(result, indent=2, default=str)
    print(text)
    print(f"HTTP / in-process: {ratio['value']:.4f} [{ratio['ci_low']:.4f}, {ratio['ci_high']:.4f}] over "
          f"{args.rounds} pairs of {n} completions; extra {extra['value'] * 1e3:.1f} ms per batch; "
          f"target <= {1 + TARGET_OVERHEAD:.2f}: {result['verdict']}", file=sys.stderr)
    if cost is not None:
        share = result["service_cost"]["overhead"]
        print(f"service cost alone (replayed evaluations, {len(replayed)} pairs): {cost['value'] * 1e3:.1f} ms "
              f"[{cost['ci_low'] * 1e3:.1f}, {cost['ci_high'] * 1e3:.1f}] per batch = {share['value']:.2%} "
              f"[{share['ci_low']:.2%}, {share['ci_high']:.2%}] of the in-process batch time; "
              f"target: {result['service_cost']['verdict']}", file=sys.stderr)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
