#!/bin/bash
# The blocking calls three ways, launches one after another: plain MPI;
# preloaded with MPIX_INTERCEPT_BLOCKING=agreed (the passed-on calls go to
# the MPI, as before this stop); preloaded (claimed). N launches each,
# median of the launches ratios to plain.
mkdir -p /tmp/three_ways
cd "$(git rev-parse --show-toplevel)"
SIZES=${SIZES:-8,16,32,64,128,256,512,1024,2048,4096,8192,16384,32768,65536,131072,262144,524288,1048576,2097152,4194304}
N=${N:-5}
for coll in ${COLLS:-alltoallv alltoall}; do for loop in ${LOOPS:-sweep application}; do
  for i in $(seq 1 $N); do
    mpiexec.mpich -n 2 build/benchmarks/bench_dropin --sizes $SIZES --loop $loop --collective $coll ${EXTRA} --csv /tmp/three_ways/$coll-$loop-plain-$i.csv >/dev/null 2>&1
    LD_PRELOAD=build/libmpixrma_intercept.so MPIX_INTERCEPT_BLOCKING=agreed mpiexec.mpich -n 2 build/benchmarks/bench_dropin --sizes $SIZES --loop $loop --collective $coll ${EXTRA} --csv /tmp/three_ways/$coll-$loop-agreed-$i.csv >/dev/null 2>&1
    LD_PRELOAD=build/libmpixrma_intercept.so mpiexec.mpich -n 2 build/benchmarks/bench_dropin --sizes $SIZES --loop $loop --collective $coll ${EXTRA} --csv /tmp/three_ways/$coll-$loop-claimed-$i.csv >/dev/null 2>&1
  done
  python3 - $coll $loop $N <<'PY'
import csv,sys,statistics as st
coll,loop,n=sys.argv[1],sys.argv[2],int(sys.argv[3])
def rd(v,i): return {int(r['bytes_per_peer']):float(r['seconds']) for r in csv.DictReader(open(f'/tmp/three_ways/{coll}-{loop}-{v}-{i}.csv'))}
P=[rd('plain',i) for i in range(1,n+1)];A=[rd('agreed',i) for i in range(1,n+1)];C=[rd('claimed',i) for i in range(1,n+1)]
print(f"== {coll} {loop}: plain us | agreed/plain (min..max) | claimed/plain (min..max)")
for b in sorted(P[0]):
  ra=[A[i][b]/P[i][b] for i in range(n)]; rc=[C[i][b]/P[i][b] for i in range(n)]
  print(f"{b:>8} {st.median(p[b] for p in P)*1e6:9.2f} | {st.median(ra):.3f} ({min(ra):.2f}..{max(ra):.2f}) | {st.median(rc):.3f} ({min(rc):.2f}..{max(rc):.2f}){'  !' if st.median(rc)>1.03 else ''}")
PY
done; done
