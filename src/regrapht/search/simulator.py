"""A stochastic stand-in for a model, built from the steps recorded in a ReGraph: the environment in
which search algorithms are compared (`benchmarks/search_comparison.py --env sim`).

The offline policy (`search.offline`) replays recorded steps deterministically: an unrecorded
transition fails the same way on every retry, so a search that merely avoids retrying wins, and a
recorded one never fails, so a search is never asked to tell a bad draw from a dead edge. The
simulator answers the same optimize_step requests, but as a model's samples would come:

- a transition the graph records for the task (this code, this method) succeeds with the edge's
  empirical success rate (`SimRates.recorded_success`) and returns one of its recorded outcomes,
  drawn at random; otherwise it returns a failed attempt;
- an unrecorded transition returns the current code unchanged (the model "applied" the method and
  changed nothing of consequence) with rate `SimRates.unchanged`, when the current code is one of the
  task's recorded kernels, and a failed attempt otherwise;
- every answer is an independent draw, keyed by the request's seed, so a repeated request (which a
  search context asks with a new seed) can come out differently, and a run stays reproducible.

A failed attempt is the current code with a `#error` line naming the draw: it is code, it reaches the
evaluator, and any evaluator rejects it as a compile error (`TruthTableEvals` answers it without
compiling). The simulator never invents working code: every correct answer is a recorded kernel.

`TruthTableEvals` answers evaluations from a table of measured kernels (an earlier GPU run's ground
truth), so a comparison replays anywhere without measuring anything.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from regrapht.graph.model import EdgeStats, ReGraph
from regrapht.llm.types import ChatRequest, ChatResult, ResultCallback, Usage
from regrapht.search.offline import NO_RECORDED_STEP, OfflinePolicy, normalize_code, parse_step_prompt

SIMULATOR_LABEL = "simulated policy: recorded steps drawn with fitted success rates, not a model"
FAILURE_MARK = "#error regrapht simulator: a failed attempt"


@dataclass(frozen=True)
class SimRates:
    """The simulator's rates.

    - `pooled`: the share of all recorded attempts on the graph that were verified (failure examples
      count against it), Laplace-smoothed;
    - `prior_strength`: how many pseudo-attempts at the pooled rate each edge's own record is shrunk
      towards (empirical Bayes: an edge with one verified example is not 2/3 likely to work, as
      Laplace alone would say, when nearly every recorded step on the graph worked);
    - `unchanged`: the share of unrecorded transitions that give back the current code rather than a
      failure. The graph records no such outcome, so this is an assumption (0.5: either, evenly),
      stated wherever results are reported and varied in the comparison;
    - `skill`: a multiplier on every recorded success rate, to model a weaker model than the teacher
      whose steps the graph holds (1.0: as recorded).
    """

    pooled: float
    prior_strength: float = 2.0
    unchanged: float = 0.5
    skill: float = 1.0

    @classmethod
    def fit(
        cls, graph: ReGraph, *, unchanged: float = 0.5, skill: float = 1.0, prior_strength: float = 2.0
    ) -> SimRates:
        verified = attempted = 0
        for _, ex in graph.examples():
            if ex.verified or ex.is_failure:  # labelled "slower" failures are attempts too
                attempted += 1
                verified += ex.verified
        for name, value in (("unchanged", unchanged), ("skill", skill)):
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"SimRates: {name} must be within [0, 1], got {value}")
        return cls((verified + 1) / (attempted + 2), prior_strength, unchanged, skill)

    def recorded_success(self, stats: EdgeStats) -> float:
        """The chance that a recorded transition on an edge with these statistics works when asked."""
        tried = stats.verified + stats.failures
        rate = (stats.verified + self.prior_strength * self.pooled) / (tried + self.prior_strength)
        return self.skill * rate

    def to_dict(self) -> dict[str, float]:
        return asdict(self)


def _draw(*parts: object) -> float:
    """A uniform number in [0, 1) fixed by `parts`."""
    digest = hashlib.sha256(json.dumps([str(p) for p in parts]).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


class SimulatedPolicy:
    """Answers optimize_step requests with draws from the recorded data (see the module doc). It
    implements the `ChatModel` protocol; its identity names the graph, the rates and the seed."""

    label = SIMULATOR_LABEL

    def __init__(self, graph: ReGraph, rates: SimRates | None = None, seed: int = 0) -> None:
        self.replay = OfflinePolicy(graph)
        self.graph = graph
        self.rates = rates or SimRates.fit(graph)
        self.seed = seed
        self.digest = self.replay.digest
        tag = hashlib.sha256(json.dumps([self.rates.to_dict(), seed], sort_keys=True).encode()).hexdigest()
        self.identity = f"simulated:{self.digest[:12]}:{tag[:12]}"
        self._kernels: dict[str, set[str]] = {}
        for _, ex in graph.examples():
            self._kernels.setdefault(ex.task, set()).add(normalize_code(ex.after))
        self.draws = {"recorded": 0, "recorded_failed": 0, "unchanged": 0, "failed": 0, "refused": 0}

    def _failure(self, code: str, draw: float) -> tuple[str, str]:
        body = code.rstrip("\n") + f"\n{FAILURE_MARK} (draw {draw:.12f})\n"
        return "[" + SIMULATOR_LABEL + "] a failed attempt\n\n" + self.replay.code_block(body), "stop"

    def answer(self, request: ChatRequest, k: int) -> tuple[str, str]:
        if not (request.template or "").startswith("optimize_step@"):
            self.draws["refused"] += 1
            return f"[{SIMULATOR_LABEL}] answers only optimize_step requests", NO_RECORDED_STEP
        parsed = parse_step_prompt(request.last_user_message())
        if parsed is None:
            self.draws["refused"] += 1
            return f"[{SIMULATOR_LABEL}] the request does not have the optimize_step layout", NO_RECORDED_STEP
        task, method, code = parsed
        seed = request.params.seed or 0
        u = _draw(self.seed, seed, k, task, method, normalize_code(code))
        found = self.replay.recorded(task, method, code)
        if found:
            chance = max(self.rates.recorded_success(self.graph.edge(src, method).stats) for src, _ in found)
            if u < chance:
                self.draws["recorded"] += 1
                # a success returns a recorded outcome that worked: failure examples are drawn, as
                # failures, by the rate above
                worked = [f for f in found if not f[1].is_failure] or found
                pick = int(_draw("outcome", self.seed, seed, k, task, method) * len(worked))
                source, ex = worked[pick]
                header = f"[{SIMULATOR_LABEL}] recorded step ({task}: {source} -> {method})\n\n"
                return header + self.replay.code_block(ex.after), "stop"
            self.draws["recorded_failed"] += 1
            return self._failure(code, u)
        if normalize_code(code) in self._kernels.get(task, ()) and u < self.rates.unchanged:
            self.draws["unchanged"] += 1
            return f"[{SIMULATOR_LABEL}] the code, unchanged\n\n" + self.replay.code_block(code), "stop"
        self.draws["failed"] += 1
        return self._failure(code, u)

    def generate(
        self, requests: Sequence[ChatRequest], on_result: ResultCallback | None = None
    ) -> list[ChatResult]:
        results = []
        for i, request in enumerate(requests):
            answers = [self.answer(request, k) for k in range(request.n)]
            result = ChatResult(
                tuple(a[0] for a in answers), tuple(a[1] for a in answers), Usage(0, 0, False), 0.0
            )
            results.append(result)
            if on_result is not None:
                on_result(i, result)
        return results

    def context_length(self) -> int:
        return self.replay.context_length()

    def count_tokens(self, text: str) -> int:
        return self.replay.count_tokens(text)

    def describe(self) -> dict[str, Any]:
        return {
            "backend": "simulated",
            "identity": self.identity,
            "label": SIMULATOR_LABEL,
            "graph_sha256": self.digest,
            "target": self.graph.target,
            "rates": self.rates.to_dict(),
            "seed": self.seed,
            "draws": dict(self.draws),  # how the answers so far came out
        }

    def close(self) -> None:
        pass


class TruthTableEvals:
    """Answers a search's evaluations from a ground-truth table (an earlier run's report: the kernels
    it measured, by code hash: status, reward, speedup over serial and its 95% CI), and measures
    nothing. The offline and simulated policies only ever propose recorded kernels or the simulator's
    failed attempts; the table holds every recorded kernel, and a failed attempt is a compile error
    (its `#error` line fails any build). Anything else raises LookupError rather than being measured
    under the report's machine name."""

    def __init__(self, report: dict[str, Any]) -> None:
        self.report = report
        self.table = {
            (task_id, row["sha"]): row
            for task_id, truth in report["tasks"].items()
            for row in truth["kernels"]
        }
        self.config_hash = "truth:" + json.dumps(report.get("eval_config"), sort_keys=True)
        self.fresh = 0

    def machine(self, target: str) -> str:
        return str(self.report["machine"])

    def evaluate_many(self, requests: Any) -> list[Any]:
        from regrapht.eval.record import Evaluation
        from regrapht.search.evaluate import EvalOutcome
        from regrapht.search.record import code_hash

        out = []
        for request in requests:
            sha = code_hash(request.source)
            key = f"truth:{request.task.id}:{sha}"
            if FAILURE_MARK in request.source:
                ev = Evaluation(
                    request.task.id, request.target, "compile_error", "#error: a simulated failure", sha
                )
                ev.reward = -1.0
                out.append(EvalOutcome(ev, key, reused=True))
                continue
            row = self.table.get((request.task.id, sha))
            if row is None:
                raise LookupError(f"task {request.task.id}: kernel {sha[:12]} is not in the replayed report")
            ev = Evaluation(request.task.id, request.target, row["status"], "", sha)
            ev.reward = row["reward"] if row["reward"] is not None else -1.0
            if row["speedup"] is not None:
                ev.speedups = {
                    "serial": {
                        "value": row["speedup"],
                        "ci_low": row["ci_low"],
                        "ci_high": row.get("ci_high"),
                        "baseline": "serial",
                    }
                }
            out.append(EvalOutcome(ev, key, reused=True))
        return out
