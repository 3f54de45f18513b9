#!/usr/bin/env bash
# Runs every probe in --quick mode, each point measured once (--single-sample; --functional for
# the tools --functional-tools names: the tools slow kernels a hundredfold) under compute-sanitizer's memcheck, racecheck and synccheck
# (on a machine with a GPU) and prints one summary line per tool, decided by compute-sanitizer's exit
# code and counted from its XML records (scripts/sanitizer_xml.py). Exits 1 when any tool reports
# an error, 2 when compute-sanitizer or the binary is missing.
#
#   scripts/sanitize.sh [--exe FILE] [--tools memcheck,racecheck] [--jobs N] [--out DIR]
#                       [--group-depth D | --groups G1,G2...] [--exclude-kernels SUBSTRING]
#                       [--exclude-from TOOLS] [--racecheck-skip IDS] [--functional-tools TOOLS]
#                       [-- RUN ARGS...]
#
# --functional-tools (default: racecheck) runs those tools' probes with `run --functional`
# instead of --single-sample: every kernel at the smallest size that still runs all of its code
# (a few blocks, one short trip, small buffers). Racecheck's cost grows with blocks and
# shared-memory traffic: at the measuring sizes five groups of streaming probes did not finish in
# ten minutes on an H200 (cp.async 4 of 84 points). memcheck and synccheck keep the measuring
# sizes, where index arithmetic over gigabyte buffers is what memcheck can catch.
#
# Without RUN ARGS every probe runs, one process per group of probe ids sharing their first D
# dotted parts (--group-depth, default 2: tensor.wgmma, power.idle, ...; 1 = one per category):
# the heavy categories' probes then run side by side, and a group that outlasts the caller's time
# limit loses only its own summary. --groups names the groups instead (dotted id prefixes, one
# process each): a rerun of the groups that failed or were cut off.
#
# --exclude-kernels (default: nvjet) leaves kernels whose name contains SUBSTRING out of the
# tools named by --exclude-from (default: racecheck,synccheck). cuBLAS's own Hopper GEMM kernels
# (nvjet_sm90_*) are NVIDIA's library code that we can neither see nor fix: they synchronise
# through TMA and mbarriers that racecheck does not follow (it reports hazards inside them), and
# under synccheck the GEMM-load probes did not finish an 8192^3 call within minutes (with nvjet
# left out, each of those groups finishes in under a minute). memcheck still checks them. An empty SUBSTRING checks every kernel under every tool.
#
# --racecheck-skip (default: gemm.ceiling.cublas,power.gemm_efficiency,power.clock_response)
# leaves probes (ids or dotted prefixes, comma-separated) out of racecheck: those three launch
# cuBLAS's nvjet kernels only (clock_response in quick mode), and under racecheck an 8192^3 nvjet
# call ends in "Internal Sanitizer Error: The Sanitizer failed to handle a hardware exception"
# and an illegal address, even with nvjet left out of its checking; memcheck and synccheck run
# them clean. Racecheck looks at shared memory only, and none of our code runs in those points.
# The rest of a group still runs; the summary names what was skipped. An empty value skips none.
#
# --jobs N runs N sanitizer processes at once (default 1), over every tool and group together
# (racecheck's first: it is the slowest), so one slow group does not hold the next tool back.
# The tools spend most of their time on the host side, so a 16-core machine with one GPU finishes
# several times sooner; the probes' numbers are meaningless under a sanitizer anyway (it is errors
# that count here), but probes that allocate most of the GPU's memory may then fail for memory,
# which their logs say.
#
# RUN ARGS go to `gpudissect run` (e.g. -- --filter latency.alu). Isolated probes run in child
# processes; compute-sanitizer follows them (--target-processes all).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
exe=${GPUDISSECT:-$root/build/gpudissect}
tools=memcheck,racecheck,synccheck
out=${TMPDIR:-/tmp}/gpudissect-sanitize-$$
jobs=1
exclude_kernels=nvjet
exclude_from=racecheck,synccheck
racecheck_skip=gemm.ceiling.cublas,power.gemm_efficiency,power.clock_response
functional_tools=racecheck
print_limit=20
error_exit=86  # compute-sanitizer's exit code when it found an error (--error-exitcode)
depth=2
groups=
run_args=()
while (($#)); do
  case $1 in
    --exe) exe=$2; shift 2 ;;
    --tools) tools=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --exclude-kernels) exclude_kernels=$2; shift 2 ;;
    --exclude-from) exclude_from=$2; shift 2 ;;
    --racecheck-skip) racecheck_skip=$2; shift 2 ;;
    --functional-tools) functional_tools=$2; shift 2 ;;
    --group-depth) depth=$2; shift 2 ;;
    --groups) groups=$2; shift 2 ;;
    --) shift; run_args=("$@"); break ;;
    *) echo "sanitize: unknown argument '$1' (see the header of $0)" >&2; exit 2 ;;
  esac
done
sanitizer=$(command -v compute-sanitizer || echo "${CUDA_HOME:-/usr/local/cuda}/bin/compute-sanitizer")
[[ -x $sanitizer ]] || { echo "sanitize: compute-sanitizer not found (it comes with the CUDA toolkit)" >&2; exit 2; }
[[ -x $exe ]] || { echo "sanitize: no gpudissect binary at $exe (build first, or --exe FILE)" >&2; exit 2; }
[[ $exclude_kernels =~ ^[A-Za-z0-9_]*$ ]] ||
  { echo "sanitize: --exclude-kernels takes one kernel-name substring (letters, digits, _), not '$exclude_kernels'" >&2; exit 2; }
for t in ${tools//,/ } ${exclude_from//,/ } ${functional_tools//,/ }; do
  [[ $t == memcheck || $t == racecheck || $t == synccheck || $t == initcheck ]] ||
    { echo "sanitize: '$t' is not a compute-sanitizer tool (memcheck, racecheck, synccheck, initcheck)" >&2; exit 2; }
done
[[ $depth =~ ^[1-9]$ ]] || { echo "sanitize: --group-depth takes 1 to 9, not '$depth'" >&2; exit 2; }
[[ $jobs =~ ^[1-9][0-9]*$ ]] || { echo "sanitize: --jobs takes a positive integer, not '$jobs'" >&2; exit 2; }
mkdir -p "$out"

# Without RUN ARGS, one sanitizer process per group and tool: the lines say which groups finished.
if ((${#run_args[@]})); then
  selections=("")
elif [[ -n $groups ]]; then
  [[ $groups =~ ^[A-Za-z0-9_.,-]+$ ]] || { echo "sanitize: --groups takes dotted id prefixes separated by commas, not '$groups'" >&2; exit 2; }
  IFS=, read -r -a selections <<<"$groups"
else
  mapfile -t selections < <("$exe" list 2>/dev/null |
    awk -v d="$depth" '{n = split($1, p, "."); g = p[1]; for (i = 2; i <= d && i <= n; ++i) g = g "." p[i]; print g}' | sort -u)
  ((${#selections[@]})) || { echo "sanitize: '$exe list' named no probe" >&2; exit 2; }
fi

[[ $racecheck_skip =~ ^[A-Za-z0-9_.,-]*$ ]] ||
  { echo "sanitize: --racecheck-skip takes probe ids or dotted prefixes separated by commas, not '$racecheck_skip'" >&2; exit 2; }
mapfile -t all_ids < <("$exe" list 2>/dev/null | awk '{print $1}')
racecheck_skips() {  # is probe id $1 one --racecheck-skip names?
  local g
  for g in ${racecheck_skip//,/ }; do [[ $1 == "$g" || $1 == "$g".* ]] && return 0; done
  return 1
}

# One group under one tool; prints its line as soon as it ends (a caller's time limit that cuts
# the run short keeps the lines of the groups that finished). The group is a dotted id prefix.
sanitize_one() {
  local tool=$1 sel=$2 name=${2:-selected}
  local args=("${run_args[@]}") log=$out/$1-${2:-selected}.log
  local t0=$SECONDS
  [[ -n $sel ]] && args=(--filter "$sel")
  # Under racecheck a group loses the probes --racecheck-skip names: the rest run by their ids.
  local skipped=()
  if [[ $tool == racecheck && -n $racecheck_skip && -n $sel ]]; then
    local keep=() id
    for id in "${all_ids[@]}"; do
      [[ $id == "$sel" || $id == "$sel".* ]] || continue
      if racecheck_skips "$id"; then skipped+=("$id"); else keep+=(--filter "$id"); fi
    done
    if ((${#skipped[@]})) && ((${#keep[@]} == 0)); then
      echo "0 -1 skipped" >"$out/$tool-$name.result"
      printf '  %-9s %-22s skipped: --racecheck-skip names every probe of the group\n' "$tool" "$name"
      return
    fi
    ((${#skipped[@]})) && args=("${keep[@]}")
  fi
  local filter=() mode=--single-sample
  [[ -n $exclude_kernels && ,$exclude_from, == *,$tool,* ]] && filter=(--kernel-name-exclude "kns=$exclude_kernels")
  [[ ,$functional_tools, == *,$tool,* ]] && mode=--functional
  # The verdict is compute-sanitizer's own: its exit code (--error-exitcode) says whether it found
  # an error, its XML records (--xml --save, one document per process: %p is the pid) say how
  # many; its text log is kept for reading.
  rm -f "$out/$tool-$name".*.xml
  "$sanitizer" --tool "$tool" --target-processes all --print-limit "$print_limit" --error-exitcode "$error_exit" \
    --xml --save "$out/$tool-$name.%p.xml" "${filter[@]}" \
    "$exe" run --quick "$mode" --no-progress --out "$out/$tool-$name" "${args[@]}" >"$log" 2>&1
  local rc=$?
  # Errors, processes that wrote their document, racecheck reports set aside, documents cut off.
  # racecheck models barriers, not the memory model: a flag passed through shared memory by a
  # release store and an acquire load is reported as a race although it is correct (the
  # reproducer: scripts/experiments/racecheck_release_acquire.cu, flagged on an H200 while its
  # barrier-synchronised twin is not). A report whose every access is one of our release/acquire
  # helpers (gd::ptx::st_release_*, ld_acquire_*) is set aside and counted apart, never silently;
  # any other access in the report keeps it an error. At the print limit nothing is set aside
  # (a report not written could be a real one). Other tools set nothing aside.
  local e p ra cut below=0
  [[ $tool == racecheck ]] && below=$print_limit
  local docs=()
  mapfile -t docs < <(compgen -G "$out/$tool-$name.*.xml")
  read -r e p ra cut < <(python3 "$root/scripts/sanitizer_xml.py" --set-aside-below "$below" "${docs[@]}")
  # The exit code and the records must agree: an error code without a record (or a record
  # without the code) is counted as an error, not trusted either way.
  local found=$((e + ra > 0 ? 1 : 0)) said=$((rc == error_exit ? 1 : 0))
  if ((found != said)); then
    echo "sanitize: $tool $name: exit $rc but $((e + ra)) error record(s) in $p document(s): they disagree" >>"$log"
    ((e == 0)) && e=1
  fi
  ((cut > 0)) && echo "sanitize: $tool $name: $cut XML document(s) cut off (a process killed before it finished)" >>"$log"
  echo "$e $p $rc $ra" >"$out/$tool-$name.result"
  printf '  %-9s %-22s %s error(s) in %s process(es); exit %s; %4s s %s; %s%s%s\n' "$tool" "$name" "$e" "$p" "$rc" \
    "$((SECONDS - t0))" "${mode#--}" "$(grep -Eo '^[0-9]+ ok, [0-9]+ skipped, [0-9]+ failed' "$log" | tail -1)" \
    "${skipped[*]:+; not run under racecheck: ${skipped[*]}}" \
    "$( ((ra > 0)) && echo "; $ra release/acquire report(s) set aside (racecheck does not model them)")"
}
trap 'kill $(jobs -p) 2>/dev/null; exit 143' TERM INT

# Every (tool, group) pair in one pool of --jobs processes, racecheck's first.
ordered=()
for t in racecheck synccheck memcheck initcheck; do [[ ,$tools, == *,$t,* ]] && ordered+=("$t"); done
start=$SECONDS
for tool in "${ordered[@]}"; do
  for sel in "${selections[@]}"; do
    while (($(jobs -rp | wc -l) >= jobs)); do wait -n; done
    sanitize_one "$tool" "$sel" &
  done
done
wait

failed=0
for tool in "${ordered[@]}"; do
  errors=0 processes=0 set_aside=0 done_cats=() missing=() skipped_groups=()
  for sel in "${selections[@]}"; do
    name=${sel:-selected}
    read -r e p rc ra <"$out/$tool-$name.result" 2>/dev/null || { e=0 p=0 rc="?" ra=0; }
    if ((p < 0)); then skipped_groups+=("$name"); continue; fi
    errors=$((errors + e)) processes=$((processes + p)) set_aside=$((set_aside + ${ra:-0}))
    if ((p == 0)); then missing+=("$name"); else done_cats+=("$name(rc=$rc,errors=$e)"); fi
  done
  printf '%-10s %s error(s) in %s process(es); finished: %s%s%s\n' "$tool:" "$errors" "$processes" "${done_cats[*]:-none}" \
    "${skipped_groups[*]:+; skipped: ${skipped_groups[*]}}" \
    "$( ((set_aside > 0)) && echo "; $set_aside release/acquire report(s) set aside")"
  if ((${#missing[@]})); then
    echo "sanitize: $tool wrote no XML record document for: ${missing[*]} (the tool did not run or was cut off; see $out/$tool-*.log)" >&2
    failed=1
  fi
  ((errors > 0)) && failed=1
done
echo "sanitize: $((SECONDS - start)) s for ${#ordered[@]} tool(s) over ${#selections[@]} group(s), $jobs at a time"
exit $failed
