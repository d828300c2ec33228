"""The in-process transformers backend, loaded through the real `hf:PATH` spec on the CPU.

The model is a tiny Llama with random weights and a tokenizer trained on a few lines, built by the
test: its output is junk. These tests check loading, chat templating, batching, seeded sampling,
stop strings and token accounting, never the quality of what it writes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")

from regrapht.llm import (  # noqa: E402
    ChatRequest,
    ContextLengthExceededError,
    SamplingParams,
    fit_prompt_for_model,
    open_model,
)
from regrapht.llm.random_model import build_random_chat_model  # noqa: E402
from regrapht.llm.transformers_backend import TransformersChatModel  # noqa: E402


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_random_chat_model(tmp_path_factory.mktemp("tiny-llama"), max_positions=256)


@pytest.fixture(scope="module")
def model(model_dir: Path) -> TransformersChatModel:
    loaded = open_model(f"hf:{model_dir}?device=cpu&batch_size=4")
    assert isinstance(loaded, TransformersChatModel)
    return loaded


def sampled(text: str, n: int = 1, seed: int | None = 3, max_tokens: int = 12, **kw) -> ChatRequest:
    return ChatRequest.from_prompt(
        text, params=SamplingParams(temperature=1.0, max_tokens=max_tokens, seed=seed, **kw), n=n
    )


def test_loads_on_cpu_with_the_tokenizer_chat_template(model: TransformersChatModel, model_dir: Path) -> None:
    facts = model.describe()
    assert facts["device"] == "cpu" and facts["dtype"] == "float32"
    assert facts["chat_template"] == "tokenizer"
    assert model.identity == f"hf:{model_dir.resolve()}"
    assert model.context_length() == 256
    prompt = model.render(ChatRequest.from_prompt("make it fast", system="be brief"))
    assert prompt == (
        "<|im_start|>system\nbe brief<|im_end|>\n<|im_start|>user\nmake it fast<|im_end|>\n<|im_start|>assistant\n"
    )


def test_batched_generation_returns_every_sample_in_order(model: TransformersChatModel) -> None:
    batch = [sampled("first", n=2), sampled("a longer second prompt", n=3), sampled("third")]
    seen: list[int] = []
    results = model.generate(batch, on_result=lambda i, r: seen.append(i))
    assert [len(r.samples) for r in results] == [2, 3, 1]
    assert sorted(seen) == [0, 1, 2]  # each reported once, as its last batch finished
    for result in results:
        assert all(reason in ("stop", "length") for reason in result.finish_reasons)
        assert result.latency_s > 0


def test_seeded_sampling_is_reproducible(model: TransformersChatModel) -> None:
    batch = [sampled("kernel one", n=2, seed=11), sampled("kernel two", seed=11)]
    first = [r.samples for r in model.generate(batch)]
    again = [r.samples for r in model.generate(batch)]
    other = [
        r.samples
        for r in model.generate([sampled("kernel one", n=2, seed=12), sampled("kernel two", seed=12)])
    ]
    assert first == again
    assert first != other


def test_token_accounting(model: TransformersChatModel) -> None:
    request = ChatRequest.from_prompt(
        "count my tokens", params=SamplingParams(temperature=0.0, max_tokens=7), n=2
    )
    [result] = model.generate([request])
    rendered_tokens = model.count_tokens(model.render(request))
    assert result.usage.prompt_tokens == rendered_tokens  # counted once per request, as servers do
    assert not result.usage.estimated
    # Greedy: both samples are the same; a sample that hit the limit produced exactly max_tokens.
    assert result.samples[0] == result.samples[1]
    per_sample = result.usage.completion_tokens / 2
    assert 1 <= per_sample <= 7
    if result.finish_reasons[0] == "length":
        assert per_sample == 7


def test_stop_strings_cut_the_answer(model: TransformersChatModel) -> None:
    greedy = SamplingParams(temperature=0.0, max_tokens=16)
    [free] = model.generate([ChatRequest.from_prompt("stop test", params=greedy)])
    text = free.text
    assert len(text) >= 4, "the greedy answer is needed to choose a stop string"
    stop = text[len(text) // 2 : len(text) // 2 + 2]
    [stopped] = model.generate(
        [
            ChatRequest.from_prompt(
                "stop test", params=SamplingParams(temperature=0.0, max_tokens=16, stop=(stop,))
            )
        ]
    )
    assert stopped.text == text[: text.find(stop)]
    assert stopped.finish_reasons == ("stop",)
    assert stopped.usage.completion_tokens <= free.usage.completion_tokens


def test_prompt_longer_than_the_context_is_refused_with_numbers(model: TransformersChatModel) -> None:
    with pytest.raises(ContextLengthExceededError, match=r"> context 256") as info:
        model.generate([sampled("x", max_tokens=300)])
    assert info.value.limit == 256


def test_budgeting_uses_the_model_tokenizer(model: TransformersChatModel) -> None:
    examples = [f"example {i}: " + "shared memory tiling " * 3 for i in range(6)]
    fitted = fit_prompt_for_model(
        model,
        lambda kept: [{"role": "user", "content": "\n".join(kept) + "\nnow optimize"}],
        examples,
        max_tokens=64,
        priority=lambda ex: -int(ex.split(":")[0].split()[1]),  # earlier examples matter more
    )
    assert fitted.kept and fitted.dropped
    assert fitted.kept == examples[: len(fitted.kept)]  # the later, lower-priority ones went first
    assert fitted.prompt_tokens <= fitted.budget_tokens == 256 - 64 - 32
    [result] = model.generate([ChatRequest(tuple(fitted.messages), SamplingParams(max_tokens=64, seed=0))])
    # The real prompt, rendered by the chat template, fits with the answer's room to spare.
    assert result.usage.prompt_tokens + 64 <= 256


def test_tokenizer_without_chat_template_uses_the_recorded_fallback(tmp_path: Path) -> None:
    folder = build_random_chat_model(tmp_path / "no-template", chat_template=None)
    model = open_model(f"hf:{folder}?device=cpu")
    assert isinstance(model, TransformersChatModel)
    assert model.describe()["chat_template"].startswith("fallback")
    assert model.render(ChatRequest.from_prompt("hi")) == "<|user|>\nhi\n<|assistant|>\n"
    [result] = model.generate([sampled("hi", max_tokens=4)])
    assert result.usage.completion_tokens >= 1


def test_not_a_model_folder(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="no config.json"):
        open_model(f"hf:{tmp_path}")
