"""The symbol screen reads the built library: spellings the source screen misses are caught by what
the linker had to import, and no honest shipped kernel is flagged."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from regrapht.eval import symbols, toolchain
from regrapht.eval.compile import Compiler
from regrapht.eval.screen import blocking, screen
from regrapht.tasks import load_task

from .conftest import HERE, candidate, quick_config

TASKS = Path(__file__).resolve().parents[2] / "src" / "regrapht" / "data" / "tasks"
needs_gxx = pytest.mark.skipif(toolchain.gxx_path() is None, reason="needs g++")
needs_nvcc = pytest.mark.skipif(toolchain.nvcc_path() is None, reason="needs nvcc")

# Hostile candidates that pass the source screen: (file, the symbol-screen rule, the name it must report)
BYPASSES_CPU = [
    ("qualified_fopen.cpp", "symbols:files", "fopen"),
    ("parenthesized_exit.cpp", "symbols:process_exit", "exit"),
    ("parenthesized_clock.cpp", "symbols:timers", "clock_gettime"),
    ("pasted_fopen.cpp", "symbols:files", "fopen"),
    ("pointer_to_fopen.cpp", "symbols:files", "fopen"),
    ("inline_syscall.cpp", "symbols:raw_syscall", "syscall"),
    ("writes_outside_scratch.cpp", "symbols:files", "fopen"),
]
BYPASSES_CUDA = [
    ("qualified_fopen.cu", "symbols:files", "fopen"),
    ("parenthesized_quick_exit.cu", "symbols:processes", "quick_exit"),
    ("parenthesized_clock.cu", "symbols:timers", "clock_gettime"),
    ("pasted_fopen.cu", "symbols:files", "fopen"),
    ("opens_socket.cu", "symbols:network", "socket"),
    ("forks.cu", "symbols:processes", "fork"),
    ("host_callback.cu", "symbols:host_callbacks", "cudaLaunchHostFunc"),
]


def _compile(compiler: Compiler, task, source: str, kind: str) -> str:
    params = task.signature[task.signature.index("(") + 1 : task.signature.rindex(")")]
    result = compiler.compile(source, kind, task.function, params, [a.name for a in task.args])  # type: ignore[arg-type]
    assert result.ok, result.diagnostics
    assert result.library is not None
    return result.library


@pytest.fixture(scope="module")
def compiler(build_cache: Path) -> Compiler:
    return Compiler(build_cache)


@needs_gxx
@pytest.mark.parametrize("name,rule,symbol", BYPASSES_CPU)
def test_cpu_bypass_of_the_source_screen_is_caught_in_the_library(
    compiler: Compiler, vec_scale, name: str, rule: str, symbol: str
) -> None:
    source = candidate(name)
    assert not blocking(screen(source, "cpu")), "the candidate should get past the source screen"
    found = symbols.screen_library(_compile(compiler, vec_scale, source, "cpu"), "cpu")
    assert any(f.rule == rule and f.excerpt == symbol for f in found), [f.describe() for f in found]


@needs_nvcc
@pytest.mark.parametrize("name,rule,symbol", BYPASSES_CUDA)
def test_cuda_bypass_of_the_source_screen_is_caught_in_the_library(
    compiler: Compiler, vec_scale, name: str, rule: str, symbol: str
) -> None:
    source = candidate(name, "hostile_cuda")
    assert not blocking(screen(source, "cuda")), "the candidate should get past the source screen"
    found = symbols.screen_library(_compile(compiler, vec_scale, source, "cuda"), "cuda")
    assert any(f.rule == rule and f.excerpt == symbol for f in found), [f.describe() for f in found]


@needs_gxx
def test_the_evaluator_blocks_a_symbol_finding_before_running_it(build_cache: Path, vec_scale) -> None:
    from regrapht.eval import Evaluator

    with Evaluator(quick_config(build_cache, timing=False)) as ev:
        record = ev.evaluate(vec_scale, candidate("qualified_fopen.cpp"), target="cpu")
        assert record.status == "integrity_violation"
        assert "symbol screen" in record.message and "`fopen`" in record.message
        assert "symbols:files" in record.message
        assert record.reward == -1.0 and not record.cases  # never ran
        assert any(f["rule"] == "symbols:files" for f in record.screen)


@needs_gxx
def test_honest_cpu_candidate_is_clean(compiler: Compiler, vec_scale) -> None:
    library = _compile(compiler, vec_scale, candidate("correct.cpp"), "cpu")
    assert symbols.screen_library(library, "cpu") == []


def test_an_unreadable_library_blocks(tmp_path: Path) -> None:
    fake = tmp_path / "lib.so"
    fake.write_bytes(b"not an ELF file")
    found = symbols.screen_library(str(fake), "cpu")
    assert [f.rule for f in found] == ["symbols:unreadable"]
    assert "could not be screened" in found[0].message


def test_every_rule_group_names_targets_and_a_message() -> None:
    groups, instruction_rules = symbols.rules()
    assert {g.id for g in groups} >= {"files", "network", "processes", "timers", "dynamic_loading"}
    for g in groups:
        assert g.message and set(g.targets) <= {"cuda", "cpu"} and (g.symbols or g.pattern)
    # what honest code imports never matches a rule
    honest = ["malloc", "free", "memcpy", "memset", "__cxa_atexit", "_Znwm", "GOMP_parallel", "omp_get_num_threads",
              "cudaLaunchKernel", "cudaMalloc", "cudaStreamCreate", "cudaEventRecord", "sqrtf", "printf"]
    for name in honest:
        assert not any(name in g.symbols or (g.pattern and g.pattern.search(name)) for g in groups), name
    assert {r.id for r in instruction_rules} == {"raw_syscall", "cycle_counter"}


def _shipped() -> list[tuple[Path, Path, str]]:
    """(task folder, source, kind) for every shipped naive.cu, solution.cu and correct candidate."""
    found = []
    for task_toml in sorted(TASKS.glob("*/*/task.toml")):
        root = task_toml.parent
        for name in ("naive.cu", "solution.cu"):
            if (root / name).is_file():
                found.append((root, root / name, "cuda"))
        for path in sorted((root / "candidates").glob("correct*")):
            found.append((root, path, "cuda" if path.suffix == ".cu" else "cpu"))
    return found


SHIPPED = _shipped()


@pytest.mark.slow
@pytest.mark.parametrize(
    "root,source,kind", SHIPPED, ids=[f"{r.name}/{s.name}" for r, s, _ in SHIPPED]
)
def test_no_shipped_honest_kernel_is_flagged(root: Path, source: Path, kind: str) -> None:
    exe = toolchain.nvcc_path() if kind == "cuda" else toolchain.gxx_path()
    if exe is None:
        pytest.skip(f"no compiler for {kind}")
    # The shared build cache: a rerun costs no compiles.
    compiler = Compiler(Path(os.environ["REGRAPHT_CACHE"]) / "build" if "REGRAPHT_CACHE" in os.environ else None)
    library = _compile(compiler, load_task(root), source.read_text(), kind)  # type: ignore[arg-type]
    assert symbols.screen_library(library, kind) == []


def test_shipped_list_covers_every_task() -> None:
    assert len({r for r, _, _ in SHIPPED}) == len(list(TASKS.glob("*/*/task.toml"))) > 100
    assert HERE.is_dir()
