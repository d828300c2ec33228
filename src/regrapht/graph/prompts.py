"""Rendering the shipped prompt templates (regrapht/data/templates/*.j2) into chat requests.

A template has a `system` and a `user` block and a header comment `{# template: NAME vN #}` that
names it for the call cache. This is the graph layer's own small renderer for the two templates it
uses (relabel, trajectory_generate); it follows the templates' conventions exactly.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from typing import Any

_HEADER_RE = re.compile(r"\{#\s*template:\s*([\w.-]+)\s+v(\d+)\s*#\}")


@lru_cache(maxsize=1)
def _env() -> Any:
    import jinja2

    root = str(resources.files("regrapht").joinpath("data", "templates"))
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(root),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )


def template_id(name: str) -> str:
    """ "relabel@1" for relabel.j2 whose header says `{# template: relabel v1 #}`."""
    env = _env()
    source = env.loader.get_source(env, f"{name}.j2")[0]
    m = _HEADER_RE.search(source)
    if m is None:
        raise ValueError(f"template {name}.j2 has no '{{# template: NAME vN #}}' header")
    return f"{m.group(1)}@{m.group(2)}"


def render_blocks(name: str, variables: dict[str, Any]) -> tuple[str, str]:
    """(system, user) text of template `name` rendered with `variables`."""
    t = _env().get_template(f"{name}.j2")
    ctx = t.new_context(dict(variables))
    "".join(t.root_render_func(ctx))  # runs top-level imports ({% import "_common.j2" as c %})
    system = "".join(t.blocks["system"](ctx)).strip() if "system" in t.blocks else ""
    user = "".join(t.blocks["user"](ctx)).strip()
    return system, user


def chat_request(name: str, variables: dict[str, Any], params: Any = None, n: int = 1) -> Any:
    """A regrapht.llm ChatRequest for template `name`."""
    from regrapht.llm.types import ChatRequest, SamplingParams

    system, user = render_blocks(name, variables)
    return ChatRequest.from_prompt(
        user,
        system=system or None,
        params=params or SamplingParams(temperature=0.0),
        n=n,
        template=template_id(name),
    )
