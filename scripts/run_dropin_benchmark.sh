#!/usr/bin/env bash
# The drop-in on 2 ranks: an unmodified program looping MPI_Alltoallv (8 B to
# 4 MiB per peer, heap buffers; application, exchange-only and barrier
# loops), plain and under
# LD_PRELOAD=libmpixrma_intercept.so, alternating, 3 launches each
# (LAUNCHES=): table, results/dropin/dropin.csv,png.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mpiexec=$("$root/scripts/prepare_benchmark.sh")
exec /usr/bin/python3 "$root/benchmarks/dropin_benchmark.py" --bench "$root/build/benchmarks/bench_dropin" \
  --intercept "$root/build/libmpixrma_intercept.so" --mpiexec "$mpiexec" --ranks "${RANKS:-2}" \
  --launches "${LAUNCHES:-3}" --outdir "$root/results/dropin"
