"""Context budgeting: estimates, and fitting a prompt by dropping the least useful examples."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from regrapht.llm import (
    ContextLengthExceededError,
    Message,
    count_message_tokens,
    estimate_tokens,
    fit_prompt,
)


def words(text: str) -> int:
    return len(text.split())


def build(examples: Sequence[str]) -> list[Message]:
    return [
        {"role": "system", "content": "be fast"},
        {"role": "user", "content": " ".join(examples) + " task"},
    ]


def test_estimate_is_chars_over_3_2_rounded_up() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abc") == 1
    assert estimate_tokens("x" * 33) == 11


def test_message_tokens_include_template_overhead() -> None:
    assert count_message_tokens(build(["a b"]), words) == (2 + 8) + (3 + 8) + 4


def test_everything_kept_when_it_fits() -> None:
    fitted = fit_prompt(build, ["e1", "e2"], count_tokens=words, context_length=1000, reserve_tokens=100)
    assert fitted.kept == ["e1", "e2"] and fitted.dropped == []
    assert fitted.prompt_tokens == count_message_tokens(fitted.messages, words)


def test_lowest_priority_goes_first_and_order_is_kept() -> None:
    examples = ["alpha " * 10, "beta " * 10, "gamma " * 10, "delta " * 10]
    priority = {"alpha": 3, "beta": 1, "gamma": 4, "delta": 2}
    fitted = fit_prompt(
        build,
        examples,
        count_tokens=words,
        context_length=65,
        reserve_tokens=10,
        margin_tokens=0,
        priority=lambda e: priority[e.split()[0]],
    )
    # Budget 55. The frame is (2 + 8) + (1 + 8) + 4 = 23 tokens, each example 10: three fit.
    assert [e.split()[0] for e in fitted.dropped] == ["beta"]
    assert [e.split()[0] for e in fitted.kept] == ["alpha", "gamma", "delta"]
    assert fitted.prompt_tokens == 53 and fitted.budget_tokens == 55


def test_default_priority_drops_from_the_end() -> None:
    fitted = fit_prompt(
        build,
        ["a " * 30, "b " * 30, "c " * 30],
        count_tokens=words,
        context_length=90,
        reserve_tokens=0,
        margin_tokens=0,
    )
    assert [e.split()[0] for e in fitted.kept] == ["a", "b"]


def test_fails_with_numbers_when_even_the_bare_prompt_is_too_long() -> None:
    with pytest.raises(
        ContextLengthExceededError, match=r"needs 23 tokens even with all 1 examples dropped, but only 10 fit"
    ):
        fit_prompt(build, ["x"], count_tokens=words, context_length=30, reserve_tokens=20, margin_tokens=0)
    with pytest.raises(ContextLengthExceededError, match="no room for a prompt"):
        fit_prompt(build, [], count_tokens=words, context_length=30, reserve_tokens=30)
