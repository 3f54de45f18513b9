import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))
RUN = ROOT / "data" / "measured" / "nvidia-h200-2026-11-29.json"
BINARY = os.environ.get("GPUDISSECT_BINARY", "")
