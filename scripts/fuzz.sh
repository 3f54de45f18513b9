#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz: cubin/ELF and fatbin reader, run-file and journal
# reader, command line, run files built from the input through the report, CSV and fleet writers,
# the probes' analyses as resummarize runs them) with clang against an existing build, and runs
# each for a bounded time.
# Prints executions and crashes per target; exits 1 when a target crashed (the input is kept in
# the work folder), 77 when clang's libFuzzer is not installed (scripts/setup.sh installs it).
#
#   scripts/fuzz.sh [--seconds N] [--opt -O0|-O1] [--build DIR] [--fuzz-build DIR] [--work DIR] [TARGET...]
#
# --fuzz-build: where the fuzz targets are built (default: DIR/fuzz of --build).
# --opt: optimization of the instrumented code (default -O1, more inputs a second; -O0 compiles
# in about half the time, CI's choice for a few seconds per target).
#
# CI runs a few seconds each (ctest fuzz.bounded); a longer hunt: scripts/fuzz.sh --seconds 600.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=5
opt=-O1
build=${BUILD_DIR:-$root/build}
work=
fuzz_build=
targets=()
while (($#)); do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --opt) opt=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --fuzz-build) fuzz_build=$2; shift 2 ;;
    -*) echo "fuzz: unknown option '$1' (see the header of $0)" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
((${#targets[@]})) || targets=(cubin_fuzz run_file_fuzz cli_fuzz run_model_fuzz resummarize_fuzz)
work=${work:-$build/fuzz-work}
clangxx=$(command -v clang++ || true)
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
if [[ -z $clangxx ]] ||
   ! echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }' >"$probe/t.cpp" ||
   ! "$clangxx" -fsanitize=fuzzer "$probe/t.cpp" -o "$probe/t" 2>/dev/null; then
  echo "fuzz: SKIPPED: clang++ with libFuzzer is not installed (scripts/setup.sh installs clang)" >&2
  exit 77
fi
[[ -f $build/libgpudissect_core.a ]] || { echo "fuzz: no gpudissect build at $build (run scripts/build.sh first)" >&2; exit 2; }

fuzz_build=${fuzz_build:-$build/fuzz}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$root/tests/fuzz" -B "$fuzz_build" -G Ninja -DCMAKE_CXX_COMPILER="$clangxx" -DGPUDISSECT_BUILD="$build" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGPUDISSECT_FUZZ_OPT="$opt" "${launcher[@]}" >/dev/null || exit 2
ninja -C "$fuzz_build" -j "${BUILD_JOBS:-$(nproc)}" "${targets[@]}" >/dev/null || { echo "fuzz: build failed" >&2; exit 2; }

# Seeds: committed ones, the test fixtures, and a few small cubins out of our own binary.
seeds_of() {
  case $1 in
    cubin_fuzz)
      local d=$work/seeds-cubin
      if [[ ! -d $d ]]; then
        mkdir -p "$d"
        if command -v cuobjdump >/dev/null && [[ -x $build/gpudissect ]]; then
          (cd "$d" && cuobjdump -xelf all "$build/gpudissect" >/dev/null 2>&1)
          find "$d" -size +64k -delete
        fi
      fi
      echo "$d" ;;
    run_file_fuzz) echo "$root/tests/fixtures/runs $root/tests/fuzz/seeds/run_file" ;;
    cli_fuzz) echo "$root/tests/fuzz/seeds/cli" ;;
    # The structure-aware targets read choices, not files: their seeds are inputs of earlier runs.
    run_model_fuzz) echo "$root/tests/fuzz/seeds/run_model" ;;
    resummarize_fuzz) echo "$root/tests/fuzz/seeds/resummarize" ;;
  esac
}

status=0
for t in "${targets[@]}"; do
  corpus=$work/corpus-$t
  mkdir -p "$corpus" "$work/crashes-$t"
  log=$work/$t.log
  read -ra seed_dirs <<<"$(seeds_of "$t")"
  touch "$work/.start-$t"  # crashes of earlier runs stay in the folder but are not counted again
  "$fuzz_build/$t" -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=65536 -timeout=10 \
    -artifact_prefix="$work/crashes-$t/" -print_final_stats=1 "$corpus" "${seed_dirs[@]}" >"$log" 2>&1
  rc=$?
  runs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' | tail -1)
  crashes=$(find "$work/crashes-$t" -type f -newer "$work/.start-$t" | wc -l)
  printf 'fuzz %-18s %8s executions in %ss, %s crash(es), corpus %s inputs; log %s\n' \
    "$t:" "${runs:-?}" "$seconds" "$crashes" "$(find "$corpus" -type f | wc -l)" "$log"
  if ((rc != 0 || crashes > 0)); then
    echo "fuzz: $t failed (exit $rc); crashing inputs in $work/crashes-$t/:" >&2
    grep -E 'ERROR: |SUMMARY: ' "$log" | head -5 >&2
    status=1
  fi
done
exit $status
