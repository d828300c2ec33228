"""Open a ChatModel from a model spec string."""

from __future__ import annotations

from regrapht.llm.cache import CachedChatModel
from regrapht.llm.spec import ModelSpec, parse_model_spec
from regrapht.llm.types import ChatModel
from regrapht.store import RunStore


def open_model(spec: str | ModelSpec, *, cache: RunStore | None = None) -> ChatModel:
    """The model `spec` names, loaded or connected. With `cache`, every sample goes through the call
    cache of that run store (a replay spec reads its own store and ignores `cache`)."""
    parsed = parse_model_spec(spec) if isinstance(spec, str) else spec
    o = parsed.options
    model: ChatModel
    if parsed.kind == "openai":
        from regrapht.llm.openai_backend import OpenAIChatModel
        from regrapht.llm.retry import RetryPolicy

        assert parsed.url is not None
        model = OpenAIChatModel(
            parsed.target,
            parsed.url,
            api_key_env=o["api_key_env"],
            # A key variable named on purpose must exist; the default one is optional (local servers).
            require_api_key="api_key_env" in parsed.given,
            max_concurrency=o["max_concurrency"],
            context=o["context"],
            timeout_s=o["timeout"],
            retry=RetryPolicy(max_retries=o["max_retries"]),
            native_n=o["native_n"],
        )
    elif parsed.kind == "hf":
        from regrapht.llm.transformers_backend import TransformersChatModel

        model = TransformersChatModel(
            parsed.target,
            device=o["device"],
            dtype=o["dtype"],
            batch_size=o["batch_size"],
            context=o["context"],
            trust_remote_code=o["trust_remote_code"],
        )
    elif parsed.kind == "vllm":
        from regrapht.llm.vllm_backend import VLLMChatModel

        model = VLLMChatModel(
            parsed.target,
            tensor_parallel_size=o["tensor_parallel_size"],
            gpu_memory_utilization=o["gpu_memory_utilization"],
            context=o["context"],
            dtype=o["dtype"],
            enforce_eager=o["enforce_eager"],
            trust_remote_code=o["trust_remote_code"],
            seed=o["seed"],
            batch_requests=o["batch_requests"],
        )
    else:
        from regrapht.llm.replay_backend import ReplayChatModel

        return ReplayChatModel(parsed.target, identity=o["model"])
    return CachedChatModel(model, cache) if cache is not None else model
