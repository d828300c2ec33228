"""`replay:STORE.sqlite`: a model that answers only from the call cache of a finished run.

Replaying a run gives the same samples, usage and latency the run recorded, with no model, server
or GPU. Anything the run never asked is an error that names the prompt and the cache key: replay
never invents an answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from regrapht.llm.cache import CallCache, assemble, sample_key
from regrapht.llm.errors import ContextLengthUnknownError, ModelSpecError, ReplayMissError
from regrapht.llm.types import ChatRequest, ChatResult, ResultCallback
from regrapht.store import RunStore


def _prompt_excerpt(request: ChatRequest, lines: int = 3, width: int = 160) -> str:
    text = request.last_user_message().strip().splitlines()[:lines]
    return "\n".join("    " + line[:width] for line in text) or "    (empty)"


class ReplayChatModel:
    """Answers from a run store's call cache. `identity` is the model whose calls to replay; with
    None it is taken from the store when the store holds calls of exactly one model."""

    def __init__(self, store_path: str | Path, identity: str | None = None) -> None:
        path = Path(store_path)
        if not path.is_file():
            raise ModelSpecError(f"replay: no run store at {path}")
        self.store = RunStore(path)
        self.cache = CallCache(self.store)
        known = self.cache.identities()
        if identity is None:
            if not known:
                self.store.close()
                raise ModelSpecError(f"replay: the run store {path} holds no model calls")
            if len(known) > 1:
                self.store.close()
                raise ModelSpecError(
                    f"replay: the run store {path} holds calls of several models: {', '.join(known)}. "
                    f"Pick one with ?model=..., e.g. replay:{path}?model={known[0]}"
                )
            identity = known[0]
        elif identity not in known:
            self.store.close()
            raise ModelSpecError(
                f"replay: the run store {path} has no calls of {identity!r}; "
                f"it has: {', '.join(known) or 'none'}"
            )
        self.identity = identity
        self.path = path

    def generate(
        self, requests: Sequence[ChatRequest], on_result: ResultCallback | None = None
    ) -> list[ChatResult]:
        results: list[ChatResult] = []
        for i, request in enumerate(requests):
            stored = self.cache.lookup(self.identity, request)
            for k in range(request.n):
                if k not in stored:
                    key = sample_key(self.identity, request, k)
                    raise ReplayMissError(
                        f"replay miss: {self.path} has no sample {k} (of n={request.n}) for this request "
                        f"to {self.identity} (template {request.template or 'none'}, key {key}). "
                        f"The last user message begins:\n{_prompt_excerpt(request)}",
                        key,
                    )
            result = assemble([stored[k] for k in range(request.n)], cached=request.n)
            results.append(result)
            if on_result is not None:
                on_result(i, result)
        return results

    def context_length(self) -> int:
        value = self.cache.fact(self.identity, "context_length")
        if value is None:
            raise ContextLengthUnknownError(
                f"replay: the run recorded in {self.path} never asked {self.identity} for its context length"
            )
        return int(value)

    def count_tokens(self, text: str) -> int:
        # The run's counts are replayed so that prompts are fitted to the context exactly as they were.
        tokens = self.cache.token_count(self.identity, text)
        if tokens is None:
            first = text.strip().splitlines()[0][:160] if text.strip() else "(empty)"
            raise ReplayMissError(
                f"replay miss: the run recorded in {self.path} never counted the tokens of this text "
                f"({len(text)} characters, beginning {first!r})",
                key="token_count",
            )
        return tokens

    def describe(self) -> dict[str, Any]:
        calls = self.store.query_one(
            "SELECT COUNT(*) AS n FROM llm_calls WHERE identity = ?", (self.identity,)
        )
        return {
            "backend": "replay",
            "identity": self.identity,
            "store": str(self.path),
            "recorded_calls": int(calls["n"]) if calls else 0,
            "tokenizer": "token counts recorded by the run",
        }

    def close(self) -> None:
        self.store.close()
