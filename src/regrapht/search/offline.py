"""The offline policy: a stand-in for a model that replays the steps recorded in a ReGraph.

It is the environment for measuring search algorithms without a model. It answers optimize_step
requests (one method applied to the current code of a task) with the recorded `after` code of an
example of that task on an edge into that method whose `before` is the current code, i.e. when the
requested transition exists in the graph for that task (train tasks). When the graph has no such
step it says so, plainly, with finish reason `no_recorded_step`; strategies treat that as a failed
generation. It never invents code, and it answers nothing else (whole-task prompts get "no recorded
step" too).

When several recorded steps match (two trajectories took the same step from the same code), the
request's seed picks one, so repeated requests can reach the different recorded outcomes.

It implements the `ChatModel` protocol (`regrapht.llm.types`) so every strategy runs unchanged, and it
is labelled for what it is wherever its results appear: OFFLINE_LABEL.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Any

from regrapht.graph.model import Example, ReGraph
from regrapht.llm.types import ChatRequest, ChatResult, ResultCallback, Usage

OFFLINE_LABEL = "offline policy: replays recorded steps, not a model"
NO_RECORDED_STEP = "no_recorded_step"
OFFLINE_CONTEXT = 1_000_000  # it reads prompts of any length

_TASK_RE = re.compile(r"^## Task: (?P<task>.+?)\s*$", re.M)
_METHOD_RE = re.compile(r"^## Apply this optimization: (?P<method>.+?)\s*$", re.M)
_CODE_RE = re.compile(r"^Current code:\n```[A-Za-z+]*\n(?P<code>.*?)\n```\s*$", re.M | re.S)


def is_offline_spec(spec: str) -> bool:
    """`offline` or `offline:...` selects the offline policy instead of a model."""
    text = spec.strip().lower()
    return text == "offline" or text.startswith("offline:")


def normalize_code(code: str) -> str:
    """Code as compared by the policy: trailing spaces, surrounding blank lines and runs of blank lines
    (prompt rendering collapses them) do not count."""
    text = "\n".join(line.rstrip() for line in code.strip("\n").splitlines()).strip("\n")
    return re.sub(r"\n{3,}", "\n\n", text)


def graph_digest(graph: ReGraph) -> str:
    from regrapht.graph.store import dumps_graph

    return hashlib.sha256(dumps_graph(graph).encode()).hexdigest()


def parse_step_prompt(text: str) -> tuple[str, str, str] | None:
    """(task, method, current code) from a rendered optimize_step user message, or None."""
    task, method = _TASK_RE.search(text), _METHOD_RE.search(text)
    code = _CODE_RE.search(text)
    if not (task and method and code):
        return None
    return task.group("task"), method.group("method"), code.group("code")


class OfflinePolicy:
    """Replays recorded steps of `graph` (see the module doc). Its identity names the graph's content."""

    label = OFFLINE_LABEL

    def __init__(self, graph: ReGraph, digest: str | None = None) -> None:
        self.graph = graph
        self.digest = digest or graph_digest(graph)
        self.identity = f"offline:{self.digest[:12]}"
        self._steps: dict[tuple[str, str, str], list[tuple[str, Example]]] = {}
        for edge, ex in graph.examples():
            key = (ex.task, edge.target, normalize_code(ex.before))
            self._steps.setdefault(key, []).append((edge.source, ex))
        for found in self._steps.values():
            found.sort(key=lambda item: (item[1].trajectory, item[1].step))
        self.requests = 0
        self.replayed = 0
        self.missed = 0

    def recorded(self, task: str, method: str, code: str) -> list[tuple[str, Example]]:
        """The recorded steps applying `method` to exactly this code of `task` (source node, example)."""
        return list(self._steps.get((task, method, normalize_code(code)), ()))

    def _answer(self, request: ChatRequest, k: int) -> tuple[str, str]:
        if not (request.template or "").startswith("optimize_step@"):
            return (
                f"[{OFFLINE_LABEL}] no recorded step: the offline policy answers only optimize_step requests "
                f"(one method applied to the current code), not {request.template or 'untemplated'} prompts",
                NO_RECORDED_STEP,
            )
        parsed = parse_step_prompt(request.last_user_message())
        if parsed is None:
            return (
                f"[{OFFLINE_LABEL}] no recorded step: the request does not have the optimize_step layout",
                NO_RECORDED_STEP,
            )
        task, method, code = parsed
        found = self.recorded(task, method, code)
        if not found:
            return (
                f"[{OFFLINE_LABEL}] no recorded step: the graph records no step of task {task!r} applying "
                f"{method!r} to this code",
                NO_RECORDED_STEP,
            )
        seed = request.params.seed or 0
        source, ex = found[(seed + k) % len(found)]
        header = (
            f"[{OFFLINE_LABEL}] recorded step {ex.step} of trajectory {ex.trajectory[:12]} "
            f"({task}: {source} -> {method}, recorded status {ex.status})\n{ex.think.strip()}\n\n"
        )
        return header + self.code_block(ex.after), "stop"

    def code_block(self, code: str) -> str:
        fence = "cuda" if self.graph.target == "cuda" else "cpp"
        return f"```{fence}\n{code.strip(chr(10))}\n```\n"

    def replayed_code(self, after: str, function: str) -> str:
        """The code a strategy reads from this policy's answer for a recorded `after` (what it evaluates)."""
        from regrapht.llm.parse import ParseFailure, extract_code

        parsed = extract_code(self.code_block(after), function_name=function)
        return after if isinstance(parsed, ParseFailure) else parsed.code

    def generate(
        self, requests: Sequence[ChatRequest], on_result: ResultCallback | None = None
    ) -> list[ChatResult]:
        results = []
        for i, request in enumerate(requests):
            texts, reasons = [], []
            for k in range(request.n):
                text, reason = self._answer(request, k)
                texts.append(text)
                reasons.append(reason)
                self.requests += 1
                if reason == NO_RECORDED_STEP:
                    self.missed += 1
                else:
                    self.replayed += 1
            result = ChatResult(tuple(texts), tuple(reasons), Usage(0, 0, False), 0.0)
            results.append(result)
            if on_result is not None:
                on_result(i, result)
        return results

    def context_length(self) -> int:
        return OFFLINE_CONTEXT

    def count_tokens(self, text: str) -> int:
        from regrapht.llm.budget import estimate_tokens

        return estimate_tokens(text)

    def describe(self) -> dict[str, Any]:
        return {
            "backend": "offline",
            "identity": self.identity,
            "label": OFFLINE_LABEL,
            "graph_sha256": self.digest,
            "target": self.graph.target,
            "recorded_steps": sum(len(v) for v in self._steps.values()),
        }

    def close(self) -> None:
        pass
