#!/usr/bin/env python3
"""Times PyTorch's matmul with the protocol of gpudissect's GEMM ceilings (gemm.ceiling.*).

The second method beside src/probes/system/gemm_measure.hpp, with the same two figures:
  first_calls  what a framework benchmark reports: after a 0.1 s rest, 3 warm-up calls, then the
               mean rate of 10 back-to-back calls timed by one pair of CUDA events; the groups'
               median (each group rests first, so none runs on the clock's way down).
  steady       calls back to back in ~20 ms chunks until the rate stops changing (at least 1 s
               of load; the medians of two adjacent 0.25 s windows within 2 %), then the chunks'
               median over at least 1 s.
with NVML's board power and SM clock over each window (pynvml, where installed). The numbers
live in tests/fixtures/gemm_protocol.json too; a test keeps this file and the probe on them.
Operands are uniform in [-1, 1) rounded to the type, as the probe's (power depends on the data).
Types: bf16, fp16, tf32 (fp32 tensors, allow_tf32), fp8_e4m3 and fp8_e4m3_fast (torch._scaled_mm,
per-tensor scales of 1, bf16 out, without and with fast accumulation). Shapes use the probe's
names: sq8192 is 8192^3, m128_n8192_k8192 the skinny one. Needs PyTorch with a CUDA GPU; no network.
Observes only: no clock or power setting is touched.

  python3 scripts/gemm_torch.py [--types bf16,fp16] [--shapes sq8192] [--json out.json] [--dry-run]
"""
import argparse
import json
import re
import statistics
import sys
import threading
import time
from pathlib import Path

# The protocol: the same numbers as gemm_measure.hpp's kProtocol (tests/fixtures/gemm_protocol.json).
PROTOCOL = {
    "warmup_calls": 3,
    "timed_calls": 10,
    "rest_s": 0.1,
    "min_groups": 5,
    "max_groups": 10,
    "settle": {"min_load_s": 1.0, "window_s": 0.25, "tolerance": 0.02, "min_chunks": 3},
    "max_load_s": 4.0,
    "chunk_s": 0.02,
    "steady_s": 1.0,
}
TYPES = ("bf16", "fp16", "tf32", "fp8_e4m3", "fp8_e4m3_fast")
DEFAULT_SHAPES = ("sq8192", "m128_n8192_k8192")
NVML_INTERVAL_S = 0.005


def parse_shape(name):
    """The probe's shape names (gemm_inputs.hpp parse_shape): sqN or mM_nN_kK -> (m, n, k)."""
    m = re.fullmatch(r"sq(\d+)", name)
    if m:
        return (int(m.group(1)),) * 3
    m = re.fullmatch(r"m(\d+)_n(\d+)_k(\d+)", name)
    if m:
        return tuple(int(g) for g in m.groups())
    raise ValueError(f"unknown shape '{name}' (sqN or mM_nN_kK)")


def name_list(choices=None):
    def parse(text):
        names = [x for x in text.split(",") if x]
        if not names:
            raise argparse.ArgumentTypeError("expected a comma list")
        for n in names:
            if choices is not None and n not in choices:
                raise argparse.ArgumentTypeError(f"unknown '{n}' (one of {', '.join(choices)})")
            if choices is None:
                try:
                    dims = parse_shape(n)
                except ValueError as e:
                    raise argparse.ArgumentTypeError(str(e))
                if min(dims) < 16 or any(d % 16 for d in dims):
                    raise argparse.ArgumentTypeError(f"shape '{n}': every dimension a positive multiple of 16 "
                                                     "(what FP8's _scaled_mm requires)")
        return names
    return parse


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--types", type=name_list(TYPES), default=list(TYPES))
    p.add_argument("--shapes", type=name_list(), default=list(DEFAULT_SHAPES))
    p.add_argument("--groups", type=int, default=PROTOCOL["max_groups"],
                   help="first_calls groups per point (the probe takes 5 to 10; groups rest first, so the count "
                        "changes the precision, not the figure)")
    p.add_argument("--device", type=int, default=0, help="CUDA device index")
    p.add_argument("--json", help="write the results here as well")
    p.add_argument("--dry-run", action="store_true", help="print and write the plan; no PyTorch, no GPU")
    a = p.parse_args(argv)
    if a.groups < 1:
        p.error("--groups must be at least 1")
    return a


def settled_at(t_s, rate, min_load_s, window_s, tolerance, min_chunks):
    """analysis/power_model's settled_at: the end time t of the first chunk with t >= min_load_s at
    which the chunks ending in (t - window_s, t] and in (t - 2 window_s, t - window_s] number at
    least min_chunks each and have medians within `tolerance` of the later one; None if none does."""
    if len(t_s) != len(rate):
        raise ValueError("settled_at: unequal lengths")
    for t in t_s:
        if t < min_load_s:
            continue
        late = [r for u, r in zip(t_s, rate) if t - window_s < u <= t]
        early = [r for u, r in zip(t_s, rate) if t - 2 * window_s < u <= t - window_s]
        if len(late) < min_chunks or len(early) < min_chunks:
            continue
        m_late, m_early = statistics.median(late), statistics.median(early)
        if abs(m_late - m_early) <= tolerance * m_late:
            return t
    return None


def settle_rule_for(call_s, protocol=PROTOCOL):
    """gemm_measure.hpp's settle_rule_for: windows wide enough for min_chunks chunks of slow calls."""
    rule = dict(protocol["settle"])
    rule["window_s"] = max(rule["window_s"], rule["min_chunks"] * max(protocol["chunk_s"], call_s))
    return rule


def chunk_calls(call_s, protocol=PROTOCOL):
    """gemm_measure.hpp's chunk_calls: about chunk_s of work, at least one call."""
    if not call_s > 0:
        raise ValueError("chunk_calls: a call must take positive time")
    return max(1, round(protocol["chunk_s"] / call_s))


def plan(args):
    return [{"type": t, "shape": s, "m": m, "n": n, "k": k}
            for s in args.shapes for t in args.types for (m, n, k) in [parse_shape(s)]]


def document(args, results, environment):
    """The JSON the script writes: the protocol, where it ran, one entry per point."""
    unit = "TFLOPS, 2MNK per call"
    return {"tool": "scripts/gemm_torch.py", "protocol": PROTOCOL, "rate_unit": unit, "dry_run": args.dry_run,
            **environment, "results": results}


class NvmlSampler:
    """NVML power (instantaneous where the driver has it, as core/nvml.cpp) and SM clock on a thread."""

    def __init__(self, torch, device):
        self.samples, self.why, self.handle = [], "", None
        try:
            import pynvml  # noqa: PLC0415 (optional)

            pynvml.nvmlInit()
            self.nvml = pynvml
            props = torch.cuda.get_device_properties(device)
            try:
                bus = f"{props.pci_domain_id:08x}:{props.pci_bus_id:02x}:{props.pci_device_id:02x}.0"
                self.handle = pynvml.nvmlDeviceGetHandleByPciBusId(bus.encode())
            except Exception:  # noqa: BLE001 (older torch has no PCI fields: the index then)
                self.handle = pynvml.nvmlDeviceGetHandleByIndex(device)
        except Exception as e:  # noqa: BLE001
            self.why = f"no NVML through pynvml ({e})"

    def source(self):
        return "nvml" if self.handle is not None else self.why

    def read(self):
        n = self.nvml
        field = getattr(n, "NVML_FI_DEV_POWER_INSTANT", None)
        watts = None
        if field is not None:
            try:
                v = n.nvmlDeviceGetFieldValues(self.handle, [field])[0]
                if v.nvmlReturn == 0:  # milliwatts, in the member the value type names
                    member = {0: "dVal", 1: "uiVal", 2: "ulVal", 3: "ullVal", 4: "sllVal"}.get(v.valueType, "uiVal")
                    watts = float(getattr(v.value, member)) / 1000.0
            except Exception:  # noqa: BLE001
                watts = None
        if watts is None:
            watts = n.nvmlDeviceGetPowerUsage(self.handle) / 1000.0
        return watts, float(n.nvmlDeviceGetClockInfo(self.handle, n.NVML_CLOCK_SM))

    def __enter__(self):
        self.samples, self.t0 = [], time.perf_counter()
        self.stop = threading.Event()
        if self.handle is not None:
            self.thread = threading.Thread(target=self._run, daemon=True)
            self.thread.start()
        return self

    def _run(self):
        while not self.stop.is_set():
            w, mhz = self.read()
            self.samples.append((time.perf_counter() - self.t0, w, mhz))
            time.sleep(NVML_INTERVAL_S)

    def __exit__(self, *exc):
        self.stop.set()
        if self.handle is not None:
            self.thread.join()

    def now(self):
        return time.perf_counter() - self.t0

    def means(self, windows=None):
        """Mean power and SM clock of the samples inside `windows` ([(begin, end)], None: all)."""
        picked = [(w, mhz) for t, w, mhz in self.samples
                  if windows is None or any(b <= t <= e for b, e in windows)]
        if not picked:
            return None, None
        return statistics.fmean(w for w, _ in picked), statistics.fmean(m for _, m in picked)


def make_call(torch, gemm_type, m, n, k, device):
    gen = torch.Generator(device=device).manual_seed(m * 7 + n * 3 + k)

    def uniform(rows, cols, dtype):
        return (torch.rand(rows, cols, device=device, generator=gen) * 2 - 1).to(dtype)

    torch.backends.cuda.matmul.allow_tf32 = gemm_type == "tf32"
    if gemm_type in ("bf16", "fp16", "tf32"):
        dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "tf32": torch.float32}[gemm_type]
        a, b = uniform(m, k, dtype), uniform(k, n, dtype)
        return lambda: torch.matmul(a, b)
    if not hasattr(torch, "_scaled_mm") or not hasattr(torch, "float8_e4m3fn"):
        raise RuntimeError("this PyTorch has no torch._scaled_mm / float8_e4m3fn")
    a = uniform(m, k, torch.float8_e4m3fn)
    b = uniform(n, k, torch.float8_e4m3fn).t()  # column-major, as _scaled_mm wants
    one = torch.ones((), device=device, dtype=torch.float32)
    fast = gemm_type == "fp8_e4m3_fast"
    return lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16, use_fast_accum=fast)


def time_point(torch, call, ops, nvml, groups):
    """Both figures of one point, as gemm_measure.hpp's measure_gemm takes them."""
    p = PROTOCOL
    event = lambda: torch.cuda.Event(enable_timing=True)  # noqa: E731
    e0, e1 = event(), event()
    call()  # the first call loads the kernel: outside every figure, as the probe's check call is
    torch.cuda.synchronize()
    rates, windows = [], []
    with nvml:
        for _ in range(groups):
            time.sleep(p["rest_s"])
            begin = nvml.now()
            for _ in range(p["warmup_calls"]):
                call()
            e0.record()
            for _ in range(p["timed_calls"]):
                call()
            e1.record()
            e1.synchronize()
            windows.append((begin, nvml.now()))
            rates.append(ops * p["timed_calls"] / (e0.elapsed_time(e1) * 1e-3) / 1e12)
    first_w, first_mhz = nvml.means(windows)
    first = statistics.median(rates)
    call_s = ops / (first * 1e12)
    calls = chunk_calls(call_s)
    rule = settle_rule_for(call_s)

    def chunk():
        e0.record()
        for _ in range(calls):
            call()
        e1.record()
        e1.synchronize()
        return ops * calls / (e0.elapsed_time(e1) * 1e-3) / 1e12

    at, series, settle = [], [], None
    load0 = time.perf_counter()
    while settle is None and (not at or at[-1] < p["max_load_s"]):
        series.append(chunk())
        at.append(time.perf_counter() - load0)
        settle = settled_at(at, series, **rule)
    steady = []
    with nvml:
        start = time.perf_counter()
        while len(steady) < 10 or time.perf_counter() - start < p["steady_s"]:
            steady.append(chunk())
    steady_w, steady_mhz = nvml.means()
    return {"first_calls_tflops": first, "first_calls_groups": rates, "first_calls_power_w": first_w,
            "first_calls_sm_mhz": first_mhz, "steady_tflops": statistics.median(steady), "steady_chunks": len(steady),
            "chunk_calls": calls, "settle_s": settle, "load_before_steady_s": at[-1], "steady_power_w": steady_w,
            "steady_sm_mhz": steady_mhz, "settle_window_s": rule["window_s"]}


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def print_row(r):
    if "skipped" in r:
        print(f"  {r['type']:<14} {r['shape']:<18} skipped: {r['skipped']}")
    elif "first_calls_tflops" not in r:
        print(f"  {r['type']:<14} {r['shape']:<18} m={r['m']} n={r['n']} k={r['k']} (planned)")
    else:
        print(f"  {r['type']:<14} {r['shape']:<18} {r['first_calls_tflops']:>9.1f} {fmt(r['first_calls_sm_mhz'], '>7.0f')} "
              f"{fmt(r['first_calls_power_w'], '>6.0f')}   {r['steady_tflops']:>9.1f} {fmt(r['steady_sm_mhz'], '>7.0f')} "
              f"{fmt(r['steady_power_w'], '>6.0f')} {fmt(r['settle_s'], '>7.2f')}")


def main(argv):
    args = parse_args(argv)
    points = plan(args)
    environment = {}
    header = (f"  {'type':<14} {'shape':<18} {'first_TF':>9} {'MHz':>7} {'W':>6}   {'steady_TF':>9} {'MHz':>7} "
              f"{'W':>6} {'settle':>7}")
    if args.dry_run:
        print("# dry run: the points and protocol; nothing is timed")
        results = points
    else:
        try:
            import torch  # noqa: PLC0415
        except ImportError as e:
            print(f"error: gemm_torch.py needs PyTorch ({e}); --dry-run shows the plan without it", file=sys.stderr)
            return 2
        if not torch.cuda.is_available():
            print("error: PyTorch sees no CUDA device; this script times GEMMs on a GPU (--dry-run shows the plan)",
                  file=sys.stderr)
            return 2
        device = torch.device("cuda", args.device)
        torch.cuda.set_device(device)
        nvml = NvmlSampler(torch, args.device)
        props = torch.cuda.get_device_properties(args.device)
        environment = {"device": props.name, "torch": torch.__version__, "cuda": torch.version.cuda,
                       "power_source": nvml.source()}
        print(f"# {props.name}, torch {torch.__version__}, CUDA {torch.version.cuda}, power and clock: {nvml.source()}")
        results = []
        print(header)
        for pt in points:
            rec = dict(pt)
            try:
                call = make_call(torch, pt["type"], pt["m"], pt["n"], pt["k"], device)
                rec.update(time_point(torch, call, 2.0 * pt["m"] * pt["n"] * pt["k"], nvml, args.groups))
            except RuntimeError as e:  # no FP8 path on this chip or build, out of memory
                rec["skipped"] = str(e).splitlines()[0][:200]
            results.append(rec)
            print_row(rec)
            call = None
            torch.cuda.empty_cache()
    if args.dry_run:
        print(header)
        for r in results:
            print_row(r)
    if args.json:
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        with open(args.json, "w") as f:
            json.dump(document(args, results, environment), f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
