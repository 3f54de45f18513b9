#!/usr/bin/env bash
# Installs what building gpudissect needs and is missing: Debian/Ubuntu packages through apt,
# the NVML header and the CUDA disassemblers through pip where the CUDA toolkit lacks them, and
# the reading side's Python (pandas, matplotlib, markdown-it-py, pytest) and CUTLASS's headers in a
# venv of the checkout (.venv).
# Idempotent: a machine that has everything installs nothing (and needs no network).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

need_apt=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
# chromium-headless-shell: the tests open the HTML report in it, as a reader would.
# clang and its runtime (libFuzzer, sanitizers) build the fuzz targets (scripts/fuzz.sh).
# openmpi-bin: the fleet test launches scripts/fleet_rank.sh through a real mpirun.
for pkg in cmake ninja-build ccache g++ libcli11-dev nlohmann-json3-dev libsqlite3-dev zlib1g-dev libgtest-dev chromium-headless-shell clang libclang-rt-dev openmpi-bin; do
  have_pkg "$pkg" || need_apt+=("$pkg")
done
# pip may come from pyenv or a venv rather than Debian's python3-pip.
python3 -m pip --version >/dev/null 2>&1 || need_apt+=(python3-pip)
python3 -c "import ensurepip, venv" >/dev/null 2>&1 || need_apt+=(python3-venv)
if ((${#need_apt[@]})); then
  echo "setup: installing ${need_apt[*]}"
  sudo_cmd=""
  [[ $(id -u) -ne 0 ]] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${need_apt[@]}"
fi

if ! command -v nvcc >/dev/null 2>&1 && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  echo "setup: error: the CUDA toolkit (nvcc) is required and cannot be installed by this script" >&2
  exit 1
fi

cuda_home=${CUDA_HOME:-/usr/local/cuda}
# Versions pinned so every machine builds and disassembles with the same tools.
pip_pkgs=()
[[ -f $cuda_home/include/nvml.h ]] || pip_pkgs+=("nvidia-nvml-dev==13.0.87")
command -v cuobjdump >/dev/null 2>&1 || [[ -x $cuda_home/bin/cuobjdump ]] || pip_pkgs+=("nvidia-cuda-cuobjdump==13.2.51")
command -v nvdisasm >/dev/null 2>&1 || [[ -x $cuda_home/bin/nvdisasm ]] || pip_pkgs+=("nvidia-cuda-nvdisasm==13.2.51")
if ((${#pip_pkgs[@]})); then
  missing=()
  for spec in "${pip_pkgs[@]}"; do
    python3 -m pip show -q "${spec%%==*}" >/dev/null 2>&1 || missing+=("$spec")
  done
  if ((${#missing[@]})); then
    echo "setup: pip installing ${missing[*]}"
    python3 -m pip install -q --disable-pip-version-check "${missing[@]}" ||
      python3 -m pip install -q --disable-pip-version-check --break-system-packages "${missing[@]}"
  fi
fi

# The HTML report's figures (python/gpudissect) and its tests. The binary finds this venv beside
# python/; GPUDISSECT_PYTHON names another interpreter.
# Versions pinned by python/constraints.txt (python/pyproject.toml declares the dependencies), so
# the figures are drawn by the same libraries on every machine; a venv holding others is brought
# to the pins.
venv=$root/.venv
constraints=$root/python/constraints.txt
pins_held() {
  "$venv/bin/python3" - "$constraints" <<'PY' >/dev/null 2>&1
import importlib.metadata as m, sys
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if line:
        name, version = line.split("==")
        assert m.version(name) == version
PY
}
if ! pins_held; then
  echo "setup: installing pandas, matplotlib, markdown-it-py, pytest and jsonschema (versions of python/constraints.txt) into $venv"
  [[ -x $venv/bin/python3 ]] || python3 -m venv "$venv"
  "$venv/bin/python3" -m pip install -q --disable-pip-version-check -c "$constraints" pandas matplotlib markdown-it-py pytest jsonschema
fi

# CUTLASS's C++ headers, for gemm.ceiling.cutlass's own GEMM kernels: CMake finds them in this venv
# (GPUDISSECT_CUTLASS_DIR names another copy). Only the headers are used, so pip skips the wheel's
# Python dependencies.
cutlass_version=4.2.0.0
if [[ $("$venv/bin/python3" -c "import importlib.metadata as m; print(m.version('nvidia-cutlass'))" 2>/dev/null) != "$cutlass_version" ]]; then
  echo "setup: installing the CUTLASS headers (nvidia-cutlass==$cutlass_version) into $venv"
  "$venv/bin/python3" -m pip install -q --disable-pip-version-check --no-deps "nvidia-cutlass==$cutlass_version"
fi
