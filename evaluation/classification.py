"""kNN classification under a learned metric, its error rate and macro F1, and the paired t-test
with win/tie/loss counts of the OAHU paper's Table 3.

* kNN (OAHU paper, eqs. 24-25): each test point takes the majority class of its k most similar
  training points (``score_fn`` higher = more similar: -distance for metrics, x^T W y for bilinear
  similarities). Ties in the vote go to the class whose members come first in the neighbour order;
  ties in similarity are broken by the training index (stable sort), so results are deterministic.
* error rate = 1 - accuracy; macro F1 = ``sklearn.metrics.f1_score(average="macro")``.
* paired t-test: ``scipy.stats.ttest_rel`` over runs; a method "wins" against the reference when
  its mean is better and p < alpha, "loses" when worse and p < alpha, else "ties". The
  degenerate inputs (fewer than two runs, the same difference on every run) are decided before
  scipy is called: :func:`paired_ttest`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import stats
from sklearn.metrics import f1_score

from .retrieval import database_scorer, query_batch, score_block

ScoreFn = Callable[[np.ndarray, np.ndarray], np.ndarray]


def knn_predict(
    score_fn: ScoreFn, X_test, X_train, y_train, k: int = 5, batch_size: int | None = None
) -> np.ndarray:
    """kNN labels of ``X_test`` (n_test, d) from ``X_train`` (n_train, d), ``y_train`` (n_train,).

    ``score_fn(A, B)`` returns the (len(A), len(B)) similarity matrix, taken in C-ordered
    batches of ``batch_size`` test points (default: :func:`tripletbench.evaluation.retrieval.query_batch`'s
    memory budget). Returns an array (n_test,)
    of labels from ``y_train``. Raises ``ValueError`` for k < 1, k > n_train or non-finite scores.
    """
    y_train = np.asarray(y_train)
    if not 1 <= k <= len(y_train):
        raise ValueError(f"k must lie in [1, {len(y_train)}], got {k}")
    classes, codes = np.unique(y_train, return_inverse=True)
    out = np.empty(len(X_test), dtype=np.int64)
    batch = query_batch(X_train.shape[0], batch_size)
    score_fn = database_scorer(score_fn, X_train)
    for lo in range(0, X_test.shape[0], batch):
        S = score_block(score_fn, X_test[lo : lo + batch], X_train)
        nn = np.argsort(-S, axis=1, kind="stable")[:, :k]
        lab = codes[nn]  # (b, k)
        votes = np.zeros((len(S), len(classes)))
        np.add.at(votes, (np.repeat(np.arange(len(S)), k), lab.ravel()), 1.0)
        # tie-break: among the classes with the most votes, the one met first in the neighbour order
        best = votes.max(axis=1, keepdims=True)
        is_best = votes[np.arange(len(S))[:, None], lab] == best
        out[lo : lo + len(S)] = lab[np.arange(len(S)), np.argmax(is_best, axis=1)]
    return classes[out]


def error_rate(y_true, y_pred) -> float:
    """Fraction of wrong labels (1 - accuracy)."""
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    if y_true.shape != y_pred.shape or len(y_true) == 0:
        raise ValueError("y_true and y_pred must be non-empty and of one shape")
    return float(np.mean(y_true != y_pred))


def macro_f1(y_true, y_pred) -> float:
    """Unweighted mean of the per-class F1 scores (scikit-learn, ``zero_division=0``)."""
    return float(f1_score(y_true, y_pred, average="macro", zero_division=0))


SAME_DIFFERENCE_RTOL = 100 * np.finfo(float).eps
"""Paired differences within ``SAME_DIFFERENCE_RTOL`` times the largest |value| of each other
(about 2e-14 relative) are one difference: float rounding, not a measured spread. It is above
the spread at which scipy warns of catastrophic cancellation (10 machine epsilons of the mean
difference), so scipy is never called on such data."""


def paired_ttest(ours, reference, alpha: float = 0.05, higher_is_better: bool = False):
    """Paired t-test of a method's per-run values against the reference method's (same runs).

    Returns ``(p_value, outcome)`` with outcome "win", "tie" or "loss" for ``ours`` against the
    reference (the OAHU paper's Table 3 marks: a win means significantly better, a loss
    significantly worse), or "n/a" where no test is possible. ``scipy.stats.ttest_rel`` gives
    p, except in the degenerate cases, decided here (the rule for every table's marks):

    * fewer than two runs: no test, ``(nan, "n/a")`` (a t-test needs a variance);
    * the difference ours - reference is zero on every run (up to float rounding,
      :data:`SAME_DIFFERENCE_RTOL`): ``(1.0, "tie")``, the two are the same;
    * the difference is the same non-zero value on every one of n >= 2 runs: the t statistic
      is infinite and p is 0 in the limit, so ``(0.0, "win")`` or ``(0.0, "loss")`` by the sign
      of the difference: a method better or worse on every run by the same amount is
      consistently better or worse, never a tie (scipy returns inf and p = 0 for an exactly
      constant difference but NaN for a zero one, and warns of precision loss for a difference
      that is constant up to rounding).

    Raises ``ValueError`` for values of different shapes or a NaN or infinite value (a run
    without a number is not a pair; the caller drops it, as
    :func:`tripletbench.harness.paper_table.summarize` does, or fixes its input).
    """
    a, b = np.asarray(ours, float), np.asarray(reference, float)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError("paired values need one value per run for both methods")
    if not (np.isfinite(a).all() and np.isfinite(b).all()):
        raise ValueError(
            "paired_ttest: NaN or infinite value in the runs (drop the runs without a number "
            "on both sides before testing)"
        )
    if len(a) < 2:
        return float("nan"), "n/a"
    d = a - b
    tol = SAME_DIFFERENCE_RTOL * max(np.abs(a).max(), np.abs(b).max())
    if np.abs(d).max() <= tol:
        return 1.0, "tie"
    if np.ptp(d) <= tol:
        better = d.mean() > 0 if higher_is_better else d.mean() < 0
        return 0.0, "win" if better else "loss"
    p = float(stats.ttest_rel(a, b).pvalue)
    if not p < alpha:
        return p, "tie"
    better = a.mean() > b.mean() if higher_is_better else a.mean() < b.mean()
    return p, "win" if better else "loss"
