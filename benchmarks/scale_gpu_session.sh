#!/usr/bin/env bash
# One device call for issues 21 and 22: evaluations and RL rewards on one GPU and on two, side by side.
#
#   OUT=/path bash benchmarks/scale_gpu_session.sh        (from the repository root; results under $OUT)
#
# On a host with two or more GPUs each benchmark runs on GPU 0, then on GPUs 0,1, with the same
# candidates and the same starting state (stated in each result: a cold compile cache and a fresh
# serial-baseline store per run); on a host with one GPU, GPU 0 only. About 500 s in all: the
# benchmarks get what is left of BUDGET_S (default 500) in turn, and a benchmark stopped by its
# limit leaves its log. Optional: MIXES="throughput clean" (the eval mix without compile errors too,
# about 100 s more), BASELINES_FIRST=1 (serial baselines timed once before the eval runs, each run
# starting from a copy), RL_ROUNDS (warm RL rounds per series, default 1).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export PYTHONPATH=$PWD/src:$PWD${PYTHONPATH:+:$PYTHONPATH}
export PYTHONUNBUFFERED=1
PY=${PYTHON:-python3}
BUDGET_S=${BUDGET_S:-500}
began=$(date +%s)
left() { echo $(( BUDGET_S - ($(date +%s) - began) )); }

{
  date -u
  nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv 2>&1
  $PY -c "import sys, numpy; print(sys.version.split()[0], 'numpy', numpy.__version__)"
  nproc; git log --oneline -1 2>/dev/null || true
} 2>&1 | tee "$OUT/scale_env.txt"

gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
if [ "$gpus" -ge 2 ]; then lists="0 0,1"; else lists="0"; fi
echo "GPUs visible: $gpus; GPU lists measured: $lists" | tee -a "$OUT/scale_env.txt"
if [ "$gpus" -lt 1 ]; then
  echo "no GPU visible: nothing to measure" | tee -a "$OUT/scale_env.txt"
  exit 1
fi

# 1. The evaluator: the throughput mix (50 candidates over 10 tasks), one run per GPU list.
eval_limit=$(( $(left) * 55 / 100 ))
extra=""
[ "${BASELINES_FIRST:-0}" = 1 ] && extra="--baselines-first"
timeout "$eval_limit" $PY benchmarks/eval_throughput.py --out "$OUT" --skip-repeatability \
  --gpus $lists --mixes ${MIXES:-throughput} $extra 2>&1 | tee "$OUT/eval_throughput.txt" \
  | grep -v '^ *[\[\]{}"]' | grep -v '^ *[0-9-]' | tail -20
echo "eval_throughput: exit ${PIPESTATUS[0]} after $(( $(date +%s) - began )) s (limit $eval_limit s)" | tee -a "$OUT/scale_env.txt"

# 2. The RL environment: 64 completions over 8 problems (4 correct, 2 wrong, 2 compile errors per
# group), one series per GPU list: a cold round, then RL_ROUNDS warm ones.
rl_limit=$(( $(left) - 10 ))
if [ "$rl_limit" -gt 60 ]; then
  timeout "$rl_limit" $PY benchmarks/rl_throughput.py --target cuda --gpus $lists --rounds ${RL_ROUNDS:-1} --no-http \
    --out "$OUT/rl_throughput.json" 2>&1 | tee "$OUT/rl_throughput.txt" | grep '^RL rewards' | tail -4
  echo "rl_throughput: exit ${PIPESTATUS[0]} after $(( $(date +%s) - began )) s (limit $rl_limit s)" | tee -a "$OUT/scale_env.txt"
else
  echo "rl_throughput: not run, ${rl_limit} s left" | tee -a "$OUT/scale_env.txt"
fi

# 3. The numbers the issues ask for, in one file.
$PY - "$OUT" <<'EOF' 2>&1 | tee "$OUT/scale_summary.txt"
import json, sys
from pathlib import Path
out = Path(sys.argv[1])
summary = {}
try:
    report = json.loads((out / "eval_throughput.json").read_text())
    runs = report.get("throughput", [])
    summary["eval"] = [
        {k: t.get(k) for k in ("mix", "lanes", "gpus", "candidates", "wall_s", "evals_per_minute_wall",
                               "evals_per_gpu_minute", "evals_per_gpu_minute_wall", "statuses", "state")}
        | {"held_per_candidate_s": t["phases"]["held_per_candidate_s"]}
        for t in runs
    ]
    for mix in sorted({t["mix"] for t in runs}):
        one = [t for t in runs if t["mix"] == mix and t["lanes"] == "0"]
        two = [t for t in runs if t["mix"] == mix and t["lanes"] == "0,1"]
        if one and two:
            summary[f"eval_{mix}_two_vs_one_wall"] = two[0]["evals_per_minute_wall"] / one[0]["evals_per_minute_wall"]
except (OSError, ValueError, KeyError) as exc:
    summary["eval_error"] = f"{type(exc).__name__}: {exc}"
try:
    rl = json.loads((out / "rl_throughput.json").read_text())
    summary["rl"] = [
        {k: s.get(k) for k in ("lanes", "gpus", "completions", "first_round_s", "in_process_s", "rewards_per_minute_cold",
                               "rewards_per_gpu_minute_cold", "rewards_per_minute_in_process", "rewards_per_gpu_minute_warm",
                               "cold_vs_first", "warm_vs_first", "verdicts_match_first", "statuses")}
        for s in rl["series"]
    ]
except (OSError, ValueError, KeyError) as exc:
    summary["rl_error"] = f"{type(exc).__name__}: {exc}"
(out / "scale_summary.json").write_text(json.dumps(summary, indent=1))
print(json.dumps(summary, indent=1))
EOF
echo "done after $(( $(date +%s) - began )) s"
