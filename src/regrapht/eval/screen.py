"""The static screen: flags what a candidate has no business doing before it ever runs."""

from __future__ import annotations

import functools
import re
import sys
from dataclasses import asdict, dataclass
from importlib import resources

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


@dataclass(frozen=True)
class Rule:
    id: str
    severity: str
    targets: tuple[str, ...]
    pattern: re.Pattern[str]
    message: str
    scope: str = "code"  # "code": comments and string literals blanked; "code_and_strings": comments only


@dataclass(frozen=True)
class Finding:
    rule: str
    severity: str
    line: int
    excerpt: str
    message: str

    def to_dict(self) -> dict:
        return asdict(self)

    def describe(self) -> str:
        where = f"line {self.line}: " if self.line else ""  # line 0: found in the built library
        return f"{where}`{self.excerpt}` {self.message} [{self.rule}]"


@functools.cache
def rules() -> tuple[Rule, ...]:
    text = (resources.files("regrapht") / "data" / "screen_rules.toml").read_text()
    data = tomllib.loads(text)
    return tuple(
        Rule(
            r["id"],
            r["severity"],
            tuple(r["targets"]),
            re.compile(r["pattern"]),
            r["message"],
            r.get("scope", "code"),
        )
        for r in data["rule"]
    )


_CODE_MASK = re.compile(
    r"""//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'""",
    re.S,
)


def strip_comments_and_strings(source: str, keep_strings: bool = False) -> str:
    """Blank out comments and literal contents, keeping line numbers, so prose never trips a rule."""

    def blank(match: re.Match[str]) -> str:
        text = match.group(0)
        if text.startswith(("//", "/*")):
            return re.sub(r"[^\n]", " ", text)
        if keep_strings:
            return text
        return text[0] + re.sub(r"[^\n]", " ", text[1:-1]) + text[-1]

    return _CODE_MASK.sub(blank, source)


def screen(source: str, target: str) -> list[Finding]:
    texts = {
        "code": strip_comments_and_strings(source),
        "code_and_strings": strip_comments_and_strings(source, keep_strings=True),
    }
    findings = []
    for rule in rules():
        if target not in rule.targets:
            continue
        code = texts[rule.scope]
        for match in rule.pattern.finditer(code):
            line = code.count("\n", 0, match.start()) + 1
            excerpt = match.group(0).strip()[:60]
            findings.append(Finding(rule.id, rule.severity, line, excerpt, rule.message))
    return findings


def blocking(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity == "block"]
