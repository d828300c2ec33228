"""The call cache: every sample a model produced, kept in the run store, so an interrupted run resumes
without asking again and a finished run replays bit for bit with no model at all.

A sample's key is the SHA-256 of (backend identity, messages, sampling params, template id and
version, sample index). `n` is not part of it: asking for n=8 after n=4 reuses the first four and
generates only the other four. When the missing samples start at index k > 0 and the request is
seeded, the model is asked with seed + k, so a seeded backend does not hand back copies of samples
0..k-1.

Token counts and the context length are recorded too, because strategies fit prompts with them:
a replay must fit every prompt exactly as the run did.

Usage and latency are recorded per call. A call's prompt tokens are charged to its first sample and
its completion tokens are split over its samples in proportion to their length, so the usage of any
set of samples is a sum, and a replayed result reports exactly what the original one did.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import Any

from regrapht.llm.types import ChatModel, ChatRequest, ChatResult, ResultCallback, Usage
from regrapht.store import RunStore, Schema

KEY_VERSION = 1

LLM_SCHEMA = Schema(
    "llm",
    (
        """
        CREATE TABLE llm_calls (
            id INTEGER PRIMARY KEY,
            identity TEXT NOT NULL,
            request_key TEXT NOT NULL,
            messages_json TEXT NOT NULL,
            params_json TEXT NOT NULL,
            template TEXT,
            first_sample INTEGER NOT NULL,
            n INTEGER NOT NULL,
            prompt_tokens INTEGER NOT NULL,
            completion_tokens INTEGER NOT NULL,
            usage_estimated INTEGER NOT NULL,
            latency_s REAL NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE INDEX llm_calls_identity ON llm_calls(identity);
        CREATE TABLE llm_samples (
            key TEXT PRIMARY KEY,
            request_key TEXT NOT NULL,
            sample_index INTEGER NOT NULL,
            call_id INTEGER NOT NULL REFERENCES llm_calls(id),
            text TEXT NOT NULL,
            finish_reason TEXT NOT NULL,
            prompt_tokens INTEGER NOT NULL,
            completion_tokens INTEGER NOT NULL
        );
        CREATE INDEX llm_samples_request ON llm_samples(request_key, sample_index);
        CREATE TABLE llm_token_counts (
            identity TEXT NOT NULL,
            text_sha256 TEXT NOT NULL,
            tokens INTEGER NOT NULL,
            PRIMARY KEY (identity, text_sha256)
        );
        CREATE TABLE llm_model_facts (
            identity TEXT NOT NULL,
            fact TEXT NOT NULL,
            value TEXT NOT NULL,
            PRIMARY KEY (identity, fact)
        );
        """,
    ),
)


def _canonical(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def request_key(identity: str, request: ChatRequest) -> str:
    """Hash of everything that determines the distribution a sample is drawn from."""
    payload = {
        "v": KEY_VERSION,
        "identity": identity,
        "messages": [dict(m) for m in request.messages],
        "params": request.params.to_dict(),
        "template": request.template,
    }
    return hashlib.sha256(_canonical(payload).encode()).hexdigest()


def sample_key(identity: str, request: ChatRequest, index: int) -> str:
    return hashlib.sha256(f"{request_key(identity, request)}:{index}".encode()).hexdigest()


def _text_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def _split(total: int, weights: Sequence[int]) -> list[int]:
    """Split `total` into integer parts proportional to `weights` (largest remainder, exact sum)."""
    if not weights:
        return []
    w = [max(1, x) for x in weights]
    s = sum(w)
    raw = [total * x / s for x in w]
    parts = [int(r) for r in raw]
    for i in sorted(range(len(w)), key=lambda i: raw[i] - parts[i], reverse=True)[: total - sum(parts)]:
        parts[i] += 1
    return parts


@dataclass(frozen=True)
class StoredSample:
    text: str
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    usage_estimated: bool
    call_id: int
    call_latency_s: float


def assemble(samples: Sequence[StoredSample], cached: int) -> ChatResult:
    """A ChatResult from stored samples in index order: usage is their sum, latency the sum over
    the distinct calls that made them."""
    usage = Usage()
    latency: dict[int, float] = {}
    for s in samples:
        usage = usage + Usage(s.prompt_tokens, s.completion_tokens, s.usage_estimated)
        latency[s.call_id] = s.call_latency_s
    return ChatResult(
        tuple(s.text for s in samples),
        tuple(s.finish_reason for s in samples),
        usage,
        sum(latency.values()),
        cached,
    )


class CallCache:
    """Reads and writes samples in a run store."""

    def __init__(self, store: RunStore) -> None:
        self.store = store
        store.apply(LLM_SCHEMA)

    def lookup(self, identity: str, request: ChatRequest) -> dict[int, StoredSample]:
        """Stored samples 0..n-1 of `request`, by index (missing indices are absent)."""
        rkey = request_key(identity, request)
        rows = self.store.query(
            "SELECT s.sample_index, s.text, s.finish_reason, s.prompt_tokens, s.completion_tokens, "
            "c.usage_estimated, c.id AS call_id, c.latency_s FROM llm_samples s "
            "JOIN llm_calls c ON c.id = s.call_id WHERE s.request_key = ? AND s.sample_index < ?",
            (rkey, request.n),
        )
        return {
            int(r["sample_index"]): StoredSample(
                r["text"],
                r["finish_reason"],
                int(r["prompt_tokens"]),
                int(r["completion_tokens"]),
                bool(r["usage_estimated"]),
                int(r["call_id"]),
                float(r["latency_s"]),
            )
            for r in rows
        }

    def record(
        self, identity: str, request: ChatRequest, indices: Sequence[int], result: ChatResult
    ) -> dict[int, StoredSample]:
        """Store one call's samples (made for sample `indices` of `request`) in one transaction."""
        if len(indices) != len(result.samples):
            raise ValueError(f"{len(indices)} sample indices for {len(result.samples)} samples")
        rkey = request_key(identity, request)
        completion = _split(result.usage.completion_tokens, [len(t) for t in result.samples])
        stored: dict[int, StoredSample] = {}
        with self.store.transaction() as conn:
            cur = conn.execute(
                "INSERT INTO llm_calls(identity, request_key, messages_json, params_json, template, "
                "first_sample, n, prompt_tokens, completion_tokens, usage_estimated, latency_s, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    identity,
                    rkey,
                    _canonical([dict(m) for m in request.messages]),
                    _canonical(request.params.to_dict()),
                    request.template,
                    min(indices) if indices else 0,
                    len(indices),
                    result.usage.prompt_tokens,
                    result.usage.completion_tokens,
                    int(result.usage.estimated),
                    result.latency_s,
                    datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
                ),
            )
            call_id = int(cur.lastrowid or 0)
            for j, index in enumerate(indices):
                prompt = result.usage.prompt_tokens if j == 0 else 0
                conn.execute(
                    "INSERT OR REPLACE INTO llm_samples(key, request_key, sample_index, call_id, text, "
                    "finish_reason, prompt_tokens, completion_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        sample_key(identity, request, index),
                        rkey,
                        index,
                        call_id,
                        result.samples[j],
                        result.finish_reasons[j],
                        prompt,
                        completion[j],
                    ),
                )
                stored[index] = StoredSample(
                    result.samples[j],
                    result.finish_reasons[j],
                    prompt,
                    completion[j],
                    result.usage.estimated,
                    call_id,
                    result.latency_s,
                )
        return stored

    def token_count(self, identity: str, text: str) -> int | None:
        row = self.store.query_one(
            "SELECT tokens FROM llm_token_counts WHERE identity = ? AND text_sha256 = ?",
            (identity, _text_hash(text)),
        )
        return None if row is None else int(row["tokens"])

    def record_token_count(self, identity: str, text: str, tokens: int) -> None:
        self.store.execute(
            "INSERT OR REPLACE INTO llm_token_counts(identity, text_sha256, tokens) VALUES (?, ?, ?)",
            (identity, _text_hash(text), tokens),
        )

    def fact(self, identity: str, fact: str) -> str | None:
        row = self.store.query_one(
            "SELECT value FROM llm_model_facts WHERE identity = ? AND fact = ?", (identity, fact)
        )
        return None if row is None else str(row["value"])

    def record_fact(self, identity: str, fact: str, value: str) -> None:
        self.store.execute(
            "INSERT OR REPLACE INTO llm_model_facts(identity, fact, value) VALUES (?, ?, ?)",
            (identity, fact, value),
        )

    def identities(self) -> list[str]:
        return [r["identity"] for r in self.store.query("SELECT DISTINCT identity FROM llm_calls ORDER BY 1")]


class CachedChatModel:
    """Wraps a ChatModel with the call cache of a run store: asks the model only for samples the store
    does not have and writes each call's samples as soon as it returns."""

    def __init__(self, model: ChatModel, store: RunStore) -> None:
        self.model = model
        self.cache = CallCache(store)
        self.identity = model.identity
        self.calls_made = 0  # requests forwarded to the model
        self.samples_reused = 0

    def generate(
        self, requests: Sequence[ChatRequest], on_result: ResultCallback | None = None
    ) -> list[ChatResult]:
        results: list[ChatResult | None] = [None] * len(requests)
        # Identical requests in one batch are asked once (for the largest n) and share samples;
        # asking twice would store two answers under the same keys.
        groups: dict[str, list[int]] = {}
        for i, request in enumerate(requests):
            groups.setdefault(request_key(self.identity, request), []).append(i)

        forwarded: list[ChatRequest] = []
        origin: list[tuple[list[int], list[int], dict[int, StoredSample]]] = []

        def finish(members: list[int], stored: dict[int, StoredSample], fresh: set[int]) -> None:
            for i in members:
                n = requests[i].n
                cached = sum(1 for k in range(n) if k not in fresh)
                results[i] = assemble([stored[k] for k in range(n)], cached=cached)
                if on_result is not None:
                    on_result(i, results[i])  # type: ignore[arg-type]

        for members in groups.values():
            widest = max(requests[i].n for i in members)
            request = replace(requests[members[0]], n=widest)
            stored = self.cache.lookup(self.identity, request)
            missing = [k for k in range(widest) if k not in stored]
            self.samples_reused += widest - len(missing)
            if not missing:
                finish(members, stored, set())
                continue
            params = request.params
            if params.seed is not None and missing[0] > 0:
                params = replace(params, seed=params.seed + missing[0])
            forwarded.append(replace(request, params=params, n=len(missing)))
            origin.append((members, missing, stored))

        done: set[int] = set()

        def arrived(j: int, fresh: ChatResult) -> None:
            members, missing, stored = origin[j]
            request = requests[members[0]]
            stored.update(self.cache.record(self.identity, request, missing, fresh))
            done.add(j)
            finish(members, stored, set(missing))

        if forwarded:
            self.calls_made += len(forwarded)
            fresh_results = self.model.generate(forwarded, on_result=arrived)
            # A backend that does not call on_result still gets its results stored.
            for j, fresh in enumerate(fresh_results):
                if j not in done:
                    arrived(j, fresh)
        return [r for r in results if r is not None]

    def context_length(self) -> int:
        tokens = self.model.context_length()
        self.cache.record_fact(self.identity, "context_length", str(tokens))
        return tokens

    def count_tokens(self, text: str) -> int:
        tokens = self.cache.token_count(self.identity, text)
        if tokens is None:
            tokens = self.model.count_tokens(text)
            self.cache.record_token_count(self.identity, text, tokens)
        return tokens

    def describe(self) -> dict[str, Any]:
        return {**self.model.describe(), "cache": str(self.cache.store.path)}

    def close(self) -> None:
        self.model.close()
