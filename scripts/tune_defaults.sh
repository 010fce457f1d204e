#!/usr/bin/env bash
# Re-measures the selector's built-in parameters on this machine and writes
# them to selector/tuning_defaults.json (compiled into the library): one node
# with 2 ranks, then emulated off-node (every rank its own node, MPI over TCP).
# Run on a quiet machine; rebuild afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh build >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
source_text="built-in defaults, measured on the development machine ($(nproc) cores, $(mpichversion 2>/dev/null | head -1 | tr -s " \t" " " || echo MPICH)) on $(date -u +%F) by scripts/tune_defaults.sh: mpiexec -n 2 mpix_tune (one node), then MPIX_NODE_SIZE=1 UCX_TLS=tcp,self mpiexec -n 2 mpix_tune (emulated off-node)"
mpiexec -n 2 build/mpix_tune --output "$out/one_node.json"
MPIX_NODE_SIZE=1 UCX_TLS=tcp,self MPIX_TUNING_FILE="$out/one_node.json" \
  mpiexec -n 2 build/mpix_tune --output selector/tuning_defaults.json --source "$source_text"
echo "wrote selector/tuning_defaults.json"
