#!/usr/bin/env bash
# One device call each for issues 21, 22 and 20: GPU scaling of the evaluator and of RL rewards, and
# the cost of the defences, each part with its own hard time limit. From the repository root:
#
#   OUT=/path bash benchmarks/scale_gpu_session.sh scale       # (a) + (b), within TOTAL_S (480) s of wall
#   OUT=/path bash benchmarks/scale_gpu_session.sh defences    # (c), within TOTAL_S s
#   TARGET=cpu OUT=/tmp/s bash benchmarks/scale_gpu_session.sh scale   # a dry run of the logic, no GPU
#
# scale, on a host with two or more GPUs (GPU 0 alone on a host of one):
#   (a) eval: benchmarks/eval_throughput.py, the throughput mix (five candidates per task, one a
#       syntax error) over EVAL_TASKS (six of the ten fixed tasks, so that both runs fit), on GPU 0,
#       then on GPUs 0,1. Each run COLD: a fresh compile cache and a fresh serial-baseline store of
#       its own, lane processes started inside the measured time. Nothing leaks from one run to the
#       other; each prints its evaluations per wall minute as soon as it ends, then the ratio.
#   (b) RL: benchmarks/rl_throughput.py, a GRPO-sized batch (64 completions over 8 problems: 4
#       correct, 2 wrong, 2 compile errors per group of 8), on GPU 0, then on GPUs 0,1. Each series
#       has a fresh compile cache; a first round of one completion per problem builds the bench data
#       (and, in the first series, settles the serial baselines, which the second series starts from
#       a copy of); then one measured round of 64 completions with new texts, so their compiles are
#       made anew. The measured rounds are WARM in the same way in both series (bench data built,
#       baselines kept, compiles cold): a trainer's steady state. The first rounds are not compared.
# defences, on GPU 0: (c) eval_throughput.py --modes bare defended over the ten fixed tasks, each
#   run cold as in (a).
#
# On a host of more than two GPUs, only GPUs 0 and 1 are used and every part runs under taskset on
# the first (cores x 2 / GPUs) of this process's cores (scale) or (cores / GPUs) (defences on a host
# of two or more), so the run resembles a host of two GPUs (or of one); recorded in scale_env.txt and
# the summary. Lanes and compile pools size themselves by the cores they may use.
#
# Expected on an H100 host (session 10's rates): (a) about 120 s then 70 s, limit EVAL_LIMIT_S
# (210); (b) about 75 + 35 s then 25 + 20 s, limit RL_LIMIT_S (230, less what (a) left of TOTAL_S);
# (c) about 100 s then 200 s, limit DEFENCES_LIMIT_S (450). A part stopped by its limit keeps what it
# measured (each run is written as it ends); its log is under $OUT.
set -u
PART=${1:-scale}
case "$PART" in scale|defences) ;; *) echo "usage: $0 [scale|defences]" >&2; exit 2 ;; esac
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export PYTHONPATH=$PWD/src:$PWD${PYTHONPATH:+:$PYTHONPATH}
export PYTHONUNBUFFERED=1
PY=${PYTHON:-python3}
TARGET=${TARGET:-cuda}
TOTAL_S=${TOTAL_S:-480}
EVAL_TASKS=${EVAL_TASKS:-saxpy sum_of_squares spmv_csr histogram_u8 softmax_rows transpose}
RL_GROUPS=${RL_GROUPS:-8}
RL_GROUP_SIZE=${RL_GROUP_SIZE:-8}
began=$(date +%s)
elapsed() { echo $(( $(date +%s) - began )); }
left() { echo $(( TOTAL_S - $(elapsed) )); }

# ---- the host, the GPUs measured, and the CPU share ----------------------------------------------
cores=$(nproc)  # this process's cores (its affinity), as the lanes count them
if [ "$TARGET" = cuda ]; then
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
  if [ "$gpus" -lt 1 ]; then echo "no GPU visible: nothing to measure (TARGET=cpu for a dry run)" | tee "$OUT/scale_env.txt"; exit 1; fi
  if [ "$gpus" -ge 2 ]; then one=0; two=0,1; else one=0; two=""; fi
  lanes_flag=--gpus
else
  gpus=0; one=1; two=2; lanes_flag=--cpu-lanes
fi
# HOST_GPUS stands in for the GPU count in the CPU share only: a cpu dry run of the pinning
# (TARGET=cpu HOST_GPUS=4 pins to half the cores, as on a four-GPU host).
host_gpus=${HOST_GPUS:-$gpus}
share=$cores
if [ "$host_gpus" -gt 2 ] && [ "$PART" = scale ]; then share=$(( cores * 2 / host_gpus )); fi
if [ "$host_gpus" -ge 2 ] && [ "$PART" = defences ]; then share=$(( cores / host_gpus )); fi
[ "$share" -lt 1 ] && share=1
PIN=()
if [ "$share" -lt "$cores" ]; then
  cpus=$($PY -c "import os, sys; print(','.join(map(str, sorted(os.sched_getaffinity(0))[:int(sys.argv[1])])))" "$share")
  PIN=(taskset -c "$cpus")
fi
{
  date -u
  echo "part: $PART; target: $TARGET; wall limit: $TOTAL_S s"
  [ "$TARGET" = cuda ] && nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv 2>&1
  $PY -c "import sys, numpy; print(sys.version.split()[0], 'numpy', numpy.__version__)"
  git log --oneline -1 2>/dev/null || true
  if [ "$PART" = scale ]; then measured="${one}${two:+ then $two}"; else measured=$one; fi
  echo "GPUs visible: $gpus; lanes measured: $measured; cores: $cores of $(nproc --all) on the host"
  if [ ${#PIN[@]} -gt 0 ]; then echo "pinned: ${PIN[*]} ($share cores: the share of a host with $([ "$PART" = scale ] && echo two GPUs || echo one GPU))"
  else echo "pinned: no (all $cores cores)"; fi
} 2>&1 | tee "$OUT/scale_env.txt"

# run_part NAME LIMIT COMMAND...: the command under its hard limit (SIGTERM, then SIGKILL 10 s on, to
# its process group: lanes included), its results printed as they are measured, its exit recorded.
run_part() {
  local name=$1 limit=$2; shift 2
  if [ "$limit" -lt 30 ]; then
    echo "$name: not run, ${limit} s left" | tee -a "$OUT/scale_env.txt"; return
  fi
  echo "== $name: limit $limit s, from $(elapsed) s" | tee -a "$OUT/scale_env.txt"
  timeout -k 10 "$limit" ${PIN[@]+"${PIN[@]}"} "$@" 2>&1 | tee "$OUT/$name.log" | grep --line-buffered -E '^(measured:|RL rewards|serial baselines timed|[a-z]+ mix, )'
  echo "$name: exit ${PIPESTATUS[0]} after $(elapsed) s (limit $limit s)" | tee -a "$OUT/scale_env.txt"
  if [ "$TARGET" = cuda ]; then
    # A part stopped by its limit must not leave work on the GPUs the next part measures.
    for _ in 1 2 3 4 5 6; do
      # only the GPUs this run may use: on a shared host the other GPUs' work is not this run's residue
      left_on_gpu=$(nvidia-smi ${CUDA_VISIBLE_DEVICES:+-i "$CUDA_VISIBLE_DEVICES"} --query-compute-apps=pid,process_name --format=csv,noheader 2>/dev/null)
      [ -z "$left_on_gpu" ] && break
      sleep 5
    done
    [ -n "${left_on_gpu:-}" ] && echo "$name: still on the GPUs 30 s later: $left_on_gpu" | tee -a "$OUT/scale_env.txt"
  fi
}

lists=("$one"); [ -n "$two" ] && lists+=("$two")
if [ "$PART" = scale ]; then
  # shellcheck disable=SC2086  # EVAL_TASKS is a list of words
  run_part eval_throughput "$(( ${EVAL_LIMIT_S:-210} < $(left) - 40 ? ${EVAL_LIMIT_S:-210} : $(left) - 40 ))" \
    $PY benchmarks/eval_throughput.py --target "$TARGET" --out "$OUT/eval" --skip-repeatability \
    "$lanes_flag" "${lists[@]}" --mixes throughput --tasks $EVAL_TASKS
  run_part rl_throughput "$(( ${RL_LIMIT_S:-230} < $(left) - 10 ? ${RL_LIMIT_S:-230} : $(left) - 10 ))" \
    $PY benchmarks/rl_throughput.py --target "$TARGET" "$lanes_flag" "${lists[@]}" --groups "$RL_GROUPS" \
    --group-size "$RL_GROUP_SIZE" --rounds 1 --warmup 1 --fresh-text --share-baselines --no-http \
    --out "$OUT/rl_throughput.json"
else
  # shellcheck disable=SC2086
  run_part defences "$(( ${DEFENCES_LIMIT_S:-450} < $(left) - 10 ? ${DEFENCES_LIMIT_S:-450} : $(left) - 10 ))" \
    $PY benchmarks/eval_throughput.py --target "$TARGET" --out "$OUT/defences" --skip-repeatability \
    "$lanes_flag" "$one" --modes bare defended ${DEFENCES_TASKS:+--tasks $DEFENCES_TASKS}
fi

# ---- the numbers the issues ask for, in one file ----------------------------------------------------
$PY - "$OUT" "$PART" "$one" "$two" "${PIN[*]:-none}" <<'EOF' 2>&1 | tee "$OUT/scale_summary.txt"
import json, sys
from pathlib import Path

out, part, one, two, pin = Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
summary = {"part": part, "pinned": pin, "env": (out / "scale_env.txt").read_text().splitlines()}
keys = ("mix", "mode", "lanes", "gpus", "candidates", "tasks", "wall_s", "evals_per_minute_wall", "evals_per_gpu_minute",
        "evals_per_gpu_minute_wall", "statuses", "state")


def runs(path: Path) -> list:
    try:
        return json.loads(path.read_text()).get("throughput", [])
    except (OSError, ValueError) as exc:
        summary.setdefault("missing", []).append(f"{path.name}: {type(exc).__name__}: {exc}")
        return []


if part == "scale":
    evals = runs(out / "eval" / "eval_throughput.json")
    summary["eval"] = [{k: t.get(k) for k in keys} | {"held_per_candidate_s": t["phases"]["held_per_candidate_s"]} for t in evals]
    first = [t for t in evals if t["lanes"] == one]
    second = [t for t in evals if t["lanes"] == two]
    if first and second:
        summary["eval_two_vs_one_wall"] = round(second[0]["evals_per_minute_wall"] / first[0]["evals_per_minute_wall"], 3)
    try:
        rl = json.loads((out / "rl_throughput.json").read_text())
        summary["rl_state"] = rl.get("state")
        summary["rl"] = [{k: s.get(k) for k in (
            "lanes", "lane_names", "gpus", "first_round_completions", "first_round_s", "first_round_state", "completions",
            "in_process_s", "rewards_per_minute_in_process", "rewards_per_gpu_minute_warm", "warm_round_state",
            "unexpected_statuses", "statuses")} for s in rl["series"]]
        a, b = (rl["series"] + [None])[:2]
        if b and a.get("rewards_per_minute_in_process") and b.get("rewards_per_minute_in_process"):
            summary["rl_two_vs_one_warm"] = round(b["rewards_per_minute_in_process"] / a["rewards_per_minute_in_process"], 3)
            summary["rl_verdicts_match"] = a["verdicts"] == b["verdicts"]
    except (OSError, ValueError, KeyError) as exc:
        summary["rl_error"] = f"{type(exc).__name__}: {exc}"
else:
    evals = runs(out / "defences" / "eval_throughput.json")
    summary["defences"] = [{k: t.get(k) for k in keys} | {"held_per_candidate_s": t["phases"]["held_per_candidate_s"]} for t in evals]
    modes = {t["mode"]: t for t in evals}
    if "bare" in modes and "defended" in modes:
        summary["defended_vs_bare_wall"] = round(modes["defended"]["evals_per_minute_wall"] / modes["bare"]["evals_per_minute_wall"], 3)
(out / "scale_summary.json").write_text(json.dumps(summary, indent=1))
print(json.dumps({k: v for k, v in summary.items() if k != "env"}, indent=1))
EOF
echo "done after $(elapsed) s"
