#!/usr/bin/env bash
# Issue 59: "a uniform MPI_Alltoallv sweep runs within 3% of the same sweep
# made with MPI_Alltoall under the drop-in". The OSU-style sweep of
# bench_dropin (50 + 200 calls per size, 20 + 100 from 1 MiB, a barrier
# between calls), preloaded, as MPI_Alltoallv with uniform blocks and as
# MPI_Alltoall, one launch after the other, which goes first alternating.
#   run.sh <build> <pairs> <outdir> [<loop> <sizes> <tag>]
# Another loop of bench_dropin (later stops' prefix.sh: prefix), over
# other sizes, writes <tag><collective>-<pair>.csv and no summary.
set -euo pipefail
build=$1 pairs=$2 out=$3 loop=${4:-sweep}
sizes=${5:-$(python3 -c "print(','.join(str(8 << i) for i in range(20)))")}
tag=${6:-}
mkdir -p "$out"
for ((i = 0; i < pairs; i++)); do
  order=(alltoallv alltoall)
  ((i % 2)) && order=(alltoall alltoallv)
  for c in "${order[@]}"; do
    LD_PRELOAD=$build/libmpixrma_intercept.so mpiexec.mpich -n 2 "$build/benchmarks/bench_dropin" --loop "$loop" \
      --collective "$c" --sizes "$sizes" --csv "$out/$tag$c-$i.csv" > /dev/null
  done
done
[ "$loop" = sweep ] || exit 0
python3 - "$out" "$pairs" <<'PY'
import csv, statistics, sys
out, pairs = sys.argv[1], int(sys.argv[2])
def read(name):
    with open(f"{out}/{name}") as f:
        return {int(r["bytes_per_peer"]): float(r["seconds"]) for r in csv.DictReader(f)}
v = [read(f"alltoallv-{i}.csv") for i in range(pairs)]
a = [read(f"alltoall-{i}.csv") for i in range(pairs)]
print("| bytes per peer | Alltoallv, median us | Alltoall, median us | Alltoallv / Alltoall, median of pairs (min..max) |")
print("|---|---|---|---|")
worst = 0
for size in sorted(v[0]):
    ratios = [v[i][size] / a[i][size] for i in range(pairs)]
    m = statistics.median(ratios)
    worst = max(worst, m)
    print(f"| {size} | {1e6 * statistics.median(x[size] for x in v):.2f} | "
          f"{1e6 * statistics.median(x[size] for x in a):.2f} | {m:.3f} ({min(ratios):.2f}..{max(ratios):.2f}) |")
print(f"\nlargest median ratio: {worst:.3f}")
PY
