#!/usr/bin/env python3
"""Sets the SM clock three ways side by side for every point of a `gpudissect run --ncu` file:
clock64 over %globaltimer inside the timed kernels (the record's sm_clock_mhz), Nsight Compute's
sm__cycles_elapsed.avg.per_second (and gpc__cycles_elapsed.avg.per_second) over the profiled
launches, and NVML's SM clock right after the point. Prints one line per point and a verdict per
probe: which clock the hardware counters agree with.

    scripts/clock_methods.py RUN.json [--json OUT.json]
"""
import argparse
import json
import statistics
import sys

COUNTERS = ("sm__cycles_elapsed.avg.per_second", "gpc__cycles_elapsed.avg.per_second")


def counter_mhz(extra, name):
    """Median over the point's profiled kernels of one per-second counter, in MHz (None: absent)."""
    ncu = extra.get("ncu") or {}
    vals = [m[name] for m in ncu.values() if isinstance(m, dict) and isinstance(m.get(name), (int, float))]
    return statistics.median(vals) / 1e6 if vals else None


def compare(run):
    """One row per ok point that has an in-kernel clock and the SM counter."""
    rows = []
    for r in run.get("records", []):
        if r.get("status") != "ok" or r.get("derived") or not r.get("sm_clock_mhz"):
            continue
        sm = counter_mhz(r.get("extra", {}), COUNTERS[0])
        if sm is None:
            continue
        rows.append({"id": r["id"], "params": r.get("params", {}), "in_kernel_mhz": r["sm_clock_mhz"],
                     "ncu_sm_mhz": sm, "ncu_gpc_mhz": counter_mhz(r.get("extra", {}), COUNTERS[1]),
                     "nvml_mhz": r.get("nvml_sm_clock_mhz") or None})
    return rows


def verdict(rows):
    """Per probe: the median relative gap of NVML and of clock64/globaltimer to ncu's SM counter."""
    out = {}
    for pid in sorted({r["id"] for r in rows}):
        mine = [r for r in rows if r["id"] == pid]
        gap_kernel = statistics.median(r["in_kernel_mhz"] / r["ncu_sm_mhz"] - 1 for r in mine)
        nv = [r["nvml_mhz"] / r["ncu_sm_mhz"] - 1 for r in mine if r["nvml_mhz"]]
        out[pid] = {"points": len(mine), "in_kernel_vs_ncu": gap_kernel,
                    "nvml_vs_ncu": statistics.median(nv) if nv else None}
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run")
    ap.add_argument("--json", help="also write the rows and verdicts here")
    a = ap.parse_args(argv)
    with open(a.run) as f:
        run = json.load(f)
    rows = compare(run)
    if not rows:
        print(f"{a.run}: no point carries both an in-kernel clock and {COUNTERS[0]} (run with --ncu "
              f"--ncu-metric {COUNTERS[0]})", file=sys.stderr)
        return 2
    for r in rows:
        p = " ".join(f"{k}={v}" for k, v in r["params"].items())
        nv = f"{r['nvml_mhz']:.0f}" if r["nvml_mhz"] else "n/a"
        print(f"{r['id']:28} {p:44} clock64 {r['in_kernel_mhz']:7.1f}  ncu sm {r['ncu_sm_mhz']:7.1f}  nvml {nv}")
    v = verdict(rows)
    for pid, s in v.items():
        nv = "n/a" if s["nvml_vs_ncu"] is None else f"{100 * s['nvml_vs_ncu']:+.1f} %"
        print(f"== {pid}: {s['points']} points; clock64/globaltimer vs ncu {100 * s['in_kernel_vs_ncu']:+.1f} %, "
              f"NVML vs ncu {nv}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"rows": rows, "verdicts": v}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
