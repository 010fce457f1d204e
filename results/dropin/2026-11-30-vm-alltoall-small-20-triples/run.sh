# 20 triples of launches: plain, preloaded with MPIX_INTERCEPT=off, preloaded (summary.txt)
cd "$(dirname "$0")/../../.."  # the repository
one() { env "$@" mpiexec.mpich -n 2 build/benchmarks/bench_dropin --sizes 8,64,512,4096 --loop sweep --collective alltoall --csv /tmp/y.csv >/dev/null 2>&1; python3 -c "
import csv; r=list(csv.DictReader(open('/tmp/y.csv'))); print(' '.join(list(row.values())[-1] for row in r))"; }
for i in $(seq 1 20); do
  p=$(one A=1); o=$(one LD_PRELOAD=$PWD/build/libmpixrma_intercept.so MPIX_INTERCEPT=off); q=$(one LD_PRELOAD=$PWD/build/libmpixrma_intercept.so)
  echo "$p | $o | $q"
done
