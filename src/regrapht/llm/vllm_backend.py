"""`vllm:PATH`: vLLM in this process, for throughput. Many prompts go to the engine at once, each
with its own SamplingParams(n=..., seed=...), through `vllm.LLM.chat`, which applies the model's
chat template. vLLM returns a batch only when all of it is done, so large batches are cut into
chunks of `batch_requests` requests: an interruption loses at most one chunk.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from regrapht.llm.errors import (
    ContextLengthExceededError,
    ContextLengthUnknownError,
    MissingDependencyError,
    ModelSpecError,
)
from regrapht.llm.types import ChatRequest, ChatResult, ResultCallback, Usage


def sampling_kwargs(request: ChatRequest) -> dict[str, Any]:
    """Keyword arguments for vllm.SamplingParams that ask for `request`'s samples."""
    p = request.params
    return {
        "n": request.n,
        "temperature": p.temperature,
        "top_p": p.top_p,
        "max_tokens": p.max_tokens,
        "stop": list(p.stop) or None,
        "seed": p.seed,
    }


class VLLMChatModel:
    def __init__(
        self,
        path: str | Path,
        *,
        tensor_parallel_size: int = 1,
        gpu_memory_utilization: float = 0.9,
        context: int | None = None,
        dtype: str = "auto",
        enforce_eager: bool = False,
        trust_remote_code: bool = False,
        seed: int = 0,
        batch_requests: int = 256,
    ) -> None:
        try:
            import vllm
        except ImportError as e:
            raise MissingDependencyError("vllm", "vllm", "The vllm: backend") from e
        self._vllm = vllm
        folder = Path(path).expanduser()
        if not (folder / "config.json").is_file():
            raise ModelSpecError(f"vllm: {folder} is not a model folder (no config.json)")
        self.path = folder.resolve()
        self.identity = f"vllm:{self.path}"
        self.batch_requests = batch_requests
        engine_args: dict[str, Any] = {
            "model": str(self.path),
            "tensor_parallel_size": tensor_parallel_size,
            "gpu_memory_utilization": gpu_memory_utilization,
            "dtype": dtype,
            "enforce_eager": enforce_eager,
            "trust_remote_code": trust_remote_code,
            "seed": seed,
        }
        if context is not None:
            engine_args["max_model_len"] = context
        self.engine_args = engine_args
        started = time.monotonic()
        self.llm = vllm.LLM(**engine_args)
        self.load_s = time.monotonic() - started

    def generate(
        self, requests: Sequence[ChatRequest], on_result: ResultCallback | None = None
    ) -> list[ChatResult]:
        results: list[ChatResult] = []
        for start in range(0, len(requests), self.batch_requests):
            chunk = requests[start : start + self.batch_requests]
            conversations = [[dict(m) for m in r.messages] for r in chunk]
            params = [self._vllm.SamplingParams(**sampling_kwargs(r)) for r in chunk]
            began = time.monotonic()
            try:
                outputs = self.llm.chat(conversations, sampling_params=params, use_tqdm=False)
            except ValueError as e:
                if re.search(r"maximum model length|context length|longer than", str(e), re.I):
                    raise ContextLengthExceededError(
                        f"prompt too long for {self.path.name} (context {self.context_length()}): {e}",
                        limit=self.context_length(),
                    ) from e
                raise
            spent = time.monotonic() - began
            for j, output in enumerate(outputs):
                completions = sorted(output.outputs, key=lambda o: o.index)
                result = ChatResult(
                    tuple(o.text for o in completions),
                    tuple(str(o.finish_reason or "unknown") for o in completions),
                    Usage(
                        len(output.prompt_token_ids or []),
                        sum(len(o.token_ids) for o in completions),
                    ),
                    spent,
                )
                results.append(result)
                if on_result is not None:
                    on_result(start + j, result)
        return results

    def context_length(self) -> int:
        engine = getattr(self.llm, "llm_engine", None)
        config = getattr(engine, "model_config", None) or getattr(self.llm, "model_config", None)
        value = getattr(config, "max_model_len", None)
        if not isinstance(value, int):
            raise ContextLengthUnknownError(f"vllm: could not read max_model_len for {self.path}")
        return value

    def count_tokens(self, text: str) -> int:
        return len(self.llm.get_tokenizer().encode(text, add_special_tokens=False))

    def describe(self) -> dict[str, Any]:
        return {
            "backend": "vllm",
            "identity": self.identity,
            "path": str(self.path),
            "vllm_version": getattr(self._vllm, "__version__", "unknown"),
            "engine_args": self.engine_args,
            "batch_requests": self.batch_requests,
            "load_s": round(self.load_s, 3),
            "tokenizer": "model tokenizer",
        }

    def close(self) -> None:
        self.llm = None
