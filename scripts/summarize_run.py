#!/usr/bin/env python3
"""Prints the headline numbers of a gpudissect run file: derived (analysis) records, and the
points of probes without an analysis step, with the SM clock each was measured at, then any
failures."""
import json
import sys


def fmt(v):
    return "n/a" if v is None else f"{v:.4g}"


def main(path):
    with open(path) as f:
        run = json.load(f)
    dev = run["device"]
    nvml = dev.get("nvml") or {}
    print(f"== {dev['name']} ({dev['arch_code_loaded']}, {dev['sm_count']} SMs), "
          f"max SM clock {dev['max_sm_clock_mhz']} MHz, NVML SM clock at start {nvml.get('sm_clock_mhz', 'n/a')} MHz, "
          f"theoretical DRAM {dev['theoretical_dram_gbps']:.0f} GB/s, complete={run['complete']}")
    # A probe with an analysis step is summarised by its derived records; others by their points.
    analysed = {r["id"] for r in run["records"] if r["derived"]}
    for r in run["records"]:
        if r["status"] != "ok" or (r["id"] in analysed and not r["derived"]):
            continue
        params = " ".join(f"{k}={v}" for k, v in r["params"].items())
        metrics = ", ".join(f"{m['name']}={fmt(m['value'])} {m['unit']}" for m in r["metrics"])
        print(f"{r['id']:24} {params:28} {metrics}  @ {fmt(r['sm_clock_mhz'])} MHz  sass={r['sass']['status']}")
    bad = [r for r in run["records"] if r["status"] == "failed"]
    for r in bad:
        print(f"FAILED {r['id']} {r['params']}: {r['reason']}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: summarize_run.py RUN.json")
    main(sys.argv[1])
