"""The environment on the cpu target with the real evaluator: prompts, hostile completions, batching,
variants reaching the evaluator, contrastive prompts and the audit."""

from __future__ import annotations

import asyncio

import pytest

from regrapht.rl import EnvConfig, ReplayBuffer, RewardConfig, RewardConfigError, RewardEnv
from tests.rl.conftest import HOSTILE, fenced


@pytest.fixture(scope="module")
def env(evaluator, vec_scale, row_sums):
    buffer = ReplayBuffer()
    yield RewardEnv([vec_scale, row_sums], evaluator, EnvConfig(target="cpu", seed=5, train_variants=3), buffer)
    buffer.close()


def _problem(env, task_id: str):
    return next(env.sampler.sample(i) for i in range(100) if env.sampler.sample(i).task.id == task_id)


def test_hostile_completions_each_get_the_right_reward(env) -> None:
    problem = _problem(env, "vec_scale")
    several = (
        "First a sketch:\n```python\nprint('not this')\n```\nA helper:\n```cpp\nstatic int unused;\n```\n"
        + fenced("correct.cpp")
    )
    completions = {
        "correct": fenced("correct.cpp"),
        "several_blocks": several,
        "wrong": fenced("wrong.cpp"),
        "no_code": "I would parallelise the loop with OpenMP.",
        "gigantic": fenced("correct.cpp") + "// pad\n" * 40_000,
        "mutates_input": fenced("mutates_input.cpp"),
        "exits": fenced("calls_exit.cpp"),
        "syntax": fenced("syntax_error.cpp"),
    }
    results = dict(zip(completions, env.score_many(list(completions.values()), problem)))
    status = {k: r.reward.evidence.status for k, r in results.items()}
    assert status == {
        "correct": "correct",
        "several_blocks": "correct",
        "wrong": "wrong_answer",
        "no_code": "parse_error",
        "gigantic": "parse_error",
        "mutates_input": "integrity_violation",
        "exits": "integrity_violation",
        "syntax": "compile_error",
    }
    good = results["correct"]
    speed = good.reward.evidence.speedup
    assert speed["ci_low"] <= speed["value"] <= speed["ci_high"]
    expected = speed["value"] if speed["value"] >= 1 else speed["value"] - 1  # ReGraphT Eq. 3
    assert good.reward.value == pytest.approx(expected) and good.evaluation.reward == pytest.approx(expected)
    assert results["several_blocks"].reward.evidence.parse["rule"] == "the only block that defines `vec_scale`"
    assert results["gigantic"].reward.evidence.parse == {"reason": "too_long", "chars": len(completions["gigantic"])}
    assert results["no_code"].evaluation is None and results["no_code"].reward.evidence.parse["reason"] == "no_code"
    for k in ("wrong", "no_code", "gigantic", "mutates_input", "exits", "syntax"):
        assert results[k].reward.value == -1.0, k
    # the variant's sizes, not the task's, reached the evaluator
    n = problem.variant.bench_size["n"]
    assert n != 1048576 and good.evaluation.roofline["floor_bytes"] == 8 * n
    assert good.evaluation.task_id == problem.id
    report = env.audit.report()
    assert report["integrity_violations"] == 2
    assert any(k.startswith("violation:modified an input") for k in report["by_kind"])
    assert report["by_kind"]["screen:process_control"] == 1 and report["by_kind"]["violation:static screen"] == 1
    assert "std::exit" in report["sources"]["screen:process_control"][0]["code"]
    # the next prompt for the task is contrastive: worst first, best last, with their rewards
    episode = env.episode(problem)
    assert episode.template == "rl_contrastive@1"
    text = episode.messages[-1]["content"]
    assert "wrong_answer" in text and "First analyse the versions" in text
    assert text.index("Version 1: ") < text.index("correct,")


def test_groups_of_two_variants_of_one_task_in_one_batch(env, row_sums) -> None:
    pool = env.sampler.train_pool(row_sums)
    a, b = (p for p in (env.sampler.find(v.task.id) for v in pool[:2]))
    assert a.variant.bench_size != b.variant.bench_size
    honest = "```cpp\n" + (HOSTILE.parent.parent / "rl" / "tasks" / "row_sums" / "serial.cpp").read_text().replace(
        "void row_sums", 'extern "C" void row_sums') + "```"
    out = asyncio.run(env.ascore_groups([(a, [honest]), (b, [honest, "no code"])]))
    assert [[r.reward.evidence.status for r in g] for g in out] == [["correct"], ["correct", "parse_error"]]
    floor = [g[0].evaluation.roofline["floor_bytes"] for g in out]
    assert floor == [4 * (p.variant.bench_size["rows"] * (p.variant.bench_size["cols"] + 1)) for p in (a, b)]


def test_held_out_scores_stay_out_of_the_replay_buffer(evaluator, vec_scale) -> None:
    buffer = ReplayBuffer()
    env = RewardEnv([vec_scale], evaluator, EnvConfig(target="cpu", reward=RewardConfig("correctness")), buffer)
    held = env.sampler.heldout()[0]
    [r] = env.score_many([fenced("wrong.cpp")], held)
    assert r.reward.value == 0.0 and buffer.entries("vec_scale") == []
    episode = env.reset()
    assert episode.template == "rl_task@1" and env.current is episode
    assert f"n = {episode.problem.variant.bench_size['n']}" in episode.messages[-1]["content"]
    r = env.step(fenced("wrong.cpp"))
    assert r.problem_id == episode.problem.id and len(buffer.entries("vec_scale")) == 1
    buffer.close()


def test_configurations_that_cannot_work_are_refused(evaluator, vec_scale) -> None:
    with pytest.raises(RewardConfigError, match="naive baseline is timed on the cuda target only"):
        EnvConfig(target="cpu", reward=RewardConfig(baseline="naive"))
    with pytest.raises(RewardConfigError, match=r"task vec_scale \(serial-cpp\) has no 'eager' baseline"):
        RewardEnv([vec_scale], evaluator, EnvConfig(target="cpu", reward=RewardConfig(baseline="eager")))
    with pytest.raises(RuntimeError, match="call reset"):
        RewardEnv([vec_scale], evaluator, EnvConfig(target="cpu")).step("x")
