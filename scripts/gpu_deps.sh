#!/usr/bin/env bash
# Gathers what a build needs beyond CUDA, CMake and ninja into one prefix folder (default
# .gpudeps/, ignored by git) to carry to a GPU host that cannot install packages: the JSON and
# CLI11 headers with their CMake configs, SQLite and zlib as static libraries, NVML's header and
# CUTLASS's headers. Run it here after scripts/setup.sh; scripts/gpu_cold_build.sh builds with it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-$root/.gpudeps}
rm -rf "$dest"
mkdir -p "$dest/include" "$dest/lib" "$dest/share/cmake"
copy() { [[ -e $1 ]] || { echo "gpu_deps: $1 is missing (run scripts/setup.sh)" >&2; exit 2; }; cp -r "$1" "$2"; }
copy /usr/include/nlohmann "$dest/include/"
copy /usr/include/CLI "$dest/include/"
copy /usr/share/cmake/nlohmann_json "$dest/share/cmake/"
copy /usr/share/cmake/CLI11 "$dest/share/cmake/"
for h in sqlite3.h zlib.h zconf.h; do copy "/usr/include/$h" "$dest/include/"; done
lib=/usr/lib/$(gcc -print-multiarch)
copy "$lib/libsqlite3.a" "$dest/lib/"
copy "$lib/libz.a" "$dest/lib/"
nvml=$(ls /usr/local/cuda/include/nvml.h "$root"/.venv/lib/python3*/site-packages/nvidia/*/include/nvml.h \
  "$(python3 -c 'import nvidia; print(nvidia.__path__[0])' 2>/dev/null)"/*/include/nvml.h 2>/dev/null | head -1 || true)
[[ -n $nvml ]] || { echo "gpu_deps: no nvml.h found (scripts/setup.sh installs it)" >&2; exit 2; }
copy "$nvml" "$dest/include/"
cutlass=$(ls -d "$root"/.venv/lib/python3*/site-packages/cutlass_library/source/include 2>/dev/null | head -1)
[[ -n $cutlass ]] || { echo "gpu_deps: no CUTLASS headers in .venv (run scripts/setup.sh)" >&2; exit 2; }
mkdir -p "$dest/cutlass" && cp -r "$cutlass" "$dest/cutlass/"
du -sh "$dest"
