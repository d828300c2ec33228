"""Questions we can ask an OpenAI-compatible server besides chat: which models it serves, how long its
context is, and how it tokenizes. Each server family answers in its own place, so each probe tries
the known places in turn and returns None when none answers; nothing here raises on a miss.

    vLLM, SGLang   GET  {base}/models -> data[].max_model_len; POST {root}/tokenize {model, prompt}
    llama.cpp      GET  {root}/props -> default_generation_settings.n_ctx; POST {root}/tokenize {content}
    LM Studio      GET  {root}/api/v0/models/{model} -> loaded_context_length, max_context_length
    Ollama         POST {root}/api/show {model} -> parameters "num_ctx N", model_info "<arch>.context_length"

`root` is the base URL without its trailing /v1.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

import httpx

log = logging.getLogger(__name__)

# Short: a probe that hangs must not delay the real work for long.
PROBE_TIMEOUT_S = 10.0

# Keys under which servers list a model's context length in their /models entries, most
# authoritative first (a loaded length is what the server will actually enforce).
_CONTEXT_KEYS = (
    "max_model_len",
    "loaded_context_length",
    "context_length",
    "context_window",
    "max_context_length",
)


def server_root(base_url: str) -> str:
    base = base_url.rstrip("/")
    return base[: -len("/v1")] if base.endswith("/v1") else base


def _json(client: httpx.Client, method: str, url: str, **kwargs: Any) -> Any | None:
    try:
        resp = client.request(method, url, timeout=PROBE_TIMEOUT_S, **kwargs)
    except httpx.HTTPError as e:
        log.debug("probe %s %s failed: %s", method, url, e)
        return None
    if resp.status_code != 200:
        log.debug("probe %s %s answered HTTP %s", method, url, resp.status_code)
        return None
    try:
        return resp.json()
    except ValueError:
        return None


def _positive_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int) and value > 0:
        return value
    if isinstance(value, str) and value.strip().isdigit() and int(value) > 0:
        return int(value)
    return None


def list_models(client: httpx.Client, base_url: str) -> list[dict[str, Any]] | None:
    """The entries of GET {base}/models, or None when the server does not answer that."""
    data = _json(client, "GET", f"{base_url.rstrip('/')}/models")
    if isinstance(data, dict) and isinstance(data.get("data"), list):
        return [m for m in data["data"] if isinstance(m, dict)]
    if isinstance(data, dict) and isinstance(data.get("models"), list):  # some proxies
        return [m for m in data["models"] if isinstance(m, dict)]
    return None


def model_ids(entries: list[dict[str, Any]]) -> list[str]:
    return [str(m.get("id") or m.get("name")) for m in entries if m.get("id") or m.get("name")]


@dataclass(frozen=True)
class ContextProbe:
    tokens: int
    source: str


def probe_context_length(client: httpx.Client, base_url: str, model: str) -> ContextProbe | None:
    base = base_url.rstrip("/")
    root = server_root(base)

    entries = list_models(client, base)
    if entries:
        for entry in entries:
            if entry.get("id") == model or entry.get("name") == model:
                for key in _CONTEXT_KEYS:
                    value = _positive_int(entry.get(key))
                    if value:
                        return ContextProbe(value, f"GET {base}/models ({key})")

    props = _json(client, "GET", f"{root}/props")
    if isinstance(props, dict):
        settings = props.get("default_generation_settings")
        value = _positive_int(settings.get("n_ctx")) if isinstance(settings, dict) else None
        value = value or _positive_int(props.get("n_ctx"))
        if value:
            return ContextProbe(value, f"GET {root}/props (n_ctx)")

    lmstudio = _json(client, "GET", f"{root}/api/v0/models/{model}")
    if isinstance(lmstudio, dict):
        for key in ("loaded_context_length", "max_context_length"):
            value = _positive_int(lmstudio.get(key))
            if value:
                return ContextProbe(value, f"GET {root}/api/v0/models/{model} ({key})")

    show = _json(client, "POST", f"{root}/api/show", json={"model": model, "name": model})  # old + new
    if isinstance(show, dict):
        # num_ctx is what Ollama runs with; the trained length only bounds it.
        params = show.get("parameters")
        if isinstance(params, str):
            m = re.search(r"^\s*num_ctx\s+(\d+)", params, re.MULTILINE)
            if m:
                return ContextProbe(int(m.group(1)), f"POST {root}/api/show (num_ctx)")
        info = show.get("model_info")
        if isinstance(info, dict):
            for key, value in info.items():
                if key.endswith(".context_length") and _positive_int(value):
                    return ContextProbe(int(value), f"POST {root}/api/show ({key})")
    return None


def probe_tokenizer(client: httpx.Client, base_url: str, model: str) -> str | None:
    """Which /tokenize dialect the server speaks: "vllm" ({model, prompt} -> count/tokens, also
    SGLang), "llamacpp" ({content} -> tokens), or None."""
    for dialect in ("vllm", "llamacpp"):
        count = remote_token_count(client, base_url, model, dialect, "hello world")
        if count:  # zero tokens for "hello world" means the server ignored our fields
            return dialect
    return None


def remote_token_count(
    client: httpx.Client, base_url: str, model: str, dialect: str, text: str
) -> int | None:
    url = f"{server_root(base_url)}/tokenize"
    body: dict[str, Any]
    if dialect == "vllm":
        body = {"model": model, "prompt": text, "add_special_tokens": False}
    else:
        body = {"content": text, "add_special": False}
    data = _json(client, "POST", url, json=body)
    if not isinstance(data, dict):
        return None
    if dialect == "vllm" and isinstance(data.get("count"), int):
        return int(data["count"])
    tokens = data.get("tokens")
    return len(tokens) if isinstance(tokens, list) else None
