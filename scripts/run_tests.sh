#!/usr/bin/env bash
# The whole test suite: installs dependencies, builds, runs CTest (unit tests,
# every MPI suite at 2 and 3 ranks, the installed-package consumer;
# --all-ranks: also the repeats at 4).
# --sanitize runs it on an AddressSanitizer + UBSan build instead;
# --mpi openmpi builds and runs it against Open MPI (default: MPICH); both
# leave out repeats at more ranks (see below). --mpi simgrid builds the
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
# The oversubscribed repeats of a registration at more ranks than the
# fewest it runs at check the same code paths at several times the cost:
# the MPICH build runs those at 3 ranks (odd counts), the sanitizer and
# Open MPI builds none (label repeat_ranks; ctest -L repeat_ranks_above_3
# runs those above 3, which --all-ranks adds to the MPICH build's).
exclude=()
if [ "$mpi" = simgrid ]; then
  # The window algorithms at 256 simulated ranks take the simulator tens
  # of seconds a request, pscw over twenty minutes (tests/sim/CMakeLists.txt):
  # run them with ctest -L sim_long.
  exclude=(-LE sim_long)
elif [ "$sanitize" = ON ] || [ "$mpi" != mpich ]; then
  exclude=(-LE repeat_ranks)
elif [ "$all_ranks" = no ]; then
  exclude=(-LE repeat_ranks_above_3)
fi
ctest --output-on-failure -j "$(nproc)" "${exclude[@]}"
