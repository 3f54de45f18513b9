#!/usr/bin/env python3
"""Builds data/reference/sm_90-published-hopper.json: every Hopper quantity that others have
published and that we could read at its source, one record per published figure, in the run-file
schema, so `gpudissect validate RUN.json` can set our measurement beside it.

The table below is the data: each row names its source (SOURCES), where in the source the figure
is (section), the chip and clock it was measured at, the method in a phrase, the figure as the
source wrote it, the unit we compare it in, how our value is found (`ours`: a headline of
src/report/headlines.cpp, a record's metric, or a device property), and, where a difference is
known in advance, the explanation as data (`explanation`: kind, text, and what makes it checkable:
`expected_ratio` [lo, hi] of ours/published, and/or `ours_alt`, our value under the published
method). Nothing here is tuned to our numbers: a row whose difference we cannot explain carries
no explanation and `validate` calls it `disagrees`.

    python3 scripts/build_published_reference.py            # writes the JSON
    python3 scripts/build_published_reference.py --check    # fails when the JSON is stale
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "data" / "reference" / "sm_90-published-hopper.json"

# Clock ratios used in explanations, from the sources' own statements.
H200_CLOCK = 1980.0       # our H200's application SM clock (NVML max, and the clock64 the kernels saw)
H100_PCIE_CLOCK = 1755.0  # gpu-benches' H100 PCIe: the clock its latency file prints
H100_PCIE_THROTTLE = 1395.0  # the lowest clock Chips and Cheese saw on an H100 PCIe under L2 load
H100_SXM_TENSOR_CLOCK = 1830.0  # whitepaper peaks: low-precision (tensor) rates at 1.83 GHz
H100_SXM_VECTOR_CLOCK = 1980.0  # whitepaper peaks: FP32/FP64/INT32 rates at 1.98 GHz
BW_H200, BW_H100_SXM, BW_H100_PCIE = 4.8, 3.35, 2.0  # TB/s, vendor figures (ANANDTECH, NVDS)

SOURCES = {
    "gpu-benches": {
        "title": "te42kyfo/gpu-benches (RRZE-HPC GPU benchmarks, D. Ernst): result files",
        "where": "github.com/te42kyfo/gpu-benches @ 1c36d509ee717dca9215c27135fa1e611bb03ed1",
    },
    "mt4g": {
        "title": "MT4G (caps-tum/mt4g): sample result for 'NVIDIA H100 80GB HBM3'",
        "where": "github.com/caps-tum/mt4g @ 4cc55662a9541a40e91909c61d543c524ae04fcb, "
                 "sample_results/NVIDIA H100 80GB HBM3.json (last changed in 043c8c64, 2025-08-10)",
    },
    "accel-sim": {
        "title": "Accel-Sim SM90_H100 tested configuration (gpgpusim.config): the simulator's H100 calibration",
        "where": "gpu-simulator/gpgpu-sim/configs/tested-cfgs/SM90_H100/gpgpusim.config as carried in "
                 "github.com/jc19chaoj/accel-sim-framework @ 0caad2962dfc40941dc62f331926773ad5dc3b96 "
                 "(the accel-sim/accel-sim-framework snapshot stored here predates the SM90 config)",
    },
    "markdewing": {
        "title": "markdewing/AI_kernels: latency microbenchmarks, latency/README.md table",
        "where": "github.com/markdewing/AI_kernels @ 0d701add13c82ea0533d5fc0c5755c72b28a287b, latency/README.md",
    },
    "nvidia-datasheet": {
        "title": "NVIDIA H100 Tensor Core GPU datasheet specification table (H100 SXM / H100 PCIe), "
                 "as reproduced by NVIDIA partner HPC Tech",
        "where": "https://archive-lib.hpctech.co.jp/gpuproduct/nvidia-h100.html",
    },
    "anandtech-sc23": {
        "title": "AnandTech, 'NVIDIA at SC23: H200 Accelerator with HBM3e' (article 21136): "
                 "NVIDIA's H200 / H100 specification comparison table",
        "where": "anandtech.com/show/21136 (stored copy)",
    },
    "whitepaper-peaks": {
        "title": "G. Lockwood's H100 notes: theoretical peak table from the NVIDIA H100 whitepaper, "
                 "with the 1.83 GHz (low precision) / 1.98 GHz (high precision) clocks it states",
        "where": "https://glennklockwood.com/garden/processors/h100",
    },
}

GB = "gpu-benches"


def H(q, **kw):
    """Our headline quantity (src/report/headlines.cpp)."""
    return {"headline": q, **kw}


def R(record, metric, params=None, **kw):
    """One of our records' metric (the first ok record whose params include `params`)."""
    return {"record": record, "params": params or {}, "metric": metric, **kw}


def D(field, unit, factor=1.0):
    """A property of our run's device (driver-reported, not measured)."""
    return {"device": field, "unit": unit, "factor": factor}


def why(kind, text, expected_ratio=None, ours_alt=None):
    e = {"kind": kind, "text": text}
    if expected_ratio is not None:
        e["expected_ratio"] = [round(expected_ratio[0], 4), round(expected_ratio[1], 4)]
    if ours_alt is not None:
        e["ours_alt"] = ours_alt
    return e


CHIP_H200_OVER_H100_SXM = BW_H200 / BW_H100_SXM
CHIP_H200_OVER_H100_PCIE = BW_H200 / BW_H100_PCIE
PCIE_TO_H200 = why("chip", "H100 PCIe has 2.0 TB/s HBM2e, our H200 4.8 TB/s HBM3e (vendor figures)",
                   (CHIP_H200_OVER_H100_PCIE, CHIP_H200_OVER_H100_PCIE))
SXM_TO_H200 = why("chip", "H100 SXM has 3.35 TB/s HBM3, our H200 4.8 TB/s HBM3e (vendor figures)",
                  (CHIP_H200_OVER_H100_SXM, CHIP_H200_OVER_H100_SXM))
INDEX_CHASE = ("the chase steps through an index array (address = base + index x element size), so every "
               "step adds address arithmetic to the load; ours chases the loaded pointer itself")
PER_LOAD_TIMER = ("each load is timed alone: a clock read, the load, a shared-memory store of the loaded value "
                  "(to force completion), a second clock read, so the store's issue and the clock reads sit in every "
                  "sample; this kernel reads the 32-bit %clock (S2R), their read-only kernel reads %clock64 the same "
                  "way and lands within 5 % of ours")
WINDOW_MISS = ("read in their source: the closing clock read does not wait for the load (nothing consumes the loaded "
               "value inside the window), so a sample runs from the opening clock read to the next load's issue and "
               "misses the part of the latency spent before it; how much it misses is not constant (the same "
               "construction reads 106 cycles for the constant L1.5, where we read 104), so this is unchecked")
SIM_PARAM = ("a simulator pipeline parameter, calibrated so whole applications match; the simulator adds its "
             "own operand-collector and writeback stages around it, so it is not a dependent-issue latency")

# (source, id, title, value, unit, kind, compare, chip, clock_mhz, sm_count, section, method, as_written,
#  ours, explanation or None)
ROWS = [
    # ---- te42kyfo/gpu-benches: H100 PCIe (114 SMs, 1755 MHz) and H200 result files -------------------
    (GB, "l1.latency", "L1 hit latency", 34.2, "cycles", "latency", "as_is", "H100 PCIe", H100_PCIE_CLOCK, 114,
     "gpu-latency/h100_pcie.txt (plateau 1-216 kB)", "64-bit pointer chase, one block of 64 threads, 64 B apart; "
     "host wall time over 1e6 steps times the printed clock", "34.0-34.8 cycles for 1-216 kB at 1755 MHz",
     H("l1.latency"),
     why("clock", "cycles are host wall time x the nominal 1755 MHz; this card drops to 1395 MHz under load "
         "(Chips and Cheese), which inflates the count; the steps also carry the loop's overhead",
         (H100_PCIE_THROTTLE / H100_PCIE_CLOCK * 0.9, 1.0))),
    (GB, "l2.near_latency", "L2 hit latency (near plateau)", 265.5, "cycles", "latency", "as_is", "H100 PCIe",
     H100_PCIE_CLOCK, 114, "gpu-latency/h100_pcie.txt (plateau 0.4-20 MB)", "64-bit pointer chase, 64 B apart",
     "265.0-266.0 cycles from 391 kB to 19946 kB", H("l2.near_latency"),
     why("clock", "the L2 and crossbar run in their own clock domain: at 1980 MHz the same nanoseconds are more "
         "SM cycles than at 1755 MHz; ours must lie between the same cycles and the same nanoseconds",
         (1.0, H200_CLOCK / H100_PCIE_CLOCK))),
    (GB, "memory.l2.far_latency", "L2 latency, far partition plateau", 475.4, "cycles", "latency", "as_is",
     "H100 PCIe", H100_PCIE_CLOCK, 114, "gpu-latency/h100_pcie.txt (35-43 MB)", "64-bit pointer chase past one "
     "L2 partition's capacity", "475.4, 477.8, 475.1 cycles at 35343-42767 kB",
     R("memory.latency.l2_partition", "latency/far_cycles", {"lines": 128}), None),
    (GB, "dram.latency", "DRAM latency", 649.9, "cycles", "latency", "as_is", "H100 PCIe", H100_PCIE_CLOCK, 114,
     "gpu-latency/h100_pcie.txt (125 MB)", "64-bit pointer chase, 64 B apart, 125 MB buffer",
     "2000424 1755 125026 740.8 649.9", H("dram.latency"), None),
    (GB, "l1.read_bandwidth", "L1 read bandwidth", 25.2427, "TB/s", "bandwidth", "per_sm_per_clock", "H100 PCIe",
     H100_PCIE_CLOCK, 114, "gpu-cache/h100_pcie.txt (8-16 kB per block)", "one block per SM re-reading its buffer",
     "25242.7 GB/s at 8 kB", H("l1.read_bandwidth"), None),
    (GB, "l2.read_bandwidth", "L2 read bandwidth", 6.9526, "TB/s", "bandwidth", "per_sm_per_clock", "H100 PCIe",
     H100_PCIE_CLOCK, 114, "gpu-l2-cache/h100_pcie.txt (30 MB)", "plain global loads over a data set that fits L2",
     "30720 kB 8ms 0.1% 6952.6 GB/s", H("l2.read_bandwidth"),
     why("method", "plain loads, compared with our plain-load L2 level; per clock at the printed 1755 MHz, while "
         "this card throttles toward 1395 MHz when reading L2 (Chips and Cheese), which lowers its per-clock figure",
         (1.0, H100_PCIE_CLOCK / H100_PCIE_THROTTLE),
         R("memory.bandwidth.level", "bandwidth/tbps", {"level": "l2", "width": 4}))),
    (GB, "l2.read_bandwidth", "L2 read bandwidth", 9.78, "TB/s", "bandwidth", "as_is", "H200", None, 132,
     "gpu-l2-cache/h200.txt (28 MB)", "plain global loads over a data set that fits L2",
     "28160 kB 5ms 0.1% 9780.0 GB/s", H("l2.read_bandwidth"),
     why("method", "plain loads; our headline is the best of every L2 reader, cp.async included (12.1 TB/s); "
         "our plain-load level is the same method", None,
         R("memory.bandwidth.level", "bandwidth/tbps", {"level": "l2", "width": 4}))),
    (GB, "dram.read_bandwidth", "DRAM read bandwidth (L2 benchmark, large sets)", 1.9888, "TB/s", "bandwidth",
     "as_is", "H100 PCIe", None, 114, "gpu-l2-cache/h100_pcie.txt (>100 MB)", "plain global loads, data set >> L2",
     "1989.0 GB/s at 132608 kB", H("dram.read_bandwidth"),
     PCIE_TO_H200),
    (GB, "dram.write_bandwidth", "STREAM init (store only)", 2.016, "TB/s", "bandwidth", "as_is", "H100 PCIe", None,
     114, "README / gpu-stream/h100_pcie.txt (1024 threads, 100 % occupancy)", "A[i] = c, one store stream",
     "init 2016 GB/s", H("dram.write_bandwidth"),
     PCIE_TO_H200),
    (GB, "dram.read_bandwidth", "STREAM read", 1.942, "TB/s", "bandwidth", "as_is", "H100 PCIe", None, 114,
     "README / gpu-stream/h100_pcie.txt (1024 threads)", "sum = A[i], one load stream", "read 1942 GB/s",
     H("dram.read_bandwidth"),
     PCIE_TO_H200),
    (GB, "dram.copy_bandwidth", "STREAM scale (bytes read + written)", 1.704, "TB/s", "bandwidth", "as_is",
     "H100 PCIe", None, 114, "README / gpu-stream/h100_pcie.txt (1024 threads)", "A[i] = B[i] * c",
     "scale 1704 GB/s", H("dram.copy_bandwidth"),
     PCIE_TO_H200),
    (GB, "dram.triad_bandwidth", "STREAM triad", 1.832, "TB/s", "bandwidth", "as_is", "H100 PCIe", None, 114,
     "README / gpu-stream/h100_pcie.txt (1024 threads)", "A[i] = B[i] + c * C[i]", "triad 1832 GB/s",
     H("dram.triad_bandwidth"),
     PCIE_TO_H200),
    (GB, "dram.write_bandwidth", "STREAM init (store only)", 3.884, "TB/s", "bandwidth", "as_is", "H200", None, 132,
     "gpu-stream/h200.txt (1024 threads, 100 % occupancy)", "A[i] = c, one store stream, 2 blocks per SM",
     "init 3884 GB/s (3898 at best occupancy)", H("dram.write_bandwidth"),
     why("method", "tried: the same shape (one 8-byte store per thread, one-shot grid of 1024-thread blocks, "
         "2 blocks per SM); it does not account for the gap", None,
         R("memory.bandwidth.dram_shape", "bandwidth/tbps",
           {"op": "write", "width": 8, "per_thread": 1, "block": 1024, "launch": "oneshot"}))),
    (GB, "dram.read_bandwidth", "STREAM read", 2.756, "TB/s", "bandwidth", "as_is", "H200", None, 132,
     "gpu-stream/h200.txt (1024 threads)", "sum = A[i], one 8-byte load per thread per step, 2 blocks per SM",
     "read 2756 GB/s", H("dram.read_bandwidth"),
     why("method", "one 8-byte load in flight per thread is too few bytes in flight to cover HBM3e latency; our "
         "one-shot kernel with one 8-byte load per thread is the same shape", None,
         R("memory.bandwidth.dram_shape", "bandwidth/tbps",
           {"op": "read", "width": 8, "per_thread": 1, "block": 256, "launch": "oneshot"}))),
    (GB, "dram.copy_bandwidth", "STREAM scale (bytes read + written)", 3.165, "TB/s", "bandwidth", "as_is", "H200",
     None, 132, "gpu-stream/h200.txt (1024 threads)", "A[i] = B[i] * c", "scale 3165 GB/s",
     H("dram.copy_bandwidth"),
     why("method", "tried: the same shape (one 8-byte load and store per thread, one-shot grid of 1024-thread "
         "blocks); it does not account for the gap", None,
         R("memory.bandwidth.dram_shape", "bandwidth/tbps",
           {"op": "copy", "width": 8, "per_thread": 1, "block": 1024, "launch": "oneshot"}))),
    (GB, "dram.triad_bandwidth", "STREAM triad", 3.534, "TB/s", "bandwidth", "as_is", "H200", None, 132,
     "gpu-stream/h200.txt (1024 threads)", "A[i] = B[i] + c * C[i]", "triad 3534 GB/s",
     H("dram.triad_bandwidth"), None),

    # ---- MT4G: H100 SXM (HBM3), 132 SMs, device clock 1980 MHz --------------------------------------
    ("mt4g", "l1.latency", "L1 hit latency", 38.0, "cycles", "latency", "as_is", "H100 SXM", 1980.0, 132,
     "memory.l1.latency (p50)", "p-chase, each load timed between %clock reads", "p50 38.0, mean 38.0, stdev 0",
     H("l1.latency"), why("method", PER_LOAD_TIMER)),
    ("mt4g", "l2.near_latency", "L2 hit latency", 222.0, "cycles", "latency", "as_is", "H100 SXM", 1980.0, 132,
     "memory.l2.latency (p50)", "p-chase with L1-bypassing loads over a small 4-byte-stride array, each load timed",
     "p50 222.0, mean 219.3, p95 231", H("l2.near_latency"), why("method", WINDOW_MISS)),
    ("mt4g", "dram.latency", "Main memory latency", 864.0, "cycles", "latency", "as_is", "H100 SXM", 1980.0, 132,
     "memory.main.latency (p50)", "randomised p-chase over 1 GiB with 1 KiB stride, cache-bypassing loads, each timed",
     "p50 864.0, mean 834.5, p95 1126.4", H("dram.latency"), None),
    ("mt4g", "memory.shared.latency", "Shared-memory load latency", 30.0, "cycles", "latency", "as_is", "H100 SXM",
     1980.0, 132, "memory.shared.latency (p50)", "p-chase in shared memory, each load timed",
     "p50 30.0, mean 29.9", R("memory.shared.bank_conflict", "shared/latency_cycles",
                              {"mode": "latency", "stride": 1, "width": 4}),
     why("method", PER_LOAD_TIMER)),
    ("mt4g", "memory.latency.constant", "Constant cache (L1) latency", 17.0, "cycles", "latency", "as_is",
     "H100 SXM", 1980.0, 132, "memory.constant.l1.latency (p50)", "p-chase through constant memory, each load timed",
     "p50 17.0, mean 20.7, p95 76", R("memory.latency.constant", "latency/cycles", {"bytes": 1024, "distinct": 1}),
     why("method", WINDOW_MISS)),
    ("mt4g", "memory.latency.constant", "Constant cache (L1.5) latency", 106.0, "cycles", "latency", "as_is",
     "H100 SXM", 1980.0, 132, "memory.constant.l1.5.latency (p50)", "p-chase past the 2 KiB constant L1",
     "p50 106.0, mean 104.9", R("memory.latency.constant", "latency/cycles", {"bytes": 4096, "distinct": 1}), None),
    ("mt4g", "memory.cache_op", "Read-only (ld.global.nc) hit latency", 34.0, "cycles", "latency", "as_is",
     "H100 SXM", 1980.0, 132, "memory.readOnly.latency (p50)", "p-chase with non-coherent loads, each load timed",
     "p50 34.0, mean 34.9", R("memory.cache_op", "latency/cycles", {"op": "ld.nc"}), None),
    ("mt4g", "memory.texture.latency", "Texture cache hit latency", 42.0, "cycles", "latency", "as_is", "H100 SXM",
     1980.0, 132, "memory.texture.latency (p50)", "p-chase through texture fetches", "p50 42.0, mean 38.8",
     R("memory.hierarchy.capacity", "latency/below_cycles", {"path": "tex", "stride": 128, "level": "L1"}),
     why("method", "ours is a dependent chase: each tex1Dfetch's result is the next index, so every step holds the "
         "whole fetch (TLD) latency; MT4G's textureLatency.cpp reads the clock around one fetch with nothing that "
         "waits for its result, so the fetch can complete after the second clock read")),
    ("mt4g", "memory.l1.data_capacity", "L1 data cache capacity (default carve-out)", 238848.0, "bytes", "size", "as_is",
     "H100 SXM", 1980.0, 132, "memory.l1.size", "p-chase over growing arrays, change-point", "238848 bytes",
     R("memory.hierarchy.l1_carveout", "capacity/bytes", {"carveout": 0, "level": "L1"}),
     why("method", "our value is the last point of a 4 KiB-step sweep (at the largest L1 carveout) still at L1 "
         "latency; the boundary lies between it and the next point", (1 / 1.018, 1.0))),
    ("mt4g", "memory.l2.partition_capacity", "L2 segment (one partition) size", 26214400.0, "bytes", "size",
     "as_is", "H100 SXM", 1980.0, 132, "memory.l2.segmentSize", "p-chase, far-partition change-point",
     "26214400 bytes (25 MiB)", R("memory.hierarchy.l2_capacity", "capacity/bytes", {"stride": 128, "level": "L2.segment"}),
     why("chip", "H200 has 60 MiB of L2 (its driver reports 62914560 B) where H100 SXM has 50 MiB, so a partition "
         "is 1.2x; our value is the last point (steps of 1.094x) still at the segment's latency",
         (1.2 / 1.094, 1.2 * 1.094))),
    ("mt4g", "memory.l2.capacity", "L2 capacity", 52428800.0, "bytes", "size", "as_is", "H100 SXM", 1980.0, 132,
     "memory.l2.size (driver attribute)", "cudaDeviceProp l2CacheSize", "52428800 bytes",
     D("l2_bytes", "bytes"),
     why("chip", "H200 carries 60 MiB of L2 against H100 SXM's 50 MiB", (1.2, 1.2))),
    ("mt4g", "memory.l1.line_bytes", "L1 line size", 128.0, "bytes", "size", "as_is", "H100 SXM", 1980.0, 132,
     "memory.l1.lineSize", "p-chase with growing stride", "128 bytes",
     R("memory.hierarchy.capacity", "line/bytes", {"path": "ca", "quantity": "line"}), None),
    ("mt4g", "memory.l2.fetch_bytes", "L2 fetch granularity", 32.0, "bytes", "size", "as_is", "H100 SXM", 1980.0,
     132, "memory.l2.fetchGranularity", "p-chase: the smallest stride that misses again (a sector)", "32 bytes",
     R("memory.bandwidth.stride", "granularity/bytes", {"level": "l2", "stride": "granularity"}),
     why("definition", "MT4G's granularity is the sector a lone load misses on (32 B); ours is the stride past "
         "which useful bandwidth under full load stops halving, i.e. what a loaded L2 moves per request (64 B)")),
    ("mt4g", "memory.l1.fetch_bytes", "L1 fetch granularity", 32.0, "bytes", "size", "as_is", "H100 SXM", 1980.0, 132,
     "memory.l1.fetchGranularity", "p-chase stride sweep, change point", "32 bytes",
     R("memory.hierarchy.fetch", "fetch/bytes", {"path": "ca", "quantity": "fetch"}), None),
    ("mt4g", "memory.l1.miss_penalty", "L1 miss penalty", 179.82, "cycles", "latency", "as_is", "H100 SXM", 1980.0,
     132, "memory.l1.missPenalty", "mean of timed loads after eviction minus the L1 hit mean", "179.82 cycles",
     R("memory.hierarchy.l1_carveout", "capacity/miss_penalty_cycles", {"carveout": 0, "level": "L1"}), None),
    ("mt4g", "memory.l2.miss_penalty", "L2 miss penalty", 399.95, "cycles", "latency", "as_is", "H100 SXM", 1980.0,
     132, "memory.l2.missPenalty", "line-stride .cg walk after streaming 4x L2, minus the L2 hit mean", "399.95 cycles",
     R("memory.hierarchy.fetch", "fetch/miss_cycles", {"path": "cg", "quantity": "fetch"}),
     why("chip", "the penalty is DRAM's latency past L2: our H200's HBM3e runs at 3.2 GHz where H100 SXM's HBM3 runs "
         "at 2.6 GHz, and ours is the fitted cost of a first-touch miss in a sequential walk rather than a mean over "
         "timed loads")),
    ("mt4g", "memory.const.l1_capacity", "Constant L1 capacity", 2112.0, "bytes", "size", "as_is", "H100 SXM",
     1980.0, 132, "memory.constantL1.size", "p-chase over a __constant__ array, change point", "2112 bytes (conf 0.90)",
     R("memory.hierarchy.const_capacity", "capacity/bytes", {"stride": 64, "level": "constant.L1"}),
     why("method", "our value is the last point of a geometric sweep (steps of 1.19x) still at constant-L1 latency; "
         "the conflict sweep finds 4 ways of sets 512 B apart, 2048 B in all", (1 / 1.19, 1.0))),
    ("mt4g", "memory.const.l1_fetch_bytes", "Constant L1 fetch granularity", 64.0, "bytes", "size", "as_is",
     "H100 SXM", 1980.0, 132, "memory.constantL1.fetchGranularity", "p-chase stride sweep", "64 bytes",
     R("memory.hierarchy.fetch", "fetch/bytes", {"path": "const", "quantity": "fetch"}), None),
    ("mt4g", "memory.const.l15_fetch_bytes", "Constant L1.5 fetch granularity", 256.0, "bytes", "size", "as_is",
     "H100 SXM", 1980.0, 132, "memory.constantL15.fetchGranularity", "p-chase stride sweep", "256 bytes",
     R("memory.hierarchy.fetch", "fetch/next_bytes", {"path": "const", "quantity": "fetch"}), None),
    ("mt4g", "memory.const.l15_latency", "Constant L1.5 hit latency", 104.9, "cycles", "latency", "as_is",
     "H100 SXM", 1980.0, 132, "memory.constantL15.latency", "one load timed after the constant L1 was evicted",
     "104.90 cycles", R("memory.hierarchy.const_capacity", "latency/below_cycles", {"stride": 64, "level": "constant.L1.5"}),
     None),
    ("mt4g", "memory.readonly.capacity", "Read-only cache capacity", 238848.0, "bytes", "size", "as_is", "H100 SXM",
     1980.0, 132, "memory.readOnly.size", "p-chase with ld.global.nc, change point", "238848 bytes",
     R("memory.hierarchy.capacity", "capacity/bytes", {"path": "nc", "stride": 128, "level": "L1"}),
     why("method", "our value is the last point of a geometric sweep (steps of 1.06x) still at L1 latency; the "
         "read-only path shares the L1's storage (memory.hierarchy.sharing)", (1 / 1.06, 1.0))),
    ("mt4g", "l2.read_bandwidth", "L2 read bandwidth", 4528.9225 * 1.073741824 / 1000, "TB/s", "bandwidth",
     "per_sm_per_clock", "H100 SXM", 1980.0, 132, "memory.l2.readBandwidth", "MT4G's L2 read kernel",
     "4528.92 GiB/s", H("l2.read_bandwidth"),
     why("method", "read in their source: the data set is the L2's full size (l2CacheSize, 50 MiB), where it no "
         "longer stays resident and part of it comes from DRAM; our L2 sweep has no point at 100 %: at 90 % it reads "
         "35 B/clk/SM, just past capacity (110 %) 19.0; the latter is the second measurement", None,
         R("memory.bandwidth.l2_sweep", "bandwidth/bytes_per_clk_per_sm", {"l2_percent": 110}))),
    ("mt4g", "l2.write_bandwidth", "L2 write bandwidth", 3494.6126 * 1.073741824 / 1000, "TB/s", "bandwidth",
     "per_sm_per_clock", "H100 SXM", 1980.0, 132, "memory.l2.writeBandwidth", "MT4G's L2 write kernel",
     "3494.61 GiB/s", R("memory.bandwidth.l2_write", "bandwidth/tbps"), None),
    ("mt4g", "dram.read_bandwidth", "Main memory read bandwidth", 2561.0317 * 1.073741824 / 1000, "TB/s",
     "bandwidth", "as_is", "H100 SXM", 1980.0, 132, "memory.main.readBandwidth", "MT4G's DRAM read kernel",
     "2561.03 GiB/s", H("dram.read_bandwidth"),
     why("chip", "H100 SXM 3.35 TB/s vs H200 4.8 TB/s; tried: our grid-stride reader of the same shape (one "
         "16-byte load per thread and step) scaled by that ratio; their loop consumes each load before the next and "
         "times the first, cold launch after a device reset, which ours does not reproduce",
         (CHIP_H200_OVER_H100_SXM, CHIP_H200_OVER_H100_SXM),
         R("memory.bandwidth.dram_shape", "bandwidth/tbps",
           {"op": "read", "width": 16, "per_thread": 1, "block": 256, "launch": "persistent"}))),
    ("mt4g", "dram.write_bandwidth", "Main memory write bandwidth", 2805.8960 * 1.073741824 / 1000, "TB/s",
     "bandwidth", "as_is", "H100 SXM", 1980.0, 132, "memory.main.writeBandwidth", "MT4G's DRAM write kernel",
     "2805.90 GiB/s", H("dram.write_bandwidth"),
     why("chip", "H100 SXM 3.35 TB/s vs H200 4.8 TB/s, and their kernel is a grid-stride loop of 16-byte stores; "
         "ours of the same shape, scaled by the vendor bandwidth ratio", (CHIP_H200_OVER_H100_SXM, CHIP_H200_OVER_H100_SXM),
         R("memory.bandwidth.dram_shape", "bandwidth/tbps",
           {"op": "write", "width": 16, "per_thread": 1, "block": 256, "launch": "persistent"}))),
    ("mt4g", "platform.sm_count", "SM count", 132.0, "count", "count", "as_is", "H100 SXM", None, 132,
     "compute.multiProcessorCount", "driver attribute", "132",
     R("topology.cluster.gpc_map", "topology/sms_mapped"), None),
    ("mt4g", "memory.shared.capacity_per_sm", "Shared memory per SM", 233472.0, "bytes", "size", "as_is",
     "H100 SXM", None, 132, "memory.shared.sharedMemPerMultiProcessor", "driver attribute", "233472 bytes",
     D("shared_per_sm", "bytes"), None),

    # ---- Accel-Sim SM90_H100 calibration (132 SMs, core clock 1830 MHz in the config) ---------------
    ("accel-sim", "l1.latency", "L1 hit latency", 34.0, "cycles", "latency", "as_is", "H100 SXM", 1830.0, 132,
     "-gpgpu_l1_latency", "simulator parameter", "-gpgpu_l1_latency 34", H("l1.latency"),
     why("definition", SIM_PARAM)),
    ("accel-sim", "memory.shared.latency", "Shared-memory latency", 28.0, "cycles", "latency", "as_is", "H100 SXM",
     1830.0, 132, "-gpgpu_smem_latency", "simulator parameter", "-gpgpu_smem_latency 28",
     R("memory.shared.bank_conflict", "shared/latency_cycles", {"mode": "latency", "stride": 1, "width": 4}),
     why("definition", SIM_PARAM)),
    ("accel-sim", "latency.alu.ffma", "FP32 add/mul/fma latency", 5.0, "cycles", "latency", "as_is", "H100 SXM",
     1830.0, 132, "-ptx_opcode_latency_fp (ADD,MAX,MUL,MAD)", "simulator parameter",
     "-ptx_opcode_latency_fp 5,5,5,5,39", H("ffma.latency"), why("definition", SIM_PARAM)),
    ("accel-sim", "latency.alu.iadd3", "INT32 add latency", 6.0, "cycles", "latency", "as_is", "H100 SXM", 1830.0,
     132, "-ptx_opcode_latency_int (ADD)", "simulator parameter", "-ptx_opcode_latency_int 6,6,6,6,21",
     R("latency.alu.iadd3", "latency/cycles"), why("definition", SIM_PARAM)),
    ("accel-sim", "latency.alu.imad", "INT32 mad latency", 6.0, "cycles", "latency", "as_is", "H100 SXM", 1830.0,
     132, "-ptx_opcode_latency_int (MAD)", "simulator parameter", "-ptx_opcode_latency_int 6,6,6,6,21",
     R("latency.alu.imad", "latency/cycles"), why("definition", SIM_PARAM)),
    ("accel-sim", "latency.alu.dfma", "FP64 add/mul/fma latency", 6.0, "cycles", "latency", "as_is", "H100 SXM",
     1830.0, 132, "-ptx_opcode_latency_dp (MAD)", "simulator parameter", "-ptx_opcode_latency_dp 6,6,6,6,330",
     R("latency.alu.dfma", "latency/cycles"), why("definition", SIM_PARAM)),
    ("accel-sim", "latency.alu.mufu_rcp", "SFU latency", 23.0, "cycles", "latency", "as_is", "H100 SXM", 1830.0, 132,
     "-ptx_opcode_latency_sfu", "simulator parameter", "-ptx_opcode_latency_sfu 23",
     R("latency.alu.mufu_rcp", "latency/cycles"), why("definition", SIM_PARAM)),
    ("accel-sim", "latency.alu.mma_f16_f32", "Tensor-core (HMMA) latency", 25.0, "cycles", "latency", "as_is",
     "H100 SXM", 1830.0, 132, "-ptx_opcode_latency_tesnor", "simulator parameter", "-ptx_opcode_latency_tesnor 25",
     R("latency.alu.mma_f16_f32", "latency/cycles"), None),
    ("accel-sim", "latency.alu.fdiv_rn", "FP32 divide latency", 39.0, "cycles", "latency", "as_is", "H100 SXM",
     1830.0, 132, "-ptx_opcode_latency_fp (DIV)", "simulator parameter", "-ptx_opcode_latency_fp 5,5,5,5,39",
     R("latency.alu.fdiv_rn", "latency/cycles"),
     why("definition", "one simulated DIV unit operation; the hardware has no FP32 divide instruction, div.rn "
         "compiles to a MUFU.RCP and FFMA refinement sequence, which ours times end to end")),
    ("accel-sim", "latency.alu.ddiv_rn", "FP64 divide latency", 330.0, "cycles", "latency", "as_is", "H100 SXM",
     1830.0, 132, "-ptx_opcode_latency_dp (DIV)", "simulator parameter", "-ptx_opcode_latency_dp 6,6,6,6,330",
     R("latency.alu.ddiv_rn", "latency/cycles"),
     why("definition", "one simulated DIV unit operation; the hardware runs div.rn.f64 as a MUFU.RCP64H and DFMA "
         "refinement sequence, which ours times end to end")),
    ("accel-sim", "launch.overhead", "Kernel launch latency", 5000.0 / 1830.0, "us", "time", "as_is", "H100 SXM",
     1830.0, 132, "-gpgpu_kernel_launch_latency", "simulator parameter (5000 core cycles at 1830 MHz)",
     "-gpgpu_kernel_launch_latency 5000", H("launch.overhead"),
     why("definition", "the simulator's delay between kernels on the GPU side; ours is the host's cost per "
         "asynchronous launch, a different interval")),
    ("accel-sim", "platform.sm_count", "SM count", 132.0, "count", "count", "as_is", "H100 SXM", 1830.0, 132,
     "-gpgpu_n_clusters", "simulator configuration", "-gpgpu_n_clusters 132",
     R("topology.cluster.gpc_map", "topology/sms_mapped"), None),
    ("accel-sim", "memory.shared.capacity_per_sm", "Shared memory per SM", 233472.0, "bytes", "size", "as_is",
     "H100 SXM", 1830.0, 132, "-gpgpu_shmem_size", "simulator configuration", "-gpgpu_shmem_size 233472",
     D("shared_per_sm", "bytes"), None),
    ("accel-sim", "scheduler.max_warps_per_sm", "Resident warps per SM", 64.0, "warps", "count", "as_is", "H100 SXM",
     1830.0, 132, "-gpgpu_shader_core_pipeline", "simulator configuration (2048 threads / 32)",
     "-gpgpu_shader_core_pipeline 2048:32", D("max_warps_per_sm", "warps"), None),
    ("accel-sim", "platform.registers.per_sm", "Registers per SM", 65536.0, "registers", "count", "as_is",
     "H100 SXM", 1830.0, 132, "-gpgpu_shader_registers", "simulator configuration", "-gpgpu_shader_registers 65536",
     D("regs_per_sm", "registers"), None),

    # ---- markdewing/AI_kernels: index-array chase, one thread, clock64, clocks not locked -----------
    ("markdewing", "l1.latency", "L1 hit latency", 40.0, "cycles", "latency", "as_is", "H100 SXM", None, 132,
     "latency/README.md table, row H100 SXM", "int index chase a[idx], one thread, clock64 over the loop",
     "H100 SXM | 40 | 291 | 700", H("l1.latency"), why("method", INDEX_CHASE)),
    ("markdewing", "l2.near_latency", "L2 hit latency", 291.0, "cycles", "latency", "as_is", "H100 SXM", None, 132,
     "latency/README.md table, row H100 SXM", "int index chase, one thread", "H100 SXM | 40 | 291 | 700",
     H("l2.near_latency"), None),
    ("markdewing", "dram.latency", "Main memory latency", 700.0, "cycles", "latency", "as_is", "H100 SXM", None, 132,
     "latency/README.md table, row H100 SXM", "int index chase, one thread", "H100 SXM | 40 | 291 | 700",
     H("dram.latency"), None),
    ("markdewing", "l1.latency", "L1 hit latency", 40.0, "cycles", "latency", "as_is", "GH200", None, 132,
     "latency/README.md table, row GH200", "int index chase, one thread", "GH200 | 40 | 281 | 690",
     H("l1.latency"), why("method", INDEX_CHASE)),
    ("markdewing", "l2.near_latency", "L2 hit latency", 281.0, "cycles", "latency", "as_is", "GH200", None, 132,
     "latency/README.md table, row GH200", "int index chase, one thread", "GH200 | 40 | 281 | 690",
     H("l2.near_latency"), None),
    ("markdewing", "dram.latency", "Main memory latency", 690.0, "cycles", "latency", "as_is", "GH200", None, 132,
     "latency/README.md table, row GH200", "int index chase, one thread", "GH200 | 40 | 281 | 690",
     H("dram.latency"), None),

    # ---- NVIDIA datasheet (H100 SXM column unless noted) ---------------------------------------------
    ("nvidia-datasheet", "fp32.peak", "FP32 peak", 67.0, "TFLOPS", "rate_per_clock", "per_sm_per_clock", "H100 SXM",
     H100_SXM_VECTOR_CLOCK, 132, "FP32 row", "vendor peak", "FP32 | 67 TFLOPS", H("fp32.peak"), None),
    ("nvidia-datasheet", "throughput.fp64.tflops", "FP64 (vector) peak", 34.0, "TFLOPS", "rate_per_clock", "per_sm_per_clock",
     "H100 SXM", H100_SXM_VECTOR_CLOCK, 132, "FP64 row", "vendor peak", "FP64 | 34 TFLOPS",
     R("compute.alu.dfma", "throughput/per_clk_per_sm", {}, factor=2.0, unit="FLOP/clk/SM"), None),
    ("nvidia-datasheet", "tensor.wgmma.tf32_f32", "TF32 tensor peak, dense", 989.0 / 2, "TFLOPS", "rate_per_clock",
     "per_sm_per_clock", "H100 SXM", H100_SXM_TENSOR_CLOCK, 132, "TF32 Tensor Core row (half the sparse figure)",
     "vendor peak, dense = half the 2:4-sparse figure (datasheet footnote)", "TF32 Tensor | 989 TFLOPS*",
     H("tensor.wgmma.tf32_f32"), None),
    ("nvidia-datasheet", "tensor.wgmma.bf16_f32", "BF16 tensor peak, dense", 1979.0 / 2, "TFLOPS", "rate_per_clock",
     "per_sm_per_clock", "H100 SXM", H100_SXM_TENSOR_CLOCK, 132, "BFLOAT16 Tensor Core row (half the sparse figure)",
     "vendor peak, dense = half the sparse figure", "BFLOAT16 Tensor | 1,979 TFLOPS*", H("tensor.wgmma.bf16_f32"),
     None),
    ("nvidia-datasheet", "tensor.wgmma.f16_f32", "FP16 tensor peak, dense", 1979.0 / 2, "TFLOPS", "rate_per_clock",
     "per_sm_per_clock", "H100 SXM", H100_SXM_TENSOR_CLOCK, 132, "FP16 Tensor Core row (half the sparse figure)",
     "vendor peak, dense = half the sparse figure", "FP16 Tensor | 1,979 TFLOPS*", H("tensor.wgmma.f16_f32"), None),
    ("nvidia-datasheet", "tensor.wgmma.e4m3_f32", "FP8 tensor peak, dense", 3958.0 / 2, "TFLOPS", "rate_per_clock",
     "per_sm_per_clock", "H100 SXM", H100_SXM_TENSOR_CLOCK, 132, "FP8 Tensor Core row (half the sparse figure)",
     "vendor peak, dense = half the sparse figure", "FP8 Tensor | 3,958 TFLOPS*", H("tensor.wgmma.e4m3_f32"), None),
    ("nvidia-datasheet", "tensor.wgmma.s8_s32", "INT8 tensor peak, dense", 3958.0 / 2, "TOPS", "rate_per_clock",
     "per_sm_per_clock", "H100 SXM", H100_SXM_TENSOR_CLOCK, 132, "INT8 Tensor Core row (half the sparse figure)",
     "vendor peak, dense = half the sparse figure", "INT8 Tensor | 3,958 TOPS*", H("tensor.wgmma.s8_s32"), None),
    ("nvidia-datasheet", "dram.read_bandwidth", "GPU memory bandwidth", 3.35, "TB/s", "bandwidth", "as_is",
     "H100 SXM", None, 132, "GPU memory bandwidth row", "vendor peak (5120-bit HBM3)", "3,350 GB/sec",
     H("dram.read_bandwidth"),
     why("chip", "a peak, not a measurement, on H100's 3.35 TB/s HBM3; our H200 has 4.8 TB/s HBM3e: ours "
         "should lie between 85 % and 100 % of the scaled peak",
         (0.85 * CHIP_H200_OVER_H100_SXM, CHIP_H200_OVER_H100_SXM))),
    ("nvidia-datasheet", "memory.l2.capacity", "L2 cache size", 50.0, "MB", "size", "as_is", "H100 SXM", None, 132,
     "L2 Cache Size row", "vendor figure", "50 MB", D("l2_bytes", "bytes"),
     why("chip", "H200 carries 60 MiB of L2 against H100's 50 MiB (the vendor's 'MB' is MiB here: 52428800 B)",
         (1.2, 1.2))),
    ("nvidia-datasheet", "memory.shared.capacity_per_sm", "Shared memory per SM (max carve-out)", 228.0, "KiB",
     "size", "as_is", "H100 SXM", None, 132, "Shared Memory Size / SM row", "vendor figure",
     "Configurable up to 228 KB", D("shared_per_sm", "bytes"), None),
    ("nvidia-datasheet", "platform.register_file_per_sm", "Register file per SM", 256.0, "KiB", "size", "as_is",
     "H100 SXM", None, 132, "Register File Size / SM row", "vendor figure", "256 KB",
     D("regs_per_sm", "bytes", 4.0), None),
    ("nvidia-datasheet", "platform.sm_count", "SMs", 132.0, "count", "count", "as_is", "H100 SXM", None, 132,
     "SMs row", "vendor figure", "132", R("topology.cluster.gpc_map", "topology/sms_mapped"), None),
    ("nvidia-datasheet", "platform.tpc_count", "TPCs", 66.0, "count", "count", "as_is", "H100 SXM", None, 132,
     "TPCs row", "vendor figure", "66", R("topology.cluster.gpc_map", "topology/tpcs"), None),
    ("nvidia-datasheet", "links.nvlink.bandwidth", "NVLink bandwidth", 900.0, "GB/s", "bandwidth", "as_is",
     "H100 SXM", None, 132, "Interconnect row", "vendor figure, bidirectional", "NVLink: 900GB/s",
     R("links.peer.bandwidth", "bandwidth/gbps"), None),
    ("nvidia-datasheet", "pcie.h2d_bandwidth", "PCIe Gen5 bandwidth, one direction", 128.0 / 2, "GB/s",
     "bandwidth", "as_is", "H100 SXM", None, 132, "Interconnect row (half the bidirectional figure)",
     "vendor link rate, 128 GB/s both directions together", "PCIe Gen5: 128GB/s", H("pcie.h2d_bandwidth"),
     why("definition", "the raw x16 Gen5 link rate; a DMA copy delivers what is left after TLP headers and flow "
         "control, typically 80-95 % of it", (0.8, 0.95))),
    ("nvidia-datasheet", "dram.read_bandwidth", "GPU memory bandwidth (H100 PCIe)", 2.0, "TB/s", "bandwidth",
     "as_is", "H100 PCIe", None, 114, "GPU memory bandwidth row, H100 PCIe column", "vendor peak (HBM2e)",
     "2000 GB/sec", H("dram.read_bandwidth"),
     why("chip", "a peak on H100 PCIe's 2.0 TB/s HBM2e; our H200 has 4.8 TB/s: ours should lie between 85 % and "
         "100 % of the scaled peak", (0.85 * CHIP_H200_OVER_H100_PCIE, CHIP_H200_OVER_H100_PCIE))),

    # ---- AnandTech SC23: NVIDIA's H200 figures -----------------------------------------------------
    ("anandtech-sc23", "dram.read_bandwidth", "H200 memory bandwidth", 4.8, "TB/s", "bandwidth", "as_is", "H200",
     None, 132, "specification table, H200 column", "vendor peak (6144-bit HBM3e)", "Memory Bandwidth 4.8TB/sec",
     H("dram.read_bandwidth"), None),
    ("anandtech-sc23", "dram.write_bandwidth", "H200 memory bandwidth (against our write)", 4.8, "TB/s",
     "bandwidth", "as_is", "H200", None, 132, "specification table, H200 column", "vendor peak",
     "Memory Bandwidth 4.8TB/sec", H("dram.write_bandwidth"), None),
    ("anandtech-sc23", "fp64.tensor_peak", "FP64 tensor peak (H100)", 66.9, "TFLOPS", "rate_per_clock",
     "per_sm_per_clock", "H100 SXM", H100_SXM_VECTOR_CLOCK, 132, "specification table, H100 column",
     "vendor peak", "FP64 Tensor 66.9", R("tensor.mma_sync.f64.m16n8k16", "throughput/flop_per_clk_per_sm"), None),

    # ---- Whitepaper peaks (G. Lockwood's table) --------------------------------------------------------
    ("whitepaper-peaks", "fp32.fma_per_clk_per_sm", "FP32 vector FMA peak", 66.9, "TFLOPS", "rate_per_clock",
     "per_sm_per_clock", "H100 SXM", H100_SXM_VECTOR_CLOCK, 132, "Performance table, FP32 VFMA",
     "theoretical peak at 1.98 GHz", "FP32 | 66.9", H("fp32.peak"), None),
    ("whitepaper-peaks", "fp64.dfma_per_clk_per_sm", "FP64 vector FMA peak", 33.5, "TFLOPS", "rate_per_clock",
     "per_sm_per_clock", "H100 SXM", H100_SXM_VECTOR_CLOCK, 132, "Performance table, FP64 VFMA",
     "theoretical peak at 1.98 GHz", "FP64 | 33.5 | 66.9",
     R("compute.alu.dfma", "throughput/per_clk_per_sm", {}, factor=2.0, unit="FLOP/clk/SM"), None),
    ("whitepaper-peaks", "int32.peak", "INT32 vector peak", 33.5, "TOPS", "rate_per_clock", "per_sm_per_clock",
     "H100 SXM", H100_SXM_VECTOR_CLOCK, 132, "Performance table, INT32 VFMA", "theoretical peak at 1.98 GHz, "
     "a multiply-add counted as two operations", "INT32 | 33.5",
     R("compute.alu.imad", "throughput/per_clk_per_sm", {}, factor=2.0, unit="OP/clk/SM"), None),
    ("whitepaper-peaks", "fp64.tensor_peak", "FP64 matrix peak", 66.9, "TFLOPS", "rate_per_clock",
     "per_sm_per_clock", "H100 SXM", H100_SXM_VECTOR_CLOCK, 132, "Performance table, FP64 Matrix",
     "theoretical peak at 1.98 GHz", "FP64 | 33.5 | 66.9",
     R("tensor.mma_sync.f64.m16n8k16", "throughput/flop_per_clk_per_sm"), None),
    ("whitepaper-peaks", "tensor.wgmma.bf16_f32", "BF16 matrix peak, dense", 989.4, "TFLOPS", "rate_per_clock",
     "per_sm_per_clock", "H100 SXM", H100_SXM_TENSOR_CLOCK, 132, "Performance table, BF16 Matrix",
     "theoretical peak at 1.83 GHz", "BF16 | 133.8 | 989.4 | 1978.9", H("tensor.wgmma.bf16_f32"), None),
    ("whitepaper-peaks", "tensor.wgmma.e4m3_f32", "FP8 matrix peak, dense", 1978.9, "TFLOPS", "rate_per_clock",
     "per_sm_per_clock", "H100 SXM", H100_SXM_TENSOR_CLOCK, 132, "Performance table, FP8 Matrix",
     "theoretical peak at 1.83 GHz", "FP8 | 1978.9 | 3957.8", H("tensor.wgmma.e4m3_f32"), None),
]

CATEGORY = {"l1": "memory", "l2": "memory", "dram": "memory", "memory": "memory", "latency": "latency",
            "fp32": "compute", "fp64": "compute", "int32": "compute", "tensor": "tensor", "launch": "topology",
            "platform": "platform", "throughput": "compute", "scheduler": "scheduler", "links": "links", "pcie": "links",
            "topology": "topology"}


def record(row) -> dict:
    (src, rid, title, value, unit, kind, compare, chip, clock, sms, section, method, written, ours, expl) = row
    value = round(float(value), 6)
    ref = {"source": SOURCES[src]["title"], "source_key": src, "where": SOURCES[src]["where"], "section": section,
           "chip": chip, "sm_count": sms, "method": method, "condition": title, "as_written": written,
           "kind": kind, "compare": compare, "ours": ours, "arch": "sm_90"}
    if clock:
        ref["clock_mhz"] = clock
    if expl:
        ref["explanation"] = expl
    return {"id": rid, "category": CATEGORY[rid.split(".")[0]],
            "params": {"source": src, "chip": chip},
            "status": "ok", "reason": "",
            "metrics": [{"name": "value", "unit": unit, "value": value, "median": value, "min": value, "max": value,
                         "mean": value, "stddev": 0.0, "n": 1}],
            "sass": {"status": "not_applicable", "detail": "published value, not measured here"},
            "derived": False, "extra": {"reference": ref}}


def document() -> dict:
    records = [record(r) for r in ROWS]
    return {
        "schema_version": 2,
        "tool": {"name": "gpudissect", "version": "reference", "git_revision": ""},
        "run_id": "reference-sm_90-published-hopper",
        "started_at": "",
        "finished_at": None,
        "complete": True,
        "options": {"reference": {
            "title": "Hopper (H100 SXM / H100 PCIe / GH200 / H200): quantities others have published, "
                     "each with its source, chip, clock and method",
            "sources": [SOURCES[k]["title"] + " — " + SOURCES[k]["where"] for k in SOURCES],
            "arch": "sm_90",
            "built_from": "scripts/build_published_reference.py"}},
        "device": {"name": "NVIDIA H100 / H200 (Hopper, published)", "cc_major": 9, "cc_minor": 0,
                   "sm_count": 132, "gpu_count": 1},
        "records": records,
    }


def render() -> str:
    return json.dumps(document(), indent=1, ensure_ascii=False) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="fail when the committed JSON differs from the table")
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args()
    text = render()
    if a.check:
        if not a.out.exists() or a.out.read_text(encoding="utf-8") != text:
            print(f"{a.out} is stale: run scripts/build_published_reference.py", file=sys.stderr)
            return 1
        print(f"{a.out}: {len(ROWS)} published quantities from {len({r[0] for r in ROWS})} sources, up to date")
        return 0
    a.out.write_text(text, encoding="utf-8")
    print(f"wrote {a.out}: {len(ROWS)} published quantities from {len({r[0] for r in ROWS})} sources")
    return 0


if __name__ == "__main__":
    sys.exit(main())
