"""Scale measurement of the SDCA paper's Table 4 protocol on synthetic 297-d features.

Not results: the features are random, so the mAP values say nothing about any method. What this
measures is the time and peak memory of each stage of the code path that Table 4's cells run
(:func:`tripletbench.datasets.imageclef_flickr.table4_split`, :func:`tripletbench.datasets.constraints.sample_class_triplets`,
:func:`tripletbench.harness.experiment.run_cell`: validation grid, refit, exact full-ranking mAP of the queries
over the whole database, streamed in query batches) at the paper's sizes: 500K training triplets,
a database of about one million items, 297-d (Wu et al., AAAI 2014, section "Evaluation on the
Large-scale Dataset").

Synthetic collection (our choice): ``n_ground_truth`` labelled items in ``n_classes`` classes
(class means drawn N(0, I), items = mean + N(0, ``noise``^2 I)) and ``n_background`` unlabelled
items (label -1) drawn around the origin with the same noise; everything float64, as the real
descriptors. Peak memory per stage is the largest resident set size (``/proc/self/statm``, sampled
every 20 ms by a thread) while the stage ran; the process-wide peak (``getrusage``) is reported too.
"""

from __future__ import annotations

import os
import threading
import time

import numpy as np
import pandas as pd

PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def rss_mb() -> float:
    """Resident set size of this process now, MiB (Linux ``/proc/self/statm``; 0 elsewhere)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * PAGE / 2**20
    except OSError:
        return 0.0


class Stage:
    """Context manager timing one stage: wall and CPU seconds, and the peak RSS while it ran
    (a sampling thread, every ``interval`` s; the numbers land in ``self.row``)."""

    def __init__(self, name: str, log=print, interval: float = 0.02, **info):
        self.name, self.log, self.interval, self.info = name, log, interval, info
        self.row: dict = {}

    def _sample(self):
        while not self._stop.wait(self.interval):
            self.peak = max(self.peak, rss_mb())

    def __enter__(self):
        self.peak = self.start_rss = rss_mb()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()
        self.t0, self.c0 = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        wall, cpu = time.perf_counter() - self.t0, time.process_time() - self.c0
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, rss_mb())
        self.row = {
            "stage": self.name,
            "wall_s": wall,
            "cpu_s": cpu,
            "peak_rss_mb": self.peak,
            "rss_at_start_mb": self.start_rss,
            **self.info,
        }
        self.log(f"{self.name}: {wall:.1f} s wall, {cpu:.1f} s CPU, peak RSS {self.peak:.0f} MiB")
        return False


def synthetic_collection(
    n_ground_truth: int,
    n_classes: int,
    n_background: int,
    d: int = 297,
    noise: float = 2.0,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """X (n_ground_truth + n_background, d) float64 and y (int64 class codes, -1 for the
    background), generated in blocks of 100,000 rows (module docstring)."""
    gen = np.random.default_rng([seed, 297])
    means = gen.standard_normal((n_classes, d))
    y = np.concatenate([np.arange(n_ground_truth) % n_classes, np.full(n_background, -1)]).astype(
        np.int64
    )
    X = np.empty((len(y), d))
    for lo in range(0, len(y), 100_000):
        hi = min(lo + 100_000, len(y))
        X[lo:hi] = noise * gen.standard_normal((hi - lo, d))
        lab = y[lo:hi]
        X[lo:hi][lab >= 0] += means[lab[lab >= 0]]
    return X, y


def run(cfg: dict, table4: dict, log=print) -> tuple[pd.DataFrame, dict]:
    """Every stage at the configured sizes. ``cfg``: the ``table4_scaling`` block
    (``n_ground_truth``, ``n_classes``, ``n_background``, ``d``, ``seed``, ``methods``: names of
    ``table4``'s methods, empty = all); ``table4``: the ``sdca_table4`` block (protocol fractions,
    ``n_triplets``, the methods' settings).

    Returns ``(stages, facts)``: one row per stage (``stage``, ``wall_s``, ``cpu_s``,
    ``peak_rss_mb``, ...; a method's row also has its fits' and evaluations' seconds and the
    synthetic mAP) and the sizes the protocol gave (queries, database, triplets, query batch).
    """
    from tripletbench.datasets.constraints import protocol_triplets
    from tripletbench.datasets.imageclef_flickr import table4_split
    from tripletbench.evaluation.retrieval import query_batch

    from tripletbench.harness.experiment import run_cell

    seed = int(cfg["seed"])
    rows = []

    with Stage("generate synthetic collection", log=log) as s:
        X, y = synthetic_collection(
            cfg["n_ground_truth"], cfg["n_classes"], cfg["n_background"], cfg["d"], seed=seed
        )
    rows.append(s.row)
    with Stage("split (Table 4 protocol)", log=log) as s:
        split = table4_split(
            y, seed, table4["train_fraction"], table4["fit_fraction"], table4["query_fraction"]
        )
    rows.append(s.row)
    with Stage("sample triplets (train and fit)", log=log) as s:
        trip = protocol_triplets(y, split, table4["n_triplets"], seed)
    rows.append(s.row)
    facts = {
        "n_items": len(y),
        "d": X.shape[1],
        "n_ground_truth": int((y >= 0).sum()),
        "n_train": len(split["train"]),
        "n_fit": len(split["fit"]),
        "n_val": len(split["val"]),
        "n_queries": len(split["query"]),
        "n_database": len(split["database"]),
        "n_triplets": len(trip["train"]),
        "queries_per_batch": query_batch(len(split["database"])),
    }
    log(str(facts))
    methods = cfg.get("methods") or list(table4["methods"])
    for m in methods:
        mcfg = table4["methods"][m]
        with Stage(f"cell {m}", log=log, method=m) as s:
            cell, _ = run_cell(
                m, mcfg, X, y, split, trip["fit"], trip["train"], seed, {"table": "table4_scaling"}
            )
        cell = pd.DataFrame(cell)
        final = cell[cell.checkpoint == "final"]

        def total(metric, stage_name):
            v = final[(final.metric == metric) & (final.stage == stage_name)].value
            return float(v.sum()) if len(v) else 0.0

        s.row.update(
            n_fits=int(final[final.metric == "fit_wall_s"].shape[0]),
            validation_fit_s=total("fit_wall_s", "val"),
            validation_eval_s=total("eval_wall_s", "val"),
            final_fit_s=total("fit_wall_s", "test"),
            final_fit_cpu_s=total("fit_cpu_s", "test"),
            test_map_eval_s=total("eval_wall_s", "test"),
            chosen=str(final[final.stage == "test"].params_label.iloc[0]),
            synthetic_mAP=total("mAP", "test"),
        )
        rows.append(s.row)
    return pd.DataFrame(rows), facts
