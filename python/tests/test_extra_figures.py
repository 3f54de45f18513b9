"""Figures of what records hold beside their metrics (issue 32's named figures): matrices as
heatmaps ordered by the partition groups, clock samples over time; and the repeats' spread."""
import json

import matplotlib
import numpy as np

from conftest import ROOT  # noqa: F401  (puts python/ on sys.path)
from gpudissect import figures, load_run
from gpudissect.figures import extra_figures, plan_figures, render_svg


def drawn(fig, monkeypatch):
    kept = []
    monkeypatch.setattr(figures.plt, "close", kept.append)
    render_svg(fig, "t")
    return kept[0]


def record(pid, extra, params=None):
    return {"id": pid, "status": "ok", "params": params or {}, "extra": extra, "metrics": []}


def test_a_matrix_with_classes_is_a_heatmap_named_by_them(monkeypatch):
    m = [[1.0, 1.5, 2.0], [1.5, 0.6, 1.3], [2.0, 1.3, 1.0]]
    rec = record("pipes.coissue.matrix", {"classes": ["INT", "FP32", "SFU"], "matrix": m,
                                          "matrix_meaning": "row i, column j: co-issue"})
    figs = extra_figures([rec, {**rec, "derived": True}])  # measured and derived carry it: drawn once
    assert [(f.anchor, f.kind, f.caption) for f in figs] == [("pipes.coissue.matrix", "matrix", "row i, column j: co-issue")]
    ax = drawn(figs[0], monkeypatch).axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["INT", "FP32", "SFU"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["INT", "FP32", "SFU"]
    assert np.array_equal(np.asarray(ax.get_images()[0].get_array()), np.array(m))


def test_an_sm_by_line_matrix_is_ordered_by_partition_with_the_boundaries_drawn(monkeypatch):
    lat = [[10.0 * sm + line for line in range(5)] for sm in range(4)]
    rec = record("memory.latency.l2_partition", {"sm_ids": [0, 1, 2, 3], "sm_group": [1, 0, 1, 0],
                                                 "line_home_group": [1, 0, 0, 1, 0], "latency_first_cycles": lat})
    fig, = extra_figures([rec])
    ax = drawn(fig, monkeypatch).axes[0]
    got = np.asarray(ax.get_images()[0].get_array())
    want = np.array(lat)[[1, 3, 0, 2], :][:, [1, 2, 4, 0, 3]]  # SMs of group 0 first, lines of home 0 first
    assert np.array_equal(got, want)
    assert ax.get_ylabel() == "SM (ordered by partition group)"
    assert ax.get_xlabel() == "sampled line (ordered by home partition)"
    assert len(ax.get_lines()) == 2, "one boundary line across, one down: the partition map"
    assert ax.figure.axes[1].get_ylabel() == "latency first (cycles)"


def test_the_clock_over_time_draws_nvml_beside_the_in_kernel_clock(monkeypatch):
    ts = [0.1 * i for i in range(30)]
    rec = record("power.clock_response", {"power": {"t_mhz_w": [[t, 1980.0 - 400 * (0.5 < t < 2), 300.0] for t in ts],
                                                    "load_window_s": [0.5, 2.0]},
                                          "sampled_clock": {"t_mhz": [[t, 1975.0 - 390 * (0.5 < t < 2)] for t in ts]}},
                 {"load": "bf16_gemm"})
    fig, = extra_figures([rec, record("power.clock_response", {"power": {}}, {"load": "idle"})])
    assert fig.title == "power.clock_response: clock over time" and len(fig.panels) == 1
    ax = drawn(fig, monkeypatch).axes[0]
    assert [ln.get_label() for ln in ax.get_lines()] == ["NVML", "in-kernel clock"]
    assert ax.get_xlabel() == "time (s)" and ax.get_ylabel() == "clock (MHz)"
    assert ax.get_title() == "load=bf16_gemm"


def sweep(tmp_path, unit, spread):
    doc = {"schema_version": 1, "run_id": "r", "device": {"name": "GPU"}, "records": [
        {"id": "x.bw.sweep", "category": "x", "status": "ok", "params": {"stages": s},
         "metrics": [{"name": "bandwidth/tbps", "unit": unit, "median": 3.0 + s, "min": 2.0, "max": 9.0,
                      "q1": 3.0 + s - spread, "q3": 3.0 + s + spread, "n": 9}]} for s in (1, 2, 4, 8)]}
    path = tmp_path / "run.json"
    path.write_text(json.dumps(doc))
    return plan_figures(load_run(path))


def test_a_visible_spread_is_shaded_and_rates_start_at_zero(tmp_path, monkeypatch):
    fig, = sweep(tmp_path, "TB/s", 0.5)
    assert "shaded: quartiles of the repeats" in fig.caption
    ax = drawn(fig, monkeypatch).axes[0]
    bands = [c for c in ax.collections if isinstance(c, matplotlib.collections.PolyCollection)]
    assert len(bands) == 1
    assert ax.get_ylim()[0] == 0, "a bandwidth is drawn from zero"
    fig, = sweep(tmp_path, "TB/s", 0.01)  # a spread too narrow to see is not drawn
    assert "shaded" not in fig.caption
    ax = drawn(fig, monkeypatch).axes[0]
    assert not [c for c in ax.collections if isinstance(c, matplotlib.collections.PolyCollection)]


def test_bars_carry_error_bars_where_the_repeats_spread(monkeypatch):
    import pandas as pd
    rows = [{"id": "x.cost.sync", "seq": i, "status": "ok", "derived": False, "metric": "latency/cycles", "unit": "cycles",
             "value": v, "min": v - w, "max": v + w, "op": op}
            for i, (op, v, w) in enumerate((("bar.sync", 20.0, 5.0), ("fence", 31.0, 0.01), ("mbarrier", 12.0, 3.0)))]
    fig, = plan_figures(pd.DataFrame(rows))
    assert fig.caption == "error bars: the spread of the repeats"
    ax = drawn(fig, monkeypatch).axes[0]
    caps = [c for c in ax.collections if isinstance(c, matplotlib.collections.LineCollection)]
    assert len(caps) == 1 and len(caps[0].get_segments()) == 2, "two bars spread visibly, the fence's does not"


def test_the_page_places_a_records_figures_under_its_probe(tmp_path):
    from gpudissect.html import build_html
    m = [[1.0, 2.0, 3.0], [2.0, 1.0, 2.0], [3.0, 2.0, 1.0]]
    recs = [{"id": "pipes.coissue.matrix", "category": "pipes", "status": "ok", "params": {},
             "extra": {"classes": ["A", "B", "C"], "matrix": m},
             "metrics": [{"name": "coissue/A+B", "unit": "ratio", "median": 2.0, "min": 2.0, "max": 2.0, "n": 1}]}]
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"schema_version": 1, "run_id": "r", "device": {"name": "GPU"}, "records": recs}))
    page = build_html(load_run(path), {"markdown": "# r\n\n## pipes\n\n### pipes.coissue.matrix\n\nt\n"}, recs)
    at = page.index('id="pipes.coissue.matrix"')
    assert page.index('data-kind="matrix" data-probe="pipes.coissue.matrix"') > at


def test_a_single_line_is_drawn_beside_the_probes_metrics_of_its_unit(tmp_path, monkeypatch):
    """Cluster occupancy: the clusters that ran at once beside the occupancy API's answer and the
    GPC map's prediction, one figure; a metric in another unit stays out."""
    metrics = lambda c: [{"name": n, "unit": u, "median": v, "min": v, "max": v, "n": 1} for n, u, v in
                         (("clusters/coresident", "clusters", 132.0 / c), ("clusters/occupancy_api", "clusters", 130.0 / c),
                          ("clusters/predicted_from_gpc_map", "clusters", 132.0 / c), ("sms/idle", "SMs", float(c)))]
    doc = {"schema_version": 1, "run_id": "r", "device": {"name": "GPU"}, "records": [
        {"id": "topology.cluster.occupancy", "category": "topology", "status": "ok", "params": {"cluster_size": c},
         "metrics": metrics(c)} for c in (1, 2, 4, 8, 16)]}
    path = tmp_path / "run.json"
    path.write_text(json.dumps(doc))
    fig, = plan_figures(load_run(path))
    ax = drawn(fig, monkeypatch).axes[0]
    assert [ln.get_label() for ln in ax.get_lines()] == ["coresident", "occupancy api", "predicted from gpc map"]
    assert ax.get_legend() is not None
