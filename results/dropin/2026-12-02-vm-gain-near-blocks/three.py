import csv,statistics,sys
d,n=sys.argv[1],int(sys.argv[2])
def read(p): return {int(r["bytes_per_peer"]): float(r["seconds"]) for r in csv.DictReader(open(p))}
P=[read(f"{d}/plain-{i}.csv") for i in range(n)]
B=[read(f"{d}/base-{i}.csv") for i in range(n)]
F=[read(f"{d}/fix-{i}.csv") for i in range(n)]
print("size plain_us  base/plain med(min..max)  fix/plain med(min..max)")
for s in sorted(P[0]):
    rb=sorted(B[i][s]/P[i][s] for i in range(n)); rf=sorted(F[i][s]/P[i][s] for i in range(n))
    print(f"{s:8d} {1e6*statistics.median(p[s] for p in P):8.2f}  {statistics.median(rb):.3f} ({rb[0]:.2f}..{rb[-1]:.2f})  {statistics.median(rf):.3f} ({rf[0]:.2f}..{rf[-1]:.2f})")
