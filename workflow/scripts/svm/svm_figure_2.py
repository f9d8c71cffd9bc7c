"""Rule figure_svm_2: Schultz & Joachims (2003), Figure 2: the learning curve of the
Topic+FacultyStudent distance: the size of the training set P_train (number of constraints, the
paper's x axis) against the percentage of P_test satisfied (its y axis), P_test held fixed. The
axis scale is ours (linear; the paper's text names the quantities, not the scale). Mean over
seeds with ± one standard deviation as error bars (ours; the text does not say how many runs it
reports). One panel per notion of ``svm.figure2.notions`` that ran (the paper: Topic+
FacultyStudent; offline: its Reuters stand-in). The static baselines (best preprocessing variant)
are drawn as horizontal lines: our addition, not in the paper's figure."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

from tripletbench.studies.svm.captions import text_feature_words
from tripletbench.harness.io import save_text, start_log
from tripletbench.harness.plots import clipped_band, display_name, method_style, save_figure
from tripletbench.harness.settings import check_block_fresh
from tripletbench.studies.svm.paper import vs_paper
from tripletbench.studies.svm.experiment import NOTIONS
from tripletbench.harness.tables import collect

start_log(snakemake.log[0])
cfg = snakemake.config["svm"]
runs = collect(snakemake.input.runs, "svm_run", cell=("notion", "seed"))
check_block_fresh(runs, snakemake.params.run_settings, "svm runs", "svm_run")
wanted = list(cfg["figure2"]["notions"])
notions = [n for n in wanted if n in set(runs.notion)]
missing = [n for n in wanted if n not in notions]
summary = (
    runs.groupby(["notion", "method", "variant", "n_train_triplets"])
    .triplet_accuracy.agg(["mean", "std", "count"])
    .reset_index()
    .rename(columns={"count": "n_seeds"})
)
curve = summary[summary.method == "SVM-relative"].sort_values(["notion", "n_train_triplets"])
static = summary[summary.method.isin(["Binary", "TFIDF", "Eucl"])]
best = static.loc[static.groupby(["notion", "method"])["mean"].idxmax()]
n = max(len(notions), 1)
fig, axes = plt.subplots(1, n, figsize=(4.2 * n, 3.3), dpi=150, squeeze=False)
styles = {"Binary": "--", "TFIDF": ":", "Eucl": "-."}
for ax, notion in zip(axes.ravel(), notions):
    c = curve[curve.notion == notion]
    mean = 100 * c["mean"]
    low, high = clipped_band(mean, 100 * c["std"].fillna(0.0), (0.0, 100.0))  # a percentage
    ax.errorbar(
        c.n_train_triplets,
        mean,
        yerr=[mean - low, high - mean],
        ms=3,
        capsize=2,
        label="SVM-relative (learned, A = I)",
        **method_style("SVM-relative"),
    )
    for r in best[best.notion == notion].itertuples():
        ax.axhline(
            100 * r.mean,
            ls=styles.get(r.method, "-"),
            color=method_style(r.method)["color"],
            lw=1.2,
            label=f"{r.method} [{r.variant}] (static)",
        )
    mimics = NOTIONS[notion].mimics if notion in NOTIONS else ""
    ax.set_title(
        display_name(notion) + (f"\n(for {display_name(mimics)})" if mimics else ""), fontsize=9
    )
    ax.set_xlabel("size of P_train (number of training triplets)", fontsize=8)
    ax.set_ylabel("P_test satisfied (%)", fontsize=8)
    ax.ticklabel_format(axis="x", style="sci", scilimits=(0, 4))
    ax.grid(alpha=0.3)
    ax.legend(fontsize=6)
if not notions:
    axes[0, 0].text(0.5, 0.5, "no notion of svm.figure2.notions ran", ha="center", va="center")
    axes[0, 0].axis("off")
fig.tight_layout()
save_figure(fig, snakemake.output.png, snakemake.output.pdf)
# what the panels draw: the SVM-relative curve and each static baseline's best variant
table = pd.concat([curve, best]).query("notion in @notions").copy()
table["mean"] = (100 * table["mean"]).round(2)
table["std"] = (100 * table["std"]).round(2)
n_test = int(runs[runs.notion.isin(notions)].n_test_triplets.max()) if notions else 0
c_words = vs_paper("figure_svm_2", "C", float(cfg["C"]), f"C = {float(cfg['C']):g}")
lines = [
    "# Schultz & Joachims (2003), Figure 2: learning curve",
    "",
    "Percentage of P_test satisfied by SVM-relative (eq. 8, A = I, "
    f"{c_words}, solver "
    f"{cfg['solver']} (the paper names none)) against the size of P_train (number of training "
    "triplets, the paper's x axis; the linear scale is ours), P_test held fixed "
    f"({vs_paper('figure_svm_2', 'n_test_triplets', n_test)} test triplets). Features: "
    f"{text_feature_words(cfg['text_features'], 'webkb')} for a WebKB page (ours, "
    "svm.text_features; the paper states binary words only; see table_svm_1). Training sets "
    "are nested (the first n of one draw; our choice). Points: mean over seeds "
    f"{cfg['seeds']}; error bars: ± one standard deviation over the seeds (ours: the paper's "
    "text does not say how many runs it reports). Horizontal lines: the static baselines' best "
    "preprocessing variant (our addition). The paper's curve is for Topic+FacultyStudent on "
    "WebKB and levels off past "
    "150,000 training triplets"
    + (
        f"; this configuration goes to {max(cfg['n_train_triplets']):,}."
        if max(cfg["n_train_triplets"]) < 150_000
        else "."
    )
    + "".join(
        f" {n} is the offline stand-in for {NOTIONS[n].mimics} (Reuters-21578 corn/grain "
        "documents from Debian's weka package; corn, grain-not-corn, neither in the roles of "
        "faculty, student, course/project)."
        for n in notions
        if n in NOTIONS and NOTIONS[n].mimics
    )
    + (f" Not run (needs download or not configured): {', '.join(missing)}." if missing else ""),
    "",
    "Plotted values (test triplets satisfied in %):",
    "",
    table.to_markdown(index=False),
    "",
]
save_text(snakemake.output.md, "\n".join(lines))
