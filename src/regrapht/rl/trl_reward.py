"""The environment as a reward function for `trl.GRPOTrainer` (the optional extra `trl`).

TRL calls a reward function with the batch's prompts and completions and, as keyword arguments, the
dataset's other columns repeated per completion. `grpo_dataset` puts each row's problem id in a
`problem` column, so the reward function knows what each completion answers; it groups the batch by
problem and scores every group in one evaluator batch (compiles in parallel), in process or through
the reward service. It logs each completion's status and speedup to TRL's completions table and the
fractions correct and flagged as metrics. A completion that was not judged (status `no_device`: a
torch candidate for the cuda target on a scorer without a GPU) gets `None`, which TRL leaves out of
that sample's reward rather than train on a number that measured nothing.

Prompts are rendered when the dataset is built: a contrastive prompt shows the replay buffer as it
was then. Rebuild the dataset between rounds for fresher exemplars.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from regrapht.rl.env import RewardEnv
from regrapht.rl.rewards import UNSCORED


def completion_text(completion: Any) -> str:
    """A completion as text: TRL passes a string, or (conversational data) a list of messages."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, list):
        return "".join(str(m.get("content", "")) for m in completion if isinstance(m, dict) and m.get("role") == "assistant")
    raise TypeError(f"a completion is a string or a list of messages, not {type(completion).__name__}")


def grpo_dataset(env: RewardEnv, episodes: int, start: int = 0) -> Any:
    """A `datasets.Dataset` of training episodes: columns `prompt` (chat messages) and `problem`."""
    import datasets

    rows = []
    for index in range(start, start + episodes):
        episode = env.episode(env.sampler.sample(index))
        rows.append({"prompt": episode.messages, "problem": episode.problem.id})
    return datasets.Dataset.from_list(rows)


class GRPOReward:
    """A TRL reward function backed by a `RewardEnv` or a `RewardClient` (anything with
    `score_groups`). TRL names the reward by `__name__`."""

    __name__ = "regrapht_reward"

    def __init__(self, scorer: Any):
        self.scorer = scorer
        self.history: list[list[dict[str, Any]]] = []  # per call: each completion's problem, reward and status

    def __call__(
        self,
        prompts: Sequence[Any],
        completions: Sequence[Any],
        problem: Sequence[str] | None = None,
        log_extra: Callable[[str, list], None] | None = None,
        log_metric: Callable[[str, float], None] | None = None,
        **_: Any,
    ) -> list[float | None]:
        if problem is None:
            raise ValueError("the dataset needs a `problem` column (build it with grpo_dataset)")
        texts = [completion_text(c) for c in completions]
        order: dict[str, list[int]] = {}
        for i, pid in enumerate(problem):
            order.setdefault(pid, []).append(i)
        rows = self._score([(pid, [texts[i] for i in idx]) for pid, idx in order.items()])
        out: list[dict[str, Any]] = [{}] * len(texts)
        for (pid, idx), group in zip(order.items(), rows):
            for i, row in zip(idx, group):
                out[i] = {"problem": pid, **row}
        self.history.append(out)
        if log_extra is not None:
            log_extra("status", [r["status"] for r in out])
            log_extra("speedup", [r["speedup"] for r in out])
        if log_metric is not None and out:
            log_metric("regrapht/correct", sum(r["status"] == "correct" for r in out) / len(out))
            log_metric("regrapht/integrity_violation", sum(r["status"] == "integrity_violation" for r in out) / len(out))
        return [None if r["status"] in UNSCORED else r["reward"] for r in out]

    def _score(self, groups: list[tuple[str, list[str]]]) -> list[list[dict[str, Any]]]:
        if isinstance(self.scorer, RewardEnv):
            problems = [(self.scorer.sampler.find(pid), texts) for pid, texts in groups]
            scored = [[r.to_dict() for r in g] for g in self.scorer.score_groups(problems)]
        else:
            scored = self.scorer.score_groups(groups)
        return [[_row(r) for r in group] for group in scored]


def _row(result: dict[str, Any]) -> dict[str, Any]:
    evidence = result["evidence"]
    speed = evidence.get("speedup") or {}
    return {"reward": float(result["reward"]), "status": evidence["status"], "speedup": speed.get("value")}
