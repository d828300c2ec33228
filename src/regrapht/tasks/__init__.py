"""Tasks: the serial-cpp task format, its loading and validation, and input generation."""

from regrapht.tasks.inputs import derive_seed, load_checker, make_inputs
from regrapht.tasks.loader import TaskError, load_task
from regrapht.tasks.model import Arg, Task, Tolerance
from regrapht.tasks.suite import builtin_tasks_root, find_task, iter_task_dirs, load_suite

__all__ = [
    "Arg",
    "Task",
    "TaskError",
    "Tolerance",
    "builtin_tasks_root",
    "derive_seed",
    "find_task",
    "iter_task_dirs",
    "load_checker",
    "load_suite",
    "load_task",
    "make_inputs",
]
