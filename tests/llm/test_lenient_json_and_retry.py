"""Repairs of almost-JSON, reasoning sections, and retry timing rules."""

from __future__ import annotations

import random
from datetime import datetime, timezone

import pytest

from regrapht.llm import strip_reasoning
from regrapht.llm.lenient_json import loads_lenient
from regrapht.llm.retry import RetryPolicy, is_retryable_status, parse_retry_after


def test_valid_json_needs_no_repair() -> None:
    repaired = loads_lenient('  {"a": [1, 2, {"b": null}]}')
    assert repaired.value == {"a": [1, 2, {"b": None}]} and repaired.notes == []


def test_repairs_are_reported() -> None:
    repaired = loads_lenient("{'a': 'it\\'s', 'b': [1, 2,], /* note */ 'c': None}")
    assert repaired.value == {"a": "it's", "b": [1, 2], "c": None}
    assert repaired.notes == [
        "Python literals (True/False/None)",
        "comments removed",
        "single-quoted strings",
        "trailing commas removed",
    ]


def test_quotes_and_backslashes_in_code_strings() -> None:
    text = '{"code": "printf("%d", x); char c = \'\\0\'; s = "a\\tb";", "method": "m"}'
    value = loads_lenient(text).value
    assert value == {"code": 'printf("%d", x); char c = \'\\0\'; s = "a\tb";', "method": "m"}


def test_truncated_array_keeps_complete_elements() -> None:
    repaired = loads_lenient('[{"a": 1}, {"a": 2}, {"a": "unfinish')
    assert repaired.value == [{"a": 1}, {"a": 2}]
    assert "the final element was cut off (truncated output) and dropped" in repaired.notes


def test_hopeless_input_raises() -> None:
    with pytest.raises(ValueError, match="not JSON even after repairs"):
        loads_lenient('{"a": ')
    with pytest.raises(ValueError):
        loads_lenient('[{"a": "no complete element')


def test_strip_reasoning_variants() -> None:
    assert strip_reasoning("<think>x</think>answer")[0] == "answer"
    assert strip_reasoning("<THINKING>x</THINKING>answer")[0] == "answer"
    assert strip_reasoning("mid-thought</think>answer")[0] == "answer"
    text, notes = strip_reasoning("answer<think>never closed")
    assert text == "answer" and "ended inside <think>" in notes[0]


def test_retry_after_forms() -> None:
    assert parse_retry_after("2") == 2.0
    assert parse_retry_after("0.25") == 0.25
    assert parse_retry_after(None) is None and parse_retry_after("soon") is None
    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=timezone.utc)
    assert parse_retry_after("Thu, 01 Jan 2026 12:00:30 GMT", now=now) == 30.0
    assert parse_retry_after("Thu, 01 Jan 2026 11:00:00 GMT", now=now) == 0.0


def test_backoff_grows_with_jitter_and_a_cap() -> None:
    policy = RetryPolicy(base_delay_s=1.0, max_delay_s=8.0)
    rng = random.Random(0)
    for k, ceiling in enumerate([1, 2, 4, 8, 8]):
        for _ in range(20):
            assert ceiling / 2 <= policy.backoff(k, rng) <= ceiling
    assert 5.0 <= policy.delay(0, 5.0, rng) <= 5.5  # Retry-After wins, plus at most 10% jitter


def test_retryable_statuses() -> None:
    assert all(is_retryable_status(s) for s in (429, 500, 502, 503, 504, 599))
    assert not any(is_retryable_status(s) for s in (400, 401, 403, 404, 422))
