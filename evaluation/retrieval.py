"""Retrieval metrics: average precision over the full ranking, mAP and precision@k; Recall@K;
MAP@R and R-precision as pytorch-metric-learning defines them.

Definitions (fixed here and in ``tests/test_retrieval.py``):

* A query ranks every database item by similarity (higher = more similar); relevance = same class.
* AP is the area under the precision-recall step function over **all** distinct score thresholds,
  i.e. ``sklearn.metrics.average_precision_score`` per query: each relevant item contributes the
  precision measured at the end of its group of tied scores, so ties never depend on an order.
  The ranking is never truncated.
* Ties (equal scores) are never broken by an order (our convention: none of the papers says how
  it counts ties): precision@k and Recall@K count a relevant
  item among the first k only when its whole tie group lies there (the position it reaches is the
  end of its group, as AP's precision), so tied items count as not retrieved (as a tie counts as
  wrong in triplet accuracy). Constant scores (a model that cannot rank) give AP = the share of
  relevant items (chance level), precision@k = 0 and Recall@K = 0 for k < the database's size.
  MAP@R and R-precision keep pytorch-metric-learning's order (below).
* A database of one class is refused (``ValueError``): every item is relevant to every query that
  has one, so any ranking, even a random one, would score 1.0; the metrics are undefined there.
* With ``exclude_self=True`` (database = query set), query ``i`` does not rank item ``i``.
* Queries with no relevant item in the database have no AP; they are left out of the mean and
  counted (``n_queries_without_relevant``).
* MAP@R and R-precision (:func:`map_at_r`): pytorch-metric-learning's ``AccuracyCalculator``
  (``utils/accuracy_calculator.py``: ``r_precision``, ``mean_average_precision_at_r``; Musgrave,
  Belongie, Lim, "A Metric Learning Reality Check", ECCV 2020). For a query with R relevant
  database items (same class; the query itself not counted when the database is the query set),
  the database ranked by decreasing similarity:
  R-precision = (relevant items among the first R) / R, and
  MAP@R = (1/R) sum_{i=1..R} P(i) rel(i), P(i) = (relevant among the first i) / i,
  rel(i) = 1 if the i-th item is relevant. Averaged over the queries with R >= 1 (the library's
  "lone" queries are left out; it returns 0 when every query is lone, we raise ``ValueError``),
  one weight per query (its default ``avg_of_avgs=False``). Equal scores are ordered by database
  index here; the library takes its k-NN search's order (faiss), which it leaves unspecified, and
  with the query in the database it drops the first neighbour returned (the query, unless a
  duplicate point comes first) where we drop the query itself.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import scipy.sparse as sp

ScoreFn = Callable[[np.ndarray, np.ndarray], np.ndarray]

CHUNK_MB = 512.0
"""Default memory budget of one batch of queries (score block + relevance mask), megabytes."""


def query_batch(n_db: int, batch_size: int | None = None, chunk_mb: float = CHUNK_MB) -> int:
    """Queries per batch: ``batch_size`` if given, else the most whose float64 score block and
    bool relevance mask (9 bytes per query and database item) fit in ``chunk_mb`` megabytes (at
    least 1, at most 4096). E.g. a 1M-item database and 512 MB: 59 queries."""
    if batch_size is not None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        return int(batch_size)
    return int(min(4096, max(1, chunk_mb * 2**20 // (9 * max(n_db, 1)))))


def database_scorer(score_fn: ScoreFn, X_db) -> ScoreFn:
    """``score_fn`` with its database side prepared once for ``X_db``, where it is a model's
    bound ``similarity_matrix`` and the model offers ``prepare_database(X_db)`` (the Mahalanobis
    learners: Y L^T once, not once per query batch); any other function, or a dense/sparse
    database the model cannot prepare, is returned as it is. The returned function gives the
    same numbers as ``score_fn`` and falls back to it for another database than ``X_db``."""
    owner = getattr(score_fn, "__self__", None)
    prepare = getattr(owner, "prepare_database", None)
    if prepare is None or getattr(score_fn, "__name__", "") != "similarity_matrix":
        return score_fn
    if sp.issparse(X_db):  # sparse: the model's own sparse-safe path
        return score_fn
    prepared = prepare(X_db)

    def scores(A, B):
        return prepared(A) if B is X_db else score_fn(A, B)

    return scores


def score_block(score_fn: ScoreFn, A, B) -> np.ndarray:
    """``score_fn(A, B)`` as a C-ordered float64 (len(A), len(B)) array (copied only when the
    function returned another layout or dtype); ``ValueError`` for NaN or inf scores."""
    S = np.ascontiguousarray(score_fn(A, B), dtype=np.float64)
    if not np.isfinite(S).all():
        raise ValueError(
            "the similarity scores contain NaN or inf (e.g. features far larger than those "
            "the model was fitted on overflow float64: scale them as the training ones)"
        )
    return S


def check_two_classes(y_db, metric: str) -> None:
    """Raise ``ValueError`` when the database labels ``y_db`` hold fewer than two classes: a
    query then has no irrelevant item (or no relevant one) and ``metric`` is undefined (module
    docstring)."""
    classes = np.unique(np.asarray(y_db))
    if len(classes) < 2:
        raise ValueError(
            f"{metric} is undefined on a database of {len(classes)} class(es) "
            f"{classes.tolist()[:1]}: every item is relevant to every query that has one, so any "
            "ranking would score 1.0; evaluate on a set with at least two classes"
        )


def tie_group_ends(row: np.ndarray, r: np.ndarray) -> np.ndarray:
    """For scores ``r`` taken from the score row ``row`` (1-D): how many items of the row score
    >= each of them, i.e. the position (1-based) where each one's group of tied scores ends; the
    rank of each item when there are no ties."""
    return len(row) - np.searchsorted(np.sort(row), r, side="left")


def average_precision_rows(scores: np.ndarray, relevant: np.ndarray) -> np.ndarray:
    """AP of each row. ``scores``: (q, n) float; ``relevant``: (q, n) bool. Returns (q,) float64,
    NaN where a row has no relevant item. Entries with score ``-inf`` and ``relevant=False`` are
    ignored (that is how ``exclude_self`` removes the query).

    Each relevant item with score s contributes precision = #relevant with score >= s divided by
    #items with score >= s (the precision at the end of its tie group), so AP is the mean of these
    over the relevant items; the counts come from sorted values (``np.sort`` and
    ``np.searchsorted``), without ranking the items themselves.
    """
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    relevant = np.asarray(relevant, dtype=bool)
    n = scores.shape[1]
    ap = np.full(len(scores), np.nan)
    for i in range(len(scores)):  # one row at a time: one sorted copy of a row in memory
        r = scores[i, relevant[i]]
        if len(r) == 0:
            continue
        n_ge = tie_group_ends(scores[i], r)
        rel_ge = tie_group_ends(r, r)
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
    batch_size: int | None = None,
    chunk_mb: float = CHUNK_MB,
    progress: bool = False,
) -> dict:
    """Per-query AP (and precision@k) of ``score_fn`` on a query set against a database.

    ``score_fn(A, B)`` returns the (len(A), len(B)) similarity matrix (higher = more similar);
    queries are processed in batches (:func:`query_batch`: ``batch_size`` queries, by default as
    many as keep one batch's score block and relevance mask within ``chunk_mb`` megabytes), each
    block made C-ordered (a query's scores contiguous) and ranked row by row, so that memory
    stays O(batch * n_db) and no n_query x n_db matrix exists.
    ``exclude_self`` requires the query set to be the database (same length); query i then does
    not rank item i. Returns ``{"ap": (q,) float64 with NaN for queries without a relevant item,
    "precision_at": {k: (q,) float64}}``: precision@k = (relevant items among the first k) / k,
    an item in a group of tied scores counted there only when its whole group is (module
    docstring). ``progress``: a bar over the queries (tqdm, moved after every batch, the time
    left from the average rate so far), for an exact ranking of a large database.

    Raises ``ValueError`` for a k outside [1, n_db] (n_db - 1 with ``exclude_self``): the
    ranking has fewer than k items, so "relevant among the first k" divided by k would count
    missing items as misses; for non-finite scores; or for a database of one class.
    """
    y_query, y_db = np.asarray(y_query), np.asarray(y_db)
    check_two_classes(y_db, "average precision")
    n_q = X_query.shape[0]  # arrays or scipy.sparse matrices (len() fails on the latter)
    if exclude_self and n_q != X_db.shape[0]:
        raise ValueError("exclude_self needs the query set to be the database")
    n_db = X_db.shape[0] - (1 if exclude_self else 0)
    if any(not 1 <= k <= n_db for k in ks):
        raise ValueError(
            f"precision@k: every k must lie in [1, {n_db}] (the database's size), got "
            f"k up to {max(ks)}"
        )
    ap = np.empty(n_q)
    prec = {k: np.empty(n_q) for k in ks}
    batch = query_batch(X_db.shape[0], batch_size, chunk_mb)
    score_fn = database_scorer(score_fn, X_db)
    from tqdm.auto import tqdm

    bar = tqdm(total=n_q, disable=not progress, desc="mAP", unit="query", mininterval=1.0,
               smoothing=0)  # fmt: skip
    for lo in range(0, n_q, batch):
        hi = min(lo + batch, n_q)
        S = score_block(score_fn, X_query[lo:hi], X_db)
        R = y_query[lo:hi, None] == y_db[None, :]
        if exclude_self:
            rows = np.arange(hi - lo)
            S[rows, lo + rows] = -np.inf
            R[rows, lo + rows] = False
        ap[lo:hi] = average_precision_rows(S, R)
        for i in range(hi - lo) if ks else ():
            ends = tie_group_ends(S[i], S[i, R[i]])  # whole tie groups only (no order)
            for k in ks:
                prec[k][lo + i] = np.count_nonzero(ends <= k) / k
        bar.update(hi - lo)
    bar.close()
    return {"ap": ap, "precision_at": prec}


def mean_average_precision(
    score_fn: ScoreFn,
    X_query,
    y_query,
    X_db,
    y_db,
    exclude_self: bool = False,
    batch_size: int | None = None,
    progress: bool = False,
) -> tuple[float, int]:
    """mAP over the queries that have a relevant item; returns ``(mAP, n_queries_without_relevant)``.
    ``progress``: :func:`retrieval_scores`'s bar.

    Raises ``ValueError`` if no query has a relevant item.
    """
    ap = retrieval_scores(
        score_fn,
        X_query,
        y_query,
        X_db,
        y_db,
        exclude_self,
        batch_size=batch_size,
        progress=progress,
    )["ap"]
    ok = ~np.isnan(ap)
    if not ok.any():
        raise ValueError("no query has a relevant item in the database: mAP is undefined")
    return float(ap[ok].mean()), int((~ok).sum())


def recall_at_k(
    score_fn: ScoreFn,
    X_query,
    y_query,
    X_db,
    y_db,
    ks=(1, 2, 4, 8, 16, 32),
    exclude_self: bool = False,
    batch_size: int | None = None,
) -> dict:
    """Recall@K as in the OAHU paper (section 4.5, after Song et al. 2016): the fraction of queries
    with at least one item of their class among their K most similar database items.

    ``score_fn(A, B)`` gives the (len(A), len(B)) similarity matrix (higher = more similar); ties
    are never broken by an order: a query's hit is its most similar relevant item, reached at the
    end of its group of tied scores (module docstring; constant scores: no hit for K < n_db).
    With ``exclude_self`` (database = query set) query i does not retrieve item i. Returns
    {K: float} for each K in ``ks``. Raises ``ValueError`` for a K outside [1, n_db], non-finite
    scores or a database of one class.
    """
    y_query, y_db = np.asarray(y_query), np.asarray(y_db)
    check_two_classes(y_db, "Recall@K")
    n_db = len(y_db) - (1 if exclude_self else 0)
    if any(not 1 <= k <= n_db for k in ks):
        raise ValueError(f"every K must lie in [1, {n_db}], got {list(ks)}")
    if exclude_self and len(X_query) != len(X_db):
        raise ValueError("exclude_self needs the query set to be the database")
    hits = {k: 0 for k in ks}
    batch = query_batch(X_db.shape[0], batch_size)
    score_fn = database_scorer(score_fn, X_db)
    for lo in range(0, X_query.shape[0], batch):
        hi = min(lo + batch, X_query.shape[0])
        S = score_block(score_fn, X_query[lo:hi], X_db)
        rel = y_query[lo:hi, None] == y_db[None, :]
        if exclude_self:
            rows = np.arange(hi - lo)
            S[rows, lo + rows] = -np.inf
            rel[rows, lo + rows] = False
        best = np.where(rel, S, -np.inf).max(axis=1)  # the most similar relevant item's score
        reach = np.count_nonzero(S >= best[:, None], axis=1)  # the end of its tie group
        reach[~rel.any(axis=1)] = n_db + 1  # no relevant item: never a hit
        for k in ks:
            hits[k] += int(np.sum(reach <= k))
    return {k: hits[k] / len(X_query) for k in ks}


def r_precision_rows(scores: np.ndarray, relevant: np.ndarray) -> tuple:
    """(MAP@R, R-precision) of each row (module docstring). ``scores``: (q, n) float, ranked by
    decreasing value, equal values by column index; ``relevant``: (q, n) bool. Returns two (q,)
    float64 arrays, NaN where a row has no relevant item (R = 0). An entry with score ``-inf``
    and ``relevant=False`` ranks last (that is how ``exclude_self`` removes the query)."""
    scores = np.asarray(scores, dtype=np.float64)
    relevant = np.asarray(relevant, dtype=bool)
    R = relevant.sum(axis=1)
    map_r = np.full(len(scores), np.nan)
    r_prec = np.full(len(scores), np.nan)
    r_max = int(R.max(initial=0))
    if r_max == 0:
        return map_r, r_prec
    top = np.argsort(-scores, axis=1, kind="stable")[:, :r_max]
    rank = np.arange(1, r_max + 1)
    hits = np.take_along_axis(relevant, top, axis=1) & (rank[None, :] <= R[:, None])
    precision_at_i = np.cumsum(hits, axis=1) / rank
    ok = R > 0
    map_r[ok] = (precision_at_i * hits).sum(axis=1)[ok] / R[ok]
    r_prec[ok] = hits.sum(axis=1)[ok] / R[ok]
    return map_r, r_prec


def map_at_r(
    score_fn: ScoreFn,
    X_query,
    y_query,
    X_db,
    y_db,
    exclude_self: bool = False,
    batch_size: int | None = None,
) -> dict:
    """MAP@R and R-precision of ``score_fn`` (pytorch-metric-learning's definitions, module
    docstring) for a query set against a database; with ``exclude_self`` (database = query set)
    query i does not rank item i and R excludes it. ``score_fn(A, B)``: the (len(A), len(B))
    similarity matrix. Returns ``{"MAP@R": float, "R-precision": float,
    "queries_without_relevant": int}``. Raises ``ValueError`` if no query has a relevant item,
    the scores are not finite or the database holds one class."""
    y_query, y_db = np.asarray(y_query), np.asarray(y_db)
    check_two_classes(y_db, "MAP@R")
    n_q = X_query.shape[0]
    if exclude_self and n_q != X_db.shape[0]:
        raise ValueError("exclude_self needs the query set to be the database")
    map_r, r_prec = np.empty(n_q), np.empty(n_q)
    batch = query_batch(X_db.shape[0], batch_size)
    score_fn = database_scorer(score_fn, X_db)
    for lo in range(0, n_q, batch):
        hi = min(lo + batch, n_q)
        S = score_block(score_fn, X_query[lo:hi], X_db)
        rel = y_query[lo:hi, None] == y_db[None, :]
        if exclude_self:
            rows = np.arange(hi - lo)
            S[rows, lo + rows] = -np.inf
            rel[rows, lo + rows] = False
        map_r[lo:hi], r_prec[lo:hi] = r_precision_rows(S, rel)
    ok = ~np.isnan(map_r)
    if not ok.any():
        raise ValueError("no query has a relevant item in the database: MAP@R is undefined")
    return {
        "MAP@R": float(map_r[ok].mean()),
        "R-precision": float(r_prec[ok].mean()),
        "queries_without_relevant": int((~ok).sum()),
    }


def sparse_mahalanobis_similarity(M: np.ndarray) -> ScoreFn:
    """A score function ``f(A, B)`` = -d_M(a, b)^2 for every pair of rows, for arrays or CSR
    matrices, without densifying A or B: -d_M^2 = 2 a^T M b - a^T M a - b^T M b, where
    ``a^T M b`` is ``(A @ M) @ B^T`` computed as ``(B @ (A @ M)^T)^T`` (sparse times dense) and the
    quadratic forms row by row from ``A @ M`` (dense (len(A), d)). The database's quadratic forms
    are computed once and reused while the same ``B`` object is passed again (batches of queries).
    ``M``: (d, d) float (a Mahalanobis matrix). Returns (len(A), len(B)) float64.
    """
    import scipy.sparse as sp

    M = np.asarray(M, dtype=np.float64)
    cache = {}

    def quad(X, batch=1024):
        out = np.empty(X.shape[0])
        for lo in range(0, X.shape[0], batch):
            part = X[lo : lo + batch]
            XM = np.asarray(part @ M)
            out[lo : lo + batch] = (
                np.asarray(part.multiply(XM).sum(axis=1)).ravel()
                if sp.issparse(part)
                else np.einsum("ij,ij->i", part, XM)
            )
        return out

    def score(A, B):
        if cache.get("id") is not B:
            cache.update(id=B, qb=quad(B))
        AM = np.asarray(A @ M)
        cross = np.asarray(B @ AM.T).T
        qa = (
            np.asarray(A.multiply(AM).sum(axis=1)).ravel()
            if sp.issparse(A)
            else np.einsum("ij,ij->i", A, AM)
        )
        return 2.0 * cross - qa[:, None] - cache["qb"][None, :]

    return score
