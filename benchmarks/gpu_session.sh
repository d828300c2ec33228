#!/usr/bin/env bash
# One call on the GPU machine: environment, GPU tests, the README's eval commands, benchmarks.
# Usage (on the device): bash benchmarks/gpu_session.sh [tests|bench|all|suite|probe|graph|graph-times|compare]   (logs go to $OUT)
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export PYTHONPATH=$PWD/src:$PWD${PYTHONPATH:+:$PYTHONPATH}
export PYTHONUNBUFFERED=1
# Carried wheels: pytest for the GPU tests, tree-sitter with its CUDA grammar for the method recognizer
# (without it searches see no structural method, which changes where kernels sit on the graph).
if [ -d .whl ] && ! python3 -c "import pytest, tree_sitter_cuda" 2>/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/*.whl && export PYTHONPATH=$PYTHONPATH:/tmp/site
fi
what=${1:-all}
{
  date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  python3 -c "import sys, numpy, torch; print(sys.version.split()[0], 'numpy', numpy.__version__, 'torch', torch.__version__)"
  nvcc --version | tail -1; git log --oneline -1 2>/dev/null || true
} 2>&1 | tee "$OUT/env.txt"
if [ "$what" = tests ] || [ "$what" = all ]; then
  python3 -c "from regrapht import doctor; [print(('ok  ' if c.ok else 'MISS'), c.name, '|', c.detail) for c in doctor.run_checks()]" 2>&1 | tee "$OUT/doctor.txt"
  timeout ${TEST_TIMEOUT:-540} python3 -m pytest -m gpu -q -rfE -p no:cacheprovider ${TEST_PATHS:-tests/eval tests/tasks tests/llm} 2>&1 | tee "$OUT/gpu_tests.txt" | tail -60
fi
if [ "$what" = probe ]; then
  timeout ${PROBE_TIMEOUT:-540} python3 benchmarks/size_probe.py --out "$OUT/probe.json" --threads ${REF_THREADS:-6} ${TASK_IDS:-} \
    2>&1 | tee "$OUT/probe.txt" | tail -3
fi
if [ "$what" = graph ]; then
  # Resume the cuda graph build from the shipped (partial) graph; copy $OUT/cuda.json back after.
  cp src/regrapht/data/graphs/cuda.json "$OUT/cuda.json"
  # --time-limit: no new trajectory after it, so the graph is saved whole before the call's limit;
  # steps already on the graph are neither compiled nor measured again.
  timeout ${GRAPH_TIMEOUT:-580} python3 -m regrapht.cli graph build --target cuda --out "$OUT/cuda.json" \
    --seeds 2 --budget 0.25 --reference-threads 4 --no-embed --time-limit ${GRAPH_TIME_LIMIT:-480} ${GRAPH_ARGS:-} \
    src/regrapht/data/trajectories/cuda/*.jsonl 2>&1 | tee "$OUT/graph_build.txt" | tail -40
  python3 -m regrapht.cli graph stats --graph "$OUT/cuda.json" 2>&1 | tee "$OUT/graph_stats.txt" | head -6
fi
if [ "$what" = graph-times ]; then
  # Time each task's best teacher kernel that carries no time (graph report's % of floor) into
  # $OUT/cuda.timings.json; copy it beside the shipped cuda.json after.
  cp src/regrapht/data/graphs/cuda.json "$OUT/cuda.json"
  [ -f src/regrapht/data/graphs/cuda.timings.json ] && cp src/regrapht/data/graphs/cuda.timings.json "$OUT/"
  timeout ${GRAPH_TIMEOUT:-580} python3 -m regrapht.cli graph report --target cuda --graph "$OUT/cuda.json" --measure \
    --time-limit ${GRAPH_TIME_LIMIT:-480} 2>&1 | tee "$OUT/graph_times.txt" | tail -20
fi
if [ "$what" = compare ]; then
  # MCGS vs random walk vs greedy with the offline policy (issue 7); resumable through its store.
  # A store carried in .cmp/ (the previous call's $OUT/search-cmp) seeds this one, so nothing is measured twice.
  # The store comes back compressed (files over 16 MiB do not come back): .cmp/search_comparison.sqlite.xz.
  mkdir -p /tmp/search-cmp "$OUT/search-cmp"
  [ -f .cmp/search_comparison.sqlite ] && cp .cmp/search_comparison.sqlite* /tmp/search-cmp/
  [ -f .cmp/search_comparison.sqlite.xz ] && python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" \
    .cmp/search_comparison.sqlite.xz /tmp/search-cmp/search_comparison.sqlite
  timeout ${COMPARE_TIMEOUT:-540} python3 benchmarks/search_comparison.py --target cuda \
    --graph ${GRAPH:-src/regrapht/data/graphs/cuda.json} --out /tmp/search-cmp --budgets 4,8,16,32 --seeds 10 \
    2>&1 | tee "$OUT/search_comparison.txt" | tail -30
  cp /tmp/search-cmp/search_comparison.json "$OUT/search-cmp/" 2>/dev/null
  python3 -c "import lzma, shutil, sqlite3, sys; sqlite3.connect(sys.argv[1]).execute(\"VACUUM INTO '/tmp/cmp-vacuum.sqlite'\"); shutil.copyfileobj(open('/tmp/cmp-vacuum.sqlite', 'rb'), lzma.open(sys.argv[2], 'wb', preset=6))" \
    /tmp/search-cmp/search_comparison.sqlite "$OUT/search-cmp/search_comparison.sqlite.xz"
  ls -la "$OUT/search-cmp"
fi
if [ "$what" = suite ]; then
  # TASK_IDS: space-separated ids (default: every shipped task). A results file carried in .suite/
  # (the previous call's $OUT/suite_check.json) is resumed: unchanged tasks keep their results.
  [ -f .suite/suite_check.json ] && cp .suite/suite_check.json "$OUT/suite_check.json"
  timeout ${SUITE_TIMEOUT:-560} python3 -m regrapht.cli tasks check ${TASK_IDS:-} --gpu --resume \
    --reference-threads ${REF_THREADS:-4} ${CHECK_ARGS:-} \
    --out "$OUT/suite_check.json" 2>&1 | tee "$OUT/suite_check.txt" | grep -v "^ok " | tail -80
fi
if [ "$what" = bench ] || [ "$what" = all ]; then
  timeout 300 python3 benchmarks/llm_transformers_smoke.py 2>&1 | tee "$OUT/llm_transformers_smoke.txt" | tail -5
  for script in benchmarks/eval_throughput.py; do
    [ -f "$script" ] && timeout 540 python3 "$script" --out "$OUT" 2>&1 | tee "$OUT/$(basename "$script" .py).txt" | tail -40
  done
fi
