#!/usr/bin/env bash
# On a machine with a GPU: build (or use the build in $BUILD_DIR, e.g. one carried from a
# build machine), then `info`, offline SASS verification for the chip, a quick run and a full
# run of every probe. Logs and run files go to $OUT (or results/gpu_check); a short summary
# of the headline numbers is printed last.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
out=${OUT:-$root/results/gpu_check}
work=$(mktemp -d)
mkdir -p "$out"
bin=$build/gpudissect
if [[ ! -x $bin ]]; then
  "$root/scripts/build.sh" > "$out/build.log" 2>&1 || { echo "build failed: see $out/build.log"; exit 1; }
fi
"$bin" --version
"$bin" info | tee "$out/info.txt" || { echo "gpudissect info failed: no usable GPU?"; exit 1; }
arch=$("$bin" info --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["arch_code_loaded"])')
"$bin" verify --arch "$arch" > "$out/verify.txt" 2>&1
verify_rc=$?

t0=$(date +%s)
"$bin" run --quick --no-progress --out "$work/quick" > "$out/quick.log" 2>&1
quick_rc=$?
t1=$(date +%s)
"$bin" run --no-progress --out "$work/full" "$@" > "$out/full.log" 2>&1
full_rc=$?
t2=$(date +%s)
cp "$work"/quick/run-*.json "$out/quick.json" 2>/dev/null
cp "$work"/full/run-*.json "$out/full.json" 2>/dev/null
cp "$work"/full/run-*.md "$out/full.md" 2>/dev/null
"$bin" report "$out/full.json" --format csv --out "$out/full.csv" >/dev/null 2>&1

echo
echo "== verify ($arch): rc=$verify_rc"; tail -n 1 "$out/verify.txt"
echo "== quick run: rc=$quick_rc, $((t1 - t0)) s; full run: rc=$full_rc, $((t2 - t1)) s"
grep -E '^[0-9]+ ok' "$out/quick.log" "$out/full.log"
python3 "$root/scripts/summarize_run.py" "$out/full.json"
