#!/usr/bin/env bash
# Installs what is missing, builds, and runs every probe on the GPU at hand. Writes the run
# (JSON), its Markdown report and CSV under results/, and appends it to results/results.db.
# Extra arguments go to `gpudissect run` (e.g. --quick, --filter memory).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
build=${BUILD_DIR:-$root/build}
"$build/gpudissect" info
exec "$build/gpudissect" run --out "$root/results" "$@"
