"""`regrapht llm` given `--model offline`, as a user who just ran `optimize --model offline` would."""

from __future__ import annotations

from typer.testing import CliRunner

from regrapht.cli import app


def test_offline_is_explained_not_taken_for_a_model_name() -> None:
    result = CliRunner().invoke(app, ["llm", "check", "--model", "offline"])
    said = " ".join(result.output.split())
    assert result.exit_code == 2
    assert "is the offline policy, not a model" in said and "openai:offline@" not in said
