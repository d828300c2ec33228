"""The method taxonomy: canonical optimization methods, loaded from `regrapht/data/methods.toml`.

A taxonomy answers two questions: which canonical methods exist (with their definitions), and which
canonical method a free-form name such as "Use float4 loads" or "tiling" means. Name resolution here
is purely lexical (normalized names and synonyms); embedding similarity lives in `relabel`.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

TARGETS = ("cuda", "cpu")
RECOGNIZE_KEYS = ("calls", "types", "namespaces", "qualifiers", "asm", "includes", "pragmas")
_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")

# Words that carry no meaning in a method name ("Use shared memory" == "shared memory").
FILLER_WORDS = frozenset(
    {
        "a",
        "an",
        "the",
        "use",
        "using",
        "apply",
        "applying",
        "applied",
        "add",
        "adding",
        "introduce",
        "introducing",
        "implement",
        "implementing",
        "enable",
        "enabling",
        "optimization",
        "optimisation",
        "optimizations",
        "optimize",
        "optimise",
        "technique",
        "method",
        "via",
        "with",
        "for",
        "of",
        "to",
        "step",
        "cuda",
    }
)


class TaxonomyError(ValueError):
    """The taxonomy file is malformed; the message says where."""


def normalize_name(name: str) -> str:
    """A method name reduced to lower-case words without filler: "Use Shared-Memory Tiling!" ->
    "shared memory tiling". Leading underscores of identifiers such as "__ldg" are kept apart as
    words, so "__ldg" -> "ldg"."""
    text = re.sub(r"([a-z0-9])([A-Z][a-z])", r"\1 \2", name)  # camelCase -> camel Case (not OpenMP)
    words = re.split(r"[^A-Za-z0-9+]+", text.lower())
    kept = [w for w in words if w and w not in FILLER_WORDS]
    if not kept:  # a name made only of filler words keeps them
        kept = [w for w in words if w]
    return " ".join(kept)


def snake_case(name: str) -> str:
    """A canonical node id for a free-form name: "Loop Fission" -> "loop_fission"."""
    norm = normalize_name(name)
    return re.sub(r"[^a-z0-9]+", "_", norm).strip("_") or "unnamed_method"


@dataclass(frozen=True)
class Method:
    """One canonical method."""

    name: str
    category: str
    definition: str
    signals: str
    synonyms: tuple[str, ...]
    targets: tuple[str, ...]
    recognize: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def describe(self) -> str:
        """One line for prompts and embeddings: "name: definition"."""
        return f"{self.name.replace('_', ' ')}: {self.definition}"


@dataclass(frozen=True)
class Resolution:
    """How a free-form name was resolved against the taxonomy."""

    name: str  # canonical name
    how: str  # "exact" | "synonym"


class Taxonomy:
    """The set of canonical methods with lexical name resolution."""

    def __init__(
        self, methods: Iterable[Method], categories: Mapping[str, str], distinct: Iterable[str] = ()
    ) -> None:
        self.categories = dict(categories)
        self.distinct = frozenset(normalize_name(d) for d in distinct)
        self._methods: dict[str, Method] = {}
        for m in methods:
            if m.name in self._methods:
                raise TaxonomyError(f"method {m.name!r} is defined twice")
            self._methods[m.name] = m
        # normalized name or synonym -> canonical names (several only when they differ by target)
        self._index: dict[str, list[str]] = {}
        self._exact: dict[str, str] = {}
        for m in self._methods.values():
            self._exact[normalize_name(m.name)] = m.name
        for m in self._methods.values():
            for key in {normalize_name(m.name), *(normalize_name(s) for s in m.synonyms)}:
                names = self._index.setdefault(key, [])
                if m.name not in names:
                    names.append(m.name)
        for key, names in self._index.items():
            for target in TARGETS:
                clash = [n for n in names if target in self._methods[n].targets]
                if len(clash) > 1 and key not in self._exact:
                    raise TaxonomyError(
                        f"synonym {key!r} names {', '.join(clash)} for the same target {target!r}; "
                        "a synonym may name one method per target"
                    )
        for key in sorted(self.distinct & set(self._index)):
            raise TaxonomyError(f"distinct name {key!r} is also a name or synonym of {self._index[key][0]!r}")

    def __contains__(self, name: object) -> bool:
        return name in self._methods

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._methods.values())

    def __len__(self) -> int:
        return len(self._methods)

    def get(self, name: str) -> Method | None:
        return self._methods.get(name)

    def __getitem__(self, name: str) -> Method:
        try:
            return self._methods[name]
        except KeyError:
            raise KeyError(f"{name!r} is not a canonical method") from None

    @property
    def names(self) -> list[str]:
        return list(self._methods)

    def for_target(self, target: str) -> list[Method]:
        return [m for m in self._methods.values() if target in m.targets]

    def resolve(self, raw: str, target: str | None = None) -> Resolution | None:
        """Resolve a free-form name by normalized canonical name, then by synonym. When a synonym
        names methods for different targets, the one for `target` wins. None if nothing matches."""
        key = normalize_name(raw)
        if not key:
            return None
        if key in self._exact:
            return Resolution(self._exact[key], "exact")
        snake = snake_case(raw)
        if snake in self._methods:
            return Resolution(snake, "exact")
        names = self._index.get(key)
        if not names:
            return None
        if len(names) > 1 and target is not None:
            for_target = [n for n in names if target in self._methods[n].targets]
            if for_target:
                return Resolution(for_target[0], "synonym")
        return Resolution(names[0], "synonym")

    def phrases(self, target: str | None = None) -> list[tuple[str, str]]:
        """(canonical name, phrase) pairs to embed: each method's description and each synonym."""
        out: list[tuple[str, str]] = []
        for m in self._methods.values():
            if target is not None and target not in m.targets:
                continue
            out.append((m.name, m.describe()))
            out.append((m.name, m.name.replace("_", " ")))
            out.extend((m.name, s) for s in m.synonyms)
        return out


def _as_str_tuple(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TaxonomyError(f"{where} must be a list of strings")
    return tuple(value)


def parse_taxonomy(data: Mapping[str, Any], source: str = "<taxonomy>") -> Taxonomy:
    """Build a Taxonomy from the parsed TOML document, checking every field."""
    if data.get("schema") != 1:
        raise TaxonomyError(f"{source}: schema must be 1, got {data.get('schema')!r}")
    categories = data.get("categories")
    if not isinstance(categories, dict) or not categories:
        raise TaxonomyError(f"{source}: [categories] must be a non-empty table")
    entries = data.get("method")
    if not isinstance(entries, list) or not entries:
        raise TaxonomyError(f"{source}: at least one [[method]] is needed")
    methods = []
    for i, e in enumerate(entries):
        where = f"{source}: method #{i + 1}"
        name = e.get("name")
        if not isinstance(name, str) or not _NAME_RE.match(name):
            raise TaxonomyError(f"{where}: name must be snake_case, got {name!r}")
        where = f"{source}: method {name!r}"
        if name == "initial":
            raise TaxonomyError(f"{where}: 'initial' is reserved for the graph's initial node")
        unknown = set(e) - {"name", "category", "targets", "definition", "signals", "synonyms", "recognize"}
        if unknown:
            raise TaxonomyError(f"{where}: unknown keys {sorted(unknown)}")
        if e.get("category") not in categories:
            raise TaxonomyError(f"{where}: category {e.get('category')!r} is not one of {sorted(categories)}")
        targets = _as_str_tuple(e.get("targets"), f"{where}: targets")
        if not targets or set(targets) - set(TARGETS):
            raise TaxonomyError(f"{where}: targets must be a non-empty subset of {list(TARGETS)}")
        for key in ("definition", "signals"):
            if not isinstance(e.get(key), str) or not e[key].strip():
                raise TaxonomyError(f"{where}: {key} must be a non-empty string")
        synonyms = _as_str_tuple(e.get("synonyms", []), f"{where}: synonyms")
        rec = e.get("recognize", {})
        if not isinstance(rec, dict) or set(rec) - set(RECOGNIZE_KEYS):
            raise TaxonomyError(f"{where}: recognize keys must be among {list(RECOGNIZE_KEYS)}")
        recognize = {k: _as_str_tuple(v, f"{where}: recognize.{k}") for k, v in rec.items()}
        methods.append(
            Method(
                name,
                e["category"],
                e["definition"].strip(),
                e["signals"].strip(),
                synonyms,
                targets,
                recognize,
            )
        )
    distinct = _as_str_tuple(data.get("distinct", []), f"{source}: distinct")
    return Taxonomy(methods, categories, distinct)


def load_taxonomy(path: str | Path | None = None) -> Taxonomy:
    """Load a taxonomy file; the shipped `regrapht/data/methods.toml` when `path` is None."""
    if path is None:
        return default_taxonomy()
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise TaxonomyError(f"{p}: not valid TOML: {exc}") from exc
    return parse_taxonomy(data, str(p))


@lru_cache(maxsize=1)
def default_taxonomy() -> Taxonomy:
    """The shipped taxonomy (cached)."""
    text = resources.files("regrapht").joinpath("data/methods.toml").read_text(encoding="utf-8")
    return parse_taxonomy(tomllib.loads(text), "regrapht/data/methods.toml")
