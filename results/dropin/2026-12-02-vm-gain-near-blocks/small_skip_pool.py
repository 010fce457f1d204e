import csv,statistics,sys
d,n=sys.argv[1],int(sys.argv[2])
def read(p):
    return {int(r["bytes_per_peer"]): float(r["seconds"]) for r in csv.DictReader(open(p))}
for lib in ("base","fix"):
    v=[read(f"{d}/{lib}-alltoallv-{i}.csv") for i in range(n)]
    a=[read(f"{d}/{lib}-alltoall-{i}.csv") for i in range(n)]
    for lo,hi in ((8,16384),):
        r=[v[i][s]/a[i][s] for i in range(n) for s in v[0] if lo<=s<=hi]
        sv=sum(v[i][s] for i in range(n) for s in v[0] if lo<=s<=hi); sa=sum(a[i][s] for i in range(n) for s in v[0] if lo<=s<=hi)
        print(lib, lo, hi, f"pooled median {statistics.median(r):.3f}  sum ratio {sv/sa:.3f}")
