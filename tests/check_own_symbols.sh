#!/usr/bin/env bash
# The library's exported symbols are its own: mpixrma_* (the C API,
# docs/symbols.md) and the two entry points of the paper's API, and none
# of them is exported by any MPI library installed here (MPICH's and Open
# MPI's C and Fortran libraries, and those this build links). Usage:
#   check_own_symbols.sh LIBMPIXRMA [MPI_LIBRARY...]
set -euo pipefail
library=$1
shift
exported=$(nm -D --defined-only "$library" | awk '{print $3}' | LC_ALL=C sort -u)
foreign=$(grep -Ev '^(mpixrma_[A-Za-z_]+|alltoallv_rma_(winfence|lock)_init)$' <<<"$exported" || true)
[ -z "$foreign" ] || { echo "exported, not the library's own names: $foreign"; exit 1; }
grep -qx 'mpixrma_Alltoallv_init' <<<"$exported" || { echo "mpixrma_Alltoallv_init is not exported"; exit 1; }
# Every MPI library installed: the build's own, then whatever the system
# holds of MPICH and Open MPI, followed to the files they name.
candidates=("$@")
for pattern in /usr/lib/*/libmpi.so* /usr/lib/*/libmpich*.so* /usr/lib/*/libmpi_*.so* /usr/lib/*/openmpi/lib/*.so \
  /usr/lib/*/mpich/lib/*.so* /usr/lib64/libmpi*.so* /usr/local/lib/libmpi*.so*; do
  for file in $pattern; do [ -e "$file" ] && candidates+=("$file"); done
done
checked=0
declare -A seen=()
for candidate in "${candidates[@]}"; do
  [ -e "$candidate" ] || continue
  file=$(readlink -f "$candidate")
  [ -z "${seen[$file]:-}" ] || continue
  seen[$file]=1
  theirs=$(nm -D --defined-only "$file" 2>/dev/null | awk '{print $3}' | LC_ALL=C sort -u) || continue
  [ -n "$theirs" ] || continue
  checked=$((checked + 1))
  both=$(LC_ALL=C comm -12 <(echo "$exported") <(echo "$theirs"))
  [ -z "$both" ] || { echo "$file exports the library's symbols too: $both"; exit 1; }
done
[ "$checked" -gt 0 ] || { echo "no MPI library found to compare with"; exit 1; }
echo "own symbols: $(wc -l <<<"$exported") exported, none of them in $checked MPI libraries"
