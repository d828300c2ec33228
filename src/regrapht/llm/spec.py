"""The model spec string: one line that says which model to use, for the CLI and config files.

    openai:MODEL@URL[?options]     an OpenAI-compatible server (vLLM, SGLang, Ollama, llama.cpp, LM Studio,
                                    hosted APIs), e.g. openai:qwen2.5-coder-7b@http://localhost:8000/v1
    vllm:PATH[?options]            vLLM in this process (batched; needs the `vllm` extra and a GPU)
    hf:PATH[?options]              transformers in this process (needs the `hf` extra; GPU or CPU)
    replay:STORE.sqlite[?options]  answers only from the call cache of a finished run

Options follow `?` as key=value pairs joined by `&`, e.g. `?api_key_env=MY_KEY&max_concurrency=8`.
"""

from __future__ import annotations

import difflib
import os
import textwrap
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import unquote, urlsplit

from regrapht.llm.errors import ModelSpecError

Kind = Literal["openai", "vllm", "hf", "replay"]
KINDS: tuple[Kind, ...] = ("openai", "vllm", "hf", "replay")

_EXAMPLES = {
    "openai": "openai:qwen2.5-coder-7b@http://localhost:8000/v1",
    "vllm": "vllm:/models/Qwen2.5-Coder-7B-Instruct",
    "hf": "hf:/models/Qwen2.5-Coder-1.5B-Instruct?device=cuda",
    "replay": "replay:runs/run1.sqlite",
}


@dataclass(frozen=True)
class OptionSpec:
    """One `?key=value` option: how to read it, its default, and a line of help."""

    parse: Callable[[str], Any]
    default: Any
    help: str
    expects: str


def _int(minimum: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        value = int(text)
        if value < minimum:
            raise ValueError
        return value

    return parse


def _float(minimum: float, maximum: float | None = None, *, strict: bool = False) -> Callable[[str], float]:
    def parse(text: str) -> float:
        value = float(text)
        if value < minimum or (strict and value == minimum) or (maximum is not None and value > maximum):
            raise ValueError
        return value

    return parse


def _bool(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ValueError


def _choice(*choices: str) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in choices:
            raise ValueError
        return text

    return parse


def _nonempty(text: str) -> str:
    if not text:
        raise ValueError
    return text


_DTYPE = _choice("auto", "float32", "float16", "bfloat16")

OPTIONS: dict[Kind, dict[str, OptionSpec]] = {
    "openai": {
        "api_key_env": OptionSpec(
            _nonempty,
            "OPENAI_API_KEY",
            "environment variable holding the API key (its value is never logged)",
            "an environment variable name",
        ),
        "max_concurrency": OptionSpec(_int(1), 8, "requests in flight at once", "an integer >= 1"),
        "context": OptionSpec(
            _int(1), None, "context length to use when the server does not report one", "an integer >= 1"
        ),
        "timeout": OptionSpec(
            _float(0, strict=True), 600.0, "seconds to wait for one response", "a number of seconds > 0"
        ),
        "max_retries": OptionSpec(
            _int(0), 4, "retries on 429, 5xx, timeouts and dropped connections", "an integer >= 0"
        ),
        "native_n": OptionSpec(
            _choice("auto", "true", "false"),
            "auto",
            "whether the server honours n>1 (auto: detect; false: one request per sample)",
            "auto, true or false",
        ),
    },
    "hf": {
        "device": OptionSpec(_nonempty, "auto", "auto, cpu, cuda or cuda:N", "a torch device"),
        "dtype": OptionSpec(
            _DTYPE,
            "auto",
            "weights dtype (auto: bfloat16 on GPU, float32 on CPU)",
            "auto|float32|float16|bfloat16",
        ),
        "batch_size": OptionSpec(_int(1), 8, "sequences generated together", "an integer >= 1"),
        "context": OptionSpec(_int(1), None, "override the model's context length", "an integer >= 1"),
        "trust_remote_code": OptionSpec(
            _bool, False, "allow model code shipped in the folder", "true or false"
        ),
    },
    "vllm": {
        "tensor_parallel_size": OptionSpec(_int(1), 1, "GPUs to shard the model over", "an integer >= 1"),
        "gpu_memory_utilization": OptionSpec(
            _float(0, 1, strict=True), 0.9, "fraction of GPU memory vLLM may take", "a number in (0, 1]"
        ),
        "context": OptionSpec(_int(1), None, "max_model_len for vLLM", "an integer >= 1"),
        "dtype": OptionSpec(_DTYPE, "auto", "weights dtype", "auto|float32|float16|bfloat16"),
        "enforce_eager": OptionSpec(_bool, False, "disable CUDA graphs (faster start)", "true or false"),
        "trust_remote_code": OptionSpec(
            _bool, False, "allow model code shipped in the folder", "true or false"
        ),
        "seed": OptionSpec(
            _int(0), 0, "engine seed (per-request seeds come from sampling params)", "an integer >= 0"
        ),
        "batch_requests": OptionSpec(
            _int(1),
            256,
            "requests handed to the engine at once (results are saved per chunk)",
            "an integer >= 1",
        ),
    },
    "replay": {
        "model": OptionSpec(
            _nonempty,
            None,
            "identity to replay when the store holds calls of several models",
            "a model identity such as openai:qwen2.5-coder-7b",
        ),
    },
}


@dataclass(frozen=True)
class ModelSpec:
    """A parsed model spec. `target` is the model name (openai) or a path (vllm, hf, replay)."""

    kind: Kind
    target: str
    url: str | None = None
    options: Mapping[str, Any] = field(default_factory=dict)
    text: str = ""
    given: frozenset[str] = frozenset()  # options written in the spec (the rest are defaults)

    def option(self, name: str) -> Any:
        return self.options[name]

    def __str__(self) -> str:
        return self.text


def _fail(spec: str, problem: str, hint: str | None = None) -> ModelSpecError:
    lines = [f"bad model spec {spec!r}: {problem}"]
    if hint:
        lines.append(hint)
    lines.append("Model specs look like: " + ", ".join(_EXAMPLES.values()) + ". See `regrapht llm --help`.")
    return ModelSpecError("\n".join(lines))


def _closest(word: str, choices: list[str]) -> str:
    match = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f" Did you mean {match[0]!r}?" if match else ""


def _parse_options(spec: str, kind: Kind, query: str) -> tuple[dict[str, Any], frozenset[str]]:
    known = OPTIONS[kind]
    values: dict[str, Any] = {name: o.default for name, o in known.items()}
    seen: set[str] = set()
    if not query:
        return values, frozenset()
    for pair in query.split("&"):
        if not pair:
            continue
        if "=" not in pair:
            raise _fail(spec, f"option {pair!r} has no value; write it as {pair}=VALUE")
        key, raw = pair.split("=", 1)
        key, raw = key.strip(), unquote(raw.strip())
        if key not in known:
            names = ", ".join(sorted(known)) or "none"
            raise _fail(
                spec,
                f"unknown option {key!r} for {kind} models.{_closest(key, list(known))}",
                f"Options for {kind}: {names}.",
            )
        if key in seen:
            raise _fail(spec, f"option {key!r} is given twice")
        seen.add(key)
        try:
            values[key] = known[key].parse(raw)
        except (ValueError, TypeError):
            raise _fail(spec, f"option {key!r} must be {known[key].expects}, got {raw!r}") from None
    return values, frozenset(seen)


def parse_model_spec(spec: str) -> ModelSpec:
    """Parse a model spec string; raises ModelSpecError saying exactly what is wrong and how to fix it."""
    text = spec.strip()
    if not text:
        raise _fail(spec, "it is empty")
    if ":" not in text:
        raise _fail(
            spec,
            "it has no backend prefix.",
            f"For a model served over HTTP write e.g. 'openai:{text}@http://localhost:8000/v1'; "
            f"for a local folder 'hf:{text}' or 'vllm:{text}'.",
        )
    kind_text, rest = text.split(":", 1)
    kind_text = kind_text.strip().lower()
    if kind_text in ("http", "https"):
        raise _fail(
            spec,
            "it is a URL, but the spec needs the model name too.",
            f"Write it as 'openai:MODEL@{text}' (ask the server's /v1/models for MODEL).",
        )
    if kind_text not in KINDS:
        raise _fail(
            spec,
            f"unknown backend {kind_text!r}.{_closest(kind_text, list(KINDS))}",
            f"Backends: {', '.join(KINDS)}.",
        )
    kind: Kind = kind_text  # type: ignore[assignment]

    body, _, query = rest.partition("?")
    body = body.strip()

    if kind == "openai":
        model, sep, url = body.rpartition("@")
        if not sep:
            raise _fail(
                spec,
                "an openai spec needs the server's base URL after '@'.",
                f"For example: openai:{body or 'MODEL'}@http://localhost:8000/v1",
            )
        model, url = model.strip(), url.strip().rstrip("/")
        if not model:
            raise _fail(spec, "the model name before '@' is empty.", "Ask the server: curl URL/models")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise _fail(
                spec,
                f"{url!r} is not an http(s) URL.",
                f"Write the base URL in full, e.g. openai:{model}@http://{url or 'localhost:8000/v1'}"
                if parts.scheme not in ("http", "https")
                else None,
            )
        options, given = _parse_options(spec, kind, query)
        return ModelSpec(kind, model, url, options, text, given)

    if not body:
        raise _fail(spec, f"the {kind} spec needs a path after '{kind}:'.", f"For example: {_EXAMPLES[kind]}")
    path = os.path.expanduser(body)
    options, given = _parse_options(spec, kind, query)
    return ModelSpec(kind, path, None, options, text, given)


def spec_help(width: int = 76) -> str:
    """The spec format and every option, as plain text (lines at most `width` wide) for `--help`
    output and docs."""
    lines = [
        "MODEL SPEC: a backend, a model, and optional ?key=value&key=value options.",
        "",
        "  openai:MODEL@URL     an OpenAI-compatible server: vLLM, SGLang, Ollama,",
        "                       llama.cpp, LM Studio, hosted APIs. URL is the base",
        "                       URL, usually ending in /v1.",
        "  vllm:PATH            vLLM in this process (extra 'vllm'), NVIDIA GPU",
        "  hf:PATH              transformers in this process (extra 'hf'), GPU or CPU",
        "  replay:STORE.sqlite  answers only from the call cache of a finished run;",
        "                       anything the run did not ask is an error.",
        "",
        "Examples:",
        *(f"  {e}" for e in _EXAMPLES.values()),
        "  openai:gpt-4o-mini@https://api.openai.com/v1?max_concurrency=4",
        "",
    ]
    for kind in KINDS:
        lines.append(f"Options for {kind}:")
        for name, opt in OPTIONS[kind].items():
            default = "" if opt.default is None else f" (default {opt.default})"
            lines.extend(
                textwrap.wrap(
                    f"{name}: {opt.help}{default}", width, initial_indent="  ", subsequent_indent="      "
                )
            )
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"
