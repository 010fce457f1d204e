import csv,statistics,sys
d,n=sys.argv[1],int(sys.argv[2])
def read(p):
    return {int(r["bytes_per_peer"]): float(r["seconds"]) for r in csv.DictReader(open(p))}
R={}
for lib in ("base","fix"):
    v=[read(f"{d}/{lib}-alltoallv-{i}.csv") for i in range(n)]
    a=[read(f"{d}/{lib}-alltoall-{i}.csv") for i in range(n)]
    R[lib]=(v,a)
print("size  base v/a median(q1..q3)   fix v/a median(q1..q3)   a us")
for s in sorted(R["base"][0][0]):
    line=f"{s:8d}"
    for lib in ("base","fix"):
        v,a=R[lib]
        r=sorted(v[i][s]/a[i][s] for i in range(n))
        line+=f"   {statistics.median(r):.3f} ({r[n//4]:.2f}..{r[(3*n)//4]:.2f})"
    line+=f"   {1e6*statistics.median(x[s] for x in R['fix'][1]):.2f}"
    print(line)
