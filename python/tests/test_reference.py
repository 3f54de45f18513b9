"""data/reference/ is what the seed list says, in the run schema."""
import json

import pytest

from conftest import ROOT
from gpudissect import load_run
from gpudissect.reference import DATASETS, build, read_items, seed_number


def test_committed_datasets_are_built_from_the_seed_list():
    items = read_items(ROOT / "data" / "coverage" / "seed-items.csv")
    for spec in DATASETS:
        committed = json.loads((ROOT / "data" / "reference" / f"{spec[0]}.json").read_text())
        assert committed == json.loads(json.dumps(build(items, *spec))), f"regenerate {spec[0]} (python -m gpudissect reference)"


def test_reference_loads_with_its_provenance():
    df = load_run(ROOT / "data" / "reference" / "sm_120-paper-rtx-pro-5000.json")
    row = df[df["id"] == "latency.alu.ffma"].iloc[0]
    assert row["value"] == pytest.approx(4.22) and row["unit"] == "cycles"
    assert row["source"].startswith("000_") and "Table 3" in row["section"] and "FFMA" in row["condition"]


@pytest.mark.parametrize("text,want", [("4.22", (4.22, 4.22, 4.22)), ("~4", (4, 4, 4)), ("24-32", (28, 24, 32)),
                                       ("≥32", (32, 32, 32)), ("1:39 (Fig. 1)", None), ("yes", None), ("", None)])
def test_seed_number(text, want):
    assert seed_number(text) == want


def test_published_hopper_dataset_is_its_generators_output():
    """data/reference/sm_90-published-hopper.json is what scripts/build_published_reference.py writes."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("build_published_reference",
                                                  ROOT / "scripts" / "build_published_reference.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    committed = (ROOT / "data" / "reference" / "sm_90-published-hopper.json").read_text(encoding="utf-8")
    assert committed == mod.render(), "regenerate: python3 scripts/build_published_reference.py"
    doc = json.loads(committed)
    assert len(doc["records"]) >= 60
    assert len({r["extra"]["reference"]["source_key"] for r in doc["records"]}) >= 5
    df = load_run(ROOT / "data" / "reference" / "sm_90-published-hopper.json")
    assert {"source", "section", "condition"} <= set(df.columns)
