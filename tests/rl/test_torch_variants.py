"""Torch tasks' `[variants]`: loader validation, reproducible draws within the declared ranges and
dtypes, and the tolerance and roofline a drawn dtype brings."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from regrapht.rl import ProblemSampler
from regrapht.tasks import find_task, torch_schema
from regrapht.tasks.torch_task import TorchTaskError, load_torch_task
from regrapht.tasks.variants import draw

RELU = Path(find_task("relu").root)


def _relu_with(tmp_path: Path, section: str) -> Path:
    folder = tmp_path / "relu_v"
    shutil.copytree(RELU, folder, ignore=shutil.ignore_patterns("candidates"))
    toml = (folder / "task.toml").read_text().split("\n# RL problem randomization")[0]
    (folder / "task.toml").write_text(toml + "\n" + section)
    return folder


def test_relu_declares_sizes_and_dtypes() -> None:
    spec = find_task("relu").variants
    assert spec.declared and set(spec.sizes) == {"batch_size", "dim"}
    assert [d.dtype for d in spec.dtypes] == ["bfloat16", "float16"]


def test_draws_are_reproducible_and_within_the_declared_ranges() -> None:
    task = find_task("relu")
    spec = task.variants
    seen_dtypes = set()
    for i in range(40):
        v = draw(task, 7, i)
        assert v == draw(task, 7, i)  # the same (task, seed, index) on every call
        for name, r in spec.sizes.items():
            value = v.bench_size[name]
            assert r.low <= value <= r.high and value % r.multiple_of == 0, (name, value)
        assert v.task.bench_size == v.bench_size and v.task.id == f"relu@{v.label}"
        assert v.task.test_sizes == task.test_sizes  # test sizes never vary
        seen_dtypes.add(v.dtype)
        assert v.task.dtype == v.dtype and v.summary()["dtype"] == v.dtype
    assert seen_dtypes == {"float32", "bfloat16", "float16"}
    assert [draw(task, 8, i).label for i in range(5)] != [draw(task, 7, i).label for i in range(5)]


def test_a_drawn_dtype_brings_its_tolerance_and_a_lower_roofline() -> None:
    task = find_task("silu")
    half = next(v for v in (draw(task, 0, i) for i in range(40)) if v.dtype == "bfloat16")
    assert (half.task.tolerance.rtol, half.task.tolerance.atol) == (1.6e-2, 1e-3)
    sizes = half.task.bench_size
    assert half.task.floor_bytes(sizes) == task.floor_bytes(sizes) // 2  # 2-byte elements, not 4
    assert half.task.instance_key != task.instance_key


def test_held_out_variants_differ_from_training_ones_in_sizes_or_dtype() -> None:
    sampler = ProblemSampler([find_task("relu")], seed=3, train_variants=6, heldout_variants=3)
    train = {(tuple(sorted(p.bench_size.items())), p.dtype) for p in sampler.train_pool(find_task("relu"))}
    for problem in sampler.heldout():
        assert (tuple(sorted(problem.variant.bench_size.items())), problem.variant.dtype) not in train


def test_a_task_without_variants_varies_only_its_seed() -> None:
    task = find_task("softmax")
    assert not task.variants.declared
    v = draw(task, 0, 0)
    assert v.bench_size == task.bench_size and v.dtype == task.dtype and v.task.id != task.id


def test_a_dtype_only_section_is_accepted(tmp_path: Path) -> None:
    folder = _relu_with(tmp_path, '[[variants.dtypes]]\ndtype = "float16"\nrtol = 0.0\natol = 0.0\n')
    task = load_torch_task(folder)
    assert not task.variants.sizes and [d.dtype for d in task.variants.dtypes] == ["float16"]


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ("[variants]\nsizes = { rows = { low = 1, high = 2 } }\n", "variants.sizes.rows: no size 'rows' in sizes.bench"),
        ("[variants]\nsizes = { dim = { low = 9, high = 3 } }\n", "variants.sizes.dim: low (9) is above high (3)"),
        ("[variants]\nshapes = 1\n", "variants: unknown field(s) shapes"),
        ("[variants]\n", "name a free size in variants.sizes or a dtype"),
        ('[[variants.dtypes]]\ndtype = "int8"\nrtol = 0\natol = 0\n', "variants.dtypes[0].dtype: 'int8' is not one of"),
        ('[[variants.dtypes]]\ndtype = "float32"\nrtol = 0\natol = 0\n', "'float32' is already a choice"),
        ('[[variants.dtypes]]\ndtype = "float16"\nrtol = -1\natol = 0\n', "variants.dtypes[0].rtol: expected a non-negative number"),
        ('[[variants.dtypes]]\ndtype = "float16"\n', "expected a table with exactly dtype, rtol and atol"),
        ('[variants]\nenabled = false\n[[variants.dtypes]]\ndtype = "float16"\nrtol = 0\natol = 0\n',
         "enabled = false takes no dtypes"),
        ('[variants]\nderived = { dim = "0 - 5 * batch_size" }\nsizes = { batch_size = { low = 1, high = 4 } }\n',
         "variants.derived.dim: is negative"),
    ],
)
def test_bad_sections_name_the_field(tmp_path: Path, section: str, message: str) -> None:
    with pytest.raises(TorchTaskError, match="task.toml: ") as caught:
        load_torch_task(_relu_with(tmp_path, section))
    assert message in str(caught.value)


def test_the_importer_schema_checks_variants_too(tmp_path: Path) -> None:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib

    folder = _relu_with(tmp_path, '[[variants.dtypes]]\ndtype = "int8"\nrtol = 0\natol = 0\n')
    data = tomllib.loads((folder / "task.toml").read_text())
    reference = (folder / "reference.py").read_text()
    assert any("variants.dtypes[0].dtype: 'int8'" in p for p in torch_schema.check(data, reference))
    shipped = tomllib.loads((RELU / "task.toml").read_text())
    assert torch_schema.check(shipped, (RELU / "reference.py").read_text()) == []
