#!/usr/bin/env python3
"""Benchmark 1 driver: runs bench_alltoallv in several launches, because
MPICH's UCX transport can pick a different mode per launch (RMA and large
copies are bimodal per process), and reports the median across launches:
a table, a CSV and a PNG plot, with the MPI/UCX environment in the header.
Each launch times three loops over heap and MPIX_Alloc_mem buffers by
default: the application loop (send blocks written before Start, received
blocks read after Wait), Start + Wait alone, and Start + Wait with a barrier
between calls (OSU style); `-- --loop application` keeps one."""
import argparse
import math
import os
import shlex
import statistics
import sys
from collections import defaultdict

from bench_report import auto_against_best, environment_header, pyplot, run_launch, write_csv


def parse_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--bench", required=True, help="path to bench_alltoallv")
    p.add_argument("--mpiexec", default="mpiexec", help="the launcher, with its flags (one string)")
    p.add_argument("--ranks", default="2", help="comma-separated rank counts (time with 2)")
    p.add_argument("--launches", type=int, default=3)
    p.add_argument("--outdir", default="results/alltoallv")
    p.add_argument("--title", help="the tables' title (default: Benchmark 1 of the family timed)")
    p.add_argument("--offnode", action="store_true",
                   help="also run the emulated off-node setting: every rank its own node "
                        "(MPIX_NODE_SIZE=1) and MPI traffic over TCP (UCX_TLS=tcp,self)")
    p.add_argument("bench_args", nargs=argparse.REMAINDER,
                   help="passed to bench_alltoallv after --, e.g. -- --sizes 8,4096 --scaling strong")
    args = p.parse_args()
    if args.title is None:
        alltoall = "--family alltoall" in " ".join(args.bench_args)
        args.title = "Benchmark 1: uniform " + ("Alltoall" if alltoall else "Alltoallv")
    return args


SETTINGS = {
    "one_node": {},
    # MPI traffic over TCP: MPICH's through UCX, Open MPI's through its TCP
    # transport with RMA over point-to-point (no window without RDMA else).
    "offnode_emulated": {"MPIX_NODE_SIZE": "1", "UCX_TLS": "tcp,self", "OMPI_MCA_btl": "self,tcp",
                         "OMPI_MCA_osc": "pt2pt"},
}


def run_launches(args, ranks, outdir, setting):
    rows = []
    extra = [a for a in args.bench_args if a != "--"]
    env = SETTINGS[setting]
    for launch in range(args.launches):
        path = os.path.join(outdir, f"launch_{setting}_{ranks}ranks_{launch}.csv")
        cmd = shlex.split(args.mpiexec) + ["-n", str(ranks), args.bench, "--csv", path] + extra
        for row in run_launch(cmd, env, path, f"{setting} launch {launch + 1}/{args.launches}"):
            row.update(launch=launch, setting=setting, ranks=int(row["ranks"]),
                       bytes_per_peer=int(row["bytes_per_peer"]))
            rows.append(row)
    return rows


def summarize(rows):
    groups = defaultdict(list)
    for r in rows:
        groups[(r["setting"], int(r["ranks"]), r["scaling"], r["loop"], r["memory"], int(r["bytes_per_peer"]),
                r["algorithm"])].append(r)
    summary = []
    for (setting, ranks, scaling, loop, memory, size, algorithm), rs in sorted(groups.items()):
        summary.append({
            "setting": setting, "ranks": ranks, "scaling": scaling, "loop": loop, "memory": memory,
            "bytes_per_peer": size, "algorithm": algorithm,
            "launches": len(rs),
            "t_init_us": statistics.median(float(r["t_init_us"]) for r in rs),
            "t_init_first_us": statistics.median(float(r["t_init_first_us"]) for r in rs),
            "t_iter_us": statistics.median(float(r["t_iter_us"]) for r in rs),
            "t_iter_min_us": min(float(r["t_iter_us"]) for r in rs),
            "t_iter_max_us": max(float(r["t_iter_us"]) for r in rs),
            "valid": all(r["valid"] == "1" for r in rs),
            "ran": "|".join(sorted({x for r in rs for x in r.get("ran", "").split("|") if x})),
        })
    def point(s):
        return s["setting"], s["ranks"], s["loop"], s["memory"], s["bytes_per_peer"]
    native = {point(s): s for s in summary if s["algorithm"] == "native"}
    for s in summary:
        base = native.get(point(s))
        s["ratio_to_native"] = s["t_iter_us"] / base["t_iter_us"] if base else float("nan")
        s["breakeven_n"] = s["breakeven_n_first"] = ""
        if base and s["algorithm"] not in ("native", "memcpy"):
            saving = base["t_iter_us"] - s["t_iter_us"]
            for key, init in (("breakeven_n", "t_init_us"), ("breakeven_n_first", "t_init_first_us")):
                s[key] = max(1, math.ceil(s[init] / saving)) if saving > 0 else "never"
    return summary


def print_selector_check(checks):
    if not checks:
        return
    print(f"\n# selector: auto against the best other algorithm of the same launch, and against native; "
          f"ratios: median over launches (min..max); SLOWER: auto more than 5% slower than native, "
          f"off-best: more than 5% slower than the best")
    print(f"{'setting':<17} {'ranks':>5} {'loop':<11} {'memory':<6} {'bytes/peer':>10} {'best':<18} {'auto ran':<28} "
          f"{'T_best':>9} {'T_auto':>9} {'auto/best':>19} {'auto/native':>19}")
    for c in checks:
        marks = ("  SLOWER" if c["auto_to_native"] > 1.05 else "") + ("  off-best" if c["auto_to_best"] > 1.05 else "")
        print(f"{c['setting']:<17} {c['ranks']:>5} {c['loop']:<11} {c['memory']:<6} {human(c['bytes_per_peer']):>10} "
              f"{c['best']:<18} {c['auto_ran']:<28} {c['t_best_us']:>9.3f} {c['t_auto_us']:>9.3f} "
              f"{c['auto_to_best']:>6.3f} ({c['auto_to_best_min']:.2f}..{c['auto_to_best_max']:.2f}) "
              f"{c['auto_to_native']:>6.3f} ({c['auto_to_native_min']:.2f}..{c['auto_to_native_max']:.2f}){marks}")
    within = sum(c["auto_to_best"] <= 1.05 for c in checks)
    not_slower = sum(c["auto_to_native"] <= 1.05 for c in checks)
    print(f"# auto within 5% of the best at {within}/{len(checks)} points; "
          f"at most 5% slower than native at {not_slower}/{len(checks)}; "
          f"worst auto/best {max(c['auto_to_best'] for c in checks):.3f}, "
          f"worst auto/native {max(c['auto_to_native'] for c in checks):.3f}")


def human(size):
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale} {unit}"
    return f"{size} B"


def print_table(summary):
    # T_init: re-init over the same buffers (pooled windows); first: the
    # first init of the launch, which creates them. N for each.
    header = (f"{'setting':<17} {'ranks':>5} {'loop':<11} {'memory':<6} {'bytes/peer':>10} {'algorithm':<18} "
              f"{'T_init[us]':>10} {'first':>9} {'T_iter[us]':>11} {'(min..max)':>21} {'x native':>9} {'N':>5} "
              f"{'N_first':>7} valid")
    previous = None
    for s in summary:
        section = (s["setting"], s["loop"], s["memory"])
        if section != previous:
            print(f"\n# {s['setting'].replace('_', ' ')}, {s['loop']} loop, "
                  f"{'heap' if s['memory'] == 'heap' else 'MPIX_Alloc_mem'} buffers")
            print(header)
            print("-" * len(header))
            previous = section
        spread = f"{s['t_iter_min_us']:.2f}..{s['t_iter_max_us']:.2f}"
        print(f"{s['setting']:<17} {s['ranks']:>5} {s['loop']:<11} {s['memory']:<6} {human(s['bytes_per_peer']):>10} "
              f"{s['algorithm']:<18} "
              f"{s['t_init_us']:>10.2f} {s['t_init_first_us']:>9.1f} {s['t_iter_us']:>11.3f} {spread:>21} "
              f"{s['ratio_to_native']:>9.3f} {str(s['breakeven_n']):>5} {str(s['breakeven_n_first']):>7} "
              f"{'ok' if s['valid'] else 'WRONG DATA'}")


def write_summary_csv(summary, path):
    fields = ["setting", "ranks", "scaling", "loop", "memory", "bytes_per_peer", "algorithm", "launches", "t_init_us",
              "t_init_first_us", "t_iter_us", "t_iter_min_us", "t_iter_max_us", "ratio_to_native", "breakeven_n",
              "breakeven_n_first", "valid", "ran"]
    write_csv(summary, path, fields)


def plot(summary, path, title):
    plt = pyplot()
    if plt is None:
        return
    panels = list(dict.fromkeys((s["setting"], s["loop"], s["memory"]) for s in summary))
    fig, axes = plt.subplots(2, len(panels), figsize=(7 * len(panels), 9), sharex=True, squeeze=False)
    for column, panel in enumerate(panels):
        top, bottom = axes[0][column], axes[1][column]
        setting, loop, memory = panel
        rows = [s for s in summary if (s["setting"], s["loop"], s["memory"]) == panel]
        for ranks in sorted({s["ranks"] for s in rows}):
            for algorithm in dict.fromkeys(s["algorithm"] for s in rows):
                pts = [s for s in rows if s["algorithm"] == algorithm and s["ranks"] == ranks]
                label = f"{algorithm} ({ranks} ranks)"
                xs = [s["bytes_per_peer"] for s in pts]
                style = "--" if algorithm == "memcpy" else "-"
                width = 3 if algorithm == "auto" else 1.2
                top.plot(xs, [s["t_iter_us"] for s in pts], style, marker="o", label=label, linewidth=width)
                bottom.plot(xs, [s["ratio_to_native"] for s in pts], style, marker="o", label=label, linewidth=width)
        top.set(xscale="log", yscale="log", ylabel="time per iteration [us] (median)",
                title=f"{title}\n{setting.replace('_', ' ')}, {loop} loop, {memory} memory")
        bottom.set(xscale="log", yscale="log", ylabel="ratio to native (lower is better)", xlabel="bytes per peer")
        bottom.axhline(1.0, color="grey", linewidth=0.8)
        top.legend(fontsize=7)
        top.grid(True, which="both", alpha=0.3)
        bottom.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    args = parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    print(f"# {args.title}: {args.launches} launches per rank count, medians across launches")
    print(environment_header())
    rows = []
    for setting in ["one_node"] + (["offnode_emulated"] if args.offnode else []):
        for ranks in (int(r) for r in args.ranks.split(",")):
            rows += run_launches(args, ranks, args.outdir, setting)
    summary = summarize(rows)
    print_table(summary)
    checks = auto_against_best(rows, ("setting", "ranks", "loop", "memory", "bytes_per_peer"))
    print_selector_check(checks)
    write_summary_csv(summary, os.path.join(args.outdir, "alltoallv.csv"))
    if checks:
        write_csv(checks, os.path.join(args.outdir, "selector_check.csv"))
    plot(summary, os.path.join(args.outdir, "alltoallv.png"), args.title)
    print(f"# wrote {args.outdir}/alltoallv.csv and {args.outdir}/alltoallv.png")
    if not all(s["valid"] for s in summary):
        sys.exit("alltoallv: some competitor delivered wrong data")


if __name__ == "__main__":
    main()
