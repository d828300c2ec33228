"""`regrapht llm check` and `regrapht llm chat` against a loopback server."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from typer.testing import CliRunner

from regrapht.cli import llm_cmd

from .llm_chat_server import ChatServer


def cli() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def main() -> None:
        """regrapht (test app)."""

    llm_cmd.register(app)
    return app


def test_check_json_reports_context_latency_and_usage(chat_server: ChatServer) -> None:
    result = CliRunner().invoke(
        cli(), ["llm", "check", "--model", f"openai:tiny-coder@{chat_server.url}", "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["ok"] is True and report["identity"] == "openai:tiny-coder"
    assert report["context_length"] == 4096
    assert report["latency_s"] > 0 and report["usage"]["prompt_tokens"] > 0
    assert report["backend"]["base_url"] == chat_server.url
    [call] = chat_server.chat_calls()
    assert call.body["max_tokens"] == 1 and call.body["temperature"] == 0.0


def test_check_text_and_failure_exit_code(chat_server: ChatServer) -> None:
    ok = CliRunner().invoke(cli(), ["llm", "check", "-m", f"openai:tiny-coder@{chat_server.url}"])
    assert ok.exit_code == 0 and "context length: 4096" in ok.stdout and "1-token call:" in ok.stdout
    bad = CliRunner().invoke(cli(), ["llm", "check", "-m", f"openai:nope@{chat_server.url}"])
    assert bad.exit_code == 1
    assert "FAILED" in bad.stdout and "It serves: tiny-coder" in bad.stdout


def test_chat_prints_the_completion_and_usage_on_stderr(chat_server: ChatServer) -> None:
    result = CliRunner().invoke(
        cli(), ["llm", "chat", "-m", f"openai:tiny-coder@{chat_server.url}", "write a kernel", "--seed", "3"]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout == "answer 0 seed=3 to: write a kernel\n"
    assert "openai:tiny-coder" in result.stderr and "completion tokens" in result.stderr


def test_chat_with_cache_then_replay(tmp_path: Path, chat_server: ChatServer) -> None:
    store = tmp_path / "run.sqlite"
    args = ["llm", "chat", "write a kernel", "--n", "2", "--seed", "1", "--json"]
    first = CliRunner().invoke(
        cli(), [*args, "-m", f"openai:tiny-coder@{chat_server.url}", "--cache", str(store)]
    )
    assert first.exit_code == 0, first.output
    replayed = CliRunner().invoke(cli(), [*args, "-m", f"replay:{store}"])
    assert replayed.exit_code == 0, replayed.output
    a, b = json.loads(first.stdout), json.loads(replayed.stdout)
    assert (
        a["samples"]
        == b["samples"]
        == ["answer 0 seed=1 to: write a kernel", "answer 1 seed=1 to: write a kernel"]
    )
    assert a["usage"] == b["usage"] and b["cached"] == 2
    assert len(chat_server.chat_calls()) == 1


def test_bad_spec_exits_2_with_the_explanation() -> None:
    result = CliRunner().invoke(cli(), ["llm", "chat", "-m", "openai:qwen", "hi"])
    assert result.exit_code == 2
    assert "needs the server's base URL after '@'" in result.stderr


def test_help_teaches_the_spec_format() -> None:
    result = CliRunner().invoke(cli(), ["llm", "--help"])
    assert result.exit_code == 0
    for text in (
        "openai:MODEL@URL",
        "replay:STORE.sqlite",
        "api_key_env",
        "max_concurrency",
        "check",
        "chat",
    ):
        assert text in result.stdout
