#!/usr/bin/env python3
"""Benchmark 2 driver (paper §5.1): the SpMV halo exchange of SuiteSparse
matrices as a persistent Alltoallv, every algorithm and auto in the same
launch, and as a persistent neighbourhood Alltoallv on the halo's graph
(neighbor:native, MPI_Neighbor_alltoallv, and neighbor:auto by default);
several launches, medians across them. Each row's ratio is to its family's
native (MPI's own call). Writes a table, spmv_halo.csv, spmv_halo.png
(per-iteration time relative to native per matrix) and one send-count
heatmap per matrix (heatmap_<matrix>.png, like the paper's Fig. 4)."""
import argparse
import csv
import math
import os
import shlex
import statistics
import sys
from collections import defaultdict

from bench_report import auto_against_best, environment_header, in_family, pyplot, run_launch, write_csv

FAMILIES = {"": "MPI_Alltoallv", "neighbor:": "MPI_Neighbor_alltoallv"}


def family_of(algorithm):
    return "neighbor:" if in_family(algorithm, "neighbor:") else ""

# ../shared/matrices/MANIFEST.md, "Suggested sets".
SETS = {
    "tiny": ["bcsstk01", "west0132", "dwt_162", "karate", "SmaGri"],
    "medium": ["bcspwr10", "ca-GrQc", "hangGlider_2", "G51", "lp_woodw", "rajat01", "fe_4elt2", "bcsstk13"],
    "large": ["bcsstk33", "ca-AstroPh", "luxembourg_osm", "bayer10", "crack", "bibd_49_3", "ex6"],
}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--bench", required=True, help="path to bench_spmv_halo")
    p.add_argument("--mpiexec", default="mpiexec", help="the launcher, with its flags (one string)")
    p.add_argument("--ranks", type=int, default=2)
    p.add_argument("--launches", type=int, default=3)
    p.add_argument("--heatmap-ranks", type=int, default=8,
                   help="rank count of the send-count heatmaps (a counts-only launch; 0: the timed launches)")
    p.add_argument("--outdir", default="results/spmv_halo")
    p.add_argument("--matrix-dir", default="../shared/matrices", help="where --set finds its .mtx files")
    p.add_argument("--set", choices=sorted(SETS), help="a suggested set of ../shared/matrices")
    p.add_argument("--memory", choices=["heap", "mpix"], default="heap",
                   help="receive and send buffers: the heap (default) or MPIX_Alloc_mem")
    p.add_argument("--loop", choices=["application", "exchange"], default="application",
                   help="application: x entries written before Start, halo read after Wait (default); "
                        "exchange: Start + Wait alone")
    p.add_argument("matrices", nargs="*", help=".mtx files (in addition to --set)")
    args = p.parse_args()
    if args.set:
        args.matrices += [os.path.join(args.matrix_dir, f"{m}.mtx") for m in SETS[args.set]]
    if not args.matrices:
        p.error("give .mtx files or --set")
    return args


def summarize(rows):
    groups = defaultdict(list)
    for r in rows:
        groups[(r["matrix"], r["algorithm"])].append(r)
    summary = []
    for (matrix, algorithm), rs in groups.items():
        first = rs[0]
        summary.append({
            "matrix": matrix, "algorithm": algorithm, "ranks": int(first["ranks"]), "loop": first["loop"],
            "memory": first["memory"], "rows": int(first["rows"]),
            "cols": int(first["cols"]), "nonzeros": int(first["nonzeros"]), "bytes_max": int(first["bytes_max"]),
            "bytes_total": int(first["bytes_total"]), "targets_max": int(first["targets_max"]),
            "sources_max": int(first["sources_max"]), "launches": len(rs),
            "t_init_us": statistics.median(float(r["t_init_us"]) for r in rs),
            "t_init_first_us": statistics.median(float(r["t_init_first_us"]) for r in rs),
            "t_iter_us": statistics.median(float(r["t_iter_us"]) for r in rs),
            "valid": all(r["valid"] == "1" for r in rs),
            "ran": "|".join(sorted({x for r in rs for x in r["ran"].split("|") if x})),
        })
    native = {(s["matrix"], family_of(s["algorithm"])): s for s in summary
              if s["algorithm"] == family_of(s["algorithm"]) + "native"}
    for s in summary:
        base = native[(s["matrix"], family_of(s["algorithm"]))]
        s["ratio_to_native"] = s["t_iter_us"] / base["t_iter_us"]
        saving = base["t_iter_us"] - s["t_iter_us"]
        s["breakeven_n"] = "" if s is base else (
            max(1, math.ceil(s["t_init_us"] / saving)) if saving > 0 else "never")
    order = list(dict.fromkeys(r["matrix"] for r in rows))
    summary.sort(key=lambda s: (order.index(s["matrix"]), s["algorithm"] != "auto", s["algorithm"]))
    return summary


def print_table(summary):
    header = (f"{'matrix':<16} {'bytes max':>9} {'total':>9} {'tgt':>4} {'src':>4} {'algorithm':<18} "
              f"{'T_init[us]':>10} {'first':>8} {'T_iter[us]':>10} {'x native':>8} {'N':>6} valid")
    print(header)
    print("-" * len(header))
    for s in summary:
        ran = f" (ran {s['ran']})" if s["ran"] else ""
        print(f"{s['matrix']:<16} {s['bytes_max']:>9} {s['bytes_total']:>9} {s['targets_max']:>4} "
              f"{s['sources_max']:>4} {s['algorithm']:<18} {s['t_init_us']:>10.2f} {s['t_init_first_us']:>8.1f} "
              f"{s['t_iter_us']:>10.3f} {s['ratio_to_native']:>8.3f} {str(s['breakeven_n']):>6} "
              f"{'ok' if s['valid'] else 'WRONG DATA'}{ran}")


def print_criteria(summary, checks, family):
    print(f"\n# selector, {FAMILIES[family]} family: {family}auto against the best other {family}algorithm of the "
          f"same launches, and against {family}native ({FAMILIES[family]})")
    print(f"{'matrix':<16} {'best':<18} {'auto ran':<18} {'T_best':>9} {'T_auto':>9} {'auto/best':>9} "
          f"{'auto/native':>11}")
    for c in checks:
        print(f"{c['matrix']:<16} {c['best']:<18} {c['auto_ran']:<18} {c['t_best_us']:>9.3f} {c['t_auto_us']:>9.3f} "
              f"{c['auto_to_best']:>9.3f} {c['auto_to_native']:>11.3f}")
    within = sum(c["auto_to_best"] <= 1.05 for c in checks)
    slower = [c["matrix"] for c in checks if c["auto_to_native"] > 1.05]
    print(f"# {family}auto within 5% of the best on {within}/{len(checks)} matrices; worst auto/best "
          f"{max(c['auto_to_best'] for c in checks):.3f}; worst auto/native "
          f"{max(c['auto_to_native'] for c in checks):.3f}"
          + (f"; SLOWER than {FAMILIES[family]} (> 1.05) on: {', '.join(slower)}" if slower else ""))
    for algorithm in dict.fromkeys(s["algorithm"] for s in summary if family_of(s["algorithm"]) == family):
        ratios = [s["ratio_to_native"] for s in summary if s["algorithm"] == algorithm]
        print(f"# geometric mean over {len(ratios)} matrices, {algorithm} / {family}native: "
              f"{math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f} (max {max(ratios):.3f})")


def plots(summary, outdir, counts_dir, heatmap_ranks):
    plt = pyplot()
    if plt is None:
        return
    matrices = list(dict.fromkeys(s["matrix"] for s in summary))
    algorithms = list(dict.fromkeys(s["algorithm"] for s in summary))
    fig, ax = plt.subplots(figsize=(max(8, 1.4 * len(matrices)), 5))
    width = 0.8 / len(algorithms)
    for k, algorithm in enumerate(algorithms):
        ratio = {s["matrix"]: s["ratio_to_native"] for s in summary if s["algorithm"] == algorithm}
        ax.bar([i + k * width for i in range(len(matrices))], [ratio[m] for m in matrices], width, label=algorithm,
               edgecolor="black" if algorithm == "auto" else None)
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(matrices))], matrices, rotation=30, ha="right")
    ax.set(yscale="log", ylabel="T_iter / its family's native (median, lower is better)",
           title=f"Benchmark 2: SpMV halo Alltoallv, {summary[0]['ranks']} ranks, one node, "
                 f"{summary[0]['loop']} loop, {summary[0]['memory']} memory")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(os.path.join(outdir, "spmv_halo.png"), dpi=110)
    plt.close(fig)
    for m in matrices:
        path = os.path.join(counts_dir, f"counts_{m}.csv")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            counts = [[int(v) for v in row] for row in csv.reader(f)]
        fig, ax = plt.subplots(figsize=(4.5, 3.8))
        image = ax.imshow(counts, cmap="viridis")
        fig.colorbar(image, ax=ax, label="bytes per iteration")
        ax.set(xlabel="receiving rank", ylabel="sending rank",
               title=f"{m}: halo bytes sent, {heatmap_ranks} ranks")
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, f"heatmap_{m}.png"), dpi=110)
        plt.close(fig)


def main():
    args = parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    print(f"# Benchmark 2: SpMV halo Alltoallv, {args.ranks} ranks, {args.launches} launches, medians across them; "
          f"{args.loop} loop, {'heap' if args.memory == 'heap' else 'MPIX_Alloc_mem'} buffers")
    print(environment_header())
    rows = []
    for launch in range(args.launches):
        path = os.path.join(args.outdir, f"launch_{launch}.csv")
        cmd = shlex.split(args.mpiexec) + ["-n", str(args.ranks), args.bench, "--csv", path,
                                           "--counts-dir", args.outdir, "--memory", args.memory, "--loop", args.loop]
        for row in run_launch(cmd + args.matrices, {}, path, f"launch {launch + 1}/{args.launches}"):
            row["launch"] = launch
            rows.append(row)
    counts_dir, heatmap_ranks = args.outdir, args.ranks
    if args.heatmap_ranks:
        # Who sends how much to whom at a rank count where the pattern shows;
        # one untimed-quality launch (1 iteration, native only), counts only.
        counts_dir, heatmap_ranks = os.path.join(args.outdir, f"counts_{args.heatmap_ranks}ranks"), args.heatmap_ranks
        os.makedirs(counts_dir, exist_ok=True)
        path = os.path.join(counts_dir, "launch.csv")
        cmd = shlex.split(args.mpiexec) + ["-n", str(heatmap_ranks), args.bench, "--csv", path,
                                           "--counts-dir", counts_dir, "--algorithms", "native", "--iterations", "1",
                                           "--repeats", "1"]
        run_launch(cmd + args.matrices, {}, path, f"send counts at {heatmap_ranks} ranks")
    summary = summarize(rows)
    print_table(summary)
    checks = []
    for family in FAMILIES:
        family_checks = auto_against_best(rows, ("matrix",), family)
        if family_checks:
            print_criteria(summary, family_checks, family)
            checks += [dict(c, family=FAMILIES[family]) for c in family_checks]
    write_csv(summary, os.path.join(args.outdir, "spmv_halo.csv"))
    write_csv(checks, os.path.join(args.outdir, "selector_check.csv"))
    plots(summary, args.outdir, counts_dir, heatmap_ranks)
    print(f"# wrote {args.outdir}/spmv_halo.csv, spmv_halo.png, heatmap_*.png")
    if not all(s["valid"] for s in summary):
        sys.exit("spmv_halo: some competitor delivered wrong data")


if __name__ == "__main__":
    main()
