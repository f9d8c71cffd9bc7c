"""Rule sample_triplets: class-based random triplets on the training part ('train') or on the
fit part of the validation split ('fit'); saved as indices into that part, with the seed."""
import numpy as np

from datasets.constraints import check_triplets, sample_class_triplets
from datasets.preprocess import PURPOSES, rng
from harness.io import save_npz, start_log

start_log(snakemake.log[0])
wc = snakemake.wildcards
cfg = snakemake.config[wc.experiment]
seed, part = int(wc.seed), wc.part
y = np.load(snakemake.input.data)["y"][np.load(snakemake.input.split)[part]]
purpose = f"constraints_{part}"
t = check_triplets(sample_class_triplets(y, cfg["n_triplets"], rng(seed, purpose)), y)
print(f"{len(t)} triplets on {len(y)} '{part}' samples, seed {seed} (stream {PURPOSES[purpose]})")
save_npz(snakemake.output[0], triplets=t, seed=seed, purpose=purpose, sampler="class_random",
         indices_into=part)
