#!/usr/bin/env bash
# The whole test suite: installs dependencies, builds, runs CTest (unit tests,
# every MPI suite at 2, 3 and 4 ranks, the installed-package consumer).
# --sanitize runs it on an AddressSanitizer + UBSan build instead (without
# the 4-rank repeats of suites that also run at 3);
# --mpi openmpi builds and runs it against Open MPI (default: MPICH).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sanitize=OFF mpi=mpich
while [ $# -gt 0 ]; do
  case $1 in
    --sanitize) sanitize=ON ;;
    --mpi) mpi=$2; shift ;;
    *) echo "usage: run_tests.sh [--sanitize] [--mpi mpich|openmpi]" >&2; exit 2 ;;
  esac
  shift
done
"$root/scripts/install_deps.sh"
build=$root/build
[ "$mpi" = mpich ] || build=$build-$mpi
[ "$sanitize" = OFF ] || build=$build-asan
"$root/scripts/build.sh" "$build" -DMPIX_MPI="$mpi" -DMPIX_SANITIZE="$sanitize"
cd "$build"
# Under the sanitizers every test runs but the oversubscribed repeats at
# more than 3 ranks of tests that also run at 3 (label more_ranks): they
# check the same code paths, at several times the cost.
exclude=()
[ "$sanitize" = OFF ] || exclude=(-LE more_ranks)
ctest --output-on-failure -j "$(nproc)" "${exclude[@]}"
