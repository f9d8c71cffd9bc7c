"""Triplet accuracy: the fraction of test triplets a distance orders correctly.

Definition (Schultz & Joachims 2003, Table 1: "percentage of test constraints satisfied"): a
triplet (a, p, n) of (anchor, positive, negative) is satisfied when d(a, p) < d(a, n), strictly.
**Ties count as failures** (d(a, p) = d(a, n) is not a satisfied comparison), as in the learners'
``score`` (``tripletbench.algorithms.base.BaseLearner.score``: decision value > 0). With binary features and a
learned weight of zero on every word two documents differ in, ties do occur; they are counted
(``n_ties``) so that a reader sees how many. Two distances tie when they agree within
``TIE_RTOL`` (1e-12) of the larger (:func:`tripletbench.algorithms._scores.tied`, the rule of
every scorer here), so float rounding does not decide a tie.

Works for any learner (through its ``pair_distance``) or for a static metric given as feature
vectors (Euclidean distance on them: the paper's "Binary" and "TFIDF" baselines).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from tripletbench.algorithms._scores import tied


def _row_sq_dist(X, i, j) -> np.ndarray:
    """||x_i - x_j||^2 for index arrays i, j (X array or CSR); shape (len(i),)."""
    D = X[i] - X[j]
    if sp.issparse(D):
        return np.asarray(D.multiply(D).sum(axis=1)).ravel()
    return np.einsum("kd,kd->k", D, D)


def accuracy_from_distances(d_ap: np.ndarray, d_an: np.ndarray) -> dict:
    """{"triplet_accuracy": fraction with d_ap < d_an and not tied, "n_ties": #(tied), "n":
    count} (a tie: :func:`tripletbench.algorithms._scores.tied`).

    ``d_ap``, ``d_an``: (n,) float distances (or squared distances: the order is the same).
    Raises ``ValueError`` on zero triplets, mismatched shapes or NaN distances.
    """
    d_ap, d_an = np.asarray(d_ap, dtype=np.float64), np.asarray(d_an, dtype=np.float64)
    if d_ap.shape != d_an.shape or d_ap.ndim != 1:
        raise ValueError(f"distance arrays must be (n,) alike, got {d_ap.shape} and {d_an.shape}")
    if len(d_ap) == 0:
        raise ValueError("zero test triplets: triplet accuracy is undefined")
    if not (np.all(np.isfinite(d_ap)) and np.all(np.isfinite(d_an))):
        raise ValueError("the distances contain NaN or inf")
    tie = tied(d_ap, d_an)
    return {
        "triplet_accuracy": float(np.mean((d_ap < d_an) & ~tie)),
        "n_ties": int(np.sum(tie)),
        "n": len(d_ap),
    }


def static_triplet_accuracy(X, triplets: np.ndarray) -> dict:
    """Triplet accuracy of the plain Euclidean distance on features ``X`` ((n, d) array or CSR).

    ``triplets``: (n, 3) int indices into X, rows (anchor, positive, negative).
    """
    t = _check(triplets, X.shape[0])
    return accuracy_from_distances(
        _row_sq_dist(X, t[:, 0], t[:, 1]), _row_sq_dist(X, t[:, 0], t[:, 2])
    )


def model_triplet_accuracy(model, X, triplets: np.ndarray) -> dict:
    """Triplet accuracy of a fitted learner with a ``pair_distance((n, 2) indices)`` method
    (its ``preprocessor`` is set to ``X`` for the call). Learners without a distance (bilinear
    similarities) are scored by their two similarities, ``pair_score``, the same rule."""
    t = _check(triplets, X.shape[0])
    old = getattr(model, "preprocessor", None)
    model.preprocessor = X
    try:
        if hasattr(model, "pair_distance"):
            return accuracy_from_distances(
                model.pair_distance(t[:, [0, 1]]), model.pair_distance(t[:, [0, 2]])
            )
        return accuracy_from_distances(
            -model.pair_score(t[:, [0, 1]]), -model.pair_score(t[:, [0, 2]])
        )
    finally:
        model.preprocessor = old


def _check(triplets, n_samples) -> np.ndarray:
    t = np.asarray(triplets)
    if t.ndim != 2 or t.shape[1] != 3 or not np.issubdtype(t.dtype, np.integer):
        raise ValueError(f"triplets must be (n, 3) int indices, got {t.shape} {t.dtype}")
    if len(t) == 0:
        raise ValueError("zero test triplets: triplet accuracy is undefined")
    if t.min() < 0 or t.max() >= n_samples:
        raise ValueError(f"triplet indices out of range [0, {n_samples})")
    return t
