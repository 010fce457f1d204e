#!/usr/bin/env python3
"""The change's sweep time per call at the copy floor's sizes, over the
floor's staged copy (bench_copy_floor before and after the phase: their
mean, and each), per collective. usage: floor.py OUT ROUNDS"""
import csv, statistics, sys

out, rounds = sys.argv[1], int(sys.argv[2])


def staged(path):
    floor = {}
    for line in open(path):
        f = line.split()
        if len(f) > 2 and f[1] == "staged":
            floor[int(f[0])] = float(f[2])
    return floor


before, after = staged(f"{out}/copy_floor_before.txt"), staged(f"{out}/copy_floor_after.txt")
for coll in ("alltoall", "alltoallv", "neighbor"):
    runs = [{int(r["bytes_per_peer"]): float(r["seconds"]) for r in csv.DictReader(open(f"{out}/{coll}/change-{i}.csv"))}
            for i in range(rounds)]
    for size in sorted(set(before) & set(runs[0])):
        us = 1e6 * statistics.median(r[size] for r in runs)
        mean = (before[size] + after[size]) / 2
        print(f"{coll:10s} {size:8d} change {us:9.2f} us, staged floor {before[size]:.2f}/{after[size]:.2f} us: "
              f"{us / mean:.2f}x (each {us / before[size]:.2f}, {us / after[size]:.2f})")
