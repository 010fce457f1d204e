#!/usr/bin/env bash
# What every benchmark script does first: installs dependencies, builds
# (quietly) against the MPI named by MPI= (mpich, the default, into build/;
# openmpi into build-openmpi/, simgrid into build-simgrid/), and prints two
# lines: the build folder, and the launcher of that MPI with its flags.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mpi=${MPI:-mpich}
build=$root/build
[ "$mpi" = mpich ] || build=$build-$mpi
"$root/scripts/install_deps.sh" >&2
"$root/scripts/build.sh" "$build" -DMPIX_MPI="$mpi" >/dev/null
echo "$build"
case $mpi in
  mpich) echo mpiexec.mpich ;;
  # Open MPI refuses root, and more ranks than cores, unless told.
  openmpi) echo "mpiexec.openmpi --oversubscribe$([ "$(id -u)" -eq 0 ] && echo " --allow-run-as-root")" ;;
  # The simulator's launcher takes a platform and a hostfile per launch.
  simgrid) echo smpirun ;;
  *) echo "prepare_benchmark.sh: MPI=$mpi; accepted: mpich, openmpi, simgrid" >&2; exit 2 ;;
esac
