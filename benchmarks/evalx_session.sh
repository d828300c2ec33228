#!/usr/bin/env bash
# Issue 21 in one device call on a four-GPU host (about 300 s of wall), everything in $OUT/evalx.tar.gz:
#
#   OUT=/path bash benchmarks/evalx_session.sh                  # from the repository root
#   TARGET=cpu TASKS="saxpy" OUT=/tmp/x bash benchmarks/evalx_session.sh   # a dry run, no GPU
#
# Every run is benchmarks/eval_throughput.py through the device pool, cold (fresh compile cache and
# serial-baseline store), on its own GPU(s) and its own cores (taskset: a quarter of the host's per
# GPU, as a one-GPU host of 16 cores has), side by side:
#   phase 1: GPU 0 the one-GPU defended run of the throughput mix; GPUs 1,2 the two-GPU defended run
#            of the same mix on twice the cores (the ratio: evaluations per wall minute, two vs one);
#            GPU 3 the one-GPU bare run (the defences' cost beside the defended one);
#   phase 2: GPU 0 and GPU 1 the clean mix (no compile errors), defended and bare; GPU 2 the
#            repeatability series (saxpy's correct.cu, 10 independent evaluations, default config);
#            GPU 3 the defended throughput run again with half the timing budget (0.5 s), to show
#            what the budget-bound slow kernels cost.
# The summary (stdout and summary.txt) gives each run's evaluations per GPU-minute and where the
# GPU-held time went, the two-GPU ratio, defended vs bare per mix, and the repeatability spread.
set -u
OUT=${OUT:-/tmp/out}
TARGET=${TARGET:-cuda}
W=$OUT/evalx
rm -rf "$W"; mkdir -p "$W"
export PYTHONPATH=$PWD/src:$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
PY=${PYTHON:-python3}
# shellcheck disable=SC2206  # a list of words
TASK_ARGS=(${TASKS:+--tasks $TASKS})
began=$(date +%s)
left() { echo $(( ${TOTAL_S:-300} - ($(date +%s) - began) )); }
read -r -a cores <<< "$($PY -c 'import os; print(*sorted(os.sched_getaffinity(0)))')"
quarter=$(( ${#cores[@]} / 4 ))
if [ "$TARGET" = cuda ]; then
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')
  [ "$gpus" -ge 4 ] || { echo "needs four GPUs of one host, $gpus visible" | tee "$W/env.txt"; exit 1; }
  one=(--gpus 0); two=(--gpus 0,1)
else
  one=(--cpu-lanes 1); two=(--cpu-lanes 2)
fi
{ date -u; git log --oneline -1 2>/dev/null; echo "target $TARGET; ${#cores[@]} cores, $quarter per GPU"
  [ "$TARGET" = cuda ] && nvidia-smi --query-gpu=index,name,driver_version --format=csv; } > "$W/env.txt" 2>&1

# job NAME GPUS FIRST_CORE CORES LIMIT ARGS...: eval_throughput.py on those GPUs (CUDA_VISIBLE_DEVICES)
# and cores (none pinned where the host has fewer than four per GPU share: a dry run), in the background.
job() {
  local name=$1 vis=$2 first=$3 n=$4 limit=$5; shift 5
  local pin=()
  if [ "$quarter" -ge 1 ] && [ $((first + n)) -le ${#cores[@]} ]; then
    pin=(taskset -c "$(IFS=,; echo "${cores[*]:first:n}")")
  fi
  (
    [ "$TARGET" = cuda ] && export CUDA_VISIBLE_DEVICES=$vis
    timeout -k 10 "$limit" ${pin[@]+"${pin[@]}"} $PY benchmarks/eval_throughput.py --target "$TARGET" \
      --out "$W/$name" "$@" > "$W/$name.log" 2>&1
    echo "$name: exit $? after $(( $(date +%s) - began )) s (GPUs $([ "$TARGET" = cuda ] && echo "$vis" || echo none: cpu target), ${pin[*]:-unpinned})" >> "$W/env.txt"
  ) &
}
q=$quarter
limit=${PHASE1_S:-170}
job one_defended 0 0 "$q" "$limit" "${one[@]}" --modes defended --mixes throughput --skip-repeatability "${TASK_ARGS[@]}"
job two_defended 1,2 "$q" $((2 * q)) "$limit" "${two[@]}" --modes defended --mixes throughput --skip-repeatability "${TASK_ARGS[@]}"
job one_bare 3 $((3 * q)) "$q" "$limit" "${one[@]}" --modes bare --mixes throughput --skip-repeatability "${TASK_ARGS[@]}"
wait
limit=$(( $(left) < ${PHASE2_S:-125} ? $(left) : ${PHASE2_S:-125} ))
job clean_defended 0 0 "$q" "$limit" "${one[@]}" --modes defended --mixes clean --skip-repeatability "${TASK_ARGS[@]}"
job clean_bare 1 "$q" "$q" "$limit" "${one[@]}" --modes bare --mixes clean --skip-repeatability "${TASK_ARGS[@]}"
[ "$TARGET" = cuda ] && job repeatability 2 $((2 * q)) "$q" "$limit" --skip-throughput --runs 10
# What half the timing budget would give (slow kernels are bound by it), beside the default's runs.
job half_budget 3 $((3 * q)) "$q" "$limit" "${one[@]}" --modes defended --mixes throughput --budget-s 0.5 \
  --skip-repeatability "${TASK_ARGS[@]}"
wait
$PY benchmarks/evalx_summary.py "$W" | tee "$W/summary.txt"
tar czf "$OUT/evalx.tar.gz" -C "$OUT" evalx && rm -rf "$W"
echo "done after $(( $(date +%s) - began )) s: $OUT/evalx.tar.gz"
