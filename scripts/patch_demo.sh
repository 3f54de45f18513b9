#!/usr/bin/env bash
# Control-bit patching demo on the GPU at hand: lowers the stall count of a dependent FFMA chain
# in our own cubin (sass.patch.ffma_stall), runs each patched kernel in a child process, and
# prints where results start to go wrong. Needs a built gpudissect; builds nothing itself.
#   scripts/patch_demo.sh [path/to/gpudissect] [output dir]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
bin="${1:-${GPUDISSECT:-$here/build/gpudissect}}"
out="${2:-$here/results/patch-demo}"
[ -x "$bin" ] || { echo "patch_demo: no gpudissect at $bin (build first, or pass its path)" >&2; exit 2; }
mkdir -p "$out"

# The code this GPU runs (sm_90a on an H100/H200), unless GPUDISSECT_ARCH names another.
arch="${GPUDISSECT_ARCH:-$("$bin" info --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["arch_code_loaded"])' 2>/dev/null || true)}"
echo "== SASS of the chain as compiled for ${arch:-each arch} (control words decoded)"
"$bin" sass --kernel '*ffma_stall_chain_kernel*' ${arch:+--arch "$arch"} | grep -E 'FFMA|clock|^//' | head -12 || true

echo "== running sass.patch.ffma_stall"
"$bin" run --filter sass.patch.ffma_stall --out "$out" --no-progress
run_json="$(ls -t "$out"/run-*.json | head -1)"

echo "== stall sweep ($run_json)"
python3 - "$run_json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for r in doc["records"]:
    if r["id"] != "sass.patch.ffma_stall":
        continue
    if r.get("status") != "ok":
        print("probe", r.get("status"), r.get("reason")); sys.exit(1)
    x = r["extra"]
    c = x["chain"]
    print(f"arch {x['arch']}, {c['regions']} regions of 1, 2, 4, 8 chains of {c['length']} FFMA from instruction "
          f"{c['first_instruction']} ({c['patched_instructions']} words patched), mercury sections: "
          f"{x['mercury_sections']}, SASS check: {r['sass']['status']}")
    print(f"{'stall':>5}  {'outcome':<40} {'wrong lanes':>11} {'missing steps':>13} {'cycles/FFMA':>11}")
    for s in x["stall_sweep"]:
        print(f"{s['stall']:>5}  {s['outcome'][:40]:<40} {s['wrong_lanes']:>11} {s['mean_missing_steps']:>13.1f} {s['cycles_per_ffma']:>11.2f}")
    m = {mm["name"]: mm for mm in r["metrics"]}
    val = lambda n: m[n].get("value", m[n].get("median", m[n].get("stats", {}).get("median")))
    print(f"threshold: stall {val('stall/threshold'):.0f} (compiler wrote {val('stall/compiler'):.0f}); "
          f"unpatched {val('cycles_per_ffma/unpatched'):.3f} cycles/FFMA; patch took effect: {x['patch_effect']}")
PY
