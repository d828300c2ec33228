"""regrapht vs KernelBench's eval_kernel_against_ref on the same torch candidates, in one GPU call of
at most --budget-s seconds (default 285, inside torch_gpu_session.sh's 300 s limit).

The plan (CUDA_VISIBLE_DEVICES picks regrapht's GPU):
1. From the start, both harnesses' CPU builds: regrapht's extension builds on its evaluator's CPU
   pool, and KernelBench's own optional CPU pre-build of every CUDA candidate (its build_cache mode,
   --kb-build-workers at once, at nice --kb-nice so it does not slow regrapht's device turns; its
   seconds never count as GPU time).
2. regrapht's device turns, one candidate at a time as its builds finish, until
   --regrapht-deadline-s. Its GPU seconds are its workers' lifetimes (reference and candidate
   workers, each from its job's hand-off to its end; tvk_regrapht.watch_workers), as
   benchmarks/eval_throughput.py counts the serial-C++ path's: a spare started ahead imports torch
   without a CUDA context, as KernelBench's pre-build compiles without one, and the CPU pool's builds
   hold no GPU. Its turns (each evaluate call) and the span from the first turn to the last (idle
   waits for builds included) are reported beside.
3. KernelBench in its most favourable mode: each evaluation run as its README's single-sample command
   runs one (benchmarks/tvk_kernelbench.py) in a fresh process, with its CPU pre-build's cache,
   --kb-slots processes at once (its GPU seconds: the time at least one was alive, counted once
   however many overlapped): on a GPU of its own from the start (--kb-prebuild-gpu), else on
   regrapht's after regrapht, until the budget less --kb-readme-s.
4. KernelBench as its README runs it: one single-sample process at a time, no pre-build (each
   compiles its candidate cold inside), the reference timed in each (run_and_check.py), over the
   order's first candidates. On a GPU of its own (--kb-readme-gpu) it runs from the start to the end
   of the budget beside regrapht, so it always has that time; else in the last --kb-readme-s seconds
   on regrapht's GPU. Its GPU seconds are its processes' lifetimes.
Core sets (--regrapht-cpus, --kb-cpus, --kb-readme-cpus; taskset's syntax) keep each mode's host work
off the others' cores. A process alive at its part's end is killed and its candidate counts as not
judged there.

Candidates go in a fixed stratified order decided by expected.toml alone (tvk_phases.py); `--subset N`
takes its first N. The default, 24, was chosen before any run of this script from session 9's
measured device turns (7 to 10 s per regrapht candidate, its build aside): 24 turns and 8 reference
runs fill regrapht's 215 s, and KernelBench's 24 evaluations, 6 at a time, its remaining 70 s. All
30 do not fit one 300 s call at those figures; `--subset 30` tries them all. Verdicts are compared on the candidates both
harnesses judged; every differing verdict is printed with why. The JSON in --out is rewritten after
every verdict, so a call stopped by its limit still leaves what it measured.

On the GPU machine, from the repository root (KernelBench checkout in .kernelbench/):
  PYTHONPATH=src python3 benchmarks/tvk_compare.py --kernelbench .kernelbench --out $OUT
  (three GPUs: CUDA_VISIBLE_DEVICES=0 ... --kb-readme-gpu 1 --kb-prebuild-gpu 2 --regrapht-cpus 0-15
   --kb-readme-cpus 16-23 --kb-cpus 24-39; torch_gpu_session.sh lead4 runs it so)
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Iterator
from pathlib import Path

from tvk_common import HarnessRun, compare, load_candidates, markdown
from tvk_kernelbench import KernelBenchHarness, gpu_arch, kernelbench_env
from tvk_phases import Job, parse_cpus, run_pool, stratified_order, union_seconds
from tvk_regrapht import (
    HOST,
    RegraphtHarness,
    RegraphtUnavailable,
    _load_task,
    row_from_evaluation,
    watch_workers,
)

RESULT = "torch_vs_kernelbench.json"
FIRST_GUESS_S = 12.0  # one regrapht evaluation, before any has been seen (for its deadline)
# What each harness's GPU seconds count, printed and saved beside the numbers.
COUNTS = {
    "regrapht": "its reference and candidate workers' lifetimes, each from its job's hand-off to its end "
                "(a spare's torch import before its job, with no CUDA context, is not counted; the CPU pool's "
                "builds and the parent's judging between workers hold no GPU)",
    "regrapht_turns": "its turns: each evaluate call, the parent's work between its workers included",
    "kernelbench": "the time at least one of its evaluation processes was alive, counted once however many "
                   "overlapped (its CPU pre-build holds no GPU and is not counted)",
    "kernelbench_readme": "its processes' lifetimes, one at a time (each holds a CUDA context and compiles inside)",
}  # fmt: skip


class Recorder:
    """The run's state, rewritten to --out after every verdict (threads share it)."""

    def __init__(self, out: Path, state: dict):
        self.out, self.state, self.lock = out, state, threading.Lock()
        out.mkdir(parents=True, exist_ok=True)

    def row(self, harness: str, key: str, row: dict, at: float) -> None:
        with self.lock:
            self.state[harness]["rows"][key] = row
            n = len(self.state[harness]["rows"])
            print(f"{at:6.1f} s  {harness:<11} {n:>2}/{len(self.state['order'])}  {key:<34} {row.get('verdict')!s:<20} "
                  f"{row.get('seconds', 0.0):5.1f} s  {str(row.get('message', ''))[:70]}", flush=True)  # fmt: skip
            self.save()

    def save(self) -> None:
        (self.out / RESULT).write_text(json.dumps(self.state, indent=1, default=str))


def gpu_name() -> str:
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return out.stdout.strip().splitlines()[0] if out.stdout.strip() else "unknown"


def compute_capability() -> tuple[int, int]:
    # nvidia-smi, not torch: this process must not hold a CUDA context (regrapht's workers run from it)
    out = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader"], capture_output=True, text=True, timeout=30)
    major, _, minor = out.stdout.strip().splitlines()[0].partition(".")
    return int(major), int(minor or 0)


def kb_prebuild(harness: KernelBenchHarness, cands: list, arch: str, args: argparse.Namespace, deadline: float,
                built: dict[str, threading.Event], state: dict) -> None:  # fmt: skip
    """KernelBench's CPU pre-build; each candidate's event is set when its build ends (failed or not:
    a failed build's folder is removed, as KernelBench does, and its evaluation compiles again)."""
    import shutil

    began = time.monotonic()

    def job(c) -> Job:
        def start():
            proc, out_file, log_file = harness.start(harness.build_argv(c.key, c.path, arch), f"build__{c.key.replace('/', '__')}",
                                                     nice=args.kb_nice)  # fmt: skip
            return proc, lambda p: harness.result(p, out_file, log_file)
        return Job(c.key, start)

    def done(key: str, row: dict) -> None:
        if not row.get("built"):
            shutil.rmtree(harness.workdir / "build" / key.replace("/", "__"), ignore_errors=True)
        state["kernelbench"]["prebuild"][key] = {k: row.get(k) for k in ("built", "error", "seconds")}
        built[key].set()

    todo = [c for c in cands if c.backend == "cuda"]
    # a build slowed by the busy host is never cut short by the per-evaluation timeout: only the budget ends it
    run = run_pool([job(c) for c in todo], args.kb_build_workers, deadline, args.budget_s, on_row=done)
    for key in run.killed + run.not_started:
        built[key].set()  # never built: its evaluation compiles it, as KernelBench does without the cache
    state["kernelbench"]["prebuild_seconds"] = time.monotonic() - began


def regrapht_phase(cands: list, args: argparse.Namespace, t0: float, rec: Recorder) -> None:
    part = rec.state["regrapht"]
    deadline = t0 + args.regrapht_deadline_s
    turns: list[tuple[float, float]] = []
    try:
        # Given cores of their own, the builds run two compilers each (g++ and nvcc) on them, no more;
        # the pool's default counts every core of the host (os.cpu_count ignores the affinity).
        build_cpus = getattr(args, "build_cpus", None)
        jobs = max(1, len(build_cpus) // 2) if build_cpus else None
        with RegraphtHarness(target=args.target, baselines=tuple(args.regrapht_baselines.split(",")), jobs=jobs) as harness:
            evaluator = harness._api_evaluator()
            judge = evaluator.torch_judge()
            held = watch_workers(judge)
            tasks = {c.task: _load_task(c.task_dir) for c in cands}
            sources = {c.key: c.path.read_text() for c in cands}
            with build_cores(getattr(args, "build_cpus", None)):
                futures = {c.key: judge.prebuild(sources[c.key], args.target, c.path.name) for c in cands}
            pending, recent = list(cands), []
            while pending:
                est = max(recent[-3:]) if recent else FIRST_GUESS_S
                if time.monotonic() + est > deadline:
                    part["notes"].append(f"deadline: {len(pending)} candidates not started")
                    break
                ready = [c for c in pending if all(f.done() for f in futures[c.key])]
                if not ready:
                    waits = [f for c in pending for f in futures[c.key] if not f.done()]
                    concurrent.futures.wait(waits, timeout=max(0.1, deadline - time.monotonic()),
                                            return_when=concurrent.futures.FIRST_COMPLETED)  # fmt: skip
                    continue
                c = ready[0]
                pending.remove(c)
                began = time.monotonic()
                try:
                    ev = judge.evaluate(tasks[c.task], sources[c.key], args.target, c.path.name)
                    row = row_from_evaluation(ev.to_dict())
                except Exception as exc:  # the harness or the task, not the candidate: no verdict
                    row = {"verdict": "harness_error", "message": f"{type(exc).__name__}: {exc}",
                           "traceback": traceback.format_exc()[-1500:]}  # fmt: skip
                end = time.monotonic()
                turns.append((began, end))
                row["seconds"] = end - began
                recent.append(row["seconds"])
                rec.row("regrapht", c.key, row, end - t0)
    except RegraphtUnavailable as exc:
        part["error"] = str(exc)
        held = []
    account_regrapht(part, turns, held, t0)
    rec.save()


@contextlib.contextmanager
def build_cores(cpus: set[int] | None) -> Iterator[None]:
    """Within: this thread runs on `cpus`, so the build pool's threads it starts (all of them: every
    build is submitted here at once) and their compilers run there, off the cores of regrapht's
    turns, as KernelBench's pre-build runs off its evaluations' (a thread's cores pass to the threads
    and processes it starts). None: nothing changes."""
    if not cpus:
        yield
        return
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, cpus)
    try:
        yield
    finally:
        os.sched_setaffinity(0, before)


def account_regrapht(part: dict, turns: list[tuple[float, float]], held: list[tuple[str, float, float]], t0: float) -> None:
    """regrapht's seconds: GPU seconds are its workers' lifetimes (COUNTS); its turns and the span
    from the first turn to the last (waits for builds included) are kept beside them. Without worker
    times (a stand-in judge), the turns are the GPU seconds, and the record says so."""
    if turns:
        part["span_seconds"] = turns[-1][1] - turns[0][0]
        part["turn_seconds"] = sum(e - s for s, e in turns)
        part["first_turn_at_s"] = turns[0][0] - t0
    if held:
        part["worker_seconds"] = sum(e - s for mode, s, e in held if not mode.endswith(HOST))
        part["reference_worker_seconds"] = sum(e - s for mode, s, e in held if mode == "reference")
        part["host_reference_seconds"] = sum(e - s for mode, s, e in held if mode == "reference" + HOST)
        part["workers"] = {m: sum(x == m for x, _, _ in held) for m in ("reference", "reference" + HOST, "candidate")}
        part["gpu_seconds"], part["gpu_counts"] = part["worker_seconds"], COUNTS["regrapht"]
    elif turns:
        part["gpu_seconds"], part["gpu_counts"] = part["turn_seconds"], COUNTS["regrapht_turns"]


def kernelbench_phase(harness: KernelBenchHarness, cands: list, args: argparse.Namespace, t0: float,
                      built: dict[str, threading.Event], rec: Recorder, part_name: str = "kernelbench",
                      slots: int | None = None, deadline: float | None = None) -> None:  # fmt: skip
    part = rec.state[part_name]

    def job(c) -> Job:
        def start():
            argv = harness.eval_argv(c.key, c.task_dir / "reference.py", c.path, c.backend)
            proc, out_file, log_file = harness.start(argv, c.key.replace("/", "__"))
            return proc, lambda p: harness.result(p, out_file, log_file)
        return Job(c.key, start, ready=built[c.key].is_set if c.key in built else (lambda: True))

    def done(key: str, row: dict) -> None:
        eager, runtime = row.get("ref_runtime_ms"), row.get("runtime_ms")
        row["speedup_vs_eager"] = eager / runtime if eager and runtime else None
        rec.row(part_name, key, row, time.monotonic() - t0)

    end = deadline if deadline is not None else t0 + args.budget_s
    run = run_pool([job(c) for c in cands], slots or args.kb_slots, end, args.kb_timeout, on_row=done)
    part["gpu_seconds"] = union_seconds(run.intervals)
    part["process_seconds"] = sum(e - s for s, e in run.intervals)
    part["killed_at_deadline"] = run.killed
    part["not_started"] = run.not_started
    rec.save()


def report(state: dict, cands: list) -> dict:
    """The comparison over the candidates both judged (a harness error is no verdict)."""
    judged = [c for c in cands if all(
        state[h]["rows"].get(c.key, {}).get("verdict") not in (None, "harness_error") for h in ("regrapht", "kernelbench"))]
    runs = [HarnessRun(h, {k: v for k, v in state[h]["rows"].items() if v.get("verdict") != "harness_error"},
                       state[h].get("gpu_seconds", 0.0), [state["device"]], state[h].get("error", ""),
                       state["kernelbench"].get("prebuild_seconds", 0.0) if h == "kernelbench" else 0.0) for h in ("regrapht", "kernelbench")]  # fmt: skip
    out = compare(cands, *runs)
    out["judged_by_both_keys"] = [c.key for c in judged]
    out["not_judged_by_both"] = [c.key for c in cands if c not in judged]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernelbench", type=Path, default=Path(".kernelbench"))
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "/tmp/out")))
    parser.add_argument("--budget-s", type=float, default=285.0, help="Everything ends by then (processes are killed).")
    parser.add_argument("--regrapht-deadline-s", type=float, default=215.0, help="regrapht starts no evaluation that would end later.")
    parser.add_argument("--subset", type=int, default=24, help="The first N candidates of the stratified order (0: all 30).")
    parser.add_argument("--kb-slots", type=int, default=6, help="KernelBench evaluation processes at once on the GPU.")
    parser.add_argument("--kb-build-workers", type=int, default=12, help="KernelBench's CPU pre-build processes at once.")
    parser.add_argument("--kb-nice", type=int, default=10, help="Niceness of KernelBench's CPU pre-build.")
    parser.add_argument("--kb-timeout", type=float, default=150.0, help="Seconds per KernelBench process.")
    parser.add_argument("--kb-readme-s", type=float, default=40.0,
                        help="The last seconds of the budget: KernelBench as its README runs it (one process at a time, "
                             "no pre-build, the reference timed in each). 0: not run.")
    parser.add_argument("--kb-readme-gpu", default="",
                        help="A GPU of its own (the host's index) for KernelBench as its README runs it, from the start to "
                             "the budget's end beside regrapht, so it always gets that time (--kb-readme-s is then unused).")
    parser.add_argument("--kb-prebuild-gpu", default="",
                        help="A GPU of its own for KernelBench's pre-build mode, from the start (its evaluations wait for "
                             "their builds); without it, that mode runs on regrapht's GPU after regrapht.")
    parser.add_argument("--regrapht-cpus", default=os.environ.get("TVK_REGRAPHT_CPUS", ""),
                        help="Cores for regrapht (this process, its workers and its build pool), e.g. 0-15.")
    parser.add_argument("--regrapht-build-cpus", default=os.environ.get("TVK_REGRAPHT_BUILD_CPUS", ""),
                        help="Cores for regrapht's CPU build pool (its compilers), apart from its turns' cores.")
    parser.add_argument("--kb-cpus", default=os.environ.get("TVK_KB_CPUS", ""),
                        help="Cores for KernelBench's pre-build mode (its CPU pre-build and its evaluations).")
    parser.add_argument("--kb-readme-cpus", default=os.environ.get("TVK_KB_README_CPUS", ""),
                        help="Cores for KernelBench as its README runs it.")
    parser.add_argument("--target", default="cuda")
    parser.add_argument("--regrapht-baselines", default="eager",
                        help="Timed beside each candidate (KernelBench's evaluation times the eager reference too).")
    args = parser.parse_args()
    try:
        cpus = {name: parse_cpus(getattr(args, name)) for name in ("regrapht_cpus", "regrapht_build_cpus", "kb_cpus", "kb_readme_cpus")}
    except ValueError as exc:
        parser.error(str(exc))
    args.build_cpus = cpus["regrapht_build_cpus"]
    if cpus["regrapht_cpus"]:  # before any thread or child: all of regrapht's inherit it
        os.sched_setaffinity(0, cpus["regrapht_cpus"])
    t0 = time.monotonic()
    device = gpu_name()
    if device == "unknown":
        print("error: nvidia-smi finds no GPU here; both harnesses need one", file=sys.stderr)
        return 2
    cands = stratified_order(load_candidates())
    if args.subset:
        cands = cands[: args.subset]
    state = {
        "version": 2, "device": device, "cuda_visible_devices": os.environ.get("CUDA_VISIBLE_DEVICES"),
        "started": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "settings": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "order": [c.key for c in cands],
        "regrapht": {"rows": {}, "notes": [], "error": ""},
        "kernelbench": {"rows": {}, "prebuild": {}, "error": "", "mode": "its CPU pre-build, --kb-slots processes at once"},
        "kernelbench_readme": {"rows": {}, "error": "", "mode": "as its README: one process at a time, cold compile inside"},
        "layout": {"regrapht": {"gpu": os.environ.get("CUDA_VISIBLE_DEVICES"), "cpus": args.regrapht_cpus or None,
                                "build_cpus": args.regrapht_build_cpus or None},
                   "kernelbench": {"gpu": args.kb_prebuild_gpu or "regrapht's, after it", "cpus": args.kb_cpus or None},
                   "kernelbench_readme": {"gpu": args.kb_readme_gpu or "regrapht's, its last --kb-readme-s",
                                          "cpus": args.kb_readme_cpus or None}},
        "gpu_counts": {k: v for k, v in COUNTS.items() if k != "regrapht_turns"},
    }
    rec = Recorder(args.out, state)
    print(f"{len(cands)} candidates on {device}; budget {args.budget_s:.0f} s, regrapht until {args.regrapht_deadline_s:.0f} s", flush=True)
    with tempfile.TemporaryDirectory(prefix="tvk-") as tmp:
        work = Path(tmp)
        # Each harness's Triton and Inductor caches are its own and cold.
        os.environ["TRITON_CACHE_DIR"] = str(work / "regrapht" / "triton-cache")
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(work / "regrapht" / "inductor-cache")
        harness = KernelBenchHarness(args.kernelbench, work / "kernelbench", args.kb_timeout, "none",
                                     gpu=args.kb_prebuild_gpu or None, cpus=cpus["kb_cpus"])  # fmt: skip
        readme = KernelBenchHarness(args.kernelbench, work / "kernelbench-readme", args.kb_timeout, "per-candidate",
                                    gpu=args.kb_readme_gpu or None, cpus=cpus["kb_readme_cpus"])  # fmt: skip
        built = {c.key: threading.Event() for c in cands if c.backend == "cuda"}
        checked, kb_ok = threading.Event(), []
        beside: list[threading.Thread] = []  # KernelBench's modes on GPUs of their own, beside regrapht

        def alongside(name: str, target: object, *rest: object) -> None:
            thread = threading.Thread(target=target, args=rest, name=name, daemon=True)
            thread.start()
            beside.append(thread)

        def kernelbench_cpu_side() -> None:  # its import check, then its pre-build, beside regrapht's part
            end = t0 + args.budget_s
            try:
                if _kernelbench_usable(args.kernelbench, state):
                    kb_ok.append(True)
                    # Started before `checked` is set, so the main thread's wait for them sees them all.
                    if args.kb_readme_gpu:  # its own GPU and cores: all the budget, from now, whatever regrapht does
                        alongside("readme", kernelbench_phase, readme, cands, args, t0, {}, rec, "kernelbench_readme", 1, end)
                    if args.kb_prebuild_gpu:  # its evaluations start as their builds end
                        alongside("prebuild-mode", kernelbench_phase, harness, cands, args, t0, built, rec, "kernelbench", None, end)
            finally:
                checked.set()
            if not kb_ok:
                return
            try:
                kb_prebuild(harness, cands, gpu_arch(compute_capability()), args, t0 + args.budget_s, built, state)
            except Exception as exc:  # its evaluations then compile inside, as KernelBench does without the cache
                state["kernelbench"]["prebuild_error"] = f"{type(exc).__name__}: {exc}"
                print(f"kernelbench pre-build failed: {exc}", flush=True)
            finally:
                for event in built.values():
                    event.set()

        threading.Thread(target=kernelbench_cpu_side, daemon=True).start()
        regrapht_phase(cands, args, t0, rec)
        checked.wait(timeout=max(0.0, t0 + args.budget_s - time.monotonic()))
        if kb_ok:
            tail = 0.0 if args.kb_readme_gpu else args.kb_readme_s
            if not args.kb_prebuild_gpu:  # on regrapht's GPU, now that regrapht is done with it
                kernelbench_phase(harness, cands, args, t0, built, rec, deadline=t0 + args.budget_s - tail)
            if tail > 0:
                kernelbench_phase(readme, cands, args, t0, {}, rec, "kernelbench_readme", slots=1)
        for thread in list(beside):  # each ends by the budget (its pool kills what is left then)
            thread.join(timeout=max(0.0, t0 + args.budget_s + 4 - time.monotonic()))  # inside lead4's limit
    state["wall_s"] = time.monotonic() - t0
    state["report"] = report(state, cands)
    state["report"]["kernelbench_readme"] = readme_throughput(state)
    rec.save()
    (args.out / "torch_vs_kernelbench.md").write_text(markdown(state["report"]))
    print_summary(state)
    return 0


def readme_throughput(state: dict) -> dict:
    """KernelBench as its README runs it: its evaluations, GPU seconds and rate, regrapht's rate over
    it, and where its verdicts differ from the favourable mode's on the same candidates (they should
    not: only the timing's conditions differ)."""
    part, favoured = state["kernelbench_readme"], state["kernelbench"]["rows"]
    rows = {k: v for k, v in part["rows"].items() if v.get("verdict") not in (None, "harness_error")}
    gpu = part.get("gpu_seconds", 0.0)
    rate = 60 * len(rows) / gpu if rows and gpu else None
    ours = state["regrapht"]
    ours_rows = [v for v in ours["rows"].values() if v.get("verdict") not in (None, "harness_error")]
    ours_rate = 60 * len(ours_rows) / ours["gpu_seconds"] if ours_rows and ours.get("gpu_seconds") else None
    return {"evaluations": len(rows), "gpu_seconds": gpu, "evaluations_per_gpu_minute": rate,
            "ratio": ours_rate / rate if ours_rate and rate else None, "candidates": len(state.get("order", ())),
            "killed_at_deadline": part.get("killed_at_deadline", []), "not_started": part.get("not_started", []),
            "verdicts_unlike_prebuild_mode": {k: [v.get("verdict"), favoured[k].get("verdict")] for k, v in rows.items()
                                              if k in favoured and favoured[k].get("verdict") != v.get("verdict")}}  # fmt: skip


def _kernelbench_usable(path: Path, state: dict) -> bool:
    """KernelBench imports here (its checkout, pydantic): checked in a child, as every KernelBench step
    runs (importing it patches torch). When not, its part is skipped with the reason."""
    proc = subprocess.run([sys.executable, str(Path(__file__).resolve().parent / "tvk_kernelbench.py"), "check", "--kernelbench", str(path)],
                          capture_output=True, text=True, env=kernelbench_env(), timeout=120)  # fmt: skip
    if proc.returncode != 0:
        state["kernelbench"]["error"] = f"KernelBench unavailable: {(proc.stderr or proc.stdout).strip()[-800:]}"
        print(state["kernelbench"]["error"], flush=True)
        return False
    try:
        state["kernelbench"]["static_check"] = json.loads(proc.stdout)["static_check"]
    except (json.JSONDecodeError, KeyError) as exc:
        state["kernelbench"]["error"] = f"KernelBench unavailable: its check printed no result ({exc})"
        return False
    return True


def print_summary(state: dict) -> None:
    r = state["report"]
    t = r["throughput"]
    counts = state.get("gpu_counts", COUNTS)
    print(f"\nwall {state['wall_s']:.1f} s; judged by both: {len(r['judged_by_both_keys'])} of {r['candidates']}")
    ours = state["regrapht"]
    for name in ("regrapht", "kernelbench"):
        h = t[name]
        rate = h["evaluations_per_gpu_minute"]
        mode = " (its CPU pre-build, processes at once)" if name == "kernelbench" else ""
        what = ours.get("gpu_counts", counts["regrapht"]) if name == "regrapht" else counts["kernelbench"]
        print(f"{name:>11}{mode}: {h['evaluations']} evaluations in {h['gpu_seconds']:.1f} GPU s"
              + (f" = {rate:.1f} per GPU-minute" if rate else "") + (f"  [{h['error'][:200]}]" if h["error"] else ""))
        print(f"{'':>13}GPU s = {what}")
    print(f"ratio regrapht / KernelBench's pre-build mode, per GPU-minute: {t['ratio']:.2f}x" if t["ratio"] else "ratio: n/a")
    if ours.get("span_seconds"):
        n = t["regrapht"]["evaluations"]
        refs = (f"; reference workers: {ours['workers']['reference']} on the GPU ({ours['reference_worker_seconds']:.1f} s of the GPU s), "
                f"{ours['workers']['reference' + HOST]} on the host with no CUDA context ({ours['host_reference_seconds']:.1f} s, "
                "not GPU s; the GPU idles meanwhile, which the span shows)" if "reference_worker_seconds" in ours else "")
        print(f"   regrapht: turns {ours['turn_seconds']:.1f} s ({COUNTS['regrapht_turns']}); span {ours['span_seconds']:.1f} s "
              f"(first turn's start to last turn's end, waits for builds included) = {60 * n / ours['span_seconds']:.1f} "
              f"evaluations per span-minute{refs}")  # fmt: skip
    readme = r.get("kernelbench_readme") or {}
    where = (state.get("layout") or {}).get("kernelbench_readme", {}).get("gpu", "?")
    if readme.get("evaluations"):
        print(f"KernelBench as its README runs it (one process at a time, cold compile inside; GPU {where}): "
              f"{readme['evaluations']} of {readme.get('candidates', '?')} candidates in {readme['gpu_seconds']:.1f} GPU s"
              f" = {readme['evaluations_per_gpu_minute']:.2f} per GPU-minute; regrapht / it: "
              + (f"{readme['ratio']:.2f}x" if readme["ratio"] else "n/a")
              + (f"; verdicts unlike its pre-build mode: {readme['verdicts_unlike_prebuild_mode']}"
                 if readme["verdicts_unlike_prebuild_mode"] else ""))  # fmt: skip
        print(f"{'':>13}GPU s = {counts['kernelbench_readme']}; cut at the budget: "
              f"{', '.join(readme.get('killed_at_deadline') or []) or 'none'}")
    elif "kernelbench_readme" in state:
        print(f"KernelBench as its README runs it (GPU {where}): no evaluation ended within its time"
              + (f" (cut at the budget: {', '.join(readme.get('killed_at_deadline') or [])})" if readme.get("killed_at_deadline") else ""))
    print(f"regrapht as expected: {r['regrapht_as_expected']}; KernelBench right: {r['kernelbench_right']}")
    for d in r["differing"]:
        print(f"  differs {d['candidate']}: regrapht {d['regrapht']}, KernelBench {d['kernelbench']} ({d['stricter']}): "
              f"regrapht: {(d['regrapht_message'] or d['why_regrapht'])[:160]} | KernelBench: "
              f"{(d['why_kernelbench'] if d['kernelbench_as_predicted'] else d['kernelbench_message'])[:160]}")
    if r["not_judged_by_both"]:
        print(f"not judged by both: {', '.join(r['not_judged_by_both'])}")


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    # Everything is written. Builds regrapht's deadline left running would hold the exit (Python joins
    # its pool's threads) past the call's limit: leave without waiting for them.
    os._exit(code)
