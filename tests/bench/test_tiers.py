"""Measured tiers (bench/tiers.py, rule in data/tiers.toml): steps the recognizer finds in
solution.cu beyond naive.cu, capped by the headroom a GPU check measured; `tasks check` fails a task
whose declared difficulty disagrees."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from regrapht.bench.tiers import (
    TierRuleError,
    audit_task,
    audit_tier,
    declared_steps,
    judge_tier,
    load_tier_rule,
    tier_problem,
    tier_rule,
)
from regrapht.cli import app
from regrapht.eval.suitecheck import TaskCheck
from regrapht.tasks import load_task

SOLUTION = "// steps: parallelize, shared_memory_tiling, loop_unrolling, kernel_fusion, bank_conflict_avoidance\n"
NAIVE = "naive"
VISIBLE = {"parallelize", "shared_memory_tiling", "loop_unrolling", "bank_conflict_avoidance", "atomic_operations"}


def _seen(mapping: dict[str, set[str]]):
    """A stand-in recognizer: the methods each source is said to use."""
    return lambda source: SimpleNamespace(methods={m: [] for m in mapping.get(source, set())})


def _audit(declared: str, solution_methods: set[str], **measured):
    recognizer = _seen({SOLUTION: solution_methods, NAIVE: {"parallelize"}})
    return audit_tier(declared, SOLUTION, NAIVE, recognizer=recognizer, visible=VISIBLE, **measured)


def test_declared_steps_read_the_first_line_once_each() -> None:
    assert declared_steps("// steps: a, b, a ,c\nint x;") == ["a", "b", "c"]
    assert declared_steps("int x; // steps: a") == []


def test_steps_in_naive_and_unseen_steps_do_not_count_and_silent_ones_count_on_trust() -> None:
    audit = _audit("medium", {"parallelize", "shared_memory_tiling", "loop_unrolling"})
    assert audit.baseline == ["parallelize"]
    assert audit.unverifiable == ["kernel_fusion"]  # no static signal: counted on trust
    assert audit.unseen == ["bank_conflict_avoidance"]  # the recognizer sees padding, and found none
    assert audit.counted == ["shared_memory_tiling", "loop_unrolling", "kernel_fusion"]
    assert audit.tier == "medium" and audit.agrees
    assert "declared but not found in the code: bank_conflict_avoidance" in audit.describe()


def test_any_step_naive_already_takes_is_baseline_not_only_parallelize() -> None:
    solution = "// steps: atomic_operations, loop_unrolling\n"
    recognizer = _seen({solution: {"atomic_operations", "loop_unrolling"}, NAIVE: {"parallelize", "atomic_operations"}})
    audit = audit_tier("easy", solution, NAIVE, recognizer=recognizer, visible=VISIBLE)
    assert audit.baseline == ["atomic_operations"] and audit.counted == ["loop_unrolling"]


def test_a_hard_declaration_the_code_does_not_support_measures_lower_with_a_specific_reason() -> None:
    audit = _audit("hard", {"shared_memory_tiling", "loop_unrolling"})
    assert audit.tier == "medium" and not audit.agrees
    assert audit.describe().startswith(
        "declared hard, measured medium: solution.cu adds 3 steps over naive.cu "
        "(shared_memory_tiling, loop_unrolling, kernel_fusion on trust); already in naive.cu: parallelize"
    )


def test_a_step_that_names_no_method_is_not_taken_on_trust_and_fails_the_check() -> None:
    # a misspelt step has no static signal either; counted on trust, it would raise the tier
    solution = "// steps: parallelize, kernel_fusion, shared_memroy_tiling, loop_unroling\n"
    audit = audit_tier("medium", solution, NAIVE, recognizer=_seen({NAIVE: {"parallelize"}}), visible=VISIBLE)
    assert audit.unknown == ["shared_memroy_tiling", "loop_unroling"] and audit.counted == ["kernel_fusion"]
    assert audit.tier == "easy"
    problem = tier_problem(audit)
    assert problem is not None and "name no method of the taxonomy" in problem and "shared_memroy_tiling" in problem
    # named right but still disagreeing: the ordinary tier problem, with no taxonomy complaint
    other = tier_problem(_audit("hard", {"shared_memory_tiling"}))
    assert other is not None and "taxonomy" not in other


def test_headroom_caps_the_step_tier() -> None:
    many = {"shared_memory_tiling", "loop_unrolling", "bank_conflict_avoidance"}
    rule = tier_rule()
    assert _audit("medium", many, headroom=3.0).tier == "medium"
    capped = _audit("medium", many, headroom=rule.headroom_medium - 0.01)
    assert capped.tier == "easy" and "medium needs best/naive >= 1.25x" in capped.describe()
    # a 1.3x best cannot make a hard task, whatever its steps
    six = "// steps: shared_memory_tiling, loop_unrolling, bank_conflict_avoidance, kernel_fusion, work_decomposition, algorithmic_change\n"
    recognizer = _seen({six: many})
    hard = audit_tier("hard", six, NAIVE, headroom=1.3, recognizer=recognizer, visible=VISIBLE)
    assert hard.step_tier == "hard" and hard.tier == "medium"
    assert "best/naive 1.30x" in hard.describe() and "hard needs best/naive >= 2x" in hard.describe()
    assert audit_tier("hard", six, NAIVE, headroom=2.5, recognizer=recognizer, visible=VISIBLE).tier == "hard"


def test_a_naive_at_the_roofline_floor_makes_the_task_easy() -> None:
    many = {"shared_memory_tiling", "loop_unrolling", "bank_conflict_avoidance"}
    audit = _audit("medium", many, headroom=1.4, naive_roofline=0.85)
    assert audit.tier == "easy" and "naive.cu at 85% of the roofline floor" in audit.describe()
    assert _audit("medium", many, headroom=1.4, naive_roofline=0.5).tier == "medium"


def test_the_rule_file_is_validated_field_by_field() -> None:
    good = "[steps]\neasy = 0\nmedium = 3\nhard = 6\n[headroom]\nmedium = 1.25\nhard = 2.0\nnaive_at_floor = 0.8\n"
    rule = load_tier_rule(good)
    assert [rule.step_tier(n) for n in (0, 2, 3, 5, 6, 9)] == ["easy", "easy", "medium", "medium", "hard", "hard"]
    for bad, message in (
        (good.replace("hard = 6", "hard = 2"), "[steps] must not decrease"),
        (good.replace("medium = 3", 'medium = "3"'), "[steps] medium: expected an integer"),
        (good.replace("hard = 2.0", "hard = 1.1"), "1 <= medium <= hard"),
        (good.replace("naive_at_floor = 0.8", "naive_at_floor = 80"), "naive_at_floor: a fraction"),
        (good.replace("easy = 0", "easy = 1"), "easy must be 0"),
        ("[steps\n", "not valid TOML"),
    ):
        with pytest.raises(TierRuleError, match=message.replace("[", r"\[")):
            load_tier_rule(bad)
    assert tier_rule().headroom_hard == 2.0  # the shipped file loads


def test_the_real_recognizer_finds_a_grid_stride_loop_and_unrolling() -> None:
    solution = (
        "// steps: parallelize, grid_stride_loop, loop_unrolling\n"
        "__global__ void k(int n, float* y) {\n"
        "  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {\n"
        "#pragma unroll\n"
        "    for (int j = 0; j < 4; ++j) y[i] += j;\n"
        "  }\n"
        "}\n"
    )
    naive = "__global__ void k(int n, float* y) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] += 1; }\n"
    audit = audit_tier("easy", solution, naive)
    assert audit.baseline == ["parallelize"]
    assert audit.counted == ["grid_stride_loop", "loop_unrolling"] and audit.tier == "easy"


def test_every_shipped_test_task_measures_its_declared_tier_and_each_tier_has_forty() -> None:
    # issue 23 splits the test tasks 40/40/40 by measured tier; on the CPU only the steps count (a GPU
    # check's headroom may still lower a tier)
    pytest.importorskip("tree_sitter_cuda")
    root = Path(__file__).resolve().parents[2] / "src" / "regrapht" / "data" / "tasks" / "test"
    measured = {"easy": 0, "medium": 0, "hard": 0}
    for folder in sorted(p for p in root.iterdir() if (p / "task.toml").is_file()):
        task = load_task(folder)
        audit = audit_task(task)
        assert audit is not None, task.id
        assert tier_problem(audit) is None, f"{task.id}: {audit.describe()}"
        measured[audit.tier] += 1
    assert min(measured.values()) >= 40, measured


TASK_TOML = """id = "{id}"
title = "Soft thresholding (a tier test)"
category = "elementwise"
difficulty = "{difficulty}"
split = "test"
function = "shrink"
signature = "void shrink(int count, float lambda, const float* signal, float* shrunk)"

[[args]]
name = "count"
role = "size"
dtype = "int32"

[[args]]
name = "lambda"
role = "scalar"
dtype = "float32"
generator = {{ kind = "uniform", low = 0.1, high = 0.5 }}

[[args]]
name = "signal"
role = "input"
dtype = "float32"
length = "count"
generator = {{ kind = "normal", mean = 0.0, std = 1.0 }}

[[args]]
name = "shrunk"
role = "output"
dtype = "float32"
length = "count"
tolerance = {{ rtol = 1e-6, atol = 1e-6 }}

[sizes]
test = [{{ count = 1 }}, {{ count = 1000 }}, {{ count = 4099 }}]
bench = {{ count = 67108864 }}  # bandwidth-bound on a GPU: a rewrite cannot gain by launch effects

[roofline]
bytes = "8*count"
flops = "3*count"
"""

SERIAL_CPP = """void shrink(int count, float lambda, const float* signal, float* shrunk) {
    for (int k = 0; k < count; ++k) {
        float v = signal[k];
        shrunk[k] = v > lambda ? v - lambda : (v < -lambda ? v + lambda : 0.0f);
    }
}
"""

NAIVE_CU = """__global__ void shrink_each(int count, float lambda, const float* signal, float* shrunk) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= count) return;
    float v = signal[k];
    shrunk[k] = v > lambda ? v - lambda : (v < -lambda ? v + lambda : 0.0f);
}

void shrink(int count, float lambda, const float* signal, float* shrunk) {
    if (count > 0) shrink_each<<<(count + 255) / 256, 256>>>(count, lambda, signal, shrunk);
}
"""

SOLUTION_BODY = """__global__ void shrink_strided(int count, float lambda, const float* signal, float* shrunk) {
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < count; k += gridDim.x * blockDim.x) {
#pragma unroll
        for (int u = 0; u < 1; ++u) {
            float v = signal[k];
            shrunk[k] = copysignf(fmaxf(fabsf(v) - lambda, 0.0f), v);
        }
    }
}

void shrink(int count, float lambda, const float* signal, float* shrunk) {
    if (count > 0) shrink_strided<<<264, 256>>>(count, lambda, signal, shrunk);
}
"""


def _test_task(tmp_path: Path, task_id: str, difficulty: str, steps: str) -> Path:
    """A test task the test writes (soft thresholding), with a naive port and a solution declaring `steps`."""
    folder = tmp_path / task_id
    folder.mkdir()
    (folder / "task.toml").write_text(TASK_TOML.format(id=task_id, difficulty=difficulty))
    (folder / "serial.cpp").write_text(SERIAL_CPP)
    (folder / "naive.cu").write_text(NAIVE_CU)
    (folder / "solution.cu").write_text(f"// steps: {steps}\n{SOLUTION_BODY}")
    return folder


def test_judge_tier_fails_a_check_and_uses_gpu_headroom(tmp_path: Path) -> None:
    task = load_task(_test_task(tmp_path, "fair_easy", "easy", "grid_stride_loop, loop_unrolling"))
    check = TaskCheck(task.id, task.split, task.difficulty, task.category)
    judge_tier(task, check)
    assert check.ok and check.measured["tier"]["tier"] == "easy"
    hard = load_task(_test_task(tmp_path, "claims_hard", "hard", "grid_stride_loop, loop_unrolling"))
    check = TaskCheck(hard.id, hard.split, hard.difficulty, hard.category, measured={"solution_speedup_over_naive": 1.3})
    judge_tier(hard, check)
    assert not check.ok and check.measured["tier"]["headroom"] == 1.3
    assert check.problems[0].startswith(
        "tier: declared hard, measured easy: solution.cu adds 2 steps over naive.cu "
        "(grid_stride_loop, loop_unrolling); best/naive 1.30x (docs/suite.md, Measured tiers"
    )
    judge_tier(hard, check)  # judged once: a kept row is not failed twice
    assert len(check.problems) == 1


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="tasks check builds naive.cu and solution.cu with nvcc")
def test_tasks_check_fails_a_tier_its_solution_does_not_support(tmp_path: Path) -> None:
    fair = _test_task(tmp_path, "shrink_fair", "easy", "grid_stride_loop, loop_unrolling")
    steps = "parallelize, grid_stride_loop, loop_unrolling, shared_memory_tiling, register_tiling, bank_conflict_avoidance"
    inflated = _test_task(tmp_path, "shrink_inflated", "hard", steps)
    out = tmp_path / "check.json"
    result = CliRunner().invoke(app, ["tasks", "check", "--no-gpu", str(fair), str(inflated), "--out", str(out)])
    assert result.exit_code == 1, result.output
    rows = {r["task_id"]: r for r in json.loads(out.read_text())}
    assert rows["shrink_fair"]["ok"], rows["shrink_fair"]["problems"]
    assert rows["shrink_fair"]["measured"]["tier"]["tier"] == "easy"
    [problem] = rows["shrink_inflated"]["problems"]
    assert problem.startswith(
        "tier: declared hard, measured easy: solution.cu adds 2 steps over naive.cu (grid_stride_loop, "
        "loop_unrolling); already in naive.cu: parallelize; declared but not found in the code: "
        "shared_memory_tiling, register_tiling, bank_conflict_avoidance"
    )
    assert "declared hard, measured easy" in result.output


def test_a_resumed_check_judges_kept_rows_written_before_the_rule(tmp_path: Path) -> None:
    import regrapht

    steps = "parallelize, grid_stride_loop, loop_unrolling, shared_memory_tiling, register_tiling, bank_conflict_avoidance"
    inflated = _test_task(tmp_path, "shrink_inflated", "hard", steps)
    task = load_task(inflated)
    out = tmp_path / "check.json"
    kept = TaskCheck(task.id, task.split, task.difficulty, task.category, task_hash=task.content_hash())
    kept.regrapht_version = regrapht.__version__  # a passing CPU row from before the tier rule: reused as is
    out.write_text(json.dumps([kept.to_dict()]))
    result = CliRunner().invoke(app, ["tasks", "check", "--no-gpu", "--resume", "--out", str(out), str(inflated)])
    assert result.exit_code == 1, result.output
    assert "0 to check" in result.output and "failed: shrink_inflated" in result.output
    [row] = json.loads(out.read_text())
    assert not row["ok"] and row["problems"][0].startswith("tier: declared hard, measured easy")


@pytest.mark.gpu
def test_on_a_gpu_measured_headroom_caps_the_tier(tmp_path: Path) -> None:
    # Three steps make medium by structure; an elementwise kernel's rewrite gains nothing measurable
    # over its direct port (both stream the same bytes), so the GPU check measures it easy.
    task = _test_task(tmp_path, "shrink_medium", "medium", "grid_stride_loop, loop_unrolling, kernel_fusion")
    out = tmp_path / "check.json"
    result = CliRunner().invoke(app, ["tasks", "check", "--gpu", "--budget", "0.3", str(task), "--out", str(out)])
    [row] = json.loads(out.read_text())
    tier = row["measured"]["tier"]
    assert tier["step_tier"] == "medium" and tier["headroom"] is not None, result.output
    assert tier["headroom"] < tier_rule().headroom_medium and tier["tier"] == "easy"
    assert any(p.startswith("tier: declared medium, measured easy") and "best/naive" in p for p in row["problems"])
