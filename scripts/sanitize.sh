#!/usr/bin/env bash
# Runs every probe in --quick mode under compute-sanitizer's memcheck, racecheck and synccheck
# (on a machine with a GPU) and prints one summary line per tool. Exits 1 when any tool reports
# an error, 2 when compute-sanitizer or the binary is missing.
#
#   scripts/sanitize.sh [--exe FILE] [--tools memcheck,racecheck] [--out DIR] [-- RUN ARGS...]
#
# RUN ARGS go to `gpudissect run` (e.g. -- --filter latency.alu). Isolated probes run in child
# processes; compute-sanitizer follows them (--target-processes all).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
exe=${GPUDISSECT:-$root/build/gpudissect}
tools=memcheck,racecheck,synccheck
out=${TMPDIR:-/tmp}/gpudissect-sanitize-$$
run_args=()
while (($#)); do
  case $1 in
    --exe) exe=$2; shift 2 ;;
    --tools) tools=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --) shift; run_args=("$@"); break ;;
    *) echo "sanitize: unknown argument '$1' (see the header of $0)" >&2; exit 2 ;;
  esac
done
sanitizer=$(command -v compute-sanitizer || echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer")
[[ -x $sanitizer ]] || { echo "sanitize: compute-sanitizer not found (it comes with the CUDA toolkit)" >&2; exit 2; }
[[ -x $exe ]] || { echo "sanitize: no gpudissect binary at $exe (build first, or --exe FILE)" >&2; exit 2; }
mkdir -p "$out"

failed=0
for tool in ${tools//,/ }; do
  log=$out/$tool.log
  start=$SECONDS
  "$sanitizer" --tool "$tool" --target-processes all --print-limit 20 \
    "$exe" run --quick --no-progress --out "$out/$tool" "${run_args[@]}" >"$log" 2>&1
  rc=$?
  # One ERROR SUMMARY per process the sanitizer followed (the run and each isolated probe).
  errors=$(grep -Eo 'ERROR SUMMARY: [0-9]+ error' "$log" | awk '{s += $3} END {print s + 0}')
  processes=$(grep -c 'ERROR SUMMARY:' "$log")
  records=$(grep -Eo '^[0-9]+ ok, [0-9]+ skipped, [0-9]+ failed' "$log" | tail -1)
  printf '%-10s %s error(s) in %s process(es); run exit %s; %s; %ss; log %s\n' \
    "$tool:" "$errors" "$processes" "$rc" "${records:-no run summary}" "$((SECONDS - start))" "$log"
  if ((processes == 0)); then
    echo "sanitize: $tool produced no summary: the tool did not run (see $log)" >&2
    failed=1
  fi
  ((errors > 0)) && failed=1
done
exit $failed
