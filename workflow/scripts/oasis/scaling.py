"""Rule scaling_times: fit times against problem size for one seed (tripletbench.studies.sdca.curves.scaling)."""

import pandas as pd

from tripletbench.datasets.base import load_prepared
from tripletbench.studies.oasis.scaling import scaling
from tripletbench.harness.io import save_csv, start_log
from tripletbench.harness.settings import settings_hash

start_log(snakemake.log[0])
cfg = snakemake.config["figures"]
data = load_prepared(snakemake.input[0], ["X", "y"])
rows = scaling(
    data["X"],
    data["y"],
    int(snakemake.wildcards.seed),
    cfg["scaling_n_triplets"],
    cfg["scaling_n_samples"],
    cfg["scaling_triplets_per_sample"],
    cfg["scaling_lmnn"],
    cfg["oasis_C"],
    cfg["sdca_lam"],
)
rows = pd.DataFrame(rows)
rows["settings_hash"] = settings_hash(snakemake.params.settings)  # plots refuse stale rows
save_csv(snakemake.output[0], rows)
