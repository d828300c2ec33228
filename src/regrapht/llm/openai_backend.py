"""A chat model behind an OpenAI-compatible HTTP server (vLLM, SGLang, Ollama, llama.cpp server,
LM Studio, hosted APIs), spoken to with httpx.

Requests run concurrently on a small thread pool, each retried with backoff on 429 (honouring
Retry-After), 5xx, timeouts and dropped connections. Client errors (4xx) are not retried: they are
turned into specific errors (unknown model, prompt too long, bad key). Servers that ignore `n` are
detected and asked once per missing sample instead. There is no fallback to any other model.
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
from collections import deque
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any

import httpx

from regrapht.llm import server_probe
from regrapht.llm.budget import count_message_tokens, estimate_tokens
from regrapht.llm.errors import (
    AuthenticationError,
    BackendResponseError,
    BackendUnavailableError,
    BadRequestError,
    ContextLengthExceededError,
    ContextLengthUnknownError,
    ModelError,
    ModelNotFoundError,
)
from regrapht.llm.retry import RetryPolicy, is_retryable_status, parse_retry_after
from regrapht.llm.types import ChatRequest, ChatResult, ResultCallback, Usage

log = logging.getLogger(__name__)

_CONTEXT_HINTS = re.compile(
    r"context[ _](length|size|window)|maximum context|too many tokens|prompt is too long|"
    r"exceed_context_size|context_length_exceeded",
    re.IGNORECASE,
)
_LIMIT_PATTERNS = (
    r"maximum context length is (\d+)",
    r"context length \((\d+) tokens?\)",
    r"context (?:length|size|window) of (\d+)",
    r"n_ctx\W{0,3}(\d+)",
)
_REQUESTED_PATTERNS = (
    r"you requested (\d+) tokens",
    r"resulted in (\d+) tokens",
    r"request has (\d+) input tokens",
    r"input \((\d+) tokens?\)",
    r"n_prompt_tokens\W{0,3}(\d+)",
)
_MISSING_MODEL = re.compile(r"model.{0,80}(not found|does not exist|not exist|unknown)|no such model", re.I)


def _first_int(patterns: Sequence[str], text: str) -> int | None:
    for pattern in patterns:
        m = re.search(pattern, text, re.IGNORECASE)
        if m:
            return int(m.group(1))
    return None


def _error_payload(resp: httpx.Response) -> tuple[str, dict[str, Any]]:
    """The human message and the structured error object of an error response, whatever its shape."""
    try:
        data = resp.json()
    except ValueError:
        return resp.text.strip()[:500] or resp.reason_phrase, {}
    if isinstance(data, dict):
        err = data.get("error", data)
        if isinstance(err, dict):
            msg = err.get("message") or err.get("detail") or err.get("msg") or data.get("message")
            return str(msg if msg is not None else err)[:2000], err
        if isinstance(err, str):
            return err[:2000], data
        if "detail" in data:
            return str(data["detail"])[:2000], data
    return str(data)[:500], {}


@dataclass
class _Part:
    """One HTTP call: samples first_sample .. first_sample+n-1 of request `index`."""

    index: int
    first_sample: int
    n: int


@dataclass
class _PartResult:
    texts: list[str]
    finish_reasons: list[str]
    usage: Usage
    started: float
    ended: float


@dataclass
class _Assembly:
    """Collects the parts of one request until every sample has arrived."""

    n: int
    samples: dict[int, tuple[str, str]] = field(default_factory=dict)
    usage: Usage = field(default_factory=Usage)
    started: float = float("inf")
    ended: float = 0.0

    def add(self, first_sample: int, part: _PartResult) -> None:
        for k, (text, reason) in enumerate(zip(part.texts, part.finish_reasons, strict=True)):
            self.samples[first_sample + k] = (text, reason)
        self.usage = self.usage + part.usage
        self.started = min(self.started, part.started)
        self.ended = max(self.ended, part.ended)

    @property
    def complete(self) -> bool:
        return len(self.samples) >= self.n

    def result(self) -> ChatResult:
        ordered = [self.samples[i] for i in range(self.n)]
        return ChatResult(
            tuple(t for t, _ in ordered),
            tuple(r for _, r in ordered),
            self.usage,
            self.ended - self.started,
        )


class OpenAIChatModel:
    """Chat completions over HTTP. Thread-safe; one instance per (server, model)."""

    def __init__(
        self,
        model: str,
        base_url: str,
        *,
        api_key_env: str = "OPENAI_API_KEY",
        require_api_key: bool = False,
        max_concurrency: int = 8,
        context: int | None = None,
        timeout_s: float = 600.0,
        retry: RetryPolicy | None = None,
        native_n: str = "auto",
    ) -> None:
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.identity = f"openai:{model}"
        self.api_key_env = api_key_env
        api_key = os.environ.get(api_key_env)
        if require_api_key and not api_key:
            raise AuthenticationError(
                f"the environment variable {api_key_env} (named by api_key_env) is not set or empty"
            )
        self._has_key = bool(api_key)
        self.max_concurrency = max_concurrency
        self.configured_context = context
        self.timeout_s = timeout_s
        self.retry = retry or RetryPolicy()
        if native_n not in ("auto", "true", "false"):
            raise ValueError(f"native_n must be auto, true or false, not {native_n!r}")
        self.native_n_setting = native_n
        # None: not known yet. Learned from the first response that returns fewer choices than asked.
        self._native_n: bool | None = {"auto": None, "true": True, "false": False}[native_n]
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(
            headers=headers,
            timeout=httpx.Timeout(timeout_s, connect=min(timeout_s, 10.0)),
            limits=httpx.Limits(
                max_connections=max_concurrency + 2, max_keepalive_connections=max_concurrency
            ),
        )
        self._lock = threading.Lock()
        self._probe_lock = threading.Lock()  # probes do HTTP; keep them off the request path's lock
        self._context: server_probe.ContextProbe | None = None
        self._context_probed = False
        self._tokenize_dialect: str | None = None
        self._tokenize_probed = False

    # -- protocol -----------------------------------------------------------------------------------

    def generate(
        self, requests: Sequence[ChatRequest], on_result: ResultCallback | None = None
    ) -> list[ChatResult]:
        results: list[ChatResult | None] = [None] * len(requests)
        if not requests:
            return []
        assemblies = [_Assembly(r.n) for r in requests]
        error: BaseException | None = None
        # Calls are handed to the pool only when a worker is free, so after a failure nothing new
        # starts: what finished is kept, what never started is left for the next run.
        queue: deque[_Part] = deque()
        for i, request in enumerate(requests):
            if request.n == 1 or self._native_n is not False:
                queue.append(_Part(i, 0, request.n))
            else:
                queue.extend(_Part(i, k, 1) for k in range(request.n))
        pool = ThreadPoolExecutor(max_workers=self.max_concurrency, thread_name_prefix="regrapht-http")
        pending: dict[Future[_PartResult], _Part] = {}
        try:
            while queue or pending:
                while queue and error is None and len(pending) < self.max_concurrency:
                    part = queue.popleft()
                    pending[pool.submit(self._call, requests[part.index], part.first_sample, part.n)] = part
                if not pending:
                    break
                done, _ = wait(list(pending), return_when=FIRST_COMPLETED)
                for future in done:
                    part = pending.pop(future)
                    try:
                        got = future.result()
                    except ModelError as e:
                        error = error or e
                        continue
                    assembly = assemblies[part.index]
                    assembly.add(part.first_sample, got)
                    if len(got.texts) < part.n and error is None:
                        error = self._handle_short_answer(part, len(got.texts))
                        if error is None:
                            first_missing = part.first_sample + len(got.texts)
                            queue.extendleft(
                                _Part(part.index, k, 1)
                                for k in reversed(range(first_missing, part.first_sample + part.n))
                            )
                    if assembly.complete and results[part.index] is None:
                        results[part.index] = assembly.result()
                        if on_result is not None:
                            on_result(part.index, results[part.index])  # type: ignore[arg-type]
        except BaseException:
            # Interrupted (Ctrl-C) or a failing callback: do not wait for calls in flight, whose
            # answers could not be reported anyway; everything reported so far is kept by the caller.
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        if error is not None:
            raise error
        return [r for r in results if r is not None]

    def _handle_short_answer(self, part: _Part, got: int) -> ModelError | None:
        if got == 0:
            return BackendResponseError(f"{self.base_url}: the server answered with no choices")
        if self._native_n is True:
            return BackendResponseError(
                f"{self.base_url}: asked for n={part.n} samples but got {got}; the spec says native_n=true, "
                "so regrapht does not make up the difference. Use native_n=auto or false."
            )
        with self._lock:
            if self._native_n is None:
                log.info(
                    "%s ignores n>1 (asked %d, got %d): asking once per sample from now on",
                    self.base_url,
                    part.n,
                    got,
                )
            self._native_n = False
        return None

    def context_length(self) -> int:
        probe = self._probe_context()
        if probe is not None:
            if self.configured_context is not None and self.configured_context < probe.tokens:
                return self.configured_context
            if self.configured_context is not None and self.configured_context > probe.tokens:
                log.warning(
                    "configured context=%d is more than the server's %d (%s); using the server's",
                    self.configured_context,
                    probe.tokens,
                    probe.source,
                )
            return probe.tokens
        if self.configured_context is not None:
            return self.configured_context
        raise ContextLengthUnknownError(
            f"the server at {self.base_url} does not report the context length of {self.model!r} "
            "(tried /models, /props, /api/v0/models, /api/show); add ?context=N to the model spec"
        )

    def count_tokens(self, text: str) -> int:
        dialect = self._probe_tokenizer()
        if dialect is not None:
            count = server_probe.remote_token_count(self._client, self.base_url, self.model, dialect, text)
            if count is not None:
                return count
        return estimate_tokens(text)

    def describe(self) -> dict[str, Any]:
        probe = self._probe_context()
        return {
            "backend": "openai",
            "identity": self.identity,
            "model": self.model,
            "base_url": self.base_url,
            "api_key_env": self.api_key_env,
            "api_key_set": self._has_key,
            "max_concurrency": self.max_concurrency,
            "context_source": probe.source if probe else ("configured" if self.configured_context else None),
            "tokenizer": f"server /tokenize ({self._probe_tokenizer()})"
            if self._probe_tokenizer()
            else "estimate (chars/3.2)",
            "native_n": {None: "unknown yet", True: "yes", False: "no"}[self._native_n],
        }

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> OpenAIChatModel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- server facts -------------------------------------------------------------------------------

    def list_models(self) -> list[str] | None:
        entries = server_probe.list_models(self._client, self.base_url)
        return None if entries is None else server_probe.model_ids(entries)

    def _probe_context(self) -> server_probe.ContextProbe | None:
        with self._probe_lock:
            if not self._context_probed:
                self._context = server_probe.probe_context_length(self._client, self.base_url, self.model)
                self._context_probed = True
            return self._context

    def _probe_tokenizer(self) -> str | None:
        with self._probe_lock:
            if not self._tokenize_probed:
                self._tokenize_dialect = server_probe.probe_tokenizer(self._client, self.base_url, self.model)
                self._tokenize_probed = True
            return self._tokenize_dialect

    # -- one HTTP call --------------------------------------------------------------------------------

    def _body(self, request: ChatRequest, first_sample: int, n: int) -> dict[str, Any]:
        p = request.params
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [dict(m) for m in request.messages],
            "max_tokens": p.max_tokens,
            "temperature": p.temperature,
            "top_p": p.top_p,
        }
        if n > 1:
            body["n"] = n
        if p.stop:
            body["stop"] = list(p.stop)
        if p.seed is not None:
            # Samples asked for one by one need distinct seeds, or a seeded server repeats itself.
            body["seed"] = p.seed + first_sample
        return body

    def _call(self, request: ChatRequest, first_sample: int, n: int) -> _PartResult:
        url = f"{self.base_url}/chat/completions"
        body = self._body(request, first_sample, n)
        retry_index = 0
        while True:
            started = time.monotonic()
            retry_after: float | None = None
            try:
                resp = self._client.post(url, json=body)
            except httpx.TimeoutException:
                failure = f"no answer within {self.timeout_s:g}s"
            except httpx.TransportError as e:
                failure = f"could not talk to the server ({type(e).__name__}: {e}); is it running?"
            else:
                if resp.status_code == 200:
                    return self._parse(resp, request, n, started)
                if not is_retryable_status(resp.status_code):
                    raise self._client_error(resp, request, url)
                message, _ = _error_payload(resp)
                failure = f"HTTP {resp.status_code}: {message}"
                retry_after = parse_retry_after(resp.headers.get("retry-after"))
            if retry_index >= self.retry.max_retries:
                raise BackendUnavailableError(
                    f"{url}: gave up after {retry_index + 1} attempts; last failure: {failure}"
                )
            if retry_after is not None and retry_after > self.retry.max_retry_after_s:
                raise BackendUnavailableError(
                    f"{url}: the server asked to wait {retry_after:.0f}s before retrying (Retry-After), "
                    f"longer than the {self.retry.max_retry_after_s:.0f}s regrapht waits; "
                    f"last failure: {failure}"
                )
            delay = self.retry.delay(retry_index, retry_after)
            log.warning(
                "%s: %s; retry %d/%d in %.2fs", url, failure, retry_index + 1, self.retry.max_retries, delay
            )
            time.sleep(delay)
            retry_index += 1

    def _parse(self, resp: httpx.Response, request: ChatRequest, n: int, started: float) -> _PartResult:
        ended = time.monotonic()
        try:
            data = resp.json()
        except ValueError:
            snippet = resp.text[:200].replace("\n", "\\n")
            raise BackendResponseError(
                f"{self.base_url}: the server answered HTTP 200 but the body is not JSON: {snippet!r}"
            ) from None
        if not isinstance(data, dict):
            raise BackendResponseError(f"{self.base_url}: expected a JSON object, got {type(data).__name__}")
        if "error" in data and "choices" not in data:
            message, _ = _error_payload(resp)
            raise BackendResponseError(
                f"{self.base_url}: the server answered HTTP 200 with an error: {message}"
            )
        choices = data.get("choices")
        if not isinstance(choices, list):
            raise BackendResponseError(
                f"{self.base_url}: the response has no 'choices' list (keys: {sorted(data)})"
            )
        ordered = sorted(
            (c for c in choices if isinstance(c, dict)),
            key=lambda c: c.get("index", 0) if isinstance(c.get("index"), int) else 0,
        )[:n]
        texts: list[str] = []
        reasons: list[str] = []
        for choice in ordered:
            message = choice.get("message")
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, list):  # content parts, as some servers send
                content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
            if content is None:
                content = ""
            if not isinstance(content, str):
                raise BackendResponseError(
                    f"{self.base_url}: choice content is {type(content).__name__}, not text"
                )
            texts.append(content)
            reasons.append(str(choice.get("finish_reason") or "unknown"))
        usage_data = data.get("usage")
        if (
            isinstance(usage_data, dict)
            and isinstance(usage_data.get("prompt_tokens"), int)
            and isinstance(usage_data.get("completion_tokens"), int)
        ):
            usage = Usage(usage_data["prompt_tokens"], usage_data["completion_tokens"])
        else:
            usage = Usage(
                count_message_tokens(request.messages, estimate_tokens),
                sum(estimate_tokens(t) for t in texts),
                estimated=True,
            )
        return _PartResult(texts, reasons, usage, started, ended)

    def _client_error(self, resp: httpx.Response, request: ChatRequest, url: str) -> ModelError:
        status = resp.status_code
        message, err = _error_payload(resp)
        if status in (401, 403):
            state = "is set" if self._has_key else "is not set"
            return AuthenticationError(
                f"{url}: HTTP {status}, the server refused the request: {message}. The API key is read "
                f"from the environment variable {self.api_key_env}, which {state}."
            )
        context_error = self._context_error(status, message, err, request)
        if context_error is not None:
            return context_error
        if status == 404 or _MISSING_MODEL.search(message):
            available = self.list_models()
            if available is not None and self.model not in available:
                listing = ", ".join(available) if available else "(none)"
                suggestion = f" Use e.g. openai:{available[0]}@{self.base_url}" if available else ""
                return ModelNotFoundError(
                    f"the server at {self.base_url} does not serve model {self.model!r}. "
                    f"It serves: {listing}.{suggestion}",
                    available,
                )
            if available is None:
                return ModelNotFoundError(
                    f"{url}: HTTP {status}: {message}. Either the model name {self.model!r} is wrong or the "
                    f"base URL is (it usually ends in /v1); the server did not list its models at "
                    f"{self.base_url}/models."
                )
            if status == 404:
                return BadRequestError(
                    f"{url}: HTTP 404 although the server lists model {self.model!r}: {message}. "
                    "Check the base URL (it usually ends in /v1).",
                    status,
                )
        return BadRequestError(f"{url}: HTTP {status}: {message}", status)

    def _context_error(
        self, status: int, message: str, err: dict[str, Any], request: ChatRequest
    ) -> ContextLengthExceededError | None:
        kind = f"{err.get('type', '')} {err.get('code', '')}"
        if status not in (400, 413, 422) or not (
            _CONTEXT_HINTS.search(message) or _CONTEXT_HINTS.search(kind)
        ):
            return None
        limit = server_probe._positive_int(err.get("n_ctx")) or _first_int(_LIMIT_PATTERNS, message)
        requested = server_probe._positive_int(err.get("n_prompt_tokens")) or _first_int(
            _REQUESTED_PATTERNS, message
        )
        max_tokens = request.params.max_tokens
        prompt_estimate = count_message_tokens(request.messages, self.count_tokens)
        numbers = [
            f"the model's context holds {limit} tokens" if limit else "the model's context is too small",
            f"the server counted {requested} tokens for this request" if requested else None,
            f"the prompt is about {prompt_estimate} tokens and max_tokens is {max_tokens}",
        ]
        return ContextLengthExceededError(
            f"prompt too long for {self.model!r} at {self.base_url}: "
            + "; ".join(x for x in numbers if x)
            + f". Shorten the prompt (fewer examples) or lower max_tokens. Server said: {message}",
            limit=limit,
            requested=requested,
        )
