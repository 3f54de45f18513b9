"""Axis labels in words with units, as a paper prints them, never metric or param ids (issue 32)."""
import json

from conftest import ROOT  # noqa: F401  (puts python/ on sys.path)
from gpudissect import load_run
from gpudissect.figures import plan_figures, render_svg
from gpudissect.labels import metric_label, param_label, unit_label


def run(tmp_path, pid, metric, unit, params_list, views=None):
    doc = {"schema_version": 1, "run_id": "r", "device": {"name": "GPU"}, "records": [
        {"id": pid, "category": pid.split(".")[0], "status": "ok", "params": p,
         "metrics": [{"name": metric, "unit": unit, "median": float(i + 1), "min": float(i + 1), "max": float(i + 1), "n": 3}]}
        for i, p in enumerate(params_list)]}
    path = tmp_path / "run.json"
    path.write_text(json.dumps(doc))
    return plan_figures(load_run(path), {pid: {"views": views or []}})


def drawn_axes(fig, monkeypatch):
    from gpudissect import figures
    kept = []
    monkeypatch.setattr(figures.plt, "close", kept.append)
    render_svg(fig, "t")
    return kept[0].axes


def test_a_line_figure_names_its_axes_in_words(tmp_path, monkeypatch):
    figs = run(tmp_path, "x.lat.sweep", "latency/cycles", "cycles", [{"warps_per_sm": w} for w in (1, 2, 4, 8)])
    ax = drawn_axes(figs[0], monkeypatch)[0]
    assert ax.get_xlabel() == "warps per SM"
    assert ax.get_ylabel() == "latency (cycles)"


def test_a_heatmap_names_both_axes_and_its_colour_bar(tmp_path, monkeypatch):
    figs = run(tmp_path, "x.bw.grid", "bandwidth/tbps", "TB/s",
               [{"stages": s, "ctas_per_sm": c} for s in (1, 2) for c in (1, 2, 4)],
               [{"kind": "heatmap", "x": "stages", "y": "ctas_per_sm"}])
    axes = drawn_axes(figs[0], monkeypatch)
    assert (axes[0].get_xlabel(), axes[0].get_ylabel()) == ("pipeline stages", "CTAs per SM")
    assert axes[1].get_ylabel() == "bandwidth (TB/s)", "the colour bar"


def test_bars_use_one_spelling_of_tflops(tmp_path, monkeypatch):
    figs = run(tmp_path, "x.rate.ops", "throughput/tflops", "TFLOP/s", [{"op": o} for o in ("f16", "bf16", "tf32")])
    ax = drawn_axes(figs[0], monkeypatch)[0]
    assert ax.get_xlabel() == "throughput (TFLOPS)"


def test_metric_labels():
    assert metric_label("atomic/latency_cycles", "cycles") == "atomic latency (cycles)"
    assert metric_label("bandwidth/delivered_tbps", "TB/s") == "delivered bandwidth (TB/s)"
    assert metric_label("atomic/gops", "Gop/s") == "atomic rate (Gop/s)"
    assert metric_label("throughput/percent_of_peak", "%") == "throughput (% of peak)"
    assert metric_label("efficiency/tflops_per_w", "TFLOP/s/W") == "efficiency (TFLOPS/W)"
    assert metric_label("clusters/coresident", "clusters") == "coresident clusters"
    assert unit_label("TFLOP/s") == "TFLOPS" and unit_label("TFLOPS") == "TFLOPS"
    assert param_label("blocks_per_sm") == "blocks per SM" and param_label("some_cta_knob") == "some CTA knob"


def test_the_page_spells_tflops_one_way():
    """The binary's Markdown writes both TFLOP/s and TFLOPS; the page shows TFLOPS (code stays as written)."""
    from gpudissect.html import markdown_to_html
    html = markdown_to_html("| rate [TFLOP/s] | efficiency |\n|---|---|\n| 5 TFLOP/s | 3 TFLOP/s/W |\n\n`TFLOP/s`\n")
    assert "TFLOP/s<" not in html.replace("<code>TFLOP/s</code>", "") and "TFLOP/s " not in html
    assert "[TFLOPS]" in html and "5 TFLOPS" in html and "3 TFLOPS/W" in html and "<code>TFLOP/s</code>" in html
