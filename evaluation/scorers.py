"""scikit-learn scorers for model selection on labelled points: ``GridSearchCV(estimator,
param_grid, scoring=...)`` with a learner fitted on (X, y) (LMNN, OPML, the ``*_Supervised``
variants of :mod:`tripletbench.algorithms.supervised`).

A scorer is a callable ``scorer(estimator, X, y) -> float`` (higher = better), the form
scikit-learn accepts for ``scoring=`` (alone or in a dict, for several metrics at once); it reads
the fitted estimator's ``similarity_matrix`` (every learner of :mod:`algorithms` has one) and does
not change the estimator. ``estimator`` is a learner or a scikit-learn ``Pipeline`` whose last
step is one: the fold then goes through the steps before it (``pipeline[:-1].transform``), as
``Pipeline.predict`` would send it; anything else raises ``TypeError`` naming what it lacks (once
``AttributeError`` inside ``GridSearchCV``, which turned every score of a Pipeline into NaN and
picked a grid point silently). The held-out fold is its own database, leave-one-out: each row of X
queries the other rows, relevance = same label (``exclude_self``), with the definitions of
:mod:`tripletbench.evaluation.retrieval`:

* :func:`map_scorer`: mAP over the full ranking (queries without a relevant item left out);
* :func:`precision_at_k_scorer` (k): precision@k, the mean over all queries;
* :func:`recall_at_k_scorer` (K): Recall@K as in the OAHU paper (a hit among the K nearest);
* :func:`map_at_r_scorer`, :func:`r_precision_scorer`: MAP@R and R-precision as
  pytorch-metric-learning defines them;
* :func:`triplet_accuracy_scorer`: triplet accuracy over all class triplets of the fold
  (:func:`tripletbench.algorithms.base.class_triplet_accuracy`); with ``y=None`` (a learner fitted and scored
  on triplets) the estimator's own ``score(triplets)``.

``SCORERS`` names one of each for ``scoring=`` dicts. A scorer raises ``ValueError`` where the
metric is undefined on the fold (no query with a relevant item; k larger than the fold less one);
``GridSearchCV`` then applies its ``error_score``.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_array

from tripletbench.algorithms.base import class_triplet_accuracy

from .retrieval import map_at_r, mean_average_precision, recall_at_k, retrieval_scores


def _points(estimator, X, y):
    """``(similarity, X, y)`` of a held-out fold: the learner's ``similarity_matrix`` and the
    fold as the learner sees it (X float64 (n, d), through a Pipeline's earlier steps), y (n,).
    Raises ``ValueError`` for mismatched lengths, ``TypeError`` for an estimator that is neither
    a learner with ``similarity_matrix`` nor a Pipeline ending in one."""
    learner = estimator
    if hasattr(estimator, "steps"):  # a Pipeline: its earlier steps transform the fold
        learner = estimator.steps[-1][1]
        if len(estimator.steps) > 1:
            X = estimator[:-1].transform(X)
    if not hasattr(learner, "similarity_matrix"):
        raise TypeError(
            f"{type(learner).__name__} has no similarity_matrix: these scorers score a "
            "tripletbench learner, or a Pipeline whose last step is one"
        )
    X = check_array(X, dtype=np.float64)
    y = np.asarray(y)
    if y.shape != (X.shape[0],):
        raise ValueError(f"{X.shape[0]} rows but labels of shape {y.shape}")
    return learner.similarity_matrix, X, y


def _check_k(k, n):
    if not (isinstance(k, (int, np.integer)) and 1 <= k <= n - 1):
        raise ValueError(f"k must be an int in [1, {n - 1}] (the fold less the query), got {k!r}")


def map_scorer(estimator, X, y) -> float:
    """Leave-one-out mAP of the learner's ``similarity_matrix`` on (X (n, d), y (n,))."""
    S, X, y = _points(estimator, X, y)
    return mean_average_precision(S, X, y, X, y, exclude_self=True)[0]


def precision_at_k_scorer(k: int):
    """A scorer: leave-one-out precision@k (the fraction of the k most similar other rows that
    share the query's label, equal scores ordered by index; mean over all rows)."""

    def scorer(estimator, X, y) -> float:
        S, X, y = _points(estimator, X, y)
        _check_k(k, len(y))
        out = retrieval_scores(S, X, y, X, y, exclude_self=True, ks=(k,))
        return float(out["precision_at"][k].mean())

    scorer.__name__ = f"precision_at_{k}"
    return scorer


def recall_at_k_scorer(k: int):
    """A scorer: leave-one-out Recall@K (:func:`tripletbench.evaluation.retrieval.recall_at_k`)."""

    def scorer(estimator, X, y) -> float:
        S, X, y = _points(estimator, X, y)
        _check_k(k, len(y))
        return recall_at_k(S, X, y, X, y, ks=(k,), exclude_self=True)[k]

    scorer.__name__ = f"recall_at_{k}"
    return scorer


def map_at_r_scorer(estimator, X, y) -> float:
    """Leave-one-out MAP@R (pytorch-metric-learning's definition)."""
    S, X, y = _points(estimator, X, y)
    return map_at_r(S, X, y, X, y, exclude_self=True)["MAP@R"]


def r_precision_scorer(estimator, X, y) -> float:
    """Leave-one-out R-precision (pytorch-metric-learning's definition)."""
    S, X, y = _points(estimator, X, y)
    return map_at_r(S, X, y, X, y, exclude_self=True)["R-precision"]


def triplet_accuracy_scorer(estimator, X, y=None) -> float:
    """Triplet accuracy: over all class triplets of (X (n, d), y (n,)), or, with ``y=None``, of
    the triplets X ((n, 3, d) or (n, 3) indicators) by the estimator's ``score``."""
    if y is None:
        return float(estimator.score(X))
    S, X, y = _points(estimator, X, y)
    return class_triplet_accuracy(S, X, y)


SCORERS = {
    "mAP": map_scorer,
    "precision@1": precision_at_k_scorer(1),
    "precision@10": precision_at_k_scorer(10),
    "recall@1": recall_at_k_scorer(1),
    "recall@10": recall_at_k_scorer(10),
    "MAP@R": map_at_r_scorer,
    "R-precision": r_precision_scorer,
    "triplet_accuracy": triplet_accuracy_scorer,
}
"""Named scorers for ``GridSearchCV(scoring=SCORERS)`` (refit needs one name, e.g. "mAP")."""
