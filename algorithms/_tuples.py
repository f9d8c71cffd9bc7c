"""Constraints as points, and row-wise products over tuples: the input side shared by every
learner (re-exported by :mod:`tripletbench.algorithms.base`, where the learners import it from).

* :func:`_as_points`: pairs or triplets, given as (n, k, d) points, (n, k) indices into a point
  matrix (dense or CSR) or indicators for a callable preprocessor, as (points, (n, k) indices),
  refused with a :class:`~tripletbench.algorithms._checks.DataError` naming the problem when
  unusable (NaN or inf, no constraint, every point the same vector);
* :class:`TupleRows` / :func:`tuple_rows`: the (n, d) factor of n tuples (rows X[plus[k]], or
  the differences X[plus[k]] - X[minus[k]]), gathered once when small, else chunk by chunk;
* :func:`row_bilinear`, :func:`row_dot`, :func:`row_sqnorm`, :func:`weighted_outer_sum`: the
  row-wise products of the learners, on arrays, CSR matrices or :class:`TupleRows` (the latter
  in chunks of ``TUPLE_CHUNK`` rows);
* :func:`check_feature_scale`: the range of feature values a learner's float64 arithmetic
  accepts (``DEFAULT_FEATURE_SCALE_RANGE``).

``TUPLE_CHUNK`` and ``GATHER_ONCE_BYTES`` are read here, at each call (the tests lower them on
this module).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ._checks import DataError


def row_bilinear(A, W, B) -> np.ndarray:
    """a_k^T W b_k for each row k of A and B ((n, d) arrays, CSR matrices or
    :class:`TupleRows`, the latter in chunks); shape (n,)."""
    if isinstance(A, TupleRows) or isinstance(B, TupleRows):
        return _by_rows(lambda s: row_bilinear(A[s], W, B[s]), len(A))
    AW = A @ W
    if sp.issparse(B):
        return np.asarray(B.multiply(AW).sum(axis=1)).ravel()
    return np.einsum("kd,kd->k", np.asarray(AW), B)


def row_dot(A, B) -> np.ndarray:
    """a_k . b_k for each row of A and B (arrays, CSR or :class:`TupleRows`, the latter in
    chunks); shape (n,)."""
    if isinstance(A, TupleRows) or isinstance(B, TupleRows):
        return _by_rows(lambda s: row_dot(A[s], B[s]), len(A))
    if sp.issparse(A) or sp.issparse(B):
        return np.asarray(sp.csr_matrix(A).multiply(B).sum(axis=1)).ravel()
    return np.einsum("kd,kd->k", A, B)


def row_sqnorm(A) -> np.ndarray:
    """||a_k||^2 for each row of A (array, CSR or :class:`TupleRows`); shape (n,)."""
    if isinstance(A, TupleRows):
        return _by_rows(lambda s: row_sqnorm(A[s]), len(A))
    return row_dot(A, A)


def dense(X) -> np.ndarray:
    """X as a dense float64 array (from an array or a scipy.sparse matrix)."""
    return X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)


def weighted_outer_sum(A, c, Z) -> np.ndarray:
    """sum_k c_k a_k z_k^T = A^T diag(c) Z as a dense (d, d) array (A, Z arrays, CSR or
    :class:`TupleRows`, the latter summed over chunks)."""
    if isinstance(A, TupleRows) or isinstance(Z, TupleRows):
        out = np.zeros((A.shape[1], Z.shape[1]))
        for lo in range(0, len(A), TUPLE_CHUNK):
            s = slice(lo, lo + TUPLE_CHUNK)
            out += weighted_outer_sum(A[s], c[s], Z[s])
        return out
    if sp.issparse(A) or sp.issparse(Z):
        out = sp.csr_matrix(A).multiply(c[:, None]).T @ sp.csr_matrix(Z)
        return np.asarray(out.toarray())
    return (A * c[:, None]).T @ Z


def _as_points(constraints, preprocessor, arity: int, what: str, to_fit: bool = True):
    """(X, idx): a float64 point matrix (or CSR matrix) and an int (n, arity) index array into it.
    ``to_fit``: also refuse constraints whose points are all one vector (nothing to learn); a
    model scores such tuples (distance 0)."""
    if sp.issparse(preprocessor) and not sp.issparse(constraints):
        c = np.asarray(constraints)
        if not (c.ndim == 2 and c.shape[1] == arity and np.issubdtype(c.dtype, np.integer)):
            raise DataError(f"with a sparse preprocessor, {what} must be (n, {arity}) int indices")
        X = sp.csr_matrix(preprocessor, dtype=np.float64)
        X.sum_duplicates()
        if c.size and (c.min() < 0 or c.max() >= X.shape[0]):
            raise DataError(f"{what} indices out of range [0, {X.shape[0]})")
        if len(c) == 0:
            raise DataError(f"zero usable {what}")
        if X.shape[1] == 0:
            raise DataError(f"{what}: the points have zero features")
        if not np.all(np.isfinite(X.data)):
            raise DataError(f"{what}: the points contain NaN or inf")
        if arity == 3 and np.all(c[:, 1] == c[:, 2]):
            raise DataError(
                f"{what}: in every triplet the positive is the negative (the same point), so "
                "none orders anything; check the columns are (anchor, positive, negative)"
            )
        return X, c
    c = np.asarray(constraints)
    if c.ndim == 3:
        if c.shape[1] != arity:
            raise DataError(f"{what} must have shape (n, {arity}, d), got {c.shape}")
        if c.shape[2] == 0:
            raise DataError(f"{what}: the points have zero features, shape {c.shape}")
        X = c.reshape(-1, c.shape[2]).astype(np.float64)
        idx = np.arange(len(X)).reshape(-1, arity)
    elif c.ndim == 2 and c.shape[1] == arity and callable(preprocessor):
        keys, inverse = np.unique(c, return_inverse=True)  # each indicator is fetched once
        X = np.asarray(preprocessor(keys), dtype=np.float64)
        if X.ndim != 2 or X.shape[0] != len(keys):
            raise DataError(
                f"the preprocessor returned shape {X.shape} for {len(keys)} indicators; it must "
                "return one row of features per indicator, shape (n, d)"
            )
        idx = inverse.reshape(c.shape)
    elif c.ndim == 2 and c.shape[1] == arity and np.issubdtype(c.dtype, np.integer):
        if preprocessor is None:
            raise DataError(f"{what} given as indices need preprocessor=X (the point matrix)")
        X = np.asarray(preprocessor, dtype=np.float64)
        if c.size and (c.min() < 0 or c.max() >= len(X)):
            raise DataError(f"{what} indices out of range [0, {len(X)})")
        idx = c
    else:
        raise DataError(
            f"{what} must be (n, {arity}, d) points, (n, {arity}) int indices or (n, {arity}) "
            "indicators with a callable preprocessor, "
            f"got shape {c.shape} and dtype {c.dtype}"
        )
    if len(idx) == 0:
        raise DataError(f"zero usable {what}")
    if X.shape[1] == 0:
        raise DataError(f"{what}: the points have zero features")
    if not np.all(np.isfinite(X)):
        raise DataError(f"{what}: the points contain NaN or inf")
    if to_fit and _all_same_point(X, idx):
        raise DataError(
            f"{what}: every point they involve is the same vector (e.g. all-zero rows); "
            "they carry no distance information"
        )
    if arity == 3 and _every_positive_is_negative(X, idx):
        raise DataError(
            f"{what}: in every triplet the positive is the negative (the same point), so none "
            "orders anything; check the columns are (anchor, positive, negative)"
        )
    return X, idx


# Tuples (pairs, triplets) per chunk wherever all n of them are scored or differenced: the
# gathered points then take O(TUPLE_CHUNK d) memory, not O(n d) (1M pairs at d = 297 would
# otherwise gather 2.4 GB per side).
TUPLE_CHUNK = 65_536


class TupleRows:
    """Rows of an (n, d) factor of n tuples, gathered from the points when asked for, never as
    one (n, d) array: row k is X[plus[k]], or X[plus[k]] - X[minus[k]] with ``minus`` (a
    pair's difference, p+ - p-). ``F[k]`` (int) is row k, (d,); ``F[key]`` (int array or slice)
    the gathered rows, (m, d) (an array, or CSR for CSR points); ``len(F)`` is n, ``F.shape``
    (n, d); ``squared_norms()`` is ||row_k||^2, (n,) float64, in chunks. Every consumer of a
    factor (:func:`row_dot`, :func:`row_sqnorm`, :func:`row_bilinear`,
    :func:`weighted_outer_sum`, the dense engine's blocks) takes it in chunks of
    ``TUPLE_CHUNK`` rows. X: (N, d) float64 array or CSR; plus, minus: (n,) int."""

    def __init__(self, X, plus, minus=None):
        self.X, self.plus, self.minus = X, np.asarray(plus), minus
        self.shape = (len(self.plus), X.shape[1])

    def __len__(self) -> int:
        return len(self.plus)

    def __getitem__(self, key):
        rows = self.X[self.plus[key]]
        return rows if self.minus is None else rows - self.X[self.minus[key]]

    def squared_norms(self) -> np.ndarray:
        return row_sqnorm(self)


# A factor below this size is gathered once as an array (:func:`tuple_rows`): small problems
# keep the engine's single gather per block; larger ones (500K triplets at d = 297: 1.2 GB per
# factor) are gathered block by block.
GATHER_ONCE_BYTES = 64 * 2**20


def tuple_rows(X, plus, minus=None, gather_once_bytes: int | None = None):
    """The factor with rows X[plus[k]] (- X[minus[k]]): an (n, d) array (CSR for CSR X) when it
    takes at most ``gather_once_bytes`` (default ``GATHER_ONCE_BYTES``; for CSR X, always: its
    rows take O(nnz)), else a :class:`TupleRows` that gathers on demand. The rows are the same
    numbers either way."""
    limit = GATHER_ONCE_BYTES if gather_once_bytes is None else gather_once_bytes
    if sp.issparse(X) or len(plus) * X.shape[1] * 8 <= limit:
        rows = X[np.asarray(plus)]
        return rows if minus is None else rows - X[np.asarray(minus)]
    return TupleRows(X, plus, minus)


def _by_rows(fn, n: int, chunk: int | None = None) -> np.ndarray:
    """fn(slice) over consecutive slices of n rows (default ``TUPLE_CHUNK``), concatenated:
    (n,) float64 (one call, no concatenation, when n fits one chunk)."""
    chunk = TUPLE_CHUNK if chunk is None else chunk
    if n <= chunk:
        return np.asarray(fn(slice(0, n)), dtype=np.float64)
    return np.concatenate(
        [np.asarray(fn(slice(lo, lo + chunk)), dtype=np.float64) for lo in range(0, n, chunk)]
    )


def _every_positive_is_negative(X, idx, chunk: int = 4096) -> bool:
    """True if in every triplet row (a, p, n) of ``idx`` the positive and the negative are the
    same point (the same index, or equal rows of dense X); checked in chunks."""
    same = idx[:, 1] == idx[:, 2]
    if same.all():
        return True
    rows = np.flatnonzero(~same)
    for lo in range(0, len(rows), chunk):
        r = rows[lo : lo + chunk]
        if np.any(X[idx[r, 1]] != X[idx[r, 2]]):
            return False
    return True


def _all_same_point(X, idx, chunk: int = 4096) -> bool:
    """True if every row of X that ``idx`` refers to equals the first one (dense X; checked in
    chunks, no copy of X)."""
    used = np.unique(idx)
    first = X[used[0]]
    for lo in range(0, len(used), chunk):
        if np.any(X[used[lo : lo + chunk]] != first):
            return False
    return True


def tuple_size(tuples):
    """2 or 3: the arity of pairs / triplets given as (n, k, d) points or (n, k) indicators;
    None for anything else (a sparse matrix, a 1-D array, ...)."""
    if sp.issparse(tuples):
        return None
    shape = np.shape(tuples)
    if len(shape) == 3 or (len(shape) == 2 and shape[1] in (2, 3)):
        return shape[1]
    return None


DEFAULT_FEATURE_SCALE_RANGE = (1e-12, 1e12)
"""The largest absolute feature value a learner accepts at fit, unless it declares its own
``feature_scale_range``. The learners' arithmetic takes products of up to four features (OASIS'
step size, SDCA's Gram terms, RDML's and LEGO's quadratic forms, ITML's and OPML's log-det
steps) and most hold hyperparameters in the features' units (a margin of 1, an identity start, a
learning rate): beyond this range float64 overflows to inf / NaN or underflows to 0 and a fit
returns a chance-level or degenerate model without a warning (measured on blobs and vehicle at
1e+-100 and 1e+-300). Inside it, every learner either learns or raises its own clear error."""


def check_feature_scale(X, scale_range, name: str = "features") -> None:
    """Raise :class:`~tripletbench.datasets.base.DataError` naming ``name``, the largest absolute value of
    ``X`` ((n, d) array or CSR matrix) and the remedy when that value lies outside
    ``scale_range`` = (low, high), i.e. when the features are so large or so small that the
    learner's float64 arithmetic would overflow or underflow. All-zero X passes (refused
    elsewhere, as "every point the same vector")."""
    low, high = scale_range
    values = X.data if sp.issparse(X) else np.asarray(X)
    if values.size == 0:
        return
    big = float(np.max(np.abs(values)))
    if big == 0.0 or low <= big <= high:
        return
    side = "large" if big > high else "small"
    raise DataError(
        f"{name}: the largest absolute feature value is {big:.3g}, too {side} for this learner "
        f"(it accepts {low:g} to {high:g}): its float64 arithmetic would "
        f"{'overflow' if side == 'large' else 'underflow'} and the fit would return a "
        "meaningless (chance-level) model. Standardise or scale the features first, e.g. to "
        "[-1, 1] (tripletbench.datasets.preprocess.minmax_scale) or to unit variance"
    )
