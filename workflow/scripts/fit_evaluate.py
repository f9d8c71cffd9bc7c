"""Rules validate and test: fit one learner on one cell and evaluate mAP; tidy rows out.

validate: fit on the 'fit' part with its triplets, queries = 'val', database = 'fit'.
test: choose the grid point with the best validation mAP (first in grid order on ties), refit on
'train', queries = 'test', database = 'train' (the retrieval protocol of the OASIS and SDCA papers:
unseen queries rank the collection the metric was learned on).
"""
import json

import numpy as np
import pandas as pd

from harness.experiment import (evaluate_map, fit_learner, grid_labels, model_arrays,
                                model_scalars, params_for_label)
from harness.io import (config_hash, now, package_versions, peak_rss_mb, save_csv, save_npz,
                        start_log)

start_log(snakemake.log[0])
wc, stage = snakemake.wildcards, snakemake.params.stage
exp_cfg = snakemake.config[wc.experiment]
mcfg = exp_cfg["methods"][wc.method]
seed = int(wc.seed)
started = now()

if stage == "val":
    label = wc.params
    fit_part, query_part = "fit", "val"
else:
    fit_part, query_part = "train", "test"
    if snakemake.input.validation:
        val = pd.concat([pd.read_csv(p) for p in snakemake.input.validation])
        val = val[val.metric == "mAP"].set_index("params_label").loc[grid_labels(mcfg)]
        label = val.value.idxmax()
        print("validation mAP per grid point:\n" + val.value.to_string())
    else:
        label = grid_labels(mcfg)[0]
params = params_for_label(mcfg, label)
print(f"[{started}] {wc.method} {wc.dataset} seed {seed} {stage}: {params}")

data, split = np.load(snakemake.input.data), np.load(snakemake.input.split)
X, y = data["X"], data["y"]
Xf, yf = X[split[fit_part]], y[split[fit_part]]
Xq, yq = X[split[query_part]], y[split[query_part]]
triplets = np.load(snakemake.input.triplets)["triplets"]

model, timing = fit_learner(wc.method, params, triplets, Xf, yf, seed)
ev = evaluate_map(model, Xq, yq, Xf, yf)
print(f"  fit {timing['fit_wall_s']:.2f} s, mAP {ev['mAP']:.4f}")

base = {"table": wc.experiment, "dataset": wc.dataset, "seed": seed, "sampler": "class_random",
        "n_triplets": len(triplets), "algorithm": wc.method, "stage": stage,
        "params_label": label, "params": json.dumps(params, sort_keys=True)}
final = {"mAP": ev["mAP"], "queries_without_relevant": ev["queries_without_relevant"],
         **timing, "eval_wall_s": ev["eval_wall_s"], **model_scalars(model)}
rows = [{**base, "checkpoint": "final", "metric": k, "value": v} for k, v in final.items()]
trace = getattr(model, "trace_", None) or {}
for i, step in enumerate(trace.get("step", [])):
    rows += [{**base, "checkpoint": str(step), "metric": k, "value": trace[k][i]}
             for k in trace if k != "step"]
df = pd.DataFrame(rows)
df["config_hash"] = config_hash(exp_cfg)
df["versions"] = package_versions()
df["started_utc"] = started
df["peak_rss_mb"] = peak_rss_mb()
save_csv(snakemake.output[0] if stage == "val" else snakemake.output.rows, df)
if stage == "test":
    save_npz(snakemake.output.model, params=json.dumps(params), **model_arrays(model))
