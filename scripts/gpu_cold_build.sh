#!/usr/bin/env bash
# A cold build of the suite for the GPU at hand (its arch-specific target, no tests, as
# scripts/run_suite.sh builds it), with no compiler cache, on a host that cannot install
# packages: the prefix from scripts/gpu_deps.sh (carried as .gpudeps/) supplies the rest.
# Prints the configure and build wall times last. BUILD_DIR (default build-gpu/) is emptied first;
# CMAKE_ARGS adds configure options (e.g. -DGPUDISSECT_UNITY_BATCH=4, to compare unit sizes).
#
#   scripts/gpu_cold_build.sh [CMAKE CUDA TARGET, default 90a-real]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
deps=${DEPS:-$root/.gpudeps}
build=${BUILD_DIR:-$root/build-gpu}
target=${1:-90a-real}
[[ -d $deps/include/nlohmann ]] || { echo "gpu_cold_build: no dependency prefix at $deps (scripts/gpu_deps.sh)" >&2; exit 2; }
rm -rf "$build"
export CCACHE_DISABLE=1
t0=$(date +%s.%N)
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGPUDISSECT_CUDA_ARCHITECTURES="$target" \
  -DGPUDISSECT_BUILD_TESTS=OFF -DGPUDISSECT_CCACHE=OFF -DCMAKE_PREFIX_PATH="$deps" -DNVML_INCLUDE_DIR="$deps/include" \
  -DGPUDISSECT_CUTLASS_DIR="$deps/cutlass/include" ${CMAKE_ARGS:-} >"$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 2; }
t1=$(date +%s.%N)
ninja -C "$build" -j "$(nproc)" >"$build.ninja.log" 2>&1 || { tail -40 "$build.ninja.log"; exit 1; }
t2=$(date +%s.%N)
# The ten longest units (.ninja_log: start and end in ms, then the output), issue 35's figure.
echo "longest units (s):"
awk 'NR > 1 { printf "%8.1f  %s\n", ($2 - $1) / 1000, $4 }' "$build/.ninja_log" | sort -rn | head -10
awk -v a="$t0" -v b="$t1" -v c="$t2" -v t="$target" -v n="$(nproc)" \
  -v x="${CMAKE_ARGS:-}" 'BEGIN { printf "cold build (%s %s, %s cores, no ccache): configure %.1f s, build %.1f s\n", t, x, n, b - a, c - b }'
