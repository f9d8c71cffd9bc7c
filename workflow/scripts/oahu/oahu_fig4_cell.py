"""Rule oahu_fig4_cell: kNN error rate of one method trained on a uniform subsample of n of the
Table 3 constraint stream (the OAHU paper's Figure 4a/b)."""

import json

import numpy as np
import pandas as pd

from tripletbench.datasets.rows import load_prepared_rows
from tripletbench.datasets.preprocess import rng
from tripletbench.harness.experiment import algorithm_of, fit_learner, grid_labels, params_for_label
from tripletbench.harness.io import save_csv, start_log
from tripletbench.studies.oahu.experiment import (
    constraint_stream,
    dev_test_split,
    knn_scores,
    pairs_per_triplet,
    utilization,
)
from tripletbench.harness.settings import settings_hash

start_log(snakemake.log[0])
w = snakemake.wildcards
cfg = snakemake.config["oahu"]["figure4"]
seed, method, n = int(w.seed), w.method, int(w.n)
# X is read only where indexed: the rows of the seed's subsample (chosen from the labels alone)
X, d = load_prepared_rows(snakemake.input[0], ["y"])
y = d["y"]
mcfg = cfg["methods"][method]
params = params_for_label(mcfg, grid_labels(mcfg)[0])
split = dev_test_split(y, seed, cfg.get("n_samples"), cfg.get("split", "shuffled"))
stream = constraint_stream(
    y[split["dev"]], cfg["n_seeds"], cfg["n_closure"], seed, "constraints_train"
)
if n > len(stream):
    raise ValueError(f"n = {n} exceeds the stream of {len(stream)} constraints")
keep = np.sort(rng(seed + 1000 * n, "constraints_fit").choice(len(stream), n, replace=False))
model, timing = fit_learner(
    algorithm_of(method, mcfg),
    params,
    stream[keep],
    X[split["dev"]],
    y[split["dev"]],
    seed,
    pairs_per_triplet=pairs_per_triplet(mcfg),
)
ev = knn_scores(
    model, X[split["test"]], y[split["test"]], X[split["dev"]], y[split["dev"]], cfg["k"]
)
print(f"{method} seed {seed} n {n}: error {ev['error_rate']:.4f}, fit {timing['fit_wall_s']:.1f} s")
row = {
    "dataset": w.dataset,
    "seed": seed,
    "algorithm": method,
    "n_constraints": n,
    "params": json.dumps(params, sort_keys=True),
    "error_rate": ev["error_rate"],
    "macro_f1": ev["macro_f1"],
    "constraint_utilization": utilization(model),
    **timing,
    "settings_hash": settings_hash(snakemake.params.settings),  # tripletbench.harness.settings
}
save_csv(snakemake.output[0], pd.DataFrame([row]))
