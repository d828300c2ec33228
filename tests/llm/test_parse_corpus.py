"""Every file in responses/ is a realistic messy model response with the result it must parse to.

File format: three sections introduced by lines `=== case ===` (a JSON object: kind, parser
arguments, and the expected rule, failure reason or notes), `=== response ===` (the raw response)
and `=== expected ===` (exact code, or JSON for trajectories and relabels; absent for failures).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from regrapht.llm import ParseFailure, extract_code, parse_relabel, parse_trajectory

CORPUS = Path(__file__).parent / "responses"
CASES = sorted(CORPUS.glob("*.txt"))


def load_case(path: Path) -> tuple[dict[str, Any], str, str | None]:
    text = path.read_text()
    parts = re.split(r"^=== (case|response|expected) ===\n", text, flags=re.MULTILINE)
    sections = dict(zip(parts[1::2], parts[2::2], strict=True))
    case = json.loads(sections["case"])
    response = sections["response"].removesuffix("\n")
    expected = sections["expected"].removesuffix("\n") if "expected" in sections else None
    return case, response, expected


def test_corpus_is_large_enough() -> None:
    assert len(CASES) >= 25
    kinds = {load_case(p)[0]["kind"] for p in CASES}
    assert kinds == {"code", "trajectory", "relabel"}


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_response(path: Path) -> None:
    case, response, expected = load_case(path)
    kind = case["kind"]
    if kind == "code":
        result = extract_code(response, function_name=case.get("function_name"))
    elif kind == "trajectory":
        result = parse_trajectory(response, function_name=case.get("function_name"))
    else:
        result = parse_relabel(
            response,
            expected_count=case.get("expected_count"),
            canonical_methods=case.get("canonical_methods"),
        )

    for fragment in case.get("notes_contain", []):
        assert any(fragment in note for note in result.notes), (fragment, result.notes)

    if "failure" in case:
        assert isinstance(result, ParseFailure), result
        assert result.reason == case["failure"], result
        assert result.message
        return
    assert not isinstance(result, ParseFailure), result
    assert expected is not None, f"{path.name} needs an expected section"

    if kind == "code":
        assert result.code == expected
        assert result.rule == case["rule"]
    elif kind == "trajectory":
        want = json.loads(expected)
        assert len(result.steps) == len(want)
        for step, fields in zip(result.steps, want, strict=True):
            for name, value in fields.items():
                assert getattr(step, name) == value, (name, getattr(step, name), value)
    else:
        want = json.loads(expected)
        assert [(i.existed, i.method) for i in result.items] == [(w["existed"], w["method"]) for w in want]
