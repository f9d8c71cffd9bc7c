"""Rule sample_triplets: class-based random triplets on the training part ('train', for the final
fit) and on the fit part of the validation split ('fit', for hyperparameter selection); each saved
as indices into its part, with the seed and the random stream that drew it."""

import numpy as np

from tripletbench.datasets.base import load_prepared
from tripletbench.datasets.constraints import protocol_triplets
from tripletbench.datasets.preprocess import PURPOSES
from tripletbench.harness.io import save_npz, settings_record, start_log

start_log(snakemake.log[0])
wc = snakemake.wildcards
n = snakemake.config[wc.experiment]["n_triplets"]
seed = int(wc.seed)
labels = load_prepared(snakemake.input.data, ["y"])["y"]
split = np.load(snakemake.input.split)
for part, t in protocol_triplets(labels, split, n, seed).items():
    purpose = f"constraints_{part}"
    print(
        f"{len(t)} triplets on {len(split[part])} '{part}' samples, seed {seed} "
        f"(stream {PURPOSES[purpose]})"
    )
    save_npz(
        snakemake.output[part],
        triplets=t,
        seed=seed,
        purpose=purpose,
        sampler="class_random",
        indices_into=part,
        **settings_record(snakemake.params.settings, snakemake.rule),
    )
