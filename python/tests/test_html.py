"""The page: the binary's Markdown as HTML, figures after their probe's heading, nothing external."""
import json
import re

import pytest

from conftest import RUN
from gpudissect import load_run
from gpudissect.html import build_html, markdown_to_html


def test_markdown_tables_headings_and_escaping():
    md = ("# Title\n\n## memory.latency.chase\n\n| a | b |\n| --- | ---: |\n| x \\| y | **2** |\n\n"
          "> ⚠ warn `code`\n\n- item [link](#memory.latency.chase)\n\n<script>alert(1)</script>\n")
    html = markdown_to_html(md)
    assert '<h2 id="memory.latency.chase">' in html
    # Numbers (right) are the common case and go unmarked; a left-aligned cell is marked.
    assert '<td><strong>2</strong>' in html and '<td class="l">x | y' in html
    # Cells and rows close implicitly: no end tags, no line breaks between them.
    assert "</td>" not in html and "</tr>" not in html and "<tr><td" in html
    assert "<blockquote>" in html and "<code>code</code>" in html
    assert '<a href="#memory.latency.chase">link</a>' in html
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_figures_follow_their_probe_heading_and_are_counted():
    md = "# r\n\n## Coverage of the reference studies' items\n\n### compute.peak.fp32\n\ntext\n\n### memory.latency.chase\n"
    ctx = {"markdown": md, "coverage": [{"category": "memory", "measured": 4, "planned": 5, "not_applicable": 0}]}
    page = build_html(load_run(RUN), ctx)
    n = int(re.search(r'data-figures="(\d+)"', page).group(1))
    assert n == page.count('<figure class="gd-figure"') and n >= 5
    assert page.index('id="compute.peak.fp32"') < page.index('data-probe="compute.peak.fp32"') < page.index(
        'id="memory.latency.chase"')
    # Figures of probes the Markdown has no section for still appear.
    assert 'id="more-figures"' in page
    # Nothing to fetch: no scripts, stylesheets or addresses but the SVG/XLink namespace names.
    assert not re.search(r"<script|<link|<img|https?://(?!www\.w3\.org/(2000/svg|1999/xlink))", page)


def test_the_chip_at_a_glance_draws_the_headlines_after_its_heading():
    headlines = [
        {"quantity": "dram.read_bandwidth", "title": "DRAM read bandwidth", "value": 4.68, "unit": "TB/s"},
        {"quantity": "l2.read_bandwidth", "title": "L2 read bandwidth", "value": 12.3, "unit": "TB/s"},
        {"quantity": "l1.latency", "title": "L1 hit latency", "value": 32.0, "unit": "cycles"},
        {"quantity": "ffma.latency", "title": "FFMA latency", "value": 4.0, "unit": "cycles"},
        {"quantity": "tensor.wgmma.f16_f32", "title": "wgmma f16", "value": 871.5, "unit": "TFLOPS"},
        {"quantity": "launch.overhead", "title": "launch", "value": 2.1, "unit": "us"},
    ]
    md = "# gpudissect report\n\n## The chip at a glance\n\ntext\n\n## memory\n\nmore\n"
    page = build_html(None, {"markdown": md, "headlines": headlines})
    glance = page.index('id="the-chip-at-a-glance"')  # the heading, not its line in the contents
    figs = [m.start() for m in re.finditer(r'<figure class="gd-figure"', page)]
    assert len(figs) == 3, "bandwidth, latency and tensor rates"
    assert all(glance < f < page.index('id="memory"') for f in figs), "drawn under the first section"
    assert "FFMA latency" not in page, "an ALU latency is not a memory level"
    assert build_html(None, {"markdown": md, "headlines": []}).count("gd-figure\"") == 0


def test_the_validation_figure_follows_its_heading():
    rows = [{"source": "mt4g", "verdict": "agrees", "published_common": 38.0, "ours_common": 32.0},
            {"source": "gpu-benches", "verdict": "disagrees", "published_common": 3.88, "ours_common": 4.69},
            {"source": "gpu-benches", "verdict": "not measured", "published_common": None, "ours_common": None}]
    page = build_html(None, {"markdown": "# Validation: NVIDIA H200 against the published record\n\ntext\n",
                             "validation": rows})
    assert page.count('<figure class="gd-figure"') == 1
    assert page.index('<h1') < page.index('data-probe="validation"')
    assert build_html(None, {"markdown": "# x\n", "validation": rows[2:]}).count("<figure") == 0


def test_only_http_anchor_and_relative_link_targets_become_links():
    """A run file's string that reads as a Markdown link to a script stays text (issue 36 item 2)."""
    md = ("- [a](javascript:alert(1)) [b](JavaScript:x) [c](data:text/html,x) [d](vbscript:x) "
          "[e](java&#115;cript:x)\n- [ok1](https://example.org/x) [ok2](#anchor) [ok3](docs/method.md)\n")
    page = markdown_to_html(md)
    hrefs = re.findall(r'href="([^"]*)"', page)
    assert hrefs == ["https://example.org/x", "#anchor", "docs/method.md"], page
    assert "[a](javascript:alert(1))" in page, "the unsafe link stays as its text"


def test_an_ampersand_in_a_link_target_is_escaped_once():
    """Written bare or as the entity `&amp;`, it is one `&` of the target: `&amp;` in the href."""
    page = markdown_to_html("[a](https://example.org/q?x=1&y=2) [b](https://example.org/q?x=1&amp;y=2)\n")
    assert re.findall(r'href="([^"]*)"', page) == ["https://example.org/q?x=1&amp;y=2"] * 2, page


def test_bold_next_to_a_code_span_nests():
    page = markdown_to_html("`**kwargs` **bold** `code`\n")
    assert "<code>**kwargs</code> <strong>bold</strong> <code>code</code>" in page, page


def test_ordered_lists_and_emphasis():
    page = markdown_to_html("1. first *one*\n2. second _two_\n")
    assert re.search(r"<ol>\s*<li>first <em>one</em></li>\s*<li>second <em>two</em></li>\s*</ol>", page), page


def test_images_and_raw_html_stay_text():
    """The page fetches nothing and runs nothing: `![x](u)` is no <img>, `<b onclick=...>` is text."""
    page = markdown_to_html('![i](https://example.org/i.png) <b onclick="x()">b</b> ![j](javascript:x)\n')
    assert "<img" not in page and "<b " not in page and "&lt;b onclick=" in page, page
    assert "![j](javascript:x)" in page and 'href="https://example.org/i.png"' in page


def test_the_page_opens_with_a_table_of_contents():
    """A nav after the title links every section (h2) by its anchor, the figures' own section too."""
    md = ("# gpudissect report: GPU\n\nintro\n\n## The chip at a glance\n\n### latency.alu.ffma\n\n"
          "## memory <a id=\"mem\"></a>\n\ntext\n\n## Guide for `kernel` authors\n")
    page = build_html(load_run(RUN), {"markdown": md})
    nav = re.search(r'<nav class="gd-toc"[^>]*>.*?</nav>', page, re.S)
    assert nav, page[:2000]
    assert page.index("</h1>") < nav.start() < page.index("<h2"), "near the top: after the title"
    links = re.findall(r'<a href="#([^"]+)">(.*?)</a>', nav.group(0))
    assert links == [("the-chip-at-a-glance", "The chip at a glance"), ("mem", "memory"),
                     ("guide-for-kernel-authors", "Guide for <code>kernel</code> authors"),
                     ("more-figures", "More figures")], links
    ids = set(re.findall(r'<h2 id="([^"]+)"', page))
    assert {a for a, _ in links} <= ids, "every link lands on a heading"
    assert "latency.alu.ffma" not in nav.group(0), "sections only, not every probe"
    untitled = build_html(None, {"markdown": "## a\n\n# a late title\n"})
    assert untitled.index('<nav class="gd-toc"') < untitled.index("<h2"), "no title first: at the top"


def test_wide_tables_scroll_in_their_own_box():
    md = "| " + " | ".join(f"column {i}" for i in range(3)) + " |\n|" + "---|" * 3 + "\n| a | b | c |\n"
    html = markdown_to_html(md)
    assert re.fullmatch(r'\s*<div class="gd-table">\s*<table>.*</table>\s*</div>\s*', html, re.S), html
    from gpudissect.html import CSS
    assert re.search(r"\.gd-table\{[^}]*overflow-x:auto", CSS)


def test_no_table_is_wider_than_the_window_in_chromium(tmp_path):
    """In a real browser (the one tests/report/html_render_check.py drives): a table of 60 columns
    scrolls inside its box, and the page itself never scrolls sideways."""
    import importlib.util
    import json
    import os
    import shutil

    import pytest

    from conftest import ROOT
    spec = importlib.util.spec_from_file_location("html_render_check", ROOT / "tests/report/html_render_check.py")
    check = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check)
    exe = next((shutil.which(b) for b in check.BROWSERS if shutil.which(b)), None)
    if not exe:
        pytest.skip("no headless Chromium (scripts/setup.sh installs chromium-headless-shell)")
    wide = "| " + " | ".join(f"a_long_column_name_{i}" for i in range(60)) + " |\n|" + "---|" * 60 + "\n"
    page = tmp_path / "wide.html"
    page.write_text(build_html(None, {"markdown": f"# t\n\n## s\n\n{wide}"}))
    b = check.Browser(exe)
    try:
        target = b.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = b.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        b.send("Page.enable", session=session)
        b.send("Page.navigate", {"url": "file://" + os.path.abspath(page)}, session=session)
        b.wait_event("Page.loadEventFired", timeout=60)
        js = ("JSON.stringify({page: document.documentElement.scrollWidth, window: window.innerWidth,"
              " box: document.querySelector('table').parentElement.getBoundingClientRect().right,"
              " table: document.querySelector('table').scrollWidth})")
        got = json.loads(b.send("Runtime.evaluate", {"expression": js, "returnByValue": True},
                                session=session)["result"]["value"])
    finally:
        b.close()
    assert got["table"] > got["window"], f"the test table is wider than the window: {got}"
    assert got["page"] <= got["window"] and got["box"] <= got["window"], got


def test_the_roofline_draws_every_ceiling_of_the_model():
    from gpudissect.html import roofline_figure
    from gpudissect.figures import render_svg
    model = {"roofline": {
        "compute": [{"name": "FP64 DFMA peak", "tera_ops_per_s": 33.0, "unit": "TFLOPS", "record": "r"},
                    {"name": "FP32 FMA peak", "tera_ops_per_s": 66.2, "unit": "TFLOPS", "record": "r"},
                    {"name": "wgmma bf16", "tera_ops_per_s": 907.0, "unit": "TFLOPS", "record": "r"}],
        "bandwidth": [{"level": "DRAM", "tb_per_s": 4.69, "record": "r"},
                      {"level": "L2", "tb_per_s": 12.05, "record": "r"},
                      {"level": "L1", "tb_per_s": 33.1, "record": "r"}]}}
    fig = roofline_figure(model)
    assert fig is not None and fig.kind == "roofline"
    svg = render_svg(fig, "t")
    for label in ("FP64 DFMA peak 33", "FP32 FMA peak 66.2", "wgmma bf16 907", "DRAM 4.69 TB/s", "L2 12.1 TB/s",
                  "L1 33.1 TB/s"):
        assert label in svg, label
    from gpudissect.figures import draw_figure
    ax = draw_figure(fig).axes[0]
    ticks = [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels()]
    assert "1000" in ticks and not any("$" in t for t in ticks), ticks  # not mathtext printed as written
    assert roofline_figure({"roofline": {"compute": [], "bandwidth": []}}) is None
    assert roofline_figure(None) is None


def test_load_model_reads_a_model_and_refuses_other_files(tmp_path):
    from gpudissect import load_model
    good = tmp_path / "m.json"
    good.write_text(json.dumps({"kind": "gpudissect-machine-model", "version": 1, "roofline": {}}))
    assert load_model(good)["version"] == 1
    for name, text in (("run.json", '{"schema_version": 3, "records": []}'), ("v2.json",
                       '{"kind": "gpudissect-machine-model", "version": 2}'), ("bad.json", "{")):
        p = tmp_path / name
        p.write_text(text)
        with pytest.raises(ValueError, match=name):
            load_model(p)


def _table(rows: int) -> str:
    return "| size | latency |\n|---:|---:|\n" + "".join(f"| {i} | {2 * i} |\n" for i in range(rows))


def test_a_long_table_folds_and_its_figure_stays_in_view():
    """Issue 32: a table of more than 40 rows is inside <details>, its row count in the summary;
    the probe's figure comes before it, outside, and a short table is not folded."""
    md = (f"# r\n\n## memory\n\n### memory.latency.chase\n\n{_table(45)}\n### compute.peak.fp32\n\n{_table(12)}")
    page = build_html(load_run(RUN), {"markdown": md})
    chase = page[page.index('id="memory.latency.chase"'):page.index('id="compute.peak.fp32"')]
    assert re.search(r"<details[^>]*><summary>memory\.latency\.chase: table \(45 rows\)</summary>", chase), chase[:600]
    assert chase.index("<figure") < chase.index("<details") and chase.index("</figure>") < chase.index("<details")
    assert chase.index("<table") > chase.index("<details") and chase.index("</table>") < chase.index("</details>")
    peak = page[page.index('id="compute.peak.fp32"'):]
    assert "<table" in peak and "<details" not in peak


def test_each_glyph_and_text_is_defined_once_in_a_page():
    """The figures' characters are defined once for the page and every reference finds its target."""
    page = build_html(load_run(RUN), {"markdown": "# r\n\n## memory\n"})
    ids = re.findall(r' id="([^"]+)"', page)
    assert len(ids) == len(set(ids)), [i for i in set(ids) if ids.count(i) > 1][:10]
    refs = set(re.findall(r'href="#([^"]+)"', page)) | set(re.findall(r"url\(#([^)]+)\)", page))
    assert refs and refs <= set(ids), sorted(refs - set(ids))[:10]
    assert "DejaVuSans-" not in page  # glyphs go by their short page-wide ids


def test_categories_follow_the_study_and_the_glance_comes_first():
    """Sections of categories in the reference study's order (topology, pipes, latency, ... power),
    whatever order the binary wrote them in; the chip at a glance first; the rest in place (issue 32)."""
    md = ("# r\n\n## Summary\n\ns\n\n## The chip at a glance\n\ng\n\n## latency\n\n### latency.alu.x\n\na\n\n"
          "## memory\n\nm\n\n## newcat\n\nn\n\n## pipes\n\np\n\n## topology\n\nt\n\n## power\n\nw\n\n"
          "## Guide for kernel authors\n\nk\n")
    page = build_html(None, {"markdown": md})
    h2 = re.findall(r"<h2 id=\"([^\"]+)\"", page)
    assert h2 == ["the-chip-at-a-glance", "summary", "topology", "pipes", "latency", "memory", "power", "newcat",
                  "guide-for-kernel-authors"], h2
    assert page.index('id="latency.alu.x"') > page.index('id="latency"'), "a section keeps its own subsections"
