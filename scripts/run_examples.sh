#!/usr/bin/env bash
# The applications (examples/fft3d, examples/cg) on 2 ranks, MPI_Alltoallv
# against mpix-rma auto, 3 launches (LAUNCHES=), matrices from
# ../shared/matrices (MATRIX_DIR=): table, results/examples/examples.csv,png.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
{ read -r build; read -r mpiexec; } < <("$root/scripts/prepare_benchmark.sh")
exec /usr/bin/python3 "$root/examples/run_examples.py" --build "$build" --mpiexec "$mpiexec" \
  --ranks "${RANKS:-2}" --launches "${LAUNCHES:-3}" --matrix-dir "${MATRIX_DIR:-$root/../shared/matrices}" \
  --outdir "$root/results/examples"
