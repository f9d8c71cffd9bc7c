"""Rule figure_oasis_2: precision at the top k (k = 1..K) of every method on every image set,
mean ± standard error over seeds, with the chance level, as the OASIS paper's Figure 2."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from tripletbench.datasets.caltech256 import image_set
from tripletbench.harness.experiment import test_rows
from tripletbench.harness.io import save_csv, save_text, start_log
from tripletbench.studies.oasis.paper import vs_paper
from tripletbench.harness.plots import (
    clipped_band,
    display_name,
    legend_outside,
    method_style,
    save_figure,
)
from tripletbench.harness.tables import collect

start_log(snakemake.log[0])
cfg = snakemake.config["images"]
route = snakemake.config["data"]["route"]
# the runs rule table_sdca_3 wrote, whole and as it wrote them (digest: tripletbench.harness.tables.collect)
runs = collect([snakemake.input.runs], "table_sdca_3", ["stage", "metric", "value", "seed"])
final = test_rows(runs)
prec = final[final.metric.str.startswith("precision@")].copy()
prec = prec[np.isfinite(prec.value.astype(float))]  # a seed counts where it has a number
prec["k"] = prec.metric.str.split("@").str[1].astype(int)
stats = (
    prec.groupby(["dataset", "algorithm", "k"])
    .value.agg(
        mean="mean",
        se=lambda v: v.std(ddof=1) / np.sqrt(len(v)) if len(v) > 1 else 0.0,
        n_seeds="count",
    )
    .reset_index()
)
panels = [d for d in cfg["datasets"] if d in set(stats.dataset)]
methods = [m for m in cfg["methods"] if m in set(stats.algorithm)]
rows = []
fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.6), squeeze=False)
for ax, d in zip(axes[0], panels):
    iset = image_set(d)
    n_classes = iset.n_classes or 10  # Fashion-MNIST has 10 classes
    # chance = expected precision of a random ranking: the database holds n_train_per_class
    # images of every class, so 1 / n_classes
    level = 1.0 / n_classes
    for m in methods:
        s = stats[(stats.dataset == d) & (stats.algorithm == m)].sort_values("k")
        style = method_style(m)
        ax.plot(s.k, s["mean"], label=m, lw=1.4, markevery=0.2, ms=3, **style)
        low, high = clipped_band(s["mean"], s.se, (0.0, 1.0))
        ax.fill_between(s.k, low, high, alpha=0.2, color=style["color"], lw=0)
    ax.axhline(level, color="k", ls=":", lw=1, label="chance")
    ax.set_title(display_name(d), fontsize=9)
    ax.set_xlabel("k (number of retrieved training images)")
    ax.set_ylabel("precision at top k")
    ax.set_xlim(1, stats.k.max())
    stats.loc[stats.dataset == d, "chance"] = level
fig.suptitle("OASIS paper, Fig. 2: precision at top k (mean ± s.e. over seeds)", fontsize=10)
fig.tight_layout()
legend_outside(axes[0][-1], "below")  # one legend under the panels: over none of the curves
save_figure(fig, snakemake.output.png, snakemake.output.pdf)
save_csv(snakemake.output.csv, stats)
missing = [d for d in cfg["datasets"] if d not in panels]
fail_rows = final[final.metric == "failed"]
failed = [f"{m} on {d}" for (m, d), _ in fail_rows.groupby(["algorithm", "dataset"])]
seeds = sorted(int(s) for s in prec.seed.unique())
# a curve with a point over fewer seeds than the caption names says so (tripletbench.harness.paper_table)
fewer = stats[stats.n_seeds < len(seeds)].groupby(["algorithm", "dataset"]).n_seeds.min()
fewer = [f"{m} on {d} ({n} of {len(seeds)} seeds at some k)" for (m, d), n in fewer.items()]
stand = [d for d in panels if image_set(d).source != "caltech256"]
wide = stats.pivot_table(index=["dataset", "k"], columns="algorithm", values="mean")
pick = wide[wide.index.get_level_values("k").isin([1, 5, 10, 20, 50])]
ART = "figure_oasis_2"  # the paper's settings: tripletbench.studies.oasis.paper
caption = [
    "# OASIS paper, Figure 2: precision at top k",
    "",
    (
        f"Precision among the k most similar training images of each test image (relevance = same "
        f"class; that test images query the training images is our reading: the OASIS paper's "
        f"text at hand averages precision over test images without naming the searched set), "
        "mean ± standard error over "
        + vs_paper(ART, "n_runs", len(seeds), f"seeds {seeds}")
        + f"; dotted line = chance (1 / number of classes). {route} data route. Per class "
        + vs_paper(
            ART,
            "n_train_per_class",
            cfg["n_train_per_class"],
            f"{cfg['n_train_per_class']} training images",
        )
        + " and "
        + vs_paper(
            ART,
            "n_test_per_class",
            cfg["n_test_per_class"],
            f"{cfg['n_test_per_class']} test images",
        )
        + "; "
        + vs_paper(ART, "n_triplets", cfg["n_triplets"], f"{cfg['n_triplets']:,} triplets")
        + "; settings per method as in the table_sdca_3 caption."
    ),
    *(
        [
            (
                f"Stand-in panels: {', '.join(stand)} (Fashion-MNIST, 10 classes; the paper's panels "
                "are Caltech-256 with 10, 20 and 50 classes)."
            )
        ]
        if stand
        else []
    ),
    *([f"Not drawn ({route} route): {', '.join(missing)} (needs download)."] if missing else []),
    *([f"No curve (the fit failed, see table_sdca_3): {', '.join(failed)}."] if failed else []),
    *([f"Over fewer seeds (a seed without a number): {', '.join(fewer)}."] if fewer else []),
    "",
    "Mean precision at k = 1, 5, 10, 20, 50:",
    "",
    pick.map(lambda v: f"{v:.4f}").reset_index().to_markdown(index=False),
    "",
]
save_text(snakemake.output.md, "\n".join(caption))
print(pick.to_string())
