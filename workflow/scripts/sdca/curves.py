"""Rule curves: training curves of one seed for a convergence figure (tripletbench.studies.sdca.curves)."""

import numpy as np
import pandas as pd
import scipy.sparse as sp

from tripletbench.datasets.base import load_prepared
from tripletbench.datasets.bovw import load_features
from tripletbench.studies.sdca.curves import oasis_variants, sdca_convergence
from tripletbench.harness.io import check_input_settings, save_csv, start_log
from tripletbench.harness.settings import settings_hash

start_log(snakemake.log[0])
cfg = snakemake.config["figures"]
seed, which = int(snakemake.wildcards.seed), snakemake.wildcards.curves
data = load_prepared(snakemake.input[0])  # a prepared dataset, or an image set's features
consumed = "-"  # a prepared dataset records no settings
if snakemake.params.inputs:  # an image set's features: made under this config's settings
    consumed = check_input_settings({"data": snakemake.input[0]}, {"data": snakemake.params.inputs})
X, y = load_features(data), data["y"]
X = np.asarray(X.toarray() if sp.issparse(X) else X, dtype=np.float64)
norm = cfg.get("normalize", "l2")
print(
    f"{which}, seed {seed}: {cfg['dataset']} ({len(y)} samples, normalize={norm}), "
    f"{cfg['n_triplets']} triplets"
)
if which == "sdca_1":
    rows = sdca_convergence(
        X, y, seed, cfg["n_triplets"], cfg["oasis_C"], cfg["sdca_lam"], normalize=norm
    )
else:
    rows = oasis_variants(
        X,
        y,
        seed,
        cfg["n_triplets"],
        cfg["oasis_C"],
        cfg["oasis_variants"],
        cfg["n_queries"],
        cfg["n_database"],
        normalize=norm,
    )
rows = pd.DataFrame(rows)
rows["settings_hash"] = settings_hash(snakemake.params.settings)  # plots refuse stale rows
rows["input_settings"] = consumed
save_csv(snakemake.output[0], rows)
