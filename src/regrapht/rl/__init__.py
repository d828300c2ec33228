"""The RL environment over tasks and the evaluator: problem variants, rewards, a replay buffer for
contrastive prompts, an integrity audit, and an HTTP reward service. Nothing below imports it;
trainer adapters (TRL) import it, never the reverse."""

from regrapht.rl.env import EnvConfig, Episode, RewardEnv, Scorer, StepResult
from regrapht.rl.problems import Problem, ProblemSampler
from regrapht.rl.replay import ReplayBuffer
from regrapht.rl.rewards import REWARDS, Reward, RewardConfig, RewardConfigError

__all__ = [
    "REWARDS",
    "EnvConfig",
    "Episode",
    "Problem",
    "ProblemSampler",
    "ReplayBuffer",
    "Reward",
    "RewardConfig",
    "RewardConfigError",
    "RewardEnv",
    "Scorer",
    "StepResult",
]
