"""Prompt templates: Jinja2 files in regrapht/data/templates (and any directories a user adds).

Each template starts with a front-matter line naming it and its version,

    {# template: optimize_step v1 #}

and defines a `system` block and a `user` block; rendering gives the chat messages. Templates take
plain data (dicts, lists, strings) and use StrictUndefined, so a missing variable is an error that
names the variable and the template, never a silently empty prompt. Bump the version whenever a
template's wording changes: the version is part of the call-cache key.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import jinja2
import jinja2.meta
import jinja2.nodes

from regrapht.llm.errors import ModelError
from regrapht.llm.types import ChatRequest, Message, SamplingParams

TEMPLATE_DIR = Path(__file__).resolve().parent.parent / "data" / "templates"
TEMPLATE_SUFFIX = ".j2"
_FRONT_MATTER = re.compile(r"^\{#\s*template:\s*(?P<name>[A-Za-z0-9_]+)\s+v(?P<version>\d+)\s*#\}\s*$")


class TemplateError(ModelError):
    """A template is missing, malformed, or was rendered without a variable it needs."""


def _fail(message: str) -> NoReturn:
    raise TemplateError(message)


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    version: int
    path: Path
    _template: jinja2.Template

    @property
    def id(self) -> str:
        """Name and version, e.g. "optimize_step@1"; recorded with every call made from it."""
        return f"{self.name}@{self.version}"

    def render(self, **variables: Any) -> list[Message]:
        """The chat messages: a system message (when the system block is not empty) and a user message."""
        try:
            context = self._template.new_context(dict(variables))
            # Run the top level once so its imports and assignments exist when blocks render alone.
            for _ in self._template.root_render_func(context):
                pass
            parts = {
                block: _tidy("".join(self._template.blocks[block](context)))
                for block in ("system", "user")
                if block in self._template.blocks
            }
        except jinja2.UndefinedError as e:
            given = ", ".join(sorted(variables)) or "none"
            raise TemplateError(f"template {self.id} ({self.path.name}): {e.message}; given: {given}") from e
        messages: list[Message] = []
        if parts.get("system"):
            messages.append({"role": "system", "content": parts["system"]})
        if not parts.get("user"):
            raise TemplateError(f"template {self.id} rendered an empty user message")
        messages.append({"role": "user", "content": parts["user"]})
        return messages

    def request(
        self, variables: Mapping[str, Any], params: SamplingParams | None = None, n: int = 1
    ) -> ChatRequest:
        """A ChatRequest for these variables, tagged with this template's id."""
        return ChatRequest(tuple(self.render(**variables)), params or SamplingParams(), n, self.id)

    def variables(self) -> set[str]:
        """Top-level variables the template reads (imported macros' arguments included)."""
        env = self._template.environment
        source = env.loader.get_source(env, self.path.name)[0] if env.loader else ""
        tree = env.parse(source)
        imported = {node.target for node in tree.find_all(jinja2.nodes.Import)}
        return set(jinja2.meta.find_undeclared_variables(tree)) - set(env.globals) - imported


def _tidy(text: str) -> str:
    """Trim and collapse runs of blank lines left by template control flow."""
    return re.sub(r"\n{3,}", "\n\n", text).strip()


class TemplateLibrary:
    """Templates from the shipped directory, overridden by same-named files in `extra_dirs` (searched
    first), so users change prompts without changing code."""

    def __init__(self, extra_dirs: Sequence[str | Path] = ()) -> None:
        self.dirs = [Path(d) for d in extra_dirs] + [TEMPLATE_DIR]
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader([str(d) for d in self.dirs]),
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=False,
            autoescape=False,
        )
        self.env.globals["fail"] = _fail

    def names(self) -> list[str]:
        found: set[str] = set()
        for d in self.dirs:
            if d.is_dir():
                found.update(p.stem for p in d.glob(f"*{TEMPLATE_SUFFIX}") if not p.name.startswith("_"))
        return sorted(found)

    def get(self, name: str) -> PromptTemplate:
        filename = f"{name}{TEMPLATE_SUFFIX}"
        try:
            source, path, _ = self.env.loader.get_source(self.env, filename)  # type: ignore[union-attr]
        except jinja2.TemplateNotFound:
            raise TemplateError(
                f"no template {name!r}; available: {', '.join(self.names())} "
                f"(in {', '.join(map(str, self.dirs))})"
            ) from None
        first = source.split("\n", 1)[0]
        m = _FRONT_MATTER.match(first)
        if not m:
            raise TemplateError(
                f"{path}: the first line must be the front matter `{{# template: {name} v1 #}}`, "
                f"found {first!r}"
            )
        if m.group("name") != name:
            raise TemplateError(f"{path}: front matter names {m.group('name')!r} but the file is {filename}")
        try:
            template = self.env.get_template(filename)
        except jinja2.TemplateSyntaxError as e:
            raise TemplateError(f"{path}:{e.lineno}: {e.message}") from e
        return PromptTemplate(name, int(m.group("version")), Path(path or filename), template)

    def all(self) -> Iterable[PromptTemplate]:
        return (self.get(n) for n in self.names())


_DEFAULT: TemplateLibrary | None = None


def load_template(name: str) -> PromptTemplate:
    """A shipped template by name (e.g. "optimize_step")."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = TemplateLibrary()
    return _DEFAULT.get(name)
