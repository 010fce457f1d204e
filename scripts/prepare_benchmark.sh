#!/usr/bin/env bash
# What every benchmark script does first: installs dependencies, builds into
# build/ (quietly), and prints the mpiexec to use (MPICH's, pinned).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install_deps.sh" >&2
"$root/scripts/build.sh" "$root/build" >/dev/null
if command -v mpiexec.mpich >/dev/null; then echo mpiexec.mpich; else echo mpiexec; fi
