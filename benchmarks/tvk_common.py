"""The regrapht-vs-KernelBench comparison's candidate set, verdict vocabulary and report.

Pure Python (no torch, no GPU): the candidate set and the expected verdicts are checked on the CPU,
and the report is built from the two harnesses' rows, so tests can exercise it with made-up rows.
"""

from __future__ import annotations

import ast
import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

BENCH_DIR = Path(__file__).resolve().parent
TASKS_DIR = BENCH_DIR / "torch_tasks"
CANDIDATES_DIR = BENCH_DIR / "torch_candidates"
EXPECTED = CANDIDATES_DIR / "expected.toml"

VERDICTS = ("correct", "wrong_answer", "integrity_violation", "compile_error", "runtime_error", "timeout")
CLASSES = ("correct", "wrong", "compile", "runtime", "cheat")
BACKENDS = ("cuda", "triton")
# A harness failure (its own crash, a lock-file retry, regrapht not merged yet) is no verdict at all.
NO_VERDICT = "harness_error"


class CandidateSetError(ValueError):
    """The candidate set or expected.toml is inconsistent; the message names the file and field."""


@dataclass(frozen=True)
class Candidate:
    key: str  # "<task>/<stem>"
    task: str
    backend: str
    klass: str
    verdict: str
    accept: tuple[str, ...]
    why: str
    kernelbench: str
    kernelbench_why: str

    @property
    def path(self) -> Path:
        return CANDIDATES_DIR / f"{self.key}.py"

    @property
    def task_dir(self) -> Path:
        return TASKS_DIR / self.task

    def acceptable(self, verdict: str) -> bool:
        return verdict == self.verdict or verdict in self.accept


def load_candidates(expected: Path = EXPECTED) -> list[Candidate]:
    """Every candidate of expected.toml, each checked against the files on disk."""
    try:
        data = tomllib.loads(expected.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise CandidateSetError(f"{expected}: {exc}") from None
    entries = data.get("candidates")
    if not isinstance(entries, dict) or not entries:
        raise CandidateSetError(f"{expected}: no [candidates.\"<task>/<name>\"] tables")
    out = []
    for key, entry in entries.items():
        where = f"{expected}: candidates.{key!r}"
        task, sep, stem = key.partition("/")
        if not sep or not task or not stem or "/" in stem:
            raise CandidateSetError(f"{where}: the key must be '<task>/<file stem>'")
        missing = [f for f in ("backend", "class", "verdict", "why", "kernelbench", "kernelbench_why") if f not in entry]
        if missing:
            raise CandidateSetError(f"{where}: missing {', '.join(missing)}")
        for name, value, allowed in (
            ("backend", entry["backend"], BACKENDS),
            ("class", entry["class"], CLASSES),
            ("verdict", entry["verdict"], VERDICTS),
            ("kernelbench", entry["kernelbench"], VERDICTS),
        ):
            if value not in allowed:
                raise CandidateSetError(f"{where}: {name} = {value!r}, not one of {', '.join(allowed)}")
        accept = tuple(entry.get("accept", ()))
        bad = [v for v in accept if v not in VERDICTS]
        if bad:
            raise CandidateSetError(f"{where}: accept has {bad}, not verdicts")
        cand = Candidate(
            key, task, entry["backend"], entry["class"], entry["verdict"], accept,
            entry["why"], entry["kernelbench"], entry["kernelbench_why"],
        )
        if not cand.path.is_file():
            raise CandidateSetError(f"{where}: no file {cand.path}")
        if not (cand.task_dir / "task.toml").is_file() or not (cand.task_dir / "reference.py").is_file():
            raise CandidateSetError(f"{where}: task folder {cand.task_dir} lacks task.toml or reference.py")
        out.append(cand)
    on_disk = {f"{p.parent.name}/{p.stem}" for p in CANDIDATES_DIR.glob("*/*.py")}
    unlisted = sorted(on_disk - {c.key for c in out})
    if unlisted:
        raise CandidateSetError(f"{expected}: candidate files with no expected verdict: {', '.join(unlisted)}")
    return out


def check_candidate_source(cand: Candidate) -> list[str]:
    """What a reader of the file can see without running it: it parses (except where the candidate is
    a deliberate compile error, whose Python is still valid), defines ModelNew, and uses its backend."""
    problems = []
    text = cand.path.read_text()
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        return [f"{cand.key}: Python syntax error at line {exc.lineno}: {exc.msg}"]
    if not any(isinstance(n, ast.ClassDef) and n.name == "ModelNew" for n in tree.body):
        problems.append(f"{cand.key}: no top-level class ModelNew")
    if cand.backend == "cuda" and ("load_inline" not in text or "__global__" not in text):
        problems.append(f"{cand.key}: a cuda candidate must build a __global__ kernel with load_inline")
    if cand.backend == "triton" and "@triton.jit" not in text:
        problems.append(f"{cand.key}: a triton candidate must define an @triton.jit kernel")
    return problems


@dataclass
class HarnessRun:
    """One harness's rows (candidate key -> row with at least 'verdict' and 'seconds') and the
    wall-clock seconds it held the GPU, over every segment of a resumed run."""

    name: str
    rows: dict[str, dict] = field(default_factory=dict)
    gpu_seconds: float = 0.0
    devices: list[str] = field(default_factory=list)
    error: str = ""
    # CPU-only work done before the GPU was needed (KernelBench's optional pre-build): outside
    # gpu_seconds, inside the wall-clock figure.
    offload_seconds: float = 0.0

    def evaluations(self) -> int:
        return sum(1 for r in self.rows.values() if r.get("verdict") != NO_VERDICT)

    def per_gpu_minute(self) -> float | None:
        n = self.evaluations()
        return 60.0 * n / self.gpu_seconds if n and self.gpu_seconds > 0 else None

    def per_wall_minute(self) -> float | None:
        n, wall = self.evaluations(), self.gpu_seconds + self.offload_seconds
        return 60.0 * n / wall if n and wall > 0 else None


def compare(cands: list[Candidate], regrapht: HarnessRun, kernelbench: HarnessRun) -> dict:
    """Side-by-side verdicts, agreement with expected.toml, every differing verdict with its reason,
    and the throughput ratio."""
    rows, differ = [], []
    for c in cands:
        rv = regrapht.rows.get(c.key, {}).get("verdict")
        kv = kernelbench.rows.get(c.key, {}).get("verdict")
        row = {
            "candidate": c.key,
            "backend": c.backend,
            "class": c.klass,
            "expected": c.verdict,
            "regrapht": rv,
            "regrapht_as_expected": None if rv is None else c.acceptable(rv),
            "kernelbench": kv,
            "kernelbench_predicted": c.kernelbench,
            "regrapht_message": regrapht.rows.get(c.key, {}).get("message", ""),
            "kernelbench_message": kernelbench.rows.get(c.key, {}).get("message", ""),
        }
        rows.append(row)
        if rv is not None and kv is not None and rv != kv:
            differ.append({
                "candidate": c.key,
                "regrapht": rv,
                "kernelbench": kv,
                "stricter": _stricter(rv, kv),
                "kernelbench_as_predicted": kv == c.kernelbench,
                "why_regrapht": c.why,
                "why_kernelbench": c.kernelbench_why,
                "regrapht_message": row["regrapht_message"],
                "kernelbench_message": row["kernelbench_message"],
            })
    both = [r for r in rows if r["regrapht"] is not None and r["kernelbench"] is not None]
    r_rate, k_rate = regrapht.per_gpu_minute(), kernelbench.per_gpu_minute()
    return {
        "candidates": len(cands),
        "judged_by_both": len(both),
        "rows": rows,
        "differing": differ,
        # Where only one harness passes a candidate: the list the issue's "at least as strict" asks for.
        "passed_by_kernelbench_only": [d["candidate"] for d in differ if d["kernelbench"] == "correct"],
        "passed_by_regrapht_only": [d["candidate"] for d in differ if d["regrapht"] == "correct"],
        "regrapht_as_expected": sum(1 for r in rows if r["regrapht_as_expected"]),
        "kernelbench_right": sum(
            1 for r in rows if r["kernelbench"] is not None and _cand(cands, r["candidate"]).acceptable(r["kernelbench"])
        ),
        "throughput": {
            "regrapht": _throughput(regrapht),
            "kernelbench": _throughput(kernelbench),
            "ratio": (r_rate / k_rate) if r_rate and k_rate else None,
            "wall_ratio": (
                regrapht.per_wall_minute() / kernelbench.per_wall_minute()
                if regrapht.per_wall_minute() and kernelbench.per_wall_minute() else None
            ),
            "same_device": len(set(regrapht.devices + kernelbench.devices)) <= 1,
        },
    }


def _cand(cands: list[Candidate], key: str) -> Candidate:
    return next(c for c in cands if c.key == key)


def _stricter(regrapht: str, kernelbench: str) -> str:
    r_pass, k_pass = regrapht == "correct", kernelbench == "correct"
    if r_pass == k_pass:
        return "same (both fail, different reasons)" if not r_pass else "same"
    return "kernelbench passes it" if k_pass else "regrapht passes it"


def _throughput(run: HarnessRun) -> dict:
    seconds = [r["seconds"] for r in run.rows.values() if isinstance(r.get("seconds"), (int, float))]
    # regrapht's own account of the time its worker processes held the GPU, where its records give it.
    workers = [r["regrapht_seconds"]["worker"] for r in run.rows.values() if "worker" in (r.get("regrapht_seconds") or {})]
    return {
        "worker_seconds": round(sum(workers), 3) if workers else None,
        "evaluations": run.evaluations(),
        "gpu_seconds": round(run.gpu_seconds, 3),
        "offload_seconds": round(run.offload_seconds, 3),
        "evaluations_per_gpu_minute": run.per_gpu_minute(),
        "evaluations_per_wall_minute": run.per_wall_minute(),
        "median_seconds_per_evaluation": statistics.median(seconds) if seconds else None,
        "devices": sorted(set(run.devices)),
        "error": run.error,
    }


def spread(values: list[float]) -> float | None:
    """max / min - 1 over positive finite values: the repeatability figure (target <= 1%)."""
    vals = [v for v in values if isinstance(v, (int, float)) and math.isfinite(v) and v > 0]
    return max(vals) / min(vals) - 1.0 if len(vals) >= 2 else None


def markdown(report: dict) -> str:
    """The block for docs/benchmarks.md."""
    t = report["throughput"]

    def num(value: float | None, fmt: str) -> str:
        return format(value, fmt) if value is not None else "n/a"

    lines = [
        "| harness | evaluations | GPU seconds | CPU pre-build s | evaluations / GPU-minute | evaluations / wall-minute | median s / evaluation |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name in ("regrapht", "kernelbench"):
        h = t[name]
        lines.append(
            f"| {name} | {h['evaluations']} | {h['gpu_seconds']:.1f} | {h['offload_seconds']:.1f} | "
            f"{num(h['evaluations_per_gpu_minute'], '.2f')} | {num(h['evaluations_per_wall_minute'], '.2f')} | "
            f"{num(h['median_seconds_per_evaluation'], '.2f')} |"
        )
    readme = report.get("kernelbench_readme") or {}
    if readme.get("evaluations"):  # KernelBench as its README runs it (benchmarks/tvk_compare.py)
        lines.append(f"| KernelBench as its README (one process, cold compile) | {readme['evaluations']} | "
                     f"{readme['gpu_seconds']:.1f} | 0.0 | {num(readme['evaluations_per_gpu_minute'], '.2f')} | n/a | n/a |")  # fmt: skip
    ratio, wall_ratio = t["ratio"], t["wall_ratio"]
    lines += [
        "",
        f"Throughput ratio (regrapht / KernelBench), per GPU-minute: **{ratio:.1f}x**" if ratio else "Throughput ratio: n/a",
        f"against KernelBench as its README runs it: **{readme['ratio']:.1f}x**" if readme.get("ratio") else "",
        f"per wall-minute (CPU pre-build included): {wall_ratio:.1f}x" if wall_ratio and t["kernelbench"]["offload_seconds"] else "",
        ("" if t["same_device"] else "\n**Warning: the segments of this run did not all use the same GPU.**"),
        (f"regrapht's worker processes held the GPU for {t['regrapht']['worker_seconds']:.1f} s of its {t['regrapht']['gpu_seconds']:.1f} s."
         if t["regrapht"]["worker_seconds"] is not None else ""),
        f"regrapht's verdict as expected: {report['regrapht_as_expected']}/{report['candidates']}; "
        f"KernelBench's verdict right: {report['kernelbench_right']}/{report['candidates']}.",
        "",
        "| candidate | backend | expected | regrapht | KernelBench |",
        "| --- | --- | --- | --- | --- |",
    ]
    for r in report["rows"]:
        lines.append(
            f"| `{r['candidate']}` | {r['backend']} | {r['expected']} | {r['regrapht'] or '-'} | {r['kernelbench'] or '-'} |"
        )
    if report["differing"]:
        lines += ["", "Verdicts that differ:", ""]
        for d in report["differing"]:
            # The prepared explanation of KernelBench's verdict holds only where it gave the predicted one.
            kb_why = d["why_kernelbench"] if d["kernelbench_as_predicted"] else f"(not as predicted) {d['kernelbench_message']}"
            lines.append(
                f"- `{d['candidate']}`: regrapht {d['regrapht']}, KernelBench {d['kernelbench']} ({d['stricter']}). "
                f"regrapht: {d['regrapht_message'] or d['why_regrapht']} KernelBench: {kb_why}"
            )
    return "\n".join(line for line in lines if line is not None) + "\n"
