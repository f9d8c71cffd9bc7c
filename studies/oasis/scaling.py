"""Fit time against problem size, as the OASIS paper's Fig. 1(b): the timings (rule
scaling_times, one run per seed) and the figure (rule figure_scaling)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from tripletbench.datasets.constraints import sample_class_triplets
from tripletbench.datasets.preprocess import make_split, rng
from tripletbench.harness.io import save_text
from tripletbench.harness.plots import (
    display_name,
    log_axes,
    method_style,
    one_seed_na,
    save_figure,
)

SCALING_LEARNERS = ("OASIS", "SDCA", "LMNN")
"""The learners :func:`scaling` times (built by name: the rule scaling_times adds their code to
its settings, :func:`tripletbench.harness.settings.block_settings`)."""


def scaling(*args, **kwargs) -> list[dict]:
    """:func:`_scaling` with one BLAS thread (the timings are defined for one thread)."""
    from tripletbench.harness.timing import single_threaded

    return single_threaded(_scaling)(*args, **kwargs)


def _scaling(
    X,
    y,
    seed,
    n_triplets_list,
    n_samples_list,
    triplets_per_sample,
    lmnn_params,
    oasis_C,
    sdca_lam,
    log=print,
) -> list[dict]:
    """Fit time against the number of triplets (OASIS, SDCA: as many steps as triplets, uniform
    draws with replacement) and against the number of training samples (OASIS and SDCA with
    ``triplets_per_sample`` triplets per sample, LMNN on the samples with their labels), as the
    OASIS paper's Figure 1(b). Rows: (figure, seed, method, axis, size, fit_wall_s, fit_cpu_s,
    load_1min, n_cpus): ``load_1min`` is the machine's one-minute load average
    (``os.getloadavg``) read right after the fit and ``n_cpus`` its number of CPUs, so that a
    caption states the load the timings were taken under instead of assuming an idle machine."""
    import os

    from tripletbench.harness.experiment import fit_learner

    split = make_split(y, seed)
    Xtr, ytr = X[split["train"]], y[split["train"]]
    g = rng(seed, "constraints_train")
    rows = []

    def timed(method, params, t, Xs, ys, axis, size):
        _, timing = fit_learner(method, params, t, Xs, ys, seed)
        rows.append(
            {
                "figure": "scaling",
                "seed": seed,
                "method": method,
                "axis": axis,
                "size": size,
                "fit_wall_s": timing["fit_wall_s"],
                "fit_cpu_s": timing["fit_cpu_s"],
                "load_1min": os.getloadavg()[0],
                "n_cpus": os.cpu_count(),
            }
        )
        log(
            f"  {method} {axis}={size}: {timing['fit_wall_s']:.2f} s wall, "
            f"{timing['fit_cpu_s']:.2f} s CPU (load {rows[-1]['load_1min']:.2f})"
        )

    online = {  # SCALING_LEARNERS: the rule's settings cover their code
        "OASIS": {"C": oasis_C, "n_epochs": 1},
        "SDCA": {"lam": sdca_lam, "n_epochs": 1, "trace_gap": False},
    }
    warm = sample_class_triplets(ytr, 10, np.random.default_rng(0))  # not from g: sizes as before
    for method, params in online.items():  # compile (or load numba's cache) before any timing:
        fit_learner(method, params, warm, Xtr, ytr, seed)  # else the first size carries it
    from tripletbench.algorithms._compat import metric_learn

    metric_learn()  # LMNN's library imported before its first timing too
    for n in n_triplets_list:
        t = sample_class_triplets(ytr, n, g)
        for method, params in online.items():
            timed(method, params, t, Xtr, ytr, "n_triplets", n)
    for m in n_samples_list:
        pick = np.sort(g.choice(len(Xtr), size=min(m, len(Xtr)), replace=False))
        Xs, ys = Xtr[pick], ytr[pick]
        t = sample_class_triplets(ys, triplets_per_sample * len(pick), g)
        for method, params in {**online, "LMNN": lmnn_params}.items():
            timed(method, params, t, Xs, ys, "n_samples", len(pick))
    return rows


def load_words(rows: pd.DataFrame) -> str:
    """How loaded the machine was while ``rows`` (timing rows with ``load_1min`` and ``n_cpus``,
    :func:`tripletbench.studies.sdca.curves.scaling`) were measured, in words for a caption; says so where the rows
    predate the load record."""
    if "load_1min" not in rows or rows["load_1min"].isna().all():
        return "machine load not recorded"
    lo, hi = rows["load_1min"].min(), rows["load_1min"].max()
    return (
        f"one-minute load average during the timings {lo:.2f}-{hi:.2f} on "
        f"{int(rows['n_cpus'].max())} CPUs (os.getloadavg after each fit)"
    )


def plot_scaling(rows: pd.DataFrame, out_png, out_pdf, out_md, caption: str) -> pd.DataFrame:
    """Two log-log panels: fit time against the number of triplets and against the number of
    training samples: the median over seeds as a line and the range over seeds (min to max) as
    a band, which stays visible on a log axis where mean - std can be negative. Returns the
    summary (axis, method, size, median, min, max, mean, std, n_seeds); the caption gets the
    machine load measured during the timings (:func:`load_words`)."""
    import matplotlib.pyplot as plt  # after harness.plots, which selects the Agg backend
    from matplotlib.ticker import FixedLocator  # a tick at every size measured

    summary = (
        rows.groupby(["axis", "method", "size"])
        .fit_wall_s.agg(["median", "min", "max", "mean", "std", "count"])
        .reset_index()
        .rename(columns={"count": "n_seeds"})
    )
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.6), dpi=150)
    for ax, axis, label in zip(
        axes, ("n_triplets", "n_samples"), ("number of triplets", "number of training samples")
    ):
        for method, s in summary[summary.axis == axis].groupby("method", sort=False):
            style = method_style(method)
            ax.plot(s["size"], s["median"], label=display_name(method), ms=4, lw=1.5, **style)
            ax.fill_between(s["size"], s["min"], s["max"], color=style["color"], alpha=0.2, lw=0)
        log_axes(ax)
        ax.xaxis.set_major_locator(
            FixedLocator(sorted(summary[summary.axis == axis]["size"].unique()))
        )
        ax.set_xlabel(label)
        ax.set_ylabel("fit wall time (s)")
        ax.grid(alpha=0.3, which="major")
        ax.legend(fontsize=8)
    fig.suptitle("Fit time (after the OASIS paper, Fig. 1b)", fontsize=10)
    fig.tight_layout()
    save_figure(fig, out_png, out_pdf)
    text = f"{caption} Lines: median over seeds; bands: min to max over seeds; {load_words(rows)}."
    table = one_seed_na(summary)
    save_text(
        out_md,
        "\n".join(
            [
                "# Fit time against problem size",
                "",
                text,
                "",
                table.to_markdown(index=False, floatfmt=".3g"),
                "",
            ]
        ),
    )
    return summary
