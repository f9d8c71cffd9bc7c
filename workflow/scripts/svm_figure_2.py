"""Rule figure_svm_2: Schultz & Joachims (2003), Fig. 2: test triplet accuracy of SVM-relative
against the number of training triplets (mean ± std over seeds), the static baselines as
horizontal lines, one panel per notion of distance."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

from harness.io import atomic_path, save_text, start_log

start_log(snakemake.log[0])
cfg = snakemake.config["svm"]
runs = pd.concat([pd.read_csv(p) for p in snakemake.input.runs], ignore_index=True)
notions = [n for n in list(cfg["text_notions"]) + list(cfg["datasets"]) if n in set(runs.notion)]
summary = (
    runs.groupby(["notion", "method", "n_train_triplets"])
    .triplet_accuracy.agg(["mean", "std", "count"])
    .reset_index()
    .rename(columns={"count": "n_seeds"})
)
summary["std"] = summary["std"].fillna(0.0)
ncol = min(4, len(notions))
nrow = -(-len(notions) // ncol)
fig, axes = plt.subplots(nrow, ncol, figsize=(3.4 * ncol, 2.9 * nrow), dpi=150, squeeze=False)
styles = {"Binary": "--", "TFIDF": ":", "Eucl": "-."}
for ax, notion in zip(axes.ravel(), notions):
    s = summary[summary.notion == notion]
    svm = s[s.method == "SVM-relative"].sort_values("n_train_triplets")
    ax.errorbar(
        svm.n_train_triplets,
        100 * svm["mean"],
        yerr=100 * svm["std"],
        marker="o",
        ms=3,
        capsize=2,
        label="SVM-relative (learned)",
    )
    for _, r in s[s.method != "SVM-relative"].iterrows():
        ax.axhline(
            100 * r["mean"],
            ls=styles.get(r.method, "-"),
            color="gray",
            lw=1.2,
            label=f"{r.method} (static)",
        )
    ax.set_xscale("log")
    ax.set_title(notion + (" (stand-in)" if notion.startswith("reuters") else ""), fontsize=9)
    ax.set_xlabel("number of training triplets", fontsize=8)
    ax.set_ylabel("test triplets satisfied (%)", fontsize=8)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=6)
for ax in axes.ravel()[len(notions) :]:
    ax.axis("off")
fig.tight_layout()
for path in (snakemake.output.png, snakemake.output.pdf):
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=str(path).rsplit(".", 1)[1])
plt.close(fig)
missing = [n for n in cfg["text_notions"] if n not in notions]
table = summary.copy()
table["mean"] = (100 * table["mean"]).round(2)
table["std"] = (100 * table["std"]).round(2)
lines = [
    "# Schultz & Joachims (2003), Fig. 2: learning curves",
    "",
    f"Test triplets satisfied (%) by SVM-relative (eq. 8, A = I, C = {cfg['C']}) against the "
    "number of training triplets (nested sets: the first n of one draw), mean ± std (error bars) "
    f"over seeds {cfg['seeds']}; horizontal lines: static Euclidean baselines (Binary, TFIDF "
    "for text; Eucl for the class-labelled sets). reuters_topic is the offline stand-in for "
    "WebKB (Reuters-21578 corn/grain documents from Debian's weka package)."
    + (f" Not run (needs download): {', '.join(missing)}." if missing else ""),
    "",
    "Plotted values (test triplet accuracy in %):",
    "",
    table.to_markdown(index=False),
    "",
]
save_text(snakemake.output.md, "\n".join(lines))
