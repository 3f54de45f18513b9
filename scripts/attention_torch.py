#!/usr/bin/env python3
"""Times PyTorch's scaled_dot_product_attention on the shapes of gpudissect's attention.fwd probe.

The second method beside our own kernel (src/probes/system/attention.cu): the same f16 problems
(batch x heads x seq x head_dim with batch x heads x seq = 2^18 query rows, causal or not), each
SDPA backend the installed PyTorch offers (flash, cuDNN, memory-efficient), and TFLOPS counted as
the probe counts them: 4 B H N^2 d, halved when causal. Each backend's output is checked against
an f32 softmax(Q K^T / sqrt(d)) V on the first head's first rows before it is timed, and the SM
clock is read from NVML (or nvidia-smi) while a batch of calls runs. Compare TFLOPS, not clocks:
under the power cap NVML's clock reads near the boost clock while the probe's in-kernel clock
(clock64 over %globaltimer) shows the effective one (1500 against 1920-1980 MHz on the H200).
Observes only: no clock or power setting is touched.

  python3 scripts/attention_torch.py [--seqs 1024,4096] [--head-dims 64,128] [--causal 0,1]
                                     [--json out.json]
"""
import argparse
import json
import math
import shutil
import statistics
import subprocess
import sys

TOTAL_ROWS = 1 << 18  # attention.fwd's kTotalRows: batch x heads x seq
CHECK_ROWS = 256      # query rows of the first head compared with the f32 reference
TOLERANCE = 2e-2      # max |out - ref| for f16 inputs in [-1.5, 1.5) and an f16 output


def int_list(text):
    try:
        return [int(x) for x in text.split(",") if x]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a comma list of integers, got '{text}'")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seqs", type=int_list, default=[1024, 2048, 4096, 8192, 16384])
    p.add_argument("--head-dims", type=int_list, default=[64, 128])
    p.add_argument("--causal", type=int_list, default=[0, 1])
    p.add_argument("--min-seconds", type=float, default=0.15, help="timed seconds per point (at least)")
    p.add_argument("--json", help="write the results here as well")
    a = p.parse_args(argv)
    for s in a.seqs:
        if s < 128 or s % 128 or s > TOTAL_ROWS:
            p.error(f"seq must be a multiple of 128 from 128 to {TOTAL_ROWS}; got {s}")
    for d in a.head_dims:
        if d not in (64, 128):
            p.error(f"head_dim must be 64 or 128 (the probe's); got {d}")
    for c in a.causal:
        if c not in (0, 1):
            p.error(f"causal must be 0 or 1; got {c}")
    if a.min_seconds <= 0:
        p.error("--min-seconds must be positive")
    return a


def attention_flops(bh, seq, hd, causal):
    """The probe's convention (analysis/attention_reference.hpp): 4 B H N^2 d, halved when causal."""
    f = 4.0 * bh * seq * seq * hd
    return f / 2 if causal else f


def shape_of(seq):
    """batch x heads with batch x heads x seq = TOTAL_ROWS; 16 heads where there are enough rows."""
    bh = TOTAL_ROWS // seq
    heads = min(bh, 16)
    return bh // heads, heads


class ClockReader:
    """The SM clock in MHz from NVML, else nvidia-smi, else None."""

    def __init__(self):
        self.handle = None
        try:
            import pynvml  # noqa: PLC0415 (optional)

            pynvml.nvmlInit()
            import torch  # noqa: PLC0415

            self.nvml = pynvml
            self.handle = pynvml.nvmlDeviceGetHandleByIndex(torch.cuda.current_device())
        except Exception:  # noqa: BLE001 (absent or unusable: fall back)
            self.handle = None
        self.smi = shutil.which("nvidia-smi")

    def sm_mhz(self):
        if self.handle is not None:
            return float(self.nvml.nvmlDeviceGetClockInfo(self.handle, self.nvml.NVML_CLOCK_SM))
        if self.smi:
            out = subprocess.run([self.smi, "--query-gpu=clocks.sm", "--format=csv,noheader,nounits", "-i", "0"],
                                 capture_output=True, text=True, check=False).stdout.strip()
            try:
                return float(out.splitlines()[0])
            except (ValueError, IndexError):
                return None
        return None

    def source(self):
        return "nvml" if self.handle is not None else "nvidia-smi" if self.smi else "none"


def backends(torch):
    from torch.nn.attention import SDPBackend  # noqa: PLC0415

    found = []
    for name, attr in (("flash", "FLASH_ATTENTION"), ("cudnn", "CUDNN_ATTENTION"), ("efficient", "EFFICIENT_ATTENTION")):
        if hasattr(SDPBackend, attr):
            found.append((name, getattr(SDPBackend, attr)))
    return found


def reference_error(torch, F, q, k, v, out, causal):
    """max |out - ref| over the first head's first CHECK_ROWS query rows, ref in f32."""
    rows = min(CHECK_ROWS, q.shape[2])
    qf, kf, vf = q[0, 0, :rows].float(), k[0, 0].float(), v[0, 0].float()
    s = (qf @ kf.T) / math.sqrt(q.shape[3])
    if causal:
        mask = torch.ones(rows, k.shape[2], dtype=torch.bool, device=q.device).triu(1)
        s = s.masked_fill(mask, float("-inf"))
    ref = torch.softmax(s, dim=-1) @ vf
    return (out[0, 0, :rows].float() - ref).abs().max().item()


def time_point(torch, F, clock, q, k, v, causal, min_seconds):
    """Median microseconds per call (events around each call) and the SM clock under load."""
    call = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal))  # noqa: E731
    for _ in range(3):
        call()
    torch.cuda.synchronize()
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    call()
    e1.record()
    torch.cuda.synchronize()
    one_ms = max(e0.elapsed_time(e1), 1e-3)
    reps = max(5, min(200, int(min_seconds * 1e3 / one_ms)))
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
    for i in range(reps):
        starts[i].record()
        call()
        ends[i].record()
    mhz = clock.sm_mhz()  # read while the batch runs
    torch.cuda.synchronize()
    times = [s.elapsed_time(e) * 1e3 for s, e in zip(starts, ends)]
    return statistics.median(times), reps, mhz


def main(argv):
    args = parse_args(argv)
    try:
        import torch  # noqa: PLC0415
        import torch.nn.functional as F  # noqa: PLC0415
    except ImportError as e:
        print(f"skipped: PyTorch is not installed ({e})")
        return 0
    if not torch.cuda.is_available():
        print("skipped: PyTorch sees no CUDA device")
        return 0
    from torch.nn.attention import sdpa_kernel  # noqa: PLC0415

    clock = ClockReader()
    dev = torch.cuda.get_device_properties(0)
    print(f"# {dev.name}, torch {torch.__version__}, CUDA {torch.version.cuda}, "
          f"cuDNN {torch.backends.cudnn.version()}, clock from {clock.source()}")
    print(f"# {'backend':<10} {'hd':>3} {'causal':>6} {'seq':>6} {'B':>4} {'H':>3} {'time_us':>10} {'TFLOPS':>8} "
          f"{'sm_MHz':>7} {'max_err':>9}")
    results = []
    for hd in args.head_dims:
        for causal in args.causal:
            for seq in args.seqs:
                b, h = shape_of(seq)
                gen = torch.Generator(device="cuda").manual_seed(seq * 1000 + hd * 10 + causal)
                q, k, v = ((torch.rand(b, h, seq, hd, device="cuda", dtype=torch.float16, generator=gen) * 2 - 1) * amp
                           for amp in (1.5, 1.5, 1.0))
                for name, backend in backends(torch):
                    rec = {"backend": name, "head_dim": hd, "causal": causal, "seq": seq, "batch": b, "heads": h}
                    try:
                        with sdpa_kernel([backend]):
                            out = F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal))
                            err = reference_error(torch, F, q, k, v, out, causal)
                            if not err <= TOLERANCE:
                                raise RuntimeError(f"output differs from the f32 reference by {err:.3g} "
                                                   f"(> {TOLERANCE})")
                            us, reps, mhz = time_point(torch, F, clock, q, k, v, causal, args.min_seconds)
                    except RuntimeError as e:  # backend unavailable for this shape, or wrong
                        rec["skipped"] = str(e).splitlines()[0][:200]
                        print(f"  {name:<10} {hd:>3} {causal:>6} {seq:>6} skipped: {rec['skipped']}")
                        results.append(rec)
                        continue
                    tflops = attention_flops(b * h, seq, hd, causal) / (us * 1e-6) / 1e12
                    rec.update(time_us=us, tflops=tflops, sm_clock_mhz=mhz, reps=reps, max_err=err)
                    results.append(rec)
                    mhz_text = f"{mhz:.0f}" if mhz else "?"
                    print(f"  {name:<10} {hd:>3} {causal:>6} {seq:>6} {b:>4} {h:>3} {us:>10.1f} {tflops:>8.1f} "
                          f"{mhz_text:>7} {err:>9.2e}")
                del q, k, v
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": dev.name, "torch": torch.__version__, "clock_source": clock.source(),
                       "flop_convention": "4 B H N^2 d, halved when causal", "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
