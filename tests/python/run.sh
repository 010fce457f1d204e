#!/usr/bin/env bash
# Installs the build tree into a scratch prefix and runs the Python tests
# on the installed package, under mpiexec with the given number of ranks:
#   run.sh <build> <ranks>   (MPIEXEC, MPIEXEC_PREFLAGS: the launcher)
set -euo pipefail
build=$1 ranks=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/mpixrma-python.XXXXXX")
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work" >/dev/null
site=$(dirname "$(find "$work" -name __init__.py -path '*/mpixrma/*' | head -1)")
read -r -a mpiexec <<<"${MPIEXEC:-mpiexec} ${MPIEXEC_PREFLAGS:-}"
PYTHONPATH="$(dirname "$site")" PYTHONDONTWRITEBYTECODE=1 \
  "${mpiexec[@]}" -n "$ranks" "${PYTHON:-python3}" -m pytest -q -p no:cacheprovider "$here/test_mpixrma.py"
