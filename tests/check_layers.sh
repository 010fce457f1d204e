#!/usr/bin/env bash
# One layer per folder, top to bottom:
#   intercept    the drop-in: standard MPI calls served through the C API
#   capi         the C API: converts handles and exceptions, nothing else
#   collectives  collective families (collectives/<family>/: one file per
#                algorithm) and the machinery they share
#   rma          the window layer: MPIX_Win, epochs, flushes, memory handles
#   node         the node transport: channel, shared segments, single copy
#   selector     pure choice: cost model, tuning file, tournament rules
#   src          communicator, configuration, errors, requests, resources
# A file may include headers of its own layer and of the layers below it,
# never above. Fails on the first upward include it finds.
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
[ $status -eq 0 ] && echo "check_layers: ok"
exit $status
