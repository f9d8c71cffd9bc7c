"""Rule images_features: one seed's image selection (per class n_train + n_test), its split, and
its features (raw pixels, or a bag of visual words whose codebook and idf come from that seed's
training images only). See tripletbench.datasets.caltech256.image_features and tripletbench.datasets.bovw."""

import numpy as np
import pandas as pd

from tripletbench.datasets.rows import load_prepared_rows
from tripletbench.datasets.bovw import save_features
from tripletbench.datasets.caltech256 import LazyImages, choose_classes, image_features, image_set
from tripletbench.harness.io import now, save_npz, settings_record, start_log

start_log(snakemake.log[0])
wc = snakemake.wildcards
cfg = snakemake.config["images"]
seed = int(wc.seed)
iset = image_set(wc.dataset)
print(f"[{now()}] {iset.name}, seed {seed}")
if iset.source == "fashion_mnist":
    # the selected images' rows only (image_features indexes images[i] per selected i)
    shape = None if iset.features == "pixels" else (28, 28)
    images, d = load_prepared_rows(snakemake.input[0], ["y", "classes"], row_shape=shape)
    y, classes = d["y"], d["classes"]
else:
    lst = pd.read_csv(snakemake.input[0])
    chosen = choose_classes(lst["class"], iset.n_classes)
    ccfg = cfg["caltech256"]
    ok = lst["class"].isin(chosen) & (lst["min_side"] >= ccfg["min_side"])
    print(
        f"  classes {list(chosen)}; {int(ok.sum())} images with a side >= {ccfg['min_side']} px, "
        f"{int((lst['class'].isin(chosen) & ~ok).sum())} skipped as too small"
    )
    lst = lst[ok]
    classes, y = np.unique(lst["class"].to_numpy(), return_inverse=True)
    images = LazyImages(lst["path"], ccfg["max_side"])
X, y_sel, selected, split, info = image_features(iset, images, y, seed, cfg)
save_features(
    snakemake.output.features,
    X,
    y_sel,
    classes=np.asarray(classes, dtype=str),  # unicode, not object: readable without pickles
    source_index=selected,
    seed=seed,
    info=pd.Series(info).to_json(),
    **settings_record(snakemake.params.settings, snakemake.rule),
)
save_npz(snakemake.output.split, seed=seed, **split, **settings_record(snakemake.params.settings, snakemake.rule))
