#!/usr/bin/env bash
# Rewrites the generated tables of README.md and docs/ from the code (the
# variables and algorithms, through build/mpix_info) and from the committed
# reports (the headline); the docs.generated_tables test checks them.
# Builds first if needed: scripts/update_docs.sh [build folder].
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
[ -x "$build/mpix_info" ] || "$root/scripts/build.sh" "$build" >/dev/null
/usr/bin/python3 "$root/docs/generated_tables.py" --update --mpix-info "$build/mpix_info" --root "$root"
