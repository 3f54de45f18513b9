#!/usr/bin/env bash
# On a GPU host: leaves $BUILD_DIR (default build-gpu/) alone when its binary was built from this
# tree (scripts/source_hash.sh equals `gpudissect --version`'s source sha256), else builds it cold
# with scripts/gpu_cold_build.sh. A warm lease's second call then skips the two-minute build.
#
#   scripts/gpu_build_if_stale.sh [CMAKE CUDA TARGET, default 90a-real]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export BUILD_DIR=${BUILD_DIR:-$root/build-gpu}
tree=$("$root/scripts/source_hash.sh" "$root")
built=$("$BUILD_DIR/gpudissect" --version 2>/dev/null | sed -n 's/^source sha256 //p' || true)
if [[ -n $built && $built == "$tree" ]]; then
  echo "build: $BUILD_DIR/gpudissect is this tree's (${tree:0:12}), not rebuilt"
  exit 0
fi
"$root/scripts/gpu_cold_build.sh" "$@"
