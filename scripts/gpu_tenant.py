#!/usr/bin/env python3
"""Another tenant on the GPU, for scripts/shared_gpu_check.sh: bf16 8192^3 GEMMs back to back
(as a training job would run) for SECONDS, touching READY once its first GEMM has finished."""
import sys
import time

import torch


def main() -> int:
    seconds, ready = float(sys.argv[1]), sys.argv[2]
    a = torch.randn(8192, 8192, dtype=torch.bfloat16, device="cuda")
    b = a @ a
    torch.cuda.synchronize()
    open(ready, "w").close()
    end = time.time() + seconds
    n = 0
    while time.time() < end:
        b = a @ a
        n += 1
        if n % 64 == 0:
            torch.cuda.synchronize()
    torch.cuda.synchronize()
    print(f"tenant: {n} GEMMs in {seconds:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
