"""Rule table4_split: the SDCA paper's Table 4 protocol for one seed (train/test 60/40, fit/val
80/20 inside train, 10% of the test set as queries; the rest of the test set and every background
image form the searched database: tripletbench.datasets.imageclef_flickr.table4_split)."""

from tripletbench.datasets.base import load_prepared
from tripletbench.datasets.imageclef_flickr import table4_split
from tripletbench.harness.io import save_npz, settings_record, start_log

start_log(snakemake.log[0])
cfg = snakemake.config["sdca_table4"]
seed = int(snakemake.wildcards.seed)
y = load_prepared(snakemake.input[0], ["y"])["y"]
s = table4_split(y, seed, cfg["train_fraction"], cfg["fit_fraction"], cfg["query_fraction"])
print({k: len(v) for k, v in s.items()})
save_npz(snakemake.output[0], seed=seed, **s, **settings_record(snakemake.params.settings, snakemake.rule))
