"""A short GRPO run against the live environment: a tiny model this script creates, rewards from the
evaluator on the cpu target. It proves the plumbing (prompts, sampling, parsing, compiling, checking,
rewards, policy updates); it does not claim the tiny model learns CUDA.

A randomly initialised model never writes code, so every completion would score alike and GRPO would
have no signal (zero advantage, zero gradient). The script therefore first fits the model for a few
hundred steps to answer every prompt with one of two OpenMP kernels, a correct one and one with a
wrong sign; sampled at temperature 1 its completions mix both, the rewards of a group differ, and
GRPO's updates have a signal to follow (the log shows reward_std and grad_norm above zero).

    pip install 'regrapht[trl]'
    PYTHONPATH=src python examples/grpo_tiny.py --steps 2
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

ANSWERS = [
    """```cpp
void saxpy(int n, float a, const float* x, float* y) {
#pragma omp parallel for
    for (int i = 0; i < n; ++i) y[i] = a * x[i] + y[i];
}
```""",
    """```cpp
void saxpy(int n, float a, const float* x, float* y) {
#pragma omp parallel for
    for (int i = 0; i < n; ++i) y[i] = a * x[i] - y[i];
}
```""",
]


def warm_up(model, tokenizer, prompts: list[list[dict]], steps: int, lr: float) -> float:
    """Fit the model to answer each prompt with either answer, alternately (loss on the answers' tokens
    only), so it samples both."""
    import torch

    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    examples = []
    for messages in prompts:
        head = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        prompt_ids = tokenizer(head, add_special_tokens=False)["input_ids"]
        for answer in ANSWERS:
            answer_ids = tokenizer(answer + "<|im_end|>", add_special_tokens=False)["input_ids"]
            ids = torch.tensor([prompt_ids + answer_ids])
            labels = torch.tensor([[-100] * len(prompt_ids) + answer_ids])
            examples.append((ids, labels))
    model.train()
    loss = torch.tensor(0.0)
    for step in range(steps):
        ids, labels = examples[step % len(examples)]
        loss = model(input_ids=ids, labels=labels).loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    return float(loss.detach())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=2, help="GRPO steps")
    parser.add_argument("--warmup-steps", type=int, default=200)
    parser.add_argument("--generations", type=int, default=4, help="completions per prompt (a GRPO group)")
    parser.add_argument("--out", type=Path, default=None, help="where the model and TRL's output go")
    args = parser.parse_args()

    import trl
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from regrapht.eval import EvalConfig, Evaluator
    from regrapht.llm.random_model import build_random_chat_model
    from regrapht.rl import EnvConfig, ReplayBuffer, RewardConfig, RewardEnv
    from regrapht.rl.trl_reward import GRPOReward, grpo_dataset
    from regrapht.tasks import find_task

    out = args.out or Path(tempfile.mkdtemp(prefix="grpo-tiny-"))
    folder = build_random_chat_model(out / "model", layers=2, hidden=64, heads=4, max_positions=4096)
    model = AutoModelForCausalLM.from_pretrained(folder)
    tokenizer = AutoTokenizer.from_pretrained(folder)

    # Correctness only: the cpu target's timing of a bench-size saxpy would dominate a demo's time.
    with Evaluator(EvalConfig(timing=False, seeds=1)) as evaluator:
        replay = ReplayBuffer(str(out / "replay.sqlite"))
        env = RewardEnv([find_task("saxpy")], evaluator,
                        EnvConfig(target="cpu", reward=RewardConfig("correctness"), contrastive=False), replay)
        data = grpo_dataset(env, episodes=args.steps * 2)
        loss = warm_up(model, tokenizer, list(data["prompt"]), args.warmup_steps, lr=3e-3)
        print(f"warm-up: {args.warmup_steps} steps, last loss {loss:.3f}")

        reward = GRPOReward(env)
        config = trl.GRPOConfig(
            output_dir=str(out / "trl"), max_steps=args.steps, per_device_train_batch_size=args.generations,
            num_generations=args.generations, max_completion_length=128, temperature=1.0, learning_rate=1e-4,
            use_cpu=True, report_to=[], logging_steps=1, save_strategy="no", seed=0, bf16=False,
        )
        trainer = trl.GRPOTrainer(model=model, reward_funcs=[reward], args=config, train_dataset=data,
                                  processing_class=tokenizer)
        trainer.train()
        for step, batch in enumerate(reward.history, 1):
            statuses = ", ".join(r["status"] for r in batch)
            print(f"step {step}: rewards {[r['reward'] for r in batch]} ({statuses})")
        for entry in trainer.state.log_history:
            if "loss" in entry:
                print(f"logged step {entry['step']}: loss {entry['loss']:.4f}, grad_norm {entry['grad_norm']:.4f}, "
                      f"reward {entry['reward']:.3f} +- {entry['reward_std']:.3f}")
        print("audit:", env.audit.report()["by_status"])
        replay.close()


if __name__ == "__main__":
    main()
