"""The shipped torch tasks (data/tasks_torch): every task.toml keeps to the schema, the split is sound, and
every reference runs on the CPU at every test size, finite, reproducible under a seed, with inputs that
change with the seed and outputs within the task's tolerance of the same reference run in float64."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

from regrapht.tasks import torch_schema

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(str(resources.files("regrapht") / "data" / "tasks_torch"))
# the suite proper: train and test (examples are the judge's own small tasks, loaded below)
FOLDERS = sorted(p.parent for split in ("train", "test") for p in ROOT.glob(f"{split}/*/task.toml"))
TASKS = {f.name: tomllib.loads((f / "task.toml").read_text()) for f in FOLDERS}
CHILD = Path(__file__).with_name("torch_reference_child.py")


def _model_code(folder: Path) -> str:
    """The Model class as a syntax tree without docstrings: what a task computes, sizes aside."""
    tree = ast.parse((folder / "reference.py").read_text())
    model = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Model")
    for node in ast.walk(model):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(model)


def test_the_suite_has_the_tasks_the_issue_asks_for() -> None:
    assert len(TASKS) >= 40
    splits = Counter(t["split"] for t in TASKS.values())
    assert set(splits) == {"train", "test"}
    assert 0.5 <= splits["train"] / len(TASKS) <= 0.7
    assert {t["level"] for t in TASKS.values()} == {1, 2, 3}
    assert {t["dtype"] for t in TASKS.values()} == {"float32", "bfloat16", "float16"}
    categories = {t["category"] for t in TASKS.values()}
    for wanted in ("matmul", "convolution", "reduction", "normalization", "activation", "loss", "scan"):
        assert wanted in categories
    for wanted in ("pooling", "fusion", "attention", "model"):
        assert wanted in categories


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda f: f.name)
def test_task_keeps_to_the_schema(folder: Path) -> None:
    data = TASKS[folder.name]
    reference = (folder / "reference.py").read_text()
    assert torch_schema.check(data, reference) == []
    assert folder.parent.name == data["split"]
    assert data["allow_tf32"] is False
    imports = set()
    for node in ast.walk(ast.parse(reference)):
        if isinstance(node, ast.Import):
            imports |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            imports.add((node.module or "").split(".")[0])
    assert imports <= {"torch", "math"}
    # small, odd test sizes with an edge case, and a bench size above every one of them
    tests, bench = data["sizes"]["test"], data["sizes"]["bench"]
    assert len(tests) >= 3
    assert any(1 in size.values() for size in tests) or folder.name in {"causal_attention_f16"}
    assert any(v % 2 == 1 and v > 1 for size in tests for v in size.values())
    assert all(size[k] <= bench[k] for size in tests for k in bench)
    assert all(size[k] % 32 for size in tests[-1:] for k in size if size[k] != bench[k])
    assert set(data["roofline"]) == {"bytes", "flops", "compute"}


@pytest.mark.parametrize("folder", sorted(p.parent for p in ROOT.glob("*/*/task.toml")), ids=lambda f: f.name)
def test_the_judge_s_loader_accepts_every_shipped_task(folder: Path) -> None:
    from regrapht.tasks.torch_task import load_torch_task

    task = load_torch_task(folder)
    assert task.kind == "torch" and task.id == folder.name


def test_no_computation_is_in_both_splits() -> None:
    train = {name: _model_code(f) for f in FOLDERS if TASKS[name := f.name]["split"] == "train"}
    test = {name: _model_code(f) for f in FOLDERS if TASKS[name := f.name]["split"] == "test"}
    for a, calls_a in train.items():
        for b, calls_b in test.items():
            assert calls_a != calls_b, f"{a} (train) and {b} (test) compute the same thing at other sizes"


def test_every_reference_runs_on_the_cpu_at_every_test_size(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    result = tmp_path / "result.json"
    proc = subprocess.run(
        [sys.executable, str(CHILD), str(result), *map(str, FOLDERS)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    problems = [p for folder_problems in json.loads(result.read_text()).values() for p in folder_problems]
    assert problems == []
    assert len(json.loads(result.read_text())) == len(FOLDERS)
