"""The RL environment: problems (task variants) in, prompts out; completions in, rewards and records out.

The environment scores through any object with `evaluate_many(items) -> list[Evaluation]` (items are
(task, source, target) tuples): an `Evaluator`, or a device pool that spreads a batch over GPUs. A
whole GRPO group, or several groups, go to one `evaluate_many` call so their compiles run in
parallel. The scorer is called from one thread at a time unless it says `thread_safe = True`.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from regrapht.eval.record import Evaluation
from regrapht.llm.parse import ExtractedCode, ParseFailure, extract_code
from regrapht.llm.templates import TemplateLibrary
from regrapht.llm.torch_parse import extract_torch_code
from regrapht.rl import rewards
from regrapht.rl.audit import IntegrityAudit
from regrapht.rl.problems import Problem, ProblemSampler
from regrapht.rl.replay import Entry, ReplayBuffer
from regrapht.rl.rewards import NO_DEVICE, Evidence, Reward, RewardConfig, RewardConfigError
from regrapht.tasks.model import Task

TARGETS = ("cuda", "cpu")
# The baselines each task kind's records carry: the torch judge times eager on both targets, and
# torch.compile, max-autotune (no CUDA graphs) and CUDA-graph eager on cuda (eval/torch_judge.py).
KIND_BASELINES = {"serial-cpp": ("serial", "naive"), "torch": ("eager", "compile", "max-autotune", "cudagraph")}
# What a torch prompt asks for on the cuda target (the cpu target always asks for C++).
TORCH_LANGUAGES = ("any", "cuda", "triton")


class Scorer(Protocol):
    def evaluate_many(self, items: list[tuple[Task, str, str]]) -> list[Evaluation]: ...


@dataclass(frozen=True)
class EnvConfig:
    target: str = "cuda"
    reward: RewardConfig = field(default_factory=RewardConfig)
    seed: int = 0
    train_variants: int = 16
    heldout_variants: int = 4
    contrastive: bool = True  # prompts show earlier scored code for the task once there are two
    exemplars: int = 4  # how many earlier completions a contrastive prompt shows
    # A completion longer than this is not parsed: it scores as a parse error ("too_long").
    max_completion_chars: int = 200_000
    template_dirs: tuple[str, ...] = ()
    torch_language: str = "any"  # torch tasks on cuda: what the prompt asks for (TORCH_LANGUAGES)

    def __post_init__(self) -> None:
        if self.target not in TARGETS:
            raise ValueError(f"unknown target {self.target!r} (known: {', '.join(TARGETS)})")
        if self.reward.baseline == "naive" and self.target != "cuda":
            raise RewardConfigError("the naive baseline is timed on the cuda target only; use serial")
        if self.torch_language not in TORCH_LANGUAGES:
            raise ValueError(f"unknown torch_language {self.torch_language!r} (known: {', '.join(TORCH_LANGUAGES)})")
        if self.torch_language == "triton" and self.target == "cpu":
            raise ValueError("Triton kernels need the cuda target; on cpu, torch prompts ask for C++ (load_inline)")
        if self.exemplars < 2 or self.max_completion_chars < 1:
            raise ValueError("exemplars must be at least 2 and max_completion_chars positive")


@dataclass
class Episode:
    problem: Problem
    messages: list[dict[str, str]]
    template: str  # the template's id, e.g. "rl_task@1"

    def to_dict(self) -> dict[str, Any]:
        return {"problem": self.problem.summary(), "messages": self.messages, "template": self.template}


@dataclass
class StepResult:
    problem_id: str
    reward: Reward
    evaluation: Evaluation | None  # None when no code reached the evaluator
    code: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "problem": self.problem_id,
            "reward": self.reward.value,
            "reward_name": self.reward.name,
            "evidence": self.reward.evidence.to_dict(),
            "evaluation": None if self.evaluation is None else self.evaluation.to_dict(),
        }


class RewardEnv:
    """`reset()` draws a problem and returns its prompt; `step(completion)` scores a completion for
    the current problem; `score_many` and `score_groups` score GRPO groups in one evaluator batch."""

    def __init__(
        self,
        tasks: Sequence[Task],
        scorer: Scorer,
        config: EnvConfig | None = None,
        replay: ReplayBuffer | None = None,
    ):
        self.config = config or EnvConfig()
        for task in tasks:
            kind = getattr(task, "kind", "serial-cpp")
            offered = KIND_BASELINES.get(kind, ())
            if self.config.reward.baseline not in offered:
                raise RewardConfigError(
                    f"task {task.id} ({kind}) has no {self.config.reward.baseline!r} baseline "
                    f"(it offers {', '.join(offered) or 'none'})"
                )
            if kind == "torch":
                timed = torch_baselines(scorer, self.config.target)
                if self.config.reward.baseline not in timed:
                    raise RewardConfigError(
                        f"torch task {task.id}: the evaluator times {', '.join(timed)} on the {self.config.target} "
                        f"target, not {self.config.reward.baseline!r} (set EvalConfig.torch_baselines, or choose one of those)"
                    )
        if self.config.reward.needs_timing and getattr(getattr(scorer, "config", None), "timing", True) is False:
            raise RewardConfigError(
                f"reward {self.config.reward.name!r} needs timing, but the evaluator's timing is off; "
                "use the correctness reward"
            )
        self.sampler = ProblemSampler(tasks, self.config.seed, self.config.train_variants, self.config.heldout_variants)
        self.scorer = scorer
        self.replay = replay
        self.audit = IntegrityAudit()
        self.templates = TemplateLibrary(self.config.template_dirs)
        self.episodes = 0
        self.current: Episode | None = None
        self._scorer_lock = None if getattr(scorer, "thread_safe", False) else threading.Lock()
        self._cuda: bool | None = None  # whether torch candidates can run on cuda (asked once)

    # ---- prompts -------------------------------------------------------------------------------
    def reset(self, episode: int | None = None) -> Episode:
        """Draw the next training problem (or episode number `episode`'s) and return its prompt."""
        index = self.episodes if episode is None else episode
        self.episodes = index + 1
        self.current = self.episode(self.sampler.sample(index))
        return self.current

    def episode(self, problem: Problem) -> Episode:
        """The prompt for a problem: contrastive once the buffer holds two scored completions of its task."""
        if getattr(problem.task, "kind", None) == "torch":
            return self._torch_episode(problem)
        task = problem.task
        view = {
            "name": task.id,
            "description": task.description,
            "function_name": task.function,
            "source": task.serial_source(),
            "convention": task.convention,
        }
        common = {"task": view, "target": self.config.target, "sizes": dict(problem.variant.bench_size)}
        shown = []
        if self.config.contrastive and self.replay is not None:
            shown = self.replay.exemplars(task.id, self.config.exemplars)
        if len(shown) >= 2:
            template = self.templates.get("rl_contrastive")
            messages = template.render(
                **common,
                baseline=rewards.BASELINE_SOURCES[self.config.reward.baseline],
                exemplars=[e.to_dict() for e in shown],
            )
        else:
            template = self.templates.get("rl_task")
            messages = template.render(**common)
        return Episode(problem, [dict(m) for m in messages], template.id)

    def _torch_episode(self, problem: Problem) -> Episode:
        task = problem.variant.task  # the variant's dtype and sizes
        view = {
            "name": problem.task.id, "title": task.title, "description": task.description,
            "reference": task.reference_path.read_text(), "dtype": task.dtype,
            "test_sizes": [dict(s) for s in task.test_sizes],
        }  # fmt: skip
        common = {"task": view, "target": self.config.target, "language": self.config.torch_language,
                  "sizes": task.bench_for(self.config.target)}  # fmt: skip
        shown = []
        if self.config.contrastive and self.replay is not None:
            shown = self.replay.exemplars(problem.task.id, self.config.exemplars)
        if len(shown) >= 2:
            template = self.templates.get("rl_torch_contrastive")
            messages = template.render(**common, baseline=rewards.BASELINE_SOURCES[self.config.reward.baseline],
                                       exemplars=[e.to_dict() for e in shown])  # fmt: skip
        else:
            template = self.templates.get("rl_torch_task")
            messages = template.render(**common)
        return Episode(problem, [dict(m) for m in messages], template.id)

    # ---- scoring -------------------------------------------------------------------------------
    def step(self, completion: str) -> StepResult:
        if self.current is None:
            raise RuntimeError("call reset() before step()")
        return self.score_many([completion], self.current.problem)[0]

    def score_many(self, completions: Sequence[str], problem: Problem | None = None) -> list[StepResult]:
        """Score a group of completions of one problem (the current one by default)."""
        problem = problem or (self.current.problem if self.current else None)
        if problem is None:
            raise RuntimeError("no problem: call reset() or pass one")
        return self.score_groups([(problem, completions)])[0]

    def score_groups(self, groups: Sequence[tuple[Problem, Sequence[str]]]) -> list[list[StepResult]]:
        """Score several groups in one evaluator batch; each group's rewards see only that group."""
        parsed = [[self._extract(problem, c) for c in completions] for problem, completions in groups]
        unscored = [[code is not None and self._needs_missing_gpu(problem) for code, _, _ in group]
                    for (problem, _), group in zip(groups, parsed)]  # fmt: skip
        parsed = [[(None, {**info, "code_chars": len(code)}, "") if skip else (code, info, message)
                   for (code, info, message), skip in zip(group, skips)]
                  for group, skips in zip(parsed, unscored)]  # fmt: skip
        items = [
            (problem.variant.task, code, self.config.target)
            for (problem, _), group in zip(groups, parsed)
            for code, _, _ in group
            if code is not None
        ]
        evaluations = iter(self._evaluate(items) if items else [])
        results = []
        baseline = self.config.reward.baseline
        for (problem, _), group, skips in zip(groups, parsed, unscored):
            evs = [next(evaluations) if code is not None else None for code, _, _ in group]
            evidence = [
                rewards.Evidence(NO_DEVICE, NO_DEVICE_MESSAGE, baseline, parse=info) if skip
                else rewards.evidence_of(ev, baseline, info, message)
                for ev, (_, info, message), skip in zip(evs, group, skips)
            ]  # fmt: skip
            scored = rewards.score(evidence, self.config.reward)
            out = [StepResult(problem.id, r, ev, code) for r, ev, (code, _, _) in zip(scored, evs, group)]
            for r in out:
                self.audit.record(problem.id, r.code, r.reward.evidence)
            if problem.split == "train":  # held-out scores never reach the prompts training sees
                self._remember(problem, out)
            results.append(out)
        return results

    async def ascore_many(self, completions: Sequence[str], problem: Problem | None = None) -> list[StepResult]:
        """`score_many` off the event loop (the evaluator blocks on compiles and workers)."""
        return await asyncio.to_thread(self.score_many, completions, problem)

    async def ascore_groups(self, groups: Sequence[tuple[Problem, Sequence[str]]]) -> list[list[StepResult]]:
        return await asyncio.to_thread(self.score_groups, groups)

    def _evaluate(self, items: list[tuple[Task, str, str]]) -> list[Evaluation]:
        if self._scorer_lock is None:
            results = self.scorer.evaluate_many(items)
        else:
            with self._scorer_lock:
                results = self.scorer.evaluate_many(items)
        if len(results) != len(items):
            raise RuntimeError(f"the scorer returned {len(results)} evaluations for {len(items)} items")
        return results

    def _needs_missing_gpu(self, problem: Problem) -> bool:
        """Whether a torch problem's completion must run on a GPU this machine lacks."""
        if getattr(problem.task, "kind", None) != "torch" or self.config.target != "cuda":
            return False
        if self._cuda is None:
            self._cuda = cuda_available(self.scorer)
        return not self._cuda

    def _extract(self, problem: Problem, completion: str) -> tuple[str | None, dict[str, Any], str]:
        """(code or None, parse evidence, failure message)."""
        if not isinstance(completion, str):
            return None, {"reason": "not_text"}, f"the completion is a {type(completion).__name__}, not text"
        if len(completion) > self.config.max_completion_chars:
            return None, {"reason": "too_long", "chars": len(completion)}, (
                f"the completion has {len(completion)} characters, over the limit of "
                f"{self.config.max_completion_chars}; it was not parsed"
            )
        found: ExtractedCode | ParseFailure
        if getattr(problem.task, "kind", None) == "torch":
            found = extract_torch_code(completion)
        else:
            found = extract_code(completion, function_name=problem.task.function)
        if not found.ok:
            return None, {"reason": found.reason, "notes": list(found.notes)}, found.message
        return found.code, {"rule": found.rule, "notes": list(found.notes)}, ""

    def _remember(self, problem: Problem, results: list[StepResult]) -> None:
        if self.replay is None:
            return
        for r in results:
            if r.code is None:
                continue
            e: Evidence = r.reward.evidence
            if e.status == NO_DEVICE:  # not a measurement: nothing to contrast
                continue
            self.replay.add(Entry(
                problem.task.id, problem.variant.label, dict(problem.variant.bench_size), r.code, e.status,
                None if e.speedup is None else e.speedup.get("value"), r.reward.value,
            ))


NO_DEVICE_MESSAGE = (
    "not evaluated: the torch judge runs cuda-target candidates on a GPU, and this machine's evaluator has "
    "none (use the cpu target, or a scorer on a GPU machine); the reward is 0 and carries no signal"
)


def torch_baselines(scorer: Any, target: str) -> tuple[str, ...]:
    """The baselines the scorer's torch judge times on a target: its `EvalConfig.torch_baselines`
    where it has them (eager always among them), else the judge's defaults (eager and compile on
    cuda, eager on cpu)."""
    chosen = getattr(getattr(scorer, "config", None), "torch_baselines", None)
    if chosen:
        return ("eager", *[b for b in chosen if b != "eager"])
    return ("eager", "compile") if target == "cuda" else ("eager",)


def cuda_available(scorer: Any) -> bool:
    """Whether the scorer can run torch candidates on cuda: a scorer that knows says so through a
    `cuda_devices` attribute (a device pool: its GPU count); otherwise the local machine's GPUs."""
    known = getattr(scorer, "cuda_devices", None)
    if known is not None:
        return int(known) > 0
    from regrapht.eval import toolchain

    return bool(toolchain.gpus())
