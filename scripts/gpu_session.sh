#!/usr/bin/env bash
# One GPU session's worth of checks in one command, each step under its own time limit so the
# whole fits a lease (a killed step keeps its finished records: runs are journalled):
#   full suite run (the dataset) -> quick run -> a repeat of the full run (REPEAT_S) -> `run --ncu` of the pipe probes -> the SM clock by
#   ncu's counters (CLOCK_S) -> PyTorch's GEMM (TORCH_S) -> `--devices all` (when there are several
#   GPUs) -> compute-sanitizer over every category.
# Uses a carried binary (GPUDISSECT_CARRIED_BUILD, checked fresh by scripts/gpu_check.sh's rule)
# or build/gpudissect. Everything lands in $OUT/session.tgz plus $OUT/summary.txt.
#
#   [FULL_ARGS=...] [SANITIZE_TOOLS=...] [SANITIZE_JOBS=N] [SANITIZE_ARGS=...] scripts/gpu_session.sh [FULL_S QUICK_S NCU_S DEVICES_S SANITIZE_S]
# A limit of 0 skips that step.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${OUT:-$root/results/gpu_session}
bin=${GPUDISSECT_CARRIED_BUILD:-$root/build}/gpudissect
full_s=${1:-330} quick_s=${2:-60} ncu_s=${3:-120} devices_s=${4:-60} sanitize_s=${5:-60}
work=$out/session
mkdir -p "$work"
summary=$out/summary.txt
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }

built=$("$bin" --version 2>/dev/null | sed -n 's/^source sha256 //p')
tree=$("$root/scripts/source_hash.sh" "$root")
[[ -n $built && $built == "$tree" ]] || { note "binary $bin is not built from this tree ($built vs $tree)"; exit 1; }
note "binary: $("$bin" --version | head -1), sources ${tree:0:12}"
"$bin" info >"$work/info.txt" 2>&1
nvidia-smi --query-gpu=index,name,clocks.sm,clocks.mem,power.draw,power.limit,temperature.gpu --format=csv >>"$work/info.txt" 2>&1

# step NAME SECONDS ARGS...: a gpudissect command under a time limit, its output in NAME.log.
step() {
  local name=$1 limit=$2 t0=$SECONDS rc
  shift 2
  if ((limit <= 0)); then note "$(printf '%-9s skipped (limit 0)' "$name")"; return; fi
  timeout --signal=INT --kill-after=20 "$limit" "$bin" "$@" >"$work/$name.log" 2>&1
  rc=$?
  note "$(printf '%-9s rc=%-3s %4s s  %s' "$name" "$rc" "$((SECONDS - t0))" "$(grep -hE '^[0-9]+ ok' "$work/$name.log" | tail -1)")"
  grep -hE '^time: ' "$work/$name.log" | tail -1 | sed 's/^/          /' | tee -a "$summary"
}

step verify "${VERIFY_S:-120}" verify --arch sm_90a
# FULL_ARGS: extra run arguments for the full run (e.g. --axis restrictions that fit a lease).
read -r -a full_args <<<"${FULL_ARGS:-}"
step full "$full_s" run --no-progress --out "$work/full" "${full_args[@]}"
step quick "$quick_s" run --quick --no-progress --out "$work/quick"
# A second full run of the same code on the same card (REPEAT_S, default skipped): the pair that
# calibrates compare's false-alarm rate (tests/report/compare_calibration_test.cpp).
step repeat "${REPEAT_S:-0}" run --no-progress --out "$work/repeat" "${full_args[@]}"
step ncu "$ncu_s" run --ncu --ncu-kernel alu_stream_kernel --quick --no-progress --filter 'pipes.interference.*' --out "$work/ncu"
# The SM clock by a second method (issue 25): ncu's cycle counters over the wgmma and FFMA points,
# set against clock64/globaltimer and NVML by scripts/clock_methods.py. CLOCK_S=0 skips it.
clock_s=${CLOCK_S:-0}
step clock "$clock_s" run --ncu --ncu-metric sm__cycles_elapsed.avg.per_second --ncu-metric gpc__cycles_elapsed.avg.per_second \
  --no-progress --out "$work/clock" --filter tensor.wgmma.throughput --filter tensor.wgmma.burst --filter compute.peak.fp32 \
  --axis 'tensor.wgmma.throughput:n=256' --axis 'tensor.wgmma.throughput:op=f16_f32,e4m3_f32,bf16_f32' \
  --axis 'tensor.wgmma.burst:op=f16_f32,e4m3_f32' --axis 'compute.peak.fp32:ilp=4,8'
if ((clock_s > 0)); then
  for j in "$work"/clock/run-*.json; do
    [[ -f $j ]] && python3 "$root/scripts/clock_methods.py" "$j" --json "$work/clock/clock_methods.json" >"$work/clock_methods.log" 2>&1
    grep '^==' "$work/clock_methods.log" | tee -a "$summary"
  done
fi
# PyTorch's matmul under our GEMM protocol (scripts/gemm_torch.py), beside gemm.ceiling.*. TORCH_S=0 skips it.
torch_s=${TORCH_S:-0}
if ((torch_s > 0)) && [[ -f $root/scripts/gemm_torch.py ]]; then
  t0=$SECONDS
  timeout --kill-after=10 "$torch_s" python3 "$root/scripts/gemm_torch.py" --json "$work/gemm_torch.json" >"$work/gemm_torch.log" 2>&1
  note "torch     rc=$? $((SECONDS - t0)) s"
  tail -n 20 "$work/gemm_torch.log" | sed 's/^/  /' >>"$summary"
fi
if ((devices_s > 0 && $(nvidia-smi -L | wc -l) > 1)); then
  step devices "$devices_s" run --devices all --quick --no-progress --filter latency.alu.ffma \
    --filter memory.bandwidth.dram --filter 'links.peer.*' --out "$work/devices"
fi
if ((sanitize_s > 0)) && [[ -x $root/scripts/sanitize.sh ]]; then
  t0=$SECONDS
  # Every category under each tool, one process per category (SANITIZE_TOOLS picks the tools).
  # SANITIZE_ARGS: run arguments narrowing the probes (default: every category, one process each).
  read -r -a sanitize_args <<<"${SANITIZE_ARGS:-}"
  ((${#sanitize_args[@]})) && sanitize_args=(-- "${sanitize_args[@]}")
  timeout --kill-after=20 "$sanitize_s" "$root/scripts/sanitize.sh" --exe "$bin" --out "$work/sanitize" \
    --tools "${SANITIZE_TOOLS:-memcheck,racecheck,synccheck}" --jobs "${SANITIZE_JOBS:-1}" "${sanitize_args[@]}" >"$work/sanitize.log" 2>&1
  note "sanitize  rc=$? $((SECONDS - t0)) s"
  sed 's/^/  /' "$work/sanitize.log" >>"$summary"
fi
for d in full quick ncu clock; do
  for j in "$work/$d"/run-*.jsonl; do
    [[ -f $j && ! -f ${j%.jsonl}.json ]] && "$bin" recover "$j" >>"$work/$d.log" 2>&1 && note "$d: recovered ${j##*/}"
  done
done
find "$work" -name '*.ncu-rep' -delete; find "$work" -name child -type d -exec rm -rf {} + 2>/dev/null
tar czf "$out/session.tgz" -C "$out" session
ls -la "$out/session.tgz" | tee -a "$summary"
cat "$summary"
