#!/usr/bin/env bash
# One layer per folder, top to bottom:
#   intercept    the drop-in: standard MPI calls served through the C API
#   capi         the C API: converts handles and exceptions, nothing else
#   collectives  collective families (collectives/<family>/, one per row of
#                collectives/families.def: one file per algorithm) and the
#                machinery they share (collectives/, collectives/auto/,
#                collectives/blocks/: the algorithms over per-peer blocks)
#   rma          the window layer: MPIX_Win, epochs, flushes, memory handles
#   node         the node transport: channel, shared segments, single copy
#   selector     pure choice: cost model, tuning file, tournament rules
#   src          communicator, configuration, errors, requests, resources
# A file may include headers of its own layer and of the layers below it,
# never above; a family's folder includes no other family's, and what the
# families share includes none.
set -euo pipefail
root=$1
layers=(intercept capi collectives rma node selector src)
status=0
# Components below the top name their configuration rows in
# src/components.def by function, never by include.
for ((i = 1; i < ${#layers[@]}; ++i)); do
  above=$(IFS='|'; echo "${layers[*]:0:i}")
  if find "$root/${layers[i]}" -name '*.cpp' -o -name '*.hpp' -o -name '*.def' | xargs grep -nE "#include \"(${above})/"; then
    echo "check_layers: ${layers[i]}/ includes a layer above it (${above})"
    status=1
  fi
done
families=$(sed -n 's/^MPIX_FAMILY(\([a-z_]*\),.*/\1/p' "$root/collectives/families.def")
[ -n "$families" ] || { echo "check_layers: no family in collectives/families.def"; exit 1; }
for family in $families; do
  others=$(echo "$families" | grep -vx "$family" | paste -sd'|')
  [ -n "$others" ] || continue
  if grep -nE "#include \"collectives/(${others})/" "$root/collectives/$family"/*; then
    echo "check_layers: family $family includes another family (${others})"
    status=1
  fi
done
all=$(echo "$families" | paste -sd'|')
if grep -nE "#include \"collectives/(${all})/" "$root"/collectives/*.?pp "$root"/collectives/*.def "$root"/collectives/auto/* \
  "$root"/collectives/blocks/*; then
  echo "check_layers: what the families share includes a family (${all})"
  status=1
fi
[ $status -eq 0 ] && echo "check_layers: ok"
exit $status
