#!/usr/bin/env bash
# Benchmark 2 on 2 ranks: the SpMV halo Alltoallv of SuiteSparse matrices
# (SET=medium by default, from ../shared/matrices; SET=tiny|large, or give
# .mtx paths as arguments, e.g. the generated ones in matrices/), every
# algorithm and auto, 3 launches, timed as the application loop over heap
# buffers (MEMORY=mpix, LOOP=exchange change that): table,
# results/benchmark2/*.csv,png.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mpiexec=$("$root/scripts/prepare_benchmark.sh")
selection=(--set "${SET:-medium}" --matrix-dir "${MATRIX_DIR:-$root/../shared/matrices}")
[ $# -gt 0 ] && selection=("$@")
exec /usr/bin/python3 "$root/benchmarks/benchmark2.py" --bench "$root/build/benchmarks/bench_spmv_halo" \
  --mpiexec "$mpiexec" --ranks "${RANKS:-2}" --launches "${LAUNCHES:-3}" --outdir "$root/results/benchmark2" \
  --memory "${MEMORY:-heap}" --loop "${LOOP:-application}" \
  "${selection[@]}"
