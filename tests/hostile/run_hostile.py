#!/usr/bin/env python3
"""Run the hostile corpus (tests/hostile/generate.py) through every command that reads run files
and journals, and check what a file someone sent you must never do (issue 36): run code, inject
markup, crash, hang, blow up, write where it was not asked, or lose data.

    tests/hostile/run_hostile.py [--binary build/gpudissect] [--keep DIR] [--no-html] [-v]

Exit 0 when every check holds, 1 when one fails (each failure is named: check, command, case,
field, payload, with a line of evidence). Python 3 standard library only.
"""
import argparse
import csv
import io
import json
import os
import re
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import tempfile
import time

csv.field_size_limit(sys.maxsize)
from collections import OrderedDict, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

CHECKS = OrderedDict((k, "") for k in (
    "exit-code", "timeout", "output-size", "stray-files", "markdown-injection", "html-injection",
    "csv-formula", "control-chars", "html-renders", "data-kept", "duplicate-run-id", "bom",
    "journal-bad-line", "cwd-hijack"))


# What data must never become: (pattern, what it is). Markdown is checked per line outside code.
MARKDOWN_INJECTION = ((r"(?<!\\)<script", "raw <script"), (r"(?<!\\)<img", "raw <img"),
                      (r"(?<!\\)\]\(\s*javascript:", "javascript: link"),
                      (r"^ {0,3}#{1,6}[ \t]+forged", "forged heading"),
                      (r"^\s*\|?\s*forged\s*\|\s*row", "forged table row"))
HTML_INJECTION = ((r"<script", "<script> element"), (r"<img[^>]*onerror", "<img onerror>"),
                  (r"<[a-z][^<>]*\son[a-z]+\s*=", "event handler attribute"),
                  (r"(href|src|action|xlink:href)\s*=\s*[\"']?\s*javascript:", "javascript: URL"))


class Runner:
    def __init__(self, args):
        self.bin = os.path.abspath(args.binary)
        self.timeout = args.timeout
        self.verbose = args.verbose
        self.tmp = args.keep or tempfile.mkdtemp(prefix="gd-hostile-")
        os.makedirs(self.tmp, exist_ok=True)
        self.corpus = os.path.join(self.tmp, "corpus")
        self.work = os.path.join(self.tmp, "work")
        self.keep = bool(args.keep)
        self.n = 0
        self.passed = defaultdict(int)
        self.failed = defaultdict(list)
        self.fields = {}
        self.payloads = {}
        self.docs = {}
        self.walls = defaultdict(float)

    # -------------------------------------------------------------------------------- bookkeeping
    def ok(self, check):
        self.passed[check] += 1

    def fail(self, check, what, evidence):
        ev = evidence if isinstance(evidence, str) else repr(evidence)
        ev = ev.replace("\x1b", "\\x1b").replace("\x00", "\\x00")
        if len(ev) > 300:
            ev = ev[:300] + "..."
        self.failed[check].append((what, ev))
        if self.verbose:
            print(f"FAIL [{check}] {what}\n      {ev}", flush=True)

    def field_name(self, text):
        """The fields whose tags occur in TEXT ("device.name", ...)."""
        tags = sorted(set(re.findall(r"hx\d{3}", text)))
        return ", ".join(self.fields.get(t, t) for t in tags) or "?"

    def doc(self, name):
        """The input document NAME, or None where Python cannot hold it (100000 deep)."""
        if name not in self.docs:
            try:
                with open(os.path.join(self.corpus, name), encoding="utf-8-sig") as f:
                    self.docs[name] = json.load(f)
            except (ValueError, RecursionError):
                self.docs[name] = None
        return self.docs[name]

    # ---------------------------------------------------------------------------------- invoking
    def invoke(self, label, args, outs=(), inputs=(), extra_env=None, cwd=None, timeout=None):
        """Runs the binary in an empty folder with its own TMPDIR; returns (rc, out files, stdout,
        stderr, workdir). Checks: exit code, timeout, output size, files outside the --out paths."""
        self.n += 1
        wd = os.path.join(self.work, f"{self.n:05d}")
        run_cwd = cwd or os.path.join(wd, "cwd")
        tmpd = os.path.join(wd, "tmp")
        outd = os.path.join(wd, "out")
        for d in (run_cwd, tmpd, outd):
            os.makedirs(d, exist_ok=True)
        argv = [a.replace("@OUT@", outd).replace("@C@", self.corpus) for a in args]
        env = dict(os.environ, TMPDIR=tmpd, MPLBACKEND="Agg")
        for k in ("GPUDISSECT_PYTHON", "GPUDISSECT_NVDISASM", "GPUDISSECT_CUOBJDUMP", "GPUDISSECT_PYTHON_DIR"):
            env.pop(k, None)
        env.update(extra_env or {})
        corpus_before = self.corpus_state()
        t0 = time.monotonic()
        to = timeout or self.timeout
        for attempt in range(10):
            try:
                p = subprocess.run([self.bin] + argv, cwd=run_cwd, env=env, capture_output=True, timeout=to,
                                   start_new_session=True)
                rc, so, se = p.returncode, p.stdout, p.stderr
                break
            except subprocess.TimeoutExpired as e:
                rc, so, se = None, e.stdout or b"", e.stderr or b""
                break
            except OSError as e:  # the binary is being relinked: wait for it
                print(f"run_hostile.py: cannot run {self.bin} ({e}); waiting 30 s", file=sys.stderr, flush=True)
                time.sleep(30)
                t0 = time.monotonic()
        else:
            sys.exit(f"run_hostile.py: {self.bin} cannot be run")
        wall = time.monotonic() - t0
        cmd = "gpudissect " + " ".join(a if len(a) < 80 else a[:60] + "..." for a in
                                       [os.path.relpath(a, self.tmp) if a.startswith(self.tmp) else a for a in argv])
        if rc is None:
            self.fail("timeout", f"{cmd}  [{label}]", f"still running after {to} s")
        else:
            self.ok("timeout")
        if rc is not None:
            text = se.decode("utf-8", "replace").strip().splitlines()
            last = text[-1] if text else ""
            if rc < 0:
                self.fail("exit-code", f"{cmd}  [{label}]", f"killed by signal {-rc} ({signal.Signals(-rc).name}); stderr: {last}")
            elif rc in (0, 1, 2) or (rc == 74 and re.search(r"writ|output|disk|space", last, re.I)):
                self.ok("exit-code")
            else:
                self.fail("exit-code", f"{cmd}  [{label}]", f"exit {rc}: {last}")
        # sizes
        in_size = sum(os.path.getsize(os.path.join(self.corpus, i)) for i in inputs)
        out_files = {}
        total = len(so) + len(se)
        for o in outs:
            path = os.path.join(outd, o)
            if os.path.exists(path):
                with open(path, "rb") as f:
                    out_files[o] = f.read()
                total += len(out_files[o])
        limit = 50 * in_size + 10 * 2 ** 20
        if total > limit:
            self.fail("output-size", f"{cmd}  [{label}]", f"{total} bytes of output for {in_size} bytes of input")
        else:
            self.ok("output-size")
        # files outside the --out paths
        stray = []
        for d in ([run_cwd] if not cwd else []) + [tmpd]:
            for root, dirs, files in os.walk(d):
                stray += [os.path.relpath(os.path.join(root, x), wd) for x in files + dirs]
        allowed = set(outs)  # files, or (export) files in a folder of the output
        for root, dirs, files in os.walk(outd):
            rel = [os.path.relpath(os.path.join(root, x), outd) for x in files]
            stray += ["out/" + x for x in rel if x not in allowed]
        after = self.corpus_state()
        if after != corpus_before:
            stray += ["a file in the corpus folder (beside the inputs)"]
        if stray:
            self.fail("stray-files", f"{cmd}  [{label}]", "files left: " + ", ".join(stray[:5]))
        else:
            self.ok("stray-files")
        # terminal control sequences in what the command prints
        self.check_controls(cmd, label, so + se, "stdout/stderr")
        return rc, out_files, so, se, wd, cmd, wall

    def corpus_state(self):
        st = os.stat(self.corpus)
        return (st.st_mtime_ns, st.st_nlink)

    def cleanup(self, wd):
        if not self.keep:
            shutil.rmtree(wd, ignore_errors=True)

    # ------------------------------------------------------------------------------ content checks
    # C0 controls but tab, LF, CR: NUL, BEL, ESC (a terminal's escape sequences: `cat report.md`
    # would clear the screen or set the title).
    CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")

    def check_controls(self, cmd, label, data, where):
        m = self.CONTROL.search(data)
        if m:
            s = data[max(0, m.start() - 60):m.end() + 40].decode("utf-8", "replace")
            self.fail("control-chars", f"{cmd}  [{label}] {where} (field {self.field_name(s)})",
                      f"raw control byte {m.group()!r} in {where}: ...{s}...")
        else:
            self.ok("control-chars")

    @staticmethod
    def md_lines(text):
        """Lines of Markdown (CommonMark line endings: LF, CRLF, CR) outside fenced code blocks,
        with inline code spans removed."""
        out, fence = [], None
        for line in re.split(r"\r\n|\r|\n", text):
            m = re.match(r"^ {0,3}(`{3,}|~{3,})", line)
            if m:
                if fence is None:
                    fence = m.group(1)[0]
                elif m.group(1)[0] == fence:
                    fence = None
                continue
            if fence is None:
                out.append(re.sub(r"(`+)(?:(?!\1).)+?\1", "", line))
        return out

    def check_markdown(self, cmd, label, data, where):
        text = data.decode("utf-8", "replace")
        bad = [(what, line) for line in self.md_lines(text) for what, _ in self.matches(MARKDOWN_INJECTION, line)]
        self.verdict("markdown-injection", cmd, label, where, bad,
                     lambda what, line: f"{what} ({len(bad)} lines): {line.strip()[:200]}")
        self.check_controls(cmd, label, data, where)

    def check_html(self, cmd, label, data, where):
        text = data.decode("utf-8", "replace")
        bad = [(what, text[max(0, m.start() - 80):m.end() + 60]) for what, m in self.matches(HTML_INJECTION, text)]
        self.verdict("html-injection", cmd, label, where, bad, lambda what, s: f"{what} ({len(bad)} found): {s}")
        self.check_controls(cmd, label, data, where)

    @staticmethod
    def matches(patterns, text):
        """(what, match) for every match of every (pattern, what) in text."""
        return [(what, m) for pat, what in patterns for m in re.finditer(pat, text, re.I)]

    def verdict(self, check, cmd, label, where, bad, evidence):
        """One pass or one failure (the first bad (what, context), with evidence) for a check."""
        if not bad:
            self.ok(check)
            return
        what, context = bad[0]
        self.fail(check, f"{cmd}  [{label}] {where} (field {self.field_name(context)})", evidence(what, context))

    @staticmethod
    def is_number(s):
        try:
            float(s)
            return True
        except ValueError:
            return False

    def check_csv(self, cmd, label, data, where):
        text = data.decode("utf-8", "replace")
        bad = []
        for row in csv.reader(io.StringIO(text, newline="")):
            for cell in row:
                if cell[:1] in ("=", "+", "-", "@", "\t", "\r") and not self.is_number(cell):
                    bad.append(cell)
        if bad:
            self.fail("csv-formula", f"{cmd}  [{label}] {where} (field {self.field_name(bad[0])})",
                      f"{len(bad)} cells start a formula, e.g. {bad[0][:120]!r}")
        else:
            self.ok("csv-formula")
        self.check_controls(cmd, label, data, where)

    # ------------------------------------------------------------------------------- data kept
    @staticmethod
    def leaves(v, path=()):
        """(path, value) of every string leaf and every object key (as (path, KEY))."""
        if isinstance(v, dict):
            for k, x in v.items():
                yield path + (("KEY", k),), k
                yield from Runner.leaves(x, path + (k,))
        elif isinstance(v, list):
            for i, x in enumerate(v):
                yield from Runner.leaves(x, path + (i,))
        elif isinstance(v, str):
            yield path, v

    @staticmethod
    def lookup(doc, path):
        cur = doc
        for p in path:
            if isinstance(p, tuple):
                return p[1] if isinstance(cur, dict) and p[1] in cur else None
            try:
                cur = cur[p]
            except (KeyError, IndexError, TypeError):
                return None
        return cur

    def compare_leaves(self, src, dst, only=None):
        """The first string of SRC (under the top-level keys ONLY) that DST does not hold."""
        for path, v in self.leaves(src):
            if only is not None and (not path or path[0] not in only):
                continue
            got = self.lookup(dst, path)
            if got != v:
                return path, v, got
        return None

    def check_kept(self, cmd, label, src_doc, out_bytes, only=None):
        if not isinstance(src_doc, dict):
            return
        try:
            dst = json.loads(out_bytes.decode("utf-8", "surrogatepass"))
        except RecursionError:
            return
        except Exception as e:  # noqa: BLE001 - an unreadable output is the finding
            self.fail("data-kept", f"{cmd}  [{label}]", f"output is not JSON: {e}")
            return
        miss = self.compare_leaves(src_doc, dst, only)
        if miss:
            path, v, got = miss
            p = ".".join(str(x[1]) + "(key)" if isinstance(x, tuple) else str(x) for x in path)
            self.fail("data-kept", f"{cmd}  [{label}] (field {self.field_name(p + v)})",
                      f"{p}: wrote {str(got)[:80]!r}, the input had {v[:80]!r}")
        else:
            self.ok("data-kept")

    def check_db(self, cmd, label, src_doc, db_path):
        if not isinstance(src_doc, dict) or not isinstance(src_doc.get("records"), list) \
                or not isinstance(src_doc.get("device"), dict):
            return
        try:
            con = sqlite3.connect(db_path)
            run = con.execute("SELECT gpu_name, gpu_uuid, options_json, device_json FROM runs WHERE run_id = ?",
                              (src_doc["run_id"],)).fetchone()
            recs = con.execute("SELECT seq, id, reason, sass_detail, params_json, extra_json FROM records "
                               "WHERE run_id = ? ORDER BY seq", (src_doc["run_id"],)).fetchall()
            con.close()
        except Exception as e:  # noqa: BLE001
            self.fail("data-kept", f"{cmd}  [{label}]", f"database unreadable: {e}")
            return
        if run is None:
            self.fail("data-kept", f"{cmd}  [{label}]", f"exit 0 but run {src_doc['run_id']!r} is not in the database")
            return
        problems = []
        dev = src_doc["device"]
        if isinstance(dev.get("name"), str) and run[0] != dev["name"]:
            problems.append(("device.name", dev["name"], run[0]))
        for col, key, i in (("options_json", "options", 2), ("device_json", "device", 3)):
            try:
                miss = self.compare_leaves(src_doc[key], json.loads(run[i]))
            except Exception as e:  # noqa: BLE001
                miss = ((), "", f"not JSON: {e}")
            if miss:
                problems.append((f"{col}{list(miss[0])}", miss[1], miss[2]))
        by_seq = {r[0]: r for r in recs}
        for seq, r in enumerate(src_doc["records"]):
            row = by_seq.get(seq)
            if row is None:
                problems.append((f"records[{seq}]", "a record", None))
                continue
            for i, k in ((2, "reason"),):
                if isinstance(r.get(k), str) and row[i] != r[k]:
                    problems.append((f"records[{seq}].{k}", r[k], row[i]))
            if isinstance((r.get("sass") or {}).get("detail"), str) and row[3] != r["sass"]["detail"]:
                problems.append((f"records[{seq}].sass.detail", r["sass"]["detail"], row[3]))
            for i, k in ((4, "params"), (5, "extra")):
                if isinstance(r.get(k), dict):
                    miss = self.compare_leaves(r[k], json.loads(row[i]))
                    if miss:
                        problems.append((f"records[{seq}].{k}{list(miss[0])}", miss[1], miss[2]))
        if problems:
            p, want, got = problems[0]
            self.fail("data-kept", f"{cmd}  [{label}] database (field {self.field_name(str(p) + str(want))})",
                      f"{p}: stored {str(got)[:80]!r}, the file had {str(want)[:80]!r} ({len(problems)} differences)")
        else:
            self.ok("data-kept")

    # ------------------------------------------------------------------------------- the cases
    FULL = ("import", "headlines", "resummarize", "validate", "report", "report-csv", "compare", "compare-cross",
            "merge", "guide", "coverage", "headlines-json", "export")
    SEMANTIC = ("report", "report-csv", "import")
    QUICK = ("report", "import", "resummarize")

    def reading_commands(self, f, label, jf=None, which=FULL, html=False, other="other.json"):
        """The reading commands WHICH over run file F (and journal JF). Returns {command: (rc,
        stderr, command line)}. After a command of the case times out, the rest are skipped."""
        C = "@C@/"
        rcs = {}
        fin = [f]
        timed_out = []

        def go(name, args, outs, inputs, kind=None):
            if timed_out:
                return None, {}, None, None
            rc, outs_b, so, se, wd, cmd, wall = self.invoke(label, args, outs, inputs)
            if rc is None:
                timed_out.append(cmd)
            for o, data in outs_b.items():
                ext = o.rsplit(".", 1)[-1]
                if ext == "md":
                    self.check_markdown(cmd, label, data, o)
                elif ext == "csv":
                    self.check_csv(cmd, label, data, o)
                elif ext == "html":
                    self.check_html(cmd, label, data, o)
                elif ext == "config":
                    self.check_controls(cmd, label, data, o)
            rcs[name] = (rc, se, cmd)
            self.walls[name] += wall
            return rc, outs_b, wd, cmd

        specs = {
            "report": (["report", C + f, "--out", "@OUT@/r.md"], ["r.md"], fin),
            "report-csv": (["report", C + f, "--format", "csv", "--out", "@OUT@/r.csv"], ["r.csv"], fin),
            "headlines": (["headlines", C + f, "--out", "@OUT@/h.md"], ["h.md"], fin),
            "headlines-json": (["headlines", C + f, "--json", "--out", "@OUT@/h.json"], ["h.json"], fin),
            "validate": (["validate", C + f, "--out", "@OUT@/v.md"], ["v.md"], fin),
            "compare": (["compare", C + other, C + f, "--out", "@OUT@/c.md"], ["c.md"], fin + [other]),
            "compare-cross": (["compare", C + other, C + f, "--cross", "--out", "@OUT@/cx.md"], ["cx.md"], fin + [other]),
            "merge": (["merge", C + f, C + other, "--db", "@OUT@/m.db", "--out", "@OUT@/m.md"], ["m.db", "m.md"],
                      fin + [other]),
            "guide": (["guide", C + f, "--out", "@OUT@/g.md"], ["g.md"], fin),
            "coverage": (["coverage", C + f, "--out", "@OUT@/cov.md"], ["cov.md"], fin),
            "export": (["export", C + f, "--out", "@OUT@/sim"], ["sim/gpgpusim.config", "sim/trace.config", "sim/opcodes.csv"],
                       fin),
        }
        for name in which:
            if name == "import":
                rc, outs, wd, cmd = go("import", ["import", C + f, "--db", "@OUT@/i.db"], ["i.db"], fin)
                if rc == 0 and os.path.exists(os.path.join(wd, "out", "i.db")):
                    self.check_db(cmd, label, self.doc(f), os.path.join(wd, "out", "i.db"))
            elif name == "resummarize":
                rc, outs, wd, cmd = go("resummarize", ["resummarize", C + f, "--out", "@OUT@/rs.json"], ["rs.json"], fin)
                if rc in (0, 1) and "rs.json" in outs:
                    self.check_kept(cmd, label, self.doc(f), outs["rs.json"],
                                    only=("device", "options", "tool", "run_id", "gpu_state"))
            else:
                go(name, *specs[name])
        if jf:
            rc, outs, wd, cmd = go("recover", ["recover", C + jf, "--out", "@OUT@/rec.json"], ["rec.json"], [jf], "json")
            if rc in (0, 1) and "rec.json" in outs:
                self.check_kept(cmd, label, self.doc(f), outs["rec.json"])
            go("report-journal", ["report", C + jf, "--out", "@OUT@/rj.md"], ["rj.md"], [jf], "md")
            rc, outs, wd, cmd = go("import-journal", ["import", C + jf, "--db", "@OUT@/ij.db"], ["ij.db"], [jf], "db")
            if rc == 0 and os.path.exists(os.path.join(wd, "out", "ij.db")):
                self.check_db(cmd, label, self.doc(f), os.path.join(wd, "out", "ij.db"))
            self.cleanup(wd)
        if html:
            for name, args, md in (
                    ("report-html", ["report", C + f, "--format", "html", "--out", "@OUT@/r.html"], "report"),
                    ("validate-html", ["validate", C + f, "--format", "html", "--out", "@OUT@/v.html"], "validate"),
                    ("compare-html", ["compare", C + other, C + f, "--cross", "--format", "html", "--out", "@OUT@/cx.html"],
                     "compare-cross")):
                if name != "report-html" and html != "all":
                    continue
                out = args[-1].split("/")[-1]
                rc, outs, wd, cmd = go(name, args, [out], fin + ([other] if "compare" in name else []), "html")
                if name not in rcs:
                    continue
                md_rc = rcs.get(md, (None,))[0]
                if md_rc == 0 and rc != 0:
                    se = rcs[name][1].decode("utf-8", "replace").strip().splitlines()
                    ev = [x for x in se if re.search(r"Error|error|Exception", x)][-2:] or se[-2:]
                    self.fail("html-renders", f"{cmd}  [{label}]",
                              f"exit {rc} where the Markdown view exits 0: " + " | ".join(x.strip() for x in ev))
                elif md_rc == 0:
                    self.ok("html-renders")
        for wd in [os.path.join(self.work, x) for x in os.listdir(self.work)]:
            self.cleanup(wd)
        return rcs

    def run_corpus(self, html):
        m = json.load(open(os.path.join(self.corpus, "manifest.json"), encoding="utf-8"))
        self.fields = m["fields"]
        self.payloads = m["payloads"]
        cases = m["cases"]
        html_report = {"control", "mathtext", "dollar", "math_pair"}
        t0 = time.monotonic()
        for i, c in enumerate(cases):
            k = c["kind"]
            if k == "base":
                rcs = self.reading_commands(c["file"], "base", c["journal"], html=html)
                bad = {n: v[0] for n, v in rcs.items() if v[0] != 0}
                if bad:
                    print(f"note: the base run does not read cleanly: {bad}", file=sys.stderr)
                self.base_rcs = {n: v[0] for n, v in rcs.items()}
            elif k == "payload":
                label = f"payload {c['payload']}" + (f" in {list(c['fields'].values())[0]}" if c["scope"] != "free" else " in every free-text field")
                if c["scope"] == "free":
                    self.reading_commands(c["file"], label, c.get("journal"),
                                          html=html and c["payload"] in html_report)
                elif c["scope"] == "html":
                    if html:
                        label = f"payload {c['payload']} in " + c.get("where", "the free-text fields")
                        self.reading_commands(c["file"], label, None, which=("report", "validate", "compare-cross"),
                                              html="all" if c["payload"] == "script+img+md_link+md_image" else True)
                elif c["scope"] == "big":
                    self.reading_commands(c["file"], label, None)
                elif c["scope"] == "surrogate":
                    self.reading_commands(c["file"], label, None, which=self.QUICK)
                else:
                    self.reading_commands(c["file"], label, None, which=self.SEMANTIC)
            elif k == "structural":
                self.reading_commands(c["file"], c["what"], None, which=self.QUICK if c.get("quick") else self.FULL,
                                      html=bool(html and c.get("slow_ok")))
            elif k == "duplicate":
                self.duplicate_case(c)
            elif k == "bom":
                self.bom_case(c)
            elif k == "bad_journal_line":
                self.bad_line_case(c)
            if self.verbose and i % 50 == 0:
                print(f"  {i}/{len(cases)} cases, {time.monotonic() - t0:.0f} s", flush=True)

    def duplicate_case(self, c):
        a, b = c["file"], c["second"]
        da, db_ = self.doc(a), self.doc(b)
        rid = da["run_id"]
        label = "two files with one run_id"

        def stored(dbp):
            try:
                con = sqlite3.connect(dbp)
                names = [r[0] for r in con.execute("SELECT gpu_name FROM runs WHERE run_id = ?", (rid,))]
                con.close()
            except sqlite3.Error:
                names = []
            return names
        # one after the other into one database
        rc1, _, _, _, wd, cmd1, _ = self.invoke(label, ["import", "@C@/" + a, "--db", "@OUT@/d.db"], ["d.db"], [a])
        dbp = os.path.join(wd, "out", "d.db")
        p = subprocess.run([self.bin, "import", os.path.join(self.corpus, b), "--db", dbp], capture_output=True,
                           timeout=self.timeout, cwd=wd)
        names = stored(dbp) if os.path.exists(dbp) else []
        cmd = f"gpudissect import {a} --db d.db; gpudissect import {b} --db d.db"
        msg = (p.stdout + p.stderr).decode("utf-8", "replace").strip().replace("\n", " | ")
        if p.returncode == 0 and da["device"]["name"] not in names:
            self.fail("duplicate-run-id", cmd,
                      f"second import exit 0, the stored run {rid!r} is now {names} (the first file's "
                      f"{da['device']['name']!r} is gone); it said: {msg[:200]!r}")
        else:
            self.ok("duplicate-run-id")
        self.cleanup(wd)
        # both in one command
        for sub, outs in ((["import", "@C@/" + a, "@C@/" + b, "--db", "@OUT@/d.db"], ["d.db"]),
                          (["merge", "@C@/" + a, "@C@/" + b, "--db", "@OUT@/d.db", "--out", "@OUT@/m.md"], ["d.db", "m.md"])):
            rc, outs_b, so, se, wd, cmd, _ = self.invoke(label, sub, outs, [a, b])
            dbp = os.path.join(wd, "out", "d.db")
            names = stored(dbp) if os.path.exists(dbp) else []
            msg = (so + se).decode("utf-8", "replace").strip().replace("\n", " | ")
            if rc == 0 and not (da["device"]["name"] in names and db_["device"]["name"] in names):
                self.fail("duplicate-run-id", cmd,
                          f"exit 0, the database holds {names} for run {rid!r}: one file's run is silently dropped "
                          f"or replaced; it said: {msg[:200]!r}")
            else:
                self.ok("duplicate-run-id")
            self.cleanup(wd)
        # compare of the two is allowed to work; it must not crash (checked by invoke)
        _, _, _, _, wd, _, _ = self.invoke(label, ["compare", "@C@/" + a, "@C@/" + b, "--out", "@OUT@/c.md"], ["c.md"], [a, b])
        self.cleanup(wd)

    def bom_case(self, c):
        """A BOM before a valid file: every command must read it as it reads the file without."""
        rcs = self.reading_commands(c["file"], "UTF-8 BOM", c["journal"])
        for name, (rc, se, cmd) in rcs.items():
            want = self.base_rcs.get(name)
            if rc != want:
                last = se.decode("utf-8", "replace").strip().splitlines()
                self.fail("bom", cmd, f"exit {rc} (exit {want} without the BOM): {last[-1] if last else ''}")
            else:
                self.ok("bom")

    def bad_line_case(self, c):
        jf = c["journal"]
        n = c["records"]
        label = "journal with one bad line in the middle"
        rc, outs, so, se, wd, cmd, _ = self.invoke(label, ["recover", "@C@/" + jf, "--out", "@OUT@/rec.json"],
                                                   ["rec.json"], [jf])
        last = se.decode("utf-8", "replace").strip().splitlines()
        got = None
        if "rec.json" in outs:
            try:
                got = len(json.loads(outs["rec.json"])["records"])
            except Exception:  # noqa: BLE001
                got = None
        if got != n:
            self.fail("journal-bad-line", cmd,
                      f"exit {rc}, {got if got is not None else 'no'} records written of the {n} good ones: "
                      f"{last[-1] if last else ''}")
        else:
            self.ok("journal-bad-line")
        self.cleanup(wd)
        for sub, outs_n in ((["report", "@C@/" + jf, "--out", "@OUT@/r.md"], ["r.md"]),
                            (["import", "@C@/" + jf, "--db", "@OUT@/i.db"], ["i.db"])):
            rc, outs, so, se, wd, cmd, _ = self.invoke(label, sub, outs_n, [jf])
            last = se.decode("utf-8", "replace").strip().splitlines()
            if rc not in (0, 1) and not (rc == 2 and last and "recover" in last[-1]):
                self.fail("journal-bad-line", cmd, f"exit {rc}, the {n} good records are not read, and the message "
                          f"does not point at `gpudissect recover`: {last[-1] if last else ''}")
            else:
                self.ok("journal-bad-line")
            self.cleanup(wd)

    # ------------------------------------------------------------------------------- cwd hijack
    def cwd_hijack(self, html):
        h = os.path.join(self.tmp, "hijack")
        marks = os.path.join(self.tmp, "hijack-markers")
        os.makedirs(os.path.join(h, "nvidia", "cu99", "bin"), exist_ok=True)
        os.makedirs(marks, exist_ok=True)
        real_py = shutil.which("python3") or sys.executable

        def mark_py(name):
            return f"open({os.path.join(marks, name)!r}, 'w').write('imported')\n"
        for mod in ("pandas", "types", "json", "re", "argparse", "site", "matplotlib", "inspect", "os", "encodings"):
            with open(os.path.join(h, mod + ".py"), "w") as f:
                f.write(mark_py(mod + ".py"))
        with open(os.path.join(h, "nvidia", "__init__.py"), "w") as f:
            f.write(mark_py("nvidia/__init__.py"))
        for rel, chain in (("nvidia/cu99/bin/nvdisasm", None), ("nvdisasm", None), ("cuobjdump", None),
                           ("python3", real_py), ("python", real_py)):
            p = os.path.join(h, rel)
            with open(p, "w") as f:
                f.write(f"#!/bin/sh\necho ran > {os.path.join(marks, rel.replace('/', '_'))}\n"
                        + (f'exec {chain} "$@"\n' if chain else "exit 1\n"))
            os.chmod(p, os.stat(p).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        env = {"PATH": ".::" + os.environ.get("PATH", "")}
        base = os.path.join(self.corpus, "base.json")
        cmds = [["verify", "--arch", "sm_90a", "--filter", "latency.alu.ffma"],
                ["sass", "--arch", "sm_90a", "--kernel", "*alu_chain_kernel<*Ffma, 32>*"]]
        outs = [[], []]
        if html:
            cmds.insert(0, ["report", base, "--format", "html", "--out", "@OUT@/r.html"])
            outs.insert(0, ["r.html"])
        for args, o in zip(cmds, outs):
            before = set(os.listdir(marks))
            rc, _, so, se, wd, cmd, _ = self.invoke("cwd hijack", args, o, [], extra_env=env, cwd=h, timeout=120)
            new = sorted(set(os.listdir(marks)) - before)
            if new:
                self.fail("cwd-hijack", f"cd <folder with planted files>; PATH=.::$PATH {cmd}",
                          f"exit {rc}; planted code ran: {', '.join(new)}")
                for x in new:
                    os.remove(os.path.join(marks, x))
            else:
                self.ok("cwd-hijack")
            self.cleanup(wd)

    # ----------------------------------------------------------------------------------- report
    def summary(self, elapsed):
        total_f = 0
        print(f"\nhostile corpus: {self.n} invocations in {elapsed:.0f} s ({self.tmp})")
        for k in CHECKS:
            f = self.failed.get(k, [])
            total_f += len(f)
            print(f"  {k:20s} {self.passed.get(k, 0):6d} passed  {len(f):5d} failed")
        for k in CHECKS:
            f = self.failed.get(k, [])
            if not f:
                continue
            print(f"\n[{k}] {len(f)} failure(s):")
            for what, ev in f[:8]:
                print(f"  - {what}\n      {ev}")
            if len(f) > 8:
                print(f"  ... and {len(f) - 8} more")
        print("\nseconds per command: " + ", ".join(f"{k} {v:.0f}" for k, v in sorted(self.walls.items(), key=lambda x: -x[1])))
        print(f"\n{sum(self.passed.values())} checks passed, {total_f} failed")
        return total_f


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default=os.environ.get("GPUDISSECT_BINARY", os.path.join(REPO, "build", "gpudissect")))
    ap.add_argument("--keep", help="put the corpus and every command's folder here and keep them")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds one command may take (default 20)")
    ap.add_argument("--no-html", action="store_true", help="skip the HTML views (they need Python with matplotlib)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print each failure as it happens")
    args = ap.parse_args()
    if not os.access(args.binary, os.X_OK):
        sys.exit(f"run_hostile.py: no gpudissect binary at {args.binary} (--binary)")
    r = Runner(args)
    t0 = time.monotonic()
    subprocess.run([sys.executable, os.path.join(HERE, "generate.py"), r.corpus], check=True)
    os.makedirs(r.work, exist_ok=True)
    r.run_corpus(html=not args.no_html)
    r.cwd_hijack(html=not args.no_html)
    failures = r.summary(time.monotonic() - t0)
    if not r.keep and not failures:
        shutil.rmtree(r.tmp, ignore_errors=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
