"""In-process backends on an NVIDIA GPU (marked `gpu`: skipped on machines without one).

The models are tiny with random weights, built by the test: outputs are junk; these tests check
that loading, batching and seeding work on CUDA, not quality.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht.llm import ChatRequest, SamplingParams, open_model
from regrapht.llm.vllm_backend import sampling_kwargs


def test_vllm_sampling_params_carry_the_request() -> None:
    """Pure translation; runs everywhere."""
    request = ChatRequest.from_prompt("x", params=SamplingParams(0.5, 0.9, 77, ("}",), 5), n=4)
    assert sampling_kwargs(request) == {
        "n": 4,
        "temperature": 0.5,
        "top_p": 0.9,
        "max_tokens": 77,
        "stop": ["}"],
        "seed": 5,
    }
    assert sampling_kwargs(ChatRequest.from_prompt("x"))["stop"] is None


@pytest.mark.gpu
def test_transformers_on_cuda(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    pytest.importorskip("transformers")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA on this machine")
    from regrapht.llm.random_model import build_random_chat_model

    folder = build_random_chat_model(tmp_path / "tiny", hidden=64, heads=4)
    model = open_model(f"hf:{folder}?device=cuda&batch_size=8")
    try:
        assert model.describe()["device"].startswith("cuda")
        batch = [
            ChatRequest.from_prompt(
                f"prompt {i}", params=SamplingParams(temperature=1.0, max_tokens=16, seed=1), n=2
            )
            for i in range(4)
        ]
        first = [r.samples for r in model.generate(batch)]
        assert first == [r.samples for r in model.generate(batch)]
        assert all(len(s) == 2 for s in first)
    finally:
        model.close()


@pytest.mark.gpu
def test_vllm_batched_sampling(tmp_path: Path) -> None:
    pytest.importorskip("vllm")
    from regrapht.llm.random_model import build_random_chat_model

    # head_dim 64: vLLM's attention kernels do not take the tiny 8-wide heads of the CPU test model.
    folder = build_random_chat_model(tmp_path / "tiny", hidden=256, heads=4, max_positions=1024)
    model = open_model(f"vllm:{folder}?gpu_memory_utilization=0.3&enforce_eager=true&context=1024")
    try:
        batch = [
            ChatRequest.from_prompt(
                f"prompt {i}", params=SamplingParams(temperature=1.0, max_tokens=16, seed=i), n=3
            )
            for i in range(8)
        ]
        results = model.generate(batch)
        assert [len(r.samples) for r in results] == [3] * 8
        assert all(r.usage.prompt_tokens > 0 and r.usage.completion_tokens > 0 for r in results)
        assert [r.samples for r in model.generate(batch)] == [r.samples for r in results]
        assert model.context_length() == 1024
    finally:
        model.close()
