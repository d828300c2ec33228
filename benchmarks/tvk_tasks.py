"""CPU checks of the benchmark's torch task folders (benchmarks/torch_tasks/<id>/) against the torch
task schema, so the GPU run does not find a malformed task: task.toml's fields, and a reference.py in
the KernelBench layout whose module constants are the bench shape (KernelBench evaluates at those
constants only, regrapht at the test shapes and the bench shape)."""

from __future__ import annotations

import ast
from pathlib import Path

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

CATEGORIES = (
    "matmul", "convolution", "reduction", "normalization", "activation", "loss",
    "scan", "elementwise", "pooling", "attention", "fusion", "model",
)
CHOICES = {
    "kind": ("torch",),
    "difficulty": ("easy", "medium", "hard"),
    "split": ("train", "test", "example"),
    "dtype": ("float32", "bfloat16", "float16"),
    "category": CATEGORIES,
}
ALLOWED_IMPORTS = {"torch", "torch.nn", "torch.nn.functional", "math"}


def _constants(tree: ast.Module) -> dict[str, int]:
    out = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value
            if isinstance(value, ast.Constant) and type(value.value) is int:
                out[node.targets[0].id] = value.value
    return out


def check_task(folder: Path) -> list[str]:
    """Problems with one task folder, each naming the file and field; empty when it is sound."""
    where = folder.name
    try:
        meta = tomllib.loads((folder / "task.toml").read_text())
        tree = ast.parse((folder / "reference.py").read_text())
    except (OSError, tomllib.TOMLDecodeError, SyntaxError) as exc:
        return [f"{where}: {exc}"]
    problems = []
    for key, allowed in CHOICES.items():
        if meta.get(key) not in allowed:
            problems.append(f"{where}/task.toml: {key} = {meta.get(key)!r}, not one of {', '.join(allowed)}")
    for key in ("title", "description"):
        if not isinstance(meta.get(key), str) or not meta[key]:
            problems.append(f"{where}/task.toml: {key} missing")
    if meta.get("level") not in (1, 2, 3):
        problems.append(f"{where}/task.toml: level must be 1, 2 or 3")
    tol = meta.get("tolerance", {})
    if not all(isinstance(tol.get(k), float) and tol[k] >= 0 for k in ("rtol", "atol")):
        problems.append(f"{where}/task.toml: [tolerance] needs float rtol and atol")
    names = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    for name in ("Model", "get_inputs", "get_init_inputs"):
        if name not in names:
            problems.append(f"{where}/reference.py: no top-level {name}")
    for node in ast.walk(tree):
        mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module] if isinstance(node, ast.ImportFrom) else []
        problems += [f"{where}/reference.py: imports {m}; only torch and math" for m in mods if m not in ALLOWED_IMPORTS]
    consts = _constants(tree)
    sizes = meta.get("sizes", {})
    tests, bench = sizes.get("test"), sizes.get("bench")
    if not isinstance(tests, list) or not tests or not isinstance(bench, dict):
        return problems + [f"{where}/task.toml: [sizes] needs test = [...] and bench = {{...}}"]
    for i, shape in enumerate([*tests, bench, sizes.get("cpu_bench", {})]):
        unknown = sorted(set(shape) - set(consts))
        if unknown:
            problems.append(f"{where}/task.toml: sizes entry {i} names {unknown}, not module constants of reference.py")
        if any(type(v) is not int or v < 1 for v in shape.values()):
            problems.append(f"{where}/task.toml: sizes entry {i} has a non-positive or non-integer size")
    if bench != {k: consts.get(k) for k in bench} or set(bench) != set(consts):
        problems.append(f"{where}: bench sizes {bench} differ from reference.py's constants {consts} (KernelBench uses the constants)")
    return problems
