"""`regrapht llm ...`: check that a model answers, and chat with it from the shell."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from regrapht.llm import (
    CachedChatModel,
    ChatModel,
    ChatRequest,
    ContextLengthUnknownError,
    ModelError,
    ModelSpecError,
    SamplingParams,
    open_model,
    spec_help,
)
from regrapht.store import RunStore

MODEL_HELP = "Model spec, e.g. openai:NAME@URL for an OpenAI-compatible server (see `regrapht llm --help`)."


def _group_help() -> str:
    # "\b" keeps Click and Typer from re-flowing the spec table; the app renders help with Rich
    # markup, so square brackets are escaped.
    body = "\n\n".join("\b\n" + block for block in spec_help().strip().split("\n\n"))
    return "Talk to a model: check a backend, or chat with it.\n\n" + escape(body)


def _fail(message: str, code: int) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code)


def _open(spec: str, cache: Path | None) -> ChatModel:
    from regrapht.search.offline import is_offline_spec

    if is_offline_spec(spec):
        raise _fail(
            "`offline` is the offline policy, not a model: it replays the graph's recorded steps inside "
            "`regrapht optimize` and `regrapht bench` (--model offline). `regrapht llm` talks to model "
            "backends; see `regrapht llm --help` for their specs.",
            2,
        )
    try:
        model = open_model(spec)
    except ModelSpecError as e:
        raise _fail(str(e), 2) from None
    except ModelError as e:
        raise _fail(str(e), 1) from None
    if cache is not None:
        return CachedChatModel(model, RunStore(cache))
    return model


def _check(spec: str) -> dict[str, Any]:
    report: dict[str, Any] = {"spec": spec, "ok": False}
    started = time.monotonic()
    model = _open(spec, None)
    report["open_s"] = round(time.monotonic() - started, 3)
    try:
        report["identity"] = model.identity
        try:
            report["context_length"] = model.context_length()
        except ContextLengthUnknownError as e:
            report["context_length"] = None
            report["context_note"] = str(e)
        request = ChatRequest.from_prompt(
            "Reply with the single word OK.", params=SamplingParams(temperature=0.0, max_tokens=1)
        )
        try:
            [result] = model.generate([request])
        except ModelError as e:
            report["error"] = str(e)
        else:
            report.update(
                ok=True,
                reply=result.text,
                finish_reason=result.finish_reasons[0],
                latency_s=round(result.latency_s, 4),
                usage={
                    "prompt_tokens": result.usage.prompt_tokens,
                    "completion_tokens": result.usage.completion_tokens,
                    "estimated": result.usage.estimated,
                },
            )
        report["backend"] = model.describe()
    finally:
        model.close()
    return report


def register(app: typer.Typer) -> None:
    llm_app = typer.Typer(help=_group_help(), no_args_is_help=True)

    @llm_app.command("check")
    def check(
        model: str = typer.Option(..., "--model", "-m", help=MODEL_HELP),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of text."),
    ) -> None:
        """Connect to a model, report its context length, and time a one-token call."""
        report = _check(model)
        if as_json:
            typer.echo(json.dumps(report, indent=2, default=str))
        else:
            typer.echo(f"model:          {report.get('identity', model)}")
            ctx = report.get("context_length")
            typer.echo(f"context length: {ctx if ctx is not None else 'unknown'}")
            if report.get("context_note"):
                typer.echo(f"                ({report['context_note']})")
            if report["ok"]:
                usage = report["usage"]
                est = " (estimated)" if usage["estimated"] else ""
                typer.echo(f"1-token call:   {report['latency_s']:.3f} s, reply {report['reply']!r}")
                typer.echo(
                    f"usage:          {usage['prompt_tokens']} prompt + "
                    f"{usage['completion_tokens']} completion tokens{est}"
                )
            else:
                typer.echo(f"1-token call:   FAILED: {report.get('error')}")
            for key, value in report.get("backend", {}).items():
                typer.echo(f"  {key}: {value}")
        if not report["ok"]:
            raise typer.Exit(1)

    @llm_app.command("chat")
    def chat(
        prompt: str = typer.Argument(..., help="The user message ('-' reads it from standard input)."),
        model: str = typer.Option(..., "--model", "-m", help=MODEL_HELP),
        system: str | None = typer.Option(None, "--system", help="A system message."),
        temperature: float = typer.Option(0.0, "--temperature", "-t", min=0.0),
        top_p: float = typer.Option(1.0, "--top-p", min=0.0, max=1.0),
        max_tokens: int = typer.Option(1024, "--max-tokens", min=1),
        n: int = typer.Option(1, "--n", min=1, help="Samples to draw."),
        seed: int | None = typer.Option(None, "--seed"),
        cache: Path | None = typer.Option(
            None, "--cache", help="Run store (.sqlite) whose call cache to read and write."
        ),
        as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    ) -> None:
        """Send one prompt and print the completion(s); usage and latency go to standard error."""
        text = sys.stdin.read() if prompt == "-" else prompt
        try:
            params = SamplingParams(temperature=temperature, top_p=top_p, max_tokens=max_tokens, seed=seed)
            request = ChatRequest.from_prompt(text, system=system, params=params, n=n)
        except ValueError as e:
            raise _fail(str(e), 2) from None
        chat_model = _open(model, cache)
        try:
            [result] = chat_model.generate([request])
        except ModelError as e:
            raise _fail(str(e), 1) from None
        finally:
            chat_model.close()
        if as_json:
            typer.echo(
                json.dumps(
                    {
                        "identity": chat_model.identity,
                        "samples": list(result.samples),
                        "finish_reasons": list(result.finish_reasons),
                        "usage": {
                            "prompt_tokens": result.usage.prompt_tokens,
                            "completion_tokens": result.usage.completion_tokens,
                            "estimated": result.usage.estimated,
                        },
                        "latency_s": result.latency_s,
                        "cached": result.cached,
                    },
                    indent=2,
                )
            )
            return
        for k, sample in enumerate(result.samples):
            if len(result.samples) > 1:
                typer.echo(f"--- sample {k} ({result.finish_reasons[k]}) ---")
            typer.echo(sample)
        est = ", estimated" if result.usage.estimated else ""
        cached = f", {result.cached} from cache" if result.cached else ""
        typer.echo(
            f"[{chat_model.identity}: {result.latency_s:.2f} s, {result.usage.prompt_tokens} prompt + "
            f"{result.usage.completion_tokens} completion tokens{est}{cached}]",
            err=True,
        )

    app.add_typer(llm_app, name="llm")
