"""The HTML report: the binary's Markdown report (tables, coverage, guide) turned into HTML, with
each figure inlined as SVG after the heading of the probe it belongs to. One self-contained file:
no scripts, no fonts, no network."""
from __future__ import annotations

import html
import re

import pandas as pd
from markdown_it import MarkdownIt
from markdown_it.token import Token

from .figures import PALETTE, Drawn, Figure, draw_all, plain_log_ticks
from .labels import unit_label

CSS = """
body{font-family:sans-serif;max-width:1100px;margin:1em auto;padding:0 1em;color:#222;line-height:1.4}
table{border-collapse:collapse;margin:.5em 0;font-size:12px}
.gd-table{overflow-x:auto;max-width:100%}
nav.gd-toc{font-size:13px;border:1px solid #ddd;background:#fafafa;padding:.3em .8em;margin:1em 0}
nav.gd-toc ol{columns:3;margin:.3em 0}
th,td{border:1px solid #ccc;padding:2px 6px;vertical-align:top}
th{background:#f2f2f2}
td,th{text-align:right}
td.l,th.l{text-align:left}
blockquote{border-left:4px solid #e0a000;margin:.5em 0;padding:.2em .8em;background:#fff8e6}
blockquote>p{margin:0}
code{background:#f4f4f4;padding:0 2px}
figure.gd-figure{margin:1em 0}
figure.gd-figure svg{max-width:100%;height:auto}
figcaption{font-size:12px;color:#555}
details.gd-fold>summary{cursor:pointer;font-size:13px;color:#335}
h2{border-bottom:1px solid #ddd}
"""


def slug(text: str) -> str:
    """The anchor a heading gets: its text, lowercased, runs of other characters as '-'."""
    return re.sub(r"[^a-z0-9._]+", "-", text.strip().lower()).strip("-")


# Link targets a page may carry: http(s), an anchor, or a relative path (no scheme). A run file's
# string that reads `[x](javascript:...)` (or data:, vbscript:, any other scheme) stays text: the
# page runs no script (issue 36 item 2). markdown-it asks this of every link and autolink target
# after decoding its entities, and leaves a refused link as the text it was written as.
_SAFE_TARGET = re.compile(r"^(?:https?://|#|[^:]*$)", re.IGNORECASE)
# A heading may name its own anchor: `## text <a id="x"></a>` (the tag is taken out of its text).
_ANCHOR = re.compile(r'<a id="([^"]+)"></a>')


# Units the binary's Markdown spells two ways (TFLOP/s beside TFLOPS): the page writes labels.py's.
_UNIT_SPELLING = re.compile(r"(?<![\w/])(?:TFLOP/s|TOP/s|GFLOP/s)(?=/W\b|(?![\w/]))")


def _safe_target(url: str) -> bool:
    return bool(_SAFE_TARGET.match(url))


def _parser() -> MarkdownIt:
    """CommonMark with pipe tables; raw HTML is text, images are not drawn (the page fetches
    nothing: `![x](u)` reads as `!` and a link), only safe link targets become links."""
    md = MarkdownIt("commonmark", {"html": False}).enable("table").disable("image")
    md.validateLink = _safe_target
    return md


_MD = _parser()


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def _html_block(content: str) -> Token:
    block = Token("html_block", "", 0)
    block.content = content
    return block


FOLD_ROWS = 40  # a table with more body rows than this is folded (<details>), its size in the summary


def _body_rows(tokens: list[Token], start: int) -> int:
    """The body rows of the table whose table_open is tokens[start]."""
    n, body = 0, False
    for tok in tokens[start + 1:]:
        if tok.type == "table_close":
            break
        body = body or tok.type == "tbody_open"  # the header row is in thead
        n += body and tok.type == "tr_open"
    return n


def markdown_to_html(md: str, after_heading=lambda level, text: "", headings: list | None = None) -> str:
    """The Markdown the binary writes as HTML (markdown-it-py: CommonMark and pipe tables). Each
    heading gets `id` = slug() of its text; `after_heading(level, text)` returns HTML placed right
    after it (the figures of a probe's section); `headings`, a list, receives (level, id, its text
    as HTML without links) of each, for a table of contents. Right-aligned table columns are
    unmarked and the others `class="l"` (the CSS aligns a cell right unless it is marked: the
    suite's tables hold five numbers to each word, and a class a number cost 250 kB); each table
    is in a box that scrolls sideways, so a wide one never widens the page."""
    tokens = _MD.parse(md)
    out: list[Token] = []
    heading = ""
    fold = False
    for i, tok in enumerate(tokens):
        if tok.type == "table_open":
            rows = _body_rows(tokens, i)
            if rows > FOLD_ROWS:  # a long sweep's table folds; its figure, before it, stays in view
                fold = True
                what = html.escape(f"{heading}: table" if heading else "Table")
                out.append(_html_block(f'<details class="gd-fold"><summary>{what} ({rows} rows)</summary>\n'))
            else:
                fold = False
            out.append(_html_block('<div class="gd-table">\n'))
        out.append(tok)
        if tok.type == "table_close":
            out.append(_html_block("</div>\n" + ("</details>\n" if fold else "")))
        elif tok.type == "heading_open":
            inline = tokens[i + 1]
            anchor = _ANCHOR.search(inline.content)
            if anchor:
                inline.content = _ANCHOR.sub("", inline.content).strip()
                inline.children = _MD.parseInline(inline.content)[0].children
            heading = _unescape(inline.content)
            tok.attrSet("id", anchor.group(1) if anchor else slug(heading))
            if headings is not None:  # a link inside the contents' link would nest <a> in <a>
                text = [c for c in inline.children or [] if c.type not in ("link_open", "link_close")]
                headings.append((int(tok.tag[1]), tok.attrGet("id"), _MD.renderer.renderInline(text, _MD.options, {})))
        elif tok.type == "heading_close":
            figures = after_heading(int(tok.tag[1]), heading)
            if figures:
                out.append(_html_block(figures + "\n"))
        elif tok.type in ("th_open", "td_open"):
            align = tok.attrs.pop("style", "")
            if align not in ("text-align:right", "text-align:center"):  # `---:` and `:---:` go right, as before
                tok.attrSet("class", "l")
        elif tok.type == "inline":
            for child in tok.children or []:
                if child.type == "link_open":
                    child.attrs.pop("title", None)  # the binary writes none; nothing but href in a tag
                elif child.type == "text" and "/s" in child.content:  # one spelling of a unit on the page
                    child.content = _UNIT_SPELLING.sub(lambda m: unit_label(m.group(0)), child.content)
    return compact_tables(_MD.renderer.render(out, _MD.options, {}))


# A table's cells and rows need no end tags in HTML (the parser closes a cell at the next cell, row
# or table end) and no line breaks between them: the suite's 37,000 cells spent 300 kB on both.
_TABLE_BREAK = re.compile(r">\n(?=</?(?:table|thead|tbody|tr|td|th)\b)")
_CELL_END = re.compile(r"</(?:td|th|tr)>")


def compact_tables(rendered: str) -> str:
    """The rendered Markdown with its tables' optional end tags and line breaks dropped."""
    return _CELL_END.sub("", _TABLE_BREAK.sub(">", rendered))


def _figure_html(fig: Drawn, n: int) -> str:
    cap = html.escape(fig.title + (f" ({fig.caption})" if fig.caption else ""))
    return (f'<figure class="gd-figure" id="fig-{n}" data-kind="{fig.kind}" data-probe="{html.escape(fig.anchor)}">'
            f"{fig.svg}<figcaption>Figure {n}: {cap}</figcaption></figure>")


def glyphs_html(glyphs: dict[str, str]) -> str:
    """One hidden <svg> defining every glyph the page's figures draw, each once: the figures'
    <use href="#g14"> refer to it (ids are the document's, shared by every inline SVG)."""
    if not glyphs:
        return ""
    return ('<svg class="gd-glyphs" width="0" height="0" style="position:absolute" aria-hidden="true">'
            f'<defs>{"".join(glyphs[k] for k in sorted(glyphs))}</defs></svg>\n')


def coverage_figure(coverage: list[dict]) -> Figure | None:
    """Stacked bars of items per category: measured, reported (the driver's answer), still open
    (planned or not in the run), not applicable."""
    if not coverage:
        return None
    cats = [c["category"] for c in coverage]

    def draw(ax):
        left = [0] * len(cats)
        for key, label, color in (("measured", "measured", "#55a868"), ("reported", "reported", "#a6d8b4"),
                                  ("planned", "still open", "#c8c8c8"), ("not_applicable", "not applicable", "#8172b2")):
            vals = [c.get(key, 0) for c in coverage]
            ax.barh(range(len(cats)), vals, left=left, color=color, label=label)
            left = [a + b for a, b in zip(left, vals)]
        ax.set_yticks(range(len(cats)), cats, fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel("items of the reference studies")
        ax.legend(fontsize=7, loc="lower right")

    return Figure("coverage", "Coverage of the reference studies' items by category", "bars", draw,
                  height=max(2.5, 0.22 * len(cats) + 1))


GLANCE = "The chip at a glance"
VALIDATION = "validation"

_VERDICT_COLORS = {"agrees": "#55a868", "differs, explained": "#dd8452", "disagrees": "#c44e52"}
_SOURCE_MARKERS = "os^Dv<>Pp*hX"


def validation_figure(rows: list[dict]) -> Figure | None:
    """Ours against the published figure, both in the comparison's common unit, log-log: one marker
    per source, coloured by verdict, the diagonal where they are equal (`gpudissect validate`)."""
    pts = [r for r in rows if isinstance(r.get("published_common"), (int, float))
           and isinstance(r.get("ours_common"), (int, float)) and r["published_common"] > 0 and r["ours_common"] > 0]
    if not pts:
        return None
    sources = sorted({str(r.get("source", "")) for r in pts})

    def draw(ax):
        lo = min(min(r["published_common"], r["ours_common"]) for r in pts) / 2
        hi = max(max(r["published_common"], r["ours_common"]) for r in pts) * 2
        ax.plot([lo, hi], [lo, hi], color="#888888", linewidth=0.8, zorder=1)
        for i, src in enumerate(sources):
            mine = [r for r in pts if str(r.get("source", "")) == src]
            ax.scatter([r["published_common"] for r in mine], [r["ours_common"] for r in mine],
                       marker=_SOURCE_MARKERS[i % len(_SOURCE_MARKERS)], s=22, zorder=2, label=src,
                       c=[_VERDICT_COLORS.get(r.get("verdict"), "#8c8c8c") for r in mine],
                       edgecolors="#333333", linewidths=0.4)
        ax.set_xscale("log")
        ax.set_yscale("log")
        plain_log_ticks(ax)
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.set_xlabel("published (common unit)")
        ax.set_ylabel("ours (common unit)")
        ax.legend(fontsize=6, loc="upper left", title="source (marker); colour: verdict", title_fontsize=6)

    return Figure(VALIDATION, "Ours against the published record", "scatter", draw, width=5.6, height=5.0,
                  caption="log-log; on the diagonal ours equals the published figure; green agrees, orange differs "
                          "for a recorded reason, red disagrees")


def _headline_bars(headlines: list[dict], title: str, pick, xlabel: str, fid: str) -> Figure | None:
    """Horizontal bars of the headlines `pick` selects, each labelled with its value and record."""
    rows = [h for h in headlines if pick(h) and isinstance(h.get("value"), (int, float))]
    if not rows:
        return None

    def draw(ax):
        ys = range(len(rows))
        ax.barh(ys, [h["value"] for h in rows], color="#4c72b0")
        ax.set_yticks(ys, [h["title"] for h in rows], fontsize=7)
        ax.invert_yaxis()
        ax.set_xlabel(xlabel)
        ax.set_xlim(0, max(h["value"] for h in rows) * 1.35)
        for y, h in zip(ys, rows):
            ax.text(h["value"], y, " " + (f"{h['value']:.0f}" if abs(h["value"]) >= 10000 else f"{h['value']:.4g}"), va="center", fontsize=6)

    return Figure(fid, title, "bars", draw, height=max(1.6, 0.28 * len(rows) + 0.8),
                  caption="headlines: the best record of each quantity")


def roofline_figure(model: dict | None) -> Figure | None:
    """The roofline of the machine model: each compute ceiling (FP64, FP32, tensor per type) a
    horizontal line, each bandwidth ceiling (L1, L2, DRAM) a diagonal, both on log axes, every line
    labelled with its value; the records are in the caption's source, the model."""
    roof = (model or {}).get("roofline") or {}
    compute = [c for c in roof.get("compute", []) if isinstance(c.get("tera_ops_per_s"), (int, float))]
    bandwidth = [b for b in roof.get("bandwidth", []) if isinstance(b.get("tb_per_s"), (int, float))]
    if not compute or not bandwidth:
        return None
    top = max(c["tera_ops_per_s"] for c in compute)
    lo = min(c["tera_ops_per_s"] for c in compute) / min(b["tb_per_s"] for b in bandwidth) / 20
    hi = top / max(b["tb_per_s"] for b in bandwidth) * 20

    def draw(ax):
        ax.set_xscale("log")
        ax.set_yscale("log")
        for i, b in enumerate(sorted(bandwidth, key=lambda b: b["tb_per_s"])):
            # TB/s x FLOP/byte = TFLOP/s, up to the highest ceiling
            ridge = top / b["tb_per_s"]
            ax.plot([lo, ridge], [b["tb_per_s"] * lo, top], color=PALETTE[i % len(PALETTE)], lw=1.2,
                    label=f"{b['level']} {b['tb_per_s']:.3g} TB/s")
        # Close ceilings (f16 and bf16) would print over each other: labels alternate sides.
        for i, c in enumerate(sorted(compute, key=lambda c: c["tera_ops_per_s"])):
            v = c["tera_ops_per_s"]
            ax.axhline(v, color="#555", lw=0.7, ls="--")
            ax.text(hi if i % 2 == 0 else lo, v, f" {c['name']} {v:.4g} {c['unit']} ", fontsize=6,
                    ha="right" if i % 2 == 0 else "left", va="bottom")
        ax.set_xlim(lo, hi)
        ax.set_ylim(min(c["tera_ops_per_s"] for c in compute) / 4, top * 1.6)
        plain_log_ticks(ax)
        ax.set_xlabel("arithmetic intensity (operations per byte)")
        ax.set_ylabel("rate (TFLOPS or TOPS)")
        ax.legend(fontsize=6, loc="lower right")

    return Figure(GLANCE, "Roofline: the measured ceilings", "roofline", draw, width=6.4, height=4.2,
                  caption="compute ceilings (dashed) and memory bandwidths (diagonals) from the run's headlines, "
                          "as in the machine model (gpudissect export --format model)")


def glance_figures(headlines: list[dict]) -> list[Figure]:
    """The first page's figures: bandwidth per level, latency per level, tensor and GEMM rates."""
    figs = [
        _headline_bars(headlines, "Bandwidth per memory level", lambda h: h.get("unit") == "TB/s",
                       "bandwidth (TB/s)", GLANCE),
        _headline_bars(headlines, "Latency per memory level", lambda h: h.get("unit") == "cycles"
                       and h.get("quantity", "").split(".")[0] in ("l1", "l2", "dram"), "latency (cycles)", GLANCE),
        _headline_bars(headlines, "Tensor-core and GEMM rates per type",
                       lambda h: h.get("unit") in ("TFLOPS", "TOPS") and h.get("quantity", "").startswith(("tensor", "gemm")),
                       "rate (TFLOPS or TOPS)", GLANCE),
    ]
    return [f for f in figs if f is not None]


# The report's categories in the order of the reference study's sections (the SM_120 paper,
# /work/shared/seeds' 000 and data/coverage/seed-items.csv's sources): the chip's topology (§4.3),
# pipes and co-issue (§5), ALU latency and throughput (§6), memory (§7), tensor cores (§8), TMA and
# async copies (§9), instruction encoding (§10.1) and control (§10.2-10.7), GEMM (§11.1), attention
# (§11.2), power and DVFS (§11.3-11.4), communication between SMs and GPUs (§11.5).
STUDY_ORDER = ("topology", "pipes", "latency", "compute", "memory", "tensor", "async", "isa", "sass",
               "gemm", "attention", "power", "links")


def in_study_order(md: str) -> str:
    """The Markdown with its sections (## headings) of categories in STUDY_ORDER, in the places
    those sections held (a category it does not know after those it does), and the chip-at-a-glance
    section first. Other sections keep their places."""
    lines = md.splitlines(keepends=True)
    fenced = False
    starts = []
    for i, line in enumerate(lines):
        fenced ^= line.startswith(("```", "~~~"))
        if line.startswith("## ") and not fenced:
            starts.append(i)
    if not starts:
        return md
    blocks = [lines[a:b] for a, b in zip(starts, starts[1:] + [len(lines)])]
    head = lines[:starts[0]]

    def title(block):
        return block[0][3:].strip()

    # The binary titles a category's section with its bare name (lowercase); one the study does not
    # know goes after those it does.
    cats = [i for i, b in enumerate(blocks) if re.fullmatch(r"[a-z][a-z0-9_]*", title(b))]
    rank = {c: r for r, c in enumerate(STUDY_ORDER)}
    ranked = sorted(cats, key=lambda i: rank.get(title(blocks[i]), len(STUDY_ORDER)))
    order = list(range(len(blocks)))
    for at, i in zip(cats, ranked):
        order[at] = i
    glance = [i for i in order if title(blocks[i]) == GLANCE]
    order = glance + [i for i in order if i not in glance]
    return "".join(head + [line for i in order for line in blocks[i]])


def contents_html(sections: list[tuple[str, str]]) -> str:
    """The table of contents: a link to each (anchor, text as HTML) section."""
    items = "".join(f'<li><a href="#{html.escape(anchor)}">{text}</a></li>' for anchor, text in sections)
    return f'<nav class="gd-toc" aria-label="Contents"><strong>Contents</strong><ol>{items}</ol></nav>\n'


def build_html(df: pd.DataFrame | None, context: dict, records: list[dict] | None = None) -> str:
    """The page: context["markdown"] (the binary's report) with the figures the records call for;
    context["probes"] holds each probe's declared views and metrics, context["coverage"] the
    per-category counts drawn on the first page. `records`, the run file's, add the figures of what
    they hold beside their metrics (figures.extra_figures)."""
    extra: list[Figure] = glance_figures(context.get("headlines") or [])
    roof = roofline_figure(context.get("model"))
    if roof:
        extra.append(roof)
    for fig in (coverage_figure(context.get("coverage") or []), validation_figure(context.get("validation") or [])):
        if fig:
            extra.append(fig)
    # The figures are planned and drawn on every core (draw_all) while the Markdown is laid out
    # here; a placeholder marks the place of each heading that may take figures (the Markdown's
    # own text cannot hold one: raw HTML in it is escaped), filled in once they are drawn.
    keys: list[str] = []

    def after_heading(level: int, text: str) -> str:
        key = text.strip()
        if key.lower().startswith("coverage"):
            key = "coverage"
        elif key.lower().startswith("validation"):
            key = VALIDATION
        if key in keys:
            return ""
        keys.append(key)
        return f"<!--gd-anchor-{len(keys)}-->"

    headings: list[tuple[int, str, str]] = []
    given, planned, body = draw_all(
        df, context.get("probes") or {}, extra, records=records,
        meanwhile=lambda: markdown_to_html(in_study_order(context.get("markdown") or "# gpudissect report\n"),
                                            after_heading, headings))
    by_anchor: dict[str, list[Drawn]] = {}
    for d in planned:
        by_anchor.setdefault(d.anchor, []).append(d)
    glance = [d for d in given if d.anchor == GLANCE]
    if glance:
        by_anchor[GLANCE] = glance
    for d in given:
        if d.anchor != GLANCE:
            by_anchor.setdefault(d.anchor, []).insert(0, d)
    # Figures are numbered in the order the page shows them.
    order: list[Drawn] = []

    def place(key: str) -> str:
        first = len(order)
        order.extend(by_anchor.get(key, []))
        return "\n".join(_figure_html(d, n + 1) for n, d in enumerate(order[first:], first))

    placed = set(keys)
    body = re.sub(r"<!--gd-anchor-(\d+)-->\n", lambda m: (lambda f: f + "\n" if f else "")(place(keys[int(m.group(1)) - 1])),
                  body)
    sections = [(anchor, text) for level, anchor, text in headings if level == 2]
    rest = [place(key) for key in by_anchor if key not in placed]  # figures whose section the Markdown lacks
    if rest:
        body += "\n<h2 id=\"more-figures\">More figures</h2>\n" + "\n".join(rest)
        sections.append(("more-figures", "More figures"))
    if sections:  # after the title (a first heading of level 1), where a reader starts
        title_end = body.index("</h1>\n") + len("</h1>\n") if headings[0][0] == 1 else 0
        body = body[:title_end] + contents_html(sections) + body[title_end:]
    glyphs: dict[str, str] = {}
    for d in order:
        glyphs.update(d.glyphs)
    body = glyphs_html(glyphs) + body
    title = html.escape(context.get("title") or "gpudissect report")
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{title}</title>'
            f"<style>{CSS}</style></head>\n<body data-figures=\"{len(order)}\">\n{body}\n</body></html>\n")
