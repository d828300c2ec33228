"""Finding task folders: the shipped ones and any folder of task folders."""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources
from pathlib import Path

from regrapht.tasks.loader import TASK_FILE, load_task
from regrapht.tasks.model import Task


def builtin_tasks_root() -> Path:
    return Path(str(resources.files("regrapht") / "data" / "tasks"))


def iter_task_dirs(root: Path) -> Iterator[Path]:
    for task_file in sorted(root.rglob(TASK_FILE)):
        yield task_file.parent


def load_suite(root: Path | None = None) -> list[Task]:
    return [load_task(d) for d in iter_task_dirs(root or builtin_tasks_root())]


def find_task(ref: str, root: Path | None = None) -> Task:
    """A task by folder path, or by id among the shipped tasks."""
    path = Path(ref)
    if path.exists():
        return load_task(path)
    for task_dir in iter_task_dirs(root or builtin_tasks_root()):
        if task_dir.name == ref:
            return load_task(task_dir)
    raise FileNotFoundError(f"no task folder {ref!r} and no shipped task with that id")
