"""Figures (matplotlib, PNG and PDF): curves with mean and a band of +- one standard deviation
over seeds, labelled axes, legend; the caption goes to a Markdown file beside them."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from .io import atomic_path, save_text  # noqa: E402


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
) -> pd.DataFrame:
    """Plot ``metric`` against ``step`` per method (mean +- std over seeds). ``references``:
    method -> (step, the paper's value), drawn as a star at that step. Returns the summary
    (method, step, mean, std, n_seeds)."""
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
        (line,) = ax.plot(s.step, s["mean"], label=method, lw=1.6)
        low = s["mean"] - s["std"]
        if logy:  # a band below zero has no place on a log axis: clip it at a tenth of the mean
            low = low.where(low > 0, s["mean"] / 10)
        ax.fill_between(
            s.step,
            low,
            s["mean"] + s["std"],
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
                ms=10,
                ls="none",
                color=line.get_color(),
                label=f"{method}, paper ({step:,} iterations)",
            )
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel("iterations (triplets seen)")
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    for path in (out_png, out_pdf):
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format=str(path).rsplit(".", 1)[1])
    plt.close(fig)
    last = summary.sort_values("step").groupby("method").tail(1)
    lines = [
        f"# {title}",
        "",
        caption,
        "",
        "Values at the last step (mean ± std over seeds):",
        "",
        last[["method", "step", "mean", "std", "n_seeds"]].to_markdown(index=False),
        "",
    ]
    save_text(out_md, "\n".join(lines))
    return summary


def scaling(rows: pd.DataFrame, out_png, out_pdf, out_md, caption: str) -> pd.DataFrame:
    """Two log-log panels: fit time against the number of triplets and against the number of
    training samples (mean +- std over seeds)."""
    summary = (
        rows.groupby(["axis", "method", "size"])
        .fit_wall_s.agg(["mean", "std", "count"])
        .reset_index()
        .rename(columns={"count": "n_seeds"})
    )
    summary["std"] = summary["std"].fillna(0.0)
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), dpi=150)
    colors = {m: f"C{i}" for i, m in enumerate(sorted(summary.method.unique()))}
    for ax, axis, label in zip(
        axes, ("n_triplets", "n_samples"), ("number of triplets", "number of training samples")
    ):
        for method, s in summary[summary.axis == axis].groupby("method", sort=False):
            ax.errorbar(
                s["size"],
                s["mean"],
                yerr=s["std"],
                marker="o",
                ms=3,
                capsize=2,
                label=method,
                color=colors[method],
            )
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(label)
        ax.set_ylabel("fit wall time (s)")
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8)
    fig.suptitle("Fit time (after the OASIS paper, Fig. 1b)", fontsize=10)
    fig.tight_layout()
    for path in (out_png, out_pdf):
        with atomic_path(path) as tmp:
            fig.savefig(tmp, format=str(path).rsplit(".", 1)[1])
    plt.close(fig)
    save_text(
        out_md,
        "\n".join(
            [
                "# Fit time against problem size",
                "",
                caption,
                "",
                summary.to_markdown(index=False, floatfmt=".3g"),
                "",
            ]
        ),
    )
    return summary
