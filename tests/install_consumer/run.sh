#!/usr/bin/env bash
# Installs the build tree into a prefix outside it, then builds and runs a
# C project and a C++-only project against the installed package, each
# through find_package(mpixrma) and through pkg-config (whose mpixrma.pc
# requires the MPI it was built with), and runs the installed mpix_info
# without LD_LIBRARY_PATH; with Fortran, a Fortran project through the
# package's mpixrma::fortran.
set -euo pipefail
build=$1
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/mpixrma-consumer.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
flags=${SANITIZE_FLAGS:-}
# The launcher of the MPI the package was built with, and its flags.
read -r -a mpiexec <<<"${MPIEXEC:-mpiexec} ${MPIEXEC_PREFLAGS:-}"

"${mpiexec[@]}" -n 1 "$prefix/bin/mpix_info" --version

# A project that finds the other MPI is told so at configure time.
if [ -n "${OTHER_MPI_C_COMPILER:-}" ] && [ -x "$OTHER_MPI_C_COMPILER" ]; then
  if cmake -S "$here/c" -B "$work/cmake-other" -DCMAKE_PREFIX_PATH="$prefix" \
       -DMPI_C_COMPILER="$OTHER_MPI_C_COMPILER" >"$work/other.log" 2>&1; then
    echo "consumer with the other MPI: configured, WRONG"
  elif grep -q "mpixrma was built with" "$work/other.log"; then
    grep -o "mpixrma was built with [^,]*, but this project found [A-Za-z ]*" "$work/other.log" | head -1
  else
    cat "$work/other.log"
    echo "consumer with the other MPI: failed without saying why, WRONG"
  fi
fi

for lang in c cxx; do
  cmake -S "$here/$lang" -B "$work/cmake-$lang" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_C_FLAGS="$flags" \
    -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
  cmake --build "$work/cmake-$lang" >/dev/null
  "${mpiexec[@]}" -n 2 "$work/cmake-$lang/consumer"
done

# pkg-config's line (the library, then the MPI it requires), and a line
# that names the MPI first, as a build system listing MPI's target first
# may: Open MPI's libmpi exports MPIX_Alltoall_init too, and the program
# must still call the library's (docs/symbols.md).
pc_dir=$(find "$prefix" -name mpixrma.pc -printf '%h\n')
pc_flags=$(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs mpixrma)
mpi_module=$(PKG_CONFIG_PATH="$pc_dir" pkg-config --print-requires mpixrma | awk '{print $1}')
mpi_first="$(pkg-config --libs "$mpi_module") $pc_flags"
# shellcheck disable=SC2086
cc $flags "$here/c/consumer.c" $pc_flags -o "$work/consumer_pc_c"
# shellcheck disable=SC2086
c++ -std=c++17 $flags "$here/cxx/consumer.cpp" $pc_flags -o "$work/consumer_pc_cxx"
# shellcheck disable=SC2086
cc $flags "$here/c/consumer.c" $mpi_first -o "$work/consumer_mpi_first_c"
# shellcheck disable=SC2086
c++ -std=c++17 $flags "$here/cxx/consumer.cpp" $mpi_first -o "$work/consumer_mpi_first_cxx"
for program in consumer_pc_c consumer_pc_cxx consumer_mpi_first_c consumer_mpi_first_cxx; do
  echo "$program:"
  LD_LIBRARY_PATH="$prefix/lib:${LD_LIBRARY_PATH:-}" "${mpiexec[@]}" -n 2 "$work/$program"
done

# Fortran, where the module was built: the example that checks every family
# against MPI's own calls, at 2 and 3 ranks.
if [ -n "$(find "$prefix" -name mpix.mod)" ]; then
  cmake -S "$here/fortran" -B "$work/cmake-fortran" -DCMAKE_PREFIX_PATH="$prefix" \
    -DPROGRAM="$here/../../examples/fortran/persistent_exchanges.f90" -DCMAKE_C_FLAGS="$flags" \
    -DCMAKE_Fortran_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
  cmake --build "$work/cmake-fortran" >/dev/null
  for n in 2 3; do
    "${mpiexec[@]}" -n "$n" "$work/cmake-fortran/consumer"
  done
  # And linked with the MPI's Fortran libraries first.
  cmake -S "$here/fortran" -B "$work/cmake-fortran-mpi-first" -DCMAKE_PREFIX_PATH="$prefix" -DMPI_FIRST=ON \
    -DPROGRAM="$here/../../examples/fortran/persistent_exchanges.f90" -DCMAKE_C_FLAGS="$flags" \
    -DCMAKE_Fortran_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
  cmake --build "$work/cmake-fortran-mpi-first" >/dev/null
  echo "Fortran, MPI linked first:"
  "${mpiexec[@]}" -n 2 "$work/cmake-fortran-mpi-first/consumer"
fi
