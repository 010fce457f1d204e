#!/usr/bin/env bash
# Benchmark 1 on 2 ranks (the default sweep 8 B .. 2 MiB per peer, every
# registered algorithm and the memcpy bound, 3 launches): installs
# dependencies, builds, prints the table, writes results/benchmark1/*.csv,png.
# Extra arguments go to bench_alltoallv, e.g. --sizes 32768,262144.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install_deps.sh"
"$root/scripts/build.sh" "$root/build" >/dev/null
mpiexec=mpiexec
command -v mpiexec.mpich >/dev/null && mpiexec=mpiexec.mpich
exec /usr/bin/python3 "$root/benchmarks/benchmark1.py" --bench "$root/build/benchmarks/bench_alltoallv" \
  --mpiexec "$mpiexec" --ranks "${RANKS:-2}" --launches "${LAUNCHES:-3}" --outdir "$root/results/benchmark1" -- "$@"
