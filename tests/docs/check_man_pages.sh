#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, then checks that every C
# function libmpixrma exports has its man page there and no page names a
# function it does not export, and that man finds a page by its name.
set -euo pipefail
build=$1
work=$(mktemp -d "${TMPDIR:-/tmp}/mpixrma-man.XXXXXX")
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work" >/dev/null
library=$(find "$work" -name 'libmpixrma.so' | head -1)
man3=$(find "$work" -type d -path '*/man/man3' | head -1)
[ -n "$library" ] || { echo "no libmpixrma.so installed"; exit 1; }
[ -n "$man3" ] || { echo "no man3 folder installed"; exit 1; }
# A function's page has its source name: MPIX_X for the symbol mpixrma_X
# (docs/symbols.md).
nm -D --defined-only "$library" | awk '$2 == "T" {print $3}' | sed 's/^mpixrma_/MPIX_/' | LC_ALL=C sort \
  > "$work/exported"
(cd "$man3" && ls -- *.3 | sed 's/\.3$//' | LC_ALL=C sort) > "$work/pages"
missing=$(LC_ALL=C comm -23 "$work/exported" "$work/pages")
extra=$(LC_ALL=C comm -13 "$work/exported" "$work/pages")
[ -z "$missing" ] || { echo "exported without a man page: $missing"; exit 1; }
[ -z "$extra" ] || { echo "a man page for no exported function: $extra"; exit 1; }
page=$(MANWIDTH=80 man -M "$(dirname "$man3")" -P cat MPIX_Alltoallv_init 2>&1)
grep -q "SYNOPSIS" <<<"$page" && grep -q "COLLECTIVE OR LOCAL" <<<"$page" ||
  { echo "man MPIX_Alltoallv_init did not show the page:"; echo "$page"; exit 1; }
echo "man pages: $(wc -l < "$work/pages") pages for $(wc -l < "$work/exported") exported functions"
