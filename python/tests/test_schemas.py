"""The JSON Schemas in schemas/ (draft 2020-12), checked with the jsonschema package: each schema is
itself valid, every committed run and reference dataset and the test fixture match run.schema.json
(journal lines included), and the --json documents of list, verify, compare, validate and info match
theirs. A schema that accepted anything would pass all of this, so each is also shown to reject."""
import copy
import gzip
import json
import os
import subprocess

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from conftest import BINARY, ROOT

SCHEMAS = ROOT / "schemas"


def read_json(path):
    """A JSON file, gzip-compressed or not (data/measured keeps its datasets as *.json.gz)."""
    raw = path.read_bytes()
    return json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)


RUNS = sorted(p for d in ("data/measured", "data/reference") for pat in ("*.json", "*.json.gz") for p in (ROOT / d).glob(pat)
              if "schema_version" in read_json(p))
FIXTURE = ROOT / "tests" / "fixtures" / "runs" / "h200_small.json"
# Made-up Blackwell runs (sm_100a's tcgen05.mma, sm_120a's FP4/FP6 mma.sync): no value in them was
# measured; they show that the exports read such a run unchanged until such a card is lent.
BLACKWELL = [ROOT / "tests" / "fixtures" / "runs" / f"{n}_synthetic.json" for n in ("b200", "rtx5090")]


def load(name):
    return json.loads((SCHEMAS / f"{name}.schema.json").read_text())


# Every schema under its $id, so a reference from one schema to another resolves.
REGISTRY = Registry().with_resources(
    (s["$id"], Resource.from_contents(s)) for s in (json.loads(p.read_text()) for p in SCHEMAS.glob("*.json")))


def validator(name, definition=None):
    schema = load(name)
    if definition:
        schema = {"$ref": f"{schema['$id']}#/$defs/{definition}"}
    return Draft202012Validator(schema, registry=REGISTRY)


def errors(name, doc, definition=None):
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}"
            for e in validator(name, definition).iter_errors(doc)][:10]


@pytest.mark.parametrize("path", sorted(SCHEMAS.glob("*.json")), ids=lambda p: p.name)
def test_every_schema_is_a_valid_draft_2020_12_schema(path):
    schema = json.loads(path.read_text())
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


def test_there_are_committed_runs_to_check():
    assert len(RUNS) >= 8, RUNS  # measured runs and the reference datasets


@pytest.mark.parametrize("path", RUNS + [FIXTURE] + BLACKWELL, ids=lambda p: p.name)
def test_every_committed_run_matches_the_run_schema(path):
    assert errors("run", read_json(path)) == []


def journal_of(run):
    """The lines a journal of this run holds: header, records, finish (as RunJournal writes them)."""
    header = {k: v for k, v in run.items() if k != "records"}
    finish = {"finished_at": run.get("finished_at") or "", "complete": run.get("complete", False)}
    return ([{"gpudissect_journal": 1, "header": header}] + [{"record": r} for r in run["records"]]
            + [{"finish": finish}])


def test_journal_lines_match_their_definitions():
    run = read_json(RUNS[-1])
    lines = journal_of(run)
    kinds = ["journal_header"] + ["journal_record"] * len(run["records"]) + ["journal_finish"]
    for line, kind in zip(lines, kinds):
        assert errors("run", line, kind) == [], kind
    with_records = copy.deepcopy(lines[0])
    with_records["header"]["records"] = []
    assert errors("run", with_records, "journal_header"), "a journal header carries no records"


def test_the_run_schema_rejects_what_the_reader_refuses():
    good = json.loads(FIXTURE.read_text())
    for damage, where in (
            (lambda d: d["records"][0].update(status="weird"), "records/0/status"),
            (lambda d: d["records"][0]["metrics"][0].pop("n"), "records/0/metrics/0"),
            (lambda d: d["records"][0]["params"].update(chain=[1]), "records/0/params/chain"),
            (lambda d: d.update(schema_version=99), "schema_version"),
            (lambda d: d["device"].pop("sm_count"), "device"),
            (lambda d: d.pop("records"), ""),
            (lambda d: d.update(surprise=1), "")):
        doc = copy.deepcopy(good)
        damage(doc)
        found = errors("run", doc)
        assert found, f"accepted a run damaged at '{where}'"
        assert any(e.startswith(where) for e in found), (where, found)


def binary_json(*args):
    if not BINARY:
        pytest.skip("GPUDISSECT_BINARY is not set (ctest sets it)")
    r = subprocess.run([BINARY, *args], capture_output=True, text=True, env={**os.environ, "GPUDISSECT_CACHE_DIR": "off"})
    return r.returncode, (json.loads(r.stdout) if r.stdout.strip().startswith("{") else None), r


def test_list_json_matches_its_schema():
    rc, doc, r = binary_json("list", "--json")
    assert rc == 0, r.stderr
    assert errors("list", doc) == []
    del doc["probes"][0]["id"]
    assert errors("list", doc), "the list schema accepts a probe without an id"


def test_verify_json_matches_its_schema():
    rc, doc, r = binary_json("verify", "--json", "--arch", "sm_90a", "--filter", "latency.alu.ffma")
    assert rc in (0, 1), r.stderr  # 1 without a disassembler: nothing verified
    assert errors("verify", doc) == []
    doc["results"][0]["sass"] = "fine"
    assert errors("verify", doc)


def test_compare_json_matches_its_schema():
    rc, doc, r = binary_json("compare", "--json", str(FIXTURE), str(FIXTURE))
    assert rc == 0, r.stderr
    assert errors("compare", doc) == []
    rc, other, r = binary_json("compare", "--json", str(FIXTURE), str(RUNS[0]))  # records only one side has
    assert rc == 0, r.stderr
    assert errors("compare", other) == [] and other["only_b"]


def test_validate_json_matches_its_schema():
    suite = max((p for p in RUNS if "-suite.json" in p.name), key=lambda p: p.name)
    rc, doc, r = binary_json("validate", "--json", str(suite))
    assert rc == 0, r.stderr
    assert errors("validate", doc) == []


def test_info_json_and_every_measured_runs_device_match_the_info_schema():
    for path in [p for p in RUNS if "data/measured" in str(p)] + [FIXTURE]:
        device = read_json(path)["device"]
        assert errors("info", device, "device") == [], path.name
    broken = copy.deepcopy(json.loads(FIXTURE.read_text())["device"])
    broken.pop("sm_count")
    assert errors("info", broken, "device")
    rc, doc, r = binary_json("info", "--json")
    if rc == 3:
        pytest.skip("no usable GPU here: the device objects of the committed runs are checked above")
    assert rc == 0, r.stderr
    assert errors("info", doc) == []


TABLES = sorted((ROOT / "data/measured").glob("*run-to-run*.json*"))


def test_the_committed_run_to_run_table_matches_its_schema():
    assert TABLES, "data/measured keeps the run-to-run noise table compare --noise reads"
    for path in TABLES:
        assert errors("run-to-run", read_json(path)) == [], path.name
    doc = read_json(TABLES[0])
    doc["groups"][0]["sigma"] = -1
    assert errors("run-to-run", doc), "the schema accepts a negative sigma"
    doc = read_json(TABLES[0])
    doc["runs"] = doc["runs"][:1]
    assert errors("run-to-run", doc), "the schema accepts a table of one run"


def test_noise_writes_what_its_schema_describes(tmp_path):
    runs = [p for p in RUNS if p.name.startswith("nvidia-h200-2026-12-02f-") and "quick" not in p.name]
    out = tmp_path / "t.json"
    rc, _, r = binary_json("noise", *map(str, runs), "--out", str(out))
    assert rc == 0, r.stderr
    assert errors("run-to-run", json.loads(out.read_text())) == []
    rc, doc, r = binary_json("compare", "--json", "--noise", str(out), *map(str, runs))
    assert rc == 0, r.stderr
    assert errors("compare", doc) == []
    assert doc["summary"]["noise_table"]["pairs"] == 1
    assert any(m["test"] == "run-to-run" for rec in doc["matched"] for m in rec["metrics"])


def test_the_machine_model_matches_its_schema_and_loads(tmp_path):
    from gpudissect import load_model
    suite = max((p for p in RUNS if "-suite.json" in p.name), key=lambda p: p.name)
    out = tmp_path / "model.json"
    rc, _, r = binary_json("export", str(suite), "--format", "model", "--out", str(out))
    assert rc == 0, r.stderr
    doc = load_model(out)
    assert errors("model", doc) == []
    assert len(doc["instructions"]) >= 40 and doc["roofline"]["compute"] and doc["roofline"]["bandwidth"]
    doc["roofline"]["bandwidth"][0]["level"] = "L3"
    assert errors("model", doc), "the schema accepts a memory level the model never writes"
    doc = load_model(out)
    del doc["instructions"][0]["latency_record"]
    assert errors("model", doc), "the schema accepts an instruction without its record"
    # The cache levels memory.hierarchy.* measured: the constant L1's geometry, each answer with its record.
    doc = load_model(out)
    levels = {c["level"]: c for c in doc["caches"]}
    assert levels["constant_l1"]["capacity"]["value"] == 2048 and "ways" in levels["constant_l1"]
    assert levels["l1"]["line"]["shown"] == "128 B" and levels["l1"]["line"]["record"].startswith("memory.hierarchy.capacity")
    levels["l1"]["line"]["bytes"] = 128
    assert errors("model", doc), "the schema accepts a cache answer field it does not define"


@pytest.mark.parametrize("path", BLACKWELL, ids=lambda p: p.name)
def test_a_blackwell_runs_model_and_accel_sim_export_need_no_change(path, tmp_path):
    from gpudissect import load_model
    out = tmp_path / "model.json"
    rc, _, r = binary_json("export", str(path), "--format", "model", "--out", str(out))
    assert rc == 0, r.stderr
    doc = load_model(out)
    assert errors("model", doc) == []
    rows = {(t["instruction"], t["type"], t.get("operands")) for t in doc["tensor"]}
    ceilings = {c["name"] for c in doc["roofline"]["compute"]}
    if "b200" in path.name:
        assert ("tcgen05.mma", "f16", "ts") in rows, "A read from tensor memory is a row of its own"
        assert {"tcgen05 f16 → f32", "tcgen05 fp8 e4m3 → f32", "tcgen05 int8 → s32"} <= ceilings
    else:
        assert ("mma.sync", "f8f6f4_e2m1.m16n8k32", None) in rows and ("mma.sync", "f8f6f4_e3m2.m16n8k32", None) in rows
        assert {"mma.sync fp4 e2m1 → f32", "mma.sync fp6 e3m2 → f32", "mma.sync nvfp4 e2m1, block-scaled → f32"} <= ceilings
    doc["tensor"][0]["operands"] = 2
    assert errors("model", doc), "the schema accepts a tensor row's operands that are not text"
    rc, _, r = binary_json("export", str(path), "--format", "accel-sim", "--out", str(tmp_path / "accel-sim"))
    assert rc == 0, r.stderr
    config = (tmp_path / "accel-sim" / "gpgpusim.config").read_text()
    assert "-gpgpu_n_clusters " in config and "# -dram_latency (not set)" in config, "nothing made up for what the run lacks"
