#!/usr/bin/env python3
"""The drop-in benchmark: bench_dropin (a plain MPI program looping
MPI_Alltoallv as an application does) launched alternately without and with
LD_PRELOAD=libmpixrma_intercept.so; medians over launches per size, the ratio
preloaded / plain, and the drop-in's agreement cost per call (MPIX_VERBOSE=1
of the preloaded launches). Writes dropin.csv and dropin.png into --outdir."""
import argparse
import os
import re
import statistics
import tempfile
from collections import defaultdict

from bench_report import environment_header, pyplot, run_launch, write_csv


def parse_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--bench", required=True, help="path to bench_dropin")
    p.add_argument("--intercept", required=True, help="path to libmpixrma_intercept.so")
    p.add_argument("--mpiexec", default="mpiexec")
    p.add_argument("--ranks", type=int, default=2)
    p.add_argument("--launches", type=int, default=3, help="launches of each variant")
    p.add_argument("--sizes", default="8,64,512,4096,32768,262144,2097152")
    p.add_argument("--outdir", required=True)
    return p.parse_args()


def main():
    args = parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    print(environment_header())
    variants = {"plain": {}, "preloaded": {"LD_PRELOAD": args.intercept, "MPIX_VERBOSE": "1"}}
    rows, agreement_us = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for launch in range(args.launches):
            order = list(variants) if launch % 2 == 0 else list(reversed(variants))
            for variant in order:
                csv_path = os.path.join(tmp, f"{variant}{launch}.csv")
                cmd = [args.mpiexec, "-n", str(args.ranks), args.bench, "--sizes", args.sizes, "--csv", csv_path]
                output = []
                for row in run_launch(cmd, variants[variant], csv_path, f"launch {launch + 1}/{args.launches}",
                                      output):
                    rows.append({**row, "variant": variant, "launch": launch})
                if "WRONG" in output[0]:
                    raise SystemExit(f"{variant} launch delivered wrong data:\n{output[0]}")
                agreement_us += [float(m) for m in re.findall(r"agreements \(([0-9.]+) us each\)", output[0])]
    write_csv(rows, os.path.join(args.outdir, "dropin.csv"))

    times = defaultdict(list)
    for r in rows:
        times[(int(r["bytes_per_peer"]), r["variant"])].append(float(r["seconds"]))
    sizes = sorted({size for size, _ in times})
    print(f"\n# {args.ranks} ranks, application loop, heap buffers; medians over {args.launches} launches")
    print(f"{'bytes/peer':>10} {'plain us':>10} {'preloaded us':>13} {'ratio':>7}")
    ratios = []
    for size in sizes:
        plain = statistics.median(times[(size, "plain")])
        preloaded = statistics.median(times[(size, "preloaded")])
        ratios.append(preloaded / plain)
        print(f"{size:>10} {plain * 1e6:10.2f} {preloaded * 1e6:13.2f} {preloaded / plain:7.3f}")
    if agreement_us:
        print(f"# agreement per call (PMPI_Allreduce of the drop-in, MPI_COMM_WORLD): "
              f"median {statistics.median(agreement_us):.2f} us over {len(agreement_us)} launches")

    plt = pyplot()
    if plt:
        fig, ax = plt.subplots(figsize=(7, 4))
        ax.semilogx(sizes, ratios, marker="o", base=2)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xlabel("bytes per peer")
        ax.set_ylabel("preloaded / plain MPI_Alltoallv")
        ax.set_title(f"Drop-in, {args.ranks} ranks, application loop, medians over {args.launches} launches")
        fig.tight_layout()
        fig.savefig(os.path.join(args.outdir, "dropin.png"), dpi=120)
        print(f"# wrote {os.path.join(args.outdir, 'dropin.png')}")


if __name__ == "__main__":
    main()
