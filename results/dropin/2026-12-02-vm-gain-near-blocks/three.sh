#!/usr/bin/env bash
# Plain MPI, the library named by BASE (base) and the one under BUILD (fix),
# the order rotating each round: bench_dropin OUT ROUNDS [collective] [loop].
set -euo pipefail
out=$1 rounds=$2 coll=${3:-alltoall} loop=${4:-sweep}
B=$(realpath ${BUILD:-build})
sizes=$(python3 -c "print(','.join(str(8 << i) for i in range(20)))")
mkdir -p $out
for ((i=0;i<rounds;i++)); do
  kinds=(plain base fix); ((i%3==1)) && kinds=(base fix plain); ((i%3==2)) && kinds=(fix plain base)
  for k in "${kinds[@]}"; do
    pre=""; [ $k = base ] && pre="LD_PRELOAD=${BASE:?set BASE to the earlier library}"; [ $k = fix ] && pre="LD_PRELOAD=$B/libmpixrma_intercept.so"
    env $pre mpiexec.mpich -n 2 $B/benchmarks/bench_dropin --loop $loop --collective $coll --sizes $sizes --csv $out/$k-$i.csv >/dev/null
  done
done
