#!/usr/bin/env bash
# The whole test suite: installs dependencies, builds, runs CTest (unit tests,
# every MPI suite at the fewest ranks it runs at, the installed-package
# consumer; --all-ranks: also its repeats at more ranks).
# --sanitize runs it on an AddressSanitizer + UBSan build instead, at 2
# ranks (see below); --mpi openmpi builds and runs it against Open MPI
# (default: MPICH). --mpi simgrid builds the
# simulated build (SimGrid's SMPI, docs/simulation.md) and runs its suites
# at scale, the tests labelled sim (not those labelled sim_long).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sanitize=OFF mpi=mpich all_ranks=no
while [ $# -gt 0 ]; do
  case $1 in
    --sanitize) sanitize=ON ;;
    --all-ranks) all_ranks=yes ;;
    --mpi) mpi=$2; shift ;;
    *) echo "usage: run_tests.sh [--sanitize] [--all-ranks] [--mpi mpich|openmpi|simgrid]" >&2; exit 2 ;;
  esac
  shift
done
"$root/scripts/install_deps.sh"
build=$root/build
[ "$mpi" = mpich ] || build=$build-$mpi
[ "$sanitize" = OFF ] || build=$build-asan
"$root/scripts/build.sh" "$build" -DMPIX_MPI="$mpi" -DMPIX_SANITIZE="$sanitize"
cd "$build"
# What each leg leaves out, so that CI stays within its time (all legs
# with --all-ranks run everything):
# - the repeats of a registration at more ranks than the fewest it runs
#   at (label repeat_ranks: the same code paths, oversubscribed, at
#   several times the cost): every leg;
# - every run of more ranks than the machine has cores (label
#   oversubscribed, two to three times slower under the sanitizers, one
#   at a time): the sanitizer leg, which runs every suite at 2 ranks; the
#   MPICH and Open MPI legs run them.
exclude=()
if [ "$mpi" = simgrid ]; then
  # pscw at 256 simulated ranks takes the simulator over fifteen minutes a
  # request (tests/sim/CMakeLists.txt): run it with ctest -L sim_long.
  exclude=(-LE sim_long)
elif [ "$all_ranks" = yes ]; then
  exclude=()
elif [ "$sanitize" = ON ]; then
  exclude=(-LE "repeat_ranks|oversubscribed")
else
  exclude=(-LE repeat_ranks)
fi
ctest --output-on-failure -j "$(nproc)" "${exclude[@]}"
