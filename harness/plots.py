"""The figures' shared style (matplotlib, PNG and PDF): one look (:data:`STYLE`), one colour and
marker per method (:func:`method_style`), one human name per dataset (:func:`display_name`), one
way to save (:func:`save_figure`); curves with mean and a band of +- one standard deviation over
seeds, labelled axes, legend; the caption goes to a Markdown file beside them."""

from __future__ import annotations

import zlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from .io import atomic_path, save_text  # noqa: E402

#: The look every figure shares (set once here, where every figure script gets its helpers).
STYLE = {
    "figure.dpi": 150,
    "savefig.dpi": 150,
    "font.size": 8,
    "axes.titlesize": 9,
    "axes.labelsize": 8,
    "legend.fontsize": 7,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "legend.framealpha": 0.8,
}
plt.rcParams.update(STYLE)

_PALETTE = (
    [plt.get_cmap("tab10")(i) for i in range(10)]
    + [plt.get_cmap("Dark2")(i) for i in range(8)]
    + [plt.get_cmap("tab20")(i) for i in range(1, 20, 2)]  # tab10's lighter shades
)
_MARKERS = "osD^v<>pPX*hH8d"
# One colour and marker per method in every figure (each its own, variants included, since a
# figure may show only variants of one method); names not listed get a fixed slot from a checksum.
_STYLE_ORDER = [
    "OASIS",
    "SDCA",
    "LEGO",
    "OAHU",
    "ITML",
    "LMNN",
    "RCA",
    "Eucl",
    "OPML",
    "RDML",
    "COMET",
    "SparseCOMET",
    "ITML-online",
    "OASIS-authors-C",
    "OASIS-sym",
    "OASIS-psd-1000",
    "OASIS-psd-end",
    "Dissim-OASIS",
    "SDCA-random",
    "OAHU-init",
    "OAHU-combined",
    "SVM-relative",
    "SVM-relative-RBF",
    "Binary",
    "TFIDF",
]


from tripletbench.datasets.names import DISPLAY_NAMES, display_name  # noqa: E402,F401


class TickLabelsOverlap(ValueError):
    """Tick labels of a figure overlap and no thinning, rotation or smaller font separates them."""


def _drawn_tick_labels(axis, renderer) -> list:
    """(label text, window box) of ``axis``'s major tick labels that are drawn (non-empty, inside
    the view), in axis order."""
    lo, hi = sorted(axis.get_view_interval())
    tol = (hi - lo) * 1e-9
    out = []
    for loc, label in zip(axis.get_majorticklocs(), axis.get_majorticklabels()):
        if label.get_visible() and label.get_text() and lo - tol <= loc <= hi + tol:
            out.append((label, label.get_window_extent(renderer)))
    return out


def tick_label_overlaps(fig, pad: float = 1.0) -> list[tuple]:
    """Every pair of neighbouring tick labels of ``fig`` whose boxes, rendered at the figure's
    size and dpi, come closer than ``pad`` pixels: ``(axes, "x" | "y", text, text)``."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    out = []
    for ax in fig.axes:
        for name in "xy":
            drawn = _drawn_tick_labels(getattr(ax, f"{name}axis"), renderer)
            key = (lambda lb: lb[1].x0) if name == "x" else (lambda lb: lb[1].y0)
            drawn.sort(key=key)
            for (ta, a), (tb, b) in zip(drawn, drawn[1:]):
                if a.padded(pad / 2).overlaps(b.padded(pad / 2)):
                    out.append((ax, name, ta.get_text(), tb.get_text()))
    return out


def _separate(ax, name: str, attempt: int) -> None:
    """One step that spreads ``ax``'s ``name`` tick labels: fewer ticks where the locator chooses
    them (log: one per decade, then every other decade; linear: half as many), else (labels
    placed by the figure, e.g. categories) rotated, then a smaller font."""
    from matplotlib.ticker import FixedLocator, LogLocator, MaxNLocator

    axis = getattr(ax, f"{name}axis")
    locator = axis.get_major_locator()
    if not isinstance(locator, FixedLocator):
        if axis.get_scale() == "log":
            axis.set_major_locator(LogLocator(base=10, subs=(1.0,), numticks=6 - attempt))
        else:
            n = len(axis.get_majorticklocs())
            axis.set_major_locator(MaxNLocator(nbins=max(2, n // 2)))
        return
    labels = axis.get_majorticklabels()
    if attempt == 0 and name == "x":  # upright: a box as wide as the font is high
        for label in labels:
            label.set_rotation(90)
            label.set_horizontalalignment("center")
    else:
        for label in labels:
            label.set_fontsize(max(5.0, label.get_fontsize() - 1))


def separate_tick_labels(fig, tries: int = 4) -> None:
    """Make ``fig``'s tick labels not overlap (:func:`tick_label_overlaps`, at the size the
    figure is saved), each crowded axis spread by :func:`_separate`; raise
    :class:`TickLabelsOverlap` naming the labels when ``tries`` steps do not separate them."""
    for attempt in range(tries):
        crowded = {(ax, name) for ax, name, *_ in tick_label_overlaps(fig)}
        if not crowded:
            return
        for ax, name in crowded:
            _separate(ax, name, attempt)
    left = tick_label_overlaps(fig)
    if left:
        ax, name, a, b = left[0]
        raise TickLabelsOverlap(
            f"tick labels {a!r} and {b!r} of the {name} axis of {ax.get_title()!r} overlap "
            f"({len(left)} pair(s)): give the axis fewer or shorter labels"
        )


def save_figure(fig, *paths) -> None:
    """Write ``fig`` to every path (format from the extension; PNG at :data:`STYLE`'s dpi)
    atomically and close it: the one way every figure of the project is saved. Tick labels
    that would overlap are spread first (:func:`separate_tick_labels`), so no saved figure
    has overlapping tick labels (:class:`TickLabelsOverlap` otherwise)."""
    separate_tick_labels(fig)
    for path in paths:
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format=str(path).rsplit(".", 1)[1], bbox_inches="tight")
    plt.close(fig)


def legend_outside(ax, where: str = "right", **kwargs) -> None:
    """``ax``'s legend outside its axes, so that it covers no curve or band: at its right
    (``where="right"``) or below the figure's axes in one row (``"below"``: one legend for all
    panels, from ``ax``'s handles)."""
    options = {"fontsize": 7, "frameon": False, **kwargs}
    if where == "right":
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, **options)
        return
    handles, labels = ax.get_legend_handles_labels()
    ax.figure.legend(
        handles,
        labels,
        loc="upper center",
        bbox_to_anchor=(0.5, 0.0),
        ncol=min(len(labels), 7),
        **options,
    )


def _log_tick(v: float, _pos=None) -> str:
    """A log axis's tick label: the number, in thousands from 1,000 on (2000 -> "2k"), in
    millions from 1,000,000 on ("1M")."""
    if abs(v) >= 1_000_000:
        return f"{v / 1_000_000:g}M"
    return f"{v / 1000:g}k" if abs(v) >= 1000 else f"{v:g}"


def log_axes(ax, which: str = "xy") -> None:
    """Put ``ax``'s ``which`` axes ("x", "y" or "xy") on a log scale with readable ticks: labels
    at 1, 2 and 5 times each power of ten as plain numbers, from 1,000 on in thousands ("1k",
    "200k": neighbouring labels such as 1000 and 2000 ran into each other), a range shorter
    than a decade still labelled, unlabelled minor ticks between them."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    for name in which:
        getattr(ax, f"set_{name}scale")("log")
        axis = getattr(ax, f"{name}axis")
        axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        axis.set_major_formatter(FuncFormatter(_log_tick))
        axis.set_minor_locator(LogLocator(base=10, subs="auto"))
        axis.set_minor_formatter(NullFormatter())


def robust_limits(values, quantile: float = 0.005, margin: float = 0.25):
    """Axis limits (lo, hi) of ``values`` (1-D float) that a few outlying points cannot squash:
    the ``quantile`` and 1 - ``quantile`` quantiles widened by ``margin`` of their range on each
    side, shrunk to the data (plus 3% of that range) where no value reaches them. Returns
    ((lo, hi), (n,) bool mask of the values outside the limits)."""
    v = np.asarray(values, dtype=float)
    lo_q, hi_q = np.quantile(v, [quantile, 1.0 - quantile])
    span = hi_q - lo_q if hi_q > lo_q else max(abs(hi_q), 1.0)
    lo = max(lo_q - margin * span, v.min() - 0.03 * span)
    hi = min(hi_q + margin * span, v.max() + 0.03 * span)
    return (lo, hi), (v < lo) | (v > hi)


def method_style(name: str) -> dict:
    """Matplotlib keyword arguments (``color``, ``marker``) of method ``name``: the same in every
    figure, and different for every listed method and variant."""
    slot = _STYLE_ORDER.index(name) if name in _STYLE_ORDER else zlib.crc32(name.encode())
    color = _FIXED_COLORS.get(name, _PALETTE[slot % len(_PALETTE)])
    return {"color": color, "marker": _MARKERS[slot % len(_MARKERS)]}


_FIXED_COLORS = {"COMET": "black"}
"""Colours set by hand where the palette's slot came too close to a method shown beside it
(COMET's Dark2 teal beside LEGO's green: CIEDE2000 distance 14.7; tests/test_figure_ticks.py
holds the papers' methods at 15 or more)."""


def clipped_band(mean, spread, limits=(None, None)):
    """(low, high) = mean -/+ spread clipped to the metric's range ``limits`` (a rate or a
    precision lies in [0, 1], a loss or a time is >= 0): a band never claims impossible values."""
    import numpy as np

    lo, hi = limits
    low, high = np.asarray(mean - spread, float), np.asarray(mean + spread, float)
    return np.clip(low, lo, hi), np.clip(high, lo, hi)


def curves(
    rows: pd.DataFrame,
    metric: str,
    ylabel: str,
    title: str,
    out_png,
    out_pdf,
    out_md,
    caption: str,
    logx: bool = True,
    logy: bool = False,
    references: dict | None = None,
    limits: tuple = (None, None),
) -> pd.DataFrame:
    """Plot ``metric`` against ``step`` per method (mean +- std over seeds, the band clipped to
    the metric's range ``limits``). ``references``: method -> (step, the paper's value), drawn as
    a star at that step. Returns the summary (method, step, mean, std, n_seeds)."""
    d = rows[rows.metric == metric]
    summary = (
        d.groupby(["method", "step"])
        .value.agg(["mean", "std", "count"])
        .reset_index()
        .rename(columns={"count": "n_seeds"})
    )
    summary["std"] = summary["std"].fillna(0.0)
    fig, ax = plt.subplots(figsize=(5.5, 3.8), dpi=150)
    for method, s in summary.groupby("method", sort=False):
        style = method_style(method)
        (line,) = ax.plot(s.step, s["mean"], label=method, lw=1.6, markevery=0.2, ms=4, **style)
        low, high = clipped_band(s["mean"], s["std"], limits)
        if logy:  # a band below zero has no place on a log axis: clip it at a tenth of the mean
            low = pd.Series(low, index=s.index).where(low > 0, s["mean"] / 10)
        ax.fill_between(
            s.step,
            low,
            high,
            alpha=0.25,
            color=line.get_color(),
            lw=0,
        )
        if references and method in references:
            step, value = references[method]
            ax.plot(
                [step],
                [value],
                marker="*",
                ms=11,
                ls="none",
                color=line.get_color(),
                markerfacecolor="none",  # hollow: the paper's number, not a point of our curve
                markeredgewidth=1.3,
                label=f"{method}, the paper's value ({step:,} iterations, its data)",
            )
    log_axes(ax, ("x" if logx else "") + ("y" if logy else ""))
    ax.set_xlabel("iterations (triplets drawn, with replacement)")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, out_png, out_pdf)
    last = summary.sort_values("step").groupby("method").tail(1)
    lines = [
        f"# {title}",
        "",
        caption,
        "",
        "Values at the last step (mean ± std over seeds):",
        "",
        one_seed_na(last[["method", "step", "mean", "std", "n_seeds"]]).to_markdown(index=False),
        "",
    ]
    save_text(out_md, "\n".join(lines))
    return summary


def one_seed_na(summary: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``summary`` for printing, its ``std`` "n/a" where ``n_seeds`` < 2 (a spread over
    one seed is not zero, it is not measured)."""
    out = summary.astype({"std": object})
    out.loc[out["n_seeds"] < 2, "std"] = "n/a"
    return out


def cd_diagram(comparison: dict, path, title: str) -> None:
    """Critical-difference diagram (Demšar 2006) of :func:`tripletbench.harness.tables.rank_comparison`'s
    result, drawn by ``scikit_posthocs.critical_difference_diagram`` (average ranks on the axis;
    methods joined by a bar do not differ by the Nemenyi test at 0.05), saved to ``path``
    (atomically). With no test (too few datasets or methods) the figure says so; every method
    tied on every dataset draws one bar over all (Nemenyi p = 1, decided by
    :func:`tripletbench.harness.tables.friedman_nemenyi`). Raises ``ValueError`` for a NaN p-value (bars
    would be drawn from it)."""
    p = comparison["p_nemenyi"]
    if not p.empty and p.isna().to_numpy().any():
        raise ValueError("cd_diagram: NaN in the Nemenyi p-values")
    fig, ax = plt.subplots(figsize=(7.0, 0.35 * max(len(comparison["avg_rank"]), 4) + 1.0))
    if p.empty:
        ax.axis("off")
        ax.text(
            0.5,
            0.5,
            "no critical-difference diagram: fewer than 2 datasets or 3 methods",
            ha="center",
            va="center",
        )
    else:
        import scikit_posthocs as sp

        sp.critical_difference_diagram(
            comparison["avg_rank"],
            comparison["p_nemenyi"],
            ax=ax,
            color_palette={  # a row label "NAME [protocol]" gets its method's colour
                m: method_style(m.split(" [")[0])["color"] for m in comparison["avg_rank"].index
            },
        )
        ax.set_xlabel("average rank (1 = best)")
        ties = [
            f"{', '.join(g.index)} at {r:g}"
            for r, g in comparison["avg_rank"].groupby(comparison["avg_rank"].round(9))
            if len(g) > 1
        ]
        if ties:  # their connectors are drawn at one x, one over the other: say so
            fig.text(0.5, -0.02, f"Tied average ranks (connectors drawn over each other): "
                     f"{'; '.join(ties)}.", ha="center", va="top", fontsize=7, wrap=True)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    save_figure(fig, path)


def __getattr__(name: str):
    """A name that moved into a study's package: found there, with a DeprecationWarning."""
    from tripletbench._moved import moved_name

    return moved_name(__name__, name)
