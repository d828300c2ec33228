#!/usr/bin/env bash
# Issue 21 on a host of TWO GPUs (session 14): two GPUs vs one per wall minute, and how far serial
# baselines timed at once, one per physical core, sit from the same timed alone. One device call,
# within TOTAL_S (570) s of wall.
#
#   OUT=/path bash benchmarks/lanes2_gpu_session.sh                 # on the 2-GPU host (repository root)
#   ORDER=two-first OUT=/path bash benchmarks/lanes2_gpu_session.sh # the same, two GPUs first
#   TARGET=cpu OUT=/tmp/lanes2 bash benchmarks/lanes2_gpu_session.sh # a dry run of the logic, no GPU
#
# On two GPUs the one-GPU run cannot run beside the two-GPU one (it would need a third GPU), so the
# jobs run one after another, nothing beside them, each from a cold state (its own eval_throughput
# process: a fresh compile cache and serial-baseline store), each on equal cores per GPU:
#   A  GPU 0,    half the cores (GPU 0's NUMA node first): one_defended, throughput mix x COPIES
#   B  GPUs 0,1, every core (a lane per GPU, each pinned to its half):  two_defended, the same
#   C  serial_pinned.py on A's cores, ROUNDS rounds: pinned-vs-alone serial medians per task (skipped
#      with PINNED=0 or when under 60 s are left)
# ORDER=two-first runs B before A: what the second run gains from the first (the page cache holding
# nvcc and the task files, GPU clocks) shows as the difference between the two orders' ratios.
# A_LIMIT and B_LIMIT (300, 220 s) bound the two throughput jobs.
# SETTLE_WIDTH sets the settle's width per lane (1, the default: one task after another);
# SETTLE_CHECK=1 checks each pinned timing against a short one alone. SETTLE_AT_ONCE=1 lets B's
# lanes settle at the same time through shared slots (off by default since session 15: biased).
# Everything goes into ONE archive, $OUT/lanes2_session.tar.gz, beside a copy of the summary.
#
# Measured on two H100s (session 15, call C, lanes at once): A 266 s with a settle of 178 s, B 145 s
# with a settle of 78 s; two vs one 1.83x per wall minute, 1.31x before the settle. The summary
# compares each task's settled median, alone (A) and from B, and prints each lane's settle seconds.
set -u
OUT=${OUT:-/tmp/out}
TARGET=${TARGET:-cuda}
TOTAL_S=${TOTAL_S:-570}
ORDER=${ORDER:-one-first}
ROUNDS=${ROUNDS:-3}
PINNED=${PINNED:-1}
PY=${PYTHON:-python3}
export PYTHONPATH=$PWD/src:$PWD${PYTHONPATH:+:$PYTHONPATH}
export PYTHONUNBUFFERED=1
WORK="$OUT/lanes2_session"
rm -rf "$WORK"; mkdir -p "$WORK"
began=$(date +%s)
elapsed() { echo $(( $(date +%s) - began )); }
deadline=$(( TOTAL_S - ${RESERVE_S:-20} ))

if [ "$TARGET" = cuda ]; then
  TASKS=${TASKS:-}; COPIES=${COPIES:-2}
  ONE=(--gpus 0); TWO=(--gpus 0,1); EXTRA=()
else
  TASKS=${TASKS:-saxpy}; COPIES=${COPIES:-1}
  ONE=(--cpu-lanes 1); TWO=(--cpu-lanes 2); EXTRA=(--target cpu)
fi
WIDTH=(); [ -n "${SETTLE_WIDTH:-}" ] && WIDTH=(--serial-settle-width "$SETTLE_WIDTH")
[ -n "${SETTLE_CHECK:-}" ] && WIDTH+=(--serial-settle-check)
[ -n "${SETTLE_AT_ONCE:-}" ] && WIDTH+=(--serial-settle-at-once)
[ -n "${TRACE:-}" ] && WIDTH+=(--trace)
# BATCHES=K: each run then serves K batches from one process (steady_evals_per_minute_wall: batches 2..K).
[ -n "${BATCHES:-}" ] && WIDTH+=(--batches "$BATCHES")
# WARMUP=1: each run's measured batch follows an unmeasured one of one candidate per task (--warmup).
[ -n "${WARMUP:-}" ] && WIDTH+=(--warmup)
# One secret for both runs (fresh each session, or SECRET=hex): they then draw the same inputs, and time
# the same kernels. Before session 16's call D each run drew its own, and spmv_csr's naive kernel took
# 3 to 29 ms by its draw's longest row: the runs' ratio carried that draw as much as the GPUs.
SECRET=${SECRET:-$($PY -c 'import secrets; print(secrets.token_hex(32))')}
WIDTH+=(--secret "$SECRET")
# WARM=1: steady state. A times every task's serial baseline first (--baselines-first, in A's process
# on half the cores; not part of A's time), then runs from a copy of that store; B's lanes (half the
# cores each: the same store key) read that store. Without it both start from an empty store and pay
# the batch-end serial settle, which no number of GPUs shortens.
A_STORE=(); B_STORE=()
if [ -n "${WARM:-}" ]; then
  A_STORE=(--baselines-first); B_STORE=(--serial-store "$WORK/A_one_defended/serial-baselines-first.sqlite")
fi

# "NAME VISIBLE CPUS" per job: A and C on half the cores (GPU 0's node first), B on all of them.
$PY - "$TARGET" > "$WORK/placement.txt" <<'EOF' 2>&1
import os, sys
from regrapht.eval import toolchain
from regrapht.eval.devices import gpu_local_cores

target = sys.argv[1]
allowed = sorted(os.sched_getaffinity(0))
gpus = list(toolchain.gpus()) if target == "cuda" else []
if target == "cuda" and len(gpus) < 2:
    sys.exit(f"this session needs 2 GPUs; {len(gpus)} visible")
half = len(allowed) // 2
near = gpu_local_cores(gpus[0]) if gpus else set()
mine = [c for c in allowed if c in near][:half]
mine += [c for c in allowed if c not in mine][: half - len(mine)]
uuid = lambda g: g.uuid or str(g.index)
one = uuid(gpus[0]) if gpus else "-"
two = ",".join(uuid(g) for g in gpus[:2]) if gpus else "-"
cores = ",".join(map(str, sorted(mine))) if target == "cuda" and half >= 1 else "-"
print("A", one, cores)
print("B", two, ",".join(map(str, allowed)) if target == "cuda" else "-")
print("C", "-", cores)
EOF
if [ $? -ne 0 ]; then cat "$WORK/placement.txt"; exit 1; fi
where() { awk -v n="$1" '$1 == n {print $2, $3}' "$WORK/placement.txt"; }

{
  date -u
  echo "target: $TARGET; order: $ORDER; wall limit: $TOTAL_S s; copies: $COPIES; settle width: ${SETTLE_WIDTH:-default}; check: ${SETTLE_CHECK:-no}; lanes at once: ${SETTLE_AT_ONCE:-no}"
  [ "$TARGET" = cuda ] && nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version --format=csv 2>&1
  [ "$TARGET" = cuda ] && nvidia-smi topo -m 2>&1 | head -8
  echo "cores: $(nproc) of $(nproc --all); threads per core: $(lscpu 2>/dev/null | awk -F: '/Thread\(s\) per core/ {print $2}')"
  git log --oneline -1 2>/dev/null || true
  echo "placement (job, CUDA_VISIBLE_DEVICES, cores):"; cat "$WORK/placement.txt"
} > "$WORK/env.txt" 2>&1
cat "$WORK/env.txt"

# run NAME LIMIT SCRIPT ARGS...: on the job's GPUs and cores, under LIMIT (or what is left).
run() {
  local name=$1 limit=$2 script=$3 place; shift 3
  place=$(where "${name%%_*}")
  local visible=${place%% *} cpus=${place##* }
  local left=$(( deadline - $(elapsed) ))
  [ "$limit" -gt "$left" ] && limit=$left
  if [ "$limit" -lt 60 ]; then echo "$name: not run, ${left} s left" | tee -a "$WORK/jobs.txt"; return; fi
  mkdir -p "$WORK/$name"
  local pin=() envs=()
  [ "$cpus" != "-" ] && pin=(taskset -c "$cpus")
  [ "$visible" != "-" ] && envs=(CUDA_VISIBLE_DEVICES="$visible")
  local from=$(elapsed)
  echo "== $name: from $from s, limit $limit s, GPUs $visible, cores $cpus" | tee -a "$WORK/jobs.txt"
  env ${envs[@]+"${envs[@]}"} timeout -k 10 "$limit" ${pin[@]+"${pin[@]}"} $PY "$script" --out "$WORK/$name" "$@" \
    > "$WORK/$name/log.txt" 2>&1
  echo "$name: exit $? after $(( $(elapsed) - from )) s (at $(elapsed) s)" | tee -a "$WORK/jobs.txt"
  grep -E '^(measured:|  lanes:|pinned vs alone|  [a-z0-9_]+ +pinned/alone)' "$WORK/$name/log.txt" | sed "s/^/  $name| /"
}

# shellcheck disable=SC2086  # TASKS is a list of words
THROUGHPUT=("${EXTRA[@]}" --skip-repeatability --mixes throughput --copies "$COPIES" --modes defended ${WIDTH[@]+"${WIDTH[@]}"} ${TASKS:+--tasks $TASKS})
one() { run A_one_defended "${A_LIMIT:-300}" benchmarks/eval_throughput.py "${ONE[@]}" "${THROUGHPUT[@]}" ${A_STORE[@]+"${A_STORE[@]}"}; }
two() { run B_two_defended "${B_LIMIT:-220}" benchmarks/eval_throughput.py "${TWO[@]}" "${THROUGHPUT[@]}" ${B_STORE[@]+"${B_STORE[@]}"}; }
if [ -n "${WARM:-}" ] && [ "$ORDER" = two-first ]; then echo "WARM=1 needs A first (its store)"; exit 2; fi
if [ "$ORDER" = two-first ]; then two; one; else one; two; fi
if [ "$PINNED" = 1 ]; then
  if [ "$TARGET" = cuda ]; then
    run C_pinned 240 benchmarks/serial_pinned.py --rounds "$ROUNDS" ${TASKS:+--tasks $TASKS}
  else
    run C_pinned 120 benchmarks/serial_pinned.py --rounds 2 --tasks tests/eval/tasks/vec_scale tests/eval/tasks/vec_scale_host
  fi
fi

# ---- the numbers, in one summary ---------------------------------------------------------------------
$PY - "$WORK" <<'EOF' 2>&1 | tee "$WORK/summary.txt"
import json, sys
from pathlib import Path

work = Path(sys.argv[1])
summary = {"jobs": (work / "jobs.txt").read_text().splitlines() if (work / "jobs.txt").exists() else []}
runs = {}
for name in ("A_one_defended", "B_two_defended"):
    try:
        report = json.loads((work / name / "eval_throughput.json").read_text())
    except (OSError, ValueError) as exc:
        print(f"{name}: no result ({type(exc).__name__}; see {name}/log.txt)")
        continue
    t = next((t for t in report.get("throughput", []) if t["mix"] == "throughput"), None)
    if t is None:
        continue
    runs[name] = t
    held = t["phases"]["held_per_candidate_s"]
    print(f"{name}: {t['candidates']} candidates in {t['wall_s']:.1f} s = {t['evals_per_minute_wall']:.1f} per wall minute, "
          f"{t['evals_per_minute_wall_before_settle']:.1f} before the batch-end settle ({t['settle_s']:.1f} s of wall, "
          f"{t.get('settle_task_s', 0):.1f} s summed per task; {t.get('settled_tasks')} tasks, {t.get('settled_pinned')} kept "
          f"pinned, re-timed alone {t.get('settled_rejected')}); held {held['held']:.3f} s per worker candidate; "
          f"statuses {t['statuses']}")
    for lane, c in t.get("lanes_report", {}).items():
        print(f"    {lane}: " + ", ".join(f"{k} {v}" for k, v in c.items()))
one, two = runs.get("A_one_defended"), runs.get("B_two_defended")
if one and two:
    summary["two_vs_one_wall"] = round(two["evals_per_minute_wall"] / one["evals_per_minute_wall"], 3)
    summary["two_vs_one_before_settle"] = round(
        two["evals_per_minute_wall_before_settle"] / one["evals_per_minute_wall_before_settle"], 3)
    summary["settle_s"] = {"one": one["settle_s"], "two": two["settle_s"]}
    summary["same_inputs"] = one.get("inputs_key") == two.get("inputs_key") != "fresh secret"
    print(f"inputs: one GPU {one.get('inputs_key')}, two {two.get('inputs_key')} "
          f"({'the same draws' if summary['same_inputs'] else 'DIFFERENT draws: the ratio carries them'})")
    if one.get("steady_evals_per_minute_wall") and two.get("steady_evals_per_minute_wall"):
        summary["two_vs_one_steady"] = round(two["steady_evals_per_minute_wall"] / one["steady_evals_per_minute_wall"], 3)
        print(f"steady state (batches 2 on, same processes): one GPU {one['steady_evals_per_minute_wall']:.1f}, two "
              f"{two['steady_evals_per_minute_wall']:.1f} per wall minute: {summary['two_vs_one_steady']:.3f}x; batch walls "
              f"one {[b['wall_s'] for b in one['batches']]}, two {[b['wall_s'] for b in two['batches']]}")
    print(f"two GPUs vs one (per wall minute, {'after a warm-up batch' if one.get('warmup_s') else 'warm serial store' if one['settle_s'] == 0 and two['settle_s'] == 0 else 'cold'}, defended): {summary['two_vs_one_wall']:.3f}x (target 1.9x); "
          f"before the batch-end settle: {summary['two_vs_one_before_settle']:.3f}x; settle {one['settle_s']:.1f} s "
          f"with one GPU, {two['settle_s']:.1f} s with two")
if one and two and one.get("settled") and two.get("settled"):
    # The same tasks' serial baselines, settled alone (one GPU) and pinned beside the other lane's (two):
    # how far apart, against the errors both medians carry.
    rows = {}
    for task in sorted(set(one["settled"]) & set(two["settled"])):
        a, b = one["settled"][task], two["settled"][task]
        if not a["median_ms"] or not b["median_ms"]:
            continue
        err = ((a.get("rel_median_error") or 0) ** 2 + (b.get("rel_median_error") or 0) ** 2) ** 0.5
        ratio = b["median_ms"] / a["median_ms"]
        rows[task] = {"alone_ms": a["median_ms"], "two_ms": b["median_ms"], "ratio": round(ratio, 4),
                      "combined_error": round(err, 4), "two_concurrent": b.get("concurrent"), "two_lane": b.get("lane"),
                      "two_settle_s": b.get("settle_s"), "one_settle_s": a.get("settle_s")}
        print(f"    {task:24s} alone {a['median_ms']:10.3f} ms, two-GPU settle {b['median_ms']:10.3f} ms (beside "
              f"{b.get('concurrent')}, {b.get('lane')}): {ratio:.4f}x, errors {100 * err:.2f}%")
    summary["settled_compare"] = rows
    per_lane = {}
    for r in rows.values():
        per_lane[r["two_lane"]] = per_lane.get(r["two_lane"], 0.0) + (r["two_settle_s"] or 0.0)
    print(f"two-GPU settle per lane (summed task seconds): {per_lane}")
try:
    if not (work / "C_pinned").is_dir():
        raise LookupError("not run (PINNED=0, or no time was left)")
    pinned = json.loads((work / "C_pinned" / "serial_pinned.json").read_text())["summary"]
    summary["pinned"] = {k: pinned[k] for k in ("within", "max_deviation", "median_alone_spread", "alone_s", "pinned_s")}
    print(f"serial pinned vs alone: {pinned['within']} of {len(pinned['tasks'])} tasks within their alone spread; "
          f"largest deviation {100 * (pinned['max_deviation'] or 0):.2f}%; phase seconds alone {pinned['alone_s']}, "
          f"pinned {pinned['pinned_s']}")
except LookupError as exc:
    print(f"C_pinned: {exc}" if type(exc) is LookupError else f"C_pinned: no result ({type(exc).__name__})")
except (OSError, ValueError) as exc:
    print(f"C_pinned: no result ({type(exc).__name__})")
(work / "summary.json").write_text(json.dumps(summary, indent=1))
EOF
tar -czf "$OUT/lanes2_session.tar.gz" -C "$OUT" lanes2_session && cp "$WORK/summary.txt" "$OUT/lanes2_summary.txt" && rm -rf "$WORK"
echo "done after $(elapsed) s: $OUT/lanes2_session.tar.gz, $OUT/lanes2_summary.txt"
