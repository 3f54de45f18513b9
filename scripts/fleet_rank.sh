#!/usr/bin/env bash
# One rank of a cluster run: picks its GPU from the launcher's environment and runs gpudissect on
# it, writing its own run file under OUT/<host>-gpu<N>/. Launch one rank per GPU:
#
#   srun --ntasks-per-node=8 --gpus-per-node=8 scripts/fleet_rank.sh OUT [RUN ARGS...]
#   mpirun -np 16 --map-by ppr:8:node scripts/fleet_rank.sh OUT [RUN ARGS...]
#
# then merge every rank's file: gpudissect merge OUT/*/run-*.json --db OUT/fleet.db --out OUT/fleet.md
# The local rank comes from SLURM_LOCALID, OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID (MPICH) or
# LOCAL_RANK; when the launcher already narrowed CUDA_VISIBLE_DEVICES to one GPU, that is device 0.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
exe=${GPUDISSECT:-$root/build/gpudissect}
out=${1:?usage: fleet_rank.sh OUT [RUN ARGS...]}
shift
local_rank=${SLURM_LOCALID:-${OMPI_COMM_WORLD_LOCAL_RANK:-${MPI_LOCALRANKID:-${LOCAL_RANK:-}}}}
if [[ -z $local_rank ]]; then
  echo "fleet_rank: no local rank in the environment (SLURM_LOCALID, OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, LOCAL_RANK): start me through srun or mpirun" >&2
  exit 2
fi
device=$local_rank
visible=${CUDA_VISIBLE_DEVICES:-}
if [[ -n $visible && $visible != *,* ]]; then device=0; fi
dir=$out/$(hostname -s)-gpu$local_rank
mkdir -p "$dir"
exec "$exe" run --device "$device" --out "$dir" --db "$dir/results.db" --no-progress "$@" >"$dir/log.txt" 2>&1
