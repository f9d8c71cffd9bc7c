"""Rule figure_svm_mds: the MDS plots of Schultz & Joachims (2003), section 5 (their "Table 2"):
all pairwise distances between the test documents projected to 2-D by classical (Torgerson)
MDS, coloured by topic, in three panels: a) the unweighted binary L2 distance, b) the learned
Topic distance, c) the learned Topic+FacultyStudent distance (svm.mds.notion and .notion_c;
offline, their Reuters stand-ins). The plotted numbers of each panel (eigenvalues, 2-D share,
documents beyond the axes, class centroids) go to ``tables/svm_mds.csv`` (one row per panel),
which the caption's table repeats. Classical MDS is tripletbench.studies.svm.experiment.classical_mds
(eigen-decomposition of the double-centred squared distances), not scikit-learn's SMACOF MDS."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from tripletbench.harness.io import save_csv, save_text, start_log
from tripletbench.studies.svm.paper import vs_paper
from tripletbench.harness.plots import display_name, robust_limits, save_figure
from tripletbench.harness.settings import settings_hash
from tripletbench.studies.svm.experiment import NOTIONS, classical_mds


def caption_table(data, titles, classes):
    """The caption's table, one row per panel, from the numbers of tables/svm_mds.csv: the
    eigenvalues, 2-D share, documents beyond the axes (with the largest |coordinate| per
    dimension) and the class centroids, at 3 significant digits."""

    def pair(a, b):
        return f"({a:.3g}, {b:.3g})"

    return pd.DataFrame(
        [
            {
                "panel": titles[n["panel"]],
                "eigenvalue_1": n["eigenvalue_1"],
                "eigenvalue_2": n["eigenvalue_2"],
                "explained_2d": n["explained_2d"],
                "beyond_axes": n["beyond_axes"],
                "beyond_axes_max": pair(n["max_abs_1"], n["max_abs_2"]),
                **{
                    f"centroid_{cls}": pair(n[f"centroid_{cls}_1"], n[f"centroid_{cls}_2"])
                    for cls in classes
                },
            }
            for n in data
        ]
    )


start_log(snakemake.log[0])
a = np.load(snakemake.input.topic, allow_pickle=False)
c = np.load(snakemake.input.topic_c, allow_pickle=False)
want = settings_hash(snakemake.params.run_settings)  # tripletbench.harness.settings: refuse stale runs
for path, d in ((snakemake.input.topic, a), (snakemake.input.topic_c, c)):
    got = str(d["settings_hash"]) if "settings_hash" in d.files else "none"
    if got != want:
        raise ValueError(
            f"{path} was made under other svm settings ({got}) than the config's ({want}); "
            "rerun rule svm_run (Snakemake's default rerun triggers do)"
        )
if not np.array_equal(a["mds_items"], c["mds_items"]):
    raise ValueError("the two MDS runs hold different test items (different splits or subsets)")
labels = a["mds_labels"].astype(str)
notion_b, notion_c, seed = str(a["notion"]), str(c["notion"]), int(a["seed"])
panels = [
    ("a", a["d2_unweighted"], f"a) unweighted binary L2 ({display_name(notion_b)})"),
    ("b", a["d2_learned"], f"b) learned: {display_name(notion_b)}"),
    ("c", c["d2_learned"], f"c) learned: {display_name(notion_c)}"),
]
classes = sorted(set(labels))
fig, axes = plt.subplots(1, 3, figsize=(13, 4.3), dpi=150)
data = []
for ax, (key, D2, title) in zip(axes, panels):
    Y, ev, explained = classical_mds(D2, 2)
    # robust axes: a few outlying documents (one page at x = -76 in panel a on WebKB) would
    # squash the rest into a corner; points beyond the limits are drawn on the frame as
    # triangles and counted in the caption
    (x0, x1), out_x = robust_limits(Y[:, 0])
    (y0, y1), out_y = robust_limits(Y[:, 1])
    outside = out_x | out_y
    Yc = np.column_stack([np.clip(Y[:, 0], x0, x1), np.clip(Y[:, 1], y0, y1)])
    # the largest class first and lighter, each smaller one over it (601 "neither" pages drawn
    # last hid the 46 corn and grain pages of panel a); colours by class name, as the legend
    sizes = {cls: int((labels == cls).sum()) for cls in classes}
    largest = max(classes, key=lambda c: sizes[c])
    for i, cls in sorted(enumerate(classes), key=lambda ic: -sizes[ic[1]]):
        m = labels == cls
        big = cls == largest and len(classes) > 1
        ax.scatter(Yc[m & ~outside, 0], Yc[m & ~outside, 1], s=5 if big else 9,
                   alpha=0.35 if big else 0.85, color=f"C{i}", zorder=1 if big else 2,
                   label=f"{cls} ({m.sum()})")
        ax.scatter(Yc[m & outside, 0], Yc[m & outside, 1], s=18, marker="^", color=f"C{i}",
                   edgecolors="k", linewidths=0.4, clip_on=False, zorder=3)
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    if outside.any():
        ax.text(0.01, 0.01, f"{outside.sum()} beyond the axes: ▲ on the frame", fontsize=6,
                transform=ax.transAxes)
    ax.set_title(f"{title}\n2-D share of positive eigenvalues: {explained:.1%}", fontsize=9)
    ax.set_xlabel("MDS dimension 1", fontsize=8)
    ax.set_ylabel("MDS dimension 2", fontsize=8)
    handles, names = ax.get_legend_handles_labels()  # the legend in class order
    order = sorted(range(len(names)), key=lambda k: names[k])
    ax.legend([handles[k] for k in order], [names[k] for k in order], fontsize=7, markerscale=2)
    ax.grid(alpha=0.3)
    numbers = {"panel": key, "notion": notion_c if key == "c" else notion_b, "learned": key != "a",
               "seed": seed, "n_documents": len(labels), "eigenvalue_1": ev[0],
               "eigenvalue_2": ev[1], "explained_2d": explained, "beyond_axes": int(outside.sum()),
               "max_abs_1": np.abs(Y[:, 0]).max(), "max_abs_2": np.abs(Y[:, 1]).max()}
    for cls in classes:  # class centroids (an eigenvector's sign is arbitrary: so is theirs)
        m = labels == cls
        numbers[f"n_{cls}"] = int(m.sum())
        numbers[f"centroid_{cls}_1"], numbers[f"centroid_{cls}_2"] = Y[m].mean(axis=0)
    data.append(numbers)
fig.suptitle(f"Classical MDS of {len(labels)} test documents, seed {seed}", fontsize=10)
fig.tight_layout()
save_figure(fig, snakemake.output.png, snakemake.output.pdf)
save_csv(snakemake.output.csv, pd.DataFrame(data))
stand_in = "".join(
    f" {n} is the offline stand-in for {NOTIONS[n].mimics} (Reuters-21578 corn/grain documents, "
    "Debian weka)."
    for n in dict.fromkeys([notion_b, notion_c])
    if n in NOTIONS and NOTIONS[n].mimics
)
n_test = len(a["test"])
c_words = vs_paper("figure_svm_mds", "C", float(a["C"]), f"C = {float(a['C']):g}")
text = [
    "# Classical MDS of the test documents: unweighted, learned Topic, learned "
    "Topic+FacultyStudent",
    "",
    f"{len(labels)} test documents"
    + (" (all of X_test, as the paper)" if len(labels) == n_test else f" of {n_test} (a random "
       "subset: our bound; the paper uses all of X_test)")
    + f", seed {seed}, coloured by topic; all pairwise squared distances embedded in 2-D by "
    "classical (Torgerson) MDS: eigen-decomposition of -1/2 J D2 J (D2 = squared distances, J the "
    "centring matrix), coordinates = top-2 eigenvectors x sqrt(eigenvalues); not scikit-learn's "
    "SMACOF MDS. Panels as the paper's: a) the unweighted binary Euclidean distance on the "
    "learner's features, b) the learned distance of the Topic notion, c) of the "
    "Topic+FacultyStudent notion (SVM-relative, eq. 8, A = I, "
    f"{c_words}, "
    f"{int(a['n_train_triplets']):,} training triplets; features as Table 1's, "
    "svm.text_features)." + stand_in,
    "",
    "Axes: each panel's limits are the 0.5% and 99.5% quantiles of its coordinates widened by "
    "25% of their range (ours: a few outlying documents would otherwise squash the rest); a "
    "document beyond them is drawn on the frame as a triangle (beyond_axes below, with the "
    "largest |coordinate| per dimension).",
    "",
    "Eigenvalues, 2-D share, documents beyond the axes and class centroids (the numbers: "
    "tables/svm_mds.csv, one row per panel):",
    "",
    caption_table(data, {key: title for key, _, title in panels}, classes).to_markdown(index=False),
    "",
]
save_text(snakemake.output.md, "\n".join(text))
