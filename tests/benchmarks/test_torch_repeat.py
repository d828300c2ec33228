"""benchmarks/torch_repeat.py's mode split and benchmarks/torch_repeat_probe.py's summary, on the
series the H100 gave (issue 17): relu's Triton candidate in two modes by process."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))

from torch_repeat import modes_text, spread, two_modes  # noqa: E402
from torch_repeat_probe import correlation, cpu_now, parse_cpulist, summarize  # noqa: E402

# session 13, 8 evaluations, one evaluator (speedup, candidate ms, eager ms)
S13 = [(0.9008, 0.2209, 0.1990), (0.8068, 0.2791, 0.2252), (0.8151, 0.2795, 0.2279), (0.8004, 0.2671, 0.2138),
       (0.8085, 0.2733, 0.2210), (0.8999, 0.2204, 0.1983), (0.8231, 0.2642, 0.2175), (0.8969, 0.2215, 0.1986)]  # fmt: skip
# session 12: one low value in an otherwise even spread
S12 = [0.8505, 0.9125, 0.9138, 0.8778, 0.7991, 0.8804, 0.9008]


def test_two_modes_finds_the_split_of_the_h100_series() -> None:
    (low, n_low), (high, n_high) = two_modes([s for s, _, _ in S13])
    assert (n_low, n_high) == (5, 3)
    assert abs(low - 0.8085) < 1e-9 and abs(high - 0.8999) < 1e-9


def test_an_even_spread_or_a_tight_series_is_one_mode() -> None:
    assert two_modes(S12) is None
    assert two_modes([0.900, 0.901, 0.903, 0.902, 0.899]) is None
    assert two_modes([0.8, 0.9, 0.85]) is None  # too few to tell


def test_modes_text_names_each_modes_medians() -> None:
    rows = [{"status": "correct", "speedup_vs_eager": s, "candidate_median_ms": c, "eager_median_ms": e} for s, c, e in S13]
    text = modes_text(rows + [{"status": "incorrect", "speedup_vs_eager": None}])
    assert text.startswith("slow mode: 5 evaluations, speedup median 0.8085, candidate 0.2733 ms, eager 0.2210 ms")
    assert "fast mode: 3 evaluations, speedup median 0.8999, candidate 0.2209 ms, eager 0.1986 ms" in text
    one = modes_text(rows[:1] * 4)
    assert one.startswith("one mode: 4 evaluations") and modes_text([]) == "no correct evaluation"


def _run(mode: str, speedups: dict[str, float], dispatch: float) -> dict:
    variants = {}
    for name, s in speedups.items():
        variants[name] = {"speedup": s, "candidate_ms": 0.2 / s, "eager_ms": 0.2, "dispatch_us": {"candidate": dispatch, "eager": dispatch / 3},
                          "cpu_after": {"cpu": 3, "node": "node0"}, "involuntary_switches": 0}  # fmt: skip
    return {"mode": mode, "variants": variants, "pointers": {"candidate": [{"mod_2mib": 0}]}, "clocks": {}}


def test_probe_summary_compares_the_variants_per_mode() -> None:
    runs = [_run("plain", {"none": 0.90, "hold300": 0.952}, 35.0), _run("load", {"none": 0.80, "hold300": 0.950}, 85.0),
            _run("plain", {"none": 0.90, "hold300": 0.951}, 36.0), _run("load", {"none": 0.81, "hold300": 0.951}, 80.0),
            {"mode": "sandbox", "error": "timed out"}]  # fmt: skip
    lines = summarize(runs, ["none", "hold300"])
    text = "\n".join(lines)
    assert lines[0].startswith("none: n=4") and "two modes: 0.8050 (x2) and 0.9000 (x2)" in lines[0]
    assert any(line.startswith("hold300: n=4") and "spread 0.21%" in line for line in lines)
    assert "correlation of the speedup with the candidate's dispatch time: -1.00" in text
    assert abs(spread([0.8, 0.9]) - 0.125) < 1e-12


def test_probe_helpers() -> None:
    assert parse_cpulist("0-3,8,10-11\n") == {0, 1, 2, 3, 8, 10, 11}
    assert correlation([1, 2, 3], [2, 4, 6]) == 1.0 and correlation([1, 1, 1], [1, 2, 3]) is None
    here = cpu_now()
    assert isinstance(here["cpu"], int) and here["cpu"] >= 0
