#!/usr/bin/env python3
"""The report of one benchmark run (scripts/benchmark.sh): report.md in the
run's folder, beside what the run wrote. It says what produced the numbers
(the command and the variables it read, the git revision, the MPI, the
machine), gives the copy floor measured in the same session, and the tables
the benchmark printed, so that a number in it can be traced and repeated.
The README and docs/ link reports instead of copying their numbers."""
import argparse
import csv
import datetime
import os
import platform
import socket
import subprocess

from alltoallv import human

# The variables scripts/benchmark.sh and the libraries it runs read.
SETTINGS = ("MPI", "RANKS", "LAUNCHES", "OFFNODE", "SET", "MATRIX_DIR", "MEMORY", "LOOP", "REPEATS", "FLOOR")
SETTING_PREFIXES = ("MPIX_", "UCX_", "MPIR_CVAR_", "OMPI_MCA_")


def run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def memory_gib():
    try:
        with open("/proc/meminfo") as f:
            kib = int(f.readline().split()[1])
        return f"{kib / 2**20:.1f} GiB"
    except (OSError, ValueError, IndexError):
        return "unknown"


def text_file(path):
    with open(path) as f:
        return f.read().rstrip("\n")


def copy_floor_ratios(path):
    """bytes -> staged ÷ MPI from bench_copy_floor's table."""
    ratios = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                fields = line.split()
                if len(fields) >= 6 and fields[0].isdigit() and fields[1] == "staged":
                    ratios[int(fields[0])] = float(fields[5])
    return ratios


def write_headline(folder, mpi_call):
    """Benchmark 1's headline, the table the README includes: the
    application loop over heap buffers on one node, auto against the MPI's
    own call (mpi_call) per size, and the copy floor of the same session."""
    checks_path = os.path.join(folder, "selector_check.csv")
    summary_path = os.path.join(folder, "alltoallv.csv")
    if not (os.path.exists(checks_path) and os.path.exists(summary_path)):
        return None
    with open(checks_path) as f:
        checks = [r for r in csv.DictReader(f)
                  if (r["setting"], r["loop"], r["memory"]) == ("one_node", "application", "heap")]
    if not checks:
        return None
    ranks = min(int(r["ranks"]) for r in checks)
    with open(summary_path) as f:
        native = {int(r["bytes_per_peer"]): float(r["t_iter_us"]) for r in csv.DictReader(f)
                  if (r["setting"], r["loop"], r["memory"], r["algorithm"], int(r["ranks"])) ==
                  ("one_node", "application", "heap", "native", ranks)}
    floor = copy_floor_ratios(os.path.join(folder, "copy_floor.txt"))
    lines = [f"| bytes/peer | `{mpi_call}` [µs] | `auto` [µs] | `auto` ÷ MPI (min..max) | copy floor ÷ MPI | "
             "`auto` ran |", "|---|---|---|---|---|---|"]
    for r in sorted((r for r in checks if int(r["ranks"]) == ranks), key=lambda r: int(r["bytes_per_peer"])):
        size = int(r["bytes_per_peer"])
        floor_text = f"{floor[size]:.2f}" if size in floor else "–"
        lines.append(f"| {human(size)} | {native.get(size, float('nan')):.2f} | {float(r['t_auto_us']):.2f} | "
                     f"{float(r['auto_to_native']):.2f} ({float(r['auto_to_native_min']):.2f}.."
                     f"{float(r['auto_to_native_max']):.2f}) | {floor_text} | "
                     f"{r['auto_ran'].replace('|', ', ')} |")
    with open(os.path.join(folder, "headline.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--dir", required=True, help="the run's folder")
    parser.add_argument("--name", required=True, help="the benchmark's name")
    parser.add_argument("--command", required=True, help="the command as it was run")
    parser.add_argument("--mpix-info", required=True, help="the build's mpix_info")
    parser.add_argument("--source", required=True, help="the source tree, for its git revision")
    args = parser.parse_args()

    settings = [f"{k}={os.environ[k]}" for k in sorted(os.environ)
                if k in SETTINGS or k.startswith(SETTING_PREFIXES)]
    revision = run(["git", "-C", args.source, "describe", "--always", "--dirty", "--abbrev=12"])
    revision_date = run(["git", "-C", args.source, "log", "-1", "--format=%cs"])
    files = sorted(f for f in os.listdir(args.dir) if f.endswith((".csv", ".png")))
    now = datetime.datetime.now(datetime.timezone.utc)

    lines = [f"# Benchmark report: {args.name}", "",
             "| | |", "|---|---|",
             f"| run | {now:%Y-%m-%d %H:%M} UTC |",
             f"| command | `{' '.join(settings + [args.command])}` |",
             f"| git revision | `{revision}` ({revision_date}) |",
             f"| library and MPI | {run([args.mpix_info, '--version'])} |",
             f"| machine | {socket.gethostname()}: {os.cpu_count()} CPUs ({cpu_model()}), {memory_gib()}, "
             f"Linux {platform.release()} |", ""]
    floor = os.path.join(args.dir, "copy_floor.txt")
    if os.path.exists(floor):
        lines += ["## Copy floor of the same session", "",
                  "`bench_copy_floor` (2 ranks, one node), run right after the benchmark: the simplest "
                  "exchanges through shared memory with no library code (`staged`: two copies behind a flag; "
                  "`single_copy`: the receiver copies from the sender's buffer) beside `MPI_Alltoallv` and "
                  "`auto`, interleaved. A ratio to MPI below the floor's is out of reach on this machine in "
                  "this phase.", "", "```", text_file(floor), "```", ""]
    # Benchmark 1 of the Alltoall family reports as "alltoall".
    mpi_call = "MPI_Alltoall" if args.name == "alltoall" else "MPI_Alltoallv"
    headline = write_headline(args.dir, mpi_call)
    if headline:
        lines += ["## Headline", "",
                  f"The application loop over heap buffers on one node, `auto` ÷ `{mpi_call}` of the same "
                  f"launch, the median of the launches with their min..max; the copy floor is `staged` ÷ "
                  f"`MPI_Alltoallv` of the copy-floor launch after it (`headline.md`, which the README "
                  f"includes).", ""] + headline + [""]
    lines += ["## Results", "", "What the benchmark printed (its tables, ratios and checks):", "",
              "```", text_file(os.path.join(args.dir, "output.txt")), "```", ""]
    if files:
        lines += ["## Files", ""] + [f"- [`{f}`]({f})" for f in files] + [""]
        lines += [f"![{f}]({f})" for f in files if f.endswith(".png")] + [""]
    with open(os.path.join(args.dir, "report.md"), "w") as f:
        f.write("\n".join(lines))
    print(f"report: {os.path.join(args.dir, 'report.md')}")


if __name__ == "__main__":
    main()
