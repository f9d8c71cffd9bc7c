"""Rule oahu_fig5_cell: face verification (the OAHU paper's Figure 5) for one (seed, method):
LFW attributes + View 2 folds on the download route with ``figure5.use_lfw``; otherwise the same
protocol on a class-labelled stand-in (folds of matched/mismatched pairs from its test half)."""

import numpy as np
import pandas as pd

from tripletbench.datasets.base import load_prepared
from tripletbench.datasets.preprocess import rng, split_per_class
from tripletbench.evaluation.verification import make_pair_folds
from tripletbench.harness.io import save_csv, start_log
from tripletbench.studies.oahu.experiment import subsample, verification_rows
from tripletbench.harness.settings import settings_hash

start_log(snakemake.log[0])
w = snakemake.wildcards
cfg = snakemake.config["oahu"]["figure5"]
seed, method = int(w.seed), w.method
if w.dataset == "lfw":
    from tripletbench.datasets.lfw import load_lfw

    lfw = load_lfw(
        snakemake.params.cache_dir,
        snakemake.params.allow_unpinned,
        mirror=snakemake.config["data"].get("mirror"),
    )
    print(f"LFW: {lfw['X'].shape}, {lfw['dropped']} pairs without attributes dropped")
    v2 = lfw["view2"]
    data = {"X": lfw["X"], "y": lfw["y"], "train": np.arange(len(lfw["y"])), **v2}
    # View 1 and View 2 pairs are banned from the constraints; the folds are View 2's
    data["banned"] = np.concatenate([lfw["view1"]["pairs"], v2["pairs"]])
else:
    d = load_prepared(snakemake.input[0], ["X", "y"])
    X, y = d["X"], d["y"]
    pool = subsample(y, cfg.get("n_samples"), rng(seed, "split"))
    tr, te = split_per_class(y[pool], 0.5, rng(seed, "split"))
    train, test = pool[tr], pool[te]
    folds = make_pair_folds(y[test], cfg["n_folds"], cfg["n_pairs"], rng(seed, "validation_split"))
    data = {
        "X": X,
        "y": y,
        "train": train,
        "pairs": test[folds["pairs"]],
        "same": folds["same"],
        "fold": folds["fold"],
    }
base = {"dataset": w.dataset, "settings_hash": settings_hash(snakemake.params.settings)}
auc, roc = verification_rows(method, cfg["methods"][method], data, seed, cfg, base)
save_csv(snakemake.output.auc, pd.DataFrame(auc))
save_csv(snakemake.output.roc, pd.DataFrame(roc))
