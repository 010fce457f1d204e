#!/usr/bin/env bash
# The RMA layer benchmarks on 2 ranks (memory-handle put latency, RMA-MT):
# installs dependencies, builds, prints the table and the ratios, writes
# results/rma/rma.csv, memhandle.png and rma_mt.png.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install_deps.sh"
"$root/scripts/build.sh" "$root/build" >/dev/null
mpiexec=mpiexec
command -v mpiexec.mpich >/dev/null && mpiexec=mpiexec.mpich
exec /usr/bin/python3 "$root/benchmarks/rma_benchmarks.py" --build "$root/build" --mpiexec "$mpiexec" \
  --repeats "${REPEATS:-11}" --outdir "$root/results/rma"
