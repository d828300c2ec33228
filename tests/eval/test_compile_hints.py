"""The hint put before compile errors: given only when the errors are about the appended entry point,
and saying which of its failures it is (empty file, unclosed block, missing function, kernel, signature)."""

from __future__ import annotations

import shutil

import pytest

from regrapht.eval import Compiler
from regrapht.tasks import builtin_tasks_root, load_task

needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
needs_gxx = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")

BODY = "for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];"
HEAD = "void saxpy(int n, float a, const float* x, float* y)"
SIGNATURE_HINT = "signature does not match"

# (source, the words the hint must hold, or None when no hint belongs)
CASES = {
    "empty": ("", "the candidate is empty"),
    "comments_only": ("// TODO\n/* later */\n", "the candidate is empty"),
    "missing_semicolon": (f"{HEAD} {{ {BODY[:-1]} }}\n", None),
    "undefined_identifier": (f"{HEAD} {{ {BODY.replace('x[i]', 'q[i]')} }}\n", None),
    "unclosed_block": (f"{HEAD} {{ for (int i = 0; i < n; i++) {{ y[i] = a * x[i] + y[i]; }}\n", "unclosed block"),
    "renamed": (f"{HEAD.replace('saxpy', 'saxpy2')} {{ {BODY} }}\n", "no function `saxpy`"),
    "in_a_namespace": (f"namespace k {{ {HEAD} {{ {BODY} }} }}\n", "no function `saxpy`"),
    "wrong_arity": ("void saxpy(int n, const float* x, float* y) { for (int i = 0; i < n; i++) y[i] += x[i]; }\n", SIGNATURE_HINT),
    "wrong_type": (f"{HEAD.replace('const float* x', 'const double* x')} {{ {BODY} }}\n", SIGNATURE_HINT),
}


@pytest.fixture(scope="module")
def saxpy():
    return load_task(builtin_tasks_root() / "examples" / "saxpy")


def _compile(compiler, task, source, kind):
    params = task.signature[task.signature.index("(") + 1 : -1]
    return compiler.compile(source, kind, task.function, params, [a.name for a in task.args])


def _check(result, expected):
    assert not result.ok
    first_line = result.diagnostics.splitlines()[0]
    if expected is None:  # the compiler's own located error comes first, with nothing before it
        assert first_line.startswith("candidate."), result.diagnostics
    else:
        assert expected in first_line, result.diagnostics
        if expected != SIGNATURE_HINT:
            assert SIGNATURE_HINT not in result.diagnostics
        assert "saxpy(int n, float a, const float* x, float* y)" in first_line or expected == "unclosed block"


@needs_gxx
@pytest.mark.parametrize("case", sorted(CASES))
def test_gxx_hint_fits_the_error(tmp_path, saxpy, case):
    source, expected = CASES[case]
    _check(_compile(Compiler(tmp_path), saxpy, source, "cpu"), expected)


@needs_nvcc
@pytest.mark.parametrize("case", ["empty", "missing_semicolon", "undefined_identifier", "unclosed_block", "renamed", "wrong_type"])
def test_nvcc_hint_fits_the_error(tmp_path, saxpy, case):
    source, expected = CASES[case]
    _check(_compile(Compiler(tmp_path), saxpy, source, "cuda"), expected)


@needs_nvcc
def test_nvcc_kernel_in_place_of_the_host_function(tmp_path, saxpy):
    source = "__global__ void saxpy(int n, float a, const float* x, float* y) { int i = threadIdx.x; if (i < n) y[i] += a * x[i]; }\n"
    result = _compile(Compiler(tmp_path), saxpy, source, "cuda")
    assert not result.ok and "is a __global__ kernel" in result.diagnostics.splitlines()[0]


@needs_gxx
def test_cached_failures_get_the_current_hint(tmp_path, saxpy):
    compiler = Compiler(tmp_path)
    first = _compile(compiler, saxpy, "", "cpu")
    again = _compile(compiler, saxpy, "", "cpu")
    assert again.cached and again.diagnostics == first.diagnostics
    assert again.diagnostics.startswith("the candidate is empty")
