"""Rule figure_svm_c_sweep: Schultz & Joachims (2003), Figure 2's learning curve (test triplets
satisfied against the number of training triplets, nested sets) for each C of ``svm.c_sweep``
and each vector scale (tripletbench.studies.svm.sweeps), one panel per scale, a line per C; the paper's
Table 1 value of the notion as a dotted line. It shows where a curve that falls with more
triplets comes from: eq. 8 weighs the sum of the slacks by C, and that sum grows with the number
of triplets, so at a fixed C more triplets mean less regularisation."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

from tripletbench.studies.svm.captions import VECTOR_SCALE_WORDS
from tripletbench.harness.io import save_csv, save_text, start_log
from tripletbench.studies.svm.paper import vs_paper
from tripletbench.harness.plots import display_name, save_figure
from tripletbench.harness.tables import collect, paper_frame

start_log(snakemake.log[0])
cfg = snakemake.config["svm"]
sweep = cfg["c_sweep"]
notion = sweep["notion"]
paper = paper_frame(snakemake.params.paper_rows)
ref = paper[(paper.dataset == notion) & (paper.method == "SVM-relative")].value
scales = list(sweep["C"])
fig, axes = plt.subplots(1, len(scales), figsize=(4.4 * len(scales), 3.4), dpi=150, squeeze=False)
if snakemake.input.runs:
    cell = ("sweep_variant", "notion", "seed")
    runs = collect(snakemake.input.runs, "svm_sweep_run", cell=cell)
    want = snakemake.params.run_hashes  # variant -> the settings hash its cells must carry
    bad = runs[runs.settings_hash.astype(str) != runs.sweep_variant.map(want)]
    if len(bad):
        cells = sorted(set(zip(bad.sweep_variant, bad.seed)))
        raise ValueError(
            f"svm C sweep: {len(cells)} cell(s) were made under other settings than the config's; "
            "refused. Rerun rule svm_sweep_run: " + "; ".join(f"{v} seed {s}" for v, s in cells)
        )
    svm = runs[runs.method == "SVM-relative"]
    curve = (
        svm.groupby(["scale", "C", "n_train_triplets"])
        .agg(
            mean=("triplet_accuracy", "mean"),
            std=("triplet_accuracy", "std"),
            n_seeds=("seed", "nunique"),
            solve_s=("solve_s", "mean"),
            status=("solver_status", lambda s: ";".join(sorted(set(s)))),
        )
        .reset_index()
    )
else:
    curve = pd.DataFrame(columns=["scale", "C", "n_train_triplets", "mean", "std", "n_seeds"])
cmap = plt.get_cmap("viridis")
for ax, scale in zip(axes.ravel(), scales):
    Cs = sorted(float(c) for c in sweep["C"][scale])
    for i, C in enumerate(Cs):
        c = curve[(curve.scale == scale) & (curve.C == C)].sort_values("n_train_triplets")
        if not len(c):
            continue
        is_table1 = C == float(cfg["C"]) and scale == cfg["text_features"]["scale"]
        ax.errorbar(
            c.n_train_triplets,
            100 * c["mean"],
            yerr=100 * c["std"].fillna(0.0),
            color=cmap(0.85 * i / max(len(Cs) - 1, 1)),
            marker="o",
            ms=3,
            capsize=2,
            lw=2.2 if is_table1 else 1.2,
            label=f"C = {C:g}" + (" (Table 1)" if is_table1 else ""),
        )
    if len(ref):
        ax.axhline(100 * ref.iloc[0], color="k", ls=":", lw=1, label="paper, Table 1")
    words = VECTOR_SCALE_WORDS[scale]
    ax.set_title(f"{display_name(notion)}\nscale: {scale} ({words})", fontsize=8)
    ax.set_xlabel("size of P_train (number of training triplets)", fontsize=8)
    ax.set_ylabel("P_test satisfied (%)", fontsize=8)
    ax.ticklabel_format(axis="x", style="sci", scilimits=(0, 4))
    ax.grid(alpha=0.3)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=6)
    else:
        ax.text(0.5, 0.5, "not run: needs WebKB", ha="center", va="center", transform=ax.transAxes)
fig.tight_layout()
save_figure(fig, snakemake.output.png, snakemake.output.pdf)
curve["route"] = snakemake.params.route
save_csv(snakemake.output.csv, curve)
table = curve.copy()
for col in ("mean", "std"):
    table[col] = (100 * pd.to_numeric(table[col])).round(2)
tf = cfg["text_features"]
lines = [
    "# Schultz & Joachims (2003), Figure 2 for several C and vector scales",
    "",
    (
        "Percentage of P_test satisfied ("
        f"{vs_paper('figure_svm_2', 'n_test_triplets', cfg['n_test_triplets'])} test triplets) "
        "by SVM-relative "
        f"(eq. 8, A = I, solver {cfg['solver']}) on {display_name(notion)} against the size of "
        "P_train (nested training sets), mean over seeds "
        f"{sweep['seeds']} with ± one standard deviation; one panel per scale of each "
        "document's binary vector, one line per C ("
        + "; ".join(f"{k}: {', '.join(f'{c:g}' for c in v)}" for k, v in sweep["C"].items())
        + f"); page reading {tf['reading']}, "
        f"{'lower-cased' if tf['lowercase'] else 'case kept'} (svm.text_features). The paper "
        "states C = 1 and no scale; the other C values and scales are ours, drawn to show what "
        "eq. 8 does as P_train grows: its slack term is C times a sum over the training "
        "triplets, so at a fixed C more triplets weigh the fit more against the regulariser "
        "||w||^2 / 2. The thick line is Table 1's setting; the dotted line the paper's Table 1 "
        "value of this notion."
    ),
    "",
    "Plotted values (test triplets satisfied in %; mean solve seconds and solver status):",
    "",
    table.to_markdown(index=False) if len(table) else "Not run: the sweep needs WebKB.",
    "",
]
save_text(snakemake.output.md, "\n".join(lines))
print(table.to_string())
