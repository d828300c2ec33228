"""The OpenAI-compatible HTTP backend against a real HTTP server on loopback."""

from __future__ import annotations

import logging
import time

import pytest

from regrapht.llm import (
    AuthenticationError,
    BackendResponseError,
    BackendUnavailableError,
    BadRequestError,
    ChatRequest,
    ContextLengthExceededError,
    ContextLengthUnknownError,
    ModelNotFoundError,
    SamplingParams,
    open_model,
)
from regrapht.llm.openai_backend import OpenAIChatModel
from regrapht.llm.retry import RetryPolicy

from .llm_chat_server import ChatServer, Reply

FAST_RETRY = RetryPolicy(max_retries=2, base_delay_s=0.01, max_delay_s=0.05)


def model_for(server: ChatServer, name: str = "tiny-coder", **kwargs) -> OpenAIChatModel:
    kwargs.setdefault("retry", FAST_RETRY)
    return OpenAIChatModel(name, server.url, **kwargs)


def ask(text: str, n: int = 1, seed: int | None = None, max_tokens: int = 32) -> ChatRequest:
    return ChatRequest.from_prompt(text, params=SamplingParams(max_tokens=max_tokens, seed=seed), n=n)


def test_answers_in_request_order_with_usage_and_latency(chat_server: ChatServer) -> None:
    with model_for(chat_server) as model:
        results = model.generate([ask("first prompt"), ask("second one here")])
    assert [r.samples for r in results] == [
        ("answer 0 seed=None to: first prompt",),
        ("answer 0 seed=None to: second one here",),
    ]
    assert results[0].finish_reasons == ("stop",)
    assert results[0].usage.prompt_tokens == 2 and results[0].usage.completion_tokens == 6
    assert not results[0].usage.estimated
    assert all(r.latency_s > 0 for r in results)
    body = chat_server.chat_calls()[0].body
    assert body["model"] == "tiny-coder" and body["max_tokens"] == 32 and "n" not in body


def test_n_samples_in_one_request(chat_server: ChatServer) -> None:
    with model_for(chat_server) as model:
        [result] = model.generate([ask("go", n=3, seed=7)])
    assert result.samples == tuple(f"answer {k} seed=7 to: go" for k in range(3))
    [call] = chat_server.chat_calls()
    assert call.body["n"] == 3 and call.body["seed"] == 7


def test_server_that_ignores_n_gets_one_request_per_missing_sample() -> None:
    with ChatServer(honour_n=False) as server, model_for(server) as model:
        [first] = model.generate([ask("go", n=3, seed=10)])
        # The first call asked for 3 and got 1; the other two were asked one by one with their own seeds.
        assert [c.body.get("n", 1) for c in server.chat_calls()] == [3, 1, 1]  # n=3 came first
        assert sorted(c.body["seed"] for c in server.chat_calls()) == [10, 11, 12]
        assert first.samples == (
            "answer 0 seed=10 to: go",
            "answer 0 seed=11 to: go",
            "answer 0 seed=12 to: go",
        )
        assert model.describe()["native_n"] == "no"
        # Once learned, later requests go one per sample from the start.
        model.generate([ask("again", n=2, seed=0)])
        assert [c.body.get("n", 1) for c in server.chat_calls()[3:]] == [1, 1]


def test_native_n_true_refuses_to_make_up_missing_samples() -> None:
    with (
        ChatServer(honour_n=False) as server,
        model_for(server, native_n="true") as model,
        pytest.raises(BackendResponseError, match="asked for n=2 samples but got 1"),
    ):
        model.generate([ask("go", n=2)])


def test_wrong_model_lists_the_served_models(chat_server: ChatServer) -> None:
    with model_for(chat_server, name="qwen-typo") as model, pytest.raises(ModelNotFoundError) as info:
        model.generate([ask("hi")])
    message = str(info.value)
    assert "does not serve model 'qwen-typo'" in message
    assert "It serves: tiny-coder" in message
    assert f"openai:tiny-coder@{chat_server.url}" in message
    assert info.value.available == ["tiny-coder"]
    assert len(chat_server.chat_calls()) == 1  # a 404 is not retried


def test_context_too_long_says_so_with_the_numbers() -> None:
    with (
        ChatServer(max_model_len=20) as server,
        model_for(server) as model,
        pytest.raises(ContextLengthExceededError) as info,
    ):
        model.generate([ask("one two three four five", max_tokens=30)])
    assert info.value.limit == 20
    assert info.value.requested == 35
    message = str(info.value)
    assert "context holds 20 tokens" in message and "max_tokens is 30" in message
    assert "lower max_tokens" in message


def test_429_waits_as_long_as_retry_after_says_then_succeeds(chat_server: ChatServer) -> None:
    chat_server.script.append(Reply(429, {"error": {"message": "slow down"}}, {"Retry-After": "0.3"}))
    with model_for(chat_server) as model:
        [result] = model.generate([ask("hi")])
    assert result.text == "answer 0 seed=None to: hi"
    first, second = chat_server.chat_calls()
    assert second.at - first.at >= 0.3


def test_500_is_retried_then_succeeds(chat_server: ChatServer) -> None:
    chat_server.script.append(Reply(500, {"error": {"message": "engine crashed"}}))
    with model_for(chat_server) as model:
        [result] = model.generate([ask("hi")])
    assert result.text == "answer 0 seed=None to: hi"
    assert len(chat_server.chat_calls()) == 2


def test_persistent_5xx_gives_up_after_the_retry_budget(chat_server: ChatServer) -> None:
    chat_server.script.extend(Reply(503, {"error": {"message": "overloaded"}}) for _ in range(3))
    with model_for(chat_server) as model, pytest.raises(BackendUnavailableError) as info:
        model.generate([ask("hi")])
    assert "gave up after 3 attempts" in str(info.value) and "HTTP 503: overloaded" in str(info.value)
    assert len(chat_server.chat_calls()) == 3


def test_retry_after_longer_than_the_cap_fails_fast(chat_server: ChatServer) -> None:
    chat_server.script.append(Reply(429, {"error": {"message": "quota"}}, {"Retry-After": "3600"}))
    retry = RetryPolicy(max_retries=3, max_retry_after_s=5)
    started = time.monotonic()
    with model_for(chat_server, retry=retry) as model, pytest.raises(BackendUnavailableError, match="3600s"):
        model.generate([ask("hi")])
    assert time.monotonic() - started < 2


def test_slow_response_times_out_and_is_retried(chat_server: ChatServer) -> None:
    chat_server.script.append(Reply(delay_s=2.0))
    with model_for(chat_server, timeout_s=0.5) as model:
        [result] = model.generate([ask("hi")])
    assert result.text == "answer 0 seed=None to: hi"
    assert len(chat_server.chat_calls()) == 2


def test_slow_server_gives_up_with_a_clear_error(chat_server: ChatServer) -> None:
    chat_server.script.extend([Reply(delay_s=1.5), Reply(delay_s=1.5)])
    retry = RetryPolicy(max_retries=1, base_delay_s=0.01)
    with (
        model_for(chat_server, timeout_s=0.5, retry=retry) as model,
        pytest.raises(BackendUnavailableError, match=r"no answer within 0.5s"),
    ):
        model.generate([ask("hi")])


def test_malformed_json_body_is_a_specific_error(chat_server: ChatServer) -> None:
    chat_server.script.append(Reply(200, '{"choices": [ {"index": 0, "mess'))
    with model_for(chat_server) as model, pytest.raises(BackendResponseError, match="body is not JSON"):
        model.generate([ask("hi")])
    assert len(chat_server.chat_calls()) == 1


def test_other_4xx_is_not_retried_and_keeps_the_server_message(chat_server: ChatServer) -> None:
    chat_server.script.append(Reply(422, {"error": {"message": "top_p must be in (0, 1]"}}))
    with model_for(chat_server) as model, pytest.raises(BadRequestError, match=r"HTTP 422: top_p must be"):
        model.generate([ask("hi")])
    assert len(chat_server.chat_calls()) == 1


def test_concurrency_is_limited(chat_server: ChatServer) -> None:
    chat_server.script.extend(Reply(delay_s=0.3) for _ in range(6))
    with model_for(chat_server, max_concurrency=2) as model:
        results = model.generate([ask(f"prompt {i}") for i in range(6)])
    assert [r.text for r in results] == [f"answer 0 seed=None to: prompt {i}" for i in range(6)]
    assert chat_server.max_in_flight == 2


def test_results_are_reported_as_they_arrive(chat_server: ChatServer) -> None:
    chat_server.script.append(Reply(delay_s=0.5, match="slow"))
    seen: list[int] = []
    with model_for(chat_server, max_concurrency=2) as model:
        model.generate([ask("slow"), ask("fast")], on_result=lambda i, r: seen.append(i))
    assert seen == [1, 0]


def test_api_key_from_environment_is_sent_and_never_shown(
    chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("REGRAPHT_TEST_KEY", "sk-very-secret")
    chat_server.script.append(Reply(500, {"error": {"message": "boom"}}))
    caplog.set_level(logging.DEBUG)
    model = open_model(f"openai:tiny-coder@{chat_server.url}?api_key_env=REGRAPHT_TEST_KEY&max_retries=1")
    with model:  # type: ignore[attr-defined]
        model.generate([ask("hi")])
        described = repr(model.describe())
    assert chat_server.chat_calls()[-1].headers["Authorization"] == "Bearer sk-very-secret"
    assert "sk-very-secret" not in caplog.text and "sk-very-secret" not in described
    assert "REGRAPHT_TEST_KEY" in described


def test_named_key_variable_must_exist(chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REGRAPHT_MISSING_KEY", raising=False)
    with pytest.raises(AuthenticationError, match="REGRAPHT_MISSING_KEY"):
        open_model(f"openai:tiny-coder@{chat_server.url}?api_key_env=REGRAPHT_MISSING_KEY")


def test_401_names_the_variable_not_the_key(chat_server: ChatServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("REGRAPHT_TEST_KEY", "sk-wrong")
    chat_server.script.append(Reply(401, {"error": {"message": "invalid api key"}}))
    model = model_for(chat_server, api_key_env="REGRAPHT_TEST_KEY")
    with model, pytest.raises(AuthenticationError) as info:
        model.generate([ask("hi")])
    assert "REGRAPHT_TEST_KEY, which is set" in str(info.value) and "sk-wrong" not in str(info.value)


def test_connection_refused_is_unavailable_after_retries() -> None:
    with ChatServer() as server:
        url = server.url
    # The server is gone: nothing listens on that loopback port any more.
    model = OpenAIChatModel("tiny-coder", url, retry=RetryPolicy(max_retries=1, base_delay_s=0.01))
    with model, pytest.raises(BackendUnavailableError, match="is it running"):
        model.generate([ask("hi")])


def test_context_length_from_models_endpoint(chat_server: ChatServer) -> None:
    with model_for(chat_server) as model:
        assert model.context_length() == 4096
        assert "max_model_len" in model.describe()["context_source"]
    with model_for(chat_server, context=1000) as model:
        assert model.context_length() == 1000  # a smaller configured value restricts


def test_context_length_from_llamacpp_props() -> None:
    with ChatServer(max_model_len=None, props_n_ctx=8192) as server, model_for(server) as model:
        assert model.context_length() == 8192
        assert "/props" in model.describe()["context_source"]


def test_context_length_falls_back_to_configured_then_errors() -> None:
    with ChatServer(max_model_len=None) as server:
        with model_for(server, context=2048) as model:
            assert model.context_length() == 2048
        with model_for(server) as model, pytest.raises(ContextLengthUnknownError, match=r"\?context=N"):
            model.context_length()


def test_token_counts_from_tokenize_endpoint_or_estimate() -> None:
    with ChatServer(tokenize=True) as server, model_for(server) as model:
        assert model.count_tokens("one two three four") == 4
        assert "vllm" in model.describe()["tokenizer"]
    with ChatServer() as server, model_for(server) as model:
        assert model.count_tokens("x" * 32) == 10  # ceil(32 / 3.2): the documented estimate
        assert "estimate" in model.describe()["tokenizer"]


def test_missing_usage_is_estimated_and_marked() -> None:
    with ChatServer(report_usage=False) as server, model_for(server) as model:
        [result] = model.generate([ask("hi")])
    assert result.usage.estimated and result.usage.completion_tokens > 0


@pytest.mark.parametrize(
    ("error", "limit", "requested"),
    [
        (  # llama.cpp server
            {
                "code": 400,
                "message": "the request exceeds the available context size, try increasing it",
                "type": "exceed_context_size_error",
                "n_prompt_tokens": 5000,
                "n_ctx": 4096,
            },
            4096,
            5000,
        ),
        (  # SGLang
            {
                "message": "The input (5000 tokens) is longer than the model's context length (4096 tokens).",
                "code": 400,
            },
            4096,
            5000,
        ),
        (  # newer vLLM
            {
                "message": "'max_tokens' or 'max_completion_tokens' is too large: 1000. This model's maximum context "
                "length is 4096 tokens and your request has 3500 input tokens (1000 > 4096 - 3500).",
                "type": "BadRequestError",
                "code": 400,
            },
            4096,
            3500,
        ),
        (  # OpenAI
            {
                "message": "This model's maximum context length is 8192 tokens. However, your messages resulted in "
                "9000 tokens. Please reduce the length of the messages.",
                "type": "invalid_request_error",
                "code": "context_length_exceeded",
            },
            8192,
            9000,
        ),
    ],
)
def test_context_errors_of_other_servers_are_recognised(
    chat_server: ChatServer, error: dict, limit: int, requested: int
) -> None:
    chat_server.script.append(Reply(400, {"error": error}))
    with model_for(chat_server) as model, pytest.raises(ContextLengthExceededError) as info:
        model.generate([ask("hi")])
    assert (info.value.limit, info.value.requested) == (limit, requested)
    assert len(chat_server.chat_calls()) == 1
