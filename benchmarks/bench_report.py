"""What the benchmark drivers share: the environment header and running one
launch of a benchmark binary that writes a CSV."""
import csv
from collections import defaultdict
import os
import subprocess
import sys


def environment_header():
    lines = ["# environment (MPI/UCX/MPIX variables):"]
    names = sorted(k for k in os.environ if k.startswith(("MPIX_", "UCX_", "MPIR_CVAR_", "MPICH_", "HYDRA_")))
    lines += [f"#   {k}={os.environ[k]}" for k in names] or ["#   (none set)"]
    return "\n".join(lines)


def run_launch(cmd, env, csv_path, label):
    """Runs cmd (which writes csv_path) with env added; returns the CSV rows."""
    shown = " ".join(f"{k}={v}" for k, v in env.items())
    print(f"# {label}: {shown} {' '.join(cmd)}", flush=True)
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={**os.environ, **env})
    if done.returncode != 0:
        sys.stdout.write(done.stdout)
        sys.exit(f"{os.path.basename(cmd[3]) if len(cmd) > 3 else cmd[0]}: launch failed with exit code "
                 f"{done.returncode}")
    with open(csv_path) as f:
        return list(csv.DictReader(f))


def auto_against_best(summary, point_keys):
    """Per point (the summary rows sharing point_keys): auto against the best
    other algorithm measured in the same run, and against native -- the
    selector's acceptance criteria. memcpy is a bound, not a competitor."""
    points = defaultdict(dict)
    ran = {}
    for s in summary:
        key = tuple(s[k] for k in point_keys)
        points[key][s["algorithm"]] = s["t_iter_us"]
        if s["algorithm"] == "auto":
            ran[key] = s.get("ran", "")
    checks = []
    for key, times in sorted(points.items()):
        if "auto" not in times:
            continue
        others = {a: t for a, t in times.items() if a not in ("auto", "memcpy")}
        best = min(others, key=others.get)
        checks.append({**dict(zip(point_keys, key)), "best": best, "auto_ran": ran[key],
                       "t_best_us": others[best], "t_auto_us": times["auto"],
                       "auto_to_best": times["auto"] / others[best],
                       "auto_to_native": times["auto"] / times["native"] if "native" in times else float("nan")})
    return checks
