"""Reward throughput of the RL environment, in process and through the HTTP service.

A GRPO-sized batch: `--groups` problems (one per task, a training variant each) x `--group-size`
completions, a realistic mix per group: correct code (naive.cu on cuda, serial.cpp on cpu), code that
returns before writing its output (wrong answer), and code that does not compile, in the proportions
of `--mix`. The batch is scored twice, in process (`RewardEnv.score_groups`) and through the service
on loopback (`RewardClient.score_groups`), alternately `--rounds` times each, on one evaluator, so
the service's overhead is a ratio measured side by side. The first in-process round fills the
compile cache and the serial baselines; it is reported apart and left out of the ratio.

Rewards per GPU-minute are completions / (wall minutes x GPUs used).

With `--gpus 0 0,1` (cuda) or `--cpu-lanes 1 2` (cpu), one series per list, side by side in one call:
the same batch scored through the device pool on one GPU, then on two. Every series starts from the
same state: a fresh compile cache and a fresh serial-baseline store (its first round is cold: every
compile, bench build and serial baseline is made in it), then `--rounds` warm rounds (compiles
cached, bench data retained, baselines kept). Each series' rewards per wall minute and per
GPU-minute, cold and warm, and their ratio to the first series are printed, each series as soon as
it is measured. The HTTP service is measured on the first series only (`--no-http`: not at all).

A trainer's steady state, in less time (`scale_gpu_session.sh`): `--warmup N` makes the first round
N completions per problem (it builds each problem's bench data and settles its serial baseline),
`--fresh-text` gives every warm round completions of new text (so their compiles are made anew, as a
trainer's next step's are), and `--share-baselines` starts every series after the first from a copy
of the serial-baseline store the first one filled. The warm rounds of every series are then in the
same state: fresh compiles, bench data built, baselines kept; the first rounds are not compared.

Run on the GPU machine:
    PYTHONPATH=src python3 benchmarks/rl_throughput.py --target cuda --gpus 0 0,1 --out rl.json
Without a GPU: --target cpu (times serial.cpp against itself: the plumbing's cost, not a kernel's).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import tempfile
import time
from pathlib import Path

from regrapht.eval import EvalConfig, Evaluator, TimingConfig
from regrapht.eval.pool import open_evaluator
from regrapht.rl import EnvConfig, RewardEnv
from regrapht.tasks import Task, find_task

TASKS = ["saxpy", "sum_of_squares", "spmv_csr", "gemv", "histogram_u8", "inclusive_scan", "transpose", "softmax_rows"]


def _fence(code: str, target: str) -> str:
    return f"My kernel:\n\n```{'cuda' if target == 'cuda' else 'cpp'}\n{code}\n```\n"


def completions(
    task: Task, target: str, size: int, mix: tuple[int, int, int], tag: str = ""
) -> list[tuple[str, str]]:
    """(kind, completion) for one group: correct, wrong (returns before writing), compile error.
    `tag` makes the texts those of another round (fresh compiles)."""
    source = (task.naive_source() if target == "cuda" else None) or task.serial_source()
    opening = re.search(rf"\b{re.escape(task.function)}\s*\([^)]*\)\s*\{{", source)
    if opening is None:
        raise SystemExit(f"{task.id}: cannot find the body of {task.function} to make a wrong variant")
    wrong = source[: opening.end()] + " return; " + source[opening.end() :]
    # a statement that cannot parse, first in the body (dropping a semicolon was not always an error:
    # the file's first may sit in a comment, and some statements survive without theirs)
    broken = source[: opening.end()] + " int not_valid = ; " + source[opening.end() :]
    variants = [("correct", source), ("wrong", wrong), ("compile_error", broken)]
    # Interleaved so that any group size keeps the mix's proportions as nearly as it can.
    kinds = [variants[k] for _, k in sorted(((j + 0.5) / m, k) for k, m in enumerate(mix) for j in range(m))]
    out = []
    for i in range(size):
        kind, code = kinds[i % len(kinds)]
        out.append((kind, _fence(f"{code}\n// sample {i}{tag}\n", target)))  # distinct text, as sampled completions are
    return out


def series(
    tasks: list[Task],
    args: argparse.Namespace,
    mix: tuple[int, int, int],
    lanes: str | None,
    http: bool,
    baselines_from: Path | None = None,
    keep_baselines: Path | None = None,
) -> dict:
    """One series on a fresh compile cache and serial store (or a copy of `baselines_from`): a cold
    round, then `args.rounds` warm rounds in process (alternating with rounds through the HTTP
    service where `http`). `lanes`: None for the Evaluator in this process, else a GPU list (cuda) or
    a CPU lane count (cpu). `keep_baselines`: where to copy the serial store the series filled."""
    with tempfile.TemporaryDirectory() as cache:
        config = EvalConfig(cache_dir=cache, timing_config=TimingConfig(budget_s=args.budget))
        store = Path(cache) / "serial-baselines.sqlite"  # where the evaluator keeps it by default
        config.serial_store = str(store)
        if baselines_from is not None:
            _copy_store(baselines_from, store)
        began = time.perf_counter()
        if lanes is None:
            opened = Evaluator(config)
        elif args.target == "cuda":
            opened = open_evaluator(config, "cuda", gpus=lanes)
        else:
            opened = open_evaluator(config, "cpu", lanes=int(lanes))
        gpus = len(getattr(opened, "lanes", [None]))
        with opened as evaluator:
            open_s = time.perf_counter() - began
            env = RewardEnv(tasks, evaluator, EnvConfig(target=args.target, train_variants=1, heldout_variants=0))
            problems = [env.sampler.find(env.sampler.train_pool(t)[0].task.id) for t in tasks]
            batch = [(p, completions(p.task, args.target, args.group_size, mix)) for p in problems]
            groups = [(p, [c for _, c in g]) for p, g in batch]
            # The first round: the whole batch, or with --warmup its first N completions per problem.
            first = [(p, [c for _, c in g[: args.warmup] or g]) for p, g in batch]
            first_kinds = [[k for k, _ in g[: args.warmup] or g] for _, g in batch]
            rounds_done = [0]
            fingerprint: dict = {}
            lanes_seen: set[str] = set()

            def round_groups() -> list:
                rounds_done[0] += 1
                if not args.fresh_text:
                    return groups
                tag = f" round {rounds_done[0]}"
                return [(p, [c for _, c in completions(p.task, args.target, args.group_size, mix, tag)]) for p in problems]

            def in_process(batch_groups: list | None = None) -> tuple[float, list]:
                t0 = time.perf_counter()
                scored = env.score_groups(batch_groups if batch_groups is not None else round_groups())
                seconds = time.perf_counter() - t0
                records = [r.evaluation for g in scored for r in g if r.evaluation is not None]
                fingerprint.update(records[0].fingerprint if records else {})
                lanes_seen.update(str(r.fingerprint.get("lane")) for r in records if r.fingerprint.get("lane"))
                return seconds, [[r.reward.evidence.status for r in g] for g in scored]

            cold_s, first_statuses = in_process(first)
            statuses = None
            local, remote = [], []
            service = client = None
            if http:
                # Imported here: the client needs httpx, which a GPU machine measuring --no-http may lack.
                from regrapht.rl.client import RewardClient
                from regrapht.rl.service import RewardService, ServiceConfig

                service = RewardService(env, ServiceConfig(port=0, max_completions=10_000, max_batch=10_000)).start()
                client = RewardClient(service.url)

            def over_http() -> tuple[float, list]:
                assert client is not None
                t0 = time.perf_counter()
                scored = client.score_groups([(p.id, c) for p, c in round_groups()])
                return time.perf_counter() - t0, [[r["evidence"]["status"] for r in g] for g in scored]

            runs = [(local, in_process)] + ([(remote, over_http)] if http else [])
            for _ in range(args.rounds):
                for out, run in runs:
                    seconds, got = run()
                    if statuses is not None and got != statuses:
                        raise SystemExit("the verdicts differ between rounds: see the records")
                    statuses = got
                    out.append(seconds)
            if client is not None and service is not None:
                client.close()
                service.shutdown()
        if keep_baselines is not None:
            _copy_store(store, keep_baselines)
    n = sum(len(c) for _, c in groups)
    n_first = sum(len(c) for _, c in first)
    expected = {"correct": "correct", "wrong": "wrong_answer", "compile_error": "compile_error"}
    mismatched = [(p.id, kind, s) for kinds, st, (p, _) in zip(first_kinds, first_statuses, batch)
                  for kind, s in zip(kinds, st) if expected[kind] != s]  # fmt: skip
    if statuses is not None:
        mismatched += [(p.id, kind, s) for (p, g), st in zip(batch, statuses) for (kind, _), s in zip(g, st) if expected[kind] != s]
    else:
        statuses = first_statuses
    warm_s = statistics.median(local) if local else None
    out = {
        "lanes": lanes,
        "lane_names": sorted(lanes_seen),
        "gpus": gpus if args.target == "cuda" else 0,
        "lanes_used": gpus,
        "open_s": open_s,
        "completions": n,
        "groups": len(groups),
        "statuses": {s: sum(row.count(s) for row in statuses) for s in {s for row in statuses for s in row}},
        "verdicts": statuses,
        "unexpected_statuses": mismatched,
        "first_round_completions": n_first,
        "first_round_state": "cold compile cache; serial baselines "
        + ("from a copy of the first series' store (kept)" if baselines_from else "from a fresh store (timed in the round)"),
        "warm_round_state": "bench data built and serial baselines kept in the first round; compiles "
        + ("made anew (new completion texts)" if args.fresh_text else "cached (the same texts)"),
        "first_round_s": cold_s,
        "in_process_s": local,
        "http_s": remote,
        "rewards_per_minute_cold": n_first / (cold_s / 60),
        "rewards_per_gpu_minute_cold": n_first / (cold_s / 60) / gpus,
        "rewards_per_minute_in_process": n / (warm_s / 60) if warm_s else None,
        "rewards_per_gpu_minute_warm": n / (warm_s / 60) / gpus if warm_s else None,
        "fingerprint": fingerprint,
    }
    if remote and warm_s:
        out["rewards_per_minute_http"] = n / (statistics.median(remote) / 60)
        out["http_overhead"] = statistics.median(remote) / warm_s - 1
    return out


def _copy_store(source: Path, dest: Path) -> None:
    """Copy a serial-baseline store (SQLite, possibly with a write-ahead log) as one consistent file."""
    import sqlite3

    if not source.exists():
        return  # nothing kept yet: the next series starts fresh, as its record says
    with sqlite3.connect(source) as src, sqlite3.connect(dest) as dst:
        src.backup(dst)


def _line(args: argparse.Namespace, run: dict, first: dict) -> str:
    warm = run["rewards_per_minute_in_process"]
    warm_first = first["rewards_per_minute_in_process"]
    return (
        f"RL rewards, {args.target}, lanes {run['lanes'] or 'in process'} ({', '.join(run['lane_names']) or 'this process'}): "
        f"first round {run['first_round_completions']} completions in {run['first_round_s']:.1f} s = "
        f"{run['rewards_per_minute_cold']:.1f} per wall minute ({run['first_round_state']})"
        + (f"; warm {run['completions']} completions in {statistics.median(run['in_process_s']):.1f} s = {warm:.1f} per wall "
           f"minute, {run['rewards_per_gpu_minute_warm']:.1f} per GPU-minute, {warm / warm_first:.2f}x the first series "
           f"({run['warm_round_state']})" if warm and warm_first else "")
        + f"; verdicts {'the same as' if run['verdicts'] == first['verdicts'] else 'DIFFERENT from'} the first series"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", choices=["cuda", "cpu"], default="cuda")
    parser.add_argument("--groups", type=int, default=8)
    parser.add_argument("--group-size", type=int, default=8)
    parser.add_argument("--mix", default="4,2,2", help="correct,wrong,compile_error per group of that many")
    parser.add_argument("--rounds", type=int, default=3, help="warm rounds after the cold one, per series")
    parser.add_argument("--budget", type=float, default=0.5, help="timing seconds per candidate")
    parser.add_argument("--tasks", nargs="+", default=None, help="task ids or folders (default: eight shipped tasks)")
    parser.add_argument("--gpus", nargs="+", default=None, help="cuda: GPU lists, one series each (e.g. 0 0,1)")
    parser.add_argument("--cpu-lanes", nargs="+", default=None, help="cpu: CPU lane counts, one series each (e.g. 1 2)")
    parser.add_argument("--no-http", action="store_true", help="leave out the HTTP service's rounds")
    parser.add_argument("--warmup", type=int, default=0,
                        help="the first round scores this many completions per problem (0: the whole batch)")
    parser.add_argument("--fresh-text", action="store_true", help="every warm round's completions are new texts")
    parser.add_argument("--share-baselines", action="store_true",
                        help="series after the first start from the serial baselines the first one kept")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    mix = tuple(int(x) for x in args.mix.split(","))
    if len(mix) != 3:
        raise SystemExit("--mix takes three counts: correct,wrong,compile_error")
    if args.gpus and args.target != "cuda":
        parser.error("--gpus is for --target cuda; on the cpu target give --cpu-lanes")
    if args.cpu_lanes and args.target != "cpu":
        parser.error("--cpu-lanes is for --target cpu")
    tasks = [find_task(t) for t in (args.tasks or TASKS)[: args.groups]]
    pools = args.gpus or args.cpu_lanes or [None]
    if args.warmup < 0 or (args.warmup and args.rounds < 1):
        parser.error("--warmup needs at least one warm round (--rounds 1) to measure the batch")
    runs = []
    with tempfile.TemporaryDirectory() as kept:
        first_store = Path(kept) / "serial-baselines-first.sqlite" if args.share_baselines else None
        for k, lanes in enumerate(pools):
            runs.append(series(tasks, args, mix, lanes, http=not args.no_http and k == 0,
                               baselines_from=first_store if k else None,
                               keep_baselines=first_store if k == 0 else None))  # fmt: skip
            print(_line(args, runs[-1], runs[0]), flush=True)  # as soon as it is measured
            if args.out and k + 1 < len(pools):  # what is done survives a time limit that stops the next series
                args.out.write_text(json.dumps({"target": args.target, "partial": True, "series": runs}, indent=2, default=str))
    first = runs[0]
    for run in runs:
        run["verdicts_match_first"] = run["verdicts"] == first["verdicts"]
        run["cold_vs_first"] = run["rewards_per_minute_cold"] / first["rewards_per_minute_cold"]
        if run["rewards_per_minute_in_process"] and first["rewards_per_minute_in_process"]:
            run["warm_vs_first"] = run["rewards_per_minute_in_process"] / first["rewards_per_minute_in_process"]
    result = {
        "target": args.target,
        "mix": dict(zip(("correct", "wrong", "compile_error"), mix)),
        "state": "each series: fresh compile cache; "
        + ("the first series' serial store fresh, later ones from a copy of it" if args.share_baselines
           else "fresh serial-baseline store")
        + "; round 1 " + (f"{args.warmup} completion(s) per problem" if args.warmup else "the whole batch") + ", cold"
        + "; then warm rounds" + (" of new completion texts (fresh compiles)" if args.fresh_text else ""),
        "share_baselines": args.share_baselines,
        "warmup": args.warmup,
        "fresh_text": args.fresh_text,
        "series": runs,
    }
    # The single-series fields earlier readers of this file use.
    result.update({k: first[k] for k in ("completions", "groups", "statuses", "unexpected_statuses", "first_round_s",
                                          "in_process_s", "http_s", "rewards_per_minute_in_process", "fingerprint")})
    if "http_overhead" in first:
        result["rewards_per_minute_http"] = first["rewards_per_minute_http"]
        result["http_overhead"] = first["http_overhead"]
    text = json.dumps(result, indent=2, default=str)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
