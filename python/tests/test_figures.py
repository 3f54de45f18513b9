"""The figures follow from the data and the probes' declared views, never from probe names."""
import json

import matplotlib
import pandas as pd
import pytest

from conftest import RUN
from gpudissect import figures, load_run
from gpudissect.figures import View, infer_views, plan_figures, render_svg


def kinds(figs):
    return {(f.anchor, f.kind) for f in figs}


def test_committed_run_gets_a_figure_per_family_without_declarations():
    figs = plan_figures(load_run(RUN))
    got = kinds(figs)
    assert ("compute.peak.fp32", "heatmap") in got        # two numeric axes
    assert ("memory.latency.chase", "line") in got        # one numeric axis
    assert ("memory.bandwidth.dram", "line") in got
    assert any(k == "bars" and a.startswith("latency.alu.") for a, k in got)  # a family of parameterless probes


def test_declared_views_win_and_draw_spans():
    probes = {"memory.latency.chase": {"views": [{"kind": "line", "x": "bytes", "metric": "latency/cycles",
                                                   "series": "variant", "log_x": True,
                                                   "spans": {"first": "level/first_bytes", "last": "level/last_bytes",
                                                             "label": "level"}}]}}
    figs = [f for f in plan_figures(load_run(RUN), probes) if f.anchor == "memory.latency.chase"]
    assert len(figs) == 1 and figs[0].caption  # the detected levels are drawn
    svg = render_svg(figs[0], "t")
    assert svg.startswith("<svg") and "<text" not in svg  # text is drawn as paths: no font needed


def test_table_view_means_no_figure():
    probes = {"compute.peak.fp32": {"views": [{"kind": "table"}]}}
    assert not [f for f in plan_figures(load_run(RUN), probes) if f.anchor == "compute.peak.fp32"]


def synthetic(params: list[dict], metric="m/x"):
    rows = []
    for i, p in enumerate(params):
        rows.append({"seq": i, "id": "new.probe.x", "derived": False, "status": "ok", "metric": metric,
                     "unit": "u", "value": float(i), **p})
    return pd.DataFrame(rows)


def test_a_new_probe_gets_its_view_from_its_parameters():
    line = synthetic([{"size": n} for n in (1, 2, 4, 8)])
    assert [v.kind for v in infer_views(line, 1)] == ["line"]
    grid = synthetic([{"a": a, "b": b} for a in (1, 2) for b in (1, 2, 3)])
    assert [(v.kind, v.x, v.y) for v in infer_views(grid, 1)] == [("heatmap", "a", "b")]
    matrix = {"new.probe.x": {"views": [{"kind": "matrix", "x": "a", "y": "b"}]}}
    figs = plan_figures(grid.assign(derived=False), matrix)
    assert [f.kind for f in figs] == ["matrix"]
    assert infer_views(synthetic([{}]), 1) == []


def test_unknown_view_kind_is_an_error():
    import pytest
    with pytest.raises(ValueError, match="unknown view kind"):
        View.from_json({"kind": "pie"})


def test_a_dollar_in_a_label_is_text_not_mathtext():
    """A device name or param with `$...$` failed the whole HTML report in matplotlib's mathtext
    parser (issue 36 item 2)."""
    import io

    from gpudissect import figures

    fig, ax = figures.plt.subplots()
    ax.set_title(r"GPU $\frac{$ broken")
    ax.plot([1, 2], [1, 2], label="$")
    ax.legend()
    fig.savefig(io.BytesIO(), format="png")
    figures.plt.close(fig)


# A run whose params are named like frame columns (n, seq, source, gpu): frames.py keeps them as
# `param.<name>`, and the figures must plot those, never the column of the same name (issue 32).
SAMPLES = 5  # every metric's `n`: what the wgmma latency figure drew on its x axis


def clash_run(tmp_path, records):
    """`records`: (id, params, value) triples, written as a run file and read back as load_run does."""
    doc = {"schema_version": 1, "run_id": "r", "device": {"name": "GPU"}, "records": [
        {"id": pid, "category": pid.split(".")[0], "status": "ok", "params": params,
         "metrics": [{"name": "m/cycles", "unit": "cycles", "median": value, "min": value, "max": value, "n": SAMPLES}]}
        for pid, params, value in records]}
    path = tmp_path / "clash.json"
    path.write_text(json.dumps(doc))
    return load_run(path)


def rendered(fig, monkeypatch):
    """The matplotlib figure render_svg drew for `fig` (kept open for inspection)."""
    from gpudissect import figures
    kept = []
    monkeypatch.setattr(figures.plt, "close", kept.append)
    render_svg(fig, "t")
    return kept[0]


def plot_lines(mpl_fig):
    """The data lines of every panel (the spans' bands are collections, not lines)."""
    return [ln for ax in mpl_fig.axes for ln in ax.get_lines()]


CLASH_VIEWS = {
    "clash.line.lat": {"views": [{"kind": "line", "x": "n", "metric": "m/cycles"}]},
    "clash.line.seq": {"views": [{"kind": "line", "x": "seq", "series": "source"}]},
    "clash.grid.heat": {"views": [{"kind": "heatmap", "x": "seq", "y": "n"}]},
    "clash.grid.peer": {"views": [{"kind": "matrix", "x": "source", "y": "gpu"}]},
    "clash.grid.table": {"views": [{"kind": "table"}]},
}


def clash_records():
    recs = [("clash.line.lat", {"n": n, "op": "f16"}, 10.0 + n) for n in (8, 16, 32, 64, 128)]
    recs += [("clash.line.seq", {"seq": s, "source": src}, float(s)) for s in (512, 1024, 2048) for src in ("dram", "l2")]
    recs += [("clash.grid.heat", {"seq": s, "n": n}, float(s + n)) for s in (1, 2, 3) for n in (64, 128)]
    recs += [("clash.grid.peer", {"gpu": a, "source": b}, float(a * 3 + b)) for a in range(3) for b in range(3)]
    recs += [("clash.grid.table", {"seq": s}, 1.0) for s in (1, 2)]
    recs += [("clash.bars.a", {"n": 1}, 4.0), ("clash.bars.b", {"n": 1}, 6.0)]
    recs += [("clash.inferred.x", {"seq": s}, float(s)) for s in (7, 9, 11)]  # no declaration: inferred
    return recs


def test_figures_plot_the_param_not_the_frame_column_of_the_same_name(tmp_path, monkeypatch):
    figs = {f.anchor: f for f in plan_figures(clash_run(tmp_path, clash_records()), CLASH_VIEWS)}
    assert set(figs) == {"clash.line.lat", "clash.line.seq", "clash.grid.heat", "clash.grid.peer",
                         "clash.bars.a", "clash.inferred.x"}, "a table view draws no figure"
    xs = lambda anchor: sorted(x for ln in plot_lines(rendered(figs[anchor], monkeypatch)) for x in ln.get_xdata())
    assert xs("clash.line.lat") == [8, 16, 32, 64, 128], "the params, not the sample count"
    assert xs("clash.line.seq") == [512, 512, 1024, 1024, 2048, 2048], "the params, not record indices"
    assert xs("clash.inferred.x") == [7, 9, 11]
    heat = rendered(figs["clash.grid.heat"], monkeypatch).axes[0]
    assert [t.get_text() for t in heat.get_xticklabels()] == ["1", "2", "3"]
    assert [t.get_text() for t in heat.get_yticklabels()] == ["64", "128"]
    peer = rendered(figs["clash.grid.peer"], monkeypatch).axes[0]
    assert [t.get_text() for t in peer.get_xticklabels()] == ["0", "1", "2"], "not the device name"
    assert [t.get_text() for t in peer.get_yticklabels()] == ["0", "1", "2"]
    bars = rendered(figs["clash.bars.a"], monkeypatch).axes[0]
    assert sorted(p.get_width() for p in bars.patches) == [4.0, 6.0]


def drawn_text(fig, mpl_fig) -> list[str]:
    """Every string a reader sees on a figure: title, caption, panel titles, axis and tick labels, legends."""
    out = [fig.title, fig.caption] + [t.get_text() for t in mpl_fig.texts]
    for ax in mpl_fig.axes:
        out += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
        out += [t.get_text() for t in ax.get_xticklabels() + ax.get_yticklabels() + ax.texts]
        if ax.get_legend():
            out += [t.get_text() for t in ax.get_legend().get_texts()]
    return out


def test_the_param_prefix_is_never_shown(tmp_path, monkeypatch):
    """`param.` is the frame's name for a clashing param, not the run file's: titles, axis labels,
    legends and facets say `seq`, `source`."""
    df = clash_run(tmp_path, clash_records() + [  # a heatmap faceted by a clashing param
        ("clash.grid.facet", {"a": a, "b": b, "source": src}, 1.0) for a in (1, 2) for b in (1, 2) for src in ("x", "y")])
    figs = plan_figures(df, CLASH_VIEWS)
    seen = [s for f in figs for s in drawn_text(f, rendered(f, monkeypatch))]
    assert "seq" in " ".join(seen) and "source=dram" in " ".join(seen) and "source=x" in " ".join(seen)
    assert not [s for s in seen if "param." in s], [s for s in seen if "param." in s]


def many_series_run(tmp_path, ops=13, operands=("ss", "rs")):
    """Like tensor.wgmma.latency: 13 ops x 2 operand sources over n, each point its own value."""
    recs = [("many.series.lat", {"op": f"op{i:02d}", "operands": src, "n": n}, 0.0)
            for i in range(ops) for src in operands for n in (8, 64, 256)]
    return clash_run(tmp_path, [(pid, p, float(k)) for k, (pid, p, _) in enumerate(recs)]), len(recs)


def many_series_figures(tmp_path, monkeypatch):
    df, points = many_series_run(tmp_path)
    figs = plan_figures(df, {"many.series.lat": {"views": [{"kind": "line", "x": "n"}]}})
    return [rendered(f, monkeypatch) for f in figs], points


def test_no_series_is_dropped_from_a_line_figure(tmp_path, monkeypatch):
    """More series than one panel holds are split into panels, not cut at the twelfth."""
    drawn, points = many_series_figures(tmp_path, monkeypatch)
    values = sorted(v for m in drawn for ln in plot_lines(m) for v in ln.get_ydata())
    assert values == list(range(points)), "every point of all 26 series is drawn"
    # Every line is named in its panel's legend.
    labels = [t.get_text() for m in drawn for ax in m.axes if ax.get_legend() for t in ax.get_legend().get_texts()]
    assert len(labels) == 26


def test_no_colour_repeats_within_a_panel(tmp_path, monkeypatch):
    drawn, _ = many_series_figures(tmp_path, monkeypatch)
    for m in drawn:
        for ax in m.axes:
            colors = [matplotlib.colors.to_hex(ln.get_color()) for ln in ax.get_lines()]
            assert len(colors) == len(set(colors)), f"a colour repeats in {ax.get_title()!r}: {colors}"


def test_heatmaps_left_out_are_named_in_the_caption(tmp_path):
    df = clash_run(tmp_path, [("many.grid.x", {"a": a, "b": b, "source": src}, 1.0)
                              for a in (1, 2) for b in (1, 2) for src in range(8)])
    figs = plan_figures(df, {"many.grid.x": {"views": [{"kind": "heatmap", "x": "a", "y": "b"}]}})
    assert len(figs) == figures.MAX_FACETS
    assert figs[-1].caption == "2 more combinations of source not drawn", figs[-1].caption


SUITE = RUN.parent / "nvidia-h200-2026-12-04c-suite.json.gz"
# Families of the committed suite run with more than one measured point that get no figure, and
# why (issue 32): attention.breakdown declares a table; sass.patch's four probes each measure a
# quantity of its own, so no one axis holds them. The list may shrink, never grow.
FAMILIES_WITHOUT_FIGURE = {"attention.breakdown", "sass.patch"}


def test_every_family_of_the_suite_with_points_has_a_figure():
    """Counted against what the probes declare (`gpudissect list -v --json`), as the report draws."""
    import os
    import subprocess

    import pytest
    from conftest import BINARY
    if not BINARY or not os.path.exists(BINARY):
        pytest.skip("needs GPUDISSECT_BINARY for the probes' declared views")
    listed = json.loads(subprocess.run([BINARY, "list", "-v", "--json"], capture_output=True, text=True,
                                       check=True).stdout)
    probes = {p["id"]: p for p in listed["probes"]}
    df = load_run(SUITE)
    drawn = {figures.family_of(f.anchor) for f in plan_figures(df, probes)}
    measured = df[(df["status"] == "ok") & (~df["derived"])]
    points = measured.groupby(measured["id"].map(figures.family_of))["seq"].nunique()
    missing = sorted(f for f, n in points.items() if n > 1 and f not in drawn)
    print(f"{len(missing)} of {int((points > 1).sum())} families with more than one point have no figure:", missing)
    assert set(missing) <= FAMILIES_WITHOUT_FIGURE, sorted(set(missing) - FAMILIES_WITHOUT_FIGURE)


def test_a_probe_whose_parameters_name_things_gets_a_bar_per_record():
    """async.cost.sync-like: records that differ by an op (not a number) are bars, one per op."""
    rows = []
    for seq, (op, v) in enumerate((("bar.sync", 20.0), ("fence", 31.0), ("mbarrier", 12.0))):
        rows.append({"id": "x.cost.sync", "seq": seq, "status": "ok", "derived": False, "metric": "latency/cycles",
                     "unit": "cycles", "value": v, "op": op})
    df = pd.DataFrame(rows)
    figs = plan_figures(df)
    assert [(f.anchor, f.kind) for f in figs] == [("x.cost.sync", "bars")]
    svg = render_svg(figs[0], "t")
    for label in ("op=bar.sync", "op=fence", "op=mbarrier"):
        assert label in svg, label


def test_a_malformed_jobs_setting_is_a_clear_error(monkeypatch):
    from gpudissect.figures import render_all
    for bad in ("abc", "0", "-2", "1.5"):
        monkeypatch.setenv("GPUDISSECT_JOBS", bad)
        with pytest.raises(ValueError, match="GPUDISSECT_JOBS must be a whole number"):
            render_all([])


def test_a_figure_is_drawn_once(tmp_path, monkeypatch):
    """tight_layout leaves a placeholder layout engine, and savefig drew a figure that has one twice
    (a dry run, then the SVG): a third of the suite page's build time (issue 32)."""
    from matplotlib.figure import Figure as MplFigure
    draws = []
    real = MplFigure.draw
    monkeypatch.setattr(MplFigure, "draw", lambda self, renderer: (draws.append(1), real(self, renderer))[1])
    figs = plan_figures(clash_run(tmp_path, clash_records()), CLASH_VIEWS)
    for f in figs:
        render_svg(f, "t")
    assert len(draws) == len(figs), f"{len(draws)} draws for {len(figs)} figures"


def test_figures_planned_and_drawn_by_family_in_workers_match_plan_figures(tmp_path):
    """draw_all plans each probe family's figures in a worker while the caller lays out the Markdown
    (issue 32, build time): the same figures, in plan_figures' order, with the caller's result."""
    from gpudissect.figures import draw_all
    # Ten families: enough for two processes (a process is worth four of them).
    df = clash_run(tmp_path, clash_records() + [(f"other.f{i}.p", {"size": s}, float(s)) for i in range(6)
                                                for s in (1, 2, 4)])
    want = [(f.anchor, f.title, f.kind, f.caption) for f in plan_figures(df, CLASH_VIEWS)]
    for jobs in (1, 2):
        given, planned, meanwhile = draw_all(df, CLASH_VIEWS, [], meanwhile=lambda: "laid out", jobs=jobs)
        assert [(d.anchor, d.title, d.kind, d.caption) for d in planned] == want, jobs
        assert meanwhile == "laid out" and given == []
        assert all(d.svg.startswith("<svg") for d in planned)


def test_values_on_bars_and_cells_read_without_exponents(monkeypatch):
    """A round trip of 2137 cycles was printed 2.14e+03 on its bar (issue 32's SM ping-pong)."""
    from gpudissect.figures import value_text
    assert [value_text(v) for v in (2137.4, 1000.0, 999.4, 21.37, 0.01234)] == ["2137", "1000", "999", "21.4", "0.0123"]
    rows = [{"id": "x.pingpong", "seq": i, "status": "ok", "derived": False, "metric": "roundtrip/cycles",
             "unit": "cycles", "value": v, "medium": m} for i, (m, v) in enumerate((("global", 2137.0), ("dsmem", 1120.0)))]
    fig, = plan_figures(pd.DataFrame(rows))
    kept = []
    monkeypatch.setattr(figures.plt, "close", kept.append)
    render_svg(fig, "t")
    texts = [t.get_text().strip() for t in kept[0].axes[0].texts]
    assert sorted(texts) == ["1120", "2137"], texts


def test_a_bars_view_naming_several_metrics_stacks_them_with_the_rest_to_100():
    """attention.breakdown's stage shares (issue 32): a bar per shape, the shares stacked in the
    order the view names them, the rest to 100 % drawn grey, a negative share left out and named."""
    rows = []
    shares = {"simple": {"a_pct": 40.0, "b_pct": 30.0, "c_pct": 5.0}, "fa3": {"a_pct": 30.0, "b_pct": -4.0, "c_pct": 20.0}}
    for seq, (schedule, parts) in enumerate(shares.items()):
        for name, v in parts.items():
            rows.append({"id": "x.breakdown", "seq": seq, "status": "ok", "derived": True, "metric": "share/" + name,
                         "unit": "%", "value": v, "schedule": schedule})
    rows.append({"id": "x.breakdown", "seq": 9, "status": "ok", "derived": False, "metric": "time/us", "unit": "us",
                 "value": 7.0, "schedule": "simple"})
    probes = {"x.breakdown": {"views": [{"kind": "bars", "metric": "share/a_pct,share/b_pct,share/c_pct"}]}}
    fig, = plan_figures(pd.DataFrame(rows), probes)
    assert fig.kind == "bars"
    assert "schedule=fa3: share/b_pct -4" in fig.caption, fig.caption
    kept = []
    import gpudissect.figures as figures_module
    real_close = figures_module.plt.close
    figures_module.plt.close = kept.append
    try:
        render_svg(fig, "t")
    finally:
        figures_module.plt.close = real_close
    bars = sorted((round(p.get_y() + p.get_height() / 2), round(p.get_x(), 3), round(p.get_width(), 3))
                  for p in kept[0].axes[0].patches)
    assert bars == [(0, 0.0, 40.0), (0, 40.0, 30.0), (0, 70.0, 5.0), (0, 75.0, 25.0),
                    (1, 0.0, 30.0), (1, 30.0, 0.0), (1, 30.0, 20.0), (1, 50.0, 50.0)], bars
    real_close(kept[0])


def test_a_legend_of_many_lines_sits_below_its_axes_and_a_short_one_inside():
    """issue 32: the legends of wgmma, async.tensor.load and attention covered their lines."""
    from gpudissect.figures import draw_figure
    for series, below in ((6, True), (2, False)):
        rows = [{"id": "x.sweep", "seq": i, "status": "ok", "derived": False, "metric": "m/x", "unit": "u",
                 "value": float(size * (s + 1)), "size": size, "op": f"op{s}"}
                for i, (s, size) in enumerate((s, size) for s in range(series) for size in (1, 2, 4, 8))]
        fig, = plan_figures(pd.DataFrame(rows))
        f = draw_figure(fig)
        try:
            f.canvas.draw()
            ax = f.axes[0]
            legend, frame = ax.get_legend().get_window_extent(), ax.get_window_extent()
            assert (legend.y1 <= frame.y0) == below, (series, legend, frame)
            assert legend.y0 >= 0, "the figure grew to hold it"
        finally:
            matplotlib.pyplot.close(f)


def test_an_axis_of_counts_has_whole_ticks():
    """async.tensor.load over 1, 2 and 4 pipeline stages was ticked 1.0, 1.5, 2.0, ... (issue 32)."""
    from gpudissect.figures import draw_figure
    rows = [{"id": "x.stages", "seq": i, "status": "ok", "derived": False, "metric": "m/x", "unit": "u",
             "value": float(v), "stages": s} for i, (s, v) in enumerate(((1, 3.0), (2, 4.0), (4, 4.5)))]
    fig, = plan_figures(pd.DataFrame(rows))
    f = draw_figure(fig)
    try:
        ticks = [t for t in f.axes[0].get_xticks() if 1 <= t <= 4]
        assert ticks and all(float(t).is_integer() for t in ticks), ticks
    finally:
        matplotlib.pyplot.close(f)


def test_path_data_keeps_one_decimal_of_a_point():
    svg, _ = figures.compact_svg('<svg><path d="M 61.684 -98.5349 L 69.97 -98.54 L 1.25 0.04"/></svg>')
    assert 'd="M61.7 -98.5L70 -98.5L1.2 0"' in svg or 'd="M61.7 -98.5L70 -98.5L1.3 0"' in svg, svg


def test_a_series_whose_repeats_agree_draws_no_band():
    band = ("q1", "q3", "quartiles")
    tight = pd.DataFrame({"value": [100.0, 101.0], "q1": [99.9, 100.9], "q3": [100.1, 101.1]})
    wide = pd.DataFrame({"value": [100.0, 300.0], "q1": [90.0, 280.0], "q3": [110.0, 320.0]})
    span = figures._value_span(pd.concat([tight, wide]), from_zero=False)  # 200
    assert not figures._series_spread_shows(tight, band, span)  # 0.2 of 200: under 2 %
    assert figures._series_spread_shows(wide, band, span)
