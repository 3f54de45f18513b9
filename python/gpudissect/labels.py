"""Axis labels in words, as a paper prints them: "latency (cycles)", "warps per SM", "bandwidth
(TB/s)", never a metric id. A metric's label comes from its hierarchical name and the unit it
carries (`latency/cycles` in cycles: "latency (cycles)"); a parameter's from the table below, or its
name with the underscores read as spaces. One spelling per unit (TFLOPS, never TFLOP/s)."""
from __future__ import annotations

import re

# Spellings of one unit, the one the page uses on the right.
UNIT_SPELLING = {
    "TFLOP/s": "TFLOPS", "TFlop/s": "TFLOPS", "TFLOPs": "TFLOPS", "tflops": "TFLOPS",
    "TOP/s": "TOPS", "GFLOP/s": "GFLOPS", "TFLOP/s/W": "TFLOPS/W", "TFLOPs/W": "TFLOPS/W",
    "Gops": "Gop/s", "us": "µs", "bytes": "B", "x": "times",
}

# Parameters a reader meets on an axis, in words (the run file's names are short for the command line).
PARAM_WORDS = {
    "warps_per_sm": "warps per SM", "ctas_per_sm": "CTAs per SM", "blocks_per_sm": "blocks per SM",
    "ilp": "independent chains per warp (ILP)", "warps": "warps", "threads": "threads per CTA",
    "bytes": "working set (bytes)", "chunk_bytes": "chunk (bytes)", "stages": "pipeline stages",
    "depth": "depth (requests in flight)", "n": "N (MMA tile width)", "seq": "sequence length",
    "cluster": "cluster size (CTAs)", "cluster_size": "cluster size (CTAs)", "ctas": "CTAs",
    "groups_in_flight": "wgmma groups in flight", "read_quarters": "reads (quarters of the accesses)",
    "l2_percent": "L2 share of the working set (%)", "lines": "cache lines touched", "words": "words per thread",
    "width": "access width (bytes)", "stride": "stride (words)", "block": "threads per block",
    "sm_eighths": "SMs on (eighths of the chip)", "inputs": "input pattern", "type": "data type",
    "shape": "GEMM shape", "consumers": "consumer warpgroups", "head_dim": "head dimension",
    "per_thread": "accesses per thread", "idle_ms": "idle time (ms)", "trips": "round trips",
    "distinct": "distinct addresses", "tiles": "tiles", "warpgroups": "warpgroups", "op": "operation",
    "scope": "scope", "space": "memory space", "medium": "medium", "level": "level", "source": "source",
}

# A metric name's last part is its quantity and unit run together (`latency_cycles`, `delivered_tbps`,
# `per_clk_per_sm`): these words name the unit, which the label gives in parentheses instead.
_UNIT_WORDS = {"cycles", "cyc", "tbps", "gbps", "tflops", "tops", "gops", "us", "ns", "ms", "mhz", "w",
               "percent", "per", "clk", "sm", "smsp", "bytes"}
# The quantity a unit measures, for a metric whose name holds nothing but its unit (`atomic/gops`).
_QUANTITY_OF_UNIT = [
    (re.compile(r"^(TB|GB|B)/s$|^B/clk"), "bandwidth"), (re.compile(r"^(cycles|ns|µs|ms)$"), "latency"),
    (re.compile(r"FLOPS|TOPS|op/s|/clk"), "rate"), (re.compile(r"^W$"), "power"), (re.compile(r"^MHz$"), "clock"),
]
_QUANTITIES = {"latency", "bandwidth", "throughput", "rate", "power", "clock", "time", "efficiency"}
# First parts of metric names that read better as a phrase, or that need no quantity added.
_HEAD_WORDS = {"alone": "throughput alone", "tflops": "throughput", "roundtrip": "round trip",
               "overhead": "overhead", "speedup": "speedup", "slowdown": "slowdown"}
# Metrics whose names say too little on their own (from their probes' descriptions, `list -v`).
METRIC_WORDS = {
    "binding/blocks_consistent_percent": "blocks whose warp binding is consistent",
    "dispatch/clock_pair_cycles": "two back-to-back clock reads",
    "outstanding/loads": "loads in flight",
    "depth/in_flight": "instructions in flight per sub-core",
    "throughput/first_calls_tflops": "first-call throughput",
}
# Words spelled as a reader knows them.
_ACRONYMS = {"sm": "SM", "sms": "SMs", "smsp": "SMSP", "cta": "CTA", "ctas": "CTAs", "l1": "L1", "l2": "L2",
             "tma": "TMA", "mma": "MMA", "fma": "FMA", "flops": "FLOP", "dram": "DRAM", "tlb": "TLB", "nvml": "NVML"}


def _words(text: str) -> str:
    return " ".join(_ACRONYMS.get(w, w) for w in text.replace("_", " ").split())


def unit_label(unit: str) -> str:
    """The page's spelling of `unit`."""
    return UNIT_SPELLING.get(unit, unit)


def param_label(name: str) -> str:
    """A parameter in words: "warps_per_sm" is "warps per SM"."""
    return PARAM_WORDS.get(name) or _words(name)


def metric_label(metric: str, unit: str) -> str:
    """A metric in words with its unit: `latency/cycles` in cycles is "latency (cycles)",
    `bandwidth/delivered_tbps` in TB/s "delivered bandwidth (TB/s)", `atomic/latency_cycles`
    "atomic latency (cycles)", `atomic/gops` in Gop/s "atomic rate (Gop/s)"."""
    u = unit_label(unit)
    if metric in METRIC_WORDS:
        return f"{METRIC_WORDS[metric]} ({u})" if u and u not in ("ratio", "bool", "loads", "warp instr") else METRIC_WORDS[metric]
    head, _, tail = metric.partition("/")
    tail = tail.split("/")[0]  # latency/cycles/median: the statistic is not part of the quantity
    if u == "%" and "percent_of_" in tail:  # throughput/percent_of_peak: "throughput (% of peak)"
        tail, _, of = tail.partition("percent_of_")
        u = "% of " + _words(of)
    words = _words(" ".join(w for w in tail.split("_") if w and w.lower() not in _UNIT_WORDS))
    name = _HEAD_WORDS.get(head) or _words(head)
    if words:
        # A quantity qualified by the first part (atomic latency), or one qualifying it (delivered bandwidth).
        name = f"{name} {words}" if words.split()[-1] in _QUANTITIES else f"{words} {name}"
    elif head not in _HEAD_WORDS and name not in _QUANTITIES:
        quantity = next((q for pat, q in _QUANTITY_OF_UNIT if pat.search(u)), "")
        if quantity:
            name += " " + quantity
    if not u or u in ("ratio", "bool") or u.lower() in name.lower().split():  # "coresident clusters", not "(clusters)"
        return name
    return f"{name} ({u})"


def is_rate(unit: str) -> bool:
    """A bandwidth or a rate (per second, per clock, a share): drawn from zero, so that a bar's or
    a line's height reads as its size."""
    u = unit_label(unit)
    return "/s" in u or "/clk" in u or "/cyc" in u or u in ("TFLOPS", "TOPS", "GFLOPS", "%") or u.startswith(("TFLOPS/", "TOPS/"))
