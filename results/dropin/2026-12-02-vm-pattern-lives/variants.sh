#!/usr/bin/env bash
# bench_dropin's OSU-style sweep (or LOOP=...) under each variant, rounds
# interleaved (the order rotates every round), then per size the median
# over rounds of each variant's time over plain's of the same round, with
# its quartiles.
# usage: variants.sh OUT ROUNDS SIZES COLLECTIVE plain=x NAME='ENV ...' ...
#   plain: no drop-in; every other variant preloads $LIB (default
#   $BUILD/libmpixrma_intercept.so) with its ENV (LD_PRELOAD=... in it
#   picks another library); ENVALL goes to every variant, plain included;
#   FIRST numbers the rounds from FIRST (0), to add rounds to OUT.
set -euo pipefail
out=$1 rounds=$2 sizes=$3 coll=$4; shift 4
B=$(realpath ${BUILD:-build})
mkdir -p $out
names=(); envs=()
for v in "$@"; do names+=("${v%%=*}"); envs+=("${v#*=}"); done
n=${#names[@]}
first=${FIRST:-0}
for ((i=first;i<first+rounds;i++)); do
  for ((j=0;j<n;j++)); do
    k=$(( (i+j) % n ))
    nm=${names[$k]} ev=${envs[$k]}
    pre="${ENVALL:-}"; [ "$nm" != plain ] && pre="$pre LD_PRELOAD=${LIB:-$B/libmpixrma_intercept.so} $ev"
    env $pre mpiexec.mpich -n 2 $B/benchmarks/bench_dropin --loop ${LOOP:-sweep} --collective $coll --sizes $sizes --csv $out/$nm-$i.csv >/dev/null
  done
done
python3 - $out $((first+rounds)) "${names[@]}" <<'PY'
import csv,statistics,sys
d,n=sys.argv[1],int(sys.argv[2]); names=sys.argv[3:]
def read(p): return {int(r["bytes_per_peer"]): float(r["seconds"]) for r in csv.DictReader(open(p))}
R={nm:[read(f"{d}/{nm}-{i}.csv") for i in range(n)] for nm in names}
P=R["plain"]
print("bytes plain_us "+" ".join(nm for nm in names if nm!="plain"))
for s in sorted(P[0]):
    line=f"{s:8d} {1e6*statistics.median(p[s] for p in P):8.2f}"
    for nm in names:
        if nm=="plain": continue
        r=sorted(R[nm][i][s]/P[i][s] for i in range(n))
        line+=f"  {statistics.median(r):.3f}({r[n//4]:.2f}..{r[3*n//4]:.2f})"
    print(line)
PY
