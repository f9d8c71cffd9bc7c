"""Rule fit_evaluate: validation, selection, refit and test of the cells of one (experiment,
dataset, method), one per seed (see tripletbench.harness.experiment); a seed whose inputs and
settings are unchanged since it was computed comes from the cell store
(tripletbench.harness.cells)."""

import time
from functools import lru_cache

import numpy as np
import pandas as pd

from tripletbench.datasets.base import load_prepared, verify_prepared
from tripletbench.datasets.bovw import load_features
from tripletbench.harness.cells import CellStore, cell_key, file_sha256
from tripletbench.harness.config import ConfigError
from tripletbench.harness.experiment import model_arrays, run_cell
from tripletbench.harness.io import (
    check_input_settings,
    now,
    save_csv,
    save_npz,
    stamp_cell,
    start_log,
)

start_log(snakemake.log[0])
wc, inp = snakemake.wildcards, snakemake.input
exp_cfg = snakemake.config[wc.experiment]
seeds = list(snakemake.params.seeds)
settings = snakemake.params.settings
store = CellStore(snakemake.params.store)
data_files = list(inp.data)  # one per seed (the same file where the seeds share it)


@lru_cache(maxsize=1)
def features(data_file: str):
    """X (dense, or CSR for the bag-of-words image sets) and y of a feature file, read once for
    consecutive seeds that share it."""
    data = load_prepared(data_file)
    return load_features(data), data["y"]


def compute(seed: int, data_file: str, i: int):
    """The rows (DataFrame) and model arrays of one seed's cell, and its own CPU seconds."""
    cpu0 = time.process_time()
    started = now()
    print(f"[{started}] {wc.method} on {wc.dataset}, seed {seed}")
    X, y = features(data_file)
    split = np.load(inp.split[i])
    base = {
        "table": wc.experiment,
        "dataset": wc.dataset,
        "seed": seed,
        "sampler": "class_random",
        "algorithm": wc.method,
    }
    try:
        rows, model = run_cell(
            wc.method,
            exp_cfg["methods"][wc.method],
            X,
            y,
            split,
            np.load(inp.triplets_fit[i])["triplets"],
            np.load(inp.triplets_train[i])["triplets"],
            seed,
            base,
            ks=range(1, int(exp_cfg.get("precision_at_k", 0)) + 1),
        )
    except (ValueError, np.linalg.LinAlgError) as err:
        # experiments with record_failures (the image sets: RCA's covariance is singular when
        # there are fewer training images than features) keep one "failed" row instead of
        # stopping the run
        if isinstance(err, ConfigError) or not exp_cfg.get("record_failures", False):
            raise  # a config the protocol cannot use is an error, never a "failed" row
        print(f"FAILED: {type(err).__name__}: {err}")
        fail = {**base, "stage": "test", "checkpoint": "final", "metric": "failed", "value": 1.0}
        rows = pd.DataFrame([{**fail, "params_label": "", "params": "{}", "error": str(err)}])
        return rows, {"params": "{}", "failed": str(err)}, started, time.process_time() - cpu0
    rows = pd.DataFrame(rows)
    params = rows.loc[rows.stage == "test", "params"].iloc[0]
    return rows, {"params": params, **model_arrays(model)}, started, time.process_time() - cpu0


digest = lru_cache(maxsize=None)(file_sha256)  # a file the seeds share is hashed once
cells, todo = {}, []
consumed = {}  # seed -> the settings hashes its split and triplet files record
for data_file in dict.fromkeys(data_files):
    verify_prepared(data_file)  # a corrupt data file is named as such before anything reads it
for i, seed in enumerate(seeds):
    parts = {"split": inp.split[i], "triplets_fit": inp.triplets_fit[i],
             "triplets_train": inp.triplets_train[i]}  # fmt: skip
    if "data" in snakemake.params.inputs:  # a feature file a job of the workflow made
        parts["data"] = data_files[i]
    consumed[seed] = check_input_settings(parts, snakemake.params.inputs)
    files = [data_files[i], inp.split[i], inp.triplets_fit[i], inp.triplets_train[i]]
    key = cell_key(settings, seed, [digest(f) for f in files])
    hit = store.get(seed, key)
    if hit is not None:
        when = hit[0].started_utc.iloc[0]
        print(f"seed {seed}: from the cell store (computed {when}; inputs and settings unchanged)")
        cells[seed] = hit
    else:
        todo.append((i, seed, key))
startup_cpu = time.process_time()  # imports and input hashes: shared by the seeds computed
for i, seed, key in todo:
    rows, arrays, started, own_cpu = compute(seed, data_files[i], i)
    # the cell's CPU: its own seed's, plus an equal share of the job's start-up (imports)
    stamp_cell(rows, exp_cfg, settings, started, cpu_s=own_cpu + startup_cpu / len(todo))
    rows["input_settings"] = consumed[seed]  # what the cell read (split, fit and train triplets)
    store.put(seed, key, rows, arrays)
    cells[seed] = rows, arrays
removed = store.prune()
if removed:
    print(f"cell store: removed {len(removed)} file(s) no cell of this job uses")
print(f"{len(todo)} of {len(seeds)} seed(s) computed, {len(seeds) - len(todo)} from the cell store")
save_npz(
    snakemake.output.model,
    **{f"seed{s}_{k}": v for s in seeds for k, v in cells[s][1].items()},
)
save_csv(snakemake.output.rows, pd.concat([cells[s][0] for s in seeds], ignore_index=True))
