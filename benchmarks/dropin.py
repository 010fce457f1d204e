#!/usr/bin/env python3
"""The drop-in benchmark: an unmodified MPI program launched alternately
without and with LD_PRELOAD=libmpixrma_intercept.so. --bench is either
bench_dropin (a loop of MPI_Alltoallv, MPI_Alltoall or
MPI_Neighbor_alltoallv on a ring, --collective, in four loops:
application, data written before and read after every call; exchange,
calls alone; barrier, calls with an MPI_Barrier between them, OSU style;
sweep, OSU's default run, every size in one launch, 50 untimed and 200
timed calls each, 20 and 100 from 1 MiB, a barrier between calls; prefix,
the sweep up to --prefix-sizes' last size, whose first 50, 100, 250 and
1000 calls are timed from its first: what admitting it must repay) or
bench_fftw_dropin
(FFTW's own distributed 2D transform, whose --loop names FFTW's planner:
estimate or measure). Per loop and size: the medians over launches with
their min..max, the ratio preloaded / plain (median of the launches'
ratios, min..max), a mark where the drop-in is slower than plain MPI by
more than --tolerance, and the drop-in's agreement cost per call
(MPIX_VERBOSE=1 of one more preloaded launch per loop, untimed: what it
prints inside calls, a tournament's lines, would be timed). Writes
dropin.csv and dropin.png into --outdir."""
import argparse
import os
import shlex
import re
import statistics
import tempfile
from collections import defaultdict

from bench_report import environment_header, pyplot, run_launch, write_csv


def parse_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--bench", required=True, help="path to bench_dropin or bench_fftw_dropin")
    p.add_argument("--intercept", required=True, help="path to libmpixrma_intercept.so")
    p.add_argument("--mpiexec", default="mpiexec", help="the launcher, with its flags (one string)")
    p.add_argument("--ranks", type=int, default=2)
    p.add_argument("--launches", type=int, default=3, help="launches of each variant")
    p.add_argument("--sizes", default=",".join(str(8 << i) for i in range(20)),
                   help="bytes per peer (default: every power of two from 8 B to 4 MiB, as OSU's sweep)")
    p.add_argument("--loops", default="application,exchange,barrier,sweep,prefix",
                   help="bench_dropin: application,exchange,barrier,sweep,prefix; bench_fftw_dropin: estimate,measure")
    p.add_argument("--prefix-sizes", default="8,64,512,4096,8192,16384,32768",
                   help="the prefix loop's sizes: the last one is timed from its first call")
    p.add_argument("--size-per-launch", action="store_true",
                   help="launch each size on its own, the two variants back to back: pairs seconds apart, not a "
                        "whole sweep apart (for long programs on a machine whose speed drifts)")
    p.add_argument("--collective", default="alltoallv", choices=["alltoallv", "alltoall", "neighbor"],
                   help="bench_dropin: which call the program loops")
    p.add_argument("--form", default="blocking", choices=["blocking", "persistent", "nonblocking"],
                   help="bench_dropin: the call itself, MPI-4's persistent form (MPICH) started and waited on "
                        "(served as MPIX_INTERCEPT_PERSISTENT says), or the nonblocking form waited on")
    p.add_argument("--memory", default="heap", choices=["heap", "mpi"],
                   help="bench_dropin: buffers from the heap, or from MPI_Alloc_mem")
    p.add_argument("--tolerance", type=float, default=1.03, help="preloaded / plain above this is marked SLOWER")
    p.add_argument("--pass-through", action="store_true",
                   help="a third variant, preloaded with MPIX_INTERCEPT=off (every call straight to PMPI_), "
                        "interleaved with the other two: what the drop-in costs where it serves nothing")
    p.add_argument("--outdir", required=True)
    return p.parse_args()


def main():
    args = parse_args()
    # The dynamic loader only warns about a library it cannot preload, and
    # the program then runs plain: a wrong path would compare MPI with itself.
    args.intercept = os.path.abspath(args.intercept)
    if not os.path.isfile(args.intercept):
        raise SystemExit(f"--intercept: no such file: {args.intercept}")
    os.makedirs(args.outdir, exist_ok=True)
    print(environment_header())
    variants = {"plain": {}, "preloaded": {"LD_PRELOAD": args.intercept}}
    if args.pass_through:
        variants["off"] = {"LD_PRELOAD": args.intercept, "MPIX_INTERCEPT": "off"}
    rows, agreement_us = [], []
    loops = args.loops.split(",")

    def command(loop, sizes, csv_path):
        cmd = shlex.split(args.mpiexec) + ["-n", str(args.ranks), args.bench, "--sizes", sizes, "--loop", loop,
                                           "--csv", csv_path]
        cmd += ["--collective", args.collective] if args.collective != "alltoallv" else []
        cmd += ["--form", args.form] if args.form != "blocking" else []
        return cmd + (["--memory", args.memory] if args.memory != "heap" else [])

    with tempfile.TemporaryDirectory() as tmp:
        sweeps = args.sizes.split(",") if args.size_per_launch else [args.sizes]
        for launch in range(args.launches):
            for loop, sizes in ((loop, sizes) for loop in loops
                                for sizes in ([args.prefix_sizes] if loop == "prefix" else sweeps)):
                # Each variant goes first, middle and last equally often.
                names = list(variants)
                order = names[launch % len(names):] + names[:launch % len(names)]
                if launch % 2:
                    order.reverse()
                for variant in order:
                    csv_path = os.path.join(tmp, f"{variant}{loop}{launch}.csv")
                    output = []
                    for row in run_launch(command(loop, sizes, csv_path), variants[variant], csv_path,
                                          f"launch {launch + 1}/{args.launches}, {loop} loop", output):
                        rows.append({**row, "variant": variant, "launch": launch, "loop": loop})
                    if "WRONG" in output[0]:
                        raise SystemExit(f"{variant} launch delivered wrong data:\n{output[0]}")
        # The drop-in's own report, from one more launch per loop: proof that
        # it was there, and the agreements' cost.
        for loop in loops:
            csv_path = os.path.join(tmp, f"report{loop}.csv")
            output = []
            run_launch(command(loop, args.prefix_sizes if loop == "prefix" else args.sizes, csv_path),
                       {**variants["preloaded"], "MPIX_VERBOSE": "1"}, csv_path,
                       f"{loop} loop, the drop-in's report (untimed)", output)
            if "mpix-rma intercept: communicator" not in output[0]:
                raise SystemExit(f"the preloaded launch ran without the drop-in:\n{output[0]}")
            agreement_us += [float(m) for m in re.findall(r"agreements \(([0-9.]+) us each", output[0])]
    write_csv(rows, os.path.join(args.outdir, "dropin.csv"))

    times = defaultdict(dict)  # (loop, size, variant) -> {launch: seconds}
    for r in rows:
        times[(r["loop"], int(r["bytes_per_peer"]), r["variant"])][r["launch"]] = float(r["seconds"])
    curves, marked = {}, 0
    for loop in loops:
        # The prefix loop's rows are call counts of its last size.
        sizes = sorted({size for row_loop, size, _ in times if row_loop == loop})
        buffers = "MPI_Alloc_mem buffers" if args.memory == "mpi" else "heap buffers"
        form = {"persistent": ", MPI-4 persistent form", "nonblocking": ", nonblocking form"}.get(args.form, "")
        print(f"\n# {args.ranks} ranks, {os.path.basename(args.bench)} --loop {loop}, {buffers}{form}; medians over "
              f"{args.launches} launches (min..max); ratio: median of the launches' preloaded / plain (min..max)")
        off_header = f" {'off us':>26} {'off / plain':>22}" if args.pass_through else ""
        first = f"first {args.prefix_sizes.split(',')[-1]} B" if loop == "prefix" else "bytes/peer"
        print(f"{first:>10} {'plain us':>26} {'preloaded us':>26} {'ratio':>22}{off_header}")
        curves[loop] = (sizes, [])
        for size in sizes:
            plain, preloaded = times[(loop, size, "plain")], times[(loop, size, "preloaded")]
            per_launch = [preloaded[k] / plain[k] for k in plain if k in preloaded]
            ratio = statistics.median(per_launch)
            curves[loop][1].append(ratio)
            mark = ""
            if ratio > args.tolerance:
                mark, marked = f"  SLOWER than MPI by more than {args.tolerance:.2f}x", marked + 1

            def spread(v):
                v = list(v.values())
                return f"{statistics.median(v) * 1e6:9.2f} ({min(v) * 1e6:.1f}..{max(v) * 1e6:.1f})"
            off_columns = ""
            if args.pass_through:
                off = times[(loop, size, "off")]
                off_ratios = [off[k] / plain[k] for k in plain if k in off]
                off_columns = (f" {spread(off):>26} {statistics.median(off_ratios):7.3f} "
                               f"({min(off_ratios):.2f}..{max(off_ratios):.2f})")
            print(f"{size:>10} {spread(plain):>26} {spread(preloaded):>26} "
                  f"{ratio:7.3f} ({min(per_launch):.2f}..{max(per_launch):.2f}){off_columns}{mark}")
    print(f"# {marked} point(s) where the drop-in is more than {args.tolerance:.2f}x plain MPI")
    if agreement_us:
        print(f"# agreement per check (describing the call, voting, agreeing), from this rank's arrival "
              f"(waiting for the last rank included): "
              f"median {statistics.median(agreement_us):.2f} us over {len(agreement_us)} communicator reports")

    plt = pyplot()
    if plt:
        fig, ax = plt.subplots(figsize=(7, 4))
        for loop in (loop for loop in loops if loop != "prefix"):  # its rows are call counts
            ax.semilogx(*curves[loop], marker="o", base=2, label=f"{loop} loop")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xlabel("bytes per peer")
        mpi_call = {"alltoallv": "MPI_Alltoallv", "alltoall": "MPI_Alltoall", "neighbor": "MPI_Neighbor_alltoallv"}
        ax.set_ylabel(f"preloaded / plain {mpi_call[args.collective]}")
        ax.set_title(f"Drop-in, {args.ranks} ranks, medians over {args.launches} launches")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(args.outdir, "dropin.png"), dpi=120)
        print(f"# wrote {os.path.join(args.outdir, 'dropin.png')}")


if __name__ == "__main__":
    main()
