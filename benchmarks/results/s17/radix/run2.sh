#!/bin/bash
# call 2 of helper 2: the cleaned candidates (final*.cu, shipped text) vs p5, q6 and CUB, two rounds
cd "$(dirname "$0")"
VARS="p5 q6 final final_b final_c"
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total,driver_version --format=csv,noheader
date -u
sha256sum final.cu final_b.cu final_c.cu best/solution.cu
for v in $VARS; do
  ( timeout 120 nvcc -O3 -arch=sm_90a -std=c++17 -Xptxas -v -DVARIANT=\"$v.cu\" bench.cu -o bench_$v > build_$v.log 2>&1 || echo "BUILD FAIL $v" ) &
done
wait
date -u
for round in 1 2; do
  for v in $VARS; do
    echo "=================== round $round $v"
    [ -x bench_$v ] && timeout 60 ./bench_$v; echo "rc=$?"
  done
done
date -u
