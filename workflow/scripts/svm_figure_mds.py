"""Rule figure_svm_mds: classical (Torgerson) MDS of test documents under the unweighted
(binary Euclidean) distance and under the learned distance, coloured by class; after the MDS
pictures of Schultz & Joachims (2003). Classical MDS is computed by harness.svm_experiment
(eigen-decomposition of the double-centred squared distances), not scikit-learn's SMACOF MDS."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from harness.io import atomic_path, save_text, start_log
from harness.svm_experiment import classical_mds

start_log(snakemake.log[0])
d = np.load(snakemake.input[0], allow_pickle=False)
labels = d["labels"].astype(str)
notion, seed = str(d["notion"]), int(d["seed"])
classes = sorted(set(labels))
fig, axes = plt.subplots(1, 2, figsize=(9, 4), dpi=150)
rows = []
for ax, key, title in zip(
    axes,
    ("d2_unweighted", "d2_learned"),
    ("unweighted (binary Euclidean)", "learned (SVM-relative)"),
):
    Y, ev, explained = classical_mds(d[key], 2)
    for i, c in enumerate(classes):
        m = labels == c
        ax.scatter(Y[m, 0], Y[m, 1], s=8, alpha=0.7, color=f"C{i}", label=f"{c} ({m.sum()})")
    ax.set_title(f"{title}\n2-D share of positive eigenvalues: {explained:.1%}", fontsize=9)
    ax.set_xlabel("MDS dimension 1")
    ax.set_ylabel("MDS dimension 2")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    rows.append(
        {
            "distance": key[3:],
            "eigenvalue_1": ev[0],
            "eigenvalue_2": ev[1],
            "explained_2d": explained,
        }
    )
    for c in classes:
        m = labels == c
        rows[-1][f"centroid_{c}"] = f"({Y[m, 0].mean():.3g}, {Y[m, 1].mean():.3g})"
fig.suptitle(f"Classical MDS of {len(labels)} test items, {notion}, seed {seed}", fontsize=10)
fig.tight_layout()
for path in (snakemake.output.png, snakemake.output.pdf):
    with atomic_path(path) as tmp:
        fig.savefig(tmp, format=str(path).rsplit(".", 1)[1])
plt.close(fig)
stand_in = (
    " reuters_topic is the offline stand-in for WebKB (Reuters-21578 corn/grain documents, "
    "Debian weka)."
    if notion.startswith("reuters")
    else ""
)
text = [
    "# Classical MDS of test documents: unweighted vs learned distance",
    "",
    f"{len(labels)} random test items of {notion} (seed {seed}; up to an equal number per "
    "class), embedded in 2-D by classical "
    "(Torgerson) MDS: eigen-decomposition of -1/2 J D2 J (D2 = squared distances, J the "
    "centring matrix), coordinates = top-2 eigenvectors x sqrt(eigenvalues); not scikit-learn's "
    f"SMACOF MDS. Learned distance: SVM-relative (eq. 8, A = I, C = {float(d['C'])}) fitted on "
    f"{int(d['n_train_triplets'])} training triplets; it ignores the words whose weight is 0."
    + stand_in,
    "",
    "Eigenvalues, 2-D share and class centroids:",
    "",
    pd.DataFrame(rows).to_markdown(index=False),
    "",
]
save_text(snakemake.output.md, "\n".join(text))
