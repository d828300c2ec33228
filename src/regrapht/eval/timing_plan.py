"""The timing plan, decided in the worker: which input set each round uses, which timed calls are
checked (drawn in secret, so a candidate cannot tell them from the others), fresh-input keys, and
the stop rule (eval/stop_rule.py). Pure functions of the spec and a seeded generator: tested without a worker."""

from __future__ import annotations

import secrets
from typing import Any

import numpy as np

from regrapht.eval.perturb import Bounds
from regrapht.eval.stop_rule import stop_reason

# After the first timed call, one checked call is drawn in secret from each window of timed rounds
# (offsets from the first timed round): behaviour that changes on later calls is caught at calls a
# candidate cannot predict, at a cost that does not grow with the rounds. The last window ends at
# the round limit.
CHECK_WINDOWS = ((1, 8), (8, 64), (64, None))


def check_windows(max_rounds: int) -> list[tuple[int, int]]:
    """CHECK_WINDOWS as (first, end) offsets, the last ending at the round limit."""
    return [(lo, max_rounds if hi is None else hi) for lo, hi in CHECK_WINDOWS]


def set_sequence(rng: np.random.Generator, sets: int, rounds: int) -> list[int]:
    """The input set of each round: shuffled blocks in which every set comes once."""
    sequence: list[int] = []
    while len(sequence) < rounds:
        sequence.extend(int(i) for i in rng.permutation(sets))
    return sequence[:rounds]


class FreshInputs:
    """Fresh-input timing: each checked call's slot (first timed call, one per window, final) has the
    parent's key and base set; every other call a key of its own, drawn here and never reused."""

    def __init__(self, keys: list[int], slot_sets: list[int], bounds: list[dict[str, Bounds | None]]):
        self.keys, self.slot_sets, self.bounds = keys, slot_sets, bounds

    @classmethod
    def from_spec(cls, spec: dict[str, Any] | None, sets: int) -> FreshInputs | None:
        if not spec:
            return None
        slots = spec["slots"]
        if len(slots) != len(CHECK_WINDOWS) + 2 or any(not 0 <= int(s) < sets for s, _ in slots):
            raise ValueError(f"fresh inputs: {len(slots)} checked calls on sets {slots} do not fit the schedule")
        bounds = [
            {name: Bounds(*per_set[s]) if per_set[s] is not None else None for name, per_set in spec["arrays"].items()}
            for s in range(sets)
        ]
        return cls([int(k) for _, k in slots], [int(s) for s, _ in slots], bounds)

    def plan(
        self, sequence: list[int], timed_from: int, max_rounds: int, rng: np.random.Generator
    ) -> dict[int, int]:
        """Round -> slot for every checked call but the final one: the first timed round of the first
        slot's set, and in each window a round of its slot's set drawn in secret."""
        first = next(r for r in range(timed_from, len(sequence)) if sequence[r] == self.slot_sets[0])
        chosen = {first: 0}
        for w, (lo, hi) in enumerate(check_windows(max_rounds), start=1):
            rounds = [
                r
                for r in range(timed_from + lo, min(timed_from + hi, len(sequence)))
                if sequence[r] == self.slot_sets[w] and r not in chosen
            ]
            if rounds:
                chosen[rounds[int(rng.integers(len(rounds)))]] = w
        return chosen

    def final_round(self, sequence: list[int], after: int, chosen: dict[int, int]) -> int:
        """The first round from `after` on of the final slot's set that no other check took."""
        return next(
            r for r in range(after, len(sequence)) if sequence[r] == self.slot_sets[-1] and r not in chosen
        )


def enough(
    samples: dict[str, dict[str, list[float]]],
    spec: dict[str, Any],
    elapsed: float,
    rounds: int,
    timed: int,
) -> bool:
    """Whether the timed rounds so far are enough (`rounds` rounds run, `timed` of them timed,
    `elapsed` seconds since the timing began): eval/stop_rule.py says why."""
    return stop_reason(samples, spec, elapsed, rounds, timed) is not None


class CheckSchedule:
    """Which round uses which input set, which rounds are timed (after the warm-up), which calls are
    checked, and which round is the last. The generator's draws come in a fixed order (the set
    sequence, the check offsets, then the fresh-input plan once the warm-up ends), so a seed gives
    one schedule."""

    def __init__(self, spec: dict[str, Any], rng: np.random.Generator, sets: int, fresh: FreshInputs | None):
        self.rng, self.fresh = rng, fresh
        self.max_rounds = int(spec["max_rounds"])
        self.check_libs = set(spec["check_libs"])
        # One input set per round, shared by every kernel, so timings compare like with like even
        # when the sets differ in cost (a power-law matrix's longest row, say). Sets come in shuffled
        # blocks of one each, so every set weighs the same in the medians; drawn ahead, so fresh
        # inputs can place each checked call on the set its expected outputs were computed for.
        self.sequence = set_sequence(rng, sets, self.max_rounds + 8 * sets + 8)
        # Checked calls: the first timed round, one drawn in secret from each window, and a final
        # round the candidate cannot tell from the others (see CHECK_WINDOWS).
        self.offsets = {0} | {int(rng.integers(lo, hi)) for lo, hi in check_windows(self.max_rounds) if hi > lo}
        # Fresh inputs: checked round -> its slot (its key and base set), planned once the warm-up ends.
        self.checked_rounds: dict[int, int] = {}
        # Warm-up: `warmup_rounds` rounds, fewer for slow kernels (never none): once `warmup_s` is
        # spent, one more call of seconds warms nothing the first did not.
        self.warmup_rounds = int(spec["warmup_rounds"])
        self.warmup_s = float(spec.get("warmup_s", float("inf")))
        self.timed_from: int | None = 0 if self.warmup_rounds == 0 else None
        self.stop_after: int | None = None
        if fresh is not None and self.timed_from is not None:
            self.checked_rounds = fresh.plan(self.sequence, self.timed_from, self.max_rounds, rng)

    def timed(self, round_index: int) -> bool:
        return self.timed_from is not None and round_index >= self.timed_from

    def final(self, round_index: int) -> bool:
        return self.stop_after is not None and round_index == self.stop_after

    def slot(self, round_index: int) -> int | None:
        """Fresh inputs: the checked call's slot of this round, or None."""
        return self.checked_rounds.get(round_index) if self.fresh is not None else None

    def key(self, round_index: int) -> int:
        """The round's perturbation key. Every call of a round sees the same inputs; every round new
        ones (fresh inputs). A checked round's key was chosen by the parent, the others' here, never
        to be seen again."""
        slot = self.slot(round_index)
        return secrets.randbits(64) if self.fresh is None or slot is None else self.fresh.keys[slot]

    def checked(self, lib: str, round_index: int) -> bool:
        """Whether `lib`'s call in this round is checked."""
        if lib not in self.check_libs:
            return False
        if self.fresh is not None:
            return self.slot(round_index) is not None
        return self.final(round_index) or (
            self.timed(round_index) and round_index - self.timed_from in self.offsets  # type: ignore[operator]
        )

    def next_round(self, round_index: int, elapsed: float) -> None:
        """Round `round_index` comes next: the warm-up ends here once its rounds or seconds are spent."""
        if self.timed_from is None and (round_index >= self.warmup_rounds or elapsed >= self.warmup_s):
            self.timed_from = round_index
            if self.fresh is not None:
                self.checked_rounds = self.fresh.plan(self.sequence, self.timed_from, self.max_rounds, self.rng)

    def timed_rounds(self, round_index: int) -> int:
        return 0 if self.timed_from is None else round_index - self.timed_from

    def stop(self, round_index: int) -> bool:
        """The stop rule has been met before round `round_index`: True when the timing ends at once
        (nothing to check, so no final round is owed: the serial reference), else the final checked
        round is set. With fresh inputs it falls on the next round of its slot's set that no other
        check took; the rounds before it are timed as any other (with two sets, at most three)."""
        if not self.check_libs:
            return True
        self.stop_after = round_index
        if self.fresh is not None:
            self.stop_after = self.fresh.final_round(self.sequence, round_index, self.checked_rounds)
            self.checked_rounds[self.stop_after] = len(self.fresh.keys) - 1
        return False
