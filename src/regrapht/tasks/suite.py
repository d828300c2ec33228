"""Finding task folders: the shipped ones and any folder of task folders."""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources
from pathlib import Path

from regrapht.tasks.loader import TASK_FILE, load_task
from regrapht.tasks.model import Task
from regrapht.tasks.torch_task import (
    TorchTask,
    builtin_torch_root,
    is_torch_task_dir,
    iter_torch_task_dirs,
    load_torch_task,
)


def builtin_tasks_root() -> Path:
    return Path(str(resources.files("regrapht") / "data" / "tasks"))


def iter_task_dirs(root: Path) -> Iterator[Path]:
    for task_file in sorted(root.rglob(TASK_FILE)):
        yield task_file.parent


def load_suite(root: Path | None = None) -> list[Task]:
    return [load_task(d) for d in iter_task_dirs(root or builtin_tasks_root())]


def find_task(ref: str, root: Path | None = None) -> Task | TorchTask:
    """A task by folder path, or by id among the shipped tasks (serial-cpp first, then torch)."""
    path = Path(ref)
    if path.exists():
        return load_torch_task(path) if is_torch_task_dir(path) else load_task(path)
    for task_dir in iter_task_dirs(root or builtin_tasks_root()):
        if task_dir.name == ref:
            return load_task(task_dir)
    if root is None:
        for task_dir in iter_torch_task_dirs(builtin_torch_root()):
            if task_dir.name == ref:
                return load_torch_task(task_dir)
    raise FileNotFoundError(f"no task folder {ref!r} and no shipped task with that id")
