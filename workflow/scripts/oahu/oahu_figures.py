"""Rules figure_oahu_4, figure_oahu_5, figure_oahu_7: the OAHU paper's Figures 4, 5 and 7 (PNG,
PDF, a Markdown caption with the plotted values, and a CSV of them)."""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from tripletbench.studies.oahu.captions import (
    OAHU_CHOICES,
    OAHU_ORDER_SPREAD,
    SPLIT_WORDS,
    pair_rule_caption,
)
from tripletbench.harness.io import save_csv, save_text, start_log
from tripletbench.studies.oahu.paper import oahu_own_settings, vs_paper
from tripletbench.harness.plots import (
    clipped_band,
    display_name,
    legend_outside,
    log_axes,
    method_style,
    save_figure,
)
from tripletbench.harness.settings import check_fresh
from tripletbench.harness.tables import collect

CELL = ("dataset", "seed", "algorithm")  # the cell each file holds (tripletbench.harness.tables.collect)

start_log(snakemake.log[0])
cfg = snakemake.config["oahu"]
route = snakemake.config["data"]["route"]
out = snakemake.output
name = snakemake.rule


def save(fig):
    fig.tight_layout()
    save_figure(fig, out.png, out.pdf)


def settings(methods, artifact):
    """Caption line with each curve's configured hyperparameters (fixed values, grids), OAHU's
    own settings beside the paper's (``artifact``: the figure, tripletbench.studies.oahu.paper) and the
    pairs each pair learner gets."""
    return (
        "Settings: "
        + "; ".join(
            f"{m}: {c.get('fixed', {})}" + (f" grid {c['grid']}" if c.get("grid") else "")
            for m, c in methods.items()
        )
        + "."
        + oahu_own_settings(artifact, methods)
        + " "
        + pair_rule_caption(methods)
    ).strip()


def stream(artifact, block, words):
    """The block's constraint stream (``n_seeds`` + ``n_closure``) with the paper's beside it."""
    n_s, n_c = block["n_seeds"], block["n_closure"]
    return vs_paper(artifact, "n_constraints", (n_s, n_c), f"{n_s:,}" + words.format(c=f"{n_c:,}"))


def mean_std(df, keys, col):
    g = df.groupby(keys)[col]
    s = g.agg(["mean", "std", "count"]).reset_index().rename(columns={"count": "n_runs"})
    s["std"] = s["std"].fillna(0.0)
    return s


def panel_gaps(s, datasets) -> str:
    """The caption sentence naming the rows a panel lacks that another panel shows (a
    panel's rows are its cells' methods: Table 3's rows where the dataset is a Table 3 column,
    figure7.methods otherwise), "" where every panel shows the same rows."""
    rows = {d: set(s[s.dataset == d].algorithm) for d in datasets}
    every = set().union(*rows.values()) if rows else set()
    gaps = [f"{d} lacks {', '.join(sorted(every - r))}" for d, r in rows.items() if every - r]
    if not gaps:
        return ""
    return (
        " Not in every panel: " + "; ".join(gaps) + " (a panel of a Table 3 dataset shows "
        "Table 3's rows, another figure7.methods)."
    )


def errorbars(ax, x, g, label, limits=(0.0, 1.0)):
    """Mean with error bars of +- one std clipped to the metric's range (tripletbench.harness.plots), in the
    method's colour and marker (the same in every figure)."""
    low, high = clipped_band(g["mean"], g["std"], limits)
    ax.errorbar(
        x, g["mean"], yerr=[g["mean"] - low, high - g["mean"]], ms=3, capsize=3, label=label,
        **method_style(label),
    )


if name == "figure_oahu_4":
    c = cfg["figure4"]
    rows = collect(
        snakemake.input.cells, "oahu_fig4_cell", ["error_rate"],
        ("dataset", "seed", "algorithm", "n_constraints"),
    )
    check_fresh(
        rows, snakemake.config, "oahu.figure4", "workflow/scripts/oahu/oahu_fig4_cell.py",
        "oahu_fig4_cell",
    )
    s = mean_std(rows, ["algorithm", "n_constraints"], "error_rate")
    # Figure 4c: OAHU's alpha from the Table 3 cells
    alpha = collect(snakemake.input.alpha, "oahu_cell", ["step", "layer", "alpha"], CELL)
    check_fresh(
        alpha, snakemake.config, "oahu.table3", "workflow/scripts/oahu/oahu_cell.py", "oahu_cell"
    )
    a = mean_std(alpha, ["layer", "step"], "alpha")
    save_csv(out.csv, s)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8), dpi=150)
    for m, g in s.groupby("algorithm", sort=False):
        errorbars(ax1, g.n_constraints, g, m)
    log_axes(ax1, "x")
    ax1.set_xlabel("number of constraints (uniform subsample of the stream)")
    ax1.set_ylabel(f"kNN (k = {c['k']}) test error rate")
    # the paper's Figure 4: (a) Fashion-MNIST, (b) CIFAR-10; another dataset is no panel of it
    panel = {"fashion_mnist": "(a)", "cifar10_gray": "(b)"}.get(c["dataset"])
    panel = f"the paper's {panel}: " if panel else ""
    ax1.set_title(f"{panel}error rate vs constraints, {display_name(c['dataset'])}", fontsize=9)
    ax1.grid(alpha=0.3)
    ax1.legend(fontsize=7)
    last = a.step.max()
    final = a[a.step == last].sort_values("layer")
    steps = sorted(a.step.unique())
    bottom = np.zeros(len(steps))
    for layer, g in a.groupby("layer"):
        v = g.set_index("step").reindex(steps)["mean"].values
        ax2.fill_between(
            steps,
            bottom,
            bottom + v,
            step=None,
            alpha=0.8,
            label=f"E{layer}" + (" (linear)" if layer == 0 else ""),
        )
        bottom = bottom + v
    log_axes(ax2, "x")
    ax2.set_ylim(0, 1)
    ax2.set_xlabel("constraints seen (online steps)")
    ax2.set_ylabel("metric weight alpha_l (stacked)")
    ax2.set_title(
        f"the paper's (c): OAHU's alpha along training, {display_name(c['dataset'])}", fontsize=9
    )
    legend_outside(ax2, "right")  # the stacked bands fill the axes
    save(fig)
    t3 = cfg["table3"]
    lines = [
        "# OAHU paper, Figure 4: error rate vs number of constraints; alpha along training",
        "",
        (
            f"{c['dataset']} ({route} route). Left: test error rate of kNN with "
            + vs_paper("figure_oahu_4", "k", c["k"], f"k = {c['k']}")
            + " of each method trained on a uniform random subsample (stream order kept) of n of "
            "the "
            + stream("figure_oahu_4", c, " + {c} seed + closure constraints")
            + f", {SPLIT_WORDS[c.get('split', 'shuffled')]}"
            + (
                " of "
                + vs_paper(
                    "figure_oahu_4", "n_samples", c["n_samples"], f"{c['n_samples']:,} samples"
                )
                if c.get("n_samples")
                else ", all samples (as the paper)"
            )
            + "; mean ± std (error bars) over "
            + vs_paper("figure_oahu_4", "n_runs", len(c["seeds"]), f"seeds {c['seeds']}")
            + "; OAHU classifies by its section 3.6.1 rule (k nearest per layer, alpha-weighted "
            "scores, eqs. 23-25), the others by majority vote of the k nearest. Right (Figure "
            "4c): OAHU's metric weights alpha_l (E0 = the linear metric on the input, El on "
            "hidden layer l), stacked, at geometric checkpoints of the Table 3 runs on "
            + stream("oahu_table3", t3, " + {c} constraints")
            + ", mean over seeds."
        ),
        "",
        "Error rate (mean ± std over seeds):",
        "",
        s.pivot(index="n_constraints", columns="algorithm", values="mean").round(4).to_markdown(),
        "",
        "std:",
        "",
        s.pivot(index="n_constraints", columns="algorithm", values="std").round(4).to_markdown(),
        "",
        f"alpha at the last step ({last}):",
        "",
        final[["layer", "mean", "std", "n_runs"]].round(4).to_markdown(index=False),
        "",
    ]
    save_text(
        out.md,
        "\n".join([*lines, "", settings(c["methods"], "figure_oahu_4"), "", OAHU_CHOICES, "", OAHU_ORDER_SPREAD, ""]),
    )

elif name == "figure_oahu_5":
    c = cfg["figure5"]
    dataset = snakemake.params.dataset
    auc = collect(snakemake.input.auc, "oahu_fig5_cell", ["auc"], CELL)
    check_fresh(
        auc, snakemake.config, "oahu.figure5", "workflow/scripts/oahu/oahu_fig5_cell.py",
        "oahu_fig5_cell",
    )
    roc = collect(snakemake.input.roc, "oahu_fig5_cell", ["fpr", "tpr"], ("seed", "algorithm"))
    s = mean_std(auc, ["algorithm"], "auc")
    save_csv(out.csv, s)
    grid = np.linspace(0, 1, 101)
    fig, ax = plt.subplots(figsize=(5.2, 4.4), dpi=150)
    for m in c["methods"]:
        r = roc[roc.algorithm == m]
        curves = [np.interp(grid, g.fpr, g.tpr) for _, g in r.groupby(["seed", "fold"])]
        mu, sd = np.mean(curves, axis=0), np.std(curves, axis=0)
        row = s[s.algorithm == m].iloc[0]
        (line,) = ax.plot(
            grid, mu, lw=1.4, ms=3, markevery=10,
            label=f"{m} (AUC {row['mean']:.3f} ± {row['std']:.3f})", **method_style(m),
        )
        low, high = clipped_band(mu, sd, (0.0, 1.0))
        ax.fill_between(grid, low, high, alpha=0.15, color=line.get_color(), lw=0)
    ax.plot([0, 1], [0, 1], ls=":", color="grey", lw=0.8)
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    ax.set_title(f"OAHU paper, Fig. 5: verification ROC, {display_name(dataset)}", fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(alpha=0.3)
    save(fig)
    lfw = dataset == "lfw"
    why = (
        "is not in the data mirror (lfw/lfw_attributes.txt)"
        if route == "download" and c["use_lfw"]
        else "needs download (set figure5.use_lfw and the download route, config/paper.yaml)"
    )
    where = (
        "LFW, 73-d PubFig attribute features, View 2's 10 folds of 300 matched + 300 mismatched "
        "pairs (as the paper); training constraints: "
        + stream("figure_oahu_5", c, " seeds + {c} closure")
        + ", from all images, none containing a View 1 or View 2 pair"
        if lfw
        else f"stand-in: {dataset} ({route} route), because LFW with its attribute features "
        f"{why}. Same protocol: "
        + vs_paper("figure_oahu_5", "n_folds", c["n_folds"], f"{c['n_folds']} folds")
        + " of "
        + vs_paper(
            "figure_oahu_5",
            "n_pairs",
            c["n_pairs"],
            f"{c['n_pairs']} matched + {c['n_pairs']} mismatched pairs",
        )
        + " drawn from the test half of a per-class 1:1 split (matched = same class); training "
        "constraints: "
        + stream("figure_oahu_5", c, " seeds + {c} closure")
        + ", from the other half, so no evaluation pair is in a constraint"
    )
    lines = [
        "# OAHU paper, Figure 5: pair verification, ROC and AUC",
        "",
        (
            f"{where}. Distances normalised to [0, 1] over the evaluated pairs; score 1 - distance "
            "(bilinear learners: their similarity). OAHU: the alpha-weighted lower median of its "
            "per-layer distances D_l / 2; a pair passes eq. 26's vote (sum of alpha_l over the "
            "layers with D_l / 2 < T at least 0.5) exactly when that median is below T, so "
            "sweeping T gives this ROC. ROC: mean over folds (and seeds "
            f"{c['seeds']}), band ± one std; AUC in the legend: mean ± std over folds."
        ),
        "",
        s.round(4).to_markdown(index=False),
        "",
    ]
    save_text(
        out.md,
        "\n".join([*lines, "", settings(c["methods"], "figure_oahu_5"), "", OAHU_CHOICES, "", OAHU_ORDER_SPREAD, ""]),
    )

else:  # figure_oahu_7
    c = cfg["figure7"]
    runs = collect(snakemake.input.runs, "oahu_cell", ["metric", "value"], CELL)
    for experiment, part in runs.groupby("experiment"):  # Table 3's cells and Figure 7's own
        check_fresh(
            part, snakemake.config, f"oahu.{experiment}", "workflow/scripts/oahu/oahu_cell.py",
            "oahu_cell",
        )
    rec = runs[runs.metric.str.startswith("recall@")].copy()
    rec["K"] = rec.metric.str.slice(7).astype(int)
    s = mean_std(rec, ["dataset", "algorithm", "K"], "value")
    save_csv(out.csv, s)
    datasets = list(dict.fromkeys(s.dataset))
    fig, axes = plt.subplots(
        1, len(datasets), figsize=(5 * len(datasets), 3.8), dpi=150, squeeze=False
    )
    for ax, d in zip(axes[0], datasets):
        for m, g in s[s.dataset == d].groupby("algorithm", sort=False):
            errorbars(ax, g.K, g, m)
        ax.set_xscale("log", base=2)
        ax.set_xticks(c["ks"], [str(k) for k in c["ks"]])
        ax.set_xlabel("K")
        ax.set_ylabel("Recall@K")
        ax.set_title(f"Recall@K, {display_name(d)} ({route} route)", fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    save(fig)
    deep = [
        f
        for f in c["deep_feature_files"]
        if not (Path(snakemake.params.cache_dir) / "features" / f).exists()
    ]
    lines = [
        "# OAHU paper, Figure 7: retrieval, Recall@K",
        "",
        (
            "The paper's datasets are CARS-196 and CIFAR-100 with ImageNet VGG-19 features; that "
            f"route needs download (images and VGG-19 weights; features expected at "
            f"{snakemake.params.cache_dir}/features/: {', '.join(deep) or 'present'}). "
            f"Stand-ins here: {', '.join(datasets)} ({route} route). Recall@K: the fraction of test "
            "queries with an item of their class among their K most similar other test items "
            "(the query excluded); OAHU retrieves by eq. 27 (the K nearest in each layer scored "
            "as eq. 23, the top K distinct); models trained as in Table 3 (development half, "
            "seed + closure constraints); the streams: "
            + "; ".join(
                f"{', '.join(sorted(set(part.dataset)))}: "
                + ("Table 3's cells, " if experiment == "table3" else "")
                + stream("figure_oahu_7", cfg[experiment], " + {c} constraints")
                for experiment, part in rec.groupby("experiment")
            )
            + "; mean ± std over "
            + vs_paper(
                "figure_oahu_7",
                "n_runs",
                rec.seed.nunique(),
                "seeds "
                + "; ".join(  # per panel: a Table 3 panel has Table 3's seeds
                    f"{sorted(int(x) for x in part.seed.unique())} ({d})"
                    for d, part in rec.groupby("dataset", sort=False)
                ),
            )
            + "."
            + panel_gaps(s, datasets)
        ),
        "",
    ]
    for d in datasets:
        lines += [
            f"## {d}",
            "",
            s[s.dataset == d]
            .pivot(index="algorithm", columns="K", values="mean")
            .round(4)
            .to_markdown(),
            "",
        ]
    save_text(
        out.md,
        "\n".join([*lines, "", settings(c["methods"], "figure_oahu_7"), "", OAHU_CHOICES, "", OAHU_ORDER_SPREAD, ""]),
    )
