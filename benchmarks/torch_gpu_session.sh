#!/usr/bin/env bash
# regrapht vs KernelBench on torch candidates (issue 17): one call on the GPU machine.
# Usage, from the repository root on the device, with .kernelbench/ carried (a KernelBench checkout,
# its pydantic wheels in .kernelbench/wheels/):
#   bash benchmarks/torch_gpu_session.sh compare   # all 30 candidates by both harnesses, throughput side by
#                                                  # side, verdicts, and repeatability (3 evaluations of 3
#                                                  # candidates each) in one call (~9 min)
#   bash benchmarks/torch_gpu_session.sh repeat    # repeatability: one candidate, 10 evaluations each
#   bash benchmarks/torch_gpu_session.sh check     # environment and imports only (a minute)
#   bash benchmarks/torch_gpu_session.sh tests     # the torch GPU tests (builds before device turns,
#                                                  # the light header's fallback, cheats), ~5 min
# A compare run that hits its deadline leaves $OUT/torch_vs_kernelbench.json with what is pending;
# carry that file back as .tvk/torch_vs_kernelbench.json and call compare again to finish it.
# Everything lands in $OUT (at most 7 files).
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
export PYTHONPATH=$PWD/src${PYTHONPATH:+:$PYTHONPATH}
export PYTHONUNBUFFERED=1
KB=${KERNELBENCH:-.kernelbench}
what=${1:-compare}
{
  date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  python3 -c "import sys, torch; print(sys.version.split()[0], 'torch', torch.__version__, 'cuda', torch.version.cuda)"
  python3 -c "import triton; print('triton', triton.__version__)" 2>&1 | tail -1
  python3 -c "import ninja; print('ninja', ninja.__version__)" 2>&1 | tail -1
  nvcc --version | tail -1; git log --oneline -1 2>/dev/null || true
  echo "kernelbench: $KB $(cat "$KB/COMMIT" 2>/dev/null || git -C "$KB" rev-parse HEAD 2>/dev/null || echo 'MISSING')"
} 2>&1 | tee "$OUT/env.txt"
if [ "$what" = tests ]; then
  timeout ${TVK_TIMEOUT:-570} python3 -m pytest -q -m gpu tests/eval/test_torch_gpu.py -p no:cacheprovider 2>&1 \
    | tee "$OUT/tests.txt" | tail -40
  exit 0
fi
if [ ! -f "$KB/src/kernelbench/eval.py" ]; then
  echo "error: no KernelBench checkout at $KB (carry .kernelbench/)" | tee -a "$OUT/env.txt"; exit 2
fi
# pydantic (KernelBench's result model) is not in the image: its carried wheels go to a folder that
# only KernelBench's processes put on their path (TVK_KB_SITE), never regrapht's.
if ! python3 -c "import pydantic" 2>/dev/null; then
  if ls "$KB"/wheels/*.whl >/dev/null 2>&1; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/kb-site "$KB"/wheels/*.whl \
      && export TVK_KB_SITE=/tmp/kb-site
  else
    echo "warning: pydantic is missing and $KB/wheels/ holds no wheels: KernelBench cannot run" | tee -a "$OUT/env.txt"
  fi
fi
python3 benchmarks/torch_vs_kernelbench.py --check --kernelbench "$KB" > "$OUT/tvk_check.json" 2>&1
tail -5 "$OUT/tvk_check.json"
if [ "$what" = compare ]; then
  resume=""
  [ -f .tvk/torch_vs_kernelbench.json ] && resume="--resume .tvk/torch_vs_kernelbench.json"
  # KernelBench's own CPU pre-build (its build_cache mode) runs beside regrapht's part: with it off, its
  # 30 candidates alone take over 20 minutes of builds on the GPU. Its seconds stay out of its GPU figure.
  timeout ${TVK_TIMEOUT:-575} python3 benchmarks/torch_vs_kernelbench.py --kernelbench "$KB" --out "$OUT" \
    --deadline-s ${TVK_DEADLINE:-520} --kb-build-cache ${TVK_KB_WORKERS:-8} --kb-build-overlap \
    --repeats ${TVK_REPEATS:-3} $resume ${TVK_ARGS:-} 2>&1 | tee "$OUT/compare.txt" | tail -60
fi
if [ "$what" = repeat ]; then
  timeout ${TVK_TIMEOUT:-575} python3 benchmarks/torch_vs_kernelbench.py --kernelbench "$KB" --out "$OUT" \
    --repeat ${TVK_RUNS:-10} --repeat-candidate ${TVK_CANDIDATE:-softmax/cuda_block} --deadline-s ${TVK_DEADLINE:-540} \
    ${TVK_ARGS:-} 2>&1 | tee "$OUT/repeat.txt" | tail -60
fi
