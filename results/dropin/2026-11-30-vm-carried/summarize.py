"""Per loop and size: each variant's median time over launches (min..max),
and the medians of the per-launch ratios new/plain, base/plain, new/base."""
import csv, glob, os, statistics, sys
out = sys.argv[1]
data = {}
for path in glob.glob(os.path.join(out, '*.csv')):
    v, loop, launch = os.path.basename(path)[:-4].split('-')
    for row in csv.DictReader(open(path)):
        data[(v, loop, int(launch), int(row['bytes_per_peer']))] = float(row['seconds']) * 1e6
loops = sorted({k[1] for k in data}, key=['application', 'exchange', 'barrier', 'sweep'].index)
sizes = sorted({k[3] for k in data})
launches = sorted({k[2] for k in data})
print('loop         bytes   plain us (min..max)      base us              new us              new/plain (min..max)  base/plain  new/base')
for loop in loops:
    for b in sizes:
        t = {v: [data[(v, loop, l, b)] for l in launches] for v in ('plain', 'base', 'new')}
        r = lambda a, c: [x / y for x, y in zip(t[a], t[c])]
        med = lambda xs: statistics.median(xs)
        rng = lambda xs: f'{med(xs):8.2f} ({min(xs):.2f}..{max(xs):.2f})'
        nr = r('new', 'plain')
        print(f'{loop:11s} {b:8d}  {rng(t["plain"]):24s} {med(t["base"]):8.2f}   {med(t["new"]):8.2f}   '
              f'{med(nr):6.3f} ({min(nr):.2f}..{max(nr):.2f})   {med(r("base", "plain")):6.3f}   {med(r("new", "base")):6.3f}')
