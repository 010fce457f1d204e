#!/usr/bin/env bash
# The RMA layer benchmarks on 2 ranks (memory-handle put latency, RMA-MT):
# installs dependencies, builds, prints the table and the ratios, writes
# results/rma/rma.csv, memhandle.png and rma_mt.png.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mpiexec=$("$root/scripts/prepare_benchmark.sh")
exec /usr/bin/python3 "$root/benchmarks/rma_benchmarks.py" --build "$root/build" --mpiexec "$mpiexec" \
  --repeats "${REPEATS:-11}" --outdir "$root/results/rma"
