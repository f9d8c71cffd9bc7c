"""Rule oahu_cell: one (experiment, dataset, seed, method) cell of the OAHU paper's Table 3
(also the Recall@K of Figure 7 and OAHU's alpha trace of Figure 4c): tidy CSVs."""

import pandas as pd

from tripletbench.datasets.rows import load_prepared_rows
from tripletbench.harness.io import config_hash, now, package_versions, peak_rss_mb, save_csv, start_log
from tripletbench.studies.oahu.experiment import (
    alpha_trace_rows,
    classification_rows,
    dev_test_split,
    retrieval_rows,
    torch_version,
)
from tripletbench.harness.settings import settings_hash

start_log(snakemake.log[0])
w = snakemake.wildcards
exp = snakemake.config["oahu"][w.experiment]
seed, method = int(w.seed), w.method
# X is read only where indexed: the rows of the seed's subsample (chosen from the labels alone)
X, d = load_prepared_rows(snakemake.input[0], ["y", "route"])
y = d["y"]
print(f"[{now()}] {w.experiment} {w.dataset} seed {seed} {method}: {X.shape}")
base = {
    "experiment": w.experiment,
    "dataset": w.dataset,
    "route": str(d["route"]),
    "config_hash": config_hash(exp),
    "settings_hash": settings_hash(snakemake.params.settings),  # tripletbench.harness.settings
    "versions": package_versions() + torch_version(),
}
rows, model = classification_rows(method, exp["methods"][method], X, y, seed, exp, base)
split = dev_test_split(y, seed, exp.get("n_samples"), exp.get("split", "shuffled"))
rec = retrieval_rows(model, X[split["test"]], y[split["test"]], exp["recall_ks"], {})
rows += [{**rows[0], "metric": f"recall@{r['K']}", "value": r["recall"]} for r in rec]
rows += [{**rows[0], "metric": "peak_rss_mb", "value": peak_rss_mb()}]
save_csv(snakemake.output.runs, pd.DataFrame(rows))
cell = {"dataset": w.dataset, "seed": seed, "algorithm": method,
        "settings_hash": base["settings_hash"]}
alpha = alpha_trace_rows(model, cell) if method == "OAHU" else []
save_csv(
    snakemake.output.alpha,
    pd.DataFrame(alpha, columns=[*cell, "step", "layer", "alpha"]),
)
