#!/bin/bash
# call 2 of helper 2: the cleaned candidates (final*.cu, shipped text) vs p5, q6 and CUB, two rounds
cd "$(dirname "$0")"
# The files this archive keeps once only: p5 is the task's solution.cu (its first line aside); final_b
# and final_c are patches of final.cu.
[ -f p5.cu ] || tail -n +2 ../../../../src/regrapht/data/tasks/test/radix_sort_pairs/solution.cu > p5.cu
[ -f final_b.cu ] || patch -o final_b.cu final.cu final_b.diff
[ -f final_c.cu ] || patch -o final_c.cu final.cu final_c.diff
# best/: the task folder with final.cu as its solution, for `regrapht tasks check --gpu` after this.
[ -d best ] || { cp -r ../../../../src/regrapht/data/tasks/test/radix_sort_pairs best && cp final.cu best/solution.cu; }
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
