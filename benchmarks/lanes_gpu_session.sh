#!/usr/bin/env bash
# Issue 21's lane scaling, the defences' cost, the clean mix and repeatability: one device call on a
# host of four GPUs, every job on GPUs and cores of its own, all within TOTAL_S (540) s of wall.
#
#   OUT=/path bash benchmarks/lanes_gpu_session.sh                 # on the 4-GPU host (repository root)
#   TARGET=cpu OUT=/tmp/lanes bash benchmarks/lanes_gpu_session.sh  # a dry run of the logic, no GPU
#
# Jobs, started together (a quarter Q of this process's cores per GPU, nearest that GPU first where
# sysfs says; CUDA_VISIBLE_DEVICES by UUID):
#   A  GPU 0,    Q cores:  one_defended  eval_throughput, throughput mix x COPIES, defended
#   B  GPU 1,    Q cores:  one_bare      the same, bare (no sandbox, no fresh inputs, no kept baselines);
#                          SKIP_BARE=1 leaves GPU 1 and its cores to the caller
#   C  GPUs 2,3, 2Q cores: two_defended  the same as A through the device pool, a lane per GPU
#      then, side by side: C1 GPU 2, Q cores: repeatability (saxpy, RUNS independent evaluations)
#                          C2 GPU 3, Q cores: clean_defended (the mix without its syntax error, x1)
# A and C start together from the same cold state (fresh compile cache and serial-baseline store of
# their own): the two-GPU vs one-GPU ratio is measured side by side, each on equal cores per GPU.
# COPIES (2: 100 candidates over the 10 tasks): the mix again with comments of its own, compiled
# and judged anew, so the start-up (first compiles, first bench data) and per-task costs weigh less
# against the per-candidate work the lanes share. Each run is written as it ends (a job cut by its
# limit keeps what it finished); everything goes into ONE archive, $OUT/lanes_session.tar.gz, beside
# a copy of the summary printed at the end.
#
# Expected on an H100 host: A and B 200-300 s, C 110-170 s, C1 about 110 s, C2 about 120 s; the call
# ends after about 300-330 s.
set -u
OUT=${OUT:-/tmp/out}
TARGET=${TARGET:-cuda}
TOTAL_S=${TOTAL_S:-540}
RUNS=${RUNS:-10}
PY=${PYTHON:-python3}
export PYTHONPATH=$PWD/src:$PWD${PYTHONPATH:+:$PYTHONPATH}
export PYTHONUNBUFFERED=1
WORK="$OUT/lanes_session"
rm -rf "$WORK"; mkdir -p "$WORK"
began=$(date +%s)
elapsed() { echo $(( $(date +%s) - began )); }
# The whole call ends by TOTAL_S: the jobs stop by then less the archive's and the summary's share.
deadline=$(( TOTAL_S - ${RESERVE_S:-25} ))

if [ "$TARGET" = cuda ]; then
  TASKS=${TASKS:-}; COPIES=${COPIES:-2}
  ONE=(--gpus 0); TWO=(--gpus 0,1); EXTRA=()
else
  # The cpu dry run: one small task, CPU lanes instead of GPUs, no repeatability series.
  TASKS=${TASKS:-saxpy}; COPIES=${COPIES:-1}
  ONE=(--cpu-lanes 1); TWO=(--cpu-lanes 2); EXTRA=(--target cpu)
fi

# GPU UUIDs and core lists per job: "NAME VISIBLE CPUS" lines (VISIBLE "-" on the cpu target, CPUS
# "-" where the host has too few cores to split).
$PY - "$TARGET" > "$WORK/placement.txt" <<'EOF' 2>&1
import os, sys
from regrapht.eval import toolchain
from regrapht.eval.devices import gpu_local_cores

target = sys.argv[1]
allowed = sorted(os.sched_getaffinity(0))
q = len(allowed) // 4
gpus = list(toolchain.gpus()) if target == "cuda" else []
if target == "cuda" and len(gpus) < 4:
    sys.exit(f"this session needs 4 GPUs; {len(gpus)} visible")
free = list(allowed)

def take(n, on):
    near = set().union(*(gpu_local_cores(gpus[i]) for i in on)) if gpus else set()
    mine = [c for c in free if c in near][:n]
    mine += [c for c in free if c not in mine][: n - len(mine)]
    for c in mine:
        free.remove(c)
    return mine

jobs = {"A": [0], "B": [1], "C1": [2], "C2": [3]}
cores = {name: take(q, on) for name, on in jobs.items()} if q >= 1 else {}
cores["C"] = sorted(cores.get("C1", []) + cores.get("C2", []))
for name, on in {**jobs, "C": [2, 3]}.items():
    visible = ",".join(gpus[i].uuid or str(gpus[i].index) for i in on) if gpus else "-"
    print(name, visible, ",".join(map(str, cores.get(name, []))) or "-")
EOF
if [ $? -ne 0 ]; then cat "$WORK/placement.txt"; exit 1; fi
where() { awk -v n="$1" '$1 == n {print $2, $3}' "$WORK/placement.txt"; }

{
  date -u
  echo "target: $TARGET; wall limit: $TOTAL_S s; copies: $COPIES; tasks: ${TASKS:-the fixed 10}"
  [ "$TARGET" = cuda ] && nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version --format=csv 2>&1
  [ "$TARGET" = cuda ] && nvidia-smi topo -m 2>&1 | head -12
  echo "cores: $(nproc) of $(nproc --all)"; git log --oneline -1 2>/dev/null || true
  echo "placement (job, CUDA_VISIBLE_DEVICES, cores):"; cat "$WORK/placement.txt"
} > "$WORK/env.txt" 2>&1
cat "$WORK/env.txt"

# job NAME LIMIT ARGS...: eval_throughput.py on the job's GPUs and cores, under LIMIT (or what is left
# before the deadline), its log and results in $WORK/NAME; its exit and seconds in $WORK/jobs.txt.
job() {
  local name=$1 limit=$2 place; shift 2
  place=$(where "${name%%_*}")  # the placement of the job's letter: A_..., C1_...
  local visible=${place%% *} cpus=${place##* }
  local left=$(( deadline - $(elapsed) ))
  [ "$limit" -gt "$left" ] && limit=$left
  if [ "$limit" -lt 30 ]; then echo "$name: not run, ${left} s left" | tee -a "$WORK/jobs.txt"; return; fi
  mkdir -p "$WORK/$name"
  local pin=() envs=()
  [ "$cpus" != "-" ] && pin=(taskset -c "$cpus")
  [ "$visible" != "-" ] && envs=(CUDA_VISIBLE_DEVICES="$visible")
  local from=$(elapsed)
  echo "== $name: from $from s, limit $limit s, GPUs $visible, cores $cpus" | tee -a "$WORK/jobs.txt"
  # shellcheck disable=SC2086  # TASKS is a list of words
  env ${envs[@]+"${envs[@]}"} timeout -k 10 "$limit" ${pin[@]+"${pin[@]}"} $PY benchmarks/eval_throughput.py "${EXTRA[@]}" \
    --out "$WORK/$name" ${TASKS:+--tasks $TASKS} "$@" > "$WORK/$name/log.txt" 2>&1
  local rc=$?
  echo "$name: exit $rc after $(( $(elapsed) - from )) s (at $(elapsed) s)" | tee -a "$WORK/jobs.txt"
  grep -E '^(measured:|  lanes:|repeatability of)' "$WORK/$name/log.txt" | sed "s/^/  $name| /"
}

THROUGHPUT=(--skip-repeatability --mixes throughput --copies "$COPIES")
( job A_one_defended 500 "${ONE[@]}" "${THROUGHPUT[@]}" --modes defended ) &
if [ -n "${SKIP_BARE:-}" ]; then  # GPU 1 left to the caller (the bare/defended ratio is issue 20's, measured before)
  echo "B_one_bare: not run (SKIP_BARE)" | tee -a "$WORK/jobs.txt"
else
  ( job B_one_bare 500 "${ONE[@]}" "${THROUGHPUT[@]}" --modes bare ) &
fi
(
  job C_two_defended 330 "${TWO[@]}" "${THROUGHPUT[@]}" --modes defended
  if [ "$TARGET" = cuda ]; then
    ( job C1_repeatability 300 --skip-throughput --runs "$RUNS" ) &
  else
    echo "C1_repeatability: not on the cpu target" | tee -a "$WORK/jobs.txt"
  fi
  ( job C2_clean_defended 300 "${ONE[@]}" --skip-repeatability --mixes clean --modes defended ) &
  wait
) &
wait

# ---- the numbers, in one summary ---------------------------------------------------------------------
$PY - "$WORK" <<'EOF' 2>&1 | tee "$WORK/summary.txt"
import json, sys
from pathlib import Path

work = Path(sys.argv[1])
runs, summary = {}, {"jobs": (work / "jobs.txt").read_text().splitlines() if (work / "jobs.txt").exists() else []}
for name in ("A_one_defended", "B_one_bare", "C_two_defended", "C2_clean_defended", "C1_repeatability"):
    try:
        report = json.loads((work / name / "eval_throughput.json").read_text())
    except (OSError, ValueError) as exc:
        print(f"{name}: no result ({type(exc).__name__}; see {name}/log.txt)")
        continue
    runs[name] = report
    for t in report.get("throughput", []):
        held = t["phases"]["held_per_candidate_s"]
        print(f"{name}: {t['mix']} mix x{t.get('copies', 1)}, {t['mode']}, {t['gpus']} GPU(s) ({t['lanes']}): "
              f"{t['candidates']} candidates in {t['wall_s']:.1f} s = {t['evals_per_minute_wall']:.1f} per wall minute, "
              f"{t['evals_per_minute_wall_before_settle']:.1f} before the batch-end serial settle ({t['settle_s']:.1f} s); "
              f"{t['evals_per_gpu_minute'] or 0:.1f} per GPU-minute of workers' time; held {held['held']:.3f} s per worker "
              f"candidate ({', '.join(f'{k} {v:.3f}' for k, v in held.items() if k != 'held' and v >= 0.0005)}); "
              f"statuses {t['statuses']}")
        for lane, c in t.get("lanes_report", {}).items():
            print(f"    {lane}: " + ", ".join(f"{k} {v}" for k, v in c.items()))
    for r in report.get("repeatability", []):
        print(f"{name}: {r['task']} over {r['runs']} evaluations: median spread {r['spread'] * 100:.2f}%, speedup over "
              f"naive spread {r['speedup_spread'] * 100:.2f}% (samples {r['samples']})")


def first(name, mix="throughput"):
    return next((t for t in runs.get(name, {}).get("throughput", []) if t["mix"] == mix), None)


one, two, bare, clean = first("A_one_defended"), first("C_two_defended"), first("B_one_bare"), first("C2_clean_defended", "clean")
if one and two:
    summary["two_vs_one_wall"] = round(two["evals_per_minute_wall"] / one["evals_per_minute_wall"], 3)
    summary["two_vs_one_before_settle"] = round(
        two["evals_per_minute_wall_before_settle"] / one["evals_per_minute_wall_before_settle"], 3)
    print(f"two GPUs vs one (throughput mix x{one.get('copies', 1)}, defended, per wall minute): "
          f"{summary['two_vs_one_wall']:.3f}x; before the batch-end serial settle (a cost per task and host, "
          f"{one['settle_s']:.1f} s with one GPU, {two['settle_s']:.1f} s with two): {summary['two_vs_one_before_settle']:.3f}x")
if one and bare:
    summary["defended_vs_bare_wall"] = round(one["evals_per_minute_wall"] / bare["evals_per_minute_wall"], 3)
    print(f"defended vs bare, one GPU, per wall minute: {summary['defended_vs_bare_wall']:.3f}x; per GPU-minute "
          f"{one['evals_per_gpu_minute'] or 0:.1f} vs {bare['evals_per_gpu_minute'] or 0:.1f}")
if clean:
    print(f"clean mix (x1, defended, one GPU): {clean['evals_per_minute_wall']:.1f} per wall minute, "
          f"{clean['evals_per_gpu_minute'] or 0:.1f} per GPU-minute of workers' time")
(work / "summary.json").write_text(json.dumps(summary, indent=1))
EOF
tar -czf "$OUT/lanes_session.tar.gz" -C "$OUT" lanes_session && cp "$WORK/summary.txt" "$OUT/lanes_summary.txt" && rm -rf "$WORK"
echo "done after $(elapsed) s: $OUT/lanes_session.tar.gz, $OUT/lanes_summary.txt"
