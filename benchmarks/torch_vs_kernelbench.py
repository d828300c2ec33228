"""regrapht vs KernelBench's eval_kernel_against_ref on the same 30 torch candidates, on one GPU.

Both harnesses judge every candidate of benchmarks/torch_candidates/expected.toml (CUDA through
load_inline and Triton; correct, wrong, failing and cheating ones) against its task in
benchmarks/torch_tasks/, one harness after the other in one call. Reported: evaluations per
GPU-minute of each (evaluations / the wall seconds the harness held the GPU, cold build caches for
both), their ratio, each candidate's verdict from both, and every verdict that differs with the
reason. KernelBench is run as its README runs it (benchmarks/tvk_kernelbench.py says how; its
optional CPU pre-build, --kb-build-cache N, is off by default as in KernelBench, and when on its
seconds count in the wall-clock figure but not in the GPU one);
regrapht through its Python API, falling back to its CLI (benchmarks/tvk_regrapht.py).

A run stops starting evaluations at --deadline-s and writes what it has; --resume with that JSON
continues where it stopped (the report flags a resumed run whose parts ran on different GPUs).

`--repeat N` measures repeatability instead: one candidate's speedup over eager PyTorch over N
independent evaluations by each harness (issue 17's target for regrapht: spread <= 1%).

On the GPU machine, from the repository root:
  PYTHONPATH=src python3 benchmarks/torch_vs_kernelbench.py --kernelbench .kernelbench --out $OUT
  PYTHONPATH=src python3 benchmarks/torch_vs_kernelbench.py --kernelbench .kernelbench --out $OUT --repeat 10
Without a GPU (checks the candidate set, the tasks, KernelBench's import and its static checker):
  PYTHONPATH=src python3 benchmarks/torch_vs_kernelbench.py --check --kernelbench .kernelbench
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

from tvk_common import (
    Candidate,
    CandidateSetError,
    HarnessRun,
    check_candidate_source,
    compare,
    load_candidates,
    markdown,
    spread,
)
from tvk_kernelbench import KernelBenchHarness, KernelBenchUnavailable, gpu_arch, kernelbench_env
from tvk_regrapht import RegraphtHarness, RegraphtUnavailable
from tvk_tasks import check_task

RESULT = "torch_vs_kernelbench.json"
REPEAT_RESULT = "torch_repeatability.json"
# Before the first evaluation of a kind, the time one is assumed to take, for the deadline.
FIRST_GUESS_S = {"regrapht": 20.0, "kernelbench": 45.0}


def gpu_name() -> str:
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=name,uuid", "--format=csv,noheader", "-i", "0"],
            capture_output=True, text=True, timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return out.stdout.strip() or "unknown"


def git_commit(path: Path) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(path), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None


def kernelbench_commit(path: Path) -> str | None:
    marker = path / "COMMIT"  # an exported copy (no .git) records its commit here
    return marker.read_text().strip() if marker.is_file() else git_commit(path)


def new_state(args: argparse.Namespace) -> dict:
    return {
        "version": 1,
        "regrapht_commit": git_commit(Path(__file__).resolve().parent),
        "kernelbench_commit": kernelbench_commit(args.kernelbench),
        "settings": {
            "kb_baselines": args.kb_baselines,
            "kb_build_cache": args.kb_build_cache,
            "kb_timeout_s": args.kb_timeout,
            "target": args.target,
        },
        "segments": [],
        "regrapht": {"rows": {}, "gpu_seconds": 0.0, "devices": [], "error": "", "notes": []},
        "kernelbench": {"rows": {}, "baselines": {}, "gpu_seconds": 0.0, "devices": [], "error": ""},
    }


def _baselines(args: argparse.Namespace) -> tuple[str, ...]:
    return tuple(b.strip() for b in getattr(args, "regrapht_baselines", "eager").split(",") if b.strip())


class Clock:
    def __init__(self, deadline_s: float):
        self.start = time.monotonic()
        self.deadline_s = deadline_s

    def allows(self, next_s: float) -> bool:
        return time.monotonic() - self.start + next_s <= self.deadline_s


def fresh_caches(root: Path, harness: str) -> None:
    """Triton's and Inductor's caches for this harness alone (the evaluator's workers inherit them)."""
    os.environ["TRITON_CACHE_DIR"] = str(root / harness / "triton-cache")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(root / harness / "inductor-cache")


def run_regrapht(state: dict, cands: list[Candidate], clock: Clock, args: argparse.Namespace, device: str) -> None:
    """regrapht's part: every candidate's extension build started at once on the evaluator's CPU pool,
    then evaluate_many batches of --batch candidates (any tasks) whose device turns start as builds
    finish. GPU seconds: the sum of the device turns (reference and candidate workers); the rest of
    the harness's wall (the first builds, the evaluator's start) is CPU-only, reported beside."""
    part = state["regrapht"]
    part["error"] = ""  # an earlier segment's reason for stopping no longer holds
    pending = [c for c in cands if c.key not in part["rows"]]
    guess = FIRST_GUESS_S["regrapht"]
    start = time.monotonic()  # the harness's whole wall, its evaluator's start and close included
    device_s = 0.0
    with RegraphtHarness(target=args.target, baselines=_baselines(args)) as harness:
        try:
            started = harness.prebuild([c.path for c in pending])
            part["notes"].append(f"{started} extension builds started on the CPU pool before the first device turn")
            for i in range(0, len(pending), args.batch):
                chunk = pending[i : i + args.batch]
                if not clock.allows(guess * len(chunk)):
                    part["notes"].append(f"deadline: {len(pending) - i} candidates left for --resume")
                    break
                try:
                    rows, wall, turns = harness.evaluate_batch([(c.key, c.task_dir, c.path) for c in chunk])
                except RegraphtUnavailable:
                    raise
                except Exception as exc:  # the evaluator failed on this batch: no verdicts for it, try the next
                    keys = ", ".join(c.key for c in chunk)
                    part.setdefault("task_errors", {})[keys] = f"{type(exc).__name__}: {exc}\n{traceback.format_exc()[-1500:]}"
                    print(f"regrapht [{keys}]: {type(exc).__name__}: {exc}", flush=True)
                    continue
                part["rows"].update(rows)
                device_s += turns
                if device not in part["devices"]:
                    part["devices"].append(device)
                guess = max(guess * 0.5, wall / len(chunk))
                print(f"regrapht batch of {len(chunk)}: {wall:.1f} s wall, {turns:.1f} s of device turns: "
                      + ", ".join(f"{k}={r['verdict']}" for k, r in rows.items()), flush=True)
            _repeat_regrapht_in_call(part, harness, cands, clock, args)
        except RegraphtUnavailable as exc:
            part["error"] = str(exc)
        part["notes"] = sorted(set(part["notes"] + harness.notes))
    if any(c.key in part["rows"] for c in pending):
        wall = time.monotonic() - start
        part["gpu_seconds"] += device_s
        part["offload_seconds"] = part.get("offload_seconds", 0.0) + max(0.0, wall - device_s - part.get("_repeat_s", 0.0))
    part.pop("_repeat_s", None)


def _repeat_keys(part: dict, args: argparse.Namespace) -> list[str]:
    return [k for k in args.repeat_keys if (part["rows"].get(k) or {}).get("verdict") == "correct"]


def _repeat_regrapht_in_call(part: dict, harness: RegraphtHarness, cands: list[Candidate], clock: Clock,
                             args: argparse.Namespace) -> None:  # fmt: skip
    """Repeatability: each --repeat-keys candidate judged correct evaluated again (--repeats in all),
    its build cached, in the same evaluator; the speedups over eager and their spread. Not counted in
    the throughput."""
    by_key = {c.key: c for c in cands}
    reps = part.setdefault("repeats", {})
    began = time.monotonic()
    for key in _repeat_keys(part, args):
        got = reps.setdefault(key, [part["rows"][key].get("speedup_vs_eager")])
        while len(got) < args.repeats:
            if not clock.allows(max(part["rows"][key]["seconds"], 5.0) * 1.5):
                part["notes"].append(f"deadline: repeats of {key} stopped at {len(got)}")
                break
            c = by_key[key]
            rows, _, _ = harness.evaluate_batch([(key, c.task_dir, c.path)])
            got.append(rows[key].get("speedup_vs_eager") if rows[key]["verdict"] == "correct" else None)
    part["_repeat_s"] = time.monotonic() - began


def kernelbench_static_check(path: Path) -> dict:
    """`tvk_kernelbench.py check` in a child, as every KernelBench step: importing KernelBench patches
    torch (torch.rand_mix), which the regrapht side of this process must not see, and its packages
    ($TVK_KB_SITE) are on the child's path only."""
    proc = subprocess.run(
        [sys.executable, str(Path(__file__).resolve().parent / "tvk_kernelbench.py"), "check", "--kernelbench", str(path)],
        capture_output=True, text=True, env=kernelbench_env(),
    )
    if proc.returncode != 0:
        raise KernelBenchUnavailable((proc.stderr or proc.stdout).strip()[-800:])
    return json.loads(proc.stdout)


def run_kernelbench(state: dict, cands: list[Candidate], clock: Clock, args: argparse.Namespace, device: str, work: Path,
                    overlapped: bool = False) -> None:  # fmt: skip
    part = state["kernelbench"]
    part["error"] = ""  # an earlier segment's reason for stopping no longer holds
    if "static_check" not in part:
        try:
            part["static_check"] = kernelbench_static_check(args.kernelbench)["static_check"]
        except KernelBenchUnavailable as exc:
            part["error"] = f"KernelBench unavailable: {exc}"
            return
    harness = KernelBenchHarness(args.kernelbench, work / "kernelbench", args.kb_timeout, args.kb_baselines)
    failures = 0
    if args.kb_build_cache and not overlapped:
        _kb_precompile(part, cands, harness, args.kb_build_cache)
    # The next evaluation is assumed to take as long as the slowest of the last three (a timed-out
    # one aside): long enough to stop in time, not so long that one hang ends the run.
    recent: list[float] = []
    for c in cands:
        if c.key in part["rows"]:
            continue
        need_baseline = args.kb_baselines == "per-task" and c.task not in part["baselines"]
        expect = max(recent[-3:]) if recent else FIRST_GUESS_S["kernelbench"] / (3 if args.kb_build_cache else 1)
        if not clock.allows(expect * (2 if need_baseline else 1)):
            part["error"] = part["error"] or "deadline: the remaining candidates are left for --resume"
            break
        rows = []
        if need_baseline:
            rows.append((f"baselines {c.task}", harness.task_baselines(c.task, c.task_dir / "reference.py")))
            if rows[-1][1].get("verdict") != "harness_error":
                part["baselines"][c.task] = rows[-1][1]
        if not rows or rows[-1][1].get("verdict") != "harness_error":
            rows.append((c.key, harness.evaluate(c.key, c.task_dir / "reference.py", c.path, c.backend)))
        part["gpu_seconds"] += sum(r["seconds"] for _, r in rows)
        label, row = rows[-1]
        if row.get("verdict") == "harness_error" and not row.get("kernelbench_retry"):
            # KernelBench itself failed (not the candidate): no verdict; the candidate stays pending
            # for --resume, and two such failures in a row end this harness's part of the run.
            part.setdefault("harness_errors", {})[label] = row
            failures += 1
            print(f"kernelbench {label}: harness error: {row.get('message', '')[:300]}", flush=True)
            if failures >= 2:
                part["error"] = f"KernelBench failed twice in a row; last: {row.get('message', '')[:600]}"
                break
            continue
        failures = 0
        _kb_speedups(row, part["baselines"].get(c.task))
        part["rows"][c.key] = row
        if device not in part["devices"]:
            part["devices"].append(device)
        if row["verdict"] != "timeout":
            recent.append(row["seconds"])
        print(f"kernelbench {c.key}: {row['verdict']} in {row['seconds']:.1f} s {row.get('message', '')[:100]}", flush=True)
    # Repeatability, as on regrapht's side: its build folder is kept, so a repeat loads the build.
    by_key = {c.key: c for c in cands}
    reps = part.setdefault("repeats", {})
    for key in _repeat_keys(part, args):
        got = reps.setdefault(key, [part["rows"][key].get("speedup_vs_eager")])
        while len(got) < args.repeats and clock.allows(max(part["rows"][key]["seconds"], 5.0) * 1.5):
            c = by_key[key]
            row = harness.evaluate(key, c.task_dir / "reference.py", c.path, c.backend)
            _kb_speedups(row, part["baselines"].get(c.task))
            got.append(row.get("speedup_vs_eager") if row.get("verdict") == "correct" else None)


def _kb_precompile(part: dict, cands: list[Candidate], harness: KernelBenchHarness, workers: int) -> None:
    """KernelBench's optional CPU pre-build of the pending CUDA candidates (its build_cache mode). Its
    seconds are kept apart: the GPU is idle meanwhile, so they count in the wall-clock figure only."""
    todo = [(c.key, c.path) for c in cands if c.backend == "cuda" and c.key not in part["rows"]]
    if not todo:
        return
    results, wall = harness.precompile(todo, workers, gpu_arch(compute_capability()))
    part.setdefault("precompile", {}).update(results)
    part["offload_seconds"] = part.get("offload_seconds", 0.0) + wall
    print(f"kernelbench pre-build: {len(todo)} CUDA candidates on {workers} CPU workers in {wall:.1f} s", flush=True)


def compute_capability() -> tuple[int, int]:
    """The GPU's compute capability from nvidia-smi: this process must not initialize CUDA (regrapht's
    evaluator starts worker processes from it)."""
    out = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader", "-i", "0"],
                         capture_output=True, text=True, timeout=30)
    major, _, minor = out.stdout.strip().partition(".")
    return int(major), int(minor or 0)


def _kb_speedups(row: dict, task_baseline: dict | None) -> None:
    base = row.get("baselines") or (task_baseline or {}).get("baselines") or {}
    runtime = row.get("runtime_ms")
    for name in ("eager", "compile"):
        ref = base.get(name)
        row[f"speedup_vs_{name}"] = ref / runtime if ref and runtime else None


def compare_run(state: dict, cands: list[Candidate]) -> dict:
    runs = []
    for name in ("regrapht", "kernelbench"):
        part = state[name]
        runs.append(HarnessRun(name, part["rows"], part["gpu_seconds"], part["devices"], part["error"],
                               part.get("offload_seconds", 0.0)))
    report = compare(cands, *runs)
    report["pending"] = {
        name: [c.key for c in cands if c.key not in state[name]["rows"]] for name in ("regrapht", "kernelbench")
    }
    return report


def run_comparison(args: argparse.Namespace, cands: list[Candidate]) -> int:
    out_file = args.out / RESULT
    device = gpu_name()
    if device == "unknown":
        print("error: nvidia-smi finds no GPU here; both harnesses need one (`--check` runs without)", file=sys.stderr)
        return 2
    state = json.loads(args.resume.read_text()) if args.resume else new_state(args)
    clock = Clock(args.deadline_s)
    segment = {"started": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"), "device": device}
    with tempfile.TemporaryDirectory(prefix="tvk-") as tmp:
        work = Path(tmp)
        early = _kb_prebuild_early(state, cands, args, work)
        for harness in args.order:
            if args.harness not in ("both", harness):
                continue
            start = time.monotonic()
            fresh_caches(work, harness)
            if harness == "regrapht":
                run_regrapht(state, cands, clock, args, device)
            else:
                if early is not None:
                    early.join()
                run_kernelbench(state, cands, clock, args, device, work, overlapped=early is not None)
            segment[f"{harness}_wall_s"] = round(time.monotonic() - start, 3)
    state["segments"].append(segment)
    state["report"] = compare_run(state, cands)
    state["report"]["repeatability"] = {
        name: {key: {"speedups_vs_eager": vals, "spread": spread([v for v in vals if v])}
               for key, vals in state[name].get("repeats", {}).items()}
        for name in ("regrapht", "kernelbench")
    }  # fmt: skip
    args.out.mkdir(parents=True, exist_ok=True)
    out_file.write_text(json.dumps(state, indent=1, default=str))
    (args.out / "torch_vs_kernelbench.md").write_text(markdown(state["report"]))
    t = state["report"]["throughput"]
    print(json.dumps({"throughput": t, "pending": state["report"]["pending"], "differing": len(state["report"]["differing"]),
                      "repeatability": state["report"]["repeatability"]}, indent=1))  # fmt: skip
    print(side_by_side(state["report"]))
    print(f"wrote {out_file}")
    return 0


def _kb_prebuild_early(state: dict, cands: list[Candidate], args: argparse.Namespace, work: Path):
    """With --kb-build-overlap, KernelBench's CPU pre-build (--kb-build-cache N) runs in a thread from
    the start, beside regrapht's part: both harnesses' builds are CPU work, and the call's wall then
    holds the slower of the two rather than their sum. It competes with regrapht's own builds for the
    CPU, never the other way round for KernelBench's GPU seconds. None when not asked for."""
    if not (args.kb_build_cache and args.kb_build_overlap and args.harness == "both"):
        return None
    import threading

    harness = KernelBenchHarness(args.kernelbench, work / "kernelbench", args.kb_timeout, args.kb_baselines)
    thread = threading.Thread(target=_kb_precompile, args=(state["kernelbench"], cands, harness, args.kb_build_cache), daemon=True)
    thread.start()
    return thread


def side_by_side(report: dict) -> str:
    """Throughput and repeatability of both harnesses, one line each."""
    t = report["throughput"]
    lines = []
    for name in ("regrapht", "kernelbench"):
        h = t[name]
        per = h["evaluations_per_gpu_minute"]
        reps = report.get("repeatability", {}).get(name, {})
        worst = max((r["spread"] for r in reps.values() if r["spread"] is not None), default=None)
        lines.append(f"{name:>11}: {h['evaluations']} evaluations, {h['gpu_seconds']:.1f} GPU s (+{h['offload_seconds']:.1f} s CPU only), "
                     f"{per:.2f} per GPU-minute" if per else f"{name:>11}: {h['evaluations']} evaluations, no rate")
        if reps:
            lines[-1] += f"; speedup spread over repeats: worst {worst:.2%}" if worst is not None else "; repeats incomplete"
    ratio = t.get("ratio")
    lines.append(f"ratio (regrapht / KernelBench, per GPU-minute): {ratio:.1f}x" if ratio else "ratio: n/a")
    return "\n".join(lines)


def run_repeat(args: argparse.Namespace, cands: list[Candidate]) -> int:
    cand = next((c for c in cands if c.key == args.repeat_candidate), None)
    if cand is None:
        print(f"error: --repeat-candidate {args.repeat_candidate!r} is not in expected.toml", file=sys.stderr)
        return 2
    clock = Clock(args.deadline_s)
    result: dict = {"candidate": cand.key, "runs": args.repeat, "device": gpu_name()}
    with tempfile.TemporaryDirectory(prefix="tvk-repeat-") as tmp:
        work = Path(tmp)
        if args.harness in ("both", "regrapht"):
            fresh_caches(work, "regrapht")
            result["regrapht"] = _repeat_regrapht(cand, args, clock, work)
        if args.harness in ("both", "kernelbench"):
            fresh_caches(work, "kernelbench")
            result["kernelbench"] = _repeat_kernelbench(cand, args, clock, work)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / REPEAT_RESULT).write_text(json.dumps(result, indent=1, default=str))
    print(json.dumps({k: v for k, v in result.items()}, indent=1, default=str)[:4000])
    return 0


def _repeat_regrapht(cand: Candidate, args: argparse.Namespace, clock: Clock, work: Path) -> dict:
    # One build cache for all runs (the figure is timing repeatability, not compile cost); a fresh
    # evaluator, secret and worker processes for each run.
    rows, error = [], ""
    for _ in range(args.repeat):
        if rows and not clock.allows(max(r["seconds"] for r in rows) * 1.5):
            error = "deadline"
            break
        try:
            with RegraphtHarness(
                target=args.target, cache_dir=str(work / "regrapht-build"), baselines=_baselines(args)
            ) as harness:
                got, _ = harness.evaluate_task(cand.task_dir, [(cand.key, cand.path)])
        except RegraphtUnavailable as exc:
            error = str(exc)
            break
        rows.append(got[cand.key])
    speedups = [r["speedup_vs_eager"] for r in rows if r["verdict"] == "correct"]
    medians = [r["candidate_median_ms"] for r in rows if r["verdict"] == "correct"]
    return {
        "verdicts": [r["verdict"] for r in rows],
        "eager_keys": sorted({r["eager_key"] for r in rows if r["eager_key"]}),
        "speedups_vs_eager": speedups,
        "speedup_spread": spread(speedups),
        "candidate_median_ms": medians,
        "median_spread": spread(medians),
        "error": error,
    }


def _repeat_kernelbench(cand: Candidate, args: argparse.Namespace, clock: Clock, work: Path) -> dict:
    # The same build folder for every run: after the first, load_inline finds its build and only loads it.
    harness = KernelBenchHarness(args.kernelbench, work / "kernelbench", args.kb_timeout, "per-candidate")
    rows, error = [], ""
    for _ in range(args.repeat):
        if not clock.allows(max([r["seconds"] for r in rows] or [FIRST_GUESS_S["kernelbench"]]) * 1.5):
            error = "deadline"
            break
        row = harness.evaluate(cand.key, cand.task_dir / "reference.py", cand.path, cand.backend)
        _kb_speedups(row, None)
        rows.append(row)
        if row.get("verdict") == "harness_error":
            error = row.get("message", "")
            break
    speedups = [r["speedup_vs_eager"] for r in rows if r.get("speedup_vs_eager")]
    runtimes = [r["runtime_ms"] for r in rows if r.get("runtime_ms")]
    return {
        "verdicts": [r.get("verdict") for r in rows],
        "speedups_vs_eager": speedups,
        "speedup_spread": spread(speedups),
        "runtime_ms": runtimes,
        "runtime_spread": spread(runtimes),
        "note": "KernelBench rounds its mean times to 3 significant digits, which bounds how fine its spread can be",
        "error": error,
    }


def run_check(args: argparse.Namespace) -> int:
    """CPU only: the candidate set and tasks are consistent; KernelBench imports and statically checks
    them; whether this checkout's regrapht can load a torch task yet."""
    problems = []
    try:
        cands = load_candidates()
    except CandidateSetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    for c in cands:
        problems += check_candidate_source(c)
    for task in sorted({c.task for c in cands}):
        problems += check_task(cands[0].task_dir.parent / task)
    summary: dict = {"candidates": len(cands), "tasks": len({c.task for c in cands}), "problems": problems}
    try:
        kb = kernelbench_static_check(args.kernelbench)
        summary["kernelbench"] = {
            "stubbed_modules": kb["stubbed_modules"],
            "static_check_rejects": {k: v["errors"] for k, v in kb["static_check"].items() if not v["valid"]},
            "static_check_warnings": {k: v["warnings"] for k, v in kb["static_check"].items() if v["warnings"]},
        }
    except KernelBenchUnavailable as exc:
        summary["kernelbench"] = f"unavailable: {exc}"
    try:
        from tvk_regrapht import _load_task

        _load_task(cands[0].task_dir)
        summary["regrapht"] = "loads torch tasks"
    except RegraphtUnavailable as exc:
        summary["regrapht"] = f"unavailable: {exc}"
    print(json.dumps(summary, indent=1))
    return 1 if problems else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernelbench", type=Path, default=Path(".kernelbench"), help="A KernelBench checkout.")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "results")
    parser.add_argument("--harness", choices=["both", "regrapht", "kernelbench"], default="both")
    parser.add_argument("--order", nargs=2, default=["regrapht", "kernelbench"], choices=["regrapht", "kernelbench"],
                        help="Which harness runs first (default: regrapht, then KernelBench).")
    parser.add_argument("--only", nargs="+", default=None, help="Candidate keys (<task>/<name>) to run; default all 30.")
    parser.add_argument("--resume", type=Path, default=None, help="A previous run's JSON: continue it.")
    parser.add_argument("--deadline-s", type=float, default=520.0, help="Start no evaluation that would end after this.")
    parser.add_argument("--kb-timeout", type=float, default=300.0, help="Seconds per KernelBench candidate process.")
    parser.add_argument("--kb-baselines", choices=["per-task", "per-candidate"], default="per-task")
    parser.add_argument("--kb-build-cache", type=int, default=0, metavar="N",
                        help="KernelBench's optional CPU pre-build with N workers (its build_cache=True "
                             "num_cpu_workers=N); off by default, as in KernelBench.")
    parser.add_argument("--kb-build-overlap", action="store_true",
                        help="With --kb-build-cache: run KernelBench's CPU pre-build beside regrapht's part.")
    parser.add_argument("--batch", type=int, default=6, help="regrapht candidates per evaluate_many batch "
                        "(every build starts at once regardless; the deadline is checked between batches).")
    parser.add_argument("--repeats", type=int, default=3,
                        help="Evaluations in all of each --repeat-keys candidate judged correct, for the spread.")
    parser.add_argument("--repeat-keys", nargs="*", default=["relu/cuda_vec4", "softmax/cuda_block", "relu/triton"])
    parser.add_argument("--target", default="cuda", help="regrapht's target for torch candidates.")
    parser.add_argument("--regrapht-baselines", default="eager",
                        help="Baselines regrapht times beside each candidate, comma-separated (eager, compile, "
                        "max-autotune, cudagraph). Default eager: KernelBench times the candidate alone.")
    parser.add_argument("--repeat", type=int, default=0, help="Repeatability mode: this many evaluations of one candidate.")
    parser.add_argument("--repeat-candidate", default="softmax/cuda_block")
    parser.add_argument("--check", action="store_true", help="CPU-only consistency and import check.")
    args = parser.parse_args()
    if args.check:
        return run_check(args)
    try:
        cands = load_candidates()
    except CandidateSetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.only:
        unknown = sorted(set(args.only) - {c.key for c in cands})
        if unknown:
            print(f"error: unknown candidates {unknown}", file=sys.stderr)
            return 2
        cands = [c for c in cands if c.key in args.only]
    if args.order[0] == args.order[1]:
        print("error: --order names each harness once", file=sys.stderr)
        return 2
    return run_repeat(args, cands) if args.repeat else run_comparison(args, cands)


if __name__ == "__main__":
    sys.exit(main())
