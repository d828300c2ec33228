"""Urgent compiles (the harness's libraries, which a whole batch waits on) do not queue behind the
candidates' compiles."""

from __future__ import annotations

import threading

from regrapht.eval.compile import Compiler


def test_an_urgent_compile_runs_while_the_pool_is_busy(tmp_path, monkeypatch):
    compiler = Compiler(cache_dir=tmp_path, jobs=1)
    release = threading.Event()
    ran: list[str] = []

    def fake_compile(source, kind, function, signature_params, names, entry=None):
        if function != "urgent":
            release.wait(timeout=10)  # a candidate's compile holding the pool's only thread
        ran.append(function)
        return function

    monkeypatch.setattr(compiler, "compile", fake_compile)
    try:
        queued = [compiler.submit(f"src{i}", "cuda", f"candidate{i}", "", []) for i in range(3)]
        urgent = compiler.submit("harness", "cpu", "urgent", "", [], urgent=True)
        assert urgent.result(timeout=5) == "urgent"
        assert ran == ["urgent"] and not any(f.done() for f in queued)
        again = compiler.submit("harness", "cpu", "urgent", "", [], urgent=True)
        assert again.result(timeout=5) == "urgent"  # a finished compile is not shared, but cached by compile()
    finally:
        release.set()
        compiler.close()
    assert sorted(ran) == ["candidate0", "candidate1", "candidate2", "urgent", "urgent"]


def test_an_urgent_request_joins_the_same_compile_in_flight(tmp_path, monkeypatch):
    compiler = Compiler(cache_dir=tmp_path, jobs=1)
    release = threading.Event()
    monkeypatch.setattr(compiler, "compile", lambda *a, **k: release.wait(timeout=10) and "built")
    try:
        first = compiler.submit("harness", "cpu", "lib", "", [], urgent=True)
        assert compiler.submit("harness", "cpu", "lib", "", [], urgent=True) is first
        assert compiler.submit("harness", "cpu", "lib", "", []) is first  # one build, whoever asks
    finally:
        release.set()
        compiler.close()
    assert first.result(timeout=5) == "built"


SAXPY = "void saxpy(int n, float a, const float* x, float* y) { for (int i = 0; i < n; ++i) y[i] += a * x[i]; }\n"
PARAMS, NAMES = "int n, float a, const float* x, float* y", ["n", "a", "x", "y"]


def test_a_cached_compile_is_answered_at_once_while_the_pool_is_busy(tmp_path, monkeypatch):
    """A source already in the cache costs a file read: it must not wait for a pool thread (in session
    16's trace a lane's first, cached candidate waited 1.6 s behind 18 real compiles, its GPU idle)."""
    compiler = Compiler(cache_dir=tmp_path, jobs=1)
    first = compiler.submit(SAXPY, "cpu", "saxpy", PARAMS, NAMES).result(timeout=120)
    assert first.ok and not first.cached
    release = threading.Event()
    real_run = compiler._run

    def held_run(build):
        release.wait(timeout=30)  # a real compile holding the pool's only thread
        return real_run(build)

    monkeypatch.setattr(compiler, "_run", held_run)
    try:
        busy = compiler.submit(SAXPY.replace("+=", "-="), "cpu", "saxpy", PARAMS, NAMES)
        again = compiler.submit(SAXPY, "cpu", "saxpy", PARAMS, NAMES)
        hit = again.result(timeout=5)  # answered while the pool's only thread is still held
        assert hit.ok and hit.cached and hit.library == first.library
        assert not busy.done()
    finally:
        release.set()
        compiler.close()
    assert busy.result(timeout=120).ok and not busy.result().cached


def test_a_cache_entry_that_cannot_be_read_is_compiled_again_on_the_pool(tmp_path):
    compiler = Compiler(cache_dir=tmp_path, jobs=1)
    try:
        first = compiler.submit(SAXPY, "cpu", "saxpy", PARAMS, NAMES).result(timeout=120)
        [meta] = list(tmp_path.glob("*/*/result.json"))
        meta.write_text('{"from": "another version"}')  # valid JSON, not a CompileResult
        again = compiler.submit(SAXPY, "cpu", "saxpy", PARAMS, NAMES).result(timeout=120)
    finally:
        compiler.close()
    assert first.ok and again.ok and not again.cached
