#!/usr/bin/env bash
# Torch on the GPU machine (issue 17), from the repository root, with .kernelbench/ carried (a
# KernelBench checkout, its pydantic wheels in .kernelbench/wheels/). Each part has a hard limit.
#   bash benchmarks/torch_gpu_session.sh compare  # regrapht vs KernelBench, 24 of the 30 candidates, one GPU,
#                                                 # <= 300 s (benchmarks/tvk_compare.py; TVK_ARGS="--subset 30")
#   bash benchmarks/torch_gpu_session.sh repeat   # one torch candidate's speedup over eager, 10 fresh
#                                                 # evaluations, <= 120 s (benchmarks/torch_repeat.py)
#   bash benchmarks/torch_gpu_session.sh tests    # the torch GPU tests (eval + rl), builds warmed first
#                                                 # (TEST_FILES picks files; TESTS_LIMIT bounds it, default 500 s)
#   bash benchmarks/torch_gpu_session.sh bench    # `regrapht bench --kind torch` over the example tasks' own
#                                                 # candidates: speedups over eager and torch.compile (<= 75 s)
#   bash benchmarks/torch_gpu_session.sh all      # two GPUs (GPU_A, GPU_B; default 0 and 1), <= ~510 s:
#                                                 # A: compare, repeat, bench; B: the tests (TESTS_LIMIT, 500 s)
#   bash benchmarks/torch_gpu_session.sh check    # environment and KernelBench's import only (a minute)
#   bash benchmarks/torch_gpu_session.sh probe    # why the speedup over eager moves between processes, and
#                                                 # the hold that should stop it (<= 160 s;
#                                                 # benchmarks/torch_repeat_probe.py; PROBE_ARGS)
#   bash benchmarks/torch_gpu_session.sh phases   # per-phase seconds of 8 torch evaluations with the eager and
#                                                 # compile baselines, spare on then off (<= 240 s;
#                                                 # benchmarks/torch_phases_cpu.py --target cuda)
#   bash benchmarks/torch_gpu_session.sh lead     # one GPU, <= 300 s (LEAD_S=285 by default): the phases (70 s), the repeatability
#                                                 # (10 evaluations, one evaluator, 50 s), then the comparison
#                                                 # in what is left (KernelBench pre-built with 6 processes AND
#                                                 # as its README runs it); everything in $OUT/torch_lead.tgz
#   bash benchmarks/torch_gpu_session.sh lead4    # a 4-GPU host, <= 330 s (LEAD4_S=315 by default, then the archive):
#                                                 # the phases (60 s) on GPU_A, then the comparison in what is left:
#                                                 # regrapht on GPU_A, KernelBench as its README on GPU_B (from the
#                                                 # comparison's start to its end), its pre-build mode on GPU_C; cores
#                                                 # REGRAPHT_CPUS (its turns) / REGRAPHT_BUILD_CPUS (its CPU builds) /
#                                                 # KB_README_CPUS / KB_CPUS (defaults: GPUs 0,1,2, cores 0-7, 8-19,
#                                                 # 20-27, 28-43; the rest is the lead's); all in $OUT/torch_lead4.tgz
# Everything lands in $OUT (all: $OUT/a and $OUT/b).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export PYTHONPATH=$PWD/src${PYTHONPATH:+:$PYTHONPATH}
export PYTHONUNBUFFERED=1
KB=${KERNELBENCH:-.kernelbench}
what=${1:-compare}
here=$(cd "$(dirname "$0")" && pwd)

if [ "$what" = all ]; then
  # Two GPUs of one host: the comparison and the repeatability on one (one after the other, so the
  # repeatability is timed with no comparison beside it on its GPU), the tests on the other.
  mkdir -p "$OUT/a" "$OUT/b"
  ( export CUDA_VISIBLE_DEVICES=${GPU_A:-0}
    OUT=$OUT/a bash "$here/torch_gpu_session.sh" compare
    OUT=$OUT/a bash "$here/torch_gpu_session.sh" repeat
    OUT=$OUT/a bash "$here/torch_gpu_session.sh" bench ) > "$OUT/a/log.txt" 2>&1 &
  a=$!
  ( export CUDA_VISIBLE_DEVICES=${GPU_B:-1}
    OUT=$OUT/b TESTS_LIMIT=${TESTS_LIMIT:-500} bash "$here/torch_gpu_session.sh" tests ) > "$OUT/b/log.txt" 2>&1 &
  b=$!
  wait $a; wait $b
  echo "== A (GPU ${GPU_A:-0}): compare, repeat, bench"; grep -v '^ *[0-9.]* s  ' "$OUT/a/log.txt" | tail -45
  echo "== B (GPU ${GPU_B:-1}): tests"; tail -25 "$OUT/b/log.txt"
  exit 0
fi

{
  date -u; echo "CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-}"
  nvidia-smi --query-gpu=index,name,driver_version,memory.total,clocks.max.sm --format=csv
  python3 -c "import sys, torch, importlib.util as u; print(sys.version.split()[0], 'torch', torch.__version__, 'cuda', torch.version.cuda,
  'triton', __import__('triton').__version__ if u.find_spec('triton') else None)" 2>&1 | tail -1
  nvcc --version | tail -1; nproc; git log --oneline -1 2>/dev/null || true
  echo "kernelbench: $KB $(cat "$KB/COMMIT" 2>/dev/null || git -C "$KB" rev-parse HEAD 2>/dev/null || echo 'MISSING')"
} > "$OUT/env_$what.txt" 2>&1

if [ "$what" = tests ]; then
  # Every candidate file's extension built at once first (the tests then find them in the cache);
  # TESTS_LIMIT bounds the warm-up and the tests together.
  began=$SECONDS
  timeout 150 python3 "$here/torch_warm_builds.py" > "$OUT/warm_builds.json" 2>&1
  tail -4 "$OUT/warm_builds.json"
  # -v names each test as it ends (a run stopped by the limit still says which passed); the longest
  # file (compile and max-autotune baselines, timed 4096^3 products) goes last.
  timeout $(( ${TESTS_LIMIT:-500} - (SECONDS - began) )) python3 -m pytest -v -m gpu -p no:cacheprovider --durations=0 \
    ${TEST_FILES:-tests/eval/test_torch_gpu.py tests/rl/test_torch_gpu.py tests/eval/test_torch_integrity_gpu.py tests/eval/test_torch_hold_gpu.py} \
    --junitxml="$OUT/tests.xml" 2>&1 | tee "$OUT/tests.txt" | tail -60
  exit 0
fi
if [ "$what" = bench ]; then
  timeout 75 python3 -m regrapht.cli bench --kind torch --split example --target cuda --out "$OUT/bench" 2>&1 \
    | tee "$OUT/bench.txt" | tail -30
  exit 0
fi
if [ "$what" = phases ]; then
  # The first run warms the compile baselines' cache (CACHE/torch-baselines) in its reference workers;
  # the second, with no spare, finds it warm: its start phase is torch's import on the device turn.
  timeout 150 python3 "$here/torch_phases_cpu.py" --target cuda --n 8 --out "$OUT/phases_cuda.json" 2>&1 | tee "$OUT/phases.txt" | tail -12
  timeout 90 python3 "$here/torch_phases_cpu.py" --target cuda --n 6 --no-spare --out "$OUT/phases_cuda_nospare.json" 2>&1 \
    | tee -a "$OUT/phases.txt" | tail -9
  exit 0
fi
if [ "$what" = probe ]; then
  timeout 165 python3 "$here/torch_repeat_probe.py" --out "$OUT" ${PROBE_ARGS:-} 2>&1 | tee "$OUT/probe_log.txt" | tail -40
  exit 0
fi
if [ "$what" = repeat ]; then
  timeout 120 python3 "$here/torch_repeat.py" --out "$OUT" ${REPEAT_ARGS:-} 2>&1 | tee "$OUT/repeat.txt" | tail -15
  exit 0
fi
if [ ! -f "$KB/src/kernelbench/eval.py" ] && [ "$what" != lead ] && [ "$what" != lead4 ]; then
  echo "error: no KernelBench checkout at $KB (carry .kernelbench/)" | tee -a "$OUT/env_$what.txt"; exit 2
fi
# pydantic (KernelBench's result model) is not in the image: its carried wheels go to a folder that
# only KernelBench's processes put on their path (TVK_KB_SITE), never regrapht's.
if ! python3 -c "import pydantic" 2>/dev/null; then
  if ls "$KB"/wheels/*.whl >/dev/null 2>&1; then
    site=$(mktemp -d /tmp/kb-site.XXXX)
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$site" "$KB"/wheels/*.whl \
      && export TVK_KB_SITE=$site
  else
    echo "warning: pydantic is missing and $KB/wheels/ holds no wheels: KernelBench cannot run" | tee -a "$OUT/env_$what.txt"
  fi
fi
if [ "$what" = lead ]; then
  # One GPU, <= 300 s in all, one part after another (none shares the GPU with another). Every file
  # goes into one archive: a device call returns at most 8 files.
  began=$SECONDS
  L=$OUT/lead; mkdir -p "$L"; mv "$OUT/env_lead.txt" "$L/env.txt"
  # SIGINT first: the evaluator's `with` then ends its workers, so none holds the GPU into the next part
  timeout -s INT -k 5 70 python3 "$here/torch_phases_cpu.py" --target cuda --n 6 --out "$L/phases_cuda.json" > "$L/phases.txt" 2>&1
  timeout -s INT -k 5 50 python3 "$here/torch_repeat.py" --one-evaluator --deadline-s 45 --out "$L" ${REPEAT_ARGS:-} > "$L/repeat.txt" 2>&1
  budget=$(( ${LEAD_S:-285} - (SECONDS - began) ))
  # regrapht until 75 s before the end; KernelBench pre-built for 30 s, then as its README for 45 s
  timeout $(( budget + 8 )) python3 "$here/tvk_compare.py" --kernelbench "$KB" --out "$L" --budget-s "$budget" \
    --regrapht-deadline-s $(( budget - 75 )) --kb-readme-s 45 ${TVK_ARGS:-} > "$L/compare.txt" 2>&1
  tar czf "$OUT/torch_lead.tgz" -C "$OUT" lead && rm -rf "$L"
  tar xzf "$OUT/torch_lead.tgz" -O lead/phases.txt | tail -14
  tar xzf "$OUT/torch_lead.tgz" -O lead/repeat.txt | tail -4
  tar xzf "$OUT/torch_lead.tgz" -O lead/compare.txt | grep -v '^ *[0-9.]* s  ' | tail -40
  echo "lead: $(( SECONDS - began )) s"
  exit 0
fi
if [ "$what" = lead4 ]; then
  # Three GPUs and three core sets, none shared: regrapht's phases and then its side of the comparison on
  # A, KernelBench's README mode on B and its pre-build mode on C at the same time (each mode's GPU
  # seconds are its own; tvk_compare.py says what each counts). One archive: a call returns <= 8 files.
  began=$SECONDS
  A=${GPU_A:-0}; B=${GPU_B:-1}; C=${GPU_C:-2}
  RC=${REGRAPHT_CPUS:-0-7}; RB=${REGRAPHT_BUILD_CPUS:-8-19}; BC=${KB_README_CPUS:-20-27}; CC=${KB_CPUS:-28-43}
  L=$OUT/lead4; mkdir -p "$L"; mv "$OUT/env_lead4.txt" "$L/env.txt"
  echo "layout: regrapht GPU $A cores $RC (builds $RB); KernelBench README GPU $B cores $BC; pre-build mode GPU $C cores $CC" >> "$L/env.txt"
  # SIGINT first: the evaluator's `with` then ends its workers, so none holds GPU A into the comparison
  CUDA_VISIBLE_DEVICES=$A timeout -s INT -k 5 ${PHASES_S:-60} taskset -c "$RC,$RB" python3 "$here/torch_phases_cpu.py" \
    --target cuda --n 6 --out "$L/phases_cuda.json" > "$L/phases.txt" 2>&1
  budget=$(( ${LEAD4_S:-315} - (SECONDS - began) ))
  CUDA_VISIBLE_DEVICES=$A timeout $(( budget + 8 )) python3 "$here/tvk_compare.py" --kernelbench "$KB" --out "$L" \
    --budget-s "$budget" --regrapht-deadline-s $(( budget - 5 )) --kb-readme-gpu "$B" --kb-prebuild-gpu "$C" \
    --regrapht-cpus "$RC" --regrapht-build-cpus "$RB" --kb-readme-cpus "$BC" --kb-cpus "$CC" ${TVK_ARGS:-} > "$L/compare.txt" 2>&1
  tar czf "$OUT/torch_lead4.tgz" -C "$OUT" lead4 && rm -rf "$L"
  tar xzf "$OUT/torch_lead4.tgz" -O lead4/phases.txt | tail -14
  tar xzf "$OUT/torch_lead4.tgz" -O lead4/compare.txt | grep -v '^ *[0-9.]* s  ' | tail -40
  echo "lead4: $(( SECONDS - began )) s"
  exit 0
fi
if [ "$what" = check ]; then
  python3 benchmarks/torch_vs_kernelbench.py --check --kernelbench "$KB" 2>&1 | tee "$OUT/tvk_check.json" | tail -20
  exit 0
fi
if [ "$what" = compare ]; then
  # tvk_compare.py ends everything by --budget-s (285 s from its start); the 300 s limit is the backstop.
  timeout 300 python3 "$here/tvk_compare.py" --kernelbench "$KB" --out "$OUT" ${TVK_ARGS:-} 2>&1 \
    | tee "$OUT/compare.txt" | tail -70
fi
