"""Protocols of the OAHU paper's experiments (Gao et al., WWW 2019, section 4).

* Classification (Table 3, Figure 4): shuffle, 1:1 development/test split (``split``), a constraint
  stream of class-based seed triplets plus their transitive closure drawn on the development half
  (section 4.3.2: 5,000 + 5,000), each learner fitted on the stream, kNN on the test half with the
  development half as the reference set; kNN error rate, macro F1 and constraint utilization U.
  Hyperparameter grids (OAHU's tau) are chosen by k-fold cross-validation on the development half
  (section 4.3.2: 10-fold; config ``cv_folds``) or, when ``cv_folds`` is not set, on one 80/20
  validation split of it (a bounded stand-in for the CV).
* Verification (Figure 5): a learner trained on triplets of a training part, then pairs of
  10 folds x (300 matched + 300 mismatched), distances normalised to [0, 1], ROC and AUC per fold.
  The training constraints never contain an evaluation pair.
* Retrieval (Figure 7): Recall@K of test queries against the test set itself (query excluded),
  the deep-metric-learning protocol the paper follows.

All learners are built by :func:`tripletbench.harness.experiment.fit_learner` (constraint conversion per
``constraint_kind``); a pair learner gets one pair per triplet of the stream by default
(:func:`pairs_per_triplet`), so every learner sees the paper's count of constraints. Baselines
rank neighbours by their ``similarity_matrix`` (bilinear: highest x^T W y; Mahalanobis: smallest
d_M). OAHU deploys by its own rules (section 3.6): kNN by
``knn_classify`` (eqs. 23-25), retrieval by ``retrieve`` (eq. 27), verification by
``verification_distance`` (eq. 26); with ``deployment="combined"`` those use one distance
sum_l alpha_l D_l instead (a variant, not the paper's). Seeds draw from
``tripletbench.datasets.preprocess.rng(seed, purpose)``.
"""

from __future__ import annotations

import json
import time

import numpy as np

from tripletbench.datasets.constraints import seeds_plus_closure
from tripletbench.datasets.preprocess import rng, split_per_class
from tripletbench.evaluation.classification import error_rate, knn_predict, macro_f1
from tripletbench.evaluation.retrieval import recall_at_k

from tripletbench.harness.experiment import (
    algorithm_of,
    fit_learner,
    grid_labels,
    params_for_label,
)


def subsample(y: np.ndarray, n: int | None, generator: np.random.Generator) -> np.ndarray:
    """Indices of a class-stratified random subsample of size about ``n`` (all if None/too big),
    in random order (the shuffle of the protocol)."""
    y = np.asarray(y)
    if n is None or n >= len(y):
        return generator.permutation(len(y))
    keep, _ = split_per_class(y, n / len(y), generator)
    return generator.permutation(keep)


SPLITS = ("shuffled", "stratified")


def dev_test_split(
    y: np.ndarray, seed: int, n_samples: int | None = None, split: str = "shuffled"
) -> dict:
    """Shuffle (optionally subsample) and split 1:1 into development and test halves.

    ``split``: "shuffled" (the OAHU paper, section 4.3.2: each dataset is shuffled, then divided
    1:1 into development and test sets; here the first half of the shuffled rows, rounded up, is
    the development set) or "stratified" (ours: 1:1 within each class). Returns int64 index
    arrays into ``y``: ``dev``, ``test``, and inside dev ``fit`` / ``val`` (80/20 per class) for
    choosing hyperparameters (tau). Raises ``ValueError`` for an
    unknown ``split`` and :class:`~tripletbench.datasets.base.DataError` for a class with fewer than two
    development samples (no triplet, no validation part)."""
    from tripletbench.datasets.base import DataError

    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
    g = rng(seed, "split")
    pool = subsample(y, n_samples, g)
    if split == "stratified":
        dev_pos, test_pos = split_per_class(y[pool], 0.5, g)
        dev, test = pool[dev_pos], pool[test_pos]
    else:
        half = (len(pool) + 1) // 2
        dev, test = np.sort(pool[:half]), np.sort(pool[half:])
        classes = np.unique(y[pool])
        few = [c for c in classes.tolist() if np.count_nonzero(y[dev] == c) < 2]
        if few:
            raise DataError(
                f"the shuffled 1:1 split (seed {seed}) leaves class(es) {few} with fewer than two "
                "development samples; raise n_samples or use split: stratified"
            )
    fit_pos, val_pos = split_per_class(y[dev], 0.8, rng(seed, "validation_split"))
    return {"dev": dev, "test": test, "fit": dev[fit_pos], "val": dev[val_pos]}


def constraint_stream(y_part: np.ndarray, n_seeds: int, n_closure: int, seed: int, purpose: str):
    """Seeds + transitive closure (``tripletbench.datasets.constraints.seeds_plus_closure``) on one part."""
    return seeds_plus_closure(y_part, n_seeds, n_closure, rng(seed, purpose))


def pairs_per_triplet(mcfg: dict) -> int:
    """Pairs a pair learner (LEGO, RDML) gets per triplet of the stream: the method's
    ``pairs_per_triplet``, default 1. The OAHU paper (section 4.3.2) gives every learner 5,000 seed
    + 5,000 closure constraints, "pairwise or triplet", so a pair learner gets as many pairs as
    the stream has triplets (half similar, :func:`tripletbench.datasets.constraints.triplets_to_pairs`); 2 (both
    pairs of every triplet, twice the constraints) is our former rule."""
    return int(mcfg.get("pairs_per_triplet", 1))


def utilization(model) -> float:
    """Constraint utilization U: fraction of the online steps that changed the model (the
    learner's trace at its last checkpoint); NaN for a learner without a trace."""
    tr = getattr(model, "trace_", None) or {}
    u = tr.get("utilization", [])
    return float(u[-1]) if len(u) else float("nan")


def knn_scores(model, X_test, y_test, X_ref, y_ref, k: int) -> dict:
    """kNN error rate and macro F1 of ``model`` (test queries, reference neighbours): OAHU with
    its section 3.6.1 rule (eqs. 23-25) also gives ``knn_error_layer{l}``, the error of each
    layer's own candidates (eq. 23 with that layer alone: a diagnostic, same pass); OAHU-combined
    and the baselines take the majority vote of the k most similar under ``similarity_matrix``."""
    t0 = time.perf_counter()
    extra = {}
    if getattr(model, "deployment", None) == "layers":
        classes, per = model.knn_class_scores(X_test, X_ref, y_ref, k, per_layer=True)
        pred = classes[np.argmax(per.sum(axis=0), axis=1)]  # eq. 25
        extra = {
            f"knn_error_layer{l}": error_rate(y_test, classes[np.argmax(p, axis=1)])
            for l, p in enumerate(per)
        }
    else:
        pred = knn_predict(model.similarity_matrix, X_test, X_ref, y_ref, k=k)
    return {
        "error_rate": error_rate(y_test, pred),
        "macro_f1": macro_f1(y_test, pred),
        "eval_wall_s": time.perf_counter() - t0,
        **extra,
    }


def heldout_triplet_stats(
    model, X, y_test_part, test_idx, seed: int, n: int = 5000, chunk: int = 1000
) -> dict:
    """Diagnostics on ``n`` class-based triplets of the test half (anchor and positive of one
    class, negative of another; a child stream of the "constraints_train" seed):
    ``test_triplet_accuracy``, the fraction ``model`` orders correctly (``model.score``:
    s(a, p) > s(a, n)), and, for a model with ``pair_distance`` (OAHU: sum_l alpha_l D_l),
    ``test_mean_d_pos`` / ``test_mean_d_neg``, the mean distance of the (a, p) and (a, n) pairs.

    The triplets' points are gathered ``chunk`` triplets at a time: all 5,000 at once as an
    (n, 3, d) array, with the copies ``score`` and ``pair_distance`` make of it, were the peak
    of an OAHU Table 3 job (329 MB of Python allocations at d = 784, measured 2026-11-27). The
    accuracy is the same count over n, the distances the same per-pair values averaged once
    (for a float64 network; a float32 one's distances move at float32 rounding with the batch
    shape, 1.5e-8 relative measured)."""
    from tripletbench.datasets.constraints import sample_class_triplets

    child = rng(seed, "constraints_train").bit_generator.seed_seq.spawn(1)[0]
    tri = sample_class_triplets(y_test_part, n, np.random.default_rng(child))
    X_test = X[test_idx]
    correct, d_pos, d_neg = 0, [], []
    for lo in range(0, len(tri), chunk):
        pts = X_test[tri[lo : lo + chunk]]  # (m, 3, d)
        correct += int(round(float(model.score(pts)) * len(pts)))  # score = correct / m
        if hasattr(model, "pair_distance"):
            d_pos.append(model.pair_distance(pts[:, [0, 1]]))
            d_neg.append(model.pair_distance(pts[:, [0, 2]]))
    out = {"test_triplet_accuracy": correct / len(tri)}
    if d_pos:
        out["test_mean_d_pos"] = float(np.concatenate(d_pos).mean())
        out["test_mean_d_neg"] = float(np.concatenate(d_neg).mean())
    return out


def validation_parts(y: np.ndarray, split: dict, seed: int, cv_folds: int | None) -> list:
    """(fit, val) index pairs inside the development half for choosing a grid point: the
    ``cv_folds`` folds of a class-stratified k-fold split of ``split["dev"]`` (section 4.3.2:
    10-fold CV), or the one 80/20 split ``(split["fit"], split["val"])`` when ``cv_folds`` is None.
    """
    if not cv_folds:
        return [(split["fit"], split["val"])]
    from sklearn.model_selection import StratifiedKFold

    dev = split["dev"]
    state = int(rng(seed, "validation_split").integers(2**31 - 1))
    folds = StratifiedKFold(int(cv_folds), shuffle=True, random_state=state)
    return [(dev[a], dev[b]) for a, b in folds.split(np.zeros(len(dev)), y[dev])]


def select_and_fit(
    method: str,
    mcfg: dict,
    X: np.ndarray,
    y: np.ndarray,
    split: dict,
    n_seeds: int,
    n_closure: int,
    seed: int,
    k: int,
    log=print,
    cv_folds: int | None = None,
):
    """Choose the grid point (OAHU's tau) by the mean kNN error over :func:`validation_parts`
    (each fitted on a stream drawn on its fit part, sized in proportion to it; kNN of the held-out
    part among the fit part), then fit on the development stream (only its first
    ``max_constraints`` when the method's config sets that bound: a learner too slow for the whole
    stream sees a prefix of it). Returns ``(model, label, params, triplets, timing, val)`` with
    ``val`` = {label: mean validation error}."""
    name = algorithm_of(method, mcfg)
    labels = grid_labels(mcfg)
    val = {}
    if len(labels) > 1:
        g = rng(seed, "constraints_fit")
        parts = []
        for fit, held in validation_parts(y, split, seed, cv_folds):
            frac = len(fit) / len(split["dev"])
            ns, nc = max(int(n_seeds * frac), 1), int(n_closure * frac)
            parts.append((fit, held, seeds_plus_closure(y[fit], ns, nc, g)))
        for label in labels:
            errs = []
            for fit, held, tri in parts:
                m, _ = fit_learner(
                    name,
                    params_for_label(mcfg, label),
                    tri,
                    X[fit],
                    y[fit],
                    seed,
                    pairs_per_triplet=pairs_per_triplet(mcfg),
                )
                errs.append(knn_scores(m, X[held], y[held], X[fit], y[fit], k)["error_rate"])
            val[label] = float(np.mean(errs))
            log(f"  {method} {len(parts)}-part validation {label}: error {val[label]:.4f}")
        best = min(labels, key=lambda lab: (val[lab], labels.index(lab)))
    else:
        best = labels[0]
    params = params_for_label(mcfg, best)
    triplets = constraint_stream(y[split["dev"]], n_seeds, n_closure, seed, "constraints_train")
    triplets = triplets[: mcfg.get("max_constraints") or len(triplets)]  # a prefix of the stream
    model, timing = fit_learner(
        name,
        params,
        triplets,
        X[split["dev"]],
        y[split["dev"]],
        seed,
        pairs_per_triplet=pairs_per_triplet(mcfg),
    )
    return model, best, params, triplets, timing, val


def classification_rows(
    method: str,
    mcfg: dict,
    X: np.ndarray,
    y: np.ndarray,
    seed: int,
    cfg: dict,
    base: dict,
    log=print,
) -> tuple[list[dict], object]:
    """One (dataset, seed, method) cell of Table 3: tidy rows (metric, value) and the model.

    ``cfg`` keys: n_samples (subsample before the 1:1 split, None = all), n_seeds, n_closure, k,
    optionally cv_folds (k-fold CV of the grid on the development half; absent: one 80/20 split).
    """
    split = dev_test_split(y, seed, cfg.get("n_samples"), cfg.get("split", "shuffled"))
    model, label, params, triplets, timing, val = select_and_fit(
        method,
        mcfg,
        X,
        y,
        split,
        cfg["n_seeds"],
        cfg["n_closure"],
        seed,
        cfg["k"],
        log,
        cfg.get("cv_folds"),
    )
    ev = knn_scores(
        model, X[split["test"]], y[split["test"]], X[split["dev"]], y[split["dev"]], cfg["k"]
    )
    info = {
        **base,
        "seed": seed,
        "algorithm": method,
        "params_label": label,
        "params": json.dumps(params, sort_keys=True),
        "n_constraints": len(triplets),
        "n_dev": len(split["dev"]),
        "n_test": len(split["test"]),
    }
    final = {
        "error_rate": ev["error_rate"],
        "macro_f1": ev["macro_f1"],
        "constraint_utilization": utilization(model),
        **timing,
        "eval_wall_s": ev["eval_wall_s"],
        **{f"val_error:{lab}": v for lab, v in val.items()},
        **{m: v for m, v in ev.items() if m.startswith("knn_error_layer")},
    }
    if algorithm_of(method, mcfg) == "OAHU":  # diagnostic: what OAHU's training optimises
        final.update(heldout_triplet_stats(model, X, y[split["test"]], split["test"], seed))
    log(
        f"  {method} seed {seed}: error {ev['error_rate']:.4f}, macro F1 {ev['macro_f1']:.4f}, "
        f"U {final['constraint_utilization']:.3f}, fit {timing['fit_wall_s']:.1f} s"
    )
    return [{**info, "metric": m, "value": v} for m, v in final.items()], model


def alpha_trace_rows(model, base: dict) -> list[dict]:
    """OAHU's metric weights alpha_l at the trace checkpoints (Figure 4c): one row per (step, l)."""
    tr = model.trace_
    rows = []
    for j, step in enumerate(tr["step"]):
        for key in tr:
            if key.startswith("alpha_"):
                rows.append({**base, "step": step, "layer": int(key[6:]), "alpha": tr[key][j]})
    return rows


def retrieval_rows(model, X_query, y_query, ks, base: dict) -> list[dict]:
    """Recall@K of each test query against the other test items (the query excluded): through
    the model's own ``retrieve`` when it has one (OAHU, eq. 27: the top K distinct items), else
    the K most similar under its ``similarity_matrix``."""
    y_query = np.asarray(y_query)
    if hasattr(model, "retrieve"):
        got = model.retrieve(X_query, X_query, ks, exclude_self=True)
        r = {k: float(np.mean((y_query[got[k]] == y_query[:, None]).any(axis=1))) for k in ks}
    else:
        r = recall_at_k(model.similarity_matrix, X_query, y_query, X_query, y_query, ks, True)
    return [{**base, "K": k, "recall": v} for k, v in r.items()]


def triplets_touching(triplets: np.ndarray, banned: set) -> np.ndarray:
    """(n,) bool: which triplets (a, p, n) hold a banned pair (a set of ``frozenset`` index pairs)
    among any two of their items: (a, p), (a, n) or (p, n) (the last relation a triplet states
    too: p and n are of different classes)."""
    return np.array(
        [
            bool({frozenset((a, p)), frozenset((a, n)), frozenset((p, n))} & banned)
            for a, p, n in np.asarray(triplets).tolist()
        ],
        dtype=bool,
    )


def verification_rows(
    method: str, mcfg: dict, data: dict, seed: int, cfg: dict, base: dict, log=print
) -> tuple[list[dict], list[dict]]:
    """Figure 5 protocol for one (seed, method): fit on triplets of the training part none of
    whose three pairs is an evaluation pair (:func:`triplets_touching`; resampled while any is),
    then ROC/AUC per fold of the evaluation pairs.

    ``data``: {"X", "y", "train" (indices allowed in constraints), "pairs" (m, 2), "same" (m,),
    "fold" (m,)}, optionally "banned" (pairs never allowed in a constraint; default "pairs").
    Returns (auc rows, roc-curve rows)."""
    from tripletbench.evaluation.verification import fold_roc

    X, y, train = data["X"], data["y"], data["train"]
    banned = {frozenset(p) for p in data.get("banned", data["pairs"]).tolist()}
    name = algorithm_of(method, mcfg)
    params = params_for_label(mcfg, grid_labels(mcfg)[0])
    tri = train[
        constraint_stream(y[train], cfg["n_seeds"], cfg["n_closure"], seed, "constraints_train")
    ]
    for attempt in range(100):  # "resample": no View pair inside a training constraint
        bad = triplets_touching(tri, banned)
        if not bad.any():
            break
        g = rng(seed + attempt + 1, "constraints_train")
        tri[bad] = train[seeds_plus_closure(y[train], int(bad.sum()), 0, g)]
    else:
        raise ValueError("could not draw training triplets free of evaluation pairs")
    # learners see the training constraints as indices into X (all rows; pairs are rows of X)
    model, timing = fit_learner(
        name, params, tri, X, y, seed, pairs_per_triplet=pairs_per_triplet(mcfg)
    )
    pairs = data["pairs"]
    if hasattr(model, "verification_distance"):  # OAHU: the threshold score of eq. 26
        dist = model.verification_distance(pairs)
    elif hasattr(model, "pair_distance"):
        dist = model.pair_distance(pairs)
    else:
        dist = -model.pair_score(pairs)
    res = fold_roc(dist, data["same"], data["fold"])
    aucs = [r["auc"] for r in res]
    log(f"  {method} seed {seed}: AUC {np.mean(aucs):.4f} ± {np.std(aucs, ddof=1):.4f}")
    info = {**base, "seed": seed, "algorithm": method, "params": json.dumps(params, sort_keys=True)}
    auc_rows = [{**info, "fold": int(r["fold"]), "auc": r["auc"], **timing} for r in res]
    roc_rows = [
        {**info, "fold": int(r["fold"]), "fpr": f, "tpr": t}
        for r in res
        for f, t in zip(r["fpr"], r["tpr"])
    ]
    return auc_rows, roc_rows


def torch_version() -> str:
    """``";torch=X"`` when torch is installed (read from its metadata, not imported), else ``""``:
    the OAHU jobs record it without importing torch, which only the torch backend of
    :class:`~tripletbench.algorithms.oahu.OAHU` loads (about 2.7 CPU s per job, measured 2026-11-27). Those
    jobs no longer set torch's thread count or global seed: the torch backend seeds its own
    generator, and the workflow's OMP_NUM_THREADS = 1 holds torch to one thread when it loads."""
    from importlib import metadata

    try:
        return f";torch={metadata.version('torch')}"
    except metadata.PackageNotFoundError:
        return ""
