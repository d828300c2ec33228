"""`regrapht tasks import kernelbench`: KernelBench-layout problems -> torch task folders.

A problem is read without being run (kb_source), then run in a child process with time and memory
limits (kb_probe): test sizes are found and verified on the CPU, determinism and seed dependence are
checked, and the reference is traced on the meta device to fit roofline expressions (kb_fit). Rules
(categories, tolerances, which constants are hyper-parameters) live in data/kernelbench_import.toml.
Every field that could not be inferred is named, per task, with the reason.

Re-importing is idempotent: a manifest records the hash of every file the importer wrote, and a file is
overwritten only while it still has that hash; a file a user edited, or wrote, is left alone.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from regrapht.tasks import kb_fit, kb_source, torch_schema

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

MANIFEST = ".kernelbench-import.json"
REPORT = "import-report.json"
_LEVEL_DIR = re.compile(r"level(\d+)\Z")


def load_rules() -> dict[str, Any]:
    return tomllib.loads((resources.files("regrapht") / "data" / "kernelbench_import.toml").read_text())


@dataclass
class Problem:
    path: Path
    level: int | None  # None: a folder of problems outside any levelN folder
    source: str  # as the report and task.toml name it, e.g. "level1/19_ReLU.py"


@dataclass
class Outcome:
    source: str
    task_id: str = ""
    status: str = "failed"  # converted | unchanged | kept | failed
    reason: str = ""
    category: str = ""
    dtype: str = ""
    level: int | None = None
    sizes: list[str] = field(default_factory=list)
    test_sizes: int = 0
    not_inferred: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def discover(path: Path, levels: Iterable[int] | None = None) -> list[Problem]:
    """The problems under a KernelBench checkout (PATH/KernelBench/levelN, PATH/levelN) or in a folder of
    problem files (PATH/*.py)."""
    path = Path(path)
    if not path.is_dir():
        raise FileNotFoundError(f"{path}: not a folder")
    root = path / "KernelBench" if (path / "KernelBench").is_dir() else path
    level_dirs = sorted(
        (int(m.group(1)), d) for d in root.iterdir() if d.is_dir() and (m := _LEVEL_DIR.match(d.name))
    )
    wanted = set(levels) if levels else None
    if level_dirs:
        return [
            Problem(f, level, f"{d.name}/{f.name}")
            for level, d in level_dirs
            if wanted is None or level in wanted
            for f in sorted(d.glob("*.py"), key=_natural)
        ]
    return [Problem(f, None, f.name) for f in sorted(root.glob("*.py"), key=_natural) if f.name != "__init__.py"]


def _natural(p: Path) -> tuple:
    m = re.match(r"(\d+)", p.name)
    return (int(m.group(1)) if m else 1 << 30, p.name)


def classify(src: kb_source.Source, rules: dict[str, Any]) -> tuple[list[str], list[str], list[str]]:
    """(shrink, batch, fixed) size names: which extents test sizes make small, which are the batch."""
    r = rules["sizes"]
    shrink, batch, fixed = [], [], []
    for name in src.sizes:
        low = name.lower()
        if re.search(r["batch"], low):
            batch.append(name)
        elif src.ints[name] <= r["fixed_at_most"] or (re.search(r["fixed"], low) and src.ints[name] <= r["fixed_max"]):
            fixed.append(name)
        else:
            shrink.append(name)
    return shrink, batch, fixed


def run_probe(problem: Path, src: kb_source.Source, rules: dict[str, Any], timeout_s: float) -> dict[str, Any]:
    """The probe's result for one problem, run in a child process that is killed after timeout_s."""
    shrink, batch, _ = classify(src, rules)
    request = {
        "module": str(problem.resolve()),
        "bench": {n: src.ints[n] for n in src.sizes},
        "shrink": shrink,
        "batch": batch,
        "trial_timeout_s": rules["sizes"]["trial_timeout_s"],
        "trace_timeout_s": rules["sizes"]["trace_timeout_s"],
        "memory_mb": rules["sizes"]["memory_mb"],
        "largest_test_elements": rules["sizes"]["largest_test_elements"],
        "tolerance": rules["tolerance"],
    }
    package_root = str(Path(kb_source.__file__).resolve().parents[2])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([package_root, os.environ.get("PYTHONPATH", "")]))
    with tempfile.TemporaryDirectory(prefix="regrapht-kb-") as tmp:
        req, res = Path(tmp, "request.json"), Path(tmp, "result.json")
        req.write_text(json.dumps(request))
        proc = subprocess.Popen(
            [sys.executable, "-m", "regrapht.tasks.kb_probe", str(req), str(res)],
            cwd=tmp,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,  # so a timeout ends whatever the module started, too
        )
        try:
            _, err = proc.communicate(timeout=timeout_s)
            killed = False
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            _, err = proc.communicate()
            killed = True
        result = json.loads(res.read_text()) if res.is_file() and res.stat().st_size else {}
        if killed:
            result["killed"] = f"the reference ran past the {timeout_s:g} s limit of the import and was stopped"
        elif proc.returncode != 0 and "tests" not in result:
            tail = err.decode(errors="replace").strip().splitlines()[-1:] or [f"exit status {proc.returncode}"]
            result.setdefault("crash", f"the probe process failed: {tail[0][:300]}")
        return result


def _category(stem: str, level: int | None, ops: list[str], rules: dict[str, Any]) -> tuple[str, str | None]:
    words = kb_source.words(stem)
    for rule in rules["category"]:
        if (level in (None, 1) or rule.get("any_level")) and any(re.search(rule["pattern"], w) for w in words):
            return rule["name"], None
    if level == 2:
        return "fusion", None
    if level is not None and level >= 3:
        return "model", None
    for rule in rules["op_category"]:
        if any(re.search(rule["pattern"], op) for op in ops):
            return rule["name"], None
    return "elementwise", "category: neither the name nor the ops the reference ran say; set to elementwise"


def _tensors(run: dict[str, Any]) -> list[dict[str, Any]]:
    return [t for t in run["inputs"] + run["params"] + run["outputs"] if t["shape"] is not None]


def _roofline(
    names: list[str], bench: dict[str, int], trace: dict[str, Any], tests: list[dict[str, Any]], rule: str
) -> tuple[dict[str, str], list[str]]:
    """Roofline expressions fitted to the trace and checked against the real test runs; with what failed."""
    missing: list[str] = []
    points = trace.get("points") or []
    if trace.get("error") or not points:
        return {}, [f"roofline: the reference does not run on the meta device ({trace.get('error')})"]
    sizes = [p["sizes"] for p in points]
    layouts = {tuple(len(p[k]) for k in ("inputs", "params", "outputs")) for p in points}
    if len(layouts) != 1:
        return {}, ["roofline: the number of tensors changes with the sizes"]
    fitted: dict[tuple[str, int], list[str]] = {}
    for kind in ("inputs", "params", "outputs"):
        for i, t in enumerate(points[0][kind]):
            if t["shape"] is None:
                continue
            dims = kb_fit.shape_exprs(sizes, [p[kind][i]["shape"] for p in points], names)
            if dims is None:
                label = kind.rstrip("s") if kind != "params" else "parameter"
                missing.append(f"roofline.bytes: the shape of {label} {i} is not an expression of the sizes")
                return {}, missing
            fitted[(kind, i)] = dims
    nbytes = kb_fit.Monomials()
    for (kind, i), dims in fitted.items():
        nbytes.add(kb_fit.ITEMSIZE.get(points[0][kind][i]["dtype"], 4), dims)
    roof: dict[str, str] = {}
    checks = sizes + [t["sizes"] for t in tests]
    actual = [sum(kb_fit.ITEMSIZE.get(t["dtype"], 4) * _numel(t["shape"]) for t in _tensors(r)) for r in points + tests]
    if kb_fit.holds(nbytes.text(), checks, actual):
        roof["bytes"] = nbytes.text()
    else:
        missing.append("roofline.bytes: the fitted expression does not hold at the test sizes")
    if rule == "counted":
        factors = sorted({d for dims in fitted.values() for d in dims if not d.isdigit()})
        flops = kb_fit.fit_flops(sizes, [p["flops"] for p in points], bench, names, factors)
        if flops and flops != "0":
            roof["flops"] = flops
        else:
            missing.append(
                "roofline.flops: FlopCounterMode counted no matmul, convolution or attention"
                if not any(p["flops"] for p in points)
                else "roofline.flops: the counted flops are not a product of the sizes"
            )
    elif rule in ("outputs", "inputs"):
        kind = rule
        keys = [k for k in fitted if k[0] == kind]
        if keys:
            if kind == "outputs":
                m = kb_fit.Monomials()
                for k in keys:
                    m.add(1, fitted[k])
                roof["flops"] = m.text()
            else:
                biggest = max(keys, key=lambda k: _numel(points[0][kind][k[1]]["shape"]))
                roof["flops"] = kb_fit.numel_text(fitted[biggest])
    else:
        missing.append("roofline.flops: no rule for this category")
    return roof, missing


def _numel(shape: list[int]) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def convert(problem: Problem, rules: dict[str, Any], timeout_s: float, split: str, default_level: int):
    """(outcome, task.toml data or None) for one problem; never raises for a bad problem."""
    out = Outcome(source=problem.source)
    try:
        text = problem.path.read_text(encoding="utf-8")
        src = kb_source.read_source(text)
    except (OSError, UnicodeDecodeError) as exc:
        out.reason = f"cannot read the file: {exc}"
        return out, None
    except kb_source.SourceProblem as exc:
        out.reason = str(exc)
        return out, None
    level = problem.level if problem.level is not None else default_level
    out.task_id, out.level = kb_source.task_id(problem.path.stem, problem.level), level
    if problem.level is None:
        out.not_inferred.append(f"level: the file is in no levelN folder; set to {default_level}")
    if not src.sizes:
        out.reason = "no module-level integer size constant that get_inputs()/Model read and the harness can set"
        if src.pinned:
            out.reason += f" (pinned: {', '.join(f'{n} is read by {w}' for n, w in src.pinned.items())})"
        return out, None
    for name, where in src.pinned.items():
        out.not_inferred.append(f"sizes.{name}: fixed at {src.ints[name]}, since {where} reads it when the module loads")
    for name, value in src.others.items():
        out.notes.append(f"{name} = {value} is not an integer size; kept as written")
    out.notes += [f"{name} is read by nothing; not a size" for name in src.unused]
    foreign = sorted({m.split(".")[0] for m in src.imports} - {"torch", "math"})
    if foreign:
        out.notes.append(f"imports {', '.join(foreign)}: the schema allows torch and math only")

    probe = run_probe(problem.path, src, rules, timeout_s)
    if "import_error" in probe:
        out.reason = f"importing the module failed: {probe['import_error']}"
        return out, None
    tests = probe.get("tests") or []
    if not tests:
        out.reason = probe.get("killed") or probe.get("crash") or "no test size runs on the CPU"
        fails = probe.get("failures") or []
        if fails and not probe.get("killed"):
            out.reason += f": {fails[-1]['error']}"
        elif not probe.get("killed"):
            out.reason += " (no size was tried: the trace or the import used up the time)"
        return out, None
    for i, det in enumerate(probe.get("determinism") or []):
        if det.get("error"):
            out.reason = f"the determinism check failed: {det['error']}"
        elif not det["inputs_reproduce"]:
            out.reason = "get_inputs() does not reproduce under torch.manual_seed"
        elif not det["outputs_reproduce"]:
            out.reason = "forward is not deterministic: two calls on the same inputs differ (it draws random numbers?)"
        elif not det["seeds_differ"]:
            out.reason = "get_inputs() draws the same inputs under every seed (fixed data, or no tensor input)"
        if out.reason:
            out.reason += f" (at test size {i})"
            return out, None

    first = tests[0]
    floats = [t["dtype"] for t in first["inputs"] + first["outputs"] if t["dtype"] in kb_fit.ITEMSIZE]
    candidates = [d for d in floats if d in ("float32", "bfloat16", "float16", "float64")]
    if not candidates:
        dtype = "float32"
        out.not_inferred.append("dtype: no floating-point input or output; set to float32")
    elif candidates[0] not in torch_schema.DTYPES:
        out.reason = f"the reference computes in {candidates[0]}; the schema's dtypes are {', '.join(torch_schema.DTYPES)}"
        return out, None
    else:
        dtype = candidates[0]
    trace = probe.get("trace") or {}
    category, why = _category(problem.path.stem, problem.level, trace.get("ops", []), rules)
    if why:
        out.not_inferred.append(why)
    kind = "pointwise" if category in rules["pointwise"]["categories"] else "reduction"
    tolerance = dict(rules["tolerance"][dtype][kind])
    precision = probe.get("precision") or {}
    factor = (precision.get("factors") or {}).get(kind)
    if precision.get("error"):
        out.notes.append(f"tolerance: not checked against a float64 run ({precision['error']})")
    elif factor is not None and factor > 1:
        # the rule is tighter than the reference's own rounding: an exact candidate would fail it
        grow = 4 * factor
        tolerance = {k: float(f"{v * grow:.2g}") for k, v in tolerance.items()}
        out.not_inferred.append(
            f"tolerance: the {dtype} {kind} rule is {factor:.3g}x below the reference's own error against a "
            f"float64 run at the largest test size; set to rtol={tolerance['rtol']:g}, atol={tolerance['atol']:g}"
        )
    bench = {n: src.ints[n] for n in src.sizes}
    roof, missing = _roofline(src.sizes, bench, trace, tests, rules["flops"].get(category, "none"))
    out.not_inferred += missing
    if roof:
        tensor = rules["flops"].get(category) == "counted" and dtype != "float32"
        roof["compute"] = "fp16_tensor" if tensor else "fp32"
    shrink, batch, fixed = classify(src, rules)
    if fixed:
        out.notes.append(f"kept at their bench values in every test size: {', '.join(fixed)}")
    description = " ".join(src.docstring.split("\n\n")[0].split()) or f"KernelBench {problem.source}."
    data: dict[str, Any] = {
        "kind": "torch",
        "title": kb_source.title(problem.path.stem),
        "category": category,
        "difficulty": rules["levels"].get(str(level), "hard"),
        "split": split,
        "level": level,
        "dtype": dtype,
        "allow_tf32": False,
        "description": description,
        "tags": ["kernelbench"] + ([f"level{problem.level}"] if problem.level is not None else []),
        "source": f"kernelbench {problem.source}",
        "sizes": {"test": [{n: t["sizes"][n] for n in src.sizes} for t in tests], "bench": bench},
        "tolerance": tolerance,
    }
    if roof:
        data["roofline"] = roof
    problems = torch_schema.check(data, text)
    if problems:  # a bug of the importer, not of the problem; say so rather than write a bad task
        out.reason = "the importer produced an invalid task.toml: " + "; ".join(problems)
        return out, None
    out.status, out.category, out.dtype = "converted", category, dtype
    out.sizes, out.test_sizes = list(src.sizes), len(tests)
    return out, data


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _write(out_dir: Path, outcome: Outcome, files: dict[str, str], manifest: dict[str, str]) -> None:
    """Write a task's files unless one was changed by someone else since the importer wrote it."""
    folder = out_dir / outcome.task_id
    foreign = []
    for name in files:
        path, key = folder / name, f"{outcome.task_id}/{name}"
        if path.exists() and manifest.get(key) != _sha(path.read_text(encoding="utf-8", errors="replace")):
            foreign.append(name)
    if foreign:
        outcome.status = "kept"
        outcome.reason = f"{', '.join(foreign)} changed since the last import (or was not written by it); left as is"
        return
    unchanged = all((folder / n).exists() and manifest.get(f"{outcome.task_id}/{n}") == _sha(t) for n, t in files.items())
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
        manifest[f"{outcome.task_id}/{name}"] = _sha(text)
    if unchanged:
        outcome.status = "unchanged"


def import_kernelbench(
    path: Path,
    out_dir: Path,
    levels: Iterable[int] | None = None,
    split: str = "test",
    default_level: int = 1,
    timeout_s: float = 180.0,
    jobs: int = 1,
    on_outcome: Callable[[Outcome], None] | None = None,
    rules: dict[str, Any] | None = None,
) -> list[Outcome]:
    """Convert every problem under `path` into `out_dir/<task_id>/`; returns one outcome per problem and
    writes them to out_dir/import-report.json."""
    if split not in torch_schema.SPLITS:
        raise ValueError(f"split {split!r} is not one of {', '.join(torch_schema.SPLITS)}")
    problems = discover(path, levels)
    rules = rules or load_rules()
    out_dir.mkdir(parents=True, exist_ok=True)
    manifest_path = out_dir / MANIFEST
    manifest: dict[str, str] = json.loads(manifest_path.read_text()) if manifest_path.is_file() else {}
    outcomes: list[Outcome] = []
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for outcome, data in pool.map(lambda p: convert(p, rules, timeout_s, split, default_level), problems):
            if data is not None:
                text = next(p for p in problems if p.source == outcome.source).path.read_text(encoding="utf-8")
                _write(out_dir, outcome, {"task.toml": torch_schema.dumps(data), "reference.py": text}, manifest)
                manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True))
            outcomes.append(outcome)
            # rewritten after every problem, so an import that is stopped keeps the report of what it did
            (out_dir / REPORT).write_text(json.dumps([asdict(o) for o in outcomes], indent=1))
            if on_outcome:
                on_outcome(outcome)
    (out_dir / REPORT).write_text(json.dumps([asdict(o) for o in outcomes], indent=1))
    return outcomes
