"""The `[variants]` section: validation with named fields, defaults, and reproducible draws in range."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from regrapht.tasks import TaskError, load_suite, load_task
from regrapht.tasks.variants import VARIANT_MARK, draw, size_signature
from tests.rl.conftest import HERE


def _with_variants(tmp_path: Path, section: str) -> Path:
    folder = tmp_path / "row_sums"
    shutil.copytree(HERE / "tasks" / "row_sums", folder)
    text = (folder / "task.toml").read_text()
    (folder / "task.toml").write_text(text[: text.index("[variants]")] + section)
    return folder


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ("[variants]\nsizes = { rows = { low = 9, high = 3 } }\n", r"variants.sizes.rows: low \(9\) is above high \(3\)"),
        ("[variants]\nsizes = { depth = { low = 1, high = 3 } }\n", r"variants.sizes.depth: no size 'depth' in sizes.bench"),
        ("[variants]\nsizes = { rows = { low = 0, high = 3 } }\n", r"variants.sizes.rows.low: expected a positive integer"),
        ("[variants]\nsizes = { rows = { low = 1, high = 3, step = 2 } }\n", r"variants.sizes.rows: expected \{ low"),
        ("[variants]\nsizes = { rows = { low = 9, high = 15, multiple_of = 16 } }\n", r"no multiple of 16 lies in \[9, 15\]"),
        ("[variants]\nshapes = {}\n", r"variants: unknown field\(s\) shapes"),
        ("[variants]\nenabled = false\nsizes = { rows = { low = 1, high = 3 } }\n", r"enabled = false takes no sizes"),
        ("[variants]\nenabled = \"no\"\n", r"variants.enabled: expected true or false"),
        ("[variants]\nderived = { cols = \"rows\" }\n", r"variants.sizes: name at least one free size"),
        ("[variants]\nsizes = { rows = { low = 1, high = 3 } }\nderived = { cols = \"rows + width\" }\n",
         r"variants.derived.cols: uses unknown size\(s\) width"),
        ("[variants]\nsizes = { rows = { low = 1, high = 3 } }\nderived = { rows = \"cols\" }\n",
         r"variants.derived.rows: 'rows' is also a free size"),
        # the smallest corner makes cols negative: the loader's length check names it
        ("[variants]\nsizes = { rows = { low = 1, high = 3 } }\nderived = { cols = \"rows - 5\" }\n",
         r"variants.derived.cols: is negative \(-4\).*smallest corner"),
    ],
)
def test_bad_sections_name_the_field(tmp_path: Path, section: str, message: str) -> None:
    with pytest.raises(TaskError, match=message):
        load_task(_with_variants(tmp_path, section))


def test_a_range_that_breaks_an_expression_names_it(tmp_path: Path) -> None:
    folder = _with_variants(
        tmp_path, '[roofline]\nbytes = "4 * rows - 1000"\n\n[variants]\nsizes = { rows = { low = 1, high = 300 } }\n'
    )
    with pytest.raises(TaskError, match=r"variants: roofline.bytes: is negative \(-996\) at the smallest variant"):
        load_task(folder)


def test_declared_draws_are_reproducible_and_within_range(row_sums) -> None:
    spec = row_sums.variants
    assert spec.declared and spec.describe() == "rows in [200, 800] step 8, cols = 2 * rows + 1"
    first = [draw(row_sums, 7, i) for i in range(40)]
    assert [v.bench_size for v in first] == [draw(row_sums, 7, i).bench_size for i in range(40)]
    for v in first:
        rows = v.bench_size["rows"]
        assert 200 <= rows <= 800 and rows % 8 == 0 and v.bench_size["cols"] == 2 * rows + 1
        assert v.task.id == f"row_sums{VARIANT_MARK}{v.label}" and v.base_id == "row_sums"
        assert v.task.test_sizes == row_sums.test_sizes  # hand-chosen test cases stay
    assert len({size_signature(v) for v in first}) > 10  # the range is used, not one value
    assert [v.label for v in first] != [draw(row_sums, 8, i).label for i in range(40)]  # the seed matters


def test_defaults_scale_a_single_size_and_keep_several(vec_scale) -> None:
    assert not vec_scale.variants.declared
    assert vec_scale.variants.describe() == "n in [262144, 1048576]"
    sizes = {draw(vec_scale, 0, i).bench_size["n"] for i in range(30)}
    assert min(sizes) >= 262144 and max(sizes) <= 1048576 and len(sizes) > 20
    suite = load_suite()
    multi = next(t for t in suite if len(t.bench_size) > 1 and not t.variants.declared)
    assert multi.variants.describe() == "input seed only (no free size)"
    assert draw(multi, 0, 0).bench_size == multi.bench_size
    assert draw(multi, 0, 0).task.id != draw(multi, 0, 1).task.id  # inputs are seeded by the id


def test_every_shipped_task_draws_variants_that_pass_its_own_checks() -> None:
    spmv = next(t for t in load_suite() if t.id == "spmv_csr")
    assert spmv.variants.declared
    v = draw(spmv, 0, 0).bench_size
    assert v["cols"] == v["rows"] and v["nnz"] == 16 * v["rows"] and 262144 <= v["rows"] <= 1048576
    for task in load_suite():
        for i in range(3):
            v = draw(task, 0, i)
            for a in task.arrays:
                assert a.n_elements(v.bench_size) >= 0
