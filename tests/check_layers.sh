#!/usr/bin/env bash
# One layer per folder, top to bottom: capi, collectives, rma, selector, src.
# Fails if a file includes a header of a layer above its own.
set -euo pipefail
root=$1
layers=(capi collectives rma selector src)
status=0
for ((i = 1; i < ${#layers[@]}; ++i)); do
  above=$(IFS='|'; echo "${layers[*]:0:i}")
  if grep -nE "#include \"(${above})/" "$root/${layers[i]}"/*.cpp "$root/${layers[i]}"/*.hpp; then
    echo "check_layers: ${layers[i]}/ includes a layer above it (${above})"
    status=1
  fi
done
[ $status -eq 0 ] && echo "check_layers: ok"
exit $status
