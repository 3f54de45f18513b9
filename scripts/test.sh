#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole CPU-only test suite (no GPU needed):
# unit tests, end-to-end CLI tests, code-generation tests, and offline SASS verification of
# every probe for sm_90a, sm_100a and sm_120a.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
build=${BUILD_DIR:-$root/build}
ctest --test-dir "$build" --output-on-failure -j "$(nproc)" --timeout 900
