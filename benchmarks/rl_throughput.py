"""Reward throughput of the RL environment, in process and through the HTTP service.

A GRPO-sized batch: `--groups` problems (one per task, a training variant each) x `--group-size`
completions, a realistic mix per group: correct code (naive.cu on cuda, serial.cpp on cpu), code that
returns before writing its output (wrong answer), and code that does not compile, in the proportions
of `--mix`. The batch is scored twice, in process (`RewardEnv.score_groups`) and through the service
on loopback (`RewardClient.score_groups`), alternately `--rounds` times each, on one evaluator, so
the service's overhead is a ratio measured side by side. The first in-process round fills the
compile cache and the serial baselines; it is reported apart and left out of the ratio.

Rewards per GPU-minute are completions / (wall minutes x GPUs used). One GPU today; the device pool
will bring several (it wraps Evaluator.evaluate_many, which the environment already calls with the
whole batch).

Run on the GPU machine:
    PYTHONPATH=src python3 benchmarks/rl_throughput.py --target cuda --out benchmarks/results/rl_h100.json
Without a GPU: --target cpu (times serial.cpp against itself: the plumbing's cost, not a kernel's).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import time
from pathlib import Path

from regrapht.eval import EvalConfig, Evaluator, TimingConfig
from regrapht.rl import EnvConfig, RewardEnv
from regrapht.rl.client import RewardClient
from regrapht.rl.service import RewardService, ServiceConfig
from regrapht.tasks import Task, find_task

TASKS = ["saxpy", "sum_of_squares", "spmv_csr", "gemv", "histogram_u8", "inclusive_scan", "transpose", "softmax_rows"]


def _fence(code: str, target: str) -> str:
    return f"My kernel:\n\n```{'cuda' if target == 'cuda' else 'cpp'}\n{code}\n```\n"


def completions(task: Task, target: str, size: int, mix: tuple[int, int, int]) -> list[tuple[str, str]]:
    """(kind, completion) for one group: correct, wrong (returns before writing), compile error."""
    source = (task.naive_source() if target == "cuda" else None) or task.serial_source()
    opening = re.search(rf"\b{re.escape(task.function)}\s*\([^)]*\)\s*\{{", source)
    if opening is None:
        raise SystemExit(f"{task.id}: cannot find the body of {task.function} to make a wrong variant")
    wrong = source[: opening.end()] + " return; " + source[opening.end() :]
    broken = source.replace(";", "", 1)
    variants = [("correct", source), ("wrong", wrong), ("compile_error", broken)]
    # Interleaved so that any group size keeps the mix's proportions as nearly as it can.
    kinds = [variants[k] for _, k in sorted(((j + 0.5) / m, k) for k, m in enumerate(mix) for j in range(m))]
    out = []
    for i in range(size):
        kind, code = kinds[i % len(kinds)]
        out.append((kind, _fence(f"{code}\n// sample {i}\n", target)))  # distinct text, as sampled completions are
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", choices=["cuda", "cpu"], default="cuda")
    parser.add_argument("--groups", type=int, default=8)
    parser.add_argument("--group-size", type=int, default=8)
    parser.add_argument("--mix", default="4,2,2", help="correct,wrong,compile_error per group of that many")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--budget", type=float, default=0.5, help="timing seconds per candidate")
    parser.add_argument("--tasks", nargs="+", default=None, help="task ids or folders (default: eight shipped tasks)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    mix = tuple(int(x) for x in args.mix.split(","))
    if len(mix) != 3:
        raise SystemExit("--mix takes three counts: correct,wrong,compile_error")

    tasks = [find_task(t) for t in (args.tasks or TASKS)[: args.groups]]
    with Evaluator(EvalConfig(timing_config=TimingConfig(budget_s=args.budget))) as evaluator:
        env = RewardEnv(tasks, evaluator, EnvConfig(target=args.target, train_variants=1, heldout_variants=0))
        problems = [env.sampler.find(env.sampler.train_pool(t)[0].task.id) for t in tasks]
        batch = [(p, completions(p.task, args.target, args.group_size, mix)) for p in problems]
        groups = [(p, [c for _, c in g]) for p, g in batch]
        service = RewardService(env, ServiceConfig(port=0, max_completions=10_000, max_batch=10_000)).start()
        client = RewardClient(service.url)

        fingerprint: dict = {}

        def in_process() -> tuple[float, list]:
            t0 = time.perf_counter()
            scored = env.score_groups(groups)
            seconds = time.perf_counter() - t0
            records = [r.evaluation for g in scored for r in g if r.evaluation is not None]
            fingerprint.update(records[0].fingerprint if records else {})
            return seconds, [[r.reward.evidence.status for r in g] for g in scored]

        def over_http() -> tuple[float, list]:
            t0 = time.perf_counter()
            scored = client.score_groups([(p.id, c) for p, c in groups])
            return time.perf_counter() - t0, [[r["evidence"]["status"] for r in g] for g in scored]

        warm_s, statuses = in_process()
        local, remote = [], []
        for _ in range(args.rounds):
            for series, run in ((local, in_process), (remote, over_http)):
                seconds, got = run()
                if got != statuses:
                    raise SystemExit("the verdicts differ between runs: see the records")
                series.append(seconds)
        client.close()
        service.shutdown()

    n = sum(len(c) for _, c in groups)
    expected = {"correct": "correct", "wrong": "wrong_answer", "compile_error": "compile_error"}
    mismatched = [(p.id, kind, s) for (p, g), st in zip(batch, statuses) for (kind, _), s in zip(g, st) if expected[kind] != s]
    result = {
        "target": args.target,
        "completions": n,
        "groups": len(groups),
        "mix": dict(zip(("correct", "wrong", "compile_error"), mix)),
        "statuses": {s: sum(row.count(s) for row in statuses) for s in {s for row in statuses for s in row}},
        "unexpected_statuses": mismatched,
        "first_round_s": warm_s,
        "in_process_s": local,
        "http_s": remote,
        "rewards_per_minute_in_process": n / (statistics.median(local) / 60),
        "rewards_per_minute_http": n / (statistics.median(remote) / 60),
        "http_overhead": statistics.median(remote) / statistics.median(local) - 1,
        "fingerprint": fingerprint,
    }
    text = json.dumps(result, indent=2, default=str)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
