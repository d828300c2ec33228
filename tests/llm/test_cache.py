"""The call cache: resume without repeated calls, extend n, replay bit for bit, replay misses."""

from __future__ import annotations

from pathlib import Path

import pytest

from regrapht.llm import (
    BadRequestError,
    CachedChatModel,
    ChatRequest,
    ChatResult,
    ReplayMissError,
    SamplingParams,
    open_model,
    sample_key,
)
from regrapht.llm.openai_backend import OpenAIChatModel
from regrapht.store import RunStore

from .llm_chat_server import ChatServer, Reply


def requests(count: int, n: int = 1, seed: int | None = 1) -> list[ChatRequest]:
    return [
        ChatRequest.from_prompt(
            f"optimize kernel {i}\nsecond line",
            params=SamplingParams(max_tokens=64, seed=seed),
            n=n,
            template="optimize_step@1",
        )
        for i in range(count)
    ]


def comparable(result: ChatResult) -> tuple:
    return result.samples, result.finish_reasons, result.usage, result.latency_s


def test_interrupted_run_resumes_without_repeating_finished_calls(tmp_path: Path) -> None:
    store_path = tmp_path / "run.sqlite"
    batch = requests(6)
    with ChatServer() as server:
        # The server fails the 4th call with a client error: the run stops there.
        server.script.extend([Reply(), Reply(), Reply(), Reply(400, {"error": {"message": "bad request"}})])
        with RunStore(store_path) as store:
            model = CachedChatModel(OpenAIChatModel("tiny-coder", server.url, max_concurrency=1), store)
            with pytest.raises(BadRequestError):
                model.generate(batch)
        assert len(server.chat_calls()) == 4

    with ChatServer() as server, RunStore(store_path) as store:
        model = CachedChatModel(OpenAIChatModel("tiny-coder", server.url, max_concurrency=1), store)
        results = model.generate(batch)
        # Only the three unfinished requests reached the server.
        asked = [c.body["messages"][-1]["content"].splitlines()[0] for c in server.chat_calls()]
        assert asked == ["optimize kernel 3", "optimize kernel 4", "optimize kernel 5"]
        assert [r.cached for r in results] == [1, 1, 1, 0, 0, 0]
        assert [r.text for r in results] == [
            f"answer 0 seed=1 to: optimize kernel {i}\nsecond line" for i in range(6)
        ]


def test_more_samples_reuse_the_first_ones(tmp_path: Path, chat_server: ChatServer) -> None:
    with RunStore(tmp_path / "run.sqlite") as store:
        model = CachedChatModel(OpenAIChatModel("tiny-coder", chat_server.url), store)
        [four] = model.generate(requests(1, n=4, seed=100))
        [eight] = model.generate(requests(1, n=8, seed=100))
        [again] = model.generate(requests(1, n=8, seed=100))
    calls = chat_server.chat_calls()
    assert [(c.body.get("n", 1), c.body["seed"]) for c in calls] == [(4, 100), (4, 104)]
    assert eight.samples[:4] == four.samples
    assert len(set(eight.samples)) == 8  # the shifted seed gave new samples, not copies
    assert eight.cached == 4 and again.cached == 8 and comparable(again) == comparable(eight)


def test_identical_requests_in_one_batch_are_asked_once(tmp_path: Path, chat_server: ChatServer) -> None:
    batch = requests(1, n=2) + requests(1, n=3)
    with RunStore(tmp_path / "run.sqlite") as store:
        results = CachedChatModel(OpenAIChatModel("tiny-coder", chat_server.url), store).generate(batch)
    [call] = chat_server.chat_calls()
    assert call.body["n"] == 3
    assert results[0].samples == results[1].samples[:2]


def test_replay_of_a_finished_run_is_identical_without_any_model(tmp_path: Path) -> None:
    store_path = tmp_path / "run.sqlite"
    batch = requests(3, n=2) + [ChatRequest.from_prompt("no seed", params=SamplingParams(temperature=0.9))]
    with ChatServer() as server, RunStore(store_path) as store:
        model = CachedChatModel(OpenAIChatModel("tiny-coder", server.url), store)
        original = model.generate(batch)
        counted = model.count_tokens("some text to budget")
        context = model.context_length()
    # The server is gone. Replay needs nothing but the store.
    replay = open_model(f"replay:{store_path}")
    try:
        assert replay.identity == "openai:tiny-coder"
        replayed = replay.generate(batch)
        assert [comparable(r) for r in replayed] == [comparable(r) for r in original]
        assert replay.count_tokens("some text to budget") == counted
        assert replay.context_length() == context == 4096
    finally:
        replay.close()


def test_replay_miss_names_the_prompt_and_the_key(tmp_path: Path, chat_server: ChatServer) -> None:
    store_path = tmp_path / "run.sqlite"
    with RunStore(store_path) as store:
        CachedChatModel(OpenAIChatModel("tiny-coder", chat_server.url), store).generate(requests(1))
    replay = open_model(f"replay:{store_path}")
    unseen = ChatRequest.from_prompt(
        "tile the matrix multiply\nwith shared memory", template="optimize_step@1"
    )
    try:
        with pytest.raises(ReplayMissError) as info:
            replay.generate([unseen])
        with pytest.raises(ReplayMissError, match="never counted"):
            replay.count_tokens("a text the run never counted")
    finally:
        replay.close()
    message = str(info.value)
    assert "tile the matrix multiply" in message and "with shared memory" in message
    assert info.value.key == sample_key("openai:tiny-coder", unseen, 0) and info.value.key in message
    assert "optimize_step@1" in message


def test_cache_key_covers_what_changes_the_answer() -> None:
    base = requests(1)[0]
    keys = {
        sample_key("openai:a", base, 0),
        sample_key("openai:b", base, 0),
        sample_key("openai:a", base, 1),
        sample_key(
            "openai:a", ChatRequest(base.messages, SamplingParams(max_tokens=64, seed=2), 1, base.template), 0
        ),
        sample_key("openai:a", ChatRequest(base.messages, base.params, 1, "optimize_step@2"), 0),
        sample_key(
            "openai:a", ChatRequest.from_prompt("other", params=base.params, template=base.template), 0
        ),
    }
    assert len(keys) == 6
    # n is not part of the key: sample 0 is the same sample whatever n was asked.
    assert sample_key("openai:a", base, 0) == sample_key(
        "openai:a", ChatRequest(base.messages, base.params, 5, base.template), 0
    )


def test_replay_with_several_models_asks_which(tmp_path: Path) -> None:
    store_path = tmp_path / "run.sqlite"
    with ChatServer(models=("m1", "m2")) as server, RunStore(store_path) as store:
        CachedChatModel(OpenAIChatModel("m1", server.url), store).generate(requests(1))
        CachedChatModel(OpenAIChatModel("m2", server.url), store).generate(requests(1))
    with pytest.raises(Exception, match=r"several models: openai:m1, openai:m2.*\?model="):
        open_model(f"replay:{store_path}")
    replay = open_model(f"replay:{store_path}?model=openai:m2")
    try:
        assert replay.generate(requests(1))[0].text.startswith("answer 0 seed=1")
    finally:
        replay.close()


def test_usage_and_latency_are_recorded_per_call(tmp_path: Path, chat_server: ChatServer) -> None:
    with RunStore(tmp_path / "run.sqlite") as store:
        [result] = CachedChatModel(OpenAIChatModel("tiny-coder", chat_server.url), store).generate(
            requests(1, n=3)
        )
        [row] = store.query("SELECT n, prompt_tokens, completion_tokens, latency_s, template FROM llm_calls")
        samples = store.query(
            "SELECT prompt_tokens, completion_tokens FROM llm_samples ORDER BY sample_index"
        )
    assert (row["n"], row["template"]) == (3, "optimize_step@1")
    assert (row["prompt_tokens"], row["completion_tokens"]) == (
        result.usage.prompt_tokens,
        result.usage.completion_tokens,
    )
    assert row["latency_s"] == result.latency_s > 0
    assert sum(s["completion_tokens"] for s in samples) == row["completion_tokens"]
    assert [s["prompt_tokens"] for s in samples] == [row["prompt_tokens"], 0, 0]
