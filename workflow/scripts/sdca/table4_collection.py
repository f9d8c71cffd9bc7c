"""Rule table4_collection: the ground truth and the background shards in one feature file
(labels: class codes, -1 for the background; background copies of ground-truth images dropped;
tripletbench.datasets.imageclef_flickr.assemble)."""

import numpy as np

from tripletbench.datasets.imageclef_flickr import assemble
from tripletbench.harness.io import save_npz, start_log

start_log(snakemake.log[0])


def read(path, keys):
    with np.load(path, allow_pickle=False) as f:
        return {k: f[k] for k in keys}


gt = read(snakemake.input.ground_truth, ["X", "y", "sha1"])
shards = [read(p, ["X", "sha1"]) for p in snakemake.input.background]
c = assemble(gt, shards)
n_bg = int((c["y"] < 0).sum())
print(
    f"{len(c['y']) - n_bg} ground-truth images in {len(c['classes'])} classes, {n_bg} background "
    f"images from {len(shards)} archive(s); {c['n_duplicates_dropped']} background copies of "
    "ground-truth images dropped"
)
save_npz(snakemake.output[0], **c)
