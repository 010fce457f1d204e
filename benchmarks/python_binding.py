"""What the Python binding adds per iteration (scripts/benchmark.sh python):
launches of bench_start_wait (C) and of python_start_wait.py (Python)
alternate, each timing 10^4 Start + Wait of an mpix-rma Alltoall request
(8 B per peer, the same algorithm forced in both: --algorithm) and of an
MPI persistent send/receive pair in interleaved rounds. Per loop: the
median over all rounds of the launches, with the min..max of the launches'
medians; then what Python adds over C for each (mpixrma's binding, and
mpi4py's own Prequest) and their ratio."""
import argparse
import os
import statistics
import subprocess
import sys
from collections import defaultdict

from bench_report import environment_header, write_csv


def launch(cmd, env):
    print(f"# {' '.join(cmd)}", flush=True)
    done = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, **env})
    if done.returncode != 0:
        sys.stdout.write(done.stdout + done.stderr)
        sys.exit(f"python_binding.py: launch failed with exit code {done.returncode}")
    times = defaultdict(list)
    for line in done.stdout.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[0] == "start_wait":
            times[fields[1]].append(float(fields[3]))
    return times


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bench", required=True, help="bench_start_wait")
    parser.add_argument("--python-package", required=True, help="the folder holding the mpixrma package")
    parser.add_argument("--mpiexec", required=True)
    parser.add_argument("--outdir", required=True)
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--launches", type=int, default=3)
    # One algorithm forced in both languages: auto may settle on another
    # channel variant in another launch, which is not the binding's cost.
    parser.add_argument("--algorithm", default="channel", help="the Alltoall algorithm both loops run")
    args = parser.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    print(environment_header())
    here = os.path.dirname(os.path.abspath(__file__))
    launcher = args.mpiexec.split() + ["-n", str(args.ranks)]
    loop_args = ["--algorithm", args.algorithm]
    env = {"PYTHONPATH": args.python_package}
    per_launch = defaultdict(list)  # (language, loop) -> [median of a launch]
    rows = []
    for n in range(args.launches):
        for language, cmd in (("c", launcher + [args.bench] + loop_args),
                              ("python", launcher + [sys.executable, os.path.join(here, "python_start_wait.py")]
                               + loop_args)):
            for loop, times in launch(cmd, env).items():
                per_launch[(language, loop)].append(statistics.median(times))
                rows += [{"launch": n, "language": language, "loop": loop, "us_per_iteration": t} for t in times]
    write_csv(rows, os.path.join(args.outdir, "python_binding.csv"))
    print(f"\n# {args.ranks} ranks, 10^4 Start + Wait per round, 8 B; us per iteration: median over launches "
          f"(min..max of the launches' medians)")
    median = {}
    for key in sorted(per_launch):
        values = per_launch[key]
        median[key] = statistics.median(values)
        print(f"{key[0]:<7} {key[1]:<8} {median[key]:8.3f} ({min(values):.3f}..{max(values):.3f})")
    added_mpix = median[("python", "mpixrma")] - median[("c", "mpixrma")]
    added_mpi4py = median[("python", "mpi")] - median[("c", "mpi")]
    print(f"# Python adds per iteration: mpixrma {added_mpix:.3f} us, mpi4py (Prequest) {added_mpi4py:.3f} us; "
          f"ratio {added_mpix / added_mpi4py:.2f}")
    print(f"# mpixrma from Python / from C: {median[('python', 'mpixrma')] / median[('c', 'mpixrma')]:.2f}")


if __name__ == "__main__":
    main()
