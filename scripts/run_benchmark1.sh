#!/usr/bin/env bash
# Benchmark 1 on 2 ranks (the default sweep 8 B .. 2 MiB per peer, every
# registered algorithm and the memcpy bound, 3 launches), timed in three
# loops (application, exchange only, exchange + barrier) over heap and
# MPIX_Alloc_mem buffers, on one node and in the emulated off-node setting
# (OFFNODE=0 skips it): installs dependencies, builds, prints the tables and
# the selector's never-slower check, writes results/benchmark1/*.csv,png.
# Extra arguments go to bench_alltoallv, e.g. --sizes 32768,262144 or
# --loop application (one loop).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mpiexec=$("$root/scripts/prepare_benchmark.sh")
exec /usr/bin/python3 "$root/benchmarks/benchmark1.py" --bench "$root/build/benchmarks/bench_alltoallv" \
  --mpiexec "$mpiexec" --ranks "${RANKS:-2}" --launches "${LAUNCHES:-3}" --outdir "$root/results/benchmark1" \
  $([ "${OFFNODE:-1}" = 1 ] && echo --offnode) -- "$@"
