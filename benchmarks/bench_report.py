"""What the benchmark drivers share: the environment header, running one
launch of a benchmark binary that writes a CSV, the selector's acceptance
check, writing CSVs and the plotting library."""
import csv
import statistics
from collections import defaultdict
import os
import subprocess
import sys


def environment_header():
    lines = ["# environment (MPI/UCX/MPIX variables):"]
    names = sorted(k for k in os.environ if k.startswith(("MPIX_", "UCX_", "MPIR_CVAR_", "MPICH_", "HYDRA_")))
    lines += [f"#   {k}={os.environ[k]}" for k in names] or ["#   (none set)"]
    return "\n".join(lines)


def run_launch(cmd, env, csv_path, label, output=None):
    """Runs cmd (which writes csv_path) with env added; returns the CSV rows.
    output: a list that receives the launch's stdout and stderr."""
    shown = " ".join(f"{k}={v}" for k, v in env.items())
    print(f"# {label}: {shown} {' '.join(cmd)}", flush=True)
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ, **env})
    if done.returncode != 0:
        sys.stdout.write(done.stdout)
        sys.exit(f"{os.path.basename(cmd[3]) if len(cmd) > 3 else cmd[0]}: launch failed with exit code "
                 f"{done.returncode}")
    if output is not None:
        output.append(done.stdout)
    with open(csv_path) as f:
        return list(csv.DictReader(f))


def write_csv(rows, path, fields=None):
    """rows (dicts) as a CSV; fields: the columns, in order (default: all of
    the first row's)."""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields or list(rows[0]), extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)


def pyplot():
    """matplotlib.pyplot without a display, or None (and a note) without matplotlib."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("# matplotlib not available: no plots (install python3-matplotlib)")
        return None
    return plt


def in_family(algorithm, family):
    """Whether a competitor belongs to a collective family: "" for
    Alltoallv's rows, a prefix ("neighbor:") for another family's."""
    return algorithm.startswith(family) if family else ":" not in algorithm


def auto_against_best(rows, point_keys, family=""):
    """Per point (the launch rows sharing point_keys): auto against the best
    other algorithm measured in the same launch, and against native -- the
    selector's acceptance criteria -- as the median over launches of each
    launch's ratio, since a launch's own speed (the machine's moment, the
    transport's mode) moves all its competitors together. memcpy is a bound,
    not a competitor. family: the family whose auto, rows and native are
    compared (names with its prefix, which the checks drop)."""
    launches = defaultdict(lambda: defaultdict(dict))
    ran = defaultdict(set)
    for r in rows:
        if not in_family(r["algorithm"], family):
            continue
        r = dict(r, algorithm=r["algorithm"][len(family):],
                 ran="|".join(x[len(family):] for x in r.get("ran", "").split("|") if x))
        key = tuple(r[name] for name in point_keys)
        launches[key][r["launch"]][r["algorithm"]] = float(r["t_iter_us"])
        if r["algorithm"] == "auto":
            ran[key] |= {x for x in r.get("ran", "").split("|") if x}
    checks = []
    for key, per_launch in sorted(launches.items()):
        to_best, to_native, best_names, t_best, t_auto = [], [], [], [], []
        for times in per_launch.values():
            if "auto" not in times:
                continue
            others = {a: t for a, t in times.items() if a not in ("auto", "memcpy")}
            best = min(others, key=others.get)
            best_names.append(best)
            t_best.append(others[best])
            t_auto.append(times["auto"])
            to_best.append(times["auto"] / others[best])
            to_native.append(times["auto"] / times["native"] if "native" in times else float("nan"))
        if not to_best:
            continue
        checks.append({**dict(zip(point_keys, key)), "best": max(set(best_names), key=best_names.count),
                       "auto_ran": "|".join(sorted(ran[key])), "launches": len(to_best),
                       "t_best_us": statistics.median(t_best), "t_auto_us": statistics.median(t_auto),
                       "auto_to_best": statistics.median(to_best), "auto_to_native": statistics.median(to_native),
                       "auto_to_best_min": min(to_best), "auto_to_best_max": max(to_best),
                       "auto_to_native_min": min(to_native), "auto_to_native_max": max(to_native)})
    return checks
