#!/usr/bin/env bash
# Issue 33's evidence on a GPU: a run beside another tenant (scripts/gpu_tenant.py, bf16 GEMMs)
#   1. tenant started 8 s before: the default run refuses (exit 75) in under 2 s
#   2. the same with --allow-busy: the share of points flagged contended (bar: 95 %)
#   3. tenant started 20 s into a run: points after it flagged, points before not
#   4. the run alone: no point flagged
#   5. a second run started on the same card during 4: it refuses (exit 75), and 4 stays clean
# Quick runs throughout. Logs and run files under $OUT/shared; the summary is printed last.
#   GPUDISSECT_CARRIED_BUILD=DIR OUT=DIR scripts/shared_gpu_check.sh
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/results}/shared
bin=${GPUDISSECT_CARRIED_BUILD:-$root/build}/gpudissect
mkdir -p "$out"
summary=$out/summary.txt
: >"$summary"
note() { echo "$*" | tee -a "$summary" >/dev/null; }

# tenant SECONDS NAME: starts the tenant in the background and waits until it computes.
tenant() {
  rm -f "$out/$2.ready"
  python3 "$root/scripts/gpu_tenant.py" "$1" "$out/$2.ready" >"$out/$2.log" 2>&1 &
  tenant_pid=$!
  while [[ ! -e $out/$2.ready ]] && kill -0 "$tenant_pid" 2>/dev/null; do sleep 0.1; done
}
# runq NAME ARGS...: a quick run into $out/NAME, its exit code and wall time noted.
runq() {
  local name=$1 t0 rc ms
  shift
  t0=$(date +%s%N)
  "$bin" run --quick --no-progress --out "$out/$name" "$@" >"$out/$name.log" 2>&1
  rc=$?
  ms=$((($(date +%s%N) - t0) / 1000000))
  note "$(printf '%-8s exit %-3s %d.%03d s  %s' "$name" "$rc" $((ms / 1000)) $((ms % 1000)) "$(grep -hE '^[0-9]+ ok' "$out/$name.log" | tail -1)")"
}

# 1 + 2: the tenant runs through both.
tenant 200 tenant1
sleep 8
runq refuse
note "  refusal: $(grep -m1 'error:' "$out/refuse.log" | cut -c1-400)"
runq busy --allow-busy
kill "$tenant_pid" 2>/dev/null; wait "$tenant_pid" 2>/dev/null
sleep 2

# 3: the tenant arrives 20 s into the run.
"$bin" run --quick --no-progress --out "$out/late" >"$out/late.log" 2>&1 &
run_pid=$!
sleep 20
tenant 150 tenant3
note "late     tenant computing from $(date +%s.%N) (run pid $run_pid)"
wait "$run_pid"
note "late     exit $? $(grep -hE '^[0-9]+ ok' "$out/late.log" | tail -1)"
kill "$tenant_pid" 2>/dev/null; wait "$tenant_pid" 2>/dev/null
sleep 2

# 4 + 5: alone, and a second run on the same card 10 s in.
"$bin" run --quick --no-progress --out "$out/alone" >"$out/alone.log" 2>&1 &
run_pid=$!
sleep 10
runq second
note "  second: $(grep -m1 'error:' "$out/second.log" | cut -c1-300)"
wait "$run_pid"
note "alone    exit $? $(grep -hE '^[0-9]+ ok' "$out/alone.log" | tail -1)"

python3 "$root/scripts/summarize_contention.py" "$out" | tee -a "$summary" >/dev/null
tar -C "$out/.." -czf "$out/../shared.tgz" shared
cat "$summary"
