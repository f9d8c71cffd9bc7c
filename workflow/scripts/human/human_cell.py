"""Rule human_cell: one (set, method, seed) cell of the human-judgment table and learning curve
(tripletbench.studies.human.experiment.cell_rows): every fold of protocols (a) held-out answers and (b) held-out items,
every (fold, size) of the learning curve (c), and for material the publisher's split (d), on
every feature set; tidy rows, each with its seed and its protocol's folds digest (the same
folds for every method of the set)."""

import numpy as np

from tripletbench.studies.human import experiment as human
from tripletbench.harness.io import check_input_settings, now, save_csv, stamp_cell, start_log

start_log(snakemake.log[0])
cfg = snakemake.params.human
name, method = snakemake.wildcards.hset, snakemake.wildcards.method
seed = int(snakemake.wildcards.seed)
started = now()
print(f"[{started}] human judgments: {name}, {method}, seed {seed}")
j = human.load(name, snakemake.params.cache, snakemake.params.mirror, snakemake.params.allow_unpinned)
kinds = human.feature_sets(name, cfg["features"])
consumed = check_input_settings(  # each file made under this config's features settings
    dict(zip(kinds, snakemake.input.features)), dict.fromkeys(kinds, snakemake.params.inputs)
)
features = {}
for path, kind in zip(snakemake.input.features, kinds):
    with np.load(path) as f:
        if list(f["items"]) != list(np.asarray(j.items).astype(str)):
            raise ValueError(f"{path}: its items are not {name}'s (remake rule human_features)")
        features[kind] = human.normalize(f["X"], cfg["normalize"])
    print(f"  features {kind}: {features[kind].shape}")
folds, records = human.splits(j, cfg, seed)
for protocol, record in records.items():
    print(f"  protocol ({human.PROTOCOL_LETTERS[protocol]}): {record}")
rows = human.cell_rows(j, features, cfg, method, seed, folds)
rows.insert(0, "set", name)
rows.insert(1, "job", method)
rows["seed"] = seed
rows["folds_digest"] = [records[p]["digest"] for p in rows.protocol]
rows["route"] = snakemake.params.route
rows["data_source"] = " | ".join(j.provenance)[:2000]
rows["input_settings"] = consumed  # what the feature files recorded
rows["data_shortfall"] = " | ".join(j.shortfall)  # counts unlike the publisher's (opt-in only)
stamp_cell(rows, cfg, snakemake.params.settings, started)  # provenance columns (tripletbench.harness.io)
save_csv(snakemake.output.rows, rows)
print(rows[["protocol", "fold", "n_train", "scoring", "method", "features", "value", "fit_s"]]
      .to_string())
