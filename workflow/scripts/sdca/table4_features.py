"""Rules table4_ground_truth and table4_background: the 297-d global descriptor of every image of
one MIRFLICKR archive, read from the zip in memory (tripletbench.datasets.imageclef_flickr,
tripletbench.datasets.global_descriptor). Ground truth: the MIRFLICKR-25000 images that carry exactly one of
the configured concepts, with that concept as class. Background: every image of one MIRFLICKR-1M
archive. Saves X, the classes (ground truth), the member names, their sha1 and the skipped files."""

import time

import numpy as np
from tqdm.auto import tqdm

from tripletbench.datasets.imageclef_flickr import ground_truth_items, image_members, zip_descriptors
from tripletbench.harness.io import now, save_npz, settings_record, start_log

start_log(snakemake.log[0])
cfg = snakemake.config["sdca_table4"]
inp = snakemake.input
print(f"[{now()}] {inp.images}")
if "annotations" in inp.keys():
    members, y, _ = ground_truth_items(inp.images, inp.annotations, cfg["concepts"])
    print(f"{len(members)} images carry exactly one of {len(cfg['concepts'])} concepts")
else:
    members, y = [name for _, name in image_members(inp.images)], None
t0 = time.process_time()
X, sha1, kept, skipped = zip_descriptors(
    inp.images,
    members,
    max_side=cfg["max_side"],
    progress=lambda it: tqdm(it, desc="descriptors", mininterval=30, disable=None),
)
cpu = time.process_time() - t0
print(
    f"{len(kept)} descriptors, {len(skipped)} undecodable images skipped; "
    f"{1000 * cpu / max(len(members), 1):.1f} ms of CPU per image"
)
extra = {}
if y is not None:
    keep = np.isin(np.asarray(members), np.asarray(kept))
    extra["y"] = np.asarray(y, dtype=str)[keep]
save_npz(
    snakemake.output[0],
    X=X,
    sha1=sha1,
    members=np.asarray(kept, dtype=str),
    skipped=np.asarray(skipped, dtype=str),
    cpu_s_per_image=cpu / max(len(members), 1),
    **extra,
    **settings_record(snakemake.params.settings, snakemake.rule),
)
