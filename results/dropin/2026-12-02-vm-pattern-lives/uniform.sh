#!/usr/bin/env bash
# The uniform MPI_Alltoallv sweep against the MPI_Alltoall sweep, both
# under the drop-in (build/), their order alternating every round; then
# per size and over the whole sweep (its timed calls weighted) the median
# over rounds of the Alltoallv time over the Alltoall time of the same
# round. From the repository root. usage: uniform.sh OUT ROUNDS
set -euo pipefail
out=$1 rounds=$2
B=$(realpath ${BUILD:-build})
sizes=8,64,512,4096,8192,16384,32768,65536,131072,262144,524288,1048576,2097152,4194304
mkdir -p "$out"
for ((i=0;i<rounds;i++)); do
  order=(alltoallv alltoall); ((i%2)) && order=(alltoall alltoallv)
  for c in "${order[@]}"; do
    LD_PRELOAD=$B/libmpixrma_intercept.so mpiexec.mpich -n 2 $B/benchmarks/bench_dropin --loop sweep \
      --collective $c --sizes $sizes --csv "$out/$c-$i.csv" > /dev/null
  done
done
python3 - "$out" "$rounds" <<'PY'
import csv, statistics, sys
out, n = sys.argv[1], int(sys.argv[2])
def read(p): return {int(r["bytes_per_peer"]): float(r["seconds"]) for r in csv.DictReader(open(p))}
v = [read(f"{out}/alltoallv-{i}.csv") for i in range(n)]
a = [read(f"{out}/alltoall-{i}.csv") for i in range(n)]
def spread(x):
    x = sorted(x)
    return f"{statistics.median(x):.3f} ({x[len(x) // 4]:.2f}..{x[3 * len(x) // 4]:.2f})"
calls = {s: 100 if s >= 1 << 20 else 200 for s in a[0]}
print(f"uniform MPI_Alltoallv / MPI_Alltoall under the drop-in, {n} rounds: median (quartiles)")
print("   whole " + spread(sum(calls[s] * v[i][s] for s in calls) / sum(calls[s] * a[i][s] for s in calls) for i in range(n)))
for s in sorted(calls):
    print(f"{s:8d} " + spread(v[i][s] / a[i][s] for i in range(n)))
pooled = [v[i][s] / a[i][s] for i in range(n) for s in calls]
print("  pooled " + spread(pooled))
PY
