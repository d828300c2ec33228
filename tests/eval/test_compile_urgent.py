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
