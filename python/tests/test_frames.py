"""load_run and load_db: one row per record and metric, params as columns, values as in the file."""
import gzip
import json
import sqlite3
import subprocess

import pandas as pd
import pytest

from conftest import BINARY, RUN
from gpudissect import load_db, load_run


def test_load_run_is_one_row_per_record_and_metric():
    doc = json.loads(RUN.read_text())
    df = load_run(RUN)
    assert len(df) == sum(len(r["metrics"]) for r in doc["records"])
    assert {"id", "metric", "unit", "value", "bytes", "variant", "ilp", "warps_per_sm", "op", "level"} <= set(df.columns)
    assert df["derived"].dtype == bool


def test_load_run_values_match_the_file():
    doc = json.loads(RUN.read_text())
    rec = next(r for r in doc["records"] if r["id"] == "memory.latency.chase" and r["params"].get("level") == "DRAM"
               and r["params"]["variant"] == "cg")
    want = next(m["value"] for m in rec["metrics"] if m["name"] == "latency/cycles")
    df = load_run(RUN)
    got = df[(df["id"] == "memory.latency.chase") & (df["level"] == "DRAM") & (df["variant"] == "cg")
             & (df["metric"] == "latency/cycles")]["value"]
    assert got.tolist() == [pytest.approx(want)]
    # A parameter a record lacks is missing, not zero.
    assert df[df["id"] == "latency.alu.ffma"]["bytes"].isna().all()


def test_a_gzip_compressed_run_reads_as_the_plain_file(tmp_path):
    packed = tmp_path / "run.json.gz"
    packed.write_bytes(gzip.compress(RUN.read_bytes()))
    pd.testing.assert_frame_equal(load_run(packed), load_run(RUN))
    cut = tmp_path / "cut.json.gz"
    cut.write_bytes(packed.read_bytes()[:200])
    with pytest.raises(ValueError, match="not a readable run file"):
        load_run(cut)


def test_a_param_named_like_a_column_is_prefixed(tmp_path):
    doc = json.loads(RUN.read_text())
    doc["records"] = [doc["records"][0]]
    doc["records"][0]["params"] = {"metric": "x", "ilp": 1}
    p = tmp_path / "run.json"
    p.write_text(json.dumps(doc))
    df = load_run(p)
    assert "param.metric" in df.columns and set(df["param.metric"]) == {"x"}


def test_not_a_run_file_is_a_clear_error(tmp_path):
    p = tmp_path / "x.json"
    p.write_text('{"hello": 1}')
    with pytest.raises(ValueError, match="not a gpudissect run file"):
        load_run(p)


@pytest.mark.skipif(not BINARY, reason="needs GPUDISSECT_BINARY (ctest sets it) to build a database with `import`")
def test_load_db_matches_load_run(tmp_path):
    db = tmp_path / "r.db"
    subprocess.run([BINARY, "import", str(RUN), "--db", str(db)], check=True, capture_output=True)
    from_db = load_db(db)
    from_file = load_run(RUN)
    assert len(from_db) == len(from_file)
    cols = ["seq", "id", "metric", "value"]
    a = from_db[cols].sort_values(["seq", "metric"]).reset_index(drop=True)
    b = from_file[cols].sort_values(["seq", "metric"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b, check_dtype=False)
    assert from_db.loc[from_db["id"] == "memory.latency.chase", "bytes"].notna().any()


def test_load_db_rejects_other_databases(tmp_path):
    db = tmp_path / "other.db"
    sqlite3.connect(db).execute("CREATE TABLE t (x)").connection.commit()
    with pytest.raises(ValueError, match="not a gpudissect results database"):
        load_db(db)
