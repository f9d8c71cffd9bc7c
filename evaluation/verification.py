"""Pair verification (OAHU paper, section 4.4, face verification): ROC and AUC per fold.

Each fold holds matched (same identity/class, label 1) and mismatched (label 0) pairs; a learned
distance is normalised to [0, 1] (min-max over all pairs of the evaluation, as the paper does to
put thresholds T of eq. 26 on one scale) and the score of a pair is 1 - distance. ROC curves and
AUC per fold come from ``sklearn.metrics.roc_curve`` / ``roc_auc_score``; the reported AUC is the
mean over folds. A fold without both kinds of pairs raises ``ValueError``.
"""

from __future__ import annotations

import numpy as np
from sklearn.metrics import roc_auc_score, roc_curve


def normalise_distances(d) -> np.ndarray:
    """Min-max scale distances to [0, 1] (all zeros if they are all equal). Shape kept."""
    d = np.asarray(d, dtype=np.float64)
    if not np.all(np.isfinite(d)):
        raise ValueError("distances contain NaN or inf")
    lo, hi = d.min(), d.max()
    return np.zeros_like(d) if hi == lo else (d - lo) / (hi - lo)


def fold_roc(distances, same, folds):
    """ROC per fold. ``distances`` (n,) raw pair distances (lower = more alike); ``same`` (n,)
    bool/0-1 labels; ``folds`` (n,) fold ids. Returns a list of dicts per fold (in sorted fold
    order): {"fold", "fpr", "tpr", "thresholds", "auc"} with thresholds on the [0, 1] distance
    scale (a pair is "similar" when its normalised distance <= T)."""
    d = normalise_distances(distances)
    same = np.asarray(same).astype(int)
    folds = np.asarray(folds)
    out = []
    for f in np.unique(folds):
        m = folds == f
        if len(np.unique(same[m])) < 2:
            raise ValueError(f"fold {f} needs matched and mismatched pairs")
        score = 1.0 - d[m]
        fpr, tpr, thr = roc_curve(same[m], score)
        out.append(
            {
                "fold": f,
                "fpr": fpr,
                "tpr": tpr,
                "thresholds": 1.0 - thr,
                "auc": float(roc_auc_score(same[m], score)),
            }
        )
    return out


def mean_roc(per_fold, grid_points: int = 101):
    """Vertical average of per-fold ROC curves on a common FPR grid: (fpr, mean tpr, std tpr)."""
    grid = np.linspace(0.0, 1.0, grid_points)
    tprs = np.array([np.interp(grid, r["fpr"], r["tpr"]) for r in per_fold])
    return grid, tprs.mean(axis=0), tprs.std(axis=0, ddof=1) if len(tprs) > 1 else 0 * grid


def make_pair_folds(
    y, n_folds: int, n_pairs: int, generator: np.random.Generator, exclude=None
) -> dict:
    """View-2-like folds on a class-labelled set: each fold ``n_pairs`` matched pairs (same class)
    and ``n_pairs`` mismatched pairs, all distinct and unordered, none in ``exclude`` (a set of
    frozensets). Returns {"pairs": int64 (m, 2), "same": bool (m,), "fold": int64 (m,)}.
    Raises ``ValueError`` when the classes cannot supply that many pairs."""
    y = np.asarray(y)
    classes, counts = np.unique(y, return_counts=True)
    eligible = np.flatnonzero(np.isin(y, classes[counts >= 2]))
    if len(eligible) == 0 or len(classes) < 2:
        raise ValueError("matched pairs need a class with two samples and mismatched two classes")
    used = set(exclude or ())
    pairs, same, fold = [], [], []
    by_class = {c: np.flatnonzero(y == c) for c in classes}
    budget = 100 * n_folds * n_pairs + 1000
    for f in range(n_folds):
        for want in (True, False):
            got = 0
            while got < n_pairs:
                budget -= 1
                if budget < 0:
                    raise ValueError("could not draw enough distinct pairs; use fewer pairs")
                a = (
                    int(eligible[generator.integers(len(eligible))])
                    if want
                    else int(generator.integers(len(y)))
                )
                if want:
                    pool = by_class[y[a]]
                    b = int(pool[generator.integers(len(pool))])
                else:
                    b = int(generator.integers(len(y)))
                if a == b or (y[a] == y[b]) != want or frozenset((a, b)) in used:
                    continue
                used.add(frozenset((a, b)))
                pairs.append((a, b))
                same.append(want)
                fold.append(f)
                got += 1
    return {
        "pairs": np.array(pairs, dtype=np.int64),
        "same": np.array(same, dtype=bool),
        "fold": np.array(fold, dtype=np.int64),
    }
