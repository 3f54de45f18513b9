#!/usr/bin/env bash
# Prints the hash of the sources a gpudissect binary is built from (cmake/git_revision.cmake
# computes the same at build time and `gpudissect --version` prints it): sha256 over the
# `sha256sum` lines of every file under src/ and cmake/ plus CMakeLists.txt, sorted by path.
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"
{ find src cmake -type f; echo CMakeLists.txt; } | LC_ALL=C sort | while IFS= read -r f; do sha256sum "$f"; done |
  sha256sum | cut -d' ' -f1
