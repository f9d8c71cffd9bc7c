"""Rule images_caltech256: download (md5-pinned) and extract Caltech-256 once, list its images
with their class and shorter side (so that later rules can skip small images without reading them).
"""

import pandas as pd

from tripletbench.datasets.caltech256 import fetch_images, image_side, list_images
from tripletbench.harness.io import now, save_csv, start_log

start_log(snakemake.log[0])
print(f"[{now()}] Caltech-256 via the download route into {snakemake.params.cache}")
root = fetch_images(
    snakemake.params.cache, progressbar=False, mirror=snakemake.config["data"].get("mirror")
)
paths, names = list_images(root)
sides = [image_side(p) for p in paths]
df = pd.DataFrame({"path": [str(p) for p in paths], "class": names, "min_side": sides})
print(f"  {len(df)} images in {df['class'].nunique()} classes (clutter left out)")
save_csv(snakemake.output[0], df)
