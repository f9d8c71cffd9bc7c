"""Rule human_features: one feature set of one human-judgment set's items (an image feature set of
tripletbench.datasets.human_features or the set's own, as its HUMAN_SET declares: one float64
row per item, in the collection's item order), as computed (not normalised; the cells
normalise)."""

import numpy as np

from tripletbench.studies.human import experiment as human
from tripletbench.harness.io import now, save_npz, settings_record, start_log

start_log(snakemake.log[0])
name, kind = snakemake.wildcards.hset, snakemake.wildcards.features
print(f"[{now()}] {name}: item features {kind}")
j = human.load(name, snakemake.params.cache, snakemake.params.mirror, snakemake.params.allow_unpinned)
X = np.asarray(human.item_features(name, j, kind), dtype=np.float64)
print(f"  {X.shape[0]} items x {X.shape[1]} dimensions of {kind}")
save_npz(
    snakemake.output[0],
    X=X,
    items=np.asarray(j.items).astype(str),
    **settings_record(snakemake.params.settings, snakemake.rule),
)
