"""Rule split: per-class train/test split of one seed, and the fit/val split inside train."""

import numpy as np

from tripletbench.datasets.base import DataError, load_prepared
from tripletbench.datasets.preprocess import make_split
from tripletbench.harness.io import save_npz, settings_record, start_log

start_log(snakemake.log[0])
exp = snakemake.wildcards.experiment
cfg = snakemake.config[exp]
seed = int(snakemake.wildcards.seed)
y = load_prepared(snakemake.input[0], ["y"])["y"]
try:
    s = make_split(y, seed, cfg["train_fraction"], cfg["fit_fraction"])
except DataError as err:
    # a fraction so small (or large) that a class keeps fewer than 2 samples where a split
    # needs them: name the keys, the smallest class and the fractions that work
    smallest = int(np.unique(y, return_counts=True)[1].min())
    head = (
        f"{exp}.train_fraction = {cfg['train_fraction']} and {exp}.fit_fraction = "
        f"{cfg['fit_fraction']} cannot split {snakemake.wildcards.dataset} ({err}): its smallest "
        f"class has {smallest} samples; each class needs at least 2 training samples (for the "
        "fit/validation split) and 1 test sample"
    )
    if smallest < 3:
        raise DataError(
            f"{head}, so no fraction can split it: leave the class out of the dataset or "
            "choose another dataset"
        ) from None
    low = float(cfg["train_fraction"]) * smallest < 2
    raise DataError(
        f"{head}, so train_fraction x {smallest} must round to between 2 and {smallest - 1}. "
        + (
            f"Raise train_fraction (e.g. to {min(0.5, 2.5 / smallest):.2g} or more)"
            if low
            else f"Lower train_fraction (e.g. to {(smallest - 1.5) / smallest:.2g} or less)"
        )
    ) from None
print({k: len(v) for k, v in s.items()})
save_npz(snakemake.output[0], seed=seed, **s, **settings_record(snakemake.params.settings, snakemake.rule))
