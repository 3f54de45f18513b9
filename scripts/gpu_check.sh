#!/usr/bin/env bash
# On a machine with a GPU: build, then `info`, offline SASS verification for the chip, a quick
# run and a full run of every probe, the CSV report, and the headline numbers. Every step is
# checked: after a failure the script goes on to collect the other logs, then prints one line per
# step with its exit code (last), and exits non-zero if any step failed.
#
#   scripts/gpu_check.sh [RUN ARGS...]          builds with scripts/build.sh ($BUILD_DIR or build/);
#                                               RUN ARGS go to the full run (e.g. --filter memory)
#   GPUDISSECT_CARRIED_BUILD=DIR scripts/gpu_check.sh
#                                               uses DIR/gpudissect, built elsewhere, and refuses it
#                                               if it was not built from this tree (see is_fresh)
#   GPUDISSECT_ALLOW_STALE=1                    runs a stale carried binary anyway, and says so
#   GPUDISSECT_NCU_FILTER="GLOB ..."            adds a quick `run --ncu` of these probes (counters
#                                               beside timings; needs ncu)
#
# Logs and run files go to $OUT (or results/gpu_check).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/results/gpu_check}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"

# ------------------------------------------------------------------------------ step records
names=() rcs=() notes=()
record() { names+=("$1"); rcs+=("$2"); notes+=("${3:-}"); }

# step NAME LOG CMD...: runs CMD with its output in LOG and records its exit code and duration.
step() {
  local name=$1 log=$2 t0=$SECONDS rc
  shift 2
  "$@" > "$log" 2>&1
  rc=$?
  record "$name" "$rc" "$(basename "$log"), $((SECONDS - t0)) s"
  return "$rc"
}

summary() {
  local failed=() i
  echo
  echo "== gpu_check: ${binary_note:-no binary}"
  for i in "${!names[@]}"; do
    printf '%-10s rc=%-3s %s\n' "${names[$i]}" "${rcs[$i]}" "${notes[$i]}"
    [[ ${rcs[$i]} == 0 ]] || failed+=("${names[$i]}")
  done
  if ((${#failed[@]})); then
    echo "== FAILED: ${failed[*]} (logs in $out)"
    return 1
  fi
  echo "== all steps passed (logs in $out)"
}

# -------------------------------------------------------------------------- binary freshness
# The hash of the sources a binary was built from, as its --version prints it.
binary_source_hash() { "$1" --version 2>/dev/null | sed -n 's/^source sha256 //p' | tail -n 1; }

# Succeeds when binary $1 was built from exactly this tree's sources; otherwise prints why not.
# The hash covers src/, cmake/ and CMakeLists.txt by content (scripts/source_hash.sh), so it
# holds on a copy of the tree without .git or with other file times (a GPU machine).
is_fresh() {
  local built tree
  built=$(binary_source_hash "$1")
  tree=$("$root/scripts/source_hash.sh" "$root") || { echo "cannot hash the sources in $root"; return 1; }
  [[ -n $built ]] || { echo "the binary prints no source hash (built before source hashes existed)"; return 1; }
  [[ $built == "$tree" ]] || { echo "binary built from sources ${built:0:12}, this tree's are ${tree:0:12}"; return 1; }
}

# Sets $bin to a binary built from this tree, recording a "build" step; fails if there is none.
get_binary() {
  if [[ -z ${GPUDISSECT_CARRIED_BUILD:-} ]]; then
    bin=${BUILD_DIR:-$root/build}/gpudissect
    step build "$out/build.log" "$root/scripts/build.sh" || return 1
    binary_note="built here: $("$bin" --version)"
    return 0
  fi
  bin=$GPUDISSECT_CARRIED_BUILD/gpudissect
  if [[ ! -x $bin ]]; then
    record build 1 "no executable $bin (GPUDISSECT_CARRIED_BUILD)"
    return 1
  fi
  local why fresh=0
  why=$(is_fresh "$bin") || fresh=1
  why=${why//$'\n'/; }
  if ((fresh == 0)); then
    record build 0 "carried build $bin, fresh${why:+ ($why)}"
    binary_note="carried: $("$bin" --version)"
  elif [[ ${GPUDISSECT_ALLOW_STALE:-} == 1 ]]; then
    echo "!!! STALE BINARY IN USE (GPUDISSECT_ALLOW_STALE=1): $why" >&2
    echo "!!! its numbers may not belong to this tree's code" >&2
    record build 0 "carried build $bin, STALE, allowed by GPUDISSECT_ALLOW_STALE=1: $why"
    binary_note="STALE carried binary (allowed): $("$bin" --version)"
  else
    record build 1 "carried build $bin is stale: $why (rebuild, or set GPUDISSECT_ALLOW_STALE=1)"
    return 1
  fi
}

# run_into NAME ARGS...: a gpudissect run into $work/NAME, its run file and report copied to $out
# even when the run failed (a failed probe still leaves the others' records); returns the run's
# exit code, or 1 when it wrote no run file.
run_into() {
  local name=$1 rc
  shift
  "$bin" run --no-progress --out "$work/$name" "$@"
  rc=$?
  local json=("$work/$name"/run-*.json)
  if [[ ! -f ${json[0]} ]]; then
    echo "the run wrote no run file"
    return $((rc ? rc : 1))
  fi
  cp "${json[0]}" "$out/$name.json" && cp "$work/$name"/run-*.md "$out/$name.md" || return 1
  return "$rc"
}

# Prints the SASS architecture of the code the runtime loaded, from `info --json`.
loaded_arch() {
  "$bin" info --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["arch_code_loaded"])'
}

# ------------------------------------------------------------------------------------ steps
if ! get_binary; then
  summary
  exit 1
fi
"$bin" --version
step info "$out/info.txt" "$bin" info
cat "$out/info.txt"
if arch=$(loaded_arch 2>/dev/null) && [[ -n $arch ]]; then
  step verify "$out/verify.txt" "$bin" verify --arch "$arch"
else
  step verify "$out/verify.txt" "$bin" verify  # no chip to ask: every arch in the binary
  notes[-1]+=", every arch (the loaded one is unknown)"
fi
step quick "$out/quick.log" run_into quick --quick
step full "$out/full.log" run_into full "$@"
if [[ -n ${GPUDISSECT_NCU_FILTER:-} ]]; then
  ncu_args=()
  for f in $GPUDISSECT_NCU_FILTER; do ncu_args+=(--filter "$f"); done
  step ncu "$out/ncu.log" run_into ncu --ncu --quick "${ncu_args[@]}"
fi
step report "$out/report.log" "$bin" report "$out/full.json" --format csv --out "$out/full.csv"
step summarize "$out/summary.txt" python3 "$root/scripts/summarize_run.py" "$out/full.json"

echo
tail -n 1 "$out/verify.txt"
grep -hE '^[0-9]+ ok' "$out/quick.log" "$out/full.log" "$out"/ncu.log 2>/dev/null
cat "$out/summary.txt"
summary
