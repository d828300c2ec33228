"""The model spec string: what parses, and the error for each way of getting it wrong."""

from __future__ import annotations

import pytest

from regrapht.llm import ModelSpecError, parse_model_spec, spec_help


def test_openai_spec_with_options() -> None:
    spec = parse_model_spec(
        "openai:qwen2.5-coder-7b@http://localhost:8000/v1/?api_key_env=MY_KEY&max_concurrency=4&context=32768"
    )
    assert (spec.kind, spec.target, spec.url) == ("openai", "qwen2.5-coder-7b", "http://localhost:8000/v1")
    assert spec.options["api_key_env"] == "MY_KEY"
    assert spec.options["max_concurrency"] == 4 and spec.options["context"] == 32768
    assert spec.options["timeout"] == 600.0  # default
    assert spec.given == {"api_key_env", "max_concurrency", "context"}


def test_model_names_with_slashes_colons_and_at_signs() -> None:
    spec = parse_model_spec("openai:Qwen/Qwen2.5-Coder-7B-Instruct@https://api.example.com/v1")
    assert spec.target == "Qwen/Qwen2.5-Coder-7B-Instruct" and spec.url == "https://api.example.com/v1"
    assert parse_model_spec("openai:qwen2.5-coder:7b@http://127.0.0.1:11434/v1").target == "qwen2.5-coder:7b"
    assert parse_model_spec("openai:team@model@http://h:1/v1").target == "team@model"


def test_local_paths_and_replay() -> None:
    hf = parse_model_spec("hf:~/models/tiny?device=cpu&batch_size=2&dtype=bfloat16")
    assert hf.kind == "hf" and not hf.target.startswith("~") and hf.target.endswith("/models/tiny")
    assert hf.options == {
        "device": "cpu",
        "dtype": "bfloat16",
        "batch_size": 2,
        "context": None,
        "trust_remote_code": False,
    }
    vllm = parse_model_spec("vllm:/m/q?tensor_parallel_size=2&enforce_eager=yes&gpu_memory_utilization=0.5")
    assert vllm.options["tensor_parallel_size"] == 2 and vllm.options["enforce_eager"] is True
    replay = parse_model_spec("replay:runs/a.sqlite?model=openai:m")
    assert (replay.target, replay.options["model"]) == ("runs/a.sqlite", "openai:m")


@pytest.mark.parametrize(
    ("spec", "fragments"),
    [
        ("", ["it is empty"]),
        ("qwen2.5-coder", ["no backend prefix", "openai:qwen2.5-coder@http://localhost:8000/v1"]),
        ("http://localhost:8000/v1", ["it is a URL", "openai:MODEL@http://localhost:8000/v1"]),
        ("opena:m@http://h/v1", ["unknown backend 'opena'", "Did you mean 'openai'?"]),
        ("openai:qwen", ["needs the server's base URL after '@'", "openai:qwen@http://localhost:8000/v1"]),
        ("openai:@http://h/v1", ["model name before '@' is empty"]),
        ("openai:m@localhost:8000/v1", ["is not an http(s) URL", "openai:m@http://localhost:8000/v1"]),
        ("openai:m@http:///v1", ["is not an http(s) URL"]),
        ("hf:", ["needs a path after 'hf:'"]),
        (
            "openai:m@http://h/v1?max_concurency=2",
            ["unknown option 'max_concurency'", "Did you mean 'max_concurrency'?"],
        ),
        (
            "openai:m@http://h/v1?max_concurrency=eight",
            ["'max_concurrency' must be an integer >= 1, got 'eight'"],
        ),
        ("openai:m@http://h/v1?max_concurrency=0", ["must be an integer >= 1, got '0'"]),
        ("openai:m@http://h/v1?timeout=-1", ["'timeout' must be a number of seconds > 0"]),
        ("openai:m@http://h/v1?native_n=maybe", ["'native_n' must be auto, true or false"]),
        ("openai:m@http://h/v1?context", ["option 'context' has no value"]),
        ("openai:m@http://h/v1?context=1&context=2", ["option 'context' is given twice"]),
        ("hf:/m?device=cpu&api_key_env=X", ["unknown option 'api_key_env' for hf models", "Options for hf:"]),
        ("vllm:/m?gpu_memory_utilization=1.5", ["must be a number in (0, 1]"]),
        ("hf:/m?trust_remote_code=perhaps", ["must be true or false"]),
    ],
)
def test_errors_say_what_is_wrong_and_how_to_fix_it(spec: str, fragments: list[str]) -> None:
    with pytest.raises(ModelSpecError) as info:
        parse_model_spec(spec)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, message
    assert "Model specs look like:" in message


def test_help_lists_every_backend_and_option() -> None:
    text = spec_help()
    for word in (
        "openai:MODEL@URL",
        "vllm:PATH",
        "hf:PATH",
        "replay:STORE.sqlite",
        "max_concurrency",
        "batch_size",
    ):
        assert word in text
    assert max(len(line) for line in text.splitlines()) <= 76
