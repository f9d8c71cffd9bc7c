"""Rule fit_evaluate: validation, selection, refit and test of one cell (see tripletbench.harness.experiment)."""

import numpy as np
import pandas as pd

from tripletbench.datasets.base import load_prepared
from tripletbench.datasets.bovw import load_features
from tripletbench.harness.config import ConfigError
from tripletbench.harness.experiment import model_arrays, run_cell
from tripletbench.harness.io import now, save_csv, save_npz, stamp_cell, start_log

start_log(snakemake.log[0])
wc = snakemake.wildcards
exp_cfg = snakemake.config[wc.experiment]
seed = int(wc.seed)
started = now()
print(f"[{started}] {wc.method} on {wc.dataset}, seed {seed}")
data, split = load_prepared(snakemake.input.data), np.load(snakemake.input.split)
base = {
    "table": wc.experiment,
    "dataset": wc.dataset,
    "seed": seed,
    "sampler": "class_random",
    "algorithm": wc.method,
}
try:
    rows, model = run_cell(
        wc.method,
        exp_cfg["methods"][wc.method],
        load_features(data),  # dense X, or CSR for the bag-of-words image sets
        data["y"],
        split,
        np.load(snakemake.input.triplets_fit)["triplets"],
        np.load(snakemake.input.triplets_train)["triplets"],
        seed,
        base,
        ks=range(1, int(exp_cfg.get("precision_at_k", 0)) + 1),
    )
except (ValueError, np.linalg.LinAlgError) as err:
    # experiments with record_failures (the image sets: RCA's covariance is singular when there
    # are fewer training images than features) keep one "failed" row instead of stopping the run
    if isinstance(err, ConfigError) or not exp_cfg.get("record_failures", False):
        raise  # a config the protocol cannot use is an error, never a "failed" row
    print(f"FAILED: {type(err).__name__}: {err}")
    fail = {**base, "stage": "test", "checkpoint": "final", "metric": "failed", "value": 1.0}
    df = pd.DataFrame([{**fail, "params_label": "", "params": "{}", "error": str(err)}])
    stamp_cell(df, exp_cfg, snakemake.params.settings, started)
    save_csv(snakemake.output.rows, df)
    save_npz(snakemake.output.model, params="{}", failed=str(err))
    raise SystemExit(0)
df = stamp_cell(pd.DataFrame(rows), exp_cfg, snakemake.params.settings, started)
save_csv(snakemake.output.rows, df)
params = df.loc[df.stage == "test", "params"].iloc[0]
save_npz(snakemake.output.model, params=params, **model_arrays(model))
