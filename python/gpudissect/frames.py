"""Runs (JSON run files, reference datasets) and SQLite result databases as DataFrames: one row
per record and metric, the record's parameters as columns of their own."""
from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path

import pandas as pd

# Columns every frame has, in this order; parameters follow under their own names (a parameter
# whose name collides with one of these is prefixed "param.": param_column, and param_name back).
BASE_COLUMNS = [
    "run_id", "gpu", "seq", "id", "category", "derived", "status", "sass", "sm_clock_mhz",
    "metric", "unit", "value", "min", "max", "q1", "q3", "n", "source", "section", "condition",
]


def read_json(path, what: str):
    """A JSON file, gzip-compressed or not (data/measured's *.json.gz), as the binary reads it;
    ValueError naming the file and `what` it should have been when it cannot be read."""
    try:
        raw = Path(path).read_bytes()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        return json.loads(raw.decode("utf-8"))
    except (OSError, EOFError, gzip.BadGzipFile, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: not a readable {what}: {e}") from e


def read_run(path) -> dict:
    """The run document as parsed JSON, checked to be a gpudissect run file."""
    path = Path(path)
    doc = read_json(path, "run file")
    if not isinstance(doc, dict) or "records" not in doc or "schema_version" not in doc:
        raise ValueError(f"{path}: not a gpudissect run file (no schema_version or records)")
    return doc


PARAM_PREFIX = "param."


def param_column(name: str) -> str:
    """The frame column holding the record parameter `name`."""
    return PARAM_PREFIX + name if name in BASE_COLUMNS else name


def param_name(column: str) -> str:
    """The parameter a frame column holds, as the run file names it: what a reader should see."""
    bare = column[len(PARAM_PREFIX):] if column.startswith(PARAM_PREFIX) else column
    return bare if bare in BASE_COLUMNS else column


def _frame(rows: list[dict], param_order: list[str]) -> pd.DataFrame:
    columns = BASE_COLUMNS + [c for c in param_order if c not in BASE_COLUMNS]
    df = pd.DataFrame(rows, columns=columns)
    for c in ("value", "min", "max", "q1", "q3", "sm_clock_mhz"):
        df[c] = pd.to_numeric(df[c], errors="coerce")
    df["n"] = pd.to_numeric(df["n"], errors="coerce").astype("Int64")
    df["derived"] = df["derived"].astype(bool)
    return df


def _record_rows(doc: dict, gpu: str) -> tuple[list[dict], list[str]]:
    rows, order = [], []
    for seq, rec in enumerate(doc.get("records", [])):
        params = {param_column(k): v for k, v in (rec.get("params") or {}).items()}
        for k in params:
            if k not in order:
                order.append(k)
        extra = rec.get("extra") or {}
        ref = extra.get("reference") or {}
        for m in rec.get("metrics", []):
            rows.append({
                "run_id": doc.get("run_id", ""),
                "gpu": gpu,
                "seq": seq,
                "id": rec.get("id", ""),
                "category": rec.get("category", ""),
                "derived": bool(rec.get("derived", False)),
                "status": rec.get("status", ""),
                "sass": (rec.get("sass") or {}).get("status", ""),
                "sm_clock_mhz": rec.get("sm_clock_mhz"),
                "metric": m.get("name", ""),
                "unit": m.get("unit", ""),
                "value": m.get("value", m.get("median")),
                "min": m.get("min"),
                "max": m.get("max"),
                "q1": m.get("q1"),
                "q3": m.get("q3"),
                "n": m.get("n"),
                "source": ref.get("source"),
                "section": ref.get("section"),
                "condition": ref.get("condition"),
                **params,
            })
    return rows, order


def load_run(path) -> pd.DataFrame:
    """One row per record and metric of a run file (or a reference dataset in the run schema).

    Columns: run_id, gpu, id, category, derived, status, sass (the SASS check), sm_clock_mhz,
    metric, unit, value (the median), min, max, q1, q3 (the quartiles, where the run has them), n, source/section/condition (reference datasets
    only), then one column per parameter name (NaN where a record lacks it). Records without
    metrics (skipped, failed) have no rows.
    """
    return run_frame(read_run(path))


def run_frame(doc: dict) -> pd.DataFrame:
    """load_run's frame of a run document already read (read_run)."""
    rows, order = _record_rows(doc, (doc.get("device") or {}).get("name", ""))
    return _frame(rows, order)


def load_db(path) -> pd.DataFrame:
    """The same frame over every run a results database (`gpudissect run --db`, `import`) holds."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such database")
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        q = ("SELECT runs.run_id, runs.gpu_name AS gpu, records.seq, records.id, records.category, "
             "records.derived, records.status, records.sass_status AS sass, records.sm_clock_mhz, "
             "metrics.name AS metric, metrics.unit, metrics.value, metrics.min, metrics.max, metrics.n, "
             "records.params_json FROM runs "
             "JOIN records ON records.run_id = runs.run_id "
             "JOIN metrics ON metrics.run_id = records.run_id AND metrics.seq = records.seq "
             "ORDER BY runs.started_at, records.seq")
        raw = pd.read_sql_query(q, con)
    except (sqlite3.DatabaseError, pd.errors.DatabaseError) as e:
        raise ValueError(f"{path}: not a gpudissect results database: {e}") from e
    finally:
        con.close()
    rows, order = [], []
    for rec in raw.to_dict("records"):
        params = {param_column(k): v for k, v in json.loads(rec.pop("params_json") or "{}").items()}
        for k in params:
            if k not in order:
                order.append(k)
        rows.append({**rec, "source": None, "section": None, "condition": None, **params})
    return _frame(rows, order)
