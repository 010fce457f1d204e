#!/usr/bin/env bash
# One phase's measurements, from the repository root, with the base
# library (the commit before the change) in $BASE and the change in
# build/: the copy floor, then ROUNDS rounds of the three OSU-style sweeps
# (plain, base and change interleaved within each collective, the
# collectives one after the other within each round), the copy floor
# again, and the summary (summary.py). usage: phase.sh OUT ROUNDS
set -euo pipefail
here=$(dirname "$0")
out=$1 rounds=$2
mkdir -p "$out"
base="LD_PRELOAD=$BASE/libmpixrma_intercept.so"
sizes=8,64,512,4096,8192,16384,32768,65536,131072,262144,524288,1048576,2097152,4194304
mpiexec.mpich -n 2 build/benchmarks/bench_copy_floor > "$out/copy_floor_before.txt" 2>&1
for ((i=0;i<rounds;i++)); do
  for coll in alltoall alltoallv neighbor; do
    FIRST=$i "$here/variants.sh" "$out/$coll" 1 $sizes $coll plain=x base="$base" change='' > /dev/null
  done
done
mpiexec.mpich -n 2 build/benchmarks/bench_copy_floor > "$out/copy_floor_after.txt" 2>&1
python3 "$here/summary.py" "$out" "$rounds" > "$out/summary.txt"
cat "$out/summary.txt"
