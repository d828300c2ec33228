"""The regrapht-vs-KernelBench benchmark (benchmarks/torch_vs_kernelbench.py): its candidate set,
tasks, verdict comparison and report, and KernelBench's side as far as it runs without a GPU."""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks"
sys.path.insert(0, str(BENCH))

import tvk_common  # noqa: E402
from tvk_common import (  # noqa: E402
    CandidateSetError,
    HarnessRun,
    check_candidate_source,
    compare,
    load_candidates,
    markdown,
    spread,
)
from tvk_kernelbench import kb_verdict  # noqa: E402
from tvk_regrapht import RegraphtUnavailable, _load_task, eager_speedup, row_from_evaluation  # noqa: E402
from tvk_tasks import check_task  # noqa: E402

torch = pytest.importorskip("torch")


def test_candidate_set_spans_tasks_backends_and_verdicts():
    cands = load_candidates()
    assert len(cands) == 30
    assert 6 <= len({c.task for c in cands}) <= 8
    assert {c.backend for c in cands} == {"cuda", "triton"}
    by_class = {k: sum(c.klass == k for c in cands) for k in ("correct", "wrong", "compile", "runtime", "cheat")}
    assert all(by_class.values()), by_class
    # Every honest candidate is expected correct, every other one not.
    assert all((c.verdict == "correct") == (c.klass == "correct") for c in cands)
    # Both backends among the honest ones.
    assert {c.backend for c in cands if c.klass == "correct"} == {"cuda", "triton"}


def test_candidate_sources_define_modelnew_with_their_backend():
    problems = [p for c in load_candidates() for p in check_candidate_source(c)]
    assert problems == []


def test_candidate_source_check_names_what_is_missing(tmp_path, monkeypatch):
    cand = load_candidates()[0]
    fake = tmp_path / f"{cand.task}"
    fake.mkdir()
    (fake / (cand.key.split("/")[1] + ".py")).write_text("import torch\nclass Model:\n    x = 1\n")
    monkeypatch.setattr(tvk_common, "CANDIDATES_DIR", tmp_path)
    problems = check_candidate_source(cand)
    assert any("no top-level class ModelNew" in p for p in problems)
    assert any("load_inline" in p or "@triton.jit" in p for p in problems)


@pytest.mark.parametrize("task", sorted(p.name for p in (BENCH / "torch_tasks").iterdir()))
def test_task_folder_is_sound_and_its_reference_runs(task):
    folder = BENCH / "torch_tasks" / task
    assert check_task(folder) == []
    tomllib = pytest.importorskip("tomllib")
    meta = tomllib.loads((folder / "task.toml").read_text())
    spec = importlib.util.spec_from_file_location(f"tvk_ref_{task}", folder / "reference.py")
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    for sizes in meta["sizes"]["test"]:
        for name, value in sizes.items():
            setattr(ref, name, value)
        torch.manual_seed(0)
        model = ref.Model(*ref.get_init_inputs())
        out = model(*ref.get_inputs())
        assert torch.isfinite(out).all()


def test_task_check_names_each_problem(tmp_path):
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "reference.py").write_text(textwrap.dedent("""
        import numpy
        import torch
        n = 8
        class Model(torch.nn.Module):
            def forward(self, x):
                return x
        def get_inputs():
            return [torch.randn(n)]
    """))
    (folder / "task.toml").write_text(textwrap.dedent("""
        kind = "torch"
        title = "t"
        description = "d"
        category = "magic"
        difficulty = "easy"
        split = "train"
        level = 1
        dtype = "float32"
        [sizes]
        test = [{ n = 3 }, { m = 2 }]
        bench = { n = 16 }
        [tolerance]
        rtol = 1e-5
        atol = 1e-5
    """))
    problems = "\n".join(check_task(folder))
    assert "category = 'magic'" in problems
    assert "no top-level get_init_inputs" in problems
    assert "imports numpy" in problems
    assert "names ['m']" in problems
    assert "differ from reference.py's constants" in problems


def test_expected_toml_errors_name_the_field(tmp_path):
    bad = tmp_path / "expected.toml"
    bad.write_text('[candidates."relu/cuda_vec4"]\nbackend = "cuda"\nclass = "correct"\nverdict = "fine"\n'
                   'why = "w"\nkernelbench = "correct"\nkernelbench_why = "k"\n')
    with pytest.raises(CandidateSetError, match=r"verdict = 'fine'"):
        load_candidates(bad)
    bad.write_text('[candidates."relu/cuda_vec4"]\nbackend = "cuda"\n')
    with pytest.raises(CandidateSetError, match="missing class, verdict"):
        load_candidates(bad)
    bad.write_text('[candidates."relu/cuda_vec4"]\nbackend = "cuda"\nclass = "correct"\nverdict = "correct"\n'
                   'why = "w"\nkernelbench = "correct"\nkernelbench_why = "k"\n')
    with pytest.raises(CandidateSetError, match="no expected verdict: .*relu/triton"):
        load_candidates(bad)


def _rows(verdicts: dict[str, str], seconds: float) -> dict[str, dict]:
    return {k: {"verdict": v, "seconds": seconds, "message": f"{v} message"} for k, v in verdicts.items()}


def test_compare_lists_every_differing_verdict_and_the_ratio():
    cands = load_candidates()
    expected = {c.key: c.verdict for c in cands}
    kb = {c.key: c.kernelbench for c in cands}
    kb["relu/cuda_vec4"] = "harness_error"  # KernelBench's own failure: no verdict, not counted
    regrapht = HarnessRun("regrapht", _rows(expected, 2.0), gpu_seconds=60.0, devices=["H100"])
    kernelbench = HarnessRun("kernelbench", _rows(kb, 30.0), gpu_seconds=870.0, devices=["H100"])
    report = compare(cands, regrapht, kernelbench)
    differing = {d["candidate"]: d for d in report["differing"]}
    assert set(differing) == {c.key for c in cands if c.verdict != c.kernelbench} | {"relu/cuda_vec4"}
    assert differing["relu/cheat_inplace_alias"]["stricter"] == "kernelbench passes it"
    assert differing["conv2d_relu/cuda_direct"]["stricter"] == "regrapht passes it"
    assert differing["layernorm/cuda_float64_out"]["stricter"].startswith("same")
    assert "relu/cheat_inplace_alias" in report["passed_by_kernelbench_only"]
    assert report["regrapht_as_expected"] == 30
    assert report["throughput"]["regrapht"]["evaluations_per_gpu_minute"] == pytest.approx(30.0)
    assert report["throughput"]["kernelbench"]["evaluations"] == 29
    assert report["throughput"]["ratio"] == pytest.approx(30.0 / (60 * 29 / 870.0))
    text = markdown(report)
    assert "per GPU-minute: **15.0x**" in text
    assert "`relu/cheat_inplace_alias`: regrapht integrity_violation, KernelBench correct" in text
    assert "did not all use the same GPU" not in text


def test_compare_flags_a_run_split_over_two_gpus():
    cands = load_candidates()[:2]
    a = HarnessRun("regrapht", _rows({c.key: "correct" for c in cands}, 1.0), 2.0, ["H100 a"])
    b = HarnessRun("kernelbench", _rows({c.key: "correct" for c in cands}, 1.0), 2.0, ["H100 a", "H200 b"])
    report = compare(cands, a, b)
    assert report["throughput"]["same_device"] is False
    assert "did not all use the same GPU" in markdown(report)


def test_spread_is_max_over_min_minus_one():
    assert spread([1.0, 1.01, 1.005]) == pytest.approx(0.01)
    assert spread([2.0]) is None
    assert spread([1.0, float("nan"), 0.0, 1.02]) == pytest.approx(0.02)


def test_kernelbench_outcomes_map_to_verdicts():
    assert kb_verdict(False, False, {"compilation_error": "nvcc"})[0] == "compile_error"
    assert kb_verdict(True, False, {"runtime_error": "boom"}) == ("runtime_error", "boom")
    assert kb_verdict(True, False, {"correctness_issue": "Output mismatch"})[0] == "wrong_answer"
    assert kb_verdict(True, True, {"excessive_speedup": True}) == ("correct", "excessive speedup warning")


def test_regrapht_rows_find_the_eager_speedup():
    ev = {
        "status": "correct",
        "message": "",
        "speedups": {"compile_default": {"value": 0.8}, "eager_cuda_graph": {"value": 1.1}, "torch_eager": {"value": 1.3}},
        "timings": {"candidate": {"median_s": 2e-4}},
    }
    row = row_from_evaluation(ev)
    assert (row["eager_key"], row["speedup_vs_eager"]) == ("torch_eager", 1.3)
    assert row["candidate_median_ms"] == pytest.approx(0.2)
    assert eager_speedup({"eager_graph": {"value": 2.0}}) is None
    assert eager_speedup({"pytorch_eager_default": {"value": 2.0}}) == ("pytorch_eager_default", 2.0)


def test_regrapht_side_loads_a_torch_task_or_says_why_not():
    folder = BENCH / "torch_tasks" / "relu"
    try:
        task = _load_task(folder)
    except RegraphtUnavailable as exc:
        assert str(folder) in str(exc)
    else:
        assert getattr(task, "kind", None) == "torch" or "torch" in type(task).__name__.lower()


def _fake_kernelbench(root: Path) -> Path:
    """A stand-in checkout with KernelBench's layout and imports, so the import path and the static
    check can be exercised without KernelBench's code in this repository."""
    pkg = root / "src" / "kernelbench"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("from . import utils\n")
    (pkg / "utils.py").write_text("from dotenv import load_dotenv\nload_dotenv()\nfrom openai import OpenAI\nfrom litellm import completion\n"
                                  "def set_gpu_arch(archs):\n    return None\n")
    params = ", ".join(f"{p}=None" for p in (
        "original_model_src", "custom_model_src", "measure_performance", "timing_method", "verbose",
        "num_correct_trials", "num_perf_trials", "build_dir", "device", "backend", "precision"))
    (pkg / "eval.py").write_text(
        f"import os\nimport pydantic\ndef eval_kernel_against_ref({params}):\n    return None\n"
        "def build_compile_cache(custom_model_src, verbose=False, build_dir=None):\n"
        "    os.makedirs(build_dir, exist_ok=True)\n"
        "    open(os.path.join(build_dir, 'built'), 'w').close()\n"
        "    bad = 'const float v = x[i]\\n' in custom_model_src\n"
        "    return (not bad, '', 'nvcc failed' if bad else None)\n")
    (pkg / "timing.py").write_text("")
    (pkg / "kernel_static_checker.py").write_text(
        "def validate_kernel_static(code, backend='cuda', precision='fp32'):\n"
        "    bad = 'A @ B' in code\n"
        "    return (not bad, ['uses @'] if bad else [], [])\n")
    return root


def _run_check(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(BENCH / "tvk_kernelbench.py"), "check", "--kernelbench", str(path)],
                          capture_output=True, text=True, timeout=300)


def test_kernelbench_check_imports_with_stand_ins_and_runs_the_static_checker(tmp_path):
    pytest.importorskip("pydantic")
    proc = _run_check(_fake_kernelbench(tmp_path / "kb"))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert {"openai", "litellm"} <= set(out["stubbed_modules"])
    assert len(out["static_check"]) == 30
    assert out["static_check"]["matmul/cheat_torch_op"]["errors"] == ["uses @"]


def test_kernelbench_check_refuses_a_folder_that_is_no_checkout(tmp_path):
    proc = _run_check(tmp_path)
    assert proc.returncode == 2
    assert "not a KernelBench checkout" in proc.stderr


@pytest.mark.skipif(not (ROOT / ".kernelbench" / "src" / "kernelbench" / "eval.py").is_file(),
                    reason="no KernelBench checkout in .kernelbench/ (it is never committed)")
def test_real_kernelbench_checkout_imports_and_passes_every_candidate_statically():
    pytest.importorskip("pydantic")
    proc = _run_check(ROOT / ".kernelbench")
    assert proc.returncode == 0, proc.stderr
    static = json.loads(proc.stdout)["static_check"]
    assert all(v["valid"] for v in static.values()), {k: v for k, v in static.items() if not v["valid"]}


def test_comparison_refuses_to_run_without_a_gpu():
    from conftest import GPU_PRESENT

    if GPU_PRESENT:
        pytest.skip("a GPU is present")
    proc = subprocess.run([sys.executable, str(BENCH / "torch_vs_kernelbench.py"), "--only", "relu/triton"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 2
    assert "no GPU" in proc.stderr


def _args(tmp_path: Path, **over) -> argparse.Namespace:
    base = dict(kernelbench=_fake_kernelbench(tmp_path / "kb"), kb_timeout=60.0, kb_baselines="per-task", kb_build_cache=0,
                target="cuda", deadline_s=1e6, out=tmp_path / "out", harness="both", order=["regrapht", "kernelbench"],
                batch=6, repeats=1, repeat_keys=[], kb_build_overlap=False)
    base.update(over)
    return argparse.Namespace(**base)


def test_kernelbench_loop_measures_baselines_once_per_task_and_computes_speedups(tmp_path, monkeypatch):
    pytest.importorskip("pydantic")
    import torch_vs_kernelbench as tvk
    from tvk_kernelbench import KernelBenchHarness

    calls = []

    def fake_eval(self, key, reference, candidate, backend):
        calls.append(key)
        return {"verdict": "correct", "message": "", "runtime_ms": 0.5, "seconds": 10.0}

    def fake_base(self, task, reference):
        calls.append(f"baselines {task}")
        return {"baselines": {"eager": 1.0, "compile": 0.25}, "seconds": 5.0}

    monkeypatch.setattr(KernelBenchHarness, "evaluate", fake_eval)
    monkeypatch.setattr(KernelBenchHarness, "task_baselines", fake_base)
    cands = [c for c in load_candidates() if c.task in ("relu", "softmax")]
    args = _args(tmp_path)
    state = tvk.new_state(args)
    tvk.run_kernelbench(state, cands, tvk.Clock(1e6), args, "GPU-0", tmp_path)
    part = state["kernelbench"]
    assert calls.count("baselines relu") == 1 and calls.count("baselines softmax") == 1
    assert set(part["rows"]) == {c.key for c in cands}
    assert part["rows"]["relu/triton"]["speedup_vs_eager"] == pytest.approx(2.0)
    assert part["rows"]["relu/triton"]["speedup_vs_compile"] == pytest.approx(0.5)
    assert part["gpu_seconds"] == pytest.approx(10.0 * len(cands) + 5.0 * 2)
    assert len(part["static_check"]) == 30
    # A resumed run skips what is done.
    calls.clear()
    tvk.run_kernelbench(state, cands, tvk.Clock(1e6), args, "GPU-0", tmp_path)
    assert calls == []


def test_kernelbench_loop_stops_after_two_harness_errors_and_keeps_them_pending(tmp_path, monkeypatch):
    pytest.importorskip("pydantic")
    import torch_vs_kernelbench as tvk
    from tvk_kernelbench import KernelBenchHarness

    monkeypatch.setattr(KernelBenchHarness, "evaluate", lambda *a: {"verdict": "harness_error", "message": "no GPU", "seconds": 1.0})
    monkeypatch.setattr(KernelBenchHarness, "task_baselines", lambda *a: {"baselines": {}, "seconds": 1.0})
    cands = load_candidates()
    args = _args(tmp_path)
    state = tvk.new_state(args)
    tvk.run_kernelbench(state, cands, tvk.Clock(1e6), args, "GPU-0", tmp_path)
    part = state["kernelbench"]
    assert part["rows"] == {}
    assert "twice in a row" in part["error"] and "no GPU" in part["error"]
    assert tvk.compare_run(state, cands)["pending"]["kernelbench"] == [c.key for c in cands]


def test_kernelbench_loop_respects_the_deadline(tmp_path, monkeypatch):
    pytest.importorskip("pydantic")
    import torch_vs_kernelbench as tvk
    from tvk_kernelbench import KernelBenchHarness

    monkeypatch.setattr(KernelBenchHarness, "evaluate", lambda *a: {"verdict": "correct", "seconds": 1.0})
    monkeypatch.setattr(KernelBenchHarness, "task_baselines", lambda *a: {"baselines": {}, "seconds": 1.0})
    args = _args(tmp_path)
    state = tvk.new_state(args)
    tvk.run_kernelbench(state, load_candidates(), tvk.Clock(60.0), args, "GPU-0", tmp_path)
    assert state["kernelbench"]["rows"] == {}  # 45 s a candidate (first guess), twice with baselines: over 60 s
    assert "deadline" in state["kernelbench"]["error"]


def test_kernelbench_loop_reports_an_unusable_checkout(tmp_path):
    import torch_vs_kernelbench as tvk

    args = _args(tmp_path, kernelbench=tmp_path / "nothing")
    state = tvk.new_state(args)
    tvk.run_kernelbench(state, load_candidates(), tvk.Clock(1e6), args, "GPU-0", tmp_path)
    assert "not a KernelBench checkout" in state["kernelbench"]["error"]


def _fake_regrapht(batches: list, prebuilt: list, fail: dict[str, Exception]):
    class FakeHarness:
        def __init__(self, target, cache_dir=None, baselines=("eager",)):
            self.notes = []

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return None

        def prebuild(self, paths):
            prebuilt.extend(paths)
            return len(paths)

        def evaluate_batch(self, items):
            batches.append([k for k, _, _ in items])
            for key, _, _ in items:
                if key in fail:
                    raise fail[key]
            rows = {k: {"verdict": "correct", "seconds": 1.0, "speedup_vs_eager": 2.0 + 0.01 * len(batches)} for k, _, _ in items}
            return rows, 2.0 * len(items), 1.0 * len(items)

    return FakeHarness


def test_regrapht_loop_prebuilds_everything_then_batches_and_records_why_it_stopped(tmp_path, monkeypatch):
    import torch_vs_kernelbench as tvk

    batches, prebuilt = [], []
    cands = load_candidates()
    fail = {cands[7].key: ValueError("reference broke"), cands[13].key: RegraphtUnavailable("torch kind missing")}
    monkeypatch.setattr(tvk, "RegraphtHarness", _fake_regrapht(batches, prebuilt, fail))
    args = _args(tmp_path)
    state = tvk.new_state(args)
    tvk.run_regrapht(state, cands, tvk.Clock(1e6), args, "GPU-0")
    assert prebuilt == [c.path for c in cands]  # every build started before the first device turn
    assert batches == [[c.key for c in cands[i : i + 6]] for i in (0, 6, 12)]
    part = state["regrapht"]
    assert part["error"] == "torch kind missing"
    assert any("reference broke" in v for v in part["task_errors"].values())  # one batch's failure does not stop the others
    assert set(part["rows"]) == {c.key for c in cands[:6]}
    # GPU seconds are the device turns; the rest of the harness's wall is CPU-only
    assert part["gpu_seconds"] == pytest.approx(6.0) and part["devices"] == ["GPU-0"]
    assert part["offload_seconds"] >= 0.0


def test_repeats_give_each_correct_key_its_spread(tmp_path, monkeypatch):
    import torch_vs_kernelbench as tvk

    batches, prebuilt = [], []
    monkeypatch.setattr(tvk, "RegraphtHarness", _fake_regrapht(batches, prebuilt, {}))
    cands = [c for c in load_candidates() if c.task == "relu"]
    args = _args(tmp_path, repeats=3, repeat_keys=["relu/cuda_vec4", "not/a-candidate"])
    state = tvk.new_state(args)
    tvk.run_regrapht(state, cands, tvk.Clock(1e6), args, "GPU-0")
    reps = state["regrapht"]["repeats"]
    assert list(reps) == ["relu/cuda_vec4"] and len(reps["relu/cuda_vec4"]) == 3
    assert batches[-2:] == [["relu/cuda_vec4"], ["relu/cuda_vec4"]]
    assert state["regrapht"]["gpu_seconds"] == pytest.approx(len(cands))  # the repeats are not throughput
    state["report"] = tvk.compare_run(state, cands)
    state["report"]["repeatability"] = {"regrapht": {"relu/cuda_vec4": {"speedups_vs_eager": reps["relu/cuda_vec4"],
                                                                         "spread": spread(reps["relu/cuda_vec4"])}}}
    text = tvk.side_by_side(state["report"])
    assert "per GPU-minute" in text and "spread over repeats" in text


def test_kernelbench_prebuild_runs_its_build_per_candidate_and_drops_failed_builds(tmp_path):
    pytest.importorskip("pydantic")
    from tvk_kernelbench import KernelBenchHarness

    cands = {c.key: c for c in load_candidates()}
    keys = ["relu/cuda_vec4", "relu/cuda_syntax_error", "softmax/cuda_block"]
    harness = KernelBenchHarness(_fake_kernelbench(tmp_path / "kb"), tmp_path / "work", timeout_s=120)
    results, wall = harness.precompile([(k, cands[k].path) for k in keys], workers=2, arch="Hopper")
    assert {k: r["built"] for k, r in results.items()} == {
        "relu/cuda_vec4": True, "relu/cuda_syntax_error": False, "softmax/cuda_block": True,
    }
    assert results["relu/cuda_syntax_error"]["error"] == "nvcc failed"
    assert (tmp_path / "work" / "build" / "relu__cuda_vec4" / "built").is_file()
    assert not (tmp_path / "work" / "build" / "relu__cuda_syntax_error").exists()
    assert wall > 0


def test_a_cpu_prebuild_counts_in_the_wall_figure_only():
    cands = load_candidates()[:2]
    rows = _rows({c.key: "correct" for c in cands}, 1.0)
    regrapht = HarnessRun("regrapht", rows, gpu_seconds=6.0)
    kernelbench = HarnessRun("kernelbench", rows, gpu_seconds=12.0, offload_seconds=48.0)
    t = compare(cands, regrapht, kernelbench)["throughput"]
    assert t["ratio"] == pytest.approx(2.0)
    assert t["wall_ratio"] == pytest.approx(10.0)
    assert "per wall-minute (CPU pre-build included): 10.0x" in markdown(compare(cands, regrapht, kernelbench))


# ---- the one-call comparison (benchmarks/tvk_compare.py, tvk_phases.py) ----------------------------


def test_stratified_order_mixes_every_prefix_and_is_fixed_by_expected_toml():
    from tvk_phases import stratified_order

    cands = load_candidates()
    order = stratified_order(cands)
    assert sorted(c.key for c in order) == sorted(c.key for c in cands)
    assert [c.key for c in stratified_order(cands)] == [c.key for c in order]  # the same file, the same order
    first = order[:10]
    assert {c.backend for c in first} == {"cuda", "triton"}
    assert {"correct", "cheat", "wrong", "compile", "runtime"} <= {c.klass for c in first}


def test_union_counts_overlapping_processes_once():
    from tvk_phases import union_seconds

    assert union_seconds([]) == 0.0
    assert union_seconds([(0.0, 4.0), (1.0, 3.0), (2.0, 6.0), (10.0, 11.0)]) == pytest.approx(7.0)
    assert union_seconds([(5.0, 6.0), (0.0, 1.0)]) == pytest.approx(2.0)


def _sleeper(seconds: float):
    def start():
        proc = subprocess.Popen([sys.executable, "-c", f"import time; time.sleep({seconds})"], start_new_session=True)
        return proc, lambda p: {"verdict": "correct", "rc": p.returncode}
    return start


def test_pool_runs_a_few_at_once_waits_for_ready_jobs_and_kills_at_the_deadline():
    import time

    from tvk_phases import Job, run_pool

    gate = {"open": False}
    seen = []

    def on_row(key, row):
        seen.append(key)
        gate["open"] = True  # the gated job becomes ready once a first job has ended

    jobs = [Job("gated", _sleeper(0.1), ready=lambda: gate["open"])] + [Job(f"j{i}", _sleeper(0.3)) for i in range(4)]
    jobs.append(Job("long", _sleeper(30)))
    jobs.append(Job("late", _sleeper(0.1)))
    began = time.monotonic()
    run = run_pool(jobs, slots=2, deadline=began + 2.5, per_job_timeout_s=60, on_row=on_row)
    assert time.monotonic() - began < 5
    assert "long" in run.killed and "long" not in run.rows
    assert {"j0", "j1", "j2", "j3", "gated"} <= set(run.rows)
    assert seen.index("gated") > 0
    # never more than two at once: the covered time is at least the work divided by the slots
    from tvk_phases import union_seconds

    assert union_seconds(run.intervals) >= (0.3 * 4 + 0.1) / 2


def test_pool_gives_a_job_past_its_own_timeout_a_timeout_row():
    import time

    from tvk_phases import Job, run_pool

    run = run_pool([Job("hang", _sleeper(30))], slots=1, deadline=time.monotonic() + 20, per_job_timeout_s=0.5)
    assert run.rows["hang"]["verdict"] == "timeout" and run.killed == []


def test_kernelbench_phase_runs_its_processes_in_slots_and_counts_overlap_once(tmp_path):
    pytest.importorskip("pydantic")
    import threading
    import time

    import tvk_compare
    from tvk_kernelbench import KernelBenchHarness

    cands = [c for c in load_candidates() if c.task == "relu"]
    args = argparse.Namespace(kb_slots=3, kb_timeout=120.0, budget_s=200.0, kb_build_workers=2, kb_nice=5)
    state = {"order": [c.key for c in cands], "regrapht": {"rows": {}}, "kernelbench": {"rows": {}, "prebuild": {}}}
    rec = tvk_compare.Recorder(tmp_path / "out", state)
    harness = KernelBenchHarness(_fake_kernelbench(tmp_path / "kb"), tmp_path / "work", 120.0, "none")
    built = {c.key: threading.Event() for c in cands if c.backend == "cuda"}
    t0 = time.monotonic()
    tvk_compare.kb_prebuild(harness, cands, "Hopper", args, t0 + 200, built, state)
    assert all(e.is_set() for e in built.values())
    assert state["kernelbench"]["prebuild"]["relu/cuda_syntax_error"]["built"] is False
    tvk_compare.kernelbench_phase(harness, cands, args, t0, built, rec)
    part = state["kernelbench"]
    # No GPU here: every child ends with KernelBench's own failure, but each ran and was recorded.
    assert set(part["rows"]) == {c.key for c in cands}
    assert 0 < part["gpu_seconds"] <= part["process_seconds"]
    assert json.loads((tmp_path / "out" / tvk_compare.RESULT).read_text())["kernelbench"]["rows"].keys() == part["rows"].keys()


def test_kernelbench_readme_mode_runs_one_process_at_a_time_without_the_prebuild(tmp_path):
    pytest.importorskip("pydantic")
    import time

    import tvk_compare
    from tvk_kernelbench import KernelBenchHarness

    cands = [c for c in load_candidates() if c.task == "relu"]
    args = argparse.Namespace(kb_slots=3, kb_timeout=120.0, budget_s=200.0)
    state = {"order": [c.key for c in cands], "regrapht": {"rows": {}},
             "kernelbench": {"rows": {}}, "kernelbench_readme": {"rows": {}}}  # fmt: skip
    rec = tvk_compare.Recorder(tmp_path / "out", state)
    readme = KernelBenchHarness(_fake_kernelbench(tmp_path / "kb"), tmp_path / "readme", 120.0, "per-candidate")
    tvk_compare.kernelbench_phase(readme, cands, args, time.monotonic(), {}, rec, "kernelbench_readme", slots=1)
    part = state["kernelbench_readme"]
    assert set(part["rows"]) == {c.key for c in cands} and state["kernelbench"]["rows"] == {}
    # one at a time: nothing overlapped, so its GPU seconds are its processes' seconds
    assert part["gpu_seconds"] == pytest.approx(part["process_seconds"])
    argv = readme.eval_argv(cands[0].key, cands[0].task_dir / "reference.py", cands[0].path, cands[0].backend)
    assert "--baselines" in argv  # the reference timed in each process, as run_and_check.py does
    # its build folders are its own (nothing pre-built them): each process compiles cold
    assert Path(argv[argv.index("--build-dir") + 1]).is_relative_to(tmp_path / "readme")


def test_readme_throughput_rates_both_and_lists_verdicts_unlike_the_prebuild_mode():
    import tvk_compare

    state = {"regrapht": {"rows": {"a": {"verdict": "correct"}, "b": {"verdict": "wrong_answer"}}, "gpu_seconds": 6.0},
             "kernelbench": {"rows": {"a": {"verdict": "correct"}, "b": {"verdict": "wrong_answer"}}},
             "kernelbench_readme": {"rows": {"a": {"verdict": "correct"}, "b": {"verdict": "runtime_error"},
                                             "c": {"verdict": "harness_error"}}, "gpu_seconds": 60.0}}  # fmt: skip
    r = tvk_compare.readme_throughput(state)
    assert r["evaluations"] == 2 and r["evaluations_per_gpu_minute"] == pytest.approx(2.0)
    assert r["ratio"] == pytest.approx(20.0 / 2.0)
    assert r["verdicts_unlike_prebuild_mode"] == {"b": ["runtime_error", "wrong_answer"]}


class _FakeEv:
    def __init__(self, verdict):
        self.verdict = verdict

    def to_dict(self):
        return {"status": self.verdict, "message": "", "speedups": {"eager": {"value": 1.5}}, "timings": {}}


def test_regrapht_phase_turns_ready_candidates_first_and_counts_its_turns_and_span(tmp_path, monkeypatch):
    import concurrent.futures
    import time

    import tvk_compare

    cands = [c for c in load_candidates() if c.task in ("relu", "softmax")]
    slow = concurrent.futures.Future()  # the first candidate's build is still running
    order = []

    class Judge:
        def prebuild(self, source, target, name):
            return [slow] if name == cands[0].path.name and source == cands[0].path.read_text() else []

        def evaluate(self, task, source, target, name):
            order.append(name)
            if len(order) == 2:
                slow.set_result(None)
            time.sleep(0.05)
            return _FakeEv("correct")

    jobs_given = []

    class Harness:
        def __init__(self, target, baselines, jobs=None):
            jobs_given.append(jobs)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return None

        def _api_evaluator(self):
            return type("E", (), {"torch_judge": lambda self: Judge()})()

    monkeypatch.setattr(tvk_compare, "RegraphtHarness", Harness)
    monkeypatch.setattr(tvk_compare, "_load_task", lambda d: d)
    args = argparse.Namespace(target="cuda", regrapht_baselines="eager", regrapht_deadline_s=100.0)
    state = {"order": [c.key for c in cands], "regrapht": {"rows": {}, "notes": [], "error": ""}, "kernelbench": {"rows": {}}}
    rec = tvk_compare.Recorder(tmp_path, state)
    t0 = time.monotonic()
    tvk_compare.regrapht_phase(cands, args, t0, rec)
    part = state["regrapht"]
    assert set(part["rows"]) == {c.key for c in cands}
    assert order[0] != cands[0].path.name  # it did not wait for the unfinished build
    # GPU seconds: what its turns held the GPU; the span (waits for builds included) beside it
    assert part["span_seconds"] >= part["turn_seconds"] == part["gpu_seconds"] > 0
    assert part["rows"][cands[1].key]["speedup_vs_eager"] == 1.5
    # With no time left, nothing starts and the note says so.
    state["regrapht"] = {"rows": {}, "notes": [], "error": ""}
    args.regrapht_deadline_s = 1.0
    tvk_compare.regrapht_phase(cands, args, time.monotonic(), rec)
    assert state["regrapht"]["rows"] == {} and "not started" in state["regrapht"]["notes"][0]
    # given cores of their own, the builds run as many at once as two compilers each fit there
    args.build_cpus = {min(os.sched_getaffinity(0))}
    tvk_compare.regrapht_phase(cands, args, time.monotonic(), rec)
    assert jobs_given == [None, None, 1]


def test_one_call_report_compares_what_both_judged_and_prints_every_difference(capsys):
    import tvk_compare
    from tvk_phases import stratified_order

    cands = stratified_order(load_candidates())[:4]
    rows_r = {c.key: {"verdict": c.verdict, "message": f"regrapht on {c.key}", "seconds": 5.0} for c in cands}
    rows_k = {c.key: {"verdict": c.kernelbench, "message": "", "seconds": 7.0} for c in cands[:3]}
    rows_k[cands[0].key] = {"verdict": "harness_error", "message": "lock file", "seconds": 1.0}
    state = {"device": "GPU", "wall_s": 100.0, "order": [c.key for c in cands],
             "regrapht": {"rows": rows_r, "gpu_seconds": 30.0, "error": ""},
             "kernelbench": {"rows": rows_k, "gpu_seconds": 10.0, "error": "", "prebuild_seconds": 50.0}}  # fmt: skip
    state["report"] = tvk_compare.report(state, cands)
    r = state["report"]
    assert r["judged_by_both_keys"] == [c.key for c in cands[1:3]]
    assert cands[0].key in r["not_judged_by_both"] and cands[3].key in r["not_judged_by_both"]
    t = r["throughput"]
    assert t["regrapht"]["evaluations"] == 4 and t["kernelbench"]["evaluations"] == 2  # a harness error is no verdict
    assert t["ratio"] == pytest.approx((4 / 30) / (2 / 10))
    tvk_compare.print_summary(state)
    out = capsys.readouterr().out
    # relu/cheat_inplace_alias: regrapht integrity_violation, KernelBench correct (as predicted)
    assert f"differs {cands[1].key}: regrapht integrity_violation, KernelBench correct" in out
    assert "judged by both: 2 of 4" in out
    assert "| candidate |" in markdown(r) and "as its README" not in markdown(r)
    r["kernelbench_readme"] = {"evaluations": 2, "gpu_seconds": 60.0, "evaluations_per_gpu_minute": 2.0, "ratio": 4.0}
    assert "| KernelBench as its README (one process, cold compile) | 2 | 60.0 |" in markdown(r)
    assert "as its README runs it: **4.0x**" in markdown(r)


def test_pool_kills_what_it_started_when_a_start_raises():
    import time

    from tvk_phases import Job, run_pool

    started = []
    sleep = _sleeper(30)

    def start_and_keep():
        proc, finish = sleep()
        started.append(proc)
        return proc, finish

    def broken_start():
        raise OSError("no such interpreter")

    jobs = [Job("running", start_and_keep), Job("broken", broken_start)]
    with pytest.raises(OSError, match="no such interpreter"):
        run_pool(jobs, slots=2, deadline=time.monotonic() + 20, per_job_timeout_s=60)
    # the job started before the failure was killed with the pool, not left running
    [proc] = started
    assert proc.poll() is not None


def test_core_lists_parse_as_taskset_writes_them_and_refuse_what_is_not_one():
    from tvk_phases import parse_cpus

    assert parse_cpus("0-3,8, 10-11") == {0, 1, 2, 3, 8, 10, 11}
    assert parse_cpus("") is None and parse_cpus(None) is None
    for bad, why in (("0-", "is not N or N-M"), ("a", "is not N or N-M"), ("5-2", "runs backwards")):
        with pytest.raises(ValueError, match=why):
            parse_cpus(bad)


def test_regrapht_gpu_seconds_are_its_workers_lifetimes_with_turns_and_span_beside():
    import tvk_compare
    from tvk_regrapht import watch_workers

    class Judge:
        def _run(self, job, folder, on_message, spare=None):
            return job["mode"]

    judge = Judge()
    held = watch_workers(judge)
    assert judge._run({"mode": "reference", "target": "cpu"}, None, None) == "reference"
    judge._run({"mode": "candidate", "target": "cuda"}, None, None, None)
    assert [m for m, _, _ in held] == ["reference on the host", "candidate"] and all(e >= s for _, s, e in held)
    assert watch_workers(object()) == []  # a stand-in without workers: nothing to watch
    part = {}
    turns = [(10.0, 14.0), (20.0, 22.0)]  # 6 s of turns over a 12 s span (a wait for a build between)
    held = [("reference", 10.2, 12.2), ("candidate", 12.3, 13.8), ("reference on the host", 20.0, 20.5), ("candidate", 20.6, 21.9)]
    tvk_compare.account_regrapht(part, turns, held, t0=5.0)
    # the host's reference holds no GPU: outside the GPU seconds, reported apart
    assert part["gpu_seconds"] == pytest.approx(4.8) and part["reference_worker_seconds"] == pytest.approx(2.0)
    assert part["host_reference_seconds"] == pytest.approx(0.5)
    assert part["turn_seconds"] == pytest.approx(6.0) and part["span_seconds"] == pytest.approx(12.0)
    assert part["workers"] == {"reference": 1, "reference on the host": 1, "candidate": 2} and "hand-off" in part["gpu_counts"]
    part = {}
    tvk_compare.account_regrapht(part, turns, [], t0=5.0)  # no worker times: the turns, said so
    assert part["gpu_seconds"] == 6.0 and part["gpu_counts"] == tvk_compare.COUNTS["regrapht_turns"]


def test_kernelbench_children_run_on_their_own_gpu_and_cores(tmp_path, monkeypatch):
    import subprocess as sp

    import tvk_kernelbench
    from tvk_kernelbench import KernelBenchHarness

    cpu = min(os.sched_getaffinity(0))
    harness = KernelBenchHarness(tmp_path / "kb", tmp_path / "work", gpu="3", cpus={cpu})
    assert harness._env()["CUDA_VISIBLE_DEVICES"] == "3"
    assert "CUDA_VISIBLE_DEVICES" not in KernelBenchHarness(tmp_path / "kb", tmp_path / "w2")._env() or \
        KernelBenchHarness(tmp_path / "kb", tmp_path / "w2")._env()["CUDA_VISIBLE_DEVICES"] == os.environ.get("CUDA_VISIBLE_DEVICES")
    seen = {}
    real = sp.Popen

    def popen(cmd, **kw):  # the child's set-up, run in a child that reports its cores
        seen.update(kw)
        return real([sys.executable, "-c", "import os; print(sorted(os.sched_getaffinity(0)))"],
                    stdout=sp.PIPE, preexec_fn=kw["preexec_fn"], text=True)

    monkeypatch.setattr(tvk_kernelbench.subprocess, "Popen", popen)
    proc, _, _ = harness.start(["check"], "probe")
    assert proc.communicate()[0].strip() == f"[{cpu}]"
    assert seen["env"]["CUDA_VISIBLE_DEVICES"] == "3"


def test_one_call_on_three_gpus_gives_each_kernelbench_mode_its_gpu_cores_and_whole_budget(tmp_path, monkeypatch, capsys):
    """A dry run of the three-GPU layout on the CPU: regrapht's part stood in for, KernelBench's
    children real (the stand-in checkout), each writing which GPU and cores it was given."""
    pytest.importorskip("pydantic")
    import time

    import tvk_compare

    kb = _fake_kernelbench(tmp_path / "kb")
    seen = tmp_path / "seen.txt"
    utils = kb / "src" / "kernelbench" / "utils.py"
    utils.write_text(utils.read_text() + textwrap.dedent(f"""
        import os as _os, sys as _sys
        with open({str(seen)!r}, "a") as _f:
            _f.write(f"{{_os.environ.get('CUDA_VISIBLE_DEVICES')}} {{sorted(_os.sched_getaffinity(0))}} {{_sys.argv[1]}}\\n")
        """))
    cpu = str(min(os.sched_getaffinity(0)))

    def regrapht_part(cands, args, t0, rec):
        for c in cands:
            rec.row("regrapht", c.key, {"verdict": c.verdict, "seconds": 1.0}, time.monotonic() - t0)
        tvk_compare.account_regrapht(rec.state["regrapht"], [(t0, t0 + 2.0)], [("candidate", t0, t0 + 1.5), ("reference on the host", t0, t0 + 0.2)], t0)

    monkeypatch.setattr(tvk_compare, "gpu_name", lambda: "FakeGPU")
    monkeypatch.setattr(tvk_compare, "compute_capability", lambda: (9, 0))
    monkeypatch.setattr(tvk_compare, "regrapht_phase", regrapht_part)
    monkeypatch.setattr(sys, "argv", ["tvk_compare.py", "--kernelbench", str(kb), "--out", str(tmp_path / "out"),
                                      "--subset", "2", "--budget-s", "90", "--kb-readme-gpu", "1", "--kb-prebuild-gpu", "2",
                                      "--kb-readme-cpus", cpu, "--kb-cpus", cpu])  # fmt: skip
    assert tvk_compare.main() == 0
    state = json.loads((tmp_path / "out" / tvk_compare.RESULT).read_text())
    keys = set(state["order"])
    # each mode judged both candidates (no GPU here: KernelBench's own failure, recorded as its row)
    assert set(state["kernelbench_readme"]["rows"]) == keys and set(state["kernelbench"]["rows"]) == keys
    lines = [line for line in seen.read_text().split("\n") if line and not line.endswith(" check")]
    # README mode's processes on GPU 1, the pre-build mode's builds and evaluations on GPU 2, each on its cores
    assert {(line.split()[0], line.split()[-1]) for line in lines} == {("1", "eval"), ("2", "eval"), ("2", "build")}
    assert all(f"[{cpu}]" in line for line in lines)
    assert state["layout"]["kernelbench_readme"]["gpu"] == "1" and state["regrapht"]["gpu_seconds"] == 1.5
    out = capsys.readouterr().out
    assert "GPU s = its reference and candidate workers' lifetimes" in out


def test_build_cores_put_the_threads_started_within_on_their_cores_and_restore_the_callers():
    import threading

    import tvk_compare

    before = os.sched_getaffinity(0)
    cpu = min(before)
    seen = []
    with tvk_compare.build_cores({cpu}):
        thread = threading.Thread(target=lambda: seen.append(os.sched_getaffinity(0)))
        thread.start()
        thread.join()
    assert seen == [{cpu}] and os.sched_getaffinity(0) == before
    with tvk_compare.build_cores(None):
        assert os.sched_getaffinity(0) == before
