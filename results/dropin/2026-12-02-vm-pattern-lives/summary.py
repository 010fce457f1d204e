#!/usr/bin/env python3
"""Per collective and size: plain's median time, and each library's time
over plain's of the same round (median, quartiles over rounds, min..max);
then the uniform MPI_Alltoallv sweep over the MPI_Alltoall sweep of the
same round, per library. usage: summary.py OUT ROUNDS"""
import csv, statistics, sys

out, rounds = sys.argv[1], int(sys.argv[2])


def read(path):
    return {int(r["bytes_per_peer"]): float(r["seconds"]) for r in csv.DictReader(open(path))}


def spread(values):
    v = sorted(values)
    n = len(v)
    return f"{statistics.median(v):.3f} ({v[n // 4]:.2f}..{v[3 * n // 4]:.2f}; {v[0]:.2f}..{v[-1]:.2f})"


runs = {}
for coll in ("alltoall", "alltoallv", "neighbor"):
    runs[coll] = {lib: [read(f"{out}/{coll}/{lib}-{i}.csv") for i in range(rounds)] for lib in ("plain", "base", "change")}
    plain = runs[coll]["plain"]
    print(f"{coll}: bytes per peer, plain us, base/plain, change/plain (median (quartiles; min..max) of {rounds} rounds)")
    for size in sorted(plain[0]):
        line = f"{size:8d} {1e6 * statistics.median(p[size] for p in plain):9.2f}"
        for lib in ("base", "change"):
            line += "  " + spread(runs[coll][lib][i][size] / plain[i][size] for i in range(rounds))
        print(line)
    print()
print("uniform MPI_Alltoallv sweep over the MPI_Alltoall sweep, same round: base, change")
# The sweep's timed calls: 200 per size, 100 from 1 MiB (bench_dropin).
calls = {size: 100 if size >= 1 << 20 else 200 for size in runs["alltoall"]["plain"][0]}
line = "   whole"
for lib in ("base", "change"):
    line += "  " + spread(sum(calls[s] * runs["alltoallv"][lib][i][s] for s in calls) /
                         sum(calls[s] * runs["alltoall"][lib][i][s] for s in calls) for i in range(rounds))
print(line)
for size in sorted(runs["alltoall"]["plain"][0]):
    line = f"{size:8d}"
    for lib in ("base", "change"):
        line += "  " + spread(runs["alltoallv"][lib][i][size] / runs["alltoall"][lib][i][size] for i in range(rounds))
    print(line)
