#!/usr/bin/env bash
# Issue 59's uniform criterion timed from each pattern's first call (the
# project's sweep style: a new pattern every 250 calls, timed from its
# first), beside the OSU-style sweep that times calls 51..250: bench_dropin's
# prefix loop (the sweep up to the size before, then 1000 calls of the last
# size, the time per call over its first 50, 100, 250 and 1000), preloaded,
# as MPI_Alltoallv with uniform blocks and as MPI_Alltoall, one launch after
# the other, which goes first alternating (the uniform sweep's run.sh,
# with the prefix loop). Run from the repository's root.
#   prefix.sh <build> <pairs> <outdir>   (LASTS: the last sizes, in bytes)
set -euo pipefail
build=$1 pairs=$2 out=$3
lasts=${LASTS:-"32768 65536 131072 262144 524288"}
for last in $lasts; do
  sizes=$(python3 -c "print(','.join(str(8 << i) for i in range(20) if 8 << i <= $last))")
  bash results/dropin/2026-11-30-vm-uniform-alltoallv-vs-alltoall/run.sh "$build" "$pairs" "$out" prefix "$sizes" "$last-"
done
python3 - "$out" "$pairs" $lasts <<'PY'
import csv, statistics, sys
out, pairs, lasts = sys.argv[1], int(sys.argv[2]), [int(x) for x in sys.argv[3:]]
def read(name):
    with open(f"{out}/{name}") as f:
        return {int(r["bytes_per_peer"]): float(r["seconds"]) for r in csv.DictReader(f)}
print("| bytes per peer | first calls | Alltoallv, median us | Alltoall, median us | Alltoallv / Alltoall, median of pairs (min..max) |")
print("|---|---|---|---|---|")
for last in lasts:
    v = [read(f"{last}-alltoallv-{i}.csv") for i in range(pairs)]
    a = [read(f"{last}-alltoall-{i}.csv") for i in range(pairs)]
    for calls in sorted(v[0]):
        ratios = [v[i][calls] / a[i][calls] for i in range(pairs)]
        print(f"| {last} | {calls} | {1e6 * statistics.median(x[calls] for x in v):.2f} | "
              f"{1e6 * statistics.median(x[calls] for x in a):.2f} | "
              f"{statistics.median(ratios):.3f} ({min(ratios):.2f}..{max(ratios):.2f}) |")
PY
