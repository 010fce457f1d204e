#!/usr/bin/env bash
# plain vs preloaded (LIB), sweep of SIZES, rounds alternating order
set -euo pipefail
out=$1 rounds=$2 sizes=$3 coll=${4:-alltoall}
B=$(realpath ${BUILD:-build})
mkdir -p $out
for ((i=0;i<rounds;i++)); do
  kinds=(plain dflt); ((i%2)) && kinds=(dflt plain)
  for k in "${kinds[@]}"; do
    pre=""; [ $k = dflt ] && pre="LD_PRELOAD=${LIB:-$B/libmpixrma_intercept.so} ${EXTRA:-}"
    env $pre mpiexec.mpich -n 2 $B/benchmarks/bench_dropin --loop sweep --collective $coll --sizes $sizes --csv $out/$k-$i.csv >/dev/null
  done
done
python3 - $out $rounds <<'PY'
import csv,statistics,sys
d,n=sys.argv[1],int(sys.argv[2])
def read(p): return {int(r["bytes_per_peer"]): float(r["seconds"]) for r in csv.DictReader(open(p))}
P=[read(f"{d}/plain-{i}.csv") for i in range(n)]; D=[read(f"{d}/dflt-{i}.csv") for i in range(n)]
for s in sorted(P[0]):
    r=sorted(D[i][s]/P[i][s] for i in range(n))
    print(f"{s:8d} {1e6*statistics.median(p[s] for p in P):8.2f} {statistics.median(r):.3f} ({r[n//4]:.2f}..{r[3*n//4]:.2f})")
PY
