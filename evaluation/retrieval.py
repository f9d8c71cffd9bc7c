"""Retrieval metrics: average precision over the full ranking, mAP and precision@k.

Definitions (fixed here and in ``tests/test_retrieval.py``):

* A query ranks every database item by similarity (higher = more similar); relevance = same class.
* AP is the area under the precision-recall step function over **all** distinct score thresholds,
  i.e. ``sklearn.metrics.average_precision_score`` per query: each relevant item contributes the
  precision measured at the end of its group of tied scores, so ties never depend on an order.
  The ranking is never truncated.
* With ``exclude_self=True`` (database = query set), query ``i`` does not rank item ``i``.
* Queries with no relevant item in the database have no AP; they are left out of the mean and
  counted (``n_queries_without_relevant``).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

ScoreFn = Callable[[np.ndarray, np.ndarray], np.ndarray]


def average_precision_rows(scores: np.ndarray, relevant: np.ndarray) -> np.ndarray:
    """AP of each row. ``scores``: (q, n) float; ``relevant``: (q, n) bool. Returns (q,) float64,
    NaN where a row has no relevant item. Entries with score ``-inf`` and ``relevant=False`` are
    ignored (that is how ``exclude_self`` removes the query).

    Each relevant item with score s contributes precision = #relevant with score >= s divided by
    #items with score >= s (the precision at the end of its tie group), so AP is the mean of these
    over the relevant items; the counts come from sorted values (``np.sort`` and
    ``np.searchsorted``), without ranking the items themselves.
    """
    scores = np.asarray(scores, dtype=np.float64)
    relevant = np.asarray(relevant, dtype=bool)
    n = scores.shape[1]
    ordered = np.sort(scores, axis=1)
    ap = np.full(len(scores), np.nan)
    for i in range(len(scores)):
        r = scores[i, relevant[i]]
        if len(r) == 0:
            continue
        n_ge = n - np.searchsorted(ordered[i], r, side="left")
        rel_ge = len(r) - np.searchsorted(np.sort(r), r, side="left")
        ap[i] = np.mean(rel_ge / n_ge)
    return ap


def retrieval_scores(
    score_fn: ScoreFn,
    X_query: np.ndarray,
    y_query: np.ndarray,
    X_db: np.ndarray,
    y_db: np.ndarray,
    exclude_self: bool = False,
    ks: tuple[int, ...] = (),
    batch_size: int = 256,
) -> dict:
    """Per-query AP (and precision@k) of ``score_fn`` on a query set against a database.

    ``score_fn(A, B)`` returns the (len(A), len(B)) similarity matrix (higher = more similar);
    queries are processed in batches so that memory stays O(batch_size * n_db).
    ``exclude_self`` requires the query set to be the database (same length); query i then does
    not rank item i. Returns ``{"ap": (q,) float64 with NaN for queries without a relevant item,
    "precision_at": {k: (q,) float64}}``.
    """
    y_query, y_db = np.asarray(y_query), np.asarray(y_db)
    if exclude_self and len(X_query) != len(X_db):
        raise ValueError("exclude_self needs the query set to be the database")
    ap = np.empty(len(X_query))
    prec = {k: np.empty(len(X_query)) for k in ks}
    for lo in range(0, len(X_query), batch_size):
        hi = min(lo + batch_size, len(X_query))
        S = np.asarray(score_fn(X_query[lo:hi], X_db), dtype=np.float64)
        if not np.all(np.isfinite(S)):
            raise ValueError("the similarity scores contain NaN or inf")
        R = y_query[lo:hi, None] == y_db[None, :]
        if exclude_self:
            rows = np.arange(hi - lo)
            S[rows, lo + rows] = -np.inf
            R[rows, lo + rows] = False
        ap[lo:hi] = average_precision_rows(S, R)
        if ks:
            top = np.argsort(-S, axis=1, kind="stable")[:, : max(ks)]
            top_rel = np.take_along_axis(R, top, axis=1)
            for k in ks:
                prec[k][lo:hi] = top_rel[:, :k].mean(axis=1)
    return {"ap": ap, "precision_at": prec}


def mean_average_precision(
    score_fn: ScoreFn,
    X_query,
    y_query,
    X_db,
    y_db,
    exclude_self: bool = False,
    batch_size: int = 256,
) -> tuple[float, int]:
    """mAP over the queries that have a relevant item; returns ``(mAP, n_queries_without_relevant)``.

    Raises ``ValueError`` if no query has a relevant item.
    """
    ap = retrieval_scores(
        score_fn, X_query, y_query, X_db, y_db, exclude_self, batch_size=batch_size
    )["ap"]
    ok = ~np.isnan(ap)
    if not ok.any():
        raise ValueError("no query has a relevant item in the database: mAP is undefined")
    return float(ap[ok].mean()), int((~ok).sum())
