"""Tasks: the serial-cpp task format, its loading and validation, and input generation."""

from regrapht.tasks.inputs import derive_seed, load_checker, make_inputs
from regrapht.tasks.loader import TaskError, load_task
from regrapht.tasks.model import Arg, Task, Tolerance
from regrapht.tasks.suite import builtin_tasks_root, find_task, iter_task_dirs, load_suite
from regrapht.tasks.torch_task import TorchTask, TorchTaskError, load_torch_suite, load_torch_task

__all__ = [
    "Arg",
    "Task",
    "TaskError",
    "Tolerance",
    "TorchTask",
    "TorchTaskError",
    "builtin_tasks_root",
    "derive_seed",
    "find_task",
    "iter_task_dirs",
    "load_checker",
    "load_suite",
    "load_task",
    "load_torch_suite",
    "load_torch_task",
    "make_inputs",
]
