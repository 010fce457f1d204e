#!/usr/bin/env bash
# A uniform MPI_Alltoallv sweep and an MPI_Alltoall sweep under two
# libraries (BASE, then BUILD's; their order rotating): OUT ROUNDS [sizes].
set -euo pipefail
out=$1 rounds=$2 sizes=${3:-$(python3 -c "print(','.join(str(8 << i) for i in range(20)))")}
B=$(realpath ${BUILD:-build})
mkdir -p $out
for ((i=0;i<rounds;i++)); do
  libs=(base fix); ((i%2)) && libs=(fix base)
  for lib in "${libs[@]}"; do
    so=${BASE:?set BASE to the earlier library}; [ $lib = fix ] && so=$B/libmpixrma_intercept.so
    order=(alltoallv alltoall); ((i%2)) && order=(alltoall alltoallv)
    for c in "${order[@]}"; do
      LD_PRELOAD=$so mpiexec.mpich -n 2 $B/benchmarks/bench_dropin --loop sweep --collective $c --sizes $sizes --csv $out/$lib-$c-$i.csv >/dev/null
    done
  done
done
