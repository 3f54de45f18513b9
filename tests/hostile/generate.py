#!/usr/bin/env python3
"""Generate the hostile-input corpus: run files and journals that people send each other, made
hostile (issue 36). Python 3 standard library only; nothing here is a hand-written payload file.

    tests/hostile/generate.py OUT_DIR

The base is tests/fixtures/runs/h200_small.json, made schema 2 with a few richer records (flags,
throttle causes, a stop reason, a note, kernels) and the gpu_state/timing blocks taken from the
committed suite run, trimmed. Every string leaf of it (and every key of params, extra and the
other free-form maps) is a field. The corpus:

  payload files   for each payload, one run file with it in every free-text field at once, and one
                  file per (semantic field, payload): a field whose value the readers interpret
                  (status, category, id, ...) gets its own file so that a refusal there does not
                  mask the other fields. Each payload carries a tag naming its field ("hx017"), so
                  a leak in an output names the field it came from.
  journals        the same documents as run journals (.jsonl); one with a bad line in the middle.
  structural      nesting 100000 deep, wrong types for every device field, records without
                  metrics or params, 20000 records with distinct param names, two files with one
                  run_id, a UTF-8 BOM, invalid surrogate escapes, a 1 MiB string in every field.

OUT_DIR/manifest.json lists every case for tests/hostile/run_hostile.py.
"""
import copy
import glob
import gzip
import json
import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURE = os.path.join(REPO, "tests", "fixtures", "runs", "h200_small.json")
# The project's current dataset: the newest committed full-suite run (names sort by date).
SUITE = max(glob.glob(os.path.join(REPO, "data", "measured", "*-suite.json*")), default="")

# name -> template; "{t}" is where the field tag goes (kept away from the part that attacks).
PAYLOADS = {
    "script": "<script>alert('{t}')</script>",
    "img": "<img src=x onerror=alert('{t}')>",
    "md_link": "[x{t}](javascript:alert(1))",
    "md_image": "![x{t}](javascript:alert(1))",
    "heading": "\n# forged heading {t}",
    "table_row": "\n| forged | row {t} |\n",
    "cr_heading": "x\r# forged heading {t}",
    "u2028": "x\u2028# forged heading {t}",
    "u2029": "x\u2029# forged heading {t}",
    "nel": "x\u0085# forged heading {t}",
    "csv_hyperlink": '=HYPERLINK("http://evil","{t}")',
    "csv_plus": "+cmd {t}",
    "csv_minus": "-1+1 {t}",
    "csv_at": "@SUM(1) {t}",
    "mathtext": "$\\frac{ {t}",
    "math_pair": "$\\frac{$ {t}",
    "dollar": "$ {t}",
    "control": "\x00\x01\x07\x1b[2J\x1b]0;pwned {t}\x07\x7f\x9b",
}
BIG = 1 << 20  # the 1 MiB string

# Maps whose keys are data (substituted as well as their values).
KEYED_MAPS = ("params", "extra", "probe_wall_s", "ns")

# Fields the readers interpret; each gets its own file per payload. Matched against the path.
SEMANTIC = [
    r"^tool\.name$", r"^schema_version$", r"^run_id$", r"^started_at$", r"^finished_at$",
    r"^records\[\d+\]\.(id|category|status)$", r"^records\[\d+\]\.sass\.status$",
    r"^records\[\d+\]\.sm_clock_source$", r"^records\[\d+\]\.metrics\[\d+\]\.name$",
    r"^records\[\d+\]\.params\{key:[^}]*\}$", r"^records\[\d+\]\.params\.[^.]+$",
    r"^device\.arch_code_loaded$", r"^device\.features\[\d+\]$", r"^device\.nvml_status$",
    r"^records\[\d+\]\.convergence\.stop_reason$",
]


def trim_record(r, keep_list=3):
    """A suite record without its long lists (sweeps, kernels) beyond a few items. A metric's
    sketch stays whole: its length is tied to the metric's sample count, which the reader checks."""
    r = copy.deepcopy(r)

    def walk(v):
        if isinstance(v, dict):
            return {k: (x if k == "sketch" else walk(x)) for k, x in v.items()}
        if isinstance(v, list):
            return [walk(x) for x in v[:keep_list]]
        return v
    return walk(r)


def base_document():
    with open(FIXTURE, encoding="utf-8") as f:
        doc = json.load(f)
    doc["schema_version"] = 2
    recs = doc["records"]
    # Keep the fixture's latency chain (two points and the derived record), the skipped and the
    # failed record; its DRAM points lack an axis the probe declares (resummarize refuses them).
    doc["records"] = [recs[0], recs[1], recs[2], recs[5], recs[6]]
    doc["options"].update({"axes": ["gemm.ceiling.*:shape=sq8192"], "host": "vm", "isolate": "risky"})
    doc["device"]["nvml"]["driver_version"] = "570.86.15"
    if os.path.exists(SUITE):
        with open(SUITE, "rb") as f:
            raw = f.read()
        suite = json.loads(gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw)
        picks = {}
        for r in suite["records"]:
            e = r.get("extra") or {}
            conv = r.get("convergence") or {}
            if "throttle_flag" not in picks and (e.get("throttle") or {}).get("by") and e.get("flags"):
                picks["throttle_flag"] = r
            elif "cap" not in picks and conv.get("stop_reason") not in (None, "converged"):
                picks["cap"] = r
            elif "note" not in picks and "note" in e and r.get("derived"):
                picks["note"] = r
            elif "dram" not in picks and r["id"] == "memory.bandwidth.dram" and not r["derived"]:
                picks["dram"] = r
        doc["records"] += [trim_record(picks[k]) for k in ("dram", "cap", "throttle_flag", "note") if k in picks]
        gs = copy.deepcopy(suite.get("gpu_state", {}))
        gs.get("tenancy", {}).get("before", {}).setdefault("evidence", []).append("utilization 0 % over 2 samples")
        for look in ("before", "after"):
            for p in gs.get("tenancy", {}).get(look, {}).get("processes", []):
                p["name"] = "python3"
        doc["gpu_state"] = gs
        doc["timing"] = {"wall_s": 12.5, "probe_wall_s": {r["id"]: 0.5 for r in doc["records"]}}
    return doc


def string_fields(doc):
    """Every string leaf and data key of DOC: (path, getter-free setter description)."""
    out = []

    def walk(v, path, parent_key):
        if isinstance(v, dict):
            for k, x in v.items():
                p = f"{path}.{k}" if path else k
                if parent_key in KEYED_MAPS:
                    out.append(("key", path, k, f"{path}{{key:{k}}}"))
                walk(x, p, k)
        elif isinstance(v, list):
            for i, x in enumerate(v):
                walk(x, f"{path}[{i}]", parent_key)
        elif isinstance(v, str):
            out.append(("value", path, None, path))
    walk(doc, "", "")
    return out


_TOKEN = re.compile(r"([^.\[\]{}]+)|\[(\d+)\]")


def _resolve(doc, path):
    """The container and key of PATH in DOC."""
    parts = [m.group(1) if m.group(1) is not None else int(m.group(2)) for m in _TOKEN.finditer(path)]
    cur = doc
    for p in parts[:-1]:
        cur = cur[p]
    return cur, parts[-1]


def substitute(doc, field, text):
    kind, path, key, _ = field
    if kind == "value":
        c, k = _resolve(doc, path)
        c[k] = text
    else:
        c = doc
        if path:
            c2, k2 = _resolve(doc, path)
            c = c2[k2]
        # keep the order of the keys, rename one
        items = list(c.items())
        c.clear()
        for k, v in items:
            c[text if k == key else k] = v


def substitute_many(doc, pairs):
    """Several substitutions: values first, then keys, deepest first (a renamed key would break
    the paths that go through it)."""
    for f, text in pairs:
        if f[0] == "value":
            substitute(doc, f, text)
    for f, text in sorted((p for p in pairs if p[0][0] == "key"), key=lambda p: -len(p[0][1])):
        substitute(doc, f, text)


def is_semantic(name):
    return any(re.search(p, name) for p in SEMANTIC)


def journal_text(doc, bad_line_at=None):
    head = {k: v for k, v in doc.items() if k not in ("records", "finished_at", "complete")}
    lines = [json.dumps({"gpudissect_journal": 1, "header": head})]
    for r in doc["records"]:
        lines.append(json.dumps({"record": r}))
    lines.append(json.dumps({"finish": {"finished_at": doc.get("finished_at", ""), "complete": doc.get("complete", True)}}))
    if bad_line_at is not None:
        lines.insert(bad_line_at, '{"record": {"id": "latency.alu.ffma", "params": {"chain": 64}, "sta')
    return "\n".join(lines) + "\n"


class Corpus:
    def __init__(self, out):
        self.out = out
        self.cases = []
        os.makedirs(out, exist_ok=True)

    def write(self, name, text=None, doc=None, raw=None):
        path = os.path.join(self.out, name)
        if raw is not None:
            with open(path, "wb") as f:
                f.write(raw)
        else:
            if text is None:
                text = json.dumps(doc, ensure_ascii=False, indent=1)
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(text)
        return name

    def case(self, **kw):
        self.cases.append(kw)


def nest(depth, kind):
    return ("[" * depth + "]" * depth) if kind == "array" else ('{"a":' * depth + "1" + "}" * depth)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    c = Corpus(sys.argv[1])
    base = base_document()
    c.write("base.json", doc=base)
    other = copy.deepcopy(base)  # a second GPU, for merge and compare
    other["run_id"] = "2025-11-30T10:00:00Z-0badc0de"
    other["device"]["uuid"] = "GPU-0badc0de-0000-0000-0000-000000000000"
    for r in other["records"]:
        for m in r["metrics"]:
            for k in ("value", "median", "min", "max", "mean"):
                if isinstance(m.get(k), (int, float)):
                    m[k] = m[k] * 1.1
    c.write("other.json", doc=other)
    c.write("base.jsonl", text=journal_text(base))
    c.case(kind="base", file="base.json", other="other.json", journal="base.jsonl")

    fields = string_fields(base)
    tags = {f"hx{i:03d}": f[3] for i, f in enumerate(fields)}
    free = [(f"hx{i:03d}", f) for i, f in enumerate(fields) if not is_semantic(f[3])]
    sem = [(f"hx{i:03d}", f) for i, f in enumerate(fields) if is_semantic(f[3])]

    # Every payload in every free-text field at once: one run file and its journal per payload.
    for pname, tmpl in PAYLOADS.items():
        d = copy.deepcopy(base)
        substitute_many(d, [(f, tmpl.replace("{t}", tag)) for tag, f in free])
        fn = c.write(f"free-{pname}.json", doc=d)
        jn = c.write(f"free-{pname}.jsonl", text=journal_text(d))
        c.case(kind="payload", file=fn, journal=jn, payload=pname, scope="free",
               fields={tag: f[3] for tag, f in free})
    # For the HTML views (a few seconds each): the four markup payloads rotating over the
    # free-text fields in one file, and the math payloads in every params key or value (the
    # figures' axis and legend labels).
    xss = ["script", "img", "md_link", "md_image"]
    d = copy.deepcopy(base)
    substitute_many(d, [(f, PAYLOADS[xss[i % 4]].replace("{t}", tag)) for i, (tag, f) in enumerate(free)])
    fn = c.write("html-markup.json", doc=d)
    c.case(kind="payload", file=fn, payload="+".join(xss), scope="html", fields={tag: f[3] for tag, f in free})
    for part in ("value", "key"):
        lab = [(tag, f) for tag, f in sem if ".params" in f[3] and (f[0] == part)]
        for pname in ("mathtext", "dollar", "math_pair"):
            d = copy.deepcopy(base)
            substitute_many(d, [(f, PAYLOADS[pname].replace("{t}", tag)) for tag, f in lab])
            fn = c.write(f"labels-{part}-{pname}.json", doc=d)
            c.case(kind="payload", file=fn, payload=pname, scope="html", fields={tag: f[3] for tag, f in lab},
                   where=f"every params {part}")
    # Each payload in each kind of semantic field (records[3].status and records[5].status are
    # one kind; the record it goes into rotates with the payload), one file each.
    shapes = {}
    for tag, f in sem:
        shapes.setdefault(re.sub(r"\{key:[^}]*\}", "{key}", re.sub(r"\[\d+\]", "[]", f[3])), []).append((tag, f))
    for pi, (pname, tmpl) in enumerate(PAYLOADS.items()):
        for members in shapes.values():
            tag, f = members[pi % len(members)]
            d = copy.deepcopy(base)
            substitute(d, f, tmpl.replace("{t}", tag))
            fn = c.write(f"sem-{pname}-{tag}.json", doc=d)
            c.case(kind="payload", file=fn, payload=pname, scope="semantic", fields={tag: f[3]})
    # The 1 MiB string in every seventh field, four fields to a file.
    allf = [(f"hx{i:03d}", f) for i, f in enumerate(fields)]
    sample = allf[::7]
    for g in range(0, len(sample), 4):
        d = copy.deepcopy(base)
        group = sample[g:g + 4]
        substitute_many(d, [(f, "A" * BIG + tag) for tag, f in group])
        fn = c.write(f"big-{g // 4:02d}.json", doc=d)
        c.case(kind="payload", file=fn, payload="1MiB", scope="big", fields={tag: f[3] for tag, f in group})

    # Invalid surrogate escapes (raw JSON text: json.dumps cannot write them).
    for i, (tag, f) in enumerate([allf[10], allf[len(allf) // 2]]):
        for sname, esc in (("lone_high", "\\ud800"), ("lone_low", "\\udfff"), ("reversed", "\\udc00\\ud800")):
            d = copy.deepcopy(base)
            marker = f"SURROGATE{tag}"
            substitute(d, f, marker)
            text = json.dumps(d, indent=1).replace(marker, esc + tag)
            fn = c.write(f"surrogate-{sname}-{tag}.json", text=text)
            c.case(kind="payload", file=fn, payload="surrogate_" + sname, scope="surrogate", fields={tag: f[3]})

    # Nesting 100000 deep in options, device, extra (arrays and objects).
    for where in ("options", "device", "extra"):
        for k in ("array", "object"):
            marker = "NESTMARKER"
            d = copy.deepcopy(base)
            tgt = d[where] if where != "extra" else d["records"][0]["extra"]
            tgt["deep"] = marker
            text = json.dumps(d).replace(json.dumps(marker), nest(100000, k))
            fn = c.write(f"deep-{where}-{k}.json", text=text)
            c.case(kind="structural", file=fn, what=f"nesting 100000 deep ({k}) in {where}")

    # Wrong types for each device field (and its nvml block).
    def wrong_values(v):
        vals = [None, {}, [], True]
        if isinstance(v, str):
            vals += [-1, 1e308]
        elif isinstance(v, bool):
            vals += ["true", 1]
        elif isinstance(v, (int, float)):
            vals += ["132", -1, 1e308, 18446744073709551616, -9223372036854775809]
        elif isinstance(v, list):
            vals += ["clusters", [1, None, {}]]
        elif isinstance(v, dict):
            vals += ["x", [1]]
        return vals
    dev_fields = [("device", k, v) for k, v in base["device"].items()] + \
                 [("device.nvml", k, v) for k, v in base["device"]["nvml"].items()]
    for i, (where, k, v) in enumerate(dev_fields):
        vals = wrong_values(v)
        for j in range(3):  # three of them per field, rotating over the kinds
            w = vals[(i + j * 2) % len(vals)]
            d = copy.deepcopy(base)
            (d["device"] if where == "device" else d["device"]["nvml"])[k] = w
            fn = c.write(f"devtype-{where}.{k}-{j}.json", doc=d)
            c.case(kind="structural", file=fn, what=f"{where}.{k} = {json.dumps(w)[:40]}", quick=True)
    # A device field missing, for each field.
    for where, k, v in dev_fields:
        d = copy.deepcopy(base)
        del (d["device"] if where == "device" else d["device"]["nvml"])[k]
        fn = c.write(f"devmissing-{where}.{k}.json", doc=d)
        c.case(kind="structural", file=fn, what=f"{where}.{k} missing", quick=True)

    # Measured records without metrics or params (absent, null, wrong type, empty metric).
    for what, mutate in (
            ("metrics absent", lambda r: r.pop("metrics")),
            ("metrics null", lambda r: r.__setitem__("metrics", None)),
            ("metrics an object", lambda r: r.__setitem__("metrics", {"name": "x"})),
            ("a metric without value or name", lambda r: r.__setitem__("metrics", [{"unit": "cycles"}])),
            ("params absent", lambda r: r.pop("params")),
            ("params null", lambda r: r.__setitem__("params", None)),
            ("params a list", lambda r: r.__setitem__("params", [64])),
            ("params values objects", lambda r: r.__setitem__("params", {"chain": {"a": [1]}})),
            ("records an object", None),
            ("record a string", None)):
        d = copy.deepcopy(base)
        if what == "records an object":
            d["records"] = {"0": d["records"][0]}
        elif what == "record a string":
            d["records"][1] = "record"
        else:
            for r in d["records"]:
                if not r.get("derived") and r.get("status") == "ok":
                    mutate(r)
        fn = c.write("missing-" + re.sub(r"\W+", "_", what) + ".json", doc=d)
        c.case(kind="structural", file=fn, what=what)

    # 20000 records with distinct param names.
    d = copy.deepcopy(base)
    tmpl = base["records"][0]
    d["records"] = []
    for i in range(20000):
        r = copy.deepcopy(tmpl)
        r["params"] = {f"param_{i}": i}
        d["records"].append(r)
    fn = c.write("many-params.json", text=json.dumps(d))
    c.case(kind="structural", file=fn, what="20000 records with distinct param names", slow_ok=True)

    # Two files with one run_id but different content.
    dup = copy.deepcopy(other)
    dup["run_id"] = base["run_id"]
    dup["device"]["name"] = "NVIDIA H200 (second file)"
    fn = c.write("dup-runid.json", doc=dup)
    c.case(kind="duplicate", file="base.json", second=fn, what="two files with one run_id")

    # A UTF-8 BOM before a valid run file and before a valid journal.
    c.write("bom.json", raw=b"\xef\xbb\xbf" + json.dumps(base, indent=1).encode())
    c.write("bom.jsonl", raw=b"\xef\xbb\xbf" + journal_text(base).encode())
    c.case(kind="bom", file="bom.json", journal="bom.jsonl", what="UTF-8 BOM")

    # A journal with one bad line in the middle.
    fn = c.write("bad-line.jsonl", text=journal_text(base, bad_line_at=3))
    c.case(kind="bad_journal_line", journal=fn, records=len(base["records"]), what="journal with one bad line in the middle")

    with open(os.path.join(c.out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump({"fields": tags, "payloads": PAYLOADS, "cases": c.cases}, f, indent=1)
    print(f"{len(c.cases)} cases, {len(fields)} string fields ({len(free)} free text, {len(sem)} semantic), "
          f"{len(PAYLOADS)} payloads, into {c.out}")


if __name__ == "__main__":
    main()
