"""The report's figures, chosen from data: each probe declares the view its records take
(ProbeSpec::views, exported by the binary) or, when it declares none, the view follows from its
parameters (one numeric axis: a line; two: a heatmap; a family of parameterless probes: bars).
No probe is named here, so a new probe gets its figure without changes to this file."""
from __future__ import annotations

import dataclasses
import hashlib
import io
import itertools
import math
import multiprocessing
import numbers
import os
import re
from dataclasses import dataclass, field

import matplotlib

matplotlib.use("Agg")
# Labels come from run files (device names, params, metric names): `$...$` in one must stay text,
# not be parsed as mathtext, where a malformed one failed the whole report (issue 36 item 2).
matplotlib.rcParams["text.parse_math"] = False
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from .frames import BASE_COLUMNS, param_column, param_name  # noqa: E402
from .labels import is_rate, metric_label, param_label  # noqa: E402

KINDS = ("line", "heatmap", "matrix", "bars", "table")
MAX_FACETS = 6       # heatmaps per probe (one per combination of the other parameters)
# Lines per panel, each its own colour: tab20's ten dark shades, then the two lightest that stay
# distinct from them (the default cycle has ten colours, and the eleventh line repeated the first).
PALETTE = [plt.cm.tab20(i) for i in range(0, 20, 2)] + [plt.cm.tab20(i) for i in (1, 5)]
MAX_SERIES = len(PALETTE)
PANELS_PER_FIGURE = 6  # more panels go on to a next figure, so none is dropped
MAX_MARKED = 32        # points of a line drawn with a marker each; a longer line is drawn plain


@dataclass
class View:
    kind: str
    metric: str = ""
    x: str = ""
    y: str = ""
    series: str = ""
    log_x: bool | None = None       # None: decided from the data (a range over 64x is log)
    log_y: bool = False
    spans: dict = field(default_factory=dict)  # {"first": metric, "last": metric, "label": param}
    declared: bool = False

    def columns(self) -> "View":
        """The view with its axes named as frame columns: a param named like a frame column (n, seq,
        source) is `param.<name>` there, and the bare name plotted that column (the sample count)."""
        spans = {**self.spans, "label": param_column(self.spans["label"])} if self.spans.get("label") else self.spans
        return dataclasses.replace(self, x=param_column(self.x), y=param_column(self.y),
                                   series=param_column(self.series), spans=spans)

    @staticmethod
    def from_json(j: dict) -> "View":
        kind = j.get("kind", "table")
        if kind not in KINDS:
            raise ValueError(f"unknown view kind {kind!r} (one of {', '.join(KINDS)})")
        return View(kind=kind, metric=j.get("metric", ""), x=j.get("x", ""), y=j.get("y", ""),
                    series=j.get("series", ""), log_x=j.get("log_x"), log_y=bool(j.get("log_y", False)),
                    spans=j.get("spans") or {}, declared=True)


def plain_log_ticks(ax) -> None:
    """Log axes labelled 1000, 0.01: matplotlib's default labels are mathtext ("$10^{3}$"), which
    text.parse_math = False (above) prints as written."""
    for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
        if scale == "log":
            axis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
            axis.set_minor_formatter(matplotlib.ticker.NullFormatter())


@dataclass
class Figure:
    anchor: str   # the probe id whose report section it belongs to
    title: str
    kind: str
    draw: object  # callable(ax) -> None
    width: float = 6.4
    height: float = 3.6
    caption: str = ""
    # Small multiples: (panel title, callable(ax)) each; `draw` is unused when there are any.
    panels: list = field(default_factory=list)


def _is_number(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) and not math.isnan(v)


def param_columns(df: pd.DataFrame) -> list[str]:
    return [c for c in df.columns if c not in BASE_COLUMNS]


def varying(df: pd.DataFrame, cols: list[str]) -> list[str]:
    return [c for c in cols if df[c].dropna().astype(str).nunique() > 1]


def numeric_param(df: pd.DataFrame, col: str) -> bool:
    vals = df[col].dropna()
    return len(vals) > 0 and all(_is_number(v) for v in vals)


def family_of(probe_id: str) -> str:
    return probe_id.rsplit(".", 1)[0] if probe_id.count(".") >= 2 else probe_id


def infer_views(rows: pd.DataFrame, family_size: int) -> list[View]:
    """The view a probe's measured records suggest when it declares none."""
    measured = rows[~rows["derived"]]
    if measured.empty:
        return []
    cols = [c for c in param_columns(measured) if measured[c].notna().any()]
    vary = varying(measured, cols)
    numeric = [c for c in vary if numeric_param(measured, c)]
    if not vary:
        return [View("bars")] if family_size > 1 else []
    if len(numeric) >= 2:
        return [View("heatmap", x=numeric[0], y=numeric[1])]
    if len(numeric) == 1:
        return [View("line", x=numeric[0])]
    return [View("bars")]  # parameters that name things (an op, a level): a bar for each record


def _metric_of(view: View, rows: pd.DataFrame, declared_metrics: list[str]) -> str:
    if view.metric:
        return view.metric
    present = list(dict.fromkeys(rows["metric"]))
    for m in declared_metrics:
        if m in present:
            return m
    return present[0] if present else ""


def _unit(rows: pd.DataFrame, metric: str) -> str:
    u = rows.loc[rows["metric"] == metric, "unit"]
    return str(u.iloc[0]) if len(u) else ""


def _label(v) -> str:
    if _is_number(v) and float(v).is_integer():
        return str(int(v))
    return str(v)


def value_text(v: float) -> str:
    """A value printed on a figure: three significant digits, whole numbers from 1000 up (2137,
    not 2.14e+03, which a reader of a bar or a cell has to decode)."""
    return f"{v:.0f}" if abs(v) >= 1000 else f"{v:.3g}"


def _bytes_label(v: float) -> str:
    for unit, scale in (("G", 2**30), ("M", 2**20), ("K", 2**10)):
        if v >= scale:
            q = v / scale
            return f"{q:g}{unit}"
    return f"{v:g}"


def _series_key(frame: pd.DataFrame, cols: list[str]):
    return frame[cols].astype(str).agg(" ".join, axis=1) if cols else pd.Series([""] * len(frame), index=frame.index)


def _assignments(cols: list[str], values) -> str:
    """`name=value ...` for a legend or facet, params named as the run file names them."""
    return " ".join(f"{param_name(c)}={_label(v)}" for c, v in zip(cols, values))


def _panel_split(frame: pd.DataFrame, cols: list[str]) -> list[str]:
    """The series columns to split panels by, so that each holds at most MAX_SERIES lines: the
    choice giving the fewest panels, then the fewest that still need their lines cut into parts.
    Splitting by none (the lines cut in parts) is a choice too; by all, one line a panel."""
    series = frame[cols].drop_duplicates()  # one row a line: the choice is over lines, not points
    best = None
    for k in range(len(cols) + 1):
        for split in itertools.combinations(cols, k):
            lines = pd.DataFrame({"panel": _series_key(series, list(split)),
                                  "line": _series_key(series, [c for c in cols if c not in split])})
            per_panel = lines.groupby("panel", sort=False)["line"].nunique()
            parts = -(-per_panel // MAX_SERIES)
            cost = (int(parts.sum()), int((parts > 1).sum()), k)
            if best is None or cost < best[0]:
                best = (cost, list(split))
    return best[1]


def _chunks(keys: list, size: int) -> list[list]:
    """`keys` in consecutive parts of at most `size`, as even as can be."""
    n = -(-len(keys) // size)
    return [keys[i * len(keys) // n:(i + 1) * len(keys) // n] for i in range(n)]


def line_figures(pid: str, rows: pd.DataFrame, view: View, metric: str) -> list[Figure]:
    measured = rows[(~rows["derived"]) & (rows["metric"] == metric)]
    if measured.empty or view.x not in measured.columns or not numeric_param(measured, view.x):
        return []
    others = [c for c in varying(measured, param_columns(measured)) if c != view.x]
    series_cols = [view.series] if view.series and view.series in others else others
    keys = _series_key(measured, series_cols)
    xs = measured[view.x].astype(float)
    log_x = view.log_x if view.log_x is not None else (xs.min() > 0 and xs.max() / xs.min() > 64)
    unit = _unit(rows, metric)
    spans = _span_rows(rows, view, metric, series_cols)
    byte_axis = "byte" in view.x
    integer_x = bool((xs == xs.round()).all())
    all_keys = set(keys)
    from_zero = is_rate(unit) and not view.log_y
    band = _spread(measured, from_zero)
    # A single line is drawn with the probe's other metrics of its quantity and unit, one line each
    # (clusters coresident beside the occupancy API's answer and the GPC map's prediction).
    siblings = []
    if not series_cols:
        same = rows[(~rows["derived"]) & (rows["unit"] == unit) & (rows["metric"] != metric)]
        for m, srows in same.groupby("metric", sort=False):
            if m.split("/")[0] == metric.split("/")[0] and numeric_param(srows, view.x) and len(siblings) < MAX_SERIES - 1:
                siblings.append((m, srows))
    split = _panel_split(measured, series_cols)
    line_cols = [c for c in series_cols if c not in split]

    value_span = _value_span(measured, from_zero)

    def draw(ax, panel: pd.DataFrame):
        colors = {}
        for i, (key, grp) in enumerate(panel.groupby(keys[panel.index], sort=False)):
            grp = grp.sort_values(view.x)
            label = _assignments(line_cols, grp.iloc[0][line_cols]) or (_tail_words(metric) if siblings else metric)
            # A marker a point shows where a short sweep measured; a long one reads as its line.
            line, = ax.plot(grp[view.x].astype(float), grp["value"], marker="o" if len(grp) <= MAX_MARKED else "",
                            markersize=3, label=label, color=PALETTE[i])
            colors[key] = line.get_color()
            # The repeats' spread, where it is wide enough to see: in the figure (`band`) and in this
            # series (a series whose repeats agree draws no band: an invisible polygon of every point
            # twice was half of some figures' bytes).
            if band and _series_spread_shows(grp, band, value_span):
                ax.fill_between(grp[view.x].astype(float), grp[band[0]].astype(float), grp[band[1]].astype(float),
                                color=PALETTE[i], alpha=0.2, linewidth=0)
        for j, (m, srows) in enumerate(siblings, start=len(colors)):
            srows = srows.sort_values(view.x)
            ax.plot(srows[view.x].astype(float), srows["value"], marker="o" if len(srows) <= MAX_MARKED else "",
                    markersize=3, label=_tail_words(m), color=PALETTE[j])
        for s in spans:  # a band goes with its series' panel; one matching no series goes everywhere
            if s["key"] in colors or s["key"] not in all_keys:
                color = colors.get(s["key"], "0.3")
                ax.hlines(s["value"], s["first"], s["last"], colors=color, linewidth=5, alpha=0.35)
                ax.annotate(s["label"], ((s["first"] * s["last"]) ** 0.5 if log_x else (s["first"] + s["last"]) / 2,
                                         s["value"]), textcoords="offset points", xytext=(0, 5), ha="center",
                            fontsize=7, color=color)
        if log_x:
            ax.set_xscale("log", base=2)
        elif integer_x:  # stages, warps, SMs: a tick between two counts would read 1.5 stages
            ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        if view.log_y:
            ax.set_yscale("log")
        plain_log_ticks(ax)
        if byte_axis:
            ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: _bytes_label(v)))
        ax.set_xlabel(param_label(param_name(view.x)))
        ax.set_ylabel(metric_label(metric, unit))
        if from_zero:
            ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        if line_cols or siblings:
            place_legend(ax, len(colors) + len(siblings))

    # Small multiples: one panel per value of the split columns, lines beyond MAX_SERIES in parts.
    panels = []
    for _, grp in measured.groupby(_series_key(measured, split), sort=False):
        facet = _assignments(split, grp.iloc[0][split])
        parts = _chunks(list(dict.fromkeys(keys[grp.index])), MAX_SERIES)
        for j, part in enumerate(parts):
            name = ", ".join(t for t in (facet, f"part {j + 1} of {len(parts)}" if len(parts) > 1 else "") if t)
            panels.append((name, grp[keys[grp.index].isin(part)]))
    title = f"{pid}: {metric} over {param_name(view.x)}"
    caption = "; ".join(t for t in ("bands: levels the analysis detected" if spans else "",
                                    f"shaded: {band[2]} of the repeats" if band else "") if t)
    def space(frames) -> float:  # the most legend entries of a panel, as height below the axes
        lines = max(len(set(keys[f.index])) for f in frames) if line_cols else 0
        return legend_space(lines + len(siblings) if line_cols or siblings else 0)

    if len(panels) == 1:
        return [Figure(pid, title, "line", lambda ax: draw(ax, measured), height=3.6 + space([measured]), caption=caption)]
    groups = [panels[i:i + PANELS_PER_FIGURE] for i in range(0, len(panels), PANELS_PER_FIGURE)]
    return [Figure(pid, title + (f" ({g + 1} of {len(groups)})" if len(groups) > 1 else ""), "line", None,
                   width=4.4, height=3.2 + space([panel for _, panel in group]), caption=caption,
                   panels=[(name, lambda ax, panel=panel: draw(ax, panel)) for name, panel in group])
            for g, group in enumerate(groups)]


SPREAD_VISIBLE = 0.02  # a spread under this share of the y axis's span is not drawn: it would not show
LEGEND_INSIDE = 3      # a legend of more entries goes below its axes, where it covers no line
LEGEND_COLUMNS = 2
LEGEND_ROW_IN = 0.13   # inches a row of a legend below the axes takes


def legend_space(entries: int) -> float:
    """The height (inches) a panel grows by to hold its legend below the axes: none for a legend
    small enough to sit inside."""
    return 0.0 if entries <= LEGEND_INSIDE else 0.3 + LEGEND_ROW_IN * -(-entries // LEGEND_COLUMNS)


def place_legend(ax, entries: int) -> None:
    """A few entries inside, where matplotlib finds room; more below the axes, in columns, so that
    a dozen lines are not hidden under their own legend (issue 32: wgmma, async.tensor.load, attention)."""
    if entries <= LEGEND_INSIDE:
        ax.legend(fontsize=7)
    else:
        ax.legend(fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=LEGEND_COLUMNS, frameon=False)


def _value_span(rows: pd.DataFrame, from_zero: bool) -> float:
    """The span of a figure's values (from zero for a rate): what a spread is measured against."""
    values = rows["value"].astype(float)
    return float(values.max() - (min(0.0, values.min()) if from_zero else values.min()))


def _series_spread_shows(grp: pd.DataFrame, band: tuple[str, str, str], span: float) -> bool:
    """Whether one series' widest spread is over SPREAD_VISIBLE of the figure's span."""
    width = (grp[band[1]].astype(float) - grp[band[0]].astype(float)).max()
    return span > 0 and width > SPREAD_VISIBLE * span


def _spread(rows: pd.DataFrame, from_zero: bool) -> tuple[str, str, str] | None:
    """The columns bounding the repeats' spread, (low, high, what they are), when it shows: the
    quartiles where the run has them for every point, else min and max; None when the widest
    spread is under SPREAD_VISIBLE of the values' span (from zero for a rate)."""
    for lo, hi, what in (("q1", "q3", "quartiles"), ("min", "max", "min to max")):
        if lo in rows.columns and hi in rows.columns and rows[[lo, hi]].notna().all(axis=None):
            return (lo, hi, what) if _series_spread_shows(rows, (lo, hi, what), _value_span(rows, from_zero)) else None
    return None


def _tail_words(metric: str) -> str:
    """A metric's name after its quantity, in words: `clusters/occupancy_api` is "occupancy api"."""
    return metric.split("/", 1)[-1].replace("_", " ")


def _span_rows(rows: pd.DataFrame, view: View, metric: str, series_cols: list[str]) -> list[dict]:
    sp = view.spans
    if not sp or not sp.get("first") or not sp.get("last"):
        return []
    derived = rows[rows["derived"]]
    out = []
    for _, rec in derived.groupby("seq"):
        by = dict(zip(rec["metric"], rec["value"]))
        if sp["first"] not in by or sp["last"] not in by or metric not in by:
            continue
        first = rec.iloc[0]
        key = " ".join(str(first[c]) for c in series_cols) if series_cols else ""
        label = _label(first[sp["label"]]) if sp.get("label") in rec.columns else ""
        out.append({"first": by[sp["first"]], "last": by[sp["last"]], "value": by[metric], "key": key, "label": label})
    return out


def grid_figures(pid: str, rows: pd.DataFrame, view: View, metric: str) -> list[Figure]:
    measured = rows[(~rows["derived"]) & (rows["metric"] == metric)]
    if measured.empty or view.x not in measured.columns or view.y not in measured.columns:
        return []
    others = [c for c in varying(measured, param_columns(measured)) if c not in (view.x, view.y)]
    unit = _unit(rows, metric)
    figs = []
    facets = measured.groupby(_series_key(measured, others), sort=False)
    for i, (key, grp) in enumerate(facets):
        if i >= MAX_FACETS:  # said where the reader looks, not left out silently
            figs[-1].caption = (f"{facets.ngroups - MAX_FACETS} more combinations of "
                                f"{', '.join(map(param_name, others))} not drawn")
            break
        table = grp.pivot_table(index=view.y, columns=view.x, values="value", aggfunc="median")
        if view.kind == "matrix":
            order = list(dict.fromkeys(list(table.index) + list(table.columns)))
            table = table.reindex(index=order, columns=order)
        else:
            table = table.sort_index().sort_index(axis=1)
        facet = _assignments(others, grp.iloc[0][others])
        figs.append(_grid_figure(pid, metric, unit, view, table, facet))
    return figs


def _grid_figure(pid, metric, unit, view, table, facet) -> Figure:
    nx, ny = table.shape[1], table.shape[0]

    def draw(ax):
        im = ax.imshow(table.values.astype(float), aspect="auto", cmap="viridis", origin="lower")
        ax.set_xticks(range(nx), [_label(v) for v in table.columns], fontsize=7, rotation=90 if nx > 12 else 0)
        ax.set_yticks(range(ny), [_label(v) for v in table.index], fontsize=7)
        ax.set_xlabel(param_label(param_name(view.x)))
        ax.set_ylabel(param_label(param_name(view.y)))
        if nx * ny <= 400:
            vmax = float(pd.DataFrame(table).max().max())
            for yi in range(ny):
                for xi in range(nx):
                    v = table.values[yi, xi]
                    if pd.notna(v):
                        # Inside its cell, so no part of the layout: tight_layout need not measure it.
                        ax.text(xi, yi, value_text(v), ha="center", va="center", fontsize=6, in_layout=False,
                                color="black" if v > 0.6 * vmax else "white")
        ax.figure.colorbar(im, ax=ax, label=metric_label(metric, unit))

    title = f"{pid}: {metric} over {param_name(view.x)} x {param_name(view.y)}" + (f" ({facet})" if facet else "")
    side = max(3.6, min(9.0, 0.45 * max(nx, ny) + 2))
    return Figure(pid, title, view.kind, draw, width=side + 1.5, height=side)


def _bar_spread(grp: pd.DataFrame) -> tuple[float, float] | None:
    """The spread of a bar's repeats: its records' quartiles where the run has them, else their
    lowest min and highest max; None when neither is known."""
    for lo, hi in (("q1", "q3"), ("min", "max")):
        if lo in grp.columns and hi in grp.columns and grp[[lo, hi]].notna().all(axis=None):
            return float(grp[lo].min()), float(grp[hi].max())
    return None


def bars_figure(family: str, anchor: str, metric: str, unit: str, values: list[tuple]) -> Figure:
    """Horizontal bars of (label, value) or (label, value, (low, high) or None) each, the spread
    drawn as an error bar where it is wider than SPREAD_VISIBLE of the largest bar."""
    values = sorted(values, key=lambda kv: kv[1])
    top = max((abs(v[1]) for v in values), default=0.0)
    errs = [(i, v[1], v[2]) for i, v in enumerate(values)
            if len(v) > 2 and v[2] and v[2][1] - v[2][0] > SPREAD_VISIBLE * top]

    def draw(ax):
        labels = [v[0] for v in values]
        ax.barh(range(len(values)), [v[1] for v in values], color="#4c72b0")
        if errs:
            ax.errorbar([v for _, v, _ in errs], [i for i, _, _ in errs], fmt="none", ecolor="0.2", elinewidth=0.8,
                        capsize=2, xerr=[[max(0.0, v - lo) for _, v, (lo, _) in errs],
                                         [max(0.0, hi - v) for _, v, (_, hi) in errs]])
        ax.set_yticks(range(len(values)), labels, fontsize=7)
        ax.set_xlabel(metric_label(metric, unit))
        ax.grid(True, axis="x", alpha=0.3)
        for i, v in enumerate(values):
            ax.text(v[1], i, " " + value_text(v[1]), va="center", fontsize=6)

    return Figure(anchor, f"{family}.*: {metric}", "bars", draw, width=6.4, height=max(2.5, 0.17 * len(values) + 1),
                  caption="error bars: the spread of the repeats" if errs else "")


def record_bars_figure(pid: str, sel: pd.DataFrame, vary: list[str], metric: str, unit: str) -> Figure:
    """One bar per combination of the parameters that vary among a probe's records (the median of
    its repeats), labelled `name=value ...`."""
    keys = _series_key(sel, vary)
    values = [(_assignments(vary, grp.iloc[0][vary]), float(grp["value"].median()), _bar_spread(grp))
              for _, grp in sel.groupby(keys, sort=False)]
    fig = bars_figure(pid, pid, metric, unit, values)
    fig.title = f"{pid}: {metric} per {', '.join(map(param_name, vary))}"
    return fig


REST_LABEL = "rest: overlapped or other work"


def stacked_figure(pid: str, rows: pd.DataFrame, metrics: list[str]) -> Figure | None:
    """A bars view naming several metrics ("a,b,c"): one horizontal bar per record that carries
    them (its varying parameters label it), the metrics stacked in the order named. Shares in %
    that add up to less than 100 are completed by REST_LABEL; a negative part (removing a stage
    made the kernel slower) cannot be stacked, so it is left out and the caption names it."""
    sel = rows[rows["metric"].isin(metrics)]
    if sel.empty:
        return None
    vary = varying(sel, param_columns(sel))
    keys = _series_key(sel, vary) if vary else pd.Series(0, index=sel.index)
    bars: list[tuple[str, list[float]]] = []
    for _, grp in sel.groupby(keys, sort=False):
        by_metric = grp.groupby("metric")["value"].median()
        if not all(m in by_metric for m in metrics):
            continue
        bars.append((_assignments(vary, grp.iloc[0][vary]) if vary else pid, [float(by_metric[m]) for m in metrics]))
    if not bars:
        return None
    unit = _unit(rows, metrics[0])
    shares = unit == "%"
    left_out = [f"{label}: {m} {value_text(v)}" for label, parts in bars for m, v in zip(metrics, parts) if v < 0]
    names = [_tail_words(m).removesuffix(" pct") for m in metrics] + ([REST_LABEL] if shares else [])

    def draw(ax):
        for i, (label, parts) in enumerate(bars):
            at = 0.0
            stacked = [max(0.0, v) for v in parts]
            if shares:
                stacked.append(max(0.0, 100.0 - sum(stacked)))
            for j, v in enumerate(stacked):
                ax.barh(i, v, left=at, color=PALETTE[j] if j < len(metrics) else "0.85",
                        label=names[j] if i == 0 else None, edgecolor="white", linewidth=0.5)
                if v >= (8 if shares else 0.08 * max(sum(p) for _, p in bars)):
                    ax.text(at + v / 2, i, value_text(v), ha="center", va="center", fontsize=6)
                at += v
        ax.set_yticks(range(len(bars)), [b[0] for b in bars], fontsize=7)
        ax.set_xlabel("share of the kernel's time (%)" if shares else metric_label(metrics[0], unit))
        if shares:
            ax.set_xlim(0, 100)
        ax.grid(True, axis="x", alpha=0.3)
        ax.legend(fontsize=6, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=3, frameon=False)

    caption = "each part as the record states it; " + (f"the rest to 100 % is {REST_LABEL.split(': ')[1]}" if shares else "")
    if left_out:
        caption += "; not drawn, being negative: " + "; ".join(left_out)
    title = "the share of each part in the time" if shares else ", ".join(names)
    return Figure(pid, f"{pid}: {title}", "bars", draw, width=6.4,
                  height=max(2.5, 0.3 * len(bars) + 1.6), caption=caption)


def probe_frames(df: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Each probe's rows with only the columns it has a value in, in run order: one pass over the
    run (a run's frame has a column for every parameter of every probe, ninety in the suite, and
    dropping the empty ones probe by probe took a tenth of the page's build)."""
    present = df.notna().groupby(df["id"], sort=False).any()
    positions = df.groupby("id", sort=False).indices
    return {pid: df.iloc[positions[pid], np.flatnonzero(present.loc[pid].to_numpy())] for pid in present.index}


def plan_figures(df: pd.DataFrame, probes: dict | None = None) -> list[Figure]:
    """Every figure the records of a run call for, in run order. `probes` maps a probe id to what
    it declares ({"views": [...], "metrics": [{"name": ...}]}); a probe absent from it, or one
    declaring no views, gets the view its parameters suggest."""
    probes = probes or {}
    ok = df[df["status"] == "ok"]
    ids = list(dict.fromkeys(ok["id"]))
    families: dict[str, list[str]] = {}
    for pid in ids:
        families.setdefault(family_of(pid), []).append(pid)
    figs: list[Figure] = []
    bars: dict[tuple[str, str], list] = {}   # (family, metric) -> [(anchor, label, value, unit)]
    for pid, rows in probe_frames(ok).items():
        decl = probes.get(pid, {})
        declared_metrics = [m["name"] for m in decl.get("metrics", [])]
        views = [View.from_json(v) for v in decl.get("views", [])]
        if not views:
            views = infer_views(rows, len(families[family_of(pid)]))
        for view in (v.columns() for v in views):
            metric = _metric_of(view, rows, declared_metrics)
            if not metric:
                continue
            if view.kind == "line":
                figs += line_figures(pid, rows, view, metric)
            elif view.kind in ("heatmap", "matrix"):
                figs += grid_figures(pid, rows, view, metric)
            elif view.kind == "bars" and "," in metric:
                fig = stacked_figure(pid, rows, metric.split(","))
                if fig:
                    figs.append(fig)
            elif view.kind == "bars":
                sel = rows[(rows["metric"] == metric) & (~rows["derived"])]
                if sel.empty:  # a declared metric the analysis derives (a depth from latency x rate)
                    sel = rows[rows["metric"] == metric]
                vary = varying(sel, param_columns(sel))
                if vary:  # the probe's own records differ by their parameters: a bar each
                    figs.append(record_bars_figure(pid, sel, vary, metric, _unit(rows, metric)))
                elif len(sel):
                    key = (family_of(pid), metric)
                    bars.setdefault(key, []).append((pid, pid.rsplit(".", 1)[-1], float(sel["value"].median()),
                                                     _unit(rows, metric), _bar_spread(sel)))
    for (family, metric), items in bars.items():
        if len(items) < 2:
            continue
        fig = bars_figure(family, items[0][0], metric, items[0][3], [(label, v, sp) for _, label, v, _, sp in items])
        at = next((i for i, f in enumerate(figs) if ids.index(f.anchor) > ids.index(items[0][0])), len(figs))
        figs.insert(at, fig)
    return figs


def _matrix(v) -> bool:
    """A list of three or more rows of one length (three or more), all numbers."""
    return (isinstance(v, list) and len(v) >= 3 and all(isinstance(r, list) and len(r) == len(v[0]) >= 3 for r in v)
            and all(_is_number(x) for r in v for x in r))


def _group_order(n: int, context: dict) -> tuple[list[int], list[int]] | None:
    """The order that puts n SMs (or lines) by the partition group a record assigned them: from an
    SM's group (sm_group), a line's home group (line_home_group), or the groups' SM lists
    (groups_sm_ids); with the group of each, so that the boundaries can be drawn."""
    for key in ("sm_group", "line_home_group"):
        g = context.get(key)
        if isinstance(g, list) and len(g) == n and all(_is_number(x) for x in g):
            return sorted(range(n), key=lambda i: g[i]), [g[i] for i in sorted(range(n), key=lambda i: g[i])]
    groups = context.get("groups_sm_ids")
    if isinstance(groups, list) and sum(len(x) for x in groups if isinstance(x, list)) == n:
        order = [sm for grp in groups for sm in grp]
        if sorted(order) == list(range(n)):
            return order, [gi for gi, grp in enumerate(groups) for _ in grp]
    return None


def _sm_order(n: int, context: dict):
    if isinstance(context.get("sm_group"), list):
        return _group_order(n, {"sm_group": context["sm_group"]})
    return _group_order(n, {"groups_sm_ids": context.get("groups_sm_ids")})


def _matrix_figure(pid: str, key: str, values: list, context: dict) -> Figure:
    """A matrix of a record's extra as a heatmap: rows and columns named by the record's classes,
    or SMs and sampled lines, each ordered by the partition group the record found."""
    table = np.array(values, dtype=float)
    ny, nx = table.shape
    classes = context.get("classes") if isinstance(context.get("classes"), list) else []
    sms = context.get("_sms")
    axes = []
    for n, lines_ok in ((ny, False), (nx, True)):
        if len(classes) == n:
            axes.append(("", [str(c) for c in classes], None))
        elif n == sms and not (lines_ok and nx != ny):
            order = _sm_order(n, context)
            axes.append(("SM (ordered by partition group)" if order else "SM", None, order))
        else:
            order = _group_order(n, {"line_home_group": context.get("line_home_group")})
            axes.append(("sampled line (ordered by home partition)" if order else "column", None, order))
    (ylabel, yticks, yorder), (xlabel, xticks, xorder) = axes
    if yorder:
        table = table[yorder[0], :]
    if xorder:
        table = table[:, xorder[0]]
    words = key[:-len("_cycles")] if key.endswith("_cycles") else key
    if "_" not in words:  # `matrix`, `backpressure`: the probe's subject names it
        words = f"{pid.split('.')[1] if pid.count('.') else pid} {words}"
    label = param_label(words) + (" (cycles)" if key.endswith("_cycles") else "")

    def draw(ax):
        # Uninterpolated: the SVG holds the matrix's own pixels (132 x 128, a few kB), not a resampling.
        im = ax.imshow(table, aspect="auto", cmap="viridis", origin="upper", interpolation="none")
        if xticks:
            ax.set_xticks(range(nx), xticks, fontsize=7, rotation=45, ha="right")
        if yticks:
            ax.set_yticks(range(ny), yticks, fontsize=7)
        if nx * ny <= 400:
            vmax = float(np.nanmax(table))
            for yi in range(ny):
                for xi in range(nx):
                    ax.text(xi, yi, value_text(table[yi, xi]), ha="center", va="center", fontsize=6, in_layout=False,
                            color="black" if table[yi, xi] > 0.6 * vmax else "white")
        # The partition map: a line where the group changes along an axis.
        for order, line in ((yorder, ax.axhline), (xorder, ax.axvline)):
            if order:
                for i in range(1, len(order[1])):
                    if order[1][i] != order[1][i - 1]:
                        line(i - 0.5, color="white", linewidth=1.2)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.figure.colorbar(im, ax=ax, label=label)

    side = 5.0 if nx * ny <= 400 else 5.5
    caption = str(context.get(f"{key}_meaning") or "")
    if yorder or xorder:
        caption = "; ".join(t for t in (caption, "white lines: the partition groups' boundaries") if t)
    return Figure(pid, f"{pid}: {key}", "matrix", draw, width=side + 1.5, height=side, caption=caption)


# What a record's time series are, by the block of its extra holding them (NVML's sampler, the
# in-kernel clock read by a resident warp), and their columns by the key (`t_mhz_w`: time, MHz, W).
_SERIES_SOURCE = {"power": "NVML", "sampled_clock": "in-kernel clock"}
_COLUMN_UNIT = {"mhz": "clock (MHz)", "w": "power (W)", "c": "temperature (C)"}
MAX_SERIES_POINTS = 100  # a time series drawn with at most this many points: its every k-th sample


def _series_panel(rec: dict):
    extra = rec.get("extra") or {}
    lines = []
    for block, d in extra.items():
        if not isinstance(d, dict):
            continue
        for key, rows in d.items():
            cols = key.split("_")[1:]
            if not key.startswith("t_") or not isinstance(rows, list) or len(rows) < 3 or "mhz" not in cols:
                continue
            rows = [r for r in rows if isinstance(r, list) and len(r) == len(cols) + 1 and all(_is_number(x) for x in r)]
            step = max(1, -(-len(rows) // MAX_SERIES_POINTS))
            rows = rows[::step]
            j = cols.index("mhz") + 1
            lines.append((_SERIES_SOURCE.get(block, block.replace("_", " ")), [r[0] for r in rows], [r[j] for r in rows]))
    window = ((extra.get("power") or {}).get("load_window_s") if isinstance(extra.get("power"), dict) else None)

    def draw(ax):
        for i, (label, ts, vs) in enumerate(lines):
            ax.plot(ts, vs, label=label, color=PALETTE[i], linewidth=1)
        if isinstance(window, list) and len(window) == 2 and all(_is_number(x) for x in window):
            ax.axvspan(window[0], window[1], color="0.85", zorder=0, label="load running")
        ax.set_xlabel("time (s)")
        ax.set_ylabel(_COLUMN_UNIT["mhz"])
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=6, loc="lower left")

    return lines, draw


def extra_figures(records: list[dict]) -> list[Figure]:
    """Figures of what records hold beside their metrics (extra), found by its shape, not by the
    probe: a matrix (rows of numbers: the co-issue matrix, SM-to-L2 latencies, SM distances) as a
    heatmap, its SMs and lines ordered by the partition group the record found, with the boundaries
    drawn (the partition map); clock samples over time (`t_mhz...`: NVML's and the in-kernel clock)
    as lines, a panel a record."""
    figs: list[Figure] = []
    by_probe: dict[str, list[dict]] = {}
    for rec in records:
        if rec.get("status") == "ok" and isinstance(rec.get("extra"), dict):
            by_probe.setdefault(rec.get("id", ""), []).append(rec)
    for pid, recs in by_probe.items():
        context: dict = {}
        for rec in recs:
            for k, v in rec["extra"].items():
                context.setdefault(k, v)
        sms = context.get("sm_ids")
        context["_sms"] = len(sms) if isinstance(sms, list) else None
        drawn = set()
        for rec in recs:
            for key, v in rec["extra"].items():
                if _matrix(v) and key not in drawn:  # a matrix two records carry (measured, derived) once
                    drawn.add(key)
                    figs.append(_matrix_figure(pid, key, v, context))
        panels = []
        for rec in recs:
            lines, draw = _series_panel(rec)
            if lines:
                params = rec.get("params") or {}
                panels.append((" ".join(f"{k}={_label(v)}" for k, v in params.items()), draw))
        if panels:
            figs.append(Figure(pid, f"{pid}: clock over time", "line", None, width=4.4, height=3.0, panels=panels,
                               caption=f"the load runs in the grey window; at most {MAX_SERIES_POINTS} samples a line"))
    return figs


_SVG_HEADER = re.compile(r"^.*?(?=<svg)", re.S)
# What compact_svg rewrites. Glyph definitions: text drawn as paths defines each character once
# per figure as `<path id="DejaVuSans-14" d=... transform="scale(0.015625)"/>` (the id is the font
# and glyph, the same in every figure), then places it with a <use> per character.
_GLYPH_DEF = re.compile(r'<path id="(?P<id>[^"]+-[0-9a-f]+)"(?: d="(?P<d>[^"]*)")?(?P<rest>[^>]*)/>')  # a space has no d
_MARKER_USE = re.compile(r'<use href="#(?P<id>[^"]+)"(?P<at>[^>]*?) style="(?P<style>[^"]*)"/>')
_DEF_STYLE = re.compile(r'(<path id="(?P<id>[^"]+)"[^>]*?)(?: style="(?P<style>[^"]*)")?/>')
_GLYPH_USE = re.compile(r'<use xlink:href="#(?P<id>[^"]+-[0-9a-f]+)"(?: transform="translate\((?P<x>[-\d.e]+) 0\)")?/>')
_COMMENT_OR_NUMBER = re.compile(r"<!--.*?-->|data:[^\"]*|(-?\d+\.\d{3,})", re.S)
_PATH_DATA = re.compile(r' d="([^"]*)"')
_ID = re.compile(r' id="([^"]*)"')
_TEXT_RUN = re.compile(r'<g transform="([^"]*)">((?:<use href="#g[^"]*"(?: x="[^"]*")?/>)+)</g>')
_G_TAG = re.compile(r"<g>|<g\s[^>]*>|</g>")


def glyph_id(full: str) -> str:
    """A glyph's short id: `g` + the glyph number for the default font (DejaVuSans-14 is g14), the
    full name after `g` for any other, so that no two fonts' glyphs share one."""
    font, _, code = full.rpartition("-")
    return f"g{code}" if font == "DejaVuSans" else f"g{full}"


def _round(m: re.Match) -> str:
    if m.group(1) is None:  # a comment (the text a group draws) or a data: URI stays as it is
        return m.group(0)
    v = float(m.group(1))
    # Two decimals of a point (1/7200 inch) for coordinates, three significant digits for scales.
    out = f"{v:.2f}" if abs(v) >= 1 else f"{v:.3g}"
    out = out.rstrip("0").rstrip(".") if "." in out and "e" not in out else out
    return "0" if out in ("-0", "") else out


def _path_data(m: re.Match) -> str:
    """A path's data with one decimal of a point (1/720 inch, a tenth of a screen pixel): lines and
    bands of long sweeps are most of a suite page's bytes."""
    d = re.sub(r"-?\d+\.\d\d+", lambda n: _one_decimal(float(n.group(0))), m.group(1))
    d = re.sub(r"\s*([MLQCZzHVA])\s*", r"\1", d)
    return ' d="' + re.sub(r"\s+", " ", d).strip() + '"'


def _one_decimal(v: float) -> str:
    out = f"{v:.1f}".rstrip("0").rstrip(".")
    return "0" if out in ("-0", "") else out


def _unwrap_bare_groups(svg: str) -> str:
    """`<g>` elements without attributes are dropped, their content kept."""
    out, stack, pos = [], [], 0
    for m in _G_TAG.finditer(svg):
        out.append(svg[pos:m.start()])
        pos = m.end()
        tag = m.group(0)
        if tag == "</g>":
            if stack.pop():
                out.append(tag)
        else:
            stack.append(tag != "<g>")
            if tag != "<g>":
                out.append(tag)
    out.append(svg[pos:])
    return "".join(out)


def _style(text: str) -> dict[str, str]:
    return dict(p.split(":", 1) for p in (t.strip() for t in text.split(";")) if ":" in p)


def _hoist_use_styles(svg: str) -> str:
    """A marker or tick is a <path> defined once and a <use> a point, each <use> repeating the
    same style: where all the uses of one definition carry the same style, it moves onto the
    definition (whose own properties win over inherited ones, so the drawing is the same)."""
    styles: dict[str, set] = {}
    for m in _MARKER_USE.finditer(svg):
        styles.setdefault(m.group("id"), set()).add(m.group("style"))
    plain = {i: next(iter(s)) for i, s in styles.items() if len(s) == 1 and len(re.findall(f'href="#{re.escape(i)}"', svg)) ==
             sum(1 for _ in re.finditer(f'<use href="#{re.escape(i)}"[^>]*? style="', svg))}
    if not plain:
        return svg

    def define(m: re.Match) -> str:
        if m.group("id") not in plain:
            return m.group(0)
        merged = {**_style(plain[m.group("id")]), **_style(m.group("style") or "")}
        return m.group(1) + ' style="' + "; ".join(f"{k}: {v.strip()}" for k, v in merged.items()) + '"/>'

    svg = _DEF_STYLE.sub(define, svg)
    return _MARKER_USE.sub(lambda m: m.group(0) if m.group("id") not in plain
                           else f'<use href="#{m.group("id")}"{m.group("at")}/>', svg)


def compact_svg(svg: str) -> tuple[str, dict[str, str]]:
    """matplotlib's SVG with the same drawing in fewer bytes, and its glyphs apart: returns (svg
    without glyph definitions, {glyph id: <path> definition}). Path data keeps one decimal of a
    point, other coordinates two; ids nothing refers to, attribute-less groups and the whitespace between tags go; each
    character's <use> carries its offset as `x`. The comments naming each text stay."""
    glyphs: dict[str, str] = {}

    def take(m: re.Match) -> str:
        gid = glyph_id(m.group("id"))
        d = f' d="{m.group("d")}"' if m.group("d") is not None else ""
        glyphs.setdefault(gid, f'<path id="{gid}"{d}{m.group("rest")}/>')
        return ""

    svg = _GLYPH_DEF.sub(take, svg)
    svg = _GLYPH_USE.sub(lambda m: f'<use href="#{glyph_id(m.group("id"))}"'
                                   + (f' x="{m.group("x")}"' if m.group("x") else "") + "/>", svg)
    svg = re.sub(r">\s+<", "><", svg).replace(" xlink:href=", " href=")  # SVG 2, as every browser reads it
    svg = _hoist_use_styles(svg)
    svg = re.sub(r"<defs></defs>", "", svg)
    referenced = set(re.findall(r'#([^"\s)]+)', svg))
    svg = _ID.sub(lambda m: m.group(0) if m.group(1) in referenced else "", svg)
    svg = _unwrap_bare_groups(svg)
    svg = _COMMENT_OR_NUMBER.sub(_round, svg)
    svg = _PATH_DATA.sub(_path_data, svg)
    glyphs = {k: _PATH_DATA.sub(_path_data, _COMMENT_OR_NUMBER.sub(_round, v)) for k, v in glyphs.items()}

    def share(m: re.Match) -> str:
        """A text's characters, defined once by what they spell (tick labels, legends and axis
        names repeat across panels and figures), placed with one <use>."""
        # Offsets in font units (1/100 of the size, a scale() away): a whole unit is within 0.05 pt.
        run = re.sub(r' x="(-?[\d.]+)"', lambda x: f' x="{round(float(x.group(1)))}"', m.group(2))
        tid = "t" + hashlib.sha1(run.encode()).hexdigest()[:10]
        glyphs.setdefault(tid, f'<g id="{tid}">{run}</g>')
        return f'<use href="#{tid}" transform="{m.group(1)}"/>'

    return _TEXT_RUN.sub(share, svg), glyphs


def with_glyphs(svg: str, glyphs: dict[str, str]) -> str:
    """The SVG with its glyph definitions in a <defs> of its own: one that stands alone."""
    if not glyphs:
        return svg
    at = svg.index(">", svg.index("<svg")) + 1
    return svg[:at] + "<defs>" + "".join(glyphs.values()) + "</defs>" + svg[at:]


def draw_figure(fig: Figure):
    """The figure drawn on a new matplotlib figure (the caller closes it): one axes, or a grid of
    panels of fig.width x fig.height each, sharing the y axis so that panels compare at a glance."""
    panels = fig.panels or [("", fig.draw)]
    ncols = 2 if len(panels) in (2, 4) else min(len(panels), 3)
    nrows = -(-len(panels) // ncols)
    f, axes = plt.subplots(nrows, ncols, figsize=(fig.width * ncols, fig.height * nrows + (0.4 if fig.panels else 0)),
                           sharey=bool(fig.panels), squeeze=False)
    try:
        for ax, (name, draw) in zip(axes.flat, panels):
            draw(ax)
            ax.set_title(name, fontsize=8)
        for ax in axes.flat[len(panels):]:
            ax.remove()
        title = fig.title.replace(": ", "\n", 1)  # the probe id, then what is drawn
        if fig.panels:
            f.suptitle(title, fontsize=9)
        else:
            axes[0][0].set_title(title, fontsize=9)
        f.tight_layout()
        # tight_layout leaves a placeholder layout engine behind, and savefig draws a figure that has
        # one twice (a dry run first, for a layout already done): none, and it is drawn once.
        f.set_layout_engine(None)
    except BaseException:
        plt.close(f)
        raise
    return f


def render_svg(fig: Figure, salt: str) -> str:
    """The figure as an inline <svg> element: text drawn as paths (no fonts needed to view it),
    ids salted so several figures in one page do not share them."""
    return with_glyphs(*render_svg_parts(fig, salt))


def render_svg_parts(fig: Figure, salt: str) -> tuple[str, dict[str, str]]:
    """render_svg's SVG without its glyph definitions, and those: a page holding many figures
    defines each glyph once (html.build_html)."""
    return compact_svg(_SVG_HEADER.sub("", _raw_svg(fig, salt), count=1))


def _jobs(jobs: int | None) -> int:
    """The processes to draw with: `jobs`, else GPUDISSECT_JOBS, else one a core."""
    if jobs is not None:
        return jobs
    given = os.environ.get("GPUDISSECT_JOBS") or str(len(os.sched_getaffinity(0)))
    if not given.isdigit() or int(given) < 1:
        raise ValueError(f"GPUDISSECT_JOBS must be a whole number of processes, 1 or more, not {given!r}")
    return int(given)


def render_all(figs: list[Figure], jobs: int | None = None) -> list[tuple[str, dict[str, str]]]:
    """render_svg_parts of each figure (salted by its place in the list), drawn by `jobs` processes
    (default: one a core, GPUDISSECT_JOBS to choose; 1 draws here)."""
    return [(d.svg, d.glyphs) for d in draw_all(None, {}, figs, jobs=jobs)[0]]


@dataclass
class Drawn:
    """A figure drawn: what the page says of it, and render_svg_parts' SVG and glyphs."""
    anchor: str
    title: str
    kind: str
    caption: str
    svg: str
    glyphs: dict


def _drawn(fig: Figure, salt: str) -> Drawn:
    svg, glyphs = render_svg_parts(fig, salt)
    return Drawn(fig.anchor, fig.title, fig.kind, fig.caption, svg, glyphs)


def draw_all(df: pd.DataFrame | None, probes: dict, figs: list[Figure], meanwhile=None,
             jobs: int | None = None, records: list[dict] | None = None) -> tuple[list[Drawn], list[Drawn], object]:
    """`figs` drawn, and the figures plan_figures(df, probes) calls for, planned and drawn, in
    plan_figures' order; with what `meanwhile()` returned, called here while they are drawn (the
    page's Markdown is laid out then). The work goes to `jobs` processes (default: one a core,
    GPUDISSECT_JOBS to choose; 1 draws here), a probe family or a figure each (with a family, the
    figures of what its `records`, the run file's, hold beside their metrics: extra_figures): planning a family's
    figures needs only its own records, and matplotlib draws on one core, so a page of a hundred
    figures spends most of its time in this. Workers are forked, so the records and the figures'
    drawing functions (closures over frames) need no pickling."""
    jobs = _jobs(jobs)
    tasks: list[tuple[str, object]] = [("figure", f) for f in figs]
    ids: list[str] = []
    if df is not None:
        ok = df[df["status"] == "ok"]
        ids = list(dict.fromkeys(ok["id"]))
        by_family: dict[str, list[dict]] = {}
        for rec in records or []:
            by_family.setdefault(family_of(rec.get("id", "")), []).append(rec)
        for family, frame in ok.groupby(ok["id"].map(family_of), sort=False):
            tasks.append(("family", (frame, probes, by_family.get(family, []))))
    jobs = min(jobs, len(tasks) // 4)  # a few figures are not worth a process
    if jobs < 2 or "fork" not in multiprocessing.get_all_start_methods():
        done = meanwhile() if meanwhile else None
        results = [_run_task(tasks, i) for i in range(len(tasks))]
    else:
        # The largest families first, so that no process is left drawing one alone at the end.
        cost = [len(arg[0]) if kind == "family" else 1 for kind, arg in tasks]
        order = sorted(range(len(tasks)), key=lambda i: -cost[i])
        global _PENDING
        _PENDING = tasks
        try:
            with multiprocessing.get_context("fork").Pool(jobs) as pool:
                pending = pool.map_async(_run_pending, order, chunksize=1)
                done = meanwhile() if meanwhile else None
                by_task = dict(zip(order, pending.get()))
        finally:
            _PENDING = []
        results = [by_task[i] for i in range(len(tasks))]
    given = [d for r in results[:len(figs)] for d in r]
    planned = [d for r in results[len(figs):] for d in r]
    # plan_figures' order: by the probe each belongs to, in run order (a family's order within).
    rank = {pid: i for i, pid in enumerate(ids)}
    planned.sort(key=lambda d: rank.get(d.anchor, len(rank)))
    return given, planned, done


_PENDING: list = []


def _run_task(tasks: list, i: int) -> list[Drawn]:
    kind, arg = tasks[i]
    if kind == "figure":
        return [_drawn(arg, f"gd{i + 1}")]
    frame, probes, records = arg
    figs = plan_figures(frame, probes) + extra_figures(records)
    return [_drawn(f, f"gd{i + 1}-{j + 1}") for j, f in enumerate(figs)]


def _run_pending(i: int) -> list[Drawn]:
    return _run_task(_PENDING, i)


def _raw_svg(fig: Figure, salt: str) -> str:
    with matplotlib.rc_context({"svg.hashsalt": salt, "svg.fonttype": "path", "font.size": 8}):
        f = draw_figure(fig)
        try:
            buf = io.StringIO()
            # No metadata block: it carries a date (the page would differ run to run) and RDF namespaces.
            f.savefig(buf, format="svg", metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
        finally:
            plt.close(f)
    return buf.getvalue()
