import csv,statistics,sys
d,n=sys.argv[1],int(sys.argv[2])
def read(p): return {int(r["bytes_per_peer"]): float(r["seconds"]) for r in csv.DictReader(open(p))}
K=("plain","dflt","claimed","pmpi")
D={k:[read(f"{d}/{k}-{i}.csv") for i in range(n)] for k in K}
print("size plain_us " + "  ".join(f"{k}/plain" for k in K[1:]))
for s in sorted(D["plain"][0]):
    line=f"{s:8d} {1e6*statistics.median(p[s] for p in D['plain']):8.2f}"
    for k in K[1:]:
        r=[D[k][i][s]/D["plain"][i][s] for i in range(n)]
        line+=f"  {statistics.median(r):.3f}"
    print(line)
