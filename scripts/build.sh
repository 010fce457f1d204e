#!/usr/bin/env bash
# Configures and builds into $1 (default build/); extra arguments go to CMake.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/build}
shift || true
# Line tables only (-g1): enough for sanitizer reports, backtraces and
# profiles, at three quarters of the compile time of full debug information.
flags="-O2 -g1 -DNDEBUG"
cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="$flags" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="$flags" "$@" >/dev/null
cmake --build "$dir" -j "$(nproc)"
