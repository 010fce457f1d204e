#!/usr/bin/env bash
# Plain MPI, and the drop-in three ways (as is; nothing admitted; nothing
# admitted and every call to MPI's own), the order rotating; EXTRA= adds
# environment to every launch: paths.sh OUT ROUNDS [collective].
set -euo pipefail
out=$1 rounds=$2 coll=${3:-alltoall}
B=$(realpath ${BUILD:-build})
sizes=$(python3 -c "print(','.join(str(8 << i) for i in range(20)))")
mkdir -p $out
L="LD_PRELOAD=$B/libmpixrma_intercept.so"
for ((i=0;i<rounds;i++)); do
  kinds=(plain dflt claimed pmpi)
  for ((r=0;r<i%4;r++)); do kinds=("${kinds[@]:1}" "${kinds[0]}"); done
  for k in "${kinds[@]}"; do
    case $k in plain) pre="";; dflt) pre="$L";; claimed) pre="$L MPIX_INTERCEPT_MIN_BYTES=2147483647";; pmpi) pre="$L MPIX_INTERCEPT_MIN_BYTES=2147483647 MPIX_INTERCEPT_BLOCKING=agreed";; esac
    env ${EXTRA:-} $pre mpiexec.mpich -n 2 $B/benchmarks/bench_dropin --loop sweep --collective $coll --sizes $sizes --csv $out/$k-$i.csv >/dev/null
  done
done
