"""The reference studies' published values (the SM_120 microarchitecture paper, the SM_100 study) as
reference datasets in the run-file schema (data/reference/):
one file per source and chip, built from data/coverage/seed-items.csv. Each record is one seed
item (its id is the item id), its one metric `value` in the seed's unit, and extra.reference says
where it was published: source, section, the seed's wording of the condition, and the figure as
written. Items whose figure is not a number (text, ratios like 1:39, empty) keep no metric.

    python -m gpudissect reference --csv data/coverage/seed-items.csv --out data/reference \\
        [--studies DIR]      # also checks every figure against the studies' text files in DIR
"""
from __future__ import annotations

import csv
import json
import re
from pathlib import Path

# (file stem, chip name, arch, compute capability, the sources whose rows it holds, title)
DATASETS = [
    ("sm_120-paper-rtx-pro-5000", "NVIDIA RTX PRO 5000 72GB (GB203)", "sm_120", (12, 0),
     ("000_ffbe15630671cbd7.txt", "001_a2b7cb9102dcdd37.txt"),
     "Dissecting the SM_120 Microarchitecture: its own measurements"),
    ("sm_100-study-b200", "NVIDIA B200", "sm_100", (10, 0), ("002_e0b7375555ffc2ac.txt",),
     "Blackwell SM_100 study: B200 measurements"),
    ("sm_100-paper-b200-quoted", "NVIDIA B200", "sm_100", (10, 0), ("000_ffbe15630671cbd7.txt",),
     "Dissecting the SM_120 Microarchitecture: the B200 values it quotes for comparison"),
    ("sm_90-paper-hopper-quoted", "NVIDIA H100 (Hopper)", "sm_90", (9, 0), ("000_ffbe15630671cbd7.txt",),
     "Dissecting the SM_120 Microarchitecture: the Hopper values it quotes (its Table 6)"),
]

_NUMBER = re.compile(r"^\s*(?:~|≈|≥|>|<|≤|\+)?\s*([0-9]+(?:\.[0-9]+)?)(?:\s*[-–]\s*([0-9]+(?:\.[0-9]+)?))?")


def seed_number(text: str):
    """The seed's figure as a number: "~4.22" -> 4.22, "24-32" -> (28, 24, 32); None for text and
    ratios ("1:39"). Returns (value, min, max). Mirrors gd::seed_number in src/report/seed_items.cpp."""
    m = _NUMBER.match(text or "")
    if not m:
        return None
    rest = text[m.end():]
    if rest.startswith(":"):
        return None
    a = float(m.group(1))
    if m.group(2):
        b = float(m.group(2))
        return ((a + b) / 2, min(a, b), max(a, b))
    return (a, a, a)


def read_items(csv_path) -> list[dict]:
    with open(csv_path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def build(items: list[dict], stem, chip, arch, cc, sources, title) -> dict:
    records = []
    for it in items:
        if it["arch"] != arch or it["source"] not in sources:
            continue
        written = it["seed_value"]
        ref = {"source": it["source"], "section": it["section"], "condition": it["item"],
               "as_written": written, "arch": arch}
        metrics = []
        num = seed_number(written)
        if num:
            v, lo, hi = num
            metrics.append({"name": "value", "unit": it["unit"], "value": v, "median": v, "min": lo, "max": hi,
                            "mean": v, "stddev": 0.0, "n": 1})
        records.append({"id": it["item_id"], "category": it["category"], "params": {}, "status": "ok",
                        "reason": "", "metrics": metrics,
                        "sass": {"status": "not_applicable", "detail": "published value, not measured here"},
                        "derived": False, "extra": {"reference": ref}})
    sm_count = next((r["metrics"][0]["value"] for r in records if r["id"] == "platform.sm_count" and r["metrics"]), 0)
    return {
        "schema_version": 2,
        "tool": {"name": "gpudissect", "version": "reference", "git_revision": ""},
        "run_id": f"reference-{stem}",
        "started_at": "",
        "finished_at": None,
        "complete": True,
        "options": {"reference": {"title": title, "sources": list(sources), "arch": arch,
                                  "built_from": "data/coverage/seed-items.csv"}},
        "device": {"name": chip, "cc_major": cc[0], "cc_minor": cc[1], "sm_count": int(sm_count), "gpu_count": 1},
        "records": records,
    }


def check_against_seeds(doc: dict, seeds_dir: Path) -> list[str]:
    """Every numeric figure of a dataset must appear in the text of the seed it cites."""
    texts = {}
    problems = []
    for rec in doc["records"]:
        ref = rec["extra"]["reference"]
        if not rec["metrics"]:
            continue
        if ref["source"] not in texts:
            texts[ref["source"]] = (seeds_dir / ref["source"]).read_text(encoding="utf-8", errors="replace")
        text = texts[ref["source"]]
        numbers = re.findall(r"[0-9]+(?:\.[0-9]+)?", ref["as_written"])
        missing = [n for n in numbers[:2] if n not in text]
        if missing:
            problems.append(f"{rec['id']} ({ref['source']}): {', '.join(missing)} of {ref['as_written']!r} not in the study's text")
    return problems


def write_all(csv_path, out_dir, seeds_dir=None) -> list[str]:
    items = read_items(csv_path)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    problems = []
    for spec in DATASETS:
        doc = build(items, *spec)
        (out_dir / f"{spec[0]}.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        if seeds_dir:
            problems += check_against_seeds(doc, Path(seeds_dir))
    return problems
