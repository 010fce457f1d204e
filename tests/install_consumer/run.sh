#!/usr/bin/env bash
# Installs the build tree into a staging prefix, then builds and runs the
# consumer through find_package(mpixrma) and through pkg-config.
set -euo pipefail
build=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" >/dev/null
flags=${SANITIZE_FLAGS:-}
cmake -S "$here" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_C_FLAGS="$flags" \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
cmake --build "$work/cmake" >/dev/null
LD_LIBRARY_PATH="$work/prefix/lib:${LD_LIBRARY_PATH:-}" "${MPIEXEC:-mpiexec}" -n 2 "$work/cmake/consumer"
LD_LIBRARY_PATH="$work/prefix/lib:${LD_LIBRARY_PATH:-}" "${MPIEXEC:-mpiexec}" -n 2 "$work/cmake/consumer_cpp"

pc_dir=$(find "$work/prefix" -name mpixrma.pc -printf '%h\n')
sed -i "s|^prefix=.*|prefix=$work/prefix|" "$pc_dir/mpixrma.pc"
pc_flags=$(PKG_CONFIG_PATH="$pc_dir" pkg-config --cflags --libs mpixrma)
# shellcheck disable=SC2086
"${MPICC:-mpicc}" $flags "$here/consumer.c" $pc_flags -o "$work/consumer_pc"
LD_LIBRARY_PATH="$work/prefix/lib:${LD_LIBRARY_PATH:-}" "${MPIEXEC:-mpiexec}" -n 2 "$work/consumer_pc"
