#!/usr/bin/env python3
"""Benchmark 3, scale (scripts/benchmark.sh scale): the library on simulated
clusters (SimGrid SMPI, docs/simulation.md) from 16 to 1024 ranks.

For each platform of the sweep (machine x nodes, platforms/), each
collective (Alltoall; Alltoallv with uniform blocks; the Alltoallv of an FFT
pencil transpose on row and column sub-communicators) and each of SMPI's
collective selectors (mpich, ompi: MPI's own call as those MPIs run it),
bench_scale measures MPI's own call and every algorithm asked for, block
sizes 8 B and up. Every smpirun has a real-time limit (--limit): a launch
that does not finish is reported as such, with the limit, and the sweep
goes on. Writes points.jsonl, report.md and plots into --outdir."""
import argparse
import datetime
import json
import math
import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# What an MPI_Test costs in simulated time. SMPI's default (100 us) makes a
# loop that polls, as the library's exchanges do, look 100 times slower than
# on an MPI where a poll costs a fraction of a microsecond; at 0 a polling
# rank never lets simulated time pass. 100 ns is the order of a poll on the
# development machine's MPICH.
TEST_POLL_S = 1e-7

# What every simulated figure leaves out (docs/simulation.md says more).
MODEL_LEAVES_OUT = (
    "contention inside a node (on-node messages do not share the node's memory bandwidth), caches, "
    "page faults and NUMA, OS noise, the MPI's eager/rendezvous protocols and per-call software costs "
    "beyond SMPI's latency model, and all computation between MPI calls (smpi/simulate-computation:no: "
    "the library's own work, its packing and copies included, costs nothing here; timed on the "
    "simulating machine it would vary with that machine's load, and the figures would not be exact); "
    "an MPI_Test costs %g s (SMPI's smpi/test)" % TEST_POLL_S)


def platform_files(machine, nodes, ranks_per_node, outdir):
    out = subprocess.run([sys.executable, os.path.join(ROOT, "platforms", "make_platform.py"), machine, str(nodes),
                          os.path.join(outdir, "platforms"), "--ranks-per-node", str(ranks_per_node)],
                         capture_output=True, text=True, check=True).stdout.split()
    return out[0], out[1]


# SMPI's mpich-selector MPI_Bcast and MPI_Allreduce set a communicator up
# for their node-aware algorithms the first time a rank needs them, with
# collectives of their own on that communicator (docs/simulation.md).
# MPI_Bcast's: where ranks reach it at different calls (MPI_Comm_dup inside
# the library, 28 ranks a node) their messages cross and a receive fails
# with MPI_ERR_TRUNCATE. MPI_Allreduce's: a new communicator's first call
# costs 33 times the next at 256 ranks, 8.6 ms at 1024, where MPICH sets a
# communicator up as it creates it. A binomial tree and recursive doubling
# (MPICH's algorithms without node awareness) need no set-up.
MPICH_NO_LAZY_SETUP = ["--cfg=smpi/bcast:binomial_tree", "--cfg=smpi/allreduce:rdb"]


def selector_options(selector):
    """smpirun's options for a selector: SMPI's selector of that name
    (mpich, ompi), or COLLECTIVE:ALGORITHM, one of SMPI's own algorithms for
    that collective (alltoall:bruck), the mpich selector choosing the rest."""
    if ":" in selector:
        return ["--cfg=smpi/coll-selector:mpich"] + MPICH_NO_LAZY_SETUP + ["--cfg=smpi/" + selector]
    return ["--cfg=smpi/coll-selector:" + selector] + (MPICH_NO_LAZY_SETUP if selector == "mpich" else [])


def selector_serves(selector, collective):
    """Whether a selector belongs in a collective's launches: a named
    algorithm only in those of its own collective (the pencil transpose is
    an Alltoallv)."""
    if ":" not in selector:
        return True
    return selector.split(":")[0] == ("alltoallv" if collective == "pencil" else collective)


def auto_exclusions(args):
    """The environment that keeps --auto-exclude's algorithms out of every
    family's auto (MPIX_<FAMILY>_EXCLUDE): those the simulator cannot run
    at a scale in reasonable time, say."""
    if not args.auto_exclude:
        return {}
    return {"MPIX_ALLTOALL_EXCLUDE": args.auto_exclude, "MPIX_ALLTOALLV_EXCLUDE": args.auto_exclude}


def run_point(args, machine, nodes, per_node, collective, selector, sizes, algorithms, iterations, clock_cost):
    """One smpirun, with a clock read costing clock_cost simulated seconds
    (None: SMPI's default); returns (points, status)."""
    xml, hosts = platform_files(machine, nodes, per_node, args.outdir)
    command = ["smpirun", "-platform", xml, "-hostfile", hosts, "--cfg=smpi/host-speed:1Gf",
               "--cfg=smpi/simulate-computation:no", "--cfg=smpi/test:%g" % TEST_POLL_S,
               ] + ([] if clock_cost is None else ["--cfg=smpi/wtime:%g" % clock_cost]) + selector_options(selector) + [
               "--log=root.thr:critical",
               args.bench, "--collective", collective, "--bytes", ",".join(str(s) for s in sizes),
               "--algorithms", ",".join(algorithms), "--iterations", str(iterations),
               "--settle-limit", str(args.settle_limit)]
    began = time.time()
    # smpirun starts the simulation as a child of its own: at the limit the
    # whole session goes.
    # In outdir: smpirun leaves its unrolled hostfile where it runs when the
    # simulation fails or is ended.
    job = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                           env=dict(os.environ, MPIX_FALLBACK="error", **auto_exclusions(args)), start_new_session=True, cwd=args.outdir)
    try:
        output, _ = job.communicate(timeout=args.limit)
        status = "ok" if job.returncode == 0 else "exit %d" % job.returncode
    except subprocess.TimeoutExpired:
        os.killpg(job.pid, signal.SIGKILL)
        output, _ = job.communicate()
        status = "did not finish in %d s of real time" % args.limit
    points = []
    for line in output.splitlines():
        if line.startswith("{"):
            point = json.loads(line)
            point.update(machine=machine, selector=selector, real_s=round(time.time() - began, 1),
                         clock_cost=clock_cost)
            points.append(point)
    return points, status, " ".join(command)


def clock_costs(args):
    """The clock costs to launch each point with (--clock-costs), None for
    SMPI's default."""
    if not args.clock_costs:
        return [None]
    return [float(c) for c in args.clock_costs.split(",")]


def human_bytes(n):
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return "%d %s" % (n // size, unit)
    return "%d B" % n


def sweep_command(args):
    """The command of the sweep: this one, or for --report-only the one
    that measured the points (command.txt in the outdir)."""
    path = os.path.join(args.outdir, "command.txt")
    if args.report_only and os.path.exists(path):
        with open(path) as f:
            return f.read().strip()
    return this_command()


def this_command():
    """This command line, after the MPIX_* variables it was run with: they
    reach every launch."""
    settings = ["%s=%s" % (name, value) for name, value in sorted(os.environ.items()) if name.startswith("MPIX_")]
    return " ".join(settings + sys.argv)


def over_clock_costs(points):
    """The points of each (point, selector, algorithm) as one: the mean of
    their times over the launches' clock costs (--clock-costs), and what
    auto ran in each. One clock cost: the points as they are."""
    groups = {}
    for p in points:
        if "refused" in p or p.get("wrong", 0) != 0 or not p.get("agreed", True):
            continue
        key = (p["collective"], p["part"], p["ranks"], p["node_size"], p["block_bytes"], p["selector"],
               p["algorithm"])
        groups.setdefault(key, []).append(p)
    merged = []
    for ps in groups.values():
        p = dict(ps[0])
        for field in ("iteration_s", "settle_s", "init_s", "settle_iterations"):
            p[field] = sum(q[field] for q in ps) / len(ps)
        p["ran"] = "/".join(sorted({q["ran"] for q in ps}))
        p["launches"] = len(ps)
        merged.append(p)
    return merged


def write_report(args, points, launches):
    by_key = {}
    merged = over_clock_costs(points)
    for p in merged:  # over_clock_costs left out refused, wrong and unagreed points
        key = (p["collective"], p["part"], p["ranks"], p["node_size"], p["block_bytes"])
        by_key.setdefault(key, []).append(p)
    lines = ["# Benchmark 3: scale, on simulated clusters", "",
             "Written by `benchmarks/scale.py` on %s (git %s)." % (
                 datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M UTC"), git_revision()),
             "", "Command: `%s`" % sweep_command(args), ""] + ([
             "Every point is the mean over launches whose clock reads cost %s s of simulated time each "
             "(smpi/wtime; --clock-costs): on one node the window algorithms run in periods of a few lengths, "
             "and which depends on offsets between ranks that small (docs/simulation.md). `auto`'s "
             "choices in those launches are joined by `/`." % ", ".join(args.clock_costs.split(",")), ""]
             if len(args.clock_costs.split(",")) > 1 else []) + [
             "**What the model leaves out** (every figure below): %s. Simulated times are exact for the model, "
             "and only as true as it is: docs/simulation.md." % MODEL_LEAVES_OUT, "",
             "Platforms: `platforms/%s.json` (%s)." % (args.machine, machine_source(args.machine)), "",
             "## Launches", "", "| ranks | nodes x ranks | collective | selector | status | real s |",
             "|---|---|---|---|---|---|"]
    for l in launches:
        lines.append("| %d | %dx%d | %s | %s | %s | %.0f |" % (l["ranks"], l["nodes"], l["per_node"], l["collective"],
                                                              l["selector"], l["status"], l["real_s"]))
    lines += ["", "## Time per iteration (simulated µs; the slowest rank)", "",
              "`mpi/mpich`, `mpi/ompi`: SMPI's own call under that selector. The library's algorithms ran under "
              "the first selector, and their ratio is to MPI's call under it. `auto` is the algorithm auto settled "
              "on, timed after it settled, as a ratio to the fastest algorithm of the point (MPI's call under the "
              "same selector included); settle = iterations (simulated ms) its tournament took.", "",
              "| collective | ranks | nodes x ranks | block | mpi/mpich | mpi/ompi | MPI's best (of every selector "
              "and algorithm run) | best library algorithm (÷ MPI's call; ÷ MPI's best) "
              "| auto: choice, ÷ best algorithm | auto settle | init (µs): auto |",
              "|---|---|---|---|---|---|---|---|---|---|---|"]
    for key in sorted(by_key):
        collective, part, ranks, node_size, block = key
        ps = by_key[key]
        mpi = {p["selector"]: p["iteration_s"] for p in ps if p["algorithm"] == "mpi"}
        if not mpi:
            continue
        # The library's algorithms run under the first selector: they are
        # compared with MPI's own call under the same one.
        first = args.selectors.split(",")[0]
        best_mpi = mpi.get(first, min(mpi.values()))
        library = [p for p in ps if p["algorithm"] not in ("mpi", "auto")]
        autos = [p for p in ps if p["algorithm"] == "auto"]
        best = min(library, key=lambda p: p["iteration_s"]) if library else None
        mpi_best_selector = min(mpi, key=mpi.get)
        cell_best = "%s %.1f (%.2f; %.2f)" % (best["algorithm"], best["iteration_s"] * 1e6,
                                              best["iteration_s"] / best_mpi,
                                              best["iteration_s"] / mpi[mpi_best_selector]) if best else "-"
        best_all = min([best_mpi] + ([best["iteration_s"]] if best else []))
        cell_auto = cell_settle = cell_init = "-"
        if autos:
            a = min(autos, key=lambda p: p["iteration_s"])
            cell_auto = "%s, %.2f" % (a["ran"], a["iteration_s"] / best_all)
            cell_settle = "%d (%.1f)" % (a["settle_iterations"], a["settle_s"] * 1e3)
            cell_init = "%.0f" % (a["init_s"] * 1e6)
        name = collective if part == "all" else "%s (%s)" % (collective, part)
        lines.append("| %s | %d | %dx%d | %s | %s | %s | %s %.1f | %s | %s | %s | %s |" % (
            name, ranks, ranks // node_size, node_size, human_bytes(block),
            "%.1f" % (mpi["mpich"] * 1e6) if "mpich" in mpi else "-",
            "%.1f" % (mpi["ompi"] * 1e6) if "ompi" in mpi else "-", mpi_best_selector,
            mpi[mpi_best_selector] * 1e6, cell_best, cell_auto, cell_settle, cell_init))
    lines += setup_section(merged)
    lines += memory_section(merged)
    refused = sorted({(p["algorithm"], p["refused"].split(": ", 2)[-1]) for p in points if "refused" in p})
    wrong = sorted({(p["algorithm"], p["ranks"], p["block_bytes"]) for p in points if p.get("wrong", 0)})
    lines += ["", "## Refused, and wrong", ""]
    lines += ["- %s refused: %s" % r for r in refused] or ["- none refused"]
    lines += ["- %s delivered wrong data at %d ranks, %s blocks: not timed" % (a, r, human_bytes(b))
              for a, r, b in wrong] or ["- no wrong data"]
    with open(os.path.join(args.outdir, "report.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    plot(args, by_key)


def fit(xs, ys):
    """Least squares: (a, b, r2) of y = a + b x, and the exponent k of
    y ~ x^k (the slope of log y against log x)."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    a = my - b * mx
    total = sum((y - my) ** 2 for y in ys)
    r2 = 1 - sum((y - a - b * x) ** 2 for x, y in zip(xs, ys)) / total if total > 0 else 1.0
    lx, ly = [math.log(x) for x in xs], [math.log(max(y, 1.0)) for y in ys]
    mlx, mly = sum(lx) / n, sum(ly) / n
    k = sum((x - mlx) * (y - mly) for x, y in zip(lx, ly)) / sum((x - mlx) ** 2 for x in lx)
    return a, b, r2, k


def setup_section(points):
    """What a request costs before it runs its choice, in iterations of
    MPI's own call at the same point: the communicator's MPIX_Comm_init,
    the request's init, and auto's settling beyond the iterations it ran
    (its tournament's trials and agreements, over what the same number of
    iterations of its choice would have taken)."""
    lines = ["", "## Set-up (simulated µs, and in iterations of MPI's own call under the first selector)", "",
             "comm init: MPIX_Comm_init. init: the request's. auto's extra: its settling time less as many "
             "iterations of what it settled on.", "",
             "| collective | ranks | block | MPI's call | comm init | algorithm | init | auto's extra | "
             "comm init + init + extra, in MPI iterations |", "|---|---|---|---|---|---|---|---|---|"]
    mpi = {}
    for p in points:
        if p["algorithm"] == "mpi" and "iteration_s" in p and p["part"] in ("all", "row"):
            key = (p["collective"], p["ranks"], p["block_bytes"])
            mpi[key] = min(mpi.get(key, p["iteration_s"]), p["iteration_s"])
    for p in sorted((p for p in points if "comm_init_s" in p and not p.get("wrong") and p["part"] in ("all", "row")),
                    key=lambda p: (p["collective"], p["ranks"], p["block_bytes"], p["algorithm"])):
        key = (p["collective"], p["ranks"], p["block_bytes"])
        if key not in mpi:
            continue
        extra = max(p["settle_s"] - p["settle_iterations"] * p["iteration_s"], 0.0) if p["algorithm"] == "auto" else 0
        total = p["comm_init_s"] + p["init_s"] + extra
        lines.append("| %s | %d | %s | %.1f | %.1f | %s | %.1f | %s | %.2f |" % (
            p["collective"], p["ranks"], human_bytes(p["block_bytes"]), mpi[key] * 1e6, p["comm_init_s"] * 1e6,
            p["algorithm"] if p["algorithm"] != "auto" else "auto (%s)" % p["ran"], p["init_s"] * 1e6,
            "%.1f" % (extra * 1e6) if p["algorithm"] == "auto" else "-", total / mpi[key]))
    return lines + [""]


def memory_section(points):
    """Heap bytes per rank (the mean over ranks) that a request holds, and
    that the communicator holds once its requests are freed, against the
    number of ranks, with a linear fit and the exponent of a power fit: at
    most linear growth is an exponent of 1 or less."""
    requests, comms = {}, {}
    for p in points:
        if "request_bytes" not in p or p.get("wrong", 0):
            continue
        # auto holds what its choice holds, and more while it races.
        algorithm = p["algorithm"] if p["algorithm"] != "auto" else "auto (%s)" % p["ran"]
        key = (p["collective"] if p["part"] == "all" else "%s (%s)" % (p["collective"], p["part"]), algorithm,
               p["block_bytes"])
        requests.setdefault(key, {})[p["ranks"]] = max(p["request_bytes"], requests.get(key, {}).get(p["ranks"], 0))
        ckey = key[0]
        comms.setdefault(ckey, {})[p["ranks"]] = max(p["comm_bytes"], comms.get(ckey, {}).get(p["ranks"], 0))
    lines = ["", "## Memory per rank (heap bytes, the mean over ranks)", "",
             "A request: what freeing it returns. A communicator: what it holds once its requests are freed, "
             "the most after any point at that size (it keeps what its algorithms set up once). Fit over the "
             "rank counts run: bytes = a + b x ranks (R²), and k of bytes ~ ranks^k: growth at most linear is "
             "k ≤ 1. Under SMPI every rank is an actor of one process: the heap is read once for all and "
             "divided by the ranks.", ""]
    ranks = sorted({r for v in list(requests.values()) + list(comms.values()) for r in v})
    if len(ranks) < 2:
        return lines + ["- fewer than two rank counts: no fit", ""]
    header = "| what | block | " + " | ".join("%d ranks" % r for r in ranks) + " | a + b x ranks (R²) | k |"
    lines += [header, "|" + "---|" * (len(ranks) + 4)]

    def row(label, block, values):
        xs = sorted(values)
        cells = " | ".join("%.0f" % values[r] if r in values else "-" for r in ranks)
        if len(xs) >= 2:
            a, b, r2, k = fit(xs, [values[x] for x in xs])
            tail = "%.0f + %.1f x ranks (%.3f) | %.2f" % (a, b, r2, k)
        else:
            tail = "- | -"
        lines.append("| %s | %s | %s | %s |" % (label, block, cells, tail))

    for (collective, algorithm, block), values in sorted(requests.items()):
        row("%s request: %s" % (collective, algorithm), human_bytes(block), values)
    for collective, values in sorted(comms.items()):
        row("%s communicator" % collective, "all", values)
    return lines + [""]


def plot(args, by_key):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    collectives = sorted({k[0] for k in by_key})
    for collective in collectives:
        blocks = sorted({k[4] for k in by_key if k[0] == collective})
        fig, axes = plt.subplots(1, len(blocks), figsize=(4 * len(blocks), 3.5), squeeze=False)
        for ax, block in zip(axes[0], blocks):
            series = {}
            for key, ps in by_key.items():
                if key[0] != collective or key[4] != block or key[1] not in ("all", "row"):
                    continue
                for p in ps:
                    label = p["algorithm"] + ("/" + p["selector"] if p["algorithm"] == "mpi" else "")
                    series.setdefault(label, {})
                    old = series[label].get(key[2])
                    series[label][key[2]] = min(old, p["iteration_s"]) if old else p["iteration_s"]
            for label, values in sorted(series.items()):
                xs = sorted(values)
                ax.plot(xs, [values[x] * 1e6 for x in xs], marker="o", label=label)
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_title("%s, %s" % (collective, human_bytes(block)))
            ax.set_xlabel("ranks")
            ax.set_ylabel("µs per iteration (simulated)")
        axes[0][0].legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(os.path.join(args.outdir, "time_%s.png" % collective))
        plt.close(fig)
        speedup_map(plt, args, collective, {k: v for k, v in by_key.items() if k[0] == collective})


def speedup_map(plt, args, collective, by_key):
    """speedup_<collective>.png: for each ranks (column) and block size
    (row), MPI's best call (any selector or SMPI algorithm run) over the
    library's best algorithm, auto left out: above 1 the library is
    faster; each cell names the algorithm."""
    cells = {}
    for (_, part, ranks, _, block), ps in by_key.items():
        if part not in ("all", "row"):
            continue
        mpi = [p["iteration_s"] for p in ps if p["algorithm"] == "mpi"]
        library = [p for p in ps if p["algorithm"] not in ("mpi", "auto")]
        if mpi and library:
            best = min(library, key=lambda p: p["iteration_s"])
            cells[(ranks, block)] = (min(mpi) / best["iteration_s"], best["algorithm"])
    if not cells:
        return
    ranks = sorted({r for r, _ in cells})
    blocks = sorted({b for _, b in cells})
    grid = [[cells.get((r, b), (float("nan"), ""))[0] for r in ranks] for b in blocks]
    fig, ax = plt.subplots(figsize=(max(1.6 * len(ranks) + 2, 6), 0.7 * len(blocks) + 1.5))
    image = ax.imshow(grid, cmap="RdYlGn", vmin=0, vmax=2, aspect="auto", origin="lower")
    for i, b in enumerate(blocks):
        for j, r in enumerate(ranks):
            if (r, b) in cells:
                value, name = cells[(r, b)]
                ax.text(j, i, "%.2f\n%s" % (value, name), ha="center", va="center", fontsize=7)
    ax.set_xticks(range(len(ranks)), [str(r) for r in ranks])
    ax.set_yticks(range(len(blocks)), [human_bytes(b) for b in blocks])
    ax.set_xlabel("ranks")
    ax.set_ylabel("block")
    ax.set_title("%s: MPI's best ÷ the library's best (simulated)" % collective)
    fig.colorbar(image, ax=ax)
    fig.tight_layout()
    fig.savefig(os.path.join(args.outdir, "speedup_%s.png" % collective))
    plt.close(fig)


def git_revision():
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def machine_source(machine):
    with open(os.path.join(ROOT, "platforms", machine + ".json")) as f:
        return json.load(f)["source"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", required=True, help="bench_scale of a simulated build")
    parser.add_argument("--outdir", required=True)
    parser.add_argument("--machine", default="generic")
    parser.add_argument("--layouts", default="1x16,4x16,16x16,32x16,32x32",
                        help="nodes x ranks per node, comma-separated")
    parser.add_argument("--collectives", default="alltoall,alltoallv,pencil")
    parser.add_argument("--selectors", default="mpich,ompi",
                        help="MPI's own call under each: SMPI's selectors (mpich, ompi) or one of SMPI's algorithms "
                             "(alltoall:bruck, alltoallv:pair); the library's algorithms run under the first")
    parser.add_argument("--bytes", default="8,64,1024,8192,65536")
    parser.add_argument("--algorithms", default="all",
                        help="registry names (all: every registered one) besides MPI's own call")
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--auto-exclude", default="",
                        help="registry names auto leaves out (MPIX_ALLTOALL_EXCLUDE, MPIX_ALLTOALLV_EXCLUDE)")
    parser.add_argument("--settle-limit", type=int, default=200)
    parser.add_argument("--limit", type=int, default=600, help="real seconds one smpirun may take")
    parser.add_argument("--clock-costs", default="",
                        help="launch each point once per value: simulated seconds a clock read costs "
                             "(smpi/wtime), e.g. 0,1e-8,2e-8; the report gives the mean (empty: SMPI's default)")
    parser.add_argument("--report-only", action="store_true",
                        help="write report.md again from the outdir's points.jsonl and launches.json")
    args = parser.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    if args.report_only:
        with open(os.path.join(args.outdir, "points.jsonl")) as f:
            points = [json.loads(line) for line in f if line.strip()]
        with open(os.path.join(args.outdir, "launches.json")) as f:
            launches = json.load(f)
        write_report(args, points, launches)
        return
    points, launches = [], []
    with open(os.path.join(args.outdir, "command.txt"), "w") as f:
        f.write(this_command() + "\n")
    for layout in args.layouts.split(","):
        nodes, per_node = (int(x) for x in layout.split("x"))
        for collective in args.collectives.split(","):
            for selector in args.selectors.split(","):
                if not selector_serves(selector, collective):
                    continue
                algorithms = ["mpi"] + ([] if selector != args.selectors.split(",")[0] else [args.algorithms])
                for clock_cost in clock_costs(args):
                    began = time.time()
                    new, status, command = run_point(args, args.machine, nodes, per_node, collective, selector,
                                                     [int(b) for b in args.bytes.split(",")], algorithms,
                                                     args.iterations, clock_cost)
                    points += new
                    launches.append(dict(ranks=nodes * per_node, nodes=nodes, per_node=per_node,
                                         collective=collective, selector=selector, status=status,
                                         real_s=time.time() - began, command=command))
                    print("%5d ranks %-9s %-5s %s (%.0f s)" % (nodes * per_node, collective, selector, status,
                                                               time.time() - began), flush=True)
                with open(os.path.join(args.outdir, "points.jsonl"), "w") as f:
                    f.write("".join(json.dumps(p) + "\n" for p in points))
                with open(os.path.join(args.outdir, "launches.json"), "w") as f:
                    json.dump(launches, f, indent=1)
                write_report(args, points, launches)


if __name__ == "__main__":
    main()
