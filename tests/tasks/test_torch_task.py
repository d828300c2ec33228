"""Loading torch task folders: the shipped examples, and malformed folders with precise messages."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from regrapht.tasks import TaskError, find_task, load_torch_suite, load_torch_task
from regrapht.tasks.torch_task import builtin_torch_root, is_torch_task_dir

EXAMPLE = builtin_torch_root() / "examples" / "relu"


def test_shipped_examples_load() -> None:
    tasks = {t.id: t for t in load_torch_suite(builtin_torch_root() / "examples")}
    assert {"relu", "matmul", "softmax"} <= set(tasks)
    relu = tasks["relu"]
    assert relu.kind == "torch" and relu.dtype == "float32" and relu.level == 1
    assert relu.size_names == ("batch_size", "dim")
    assert relu.bench_for("cpu") == {"batch_size": 64, "dim": 4096}
    assert relu.floor_bytes(relu.bench_size) == 2 * 4 * 4096 * 16384


def test_find_task_finds_torch_tasks_by_id_and_folder() -> None:
    assert find_task("matmul").kind == "torch"
    assert find_task(str(EXAMPLE)).id == "relu"
    assert is_torch_task_dir(EXAMPLE)


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "mytask"
    shutil.copytree(EXAMPLE, folder)
    return folder


def _edit(folder: Path, old: str, new: str) -> None:
    toml = folder / "task.toml"
    text = toml.read_text()
    assert old in text
    toml.write_text(text.replace(old, new))


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ('category = "activation"', 'category = "magic"', "category: 'magic' is not one of"),
        ('dtype = "float32"', 'dtype = "float64"', "dtype: 'float64' is not one of float32, bfloat16, float16"),
        ("level = 1", 'level = "one"', "level: expected int"),
        ('title = "ReLU activation"\n', "", "title: missing required field"),
        ("bench = { batch_size = 4096, dim = 16384 }", "bench = { batch = 4096 }",
         "sizes.bench.batch: reference.py has no module-level integer constant 'batch'"),
        ("{ batch_size = 1, dim = 1 }", "{ batch_size = -1, dim = 1 }", "sizes.test[1].batch_size: expected a non-negative integer"),
        ("rtol = 0.0", 'rtol = "tight"', "tolerance.rtol: expected a non-negative number"),
        ('bytes = "2*4*batch_size*dim"', 'bytes = "2*4*rows"', "roofline.bytes: uses unknown size(s) rows"),
        ('kind = "torch"', 'kind = "torch"\nwidth = 3', "unknown field(s) width"),
    ],
)
def test_malformed_task_toml(tmp_path: Path, old: str, new: str, words: str) -> None:
    folder = _copy(tmp_path)
    _edit(folder, old, new)
    with pytest.raises(TaskError) as info:
        load_torch_task(folder)
    assert words in str(info.value)
    assert "task.toml" in str(info.value)


def test_invalid_toml(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    (folder / "task.toml").write_text('kind = "torch"\ntitle = \n')
    with pytest.raises(TaskError, match="invalid TOML"):
        load_torch_task(folder)


def test_reference_problems(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    reference = folder / "reference.py"
    reference.write_text(reference.read_text().replace("def get_init_inputs", "def init_inputs"))
    with pytest.raises(TaskError, match="does not define get_init_inputs at module level"):
        load_torch_task(folder)
    reference.write_text("class Model(:\n")
    with pytest.raises(TaskError, match=r"reference.py:1: syntax error"):
        load_torch_task(folder)
    reference.unlink()
    with pytest.raises(TaskError, match="reference.py is missing"):
        load_torch_task(folder)


def test_loading_never_runs_the_reference(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    marker = tmp_path / "ran"
    reference = folder / "reference.py"
    reference.write_text(f"open({str(marker)!r}, 'w').close()\n" + reference.read_text())
    load_torch_task(folder)
    assert not marker.exists()


def test_a_torch_task_has_an_instance_key_the_pool_can_route_by() -> None:
    import dataclasses

    from regrapht.eval.lanes import task_key
    from regrapht.tasks import find_task

    relu = find_task("relu")
    resized = dataclasses.replace(relu, bench_size={k: v // 2 for k, v in relu.bench_size.items()})
    assert relu.instance_key != resized.instance_key
    assert task_key(relu) == task_key(find_task("relu")) != task_key(resized)
