"""Rule curves: training curves of one seed for a convergence figure (harness.curves)."""

import pandas as pd

from datasets.base import load_prepared
from harness.curves import oasis_variants, sdca_convergence
from harness.io import save_csv, start_log

start_log(snakemake.log[0])
cfg = snakemake.config["figures"]
seed, which = int(snakemake.wildcards.seed), snakemake.wildcards.curves
data = load_prepared(snakemake.input[0], ["X", "y"])
X, y = data["X"], data["y"]
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
save_csv(snakemake.output[0], pd.DataFrame(rows))
