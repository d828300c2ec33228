"""The symbol screen: what a built library imports, and which instructions its own code holds.

The source screen reads spellings; this one reads what the linker had to resolve. A qualified
(`std::fopen`), parenthesized (`(exit)(0)`), macro-built or pasted name, or a function pointer taken
through any of them, still leaves an undefined dynamic symbol in the library, and a system call
written in inline assembly leaves a `syscall` instruction in its code.

It uses binutils (`objdump`), present wherever g++ and nvcc are (both drive the GNU linker),
so the GPU machine needs nothing more; rules live in `data/symbol_rules.toml`.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass
from importlib import resources

from regrapht.eval.screen import Finding

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

TOOL_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class SymbolRule:
    id: str
    targets: tuple[str, ...]
    message: str
    symbols: frozenset[str]
    pattern: re.Pattern[str] | None  # searched in demangled names


@dataclass(frozen=True)
class InstructionRule:
    id: str
    message: str
    pattern: re.Pattern[str]


@functools.cache
def rules() -> tuple[tuple[SymbolRule, ...], tuple[InstructionRule, ...]]:
    data = tomllib.loads((resources.files("regrapht") / "data" / "symbol_rules.toml").read_text())
    groups = tuple(
        SymbolRule(
            g["id"],
            tuple(g["targets"]),
            g["message"],
            frozenset(g.get("symbols", ())),
            re.compile("|".join(f"(?:{p})" for p in g["patterns"])) if g.get("patterns") else None,
        )
        for g in data["group"]
    )
    instructions = tuple(
        InstructionRule(r["id"], r["message"], re.compile(r["pattern"])) for r in data["instruction"]
    )
    return groups, instructions


class ToolMissing(RuntimeError):
    """binutils is not installed: the library cannot be read."""


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise ToolMissing(f"{name} (binutils) is not installed")
    return path


_UNDEFINED = re.compile(r"^[0-9a-f]+ .{7} \*UND\*\t[0-9a-f]+\s+(?:\([^)]*\)|Base)?\s*(?P<name>\S.*)$")
_FUNCTION = re.compile(r"^[0-9a-f]+ <(?P<name>[^>]+)>:$")


def read_library(library: str) -> tuple[list[str], list[tuple[str, str]]]:
    """The library's undefined dynamic symbols (demangled, version removed), and (function,
    instruction text) for every instruction of its executable sections: one `objdump` run (`nm`
    loads the linker's plugins first, and took 30 ms where this takes a few)."""
    proc = subprocess.run(
        [_tool("objdump"), "--dynamic-syms", "--disassemble", "--no-show-raw-insn", "--demangle", library],
        capture_output=True,
        text=True,
        timeout=TOOL_TIMEOUT_S,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"objdump could not read the library: {proc.stderr.strip()[:300]}")
    imported: list[str] = []
    code: list[tuple[str, str]] = []
    function = "?"
    for line in proc.stdout.splitlines():
        symbol = _UNDEFINED.match(line)
        if symbol:
            imported.append(symbol.group("name").strip())
            continue
        head = _FUNCTION.match(line)
        if head:
            function = head.group("name")
        elif ":\t" in line:
            code.append((function, line.split(":\t", 1)[1].strip()))
    return imported, code


def screen_library(library: str, target: str) -> list[Finding]:
    """Blocking findings for the library a candidate built into; an empty list when it is clean.
    A library that cannot be read yields one blocking finding that says why: unread is unscreened."""
    groups, instruction_rules = rules()
    try:
        imported, code = read_library(library)
    except (ToolMissing, RuntimeError, OSError, subprocess.TimeoutExpired) as exc:
        return [
            Finding(
                "symbols:unreadable",
                "block",
                0,
                "",
                f"the built library could not be screened ({exc}); it is not run unscreened",
            )
        ]
    findings: list[Finding] = []
    for demangled in imported:
        for rule in groups:
            if target not in rule.targets:
                continue
            if demangled in rule.symbols or (rule.pattern and rule.pattern.search(demangled)):
                findings.append(
                    Finding(f"symbols:{rule.id}", "block", 0, demangled[:80], f"(imported by the built library) {rule.message}")
                )
                break
    seen: set[tuple[str, str]] = set()
    for function, text in code:
        for rule in instruction_rules:
            if rule.pattern.search(text):
                mnemonic = text.split()[0]
                if (rule.id, function) not in seen:
                    seen.add((rule.id, function))
                    findings.append(
                        Finding(
                            f"symbols:{rule.id}",
                            "block",
                            0,
                            mnemonic,
                            f"(an instruction in `{function[:60]}`) {rule.message}",
                        )
                    )
    return findings


class LibraryScreen:
    """The symbol screen's findings per built library and target, computed once (builds of one source
    share a library in the compile cache) and safe to ask from the compile pool's threads."""

    def __init__(self) -> None:
        self._findings: dict[str, list[Finding]] = {}
        self._lock = threading.Lock()

    def findings(self, library: str | None, target: str) -> list[Finding]:
        if library is None:
            return []
        key = f"{target}:{library}"
        with self._lock:
            known = self._findings.get(key)
        if known is None:
            known = screen_library(library, target)
            with self._lock:
                self._findings[key] = known
        return known
