#!/usr/bin/env bash
# The whole test suite: installs dependencies, builds, runs CTest (unit tests,
# every MPI suite at 2, 3 and 4 ranks, the installed-package consumer).
# --sanitize runs it on an AddressSanitizer + UBSan build instead.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install_deps.sh"
if [ "${1:-}" = "--sanitize" ]; then
  "$root/scripts/build.sh" "$root/build-asan" -DMPIX_SANITIZE=ON
  cd "$root/build-asan"
else
  "$root/scripts/build.sh" "$root/build"
  cd "$root/build"
fi
ctest --output-on-failure -j "$(nproc)"
