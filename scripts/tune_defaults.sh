#!/usr/bin/env bash
# Re-measures the selector's built-in parameters on this machine for the MPI
# named by MPI= (mpich, the default, or openmpi) and writes them to
# selector/tuning_defaults_<mpi>.json (compiled into that MPI's build): 5
# launches of mpix_tune on one node with 2 ranks (LAUNCHES=), merged
# (mpix_tune --merge: medians that keep each launch's ratios between
# algorithms), then 5 emulated off-node (every rank its own node, MPI over
# TCP) on top of them, merged likewise (OFFNODE=0 skips them: the
# multi-node parameters stay those of the file it starts from). Run on a
# quiet machine; rebuild afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
mpi=${MPI:-mpich}
launches=${LAUNCHES:-5}
{ read -r build; read -r mpiexec; } < <(bash scripts/prepare_benchmark.sh)
read -r -a launcher <<<"$mpiexec"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# MPI traffic over TCP: MPICH's through UCX, Open MPI's through its TCP
# transport, with RMA over point-to-point (its RDMA one-sided component
# needs a transport with RDMA, and no window can be created without it).
tcp=(UCX_TLS=tcp,self OMPI_MCA_btl=self,tcp OMPI_MCA_osc=pt2pt)
mpi_name=$("$build/mpix_info" --version 2>/dev/null | sed 's/.*built with //; s/)$//')
source_text="built-in defaults, measured on the development machine ($(nproc) cores, $mpi_name) on $(date -u +%F) by scripts/tune_defaults.sh: merged (ratio-preserving medians) from $launches launches of mpiexec -n 2 mpix_tune (one node)"
if [ "${OFFNODE:-1}" = 1 ]; then
  source_text+=", then from $launches with MPIX_NODE_SIZE=1 ${tcp[*]} (emulated off-node)"
else
  source_text+="; the multi-node parameters are not measured with $mpi_name (OFFNODE=0): kept from the file it started from"
fi
for launch in $(seq 1 "$launches"); do
  "${launcher[@]}" -n 2 "$build/mpix_tune" --repeats 7 --output "$out/one_node_$launch.json" >/dev/null
done
"$build/mpix_tune" --merge "$(ls "$out"/one_node_*.json | paste -sd,)" --output "$out/one_node.json" >/dev/null
if [ "${OFFNODE:-1}" != 1 ]; then
  "$build/mpix_tune" --merge "$out/one_node.json" --output "selector/tuning_defaults_$mpi.json" --source "$source_text"
  echo "wrote selector/tuning_defaults_$mpi.json"
  exit 0
fi
for launch in $(seq 1 "$launches"); do
  env MPIX_NODE_SIZE=1 "${tcp[@]}" MPIX_TUNING_FILE="$out/one_node.json" \
    "${launcher[@]}" -n 2 "$build/mpix_tune" --repeats 7 --output "$out/offnode_$launch.json" >/dev/null
done
"$build/mpix_tune" --merge "$(ls "$out"/offnode_*.json | paste -sd,)" --output "selector/tuning_defaults_$mpi.json" \
  --source "$source_text"
echo "wrote selector/tuning_defaults_$mpi.json"
