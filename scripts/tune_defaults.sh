#!/usr/bin/env bash
# Re-measures the selector's built-in parameters on this machine and writes
# them to selector/tuning_defaults.json (compiled into the library): 5
# launches of mpix_tune on one node with 2 ranks, merged (mpix_tune --merge:
# medians that keep each launch's ratios between algorithms), then 5
# emulated off-node (every rank its own node, MPI over TCP) on top of them,
# merged likewise. Run on a quiet machine; rebuild afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh build >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
source_text="built-in defaults, measured on the development machine ($(nproc) cores, $(mpichversion 2>/dev/null | head -1 | tr -s " \t" " " || echo MPICH)) on $(date -u +%F) by scripts/tune_defaults.sh: merged (ratio-preserving medians) from 5 launches of mpiexec -n 2 mpix_tune (one node), then from 5 with MPIX_NODE_SIZE=1 UCX_TLS=tcp,self (emulated off-node)"
for launch in 0 1 2 3 4; do
  mpiexec -n 2 build/mpix_tune --repeats 7 --output "$out/one_node_$launch.json" >/dev/null
done
build/mpix_tune --merge "$(ls "$out"/one_node_?.json | paste -sd,)" --output "$out/one_node.json" >/dev/null
for launch in 0 1 2 3 4; do
  MPIX_NODE_SIZE=1 UCX_TLS=tcp,self MPIX_TUNING_FILE="$out/one_node.json" \
    mpiexec -n 2 build/mpix_tune --repeats 7 --output "$out/offnode_$launch.json" >/dev/null
done
build/mpix_tune --merge "$(ls "$out"/offnode_?.json | paste -sd,)" --output selector/tuning_defaults.json \
  --source "$source_text"
echo "wrote selector/tuning_defaults.json"
