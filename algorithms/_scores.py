"""What the mixins of :mod:`tripletbench.algorithms.base` compute from a fitted model's numbers
(re-exported there): the thresholds a pair classifier chooses among (:func:`_accept_counts`),
the triplet accuracy over all class triplets of labelled points
(:func:`class_triplet_accuracy`, ``score(X, y)`` of the labelled learners), the factor L of
a Mahalanobis matrix M = L^T L (:func:`_components_from_metric`, metric-learn's conversion), and
the one rule for when two scores of a triplet tie (:func:`tied`).
"""

from __future__ import annotations

import numpy as np

TIE_RTOL = 1e-12
"""Two scores (distances or similarities) of one triplet tie when they differ by at most this
share of the larger magnitude (:func:`tied`). Ours: float64 rounding of a squared distance or
a bilinear score (about 1e-16 relative per operation, a few hundred operations) stays far
below it, and a real difference of learned scores far above it. Exact comparison let rounding
decide: on binary bag-of-words vectors, unit-normalised, the einsum found 12,067 of 33,727
mathematically tied human test triplets (measured 2026-11-29 on Food-100's ingredients)."""


def tied(a, b, rtol: float = TIE_RTOL) -> np.ndarray:
    """(n,) bool: ``|a - b| <= rtol * max(|a|, |b|)`` elementwise (two exact zeros tie; NaN
    never ties). ``a``, ``b``: (n,) float scores of the same kind (the two distances, or the
    two similarities, of each triplet). Every scorer of triplet accuracy decides ties by it:
    :meth:`~tripletbench.algorithms.base.BaseLearner.decision_function` (a tie is 0),
    :func:`class_triplet_accuracy`, :mod:`tripletbench.evaluation.triplets` (a tie is wrong)
    and :func:`tripletbench.evaluation.human_protocols.triplet_accuracy` (a tie is half)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return np.abs(a - b) <= rtol * np.maximum(np.abs(a), np.abs(b))


def _accept_counts(scores, y):
    """For the thresholds "accept (call similar) every pair with score >= s" over the distinct
    scores s, highest first, preceded by "accept nothing": (s, true positives, false positives);
    s[0] = +inf. ``scores``: (n,) float, ``y``: (n,) in {-1, +1}."""
    order = np.argsort(-scores, kind="stable")
    s, pos = scores[order], (y[order] == 1)
    ends = np.flatnonzero(np.append(s[1:] != s[:-1], True))  # last index of each tie group
    tp = np.cumsum(pos)[ends]
    fp = (ends + 1) - tp
    return np.concatenate([[np.inf], s[ends]]), np.append(0, tp), np.append(0, fp)


def class_triplet_accuracy(similarity, X, y, batch_size: int = 256) -> float:
    """Triplet accuracy over ALL class triplets of labelled points: the fraction of the triplets
    (a, p, n) of distinct rows with y_p = y_a != y_n for which s(a, p) > s(a, n) (ties count as
    wrong, as :meth:`BaseLearner.score`; a tie: s(a, n) within :data:`TIE_RTOL` of
    ``|s(a, p)|`` below it, :func:`tied` read from the positive's side).

    ``similarity(A, B)``: the (len(A), len(B)) similarity matrix (a learner's
    ``similarity_matrix``; for a Mahalanobis learner -d_M^2, the same order as -d_M). ``X``:
    (n, d); ``y``: (n,). Each anchor's count is exact (sorted scores, ``np.searchsorted``), in
    O(n^2 log n) time and O(batch_size n) memory. Raises ``ValueError`` when no such triplet
    exists (one class, or no class with two rows) or the scores are not finite.
    """
    y = np.asarray(y)
    n = len(y)
    if y.shape != (X.shape[0],):
        raise ValueError(f"{X.shape[0]} rows but labels of shape {y.shape}")
    correct = total = 0
    for lo in range(0, n, batch_size):
        hi = min(lo + batch_size, n)
        S = np.asarray(similarity(X[lo:hi], X), dtype=np.float64)
        if not np.all(np.isfinite(S)):
            raise ValueError(
                "the similarity scores contain NaN or inf (e.g. features far larger than those "
                "the model was fitted on overflow float64: scale them as the training ones)"
            )
        for k, a in enumerate(range(lo, hi)):
            same = y == y[a]
            same[a] = False
            neg = np.sort(S[k, y != y[a]])
            pos = S[k, same]
            below = pos - TIE_RTOL * np.abs(pos)  # a negative at or above it ties or wins
            correct += int(np.searchsorted(neg, below, side="left").sum())
            total += len(pos) * len(neg)
    if total == 0:
        raise ValueError("no class triplet: the labels need two classes and a class with two rows")
    return correct / total


def _components_from_metric(M: np.ndarray) -> np.ndarray:
    """L with L^T L = M (d, d) by metric-learn's ``components_from_metric``; where it refuses M
    (not PSD beyond its tolerance), V diag(sqrt(max(w, 0))) transposed from ``eigh``."""
    from metric_learn._util import components_from_metric
    from metric_learn.exceptions import NonPSDError

    try:
        return np.array(components_from_metric(M), dtype=np.float64)
    except NonPSDError:
        w, V = np.linalg.eigh(M)
        return (V * np.sqrt(np.clip(w, 0, None))).T
