"""The page: the binary's Markdown as HTML, figures after their probe's heading, nothing external."""
import re

from conftest import RUN
from gpudissect import load_run
from gpudissect.html import build_html, markdown_to_html


def test_markdown_tables_headings_and_escaping():
    md = ("# Title\n\n## memory.latency.chase\n\n| a | b |\n| --- | ---: |\n| x \\| y | **2** |\n\n"
          "> ⚠ warn `code`\n\n- item [link](#memory.latency.chase)\n\n<script>alert(1)</script>\n")
    html = markdown_to_html(md)
    assert '<h2 id="memory.latency.chase">' in html
    assert '<td class="r"><strong>2</strong></td>' in html and "<td>x | y</td>" in html
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
    glance = page.index("The chip at a glance")
    figs = [m.start() for m in re.finditer(r'<figure class="gd-figure"', page)]
    assert len(figs) == 3, "bandwidth, latency and tensor rates"
    assert all(glance < f < page.index(">memory<") for f in figs), "drawn under the first section"
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
