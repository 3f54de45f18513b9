"""The figures follow from the data and the probes' declared views, never from probe names."""
import pandas as pd

from conftest import RUN
from gpudissect import load_run
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
