"""Rule split: per-class train/test split of one seed, and the fit/val split inside train."""

from tripletbench.datasets.base import load_prepared
from tripletbench.datasets.preprocess import make_split
from tripletbench.harness.io import save_npz, settings_record, start_log

start_log(snakemake.log[0])
cfg = snakemake.config[snakemake.wildcards.experiment]
seed = int(snakemake.wildcards.seed)
y = load_prepared(snakemake.input[0], ["y"])["y"]
s = make_split(y, seed, cfg["train_fraction"], cfg["fit_fraction"])
print({k: len(v) for k, v in s.items()})
save_npz(snakemake.output[0], seed=seed, **s, **settings_record(snakemake.params.settings))
