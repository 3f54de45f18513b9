"""Reading side of gpudissect: runs and result databases as pandas DataFrames, and the figures of
the HTML report (drawn with matplotlib). The binary measures; this package only reads.

    from gpudissect import load_run, load_db
    df = load_run("data/measured/nvidia-h200-2026-11-29.json")   # one row per record and metric
    model = load_model("h200-model.json")   # `gpudissect export RUN --format model --out h200-model.json`
"""
from .frames import load_db, load_run, read_run
from .model import load_model

__all__ = ["load_run", "load_db", "read_run", "load_model"]
