"""Torch candidates' extension builds ahead of their device turn: what the text settles, the CPU build
pool, the recipe's flags and the light-header fallback (no compiler runs here)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from pathlib import Path

import pytest

pytest.importorskip("torch")

from regrapht.eval import torch_build, torch_prebuild  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
WITH_EXTENSIONS = sorted(
    p
    for folder in (ROOT / "benchmarks/torch_candidates", ROOT / "tests/eval/hostile_torch", ROOT / "src/regrapht/data/tasks_torch")
    for p in folder.rglob("*.py")
    if "load_inline(" in p.read_text()
)


class _Asked(Exception):
    pass


def _asked_for(path: Path, monkeypatch: pytest.MonkeyPatch) -> dict:
    """The spec the candidate's own load_inline call asks for when its module runs."""
    from torch.utils import cpp_extension

    asked: list[dict] = []

    def record(*args, **kwargs):
        asked.append(torch_build.spec_from_call(args, kwargs))
        raise _Asked

    monkeypatch.setattr(cpp_extension, "load_inline", record)
    # Some candidates are cheats that patch torch at import (benchmarks' cheat_monkeypatch.py sets
    # torch.allclose): run here, in the test process, their patches must not outlive the test.
    import torch
    import torch.nn.functional as F

    patched = (torch, F, torch.Tensor, torch.nn.Module)
    before = [dict(vars(space)) for space in patched]
    try:
        with pytest.raises(_Asked):
            exec(compile(path.read_text(), str(path), "exec"), {"__name__": "candidate"})
    finally:
        for space, names in zip(patched, before):
            for name in set(vars(space)) - set(names):
                delattr(space, name)
            for name, value in names.items():
                if vars(space).get(name) is not value:
                    setattr(space, name, value)
    return asked[0]


@pytest.mark.parametrize("path", WITH_EXTENSIONS, ids=[f"{p.parent.name}/{p.name}" for p in WITH_EXTENSIONS])
def test_the_text_settles_exactly_what_the_candidate_asks_for(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert len(WITH_EXTENSIONS) >= 20  # every CUDA candidate of the KernelBench comparison among them
    assert torch_prebuild.specs_in(path.read_text()) == [_asked_for(path, monkeypatch)]


def test_bare_cuda_spec_is_the_workers() -> None:
    source = (ROOT / "tests/eval/hostile_torch/bare_relu.cu").read_text()
    from regrapht.eval.torch_forms import detect

    form = detect(source, "bare_relu.cu")
    (spec,) = torch_prebuild.specs_in(source, form.kind, form.entry)
    assert spec["name"] == "bare" and spec["functions"] == [form.entry] and spec["cuda_sources"] == [source]


SOURCES = '''
from torch.utils.cpp_extension import load_inline
head = "#include <torch/extension.h>\\n"
body = head + "torch::Tensor f(torch::Tensor x) { return x; }"
n = 4
ext = load_inline(name=f"ext{n}", cpp_sources=[body], functions=["f"], extra_cflags=["-O2"])
'''


def test_names_concatenation_and_fstrings_are_followed() -> None:
    (spec,) = torch_prebuild.specs_in(SOURCES)
    assert spec["name"] == "ext4"
    assert spec["cpp_sources"] == ["#include <torch/extension.h>\ntorch::Tensor f(torch::Tensor x) { return x; }"]
    assert spec["extra_cflags"] == ["-O2"]


@pytest.mark.parametrize(
    "change",
    [
        'body = body.replace("x", "y")',  # rebound: its value is the run's
        "body += ' '",
        "for body in ['a']: pass",
        "import os\nn = os.getpid()",  # n assigned twice
    ],
)
def test_what_only_running_would_tell_is_not_guessed(change: str) -> None:
    head, call = SOURCES.rsplit("ext = ", 1)
    assert torch_prebuild.specs_in(head + change + "\next = " + call) == []


def test_a_syntax_error_settles_nothing() -> None:
    assert torch_prebuild.specs_in("def broken(:\n  load_inline(name='x')") == []


def test_the_pool_builds_each_content_address_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    calls: list[str] = []
    release = threading.Event()

    def fake_build(spec, target, cache_dir=None, timeout_s=300.0):
        calls.append(spec["name"])
        release.wait(5)
        lib = tmp_path / f"{spec['name']}.so"
        lib.write_text("")
        return torch_build.BuildResult(True, str(lib), spec["name"], 0.5, False)

    monkeypatch.setattr(torch_build, "build", fake_build)
    monkeypatch.setattr(torch_build, "build_key", lambda spec, target: spec["name"] + target)
    pool = torch_prebuild.BuildPool(tmp_path, workers=2)
    try:
        spec = {"name": "a"}
        first, again = pool.submit(spec, "cuda"), pool.submit(spec, "cuda")
        assert first is again
        release.set()
        result, waited, ahead = pool.build(spec, "cuda")
        assert result.ok and ahead and calls == ["a"]
        # asked for something nobody prebuilt: built there and then
        result, waited, ahead = pool.build({"name": "b"}, "cuda")
        assert result.module == "b" and not ahead and calls == ["a", "b"]
        # a prebuilt library gone from the cache is built again, not handed out
        Path(pool.submit(spec, "cuda").result().library).unlink()
        result, _, ahead = pool.build(spec, "cuda")
        assert not ahead and calls == ["a", "b", "a"]
    finally:
        pool.close()


def test_host_optimization_of_the_cuda_unit_is_the_harness_s() -> None:
    kept, dropped = torch_build._candidate_cuda_flags(["-O3", "--use_fast_math", "-Xcompiler", "-O2", "", "-lineinfo"])
    assert kept == ["--use_fast_math", "-lineinfo"]
    assert dropped == ["-O3", "-Xcompiler -O2"]


def test_nvcc_runs_one_front_end_pass_for_the_gpu_at_hand(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from regrapht.eval import toolchain

    monkeypatch.setattr(toolchain, "cuda_arch", lambda: "sm_90a")
    monkeypatch.setattr(toolchain, "nvcc_path", lambda: "/opt/cuda/bin/nvcc")
    layout = {"std": "c++17", "nvcc_flags": [], "abi": 1, "includes": ["/torch/include"]}
    cmd = torch_build._nvcc_command(layout, tmp_path / "k.cu", tmp_path / "k.o", ["-lineinfo"], [], light=tmp_path)
    assert "-arch=sm_90a" not in cmd and cmd[cmd.index("-gencode") + 1] == "arch=compute_90a,code=sm_90a"
    assert cmd[1] == torch_build.HOST_OPT
    assert cmd.index(f"-I{tmp_path}") < cmd.index("-I/torch/include")  # the light header shadows torch's


def _fake_toolchain(monkeypatch: pytest.MonkeyPatch, outcomes: dict[str, bool]) -> list[list[str]]:
    from regrapht.eval import toolchain

    ran: list[list[str]] = []
    # every toolchain probe answered here: no compiler runs, and no probe's cached answer is polluted
    monkeypatch.setattr(toolchain, "nvcc_path", lambda: "/opt/cuda/bin/nvcc")
    monkeypatch.setattr(toolchain, "cuda_home", lambda: None)
    monkeypatch.setattr(toolchain, "nvcc_version", lambda: "13.0-test")
    monkeypatch.setattr(toolchain, "gxx_version", lambda: "12-test")
    monkeypatch.setattr(toolchain, "gxx_path", lambda: "/usr/bin/g++")
    monkeypatch.setattr(toolchain, "cuda_arch", lambda: "sm_90a")
    monkeypatch.setattr(torch_build, "_pch", lambda cache, layout, flags: None)

    def fake_run(cmd, timeout_s):
        ran.append(cmd)
        light = any("torch-light" in c for c in cmd)
        name = "nvcc_light" if cmd[0].endswith("nvcc") and light else "nvcc" if cmd[0].endswith("nvcc") else "link" if "-shared" in cmd else "cxx"
        ok = outcomes.get(name, True)
        if ok and name == "link":
            Path(cmd[-1]).write_text("")
        return ok, "" if ok else f"{name}: error: identifier \"py\" is undefined", 0.01

    monkeypatch.setattr(torch_build, "_timed_run", fake_run)
    return ran


SPEC = {"name": "x", "cpp_sources": ["torch::Tensor f(torch::Tensor x);"], "cuda_sources": ["__global__ void k() {}"],
        "functions": ["f"], "extra_cflags": [], "extra_cuda_cflags": ["-O3"], "extra_ldflags": [], "extra_include_paths": []}  # fmt: skip


def test_a_source_the_light_header_cannot_serve_gets_torch_s_in_full(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    ran = _fake_toolchain(monkeypatch, {"nvcc_light": False})
    result = torch_build.build(dict(SPEC), "cuda", tmp_path)
    nvcc = [c for c in ran if c[0].endswith("nvcc")]
    assert result.ok and not result.light and len(nvcc) == 2
    assert not any("torch-light" in c for c in nvcc[1])
    assert set(result.phases) == {"pch", "cxx", "nvcc", "nvcc_full", "link"}
    assert "-O3" in result.notes[0] and "-O3" not in nvcc[0]
    assert (tmp_path / "torch-light").is_dir() and not list((tmp_path / "torch-ext").glob("*/work-*"))


def test_the_full_header_s_diagnostics_are_the_verdict(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _fake_toolchain(monkeypatch, {"nvcc_light": False, "nvcc": False})
    result = torch_build.build(dict(SPEC), "cuda", tmp_path)
    assert not result.ok and result.diagnostics.startswith("nvcc: error") and "nvcc_full" in result.phases


def test_the_light_build_is_used_when_it_compiles(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    ran = _fake_toolchain(monkeypatch, {})
    result = torch_build.build(dict(SPEC), "cuda", tmp_path)
    assert result.ok and result.light and sum(c[0].endswith("nvcc") for c in ran) == 1
    again = torch_build.build(dict(SPEC), "cuda", tmp_path)
    assert again.cached and again.library == result.library


def test_the_device_takes_candidates_whose_builds_are_done_first(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from regrapht.eval import EvalConfig
    from regrapht.eval.torch_judge import TorchJudge

    judge = TorchJudge(EvalConfig(cache_dir=str(tmp_path)), b"s", tmp_path)
    slow: Future = Future()
    done: Future = Future()
    done.set_result(None)
    futures = {"slow": [slow], "none": [], "done": [done]}
    monkeypatch.setattr(judge, "prebuild", lambda source, target, filename="": futures[source])
    order: list[str] = []

    def evaluate(task, source, target):
        order.append(source)
        if source == "done":  # the slow build finishes while another candidate holds the device
            threading.Timer(0.05, lambda: slow.set_result(None)).start()
            time.sleep(0.1)
        return source

    monkeypatch.setattr(judge, "evaluate", evaluate)
    results = judge.evaluate_many([(None, "slow", "cuda"), (None, "none", "cuda"), (None, "done", "cuda")])
    assert results == ["slow", "none", "done"]  # the given order
    assert order == ["none", "done", "slow"]  # the device never waited on the slow build while others were ready
    judge.close()
