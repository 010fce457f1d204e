#!/usr/bin/env python3
"""The applications on 2 ranks, MPI_Alltoallv against mpix-rma (auto): the
3D FFT at two sizes and CG on bcsstk13, bcsstk33 (Laplacian + I) and a
generated 3D Laplacian. Each launch runs both variants in interleaved
rounds (the order alternates between launches); the table gives medians over
launches of the time per iteration (forward+backward pair, CG iteration) and
of the exchange's part, with ratios to MPI_Alltoallv. Writes examples.csv
(every launch) and examples.png into --outdir."""
import argparse
import os
import shlex
import statistics
import sys
import tempfile
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "benchmarks"))
from bench_report import environment_header, pyplot, run_launch, write_csv  # noqa: E402


def parse_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--build", required=True, help="the build tree (examples/fft3d, examples/cg)")
    p.add_argument("--mpiexec", default="mpiexec", help="the launcher, with its flags (one string)")
    p.add_argument("--ranks", type=int, default=2)
    p.add_argument("--launches", type=int, default=3)
    p.add_argument("--matrix-dir", required=True, help="where bcsstk13.mtx and bcsstk33.mtx are")
    p.add_argument("--outdir", required=True)
    return p.parse_args()


def cases(args):
    fft = os.path.join(args.build, "examples", "fft3d")
    cg = os.path.join(args.build, "examples", "cg")
    yield [fft, "--n", "64", "--iterations", "10", "--rounds", "5"]
    yield [fft, "--n", "128", "--iterations", "3", "--rounds", "5"]
    for name in ("bcsstk13", "bcsstk33"):
        path = os.path.join(args.matrix_dir, name + ".mtx")
        if os.path.exists(path):
            yield [cg, "--matrix", path, "--rounds", "5"]
        else:
            print(f"# {path} is missing: cg skips {name}")
    yield [cg, "--laplace3d", "40", "--rounds", "5"]


def main():
    args = parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    print(environment_header())
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for launch in range(args.launches):
            order = "mpi,auto" if launch % 2 == 0 else "auto,mpi"
            for i, case in enumerate(cases(args)):
                csv_path = os.path.join(tmp, f"launch{launch}_case{i}.csv")
                cmd = (shlex.split(args.mpiexec) + ["-n", str(args.ranks)] + case
                       + ["--exchange", order, "--csv", csv_path])
                for row in run_launch(cmd, {}, csv_path, f"launch {launch + 1}/{args.launches}"):
                    rows.append({**row, "launch": launch})
    write_csv(rows, os.path.join(args.outdir, "examples.csv"))

    # Medians over launches, per (example, setting, exchange).
    series = defaultdict(lambda: {"total": [], "exchange": [], "algorithm": set()})
    for r in rows:
        s = series[(r["example"], r["setting"], r["exchange"])]
        s["total"].append(float(r["total_s"]))
        s["exchange"].append(float(r["exchange_s"]))
        s["algorithm"].add(r["algorithm"])
    print(f"\n# {args.ranks} ranks, medians over {args.launches} launches; ratios: mpix-rma auto / MPI_Alltoallv")
    print(f"{'example':8} {'setting':16} {'exchange':9} {'algorithm':16} {'iteration us':>13} {'exchange us':>12} "
          f"{'share':>6} {'total':>7} {'exch':>7}")
    points = []
    for (example, setting, exchange), s in sorted(series.items()):
        total, exch = statistics.median(s["total"]), statistics.median(s["exchange"])
        base = series[(example, setting, "mpi")]
        total0, exch0 = statistics.median(base["total"]), statistics.median(base["exchange"])
        print(f"{example:8} {setting:16} {exchange:9} {'/'.join(sorted(s['algorithm'])):16} {total * 1e6:13.1f} "
              f"{exch * 1e6:12.1f} {100 * exch / total:5.1f}% {total / total0:7.3f} {exch / exch0:7.3f}")
        if exchange != "mpi":
            points.append((f"{example}\n{setting}", total / total0, exch / exch0))

    plt = pyplot()
    if plt and points:
        fig, ax = plt.subplots(figsize=(1.6 * len(points) + 2, 4))
        xs = range(len(points))
        ax.bar([x - 0.2 for x in xs], [p[1] for p in points], 0.4, label="time per iteration")
        ax.bar([x + 0.2 for x in xs], [p[2] for p in points], 0.4, label="exchange alone")
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks(list(xs))
        ax.set_xticklabels([p[0] for p in points], fontsize=8)
        ax.set_ylabel("mpix-rma auto / MPI_Alltoallv")
        ax.set_title(f"Applications, {args.ranks} ranks, medians over {args.launches} launches")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(args.outdir, "examples.png"), dpi=120)
        print(f"# wrote {os.path.join(args.outdir, 'examples.png')}")


if __name__ == "__main__":
    main()
