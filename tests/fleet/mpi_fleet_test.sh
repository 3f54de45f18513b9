#!/usr/bin/env bash
# A cluster run through a real MPI launcher on the CPU: mpirun starts two ranks of
# scripts/fleet_rank.sh; each picks its device from OMPI_COMM_WORLD_LOCAL_RANK and runs a fake
# gpudissect (a stand-in for the GPU run: it writes a run file for its device, rank 1 with a
# metric 30 % off); then the real `gpudissect merge` builds one database and a fleet report that
# must hold both GPUs and flag rank 1's outlier.
#   mpi_fleet_test.sh GPUDISSECT FIXTURE_RUN.json
set -euo pipefail
gd=${1:?usage: mpi_fleet_test.sh GPUDISSECT FIXTURE_RUN.json}
fixture=${2:?usage: mpi_fleet_test.sh GPUDISSECT FIXTURE_RUN.json}
root=$(cd "$(dirname "$0")/../.." && pwd)
command -v mpirun >/dev/null || { echo "mpi_fleet_test: mpirun not found (scripts/setup.sh installs openmpi-bin)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/fake-gpudissect" <<STUB
#!/usr/bin/env bash
# Accepts what fleet_rank.sh passes: run --device N --out DIR ... ; writes DIR/run-fake.json.
set -euo pipefail
[[ \$1 == run ]] || { echo "fake: expected 'run', got '\$1'" >&2; exit 2; }
device= out=
while ((\$#)); do case \$1 in --device) device=\$2; shift 2 ;; --out) out=\$2; shift 2 ;; *) shift ;; esac; done
python3 - "$fixture" "\$out/run-fake.json" "\$device" <<'PY'
import json, sys
src, dst, device = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = json.load(open(src))
d["device"]["index"] = device
d["device"]["uuid"] = "GPU-fake-%d" % device
d["run_id"] = "fake-%d" % device
if device == 1:
    for r in d["records"]:
        for m in r.get("metrics", []):
            if m.get("name", "").startswith("bandwidth/"):
                for k in ("value", "median", "mean", "min", "max"):
                    if isinstance(m.get(k), (int, float)): m[k] *= 0.7
json.dump(d, open(dst, "w"))
PY
STUB
chmod +x "$work/fake-gpudissect"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm_rsh_agent=false
GPUDISSECT="$work/fake-gpudissect" mpirun --oversubscribe -np 2 "$root/scripts/fleet_rank.sh" "$work/fleet" --quick
runs=("$work"/fleet/*/run-fake.json)
((${#runs[@]} == 2)) || { echo "mpi_fleet_test: expected 2 rank run files, found ${#runs[@]}" >&2; ls -R "$work/fleet" >&2; exit 1; }
"$gd" merge "${runs[@]}" --db "$work/fleet.db" --out "$work/fleet.md"
grep -q "GPU-fake-0" "$work/fleet.md" && grep -q "GPU-fake-1" "$work/fleet.md" ||
  { echo "mpi_fleet_test: the fleet report does not name both GPUs" >&2; cat "$work/fleet.md" >&2; exit 1; }
grep -qi "outlier" "$work/fleet.md" || { echo "mpi_fleet_test: no outlier flagged" >&2; exit 1; }
echo "mpi_fleet_test: 2 MPI ranks merged into one database; report names both GPUs and flags the outlier"
