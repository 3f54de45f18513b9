#!/usr/bin/env bash
# Installs what is missing, builds, and runs every probe on the GPU at hand. Writes the run
# (JSON), its Markdown report and CSV under results/, and appends it to results/results.db.
# Extra arguments go to `gpudissect run` (e.g. --quick, --filter memory).
#
# The build is for the GPU that is present: its arch-specific target only (sm_90a on a Hopper,
# sm_100a, sm_120a; the generic sm_80 code on an Ampere or Ada), without the tests, in
# build-<target>/. The probes and their SASS checks for that chip are the same as in the
# all-target build that CI tests. GPUDISSECT_ALL_TARGETS=1 (or no GPU that nvidia-smi can name)
# builds every target into build/ instead; BUILD_DIR names another folder.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"

# The CMake CUDA target for a compute capability "major.minor"; empty: build every target.
target_for() {
  case "$1" in
    9.0) echo 90a-real ;;
    10.0) echo 100a-real ;;
    12.0) echo 120a-real ;;
    8.*) echo 80 ;;
    *) echo "" ;;
  esac
}
target=""
if [[ ${GPUDISSECT_ALL_TARGETS:-0} != 1 ]] && command -v nvidia-smi >/dev/null 2>&1; then
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 | tr -d ' ' || true)
  target=$(target_for "$cc")
  [[ -n $cc && -z $target ]] && echo "run_suite: no single target for compute capability $cc; building every target"
fi
if [[ -n $target ]]; then
  export BUILD_DIR=${BUILD_DIR:-$root/build-${target%-real}}
  echo "run_suite: building for this GPU's target ($target) in $BUILD_DIR"
  "$root/scripts/build.sh" -DGPUDISSECT_CUDA_ARCHITECTURES="$target" -DGPUDISSECT_BUILD_TESTS=OFF
else
  "$root/scripts/build.sh"
fi
build=${BUILD_DIR:-$root/build}
"$build/gpudissect" info
exec "$build/gpudissect" run --out "$root/results" "$@"
