"""Shared base classes of the learners: input handling, scoring API, and the online loop.

API (compatible with metric-learn 0.7.0: README, "API against metric-learn 0.7"; metric-learn's
``base_metric.py`` is the reference for the names and their meanings):

* constructor: hyperparameters only (paper symbols in the docstrings), ``preprocessor``,
  ``random_state``, ``verbose``; fitted attributes end in ``_``; the RNG is made in ``fit``.
* constraints are either arrays of points, (n, 3, d) triplets / (n, 2, d) pairs, or (n, 3) /
  (n, 2) arrays of indicators resolved by ``preprocessor``: an (n_samples, d) array (int indices
  into it), or a callable that maps a 1-D array of indicators to their (len, d) points
  (metric-learn's "function preprocessor": paths, ids, ...). Triplet rows are
  (anchor, positive, negative).
* ``pair_score(pairs)``: higher = more similar. Mahalanobis learners: -d_M (metric-learn's
  meaning, not -d_M^2); bilinear learners: x^T W y. ``pair_distance(pairs)``: d_M, only where a
  distance exists (a bilinear learner has none: the attribute raises ``AttributeError``, as in
  metric-learn's unmerged bilinear branch, where it raises an ``Exception``).
* triplets (metric-learn's ``_TripletsClassifierMixin``): ``decision_function`` =
  pair_score(a, p) - pair_score(a, n), ``predict`` in {-1, +1}, ``score`` = triplet accuracy
  (ties count as wrong).
* pair learners (:class:`PairClassifierMixin`, metric-learn's ``_PairsClassifierMixin``): the
  same methods on (n, 2) pairs with labels in {-1, +1}: ``decision_function`` = pair_score,
  ``predict`` thresholds the distance at ``threshold_`` (calibrated on the training pairs at the
  end of ``fit``), ``score(pairs, y)`` = ROC AUC; on triplets they behave as above.
* ``get_metric()`` (a function of two 1-D points, independent of later changes to the learner),
  ``components_`` / ``get_mahalanobis_matrix()`` / ``transform`` (Mahalanobis),
  ``get_bilinear_matrix()`` (bilinear), ``similarity_matrix`` for ranking.
* each learner says which constraints it learns from in ``constraint_kind``: "triplets",
  "pairs" (with +1/-1 labels), "chunklets" (RCA) or "labels" (LMNN, OPML, the
  ``*_Supervised`` variants of :mod:`tripletbench.algorithms.supervised`).

Errors, shared by every learner: scoring an unfitted model raises scikit-learn's
``NotFittedError``; unusable data (NaN or inf, no constraint, every point the same vector) raises
:class:`~tripletbench.datasets.base.DataError` naming the problem; a hyperparameter shared by several learners
that is out of range (``block_size < 1``, negative ``n_epochs``, ``n_passes <= 0``, an unknown
``sampling``) or a string where a number belongs raises ``ValueError`` / ``TypeError`` naming the
hyperparameter (:meth:`BaseLearner._check_common_params`, run at fit and by the config check).
"""

from __future__ import annotations

import copy
import inspect
import numbers
import time
import warnings
import weakref

import numpy as np
import scipy.sparse as sp
from scipy.linalg.blas import dgemm as _dgemm
from sklearn.base import BaseEstimator
from sklearn.metrics import roc_auc_score
from sklearn.utils.validation import check_array, check_is_fitted, validate_data
from threadpoolctl import ThreadpoolController
from tqdm.auto import tqdm

from ._checks import DataError, check_labelled
from .kernels import as_float_array, dense_block_steps, jit, sparse_steps


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
        if not np.all(np.isfinite(X.data)):
            raise DataError(f"{what}: the points contain NaN or inf")
        return X, c
    c = np.asarray(constraints)
    if c.ndim == 3:
        if c.shape[1] != arity:
            raise DataError(f"{what} must have shape (n, {arity}, d), got {c.shape}")
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
    if not np.all(np.isfinite(X)):
        raise DataError(f"{what}: the points contain NaN or inf")
    if to_fit and _all_same_point(X, idx):
        raise DataError(
            f"{what}: every point they involve is the same vector (e.g. all-zero rows); "
            "they carry no distance information"
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


def _vector(u) -> np.ndarray:
    """A 1-D float64 point for :meth:`get_metric`'s functions; ``ValueError`` otherwise."""
    u = np.asarray(u, dtype=np.float64)
    if u.ndim != 1:
        raise ValueError(f"get_metric's function takes two 1-D points, got shape {u.shape}")
    return u


def is_number(value) -> bool:
    """True for a real number (Python or NumPy int or float), False for bool, str, None, ..."""
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


class BaseLearner(BaseEstimator):
    """Common scoring API. Subclasses implement ``similarity_matrix`` and ``pair_score``."""

    constraint_kind = "triplets"
    feature_scale_range = DEFAULT_FEATURE_SCALE_RANGE  # see check_feature_scale
    _fitted_attributes = None  # what fit sets (checked before scoring); None: any name ending in _
    _zero_epochs_ok = True  # n_epochs = 0 leaves the model at its initialisation (OAHU-init)

    def __init_subclass__(cls, **kwargs):
        """A learner's own ``_check_params`` runs :meth:`_check_common_params` first, so that
        every learner (and the config check, which calls ``_check_params``) rejects a string where
        a number belongs, ``block_size < 1`` or negative epochs with the same clear message."""
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("_check_params")
        if own is not None and not getattr(own, "_runs_common_checks", False):

            def _check_params(self, *args, _own=own, **kw):
                self._check_common_params()
                return _own(self, *args, **kw)

            _check_params.__doc__ = own.__doc__
            _check_params._runs_common_checks = True
            cls._check_params = _check_params

    def _points(self, constraints, arity, what, to_fit=True):
        X, idx = _as_points(constraints, getattr(self, "preprocessor", None), arity, what, to_fit)
        if to_fit:
            self._check_feature_scale(X, what)
        return X, idx

    def _check_feature_scale(self, X, what: str = "features"):
        """Refuse points whose largest absolute feature value lies outside
        ``feature_scale_range`` (:func:`check_feature_scale`); run by every fit and partial_fit
        (through :meth:`_points`, :meth:`LabelledMixin._validate_labelled`, or the learner's own
        input check)."""
        check_feature_scale(X, self.feature_scale_range, f"{type(self).__name__} {what}")

    def _check_fitted(self):
        """Raise scikit-learn's ``NotFittedError`` if ``fit`` has not run."""
        check_is_fitted(self, self._fitted_attributes)

    def _check_common_params(self):
        """Check the hyperparameters several learners share, and the types of all of them.

        * a hyperparameter whose default is a number must be a number (not a string, a bool or
          None): ``TypeError`` naming it;
        * ``block_size``: an int >= 1 (the blocked engine would never advance with 0) or "auto";
        * ``n_epochs``: a finite number >= 0 (> 0 for the bilinear learners, whose step count
          ``round(n_epochs * n)`` would silently become one step);
        * ``n_passes``: a finite number > 0;
        * ``sampling``: "uniform", "permutation" or "sequential".

        Raises ``ValueError`` naming the hyperparameter and its value. Learner-specific ranges are
        each learner's ``_check_params``."""
        name = type(self).__name__
        params = self.get_params(deep=False)
        defaults = {
            k: p.default
            for k, p in inspect.signature(type(self).__init__).parameters.items()
            if p.default is not inspect.Parameter.empty
        }
        for key, value in params.items():
            if is_number(defaults.get(key)) and not is_number(value):
                raise TypeError(
                    f"{name} hyperparameter {key} must be a number, got {value!r} "
                    f"({type(value).__name__})"
                )
        if "block_size" in params:
            b = params["block_size"]
            if b != "auto" and not (
                isinstance(b, numbers.Integral) and not isinstance(b, bool) and b >= 1
            ):
                raise ValueError(f"{name}: block_size must be an int >= 1 or 'auto', got {b!r}")
        if "n_epochs" in params:
            e = params["n_epochs"]
            low_ok = e >= 0 if self._zero_epochs_ok else e > 0
            if not (np.isfinite(e) and low_ok):
                bound = ">= 0" if self._zero_epochs_ok else "> 0"
                raise ValueError(f"{name}: n_epochs must be a finite number {bound}, got {e!r}")
        if "n_passes" in params:
            n = params["n_passes"]
            if not (np.isfinite(n) and n > 0):
                raise ValueError(f"{name}: n_passes must be a finite number > 0, got {n!r}")
        if "sampling" in params and params["sampling"] not in SAMPLINGS:
            raise ValueError(
                f"{name}: sampling must be one of {SAMPLINGS}, got {params['sampling']!r}"
            )

    def _triplet_margins(self, triplets) -> np.ndarray:
        """pair_score(a, p) - pair_score(a, n) for each triplet (a, p, n); shape (n,); computed
        in chunks of ``TUPLE_CHUNK`` triplets (memory O(chunk d), not O(n d))."""
        self._check_fitted()
        X, idx = self._points(triplets, 3, "triplets", to_fit=False)

        def margins(t):
            A = X[t[:, 0]]
            return self._pair_score_points(A, X[t[:, 1]]) - self._pair_score_points(A, X[t[:, 2]])

        return _by_rows(lambda s: margins(idx[s]), len(idx))

    def decision_function(self, triplets) -> np.ndarray:
        """pair_score(anchor, positive) - pair_score(anchor, negative) for each triplet ((n, 3, d)
        points or (n, 3) indicators); float64, shape (n,); > 0 where the triplet is ordered
        correctly (metric-learn's ``_TripletsClassifierMixin``; for a Mahalanobis learner
        d_M(a, n) - d_M(a, p))."""
        return self._triplet_margins(triplets)

    def predict(self, triplets) -> np.ndarray:
        """+1 where the positive is more similar to the anchor than the negative, else -1;
        int, shape (n,)."""
        return np.where(self._triplet_margins(triplets) > 0, 1, -1)

    def score(self, triplets) -> float:
        """Triplet accuracy: fraction of triplets ranked correctly (ties count as wrong)."""
        return float(np.mean(self._triplet_margins(triplets) > 0))

    def _labelled_pair_differences(self, pairs, y):
        """(X, the pairs' differences x_i - x_j as a :class:`TupleRows` (gathered per step, never
        the (n, d) array), y as int array) for pair learners; checks y in {+1, -1}."""
        X, idx = self._points(pairs, 2, "pairs")
        y = np.asarray(y)
        if y.shape != (len(idx),) or not np.all(np.isin(y, (-1, 1))):
            raise ValueError("y must hold one label in {+1, -1} per pair")
        return X, TupleRows(X, idx[:, 0], idx[:, 1]), y

    def pair_score(self, pairs) -> np.ndarray:
        """Similarity of each pair ((n, 2, d) points or (n, 2) indicators), float64, shape (n,);
        higher = more similar (a Mahalanobis learner: -d_M, metric-learn's meaning)."""
        self._check_fitted()
        X, idx = self._points(pairs, 2, "pairs", to_fit=False)
        return _by_rows(lambda s: self._pair_score_points(X[idx[s, 0]], X[idx[s, 1]]), len(idx))

    def get_metric(self):
        """A function ``f(u, v)`` of two 1-D points (d,) giving their learned distance, or, for a
        learner without a distance, their similarity, as a float; it uses a frozen copy of the
        model (later fits do not change it), as metric-learn's ``get_metric``. Raises
        ``NotFittedError`` before ``fit``. (Mahalanobis and bilinear learners override this with
        a closed form.)"""
        self._check_fitted()
        frozen = copy.copy(self)
        frozen.preprocessor = None  # not copied: the function takes points
        frozen = copy.deepcopy(frozen)
        by_distance = hasattr(frozen, "pair_distance")

        def metric_fun(u, v):
            pair = np.stack([_vector(u), _vector(v)])[None]
            value = frozen.pair_distance(pair) if by_distance else frozen.pair_score(pair)
            return float(value[0])

        return metric_fun


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


class PairClassifierMixin:
    """metric-learn's pair-classifier API (``_PairsClassifierMixin``) for the pair learners
    (ITML, LEGO, online ITML, RDML), on top of the triplet API of :class:`BaseLearner`.

    The tuple size of the input decides: (n, 2, d) / (n, 2) pairs get the pair methods,
    triplets the triplet methods (``decision_function``, ``predict``, ``score``).

    Pairs: ``decision_function`` = ``pair_score`` (-d); ``predict`` = +1 where
    d <= ``threshold_`` else -1; ``score(pairs, y)`` = ROC AUC of ``decision_function``
    (scikit-learn's ``roc_auc_score``). ``threshold_`` (a distance) is set at the end of ``fit`` by
    :meth:`calibrate_threshold` on the training pairs (strategy "accuracy", as metric-learn), or
    by :meth:`set_threshold`.
    """

    def _calibrate_after_fit(self, pairs, y, calibration_params):
        self.calibrate_threshold(pairs, y, **(calibration_params or {}))

    def decision_function(self, tuples) -> np.ndarray:
        """Pairs: pair_score (-d), shape (n,); triplets: as
        :meth:`BaseLearner.decision_function`."""
        if tuple_size(tuples) == 2:
            return self.pair_score(tuples)
        return super().decision_function(tuples)

    def predict(self, tuples) -> np.ndarray:
        """Pairs: +1 (similar) where the distance is <= ``threshold_``, else -1; triplets: see
        :meth:`BaseLearner.predict`. Raises ``NotFittedError`` before ``fit``."""
        if tuple_size(tuples) != 2:
            return super().predict(tuples)
        self._check_fitted()
        check_is_fitted(self, "threshold_")
        return np.where(-self.pair_score(tuples) <= self.threshold_, 1, -1)

    def score(self, tuples, y=None) -> float:
        """Pairs with labels ``y`` (n,) in {-1, +1}: ROC AUC of ``decision_function`` (as
        metric-learn's pair classifiers); triplets (no ``y``): triplet accuracy.
        Raises ``ValueError`` for pairs without labels or triplets with labels."""
        if tuple_size(tuples) != 2:
            if y is not None:
                raise ValueError("triplets carry their own order: score(triplets) takes no y")
            return super().score(tuples)
        if y is None:
            raise ValueError("score(pairs, y) needs the pair labels y in {-1, +1}")
        return float(roc_auc_score(y, self.decision_function(tuples)))

    def set_threshold(self, threshold):
        """Set ``threshold_`` (a distance: pairs at distance <= threshold are similar); returns
        self. Raises ``ValueError`` unless ``threshold`` is a real number."""
        self._check_fitted()
        if not is_number(threshold):
            raise ValueError(f"threshold must be a real number, got {threshold!r}")
        self.threshold_ = float(threshold)
        return self

    def calibrate_threshold(self, pairs, y, strategy="accuracy", min_rate=None, beta=1.0):
        """Choose ``threshold_`` on labelled pairs (metric-learn's strategies and names).

        The candidates are "similar iff d <= d_k" for every distinct distance d_k of the pairs,
        and "nothing is similar" (``threshold_`` = -inf). Strategy:

        * "accuracy": the candidate of highest accuracy;
        * "f_beta": highest F_beta = (1 + beta^2) TP / ((1 + beta^2) TP + beta^2 FN + FP) (0 for
          TP = 0);
        * "max_tpr": highest true positive rate among those with true negative rate >= min_rate;
        * "max_tnr": highest true negative rate among those with true positive rate >= min_rate.

        Ties go to the first candidate in increasing distance order (the smallest threshold, the
        most conservative); "nothing is similar" comes first. ``pairs``: (n, 2, d) or (n, 2)
        indicators; ``y``: (n,) in {-1, +1}. Returns self. Raises ``ValueError`` for an unknown
        strategy, ``min_rate`` outside [0, 1] (max_tpr / max_tnr), labels outside {-1, +1}, or
        rates that need both labels when one is missing. (metric-learn 0.7.0 offers the same
        four strategies; its "accuracy" also scores positions inside a group of equal distances,
        which a threshold cannot separate; here only whole groups are candidates.)
        """
        if strategy not in ("accuracy", "f_beta", "max_tpr", "max_tnr"):
            raise ValueError(
                f"strategy must be 'accuracy', 'f_beta', 'max_tpr' or 'max_tnr', got {strategy!r}"
            )
        if strategy in ("max_tpr", "max_tnr") and not (is_number(min_rate) and 0 <= min_rate <= 1):
            raise ValueError(f"strategy {strategy!r} needs min_rate in [0, 1], got {min_rate!r}")
        if strategy == "f_beta" and not (is_number(beta) and beta >= 0):
            raise ValueError(f"beta must be a number >= 0, got {beta!r}")
        scores = self.pair_score(pairs)
        y = np.asarray(y)
        if y.shape != scores.shape or not np.all(np.isin(y, (-1, 1))):
            raise ValueError("y must hold one label in {+1, -1} per pair")
        s, tp, fp = _accept_counts(scores, y)
        P, N = int(np.sum(y == 1)), int(np.sum(y == -1))
        if strategy != "accuracy" and (P == 0 or (strategy != "f_beta" and N == 0)):
            raise ValueError(f"strategy {strategy!r} needs pairs of both labels")
        if strategy == "accuracy":
            value = (tp + (N - fp)) / len(y)
        elif strategy == "f_beta":
            b2 = beta * beta
            denom = (1 + b2) * tp + b2 * (P - tp) + fp
            value = np.where(tp > 0, (1 + b2) * tp / np.maximum(denom, 1), 0.0)
        elif strategy == "max_tpr":
            value = np.where(1 - fp / N >= min_rate, tp / P, -1.0)
        else:
            value = np.where(tp / P >= min_rate, 1 - fp / N, -1.0)
        self.threshold_ = float(-s[int(np.argmax(value))])
        return self


def class_triplet_accuracy(similarity, X, y, batch_size: int = 256) -> float:
    """Triplet accuracy over ALL class triplets of labelled points: the fraction of the triplets
    (a, p, n) of distinct rows with y_p = y_a != y_n for which s(a, p) > s(a, n) (ties count as
    wrong, as :meth:`BaseLearner.score`).

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
            correct += int(np.searchsorted(neg, pos, side="left").sum())
            total += len(pos) * len(neg)
    if total == 0:
        raise ValueError("no class triplet: the labels need two classes and a class with two rows")
    return correct / total


class LabelledMixin:
    """What learners fitted on labelled points (X, y) share (LMNN, OPML and the ``*_Supervised``
    variants): scikit-learn's input validation (``n_features_in_``; errors for 1-D, complex,
    object or empty X) before the project's own checks, the tag "y is required", and
    ``score(X, y)`` = :func:`class_triplet_accuracy` (``score(triplets)`` without y stays the
    triplet accuracy of given triplets)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags

    def _validate_labelled(self, X, y, min_classes=1, min_per_class=1, reset=True):
        """(X float64 (n, d), y (n,)): scikit-learn's ``validate_data`` (sets
        ``n_features_in_``, or with ``reset=False`` checks X against it; NaN/inf and zero rows are
        left to :func:`~tripletbench.datasets.preprocess.check_labelled`, whose ``DataError`` names the rows),
        then ``check_labelled``."""
        X, y = validate_data(
            self, X, y, dtype=np.float64, ensure_all_finite=False, ensure_min_samples=0, reset=reset
        )
        X, y = check_labelled(X, y, f"{type(self).__name__} input", min_classes, min_per_class)
        self._check_feature_scale(X, "input")
        return X, y

    def score(self, X, y=None) -> float:
        """With labels: :func:`class_triplet_accuracy` of ``similarity_matrix`` on (X (n, d),
        y (n,)); without: the triplet accuracy of triplets X ((n, 3, d) or (n, 3) indicators)."""
        if y is None:
            return float(np.mean(self._triplet_margins(X) > 0))
        self._check_fitted()
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return class_triplet_accuracy(self.similarity_matrix, X, np.asarray(y))


class BilinearMixin:
    """Bilinear similarity s_W(x, y) = x^T W y (OASIS, SDCA, COMET); fitted attribute ``W_``
    (d, d), neither symmetric nor PSD in general.

    There is no distance: ``pair_distance`` does not exist (accessing it raises
    ``AttributeError``, so ``hasattr(model, "pair_distance")`` is False); metric-learn 0.7.0 has no
    bilinear learner, its unmerged bilinear branch (``BilinearMixin``, commit 190b9c0 of
    scikit-learn-contrib/metric-learn) raises an ``Exception`` there and names W ``components_``,
    as here."""

    _fitted_attributes = "W_"
    _zero_epochs_ok = False

    def get_bilinear_matrix(self) -> np.ndarray:
        """W (d, d) float64 (the fitted array itself). Raises ``NotFittedError`` before fit."""
        self._check_fitted()
        return self.W_

    @property
    def components_(self) -> np.ndarray:
        """W (d, d): metric-learn's bilinear branch's name for the bilinear matrix."""
        return self.get_bilinear_matrix()

    @property
    def pair_distance(self):
        raise AttributeError(
            f"{type(self).__name__} learns a bilinear similarity x^T W y, not a distance: it has "
            "no pair_distance; use pair_score"
        )

    def get_metric(self):
        """``f(u, v)`` = u^T W v for two 1-D points (a similarity), with a copy of W (later fits
        do not change it). Raises ``NotFittedError`` before fit."""
        W = self.get_bilinear_matrix().copy()

        def similarity_fun(u, v):
            return float(_vector(u) @ W @ _vector(v))

        return similarity_fun

    def _stream(
        self,
        W,
        terms,
        n_constraints,
        n_steps,
        rule,
        generator,
        on_checkpoint=None,
        hook=None,
        hook_at=(),
        par=(),
        state=None,
        points=None,
    ):
        """Run ``n_steps`` online steps of :func:`bilinear_stream` on W with constraints drawn by
        ``self.sampling`` (``rule``, ``par``, ``state``, ``hook``, ``hook_at``, ``points``: see
        there; the trace's loss is ``self.trace_loss``, both losses are kept with
        ``self.trace_losses``); sets ``trace_``, ``n_steps_``, ``order_``, ``stream_seconds_``
        (wall) and ``stream_cpu_seconds_`` (process CPU time)."""
        self._check_common_params()
        order = sample_order(n_constraints, n_steps, generator, self.sampling)
        rec = TraceRecorder(
            n_steps, on_checkpoint, self.verbose, type(self).__name__, self.trace_losses
        )
        t_start, c_start = time.perf_counter(), time.process_time()
        bilinear_stream(
            W,
            terms,
            order,
            rule,
            rec,
            self.block_size,
            hook,
            hook_at,
            par,
            state,
            self.trace_loss,
            points=points,
        )
        self.stream_seconds_ = time.perf_counter() - t_start
        self.stream_cpu_seconds_ = time.process_time() - c_start
        self.trace_, self.n_steps_, self.order_ = rec.trace, n_steps, order
        return W

    def _pair_score_points(self, A, B):
        return row_bilinear(A, self.W_, B)

    def similarity_matrix(self, X, Y) -> np.ndarray:
        """(n_x, n_y) matrix of x^T W y, float64, C-ordered (each query's row contiguous, so that
        ranking a row sorts contiguous memory); X, Y arrays or CSR, the result is dense."""
        self._check_fitted()
        XW = np.asarray(X @ self.W_)
        if sp.issparse(Y):
            return np.ascontiguousarray(np.asarray(Y @ XW.T).T)
        return XW @ np.asarray(Y).T


_FACTORS = weakref.WeakKeyDictionary()  # model -> (M_ when factored, its factor L)


class MahalanobisMixin:
    """Mahalanobis distance d_M(x, y) = sqrt((x-y)^T M (x-y)); fitted attribute ``M_`` (d, d) PSD.

    metric-learn's ``MahalanobisMixin`` meanings: ``pair_distance`` = d_M, ``pair_score`` = -d_M,
    ``components_`` = L with L^T L = M, ``transform(X)`` = X L^T, ``get_metric`` = d_M.
    :meth:`similarity_matrix` (ranking) is -d_M^2: the same order as -d_M (the square root is
    increasing), without the square roots; the tables' mAP, precision and Recall@K use it."""

    _fitted_attributes = "M_"

    def get_mahalanobis_matrix(self) -> np.ndarray:
        """A copy of M (d, d) float64. Raises ``NotFittedError`` before fit."""
        self._check_fitted()
        return self.M_.copy()

    @property
    def components_(self) -> np.ndarray:
        """L (d, d) float64, read-only, with L^T L = M: metric-learn's own conversion
        (``metric_learn._util.components_from_metric`` on the symmetric part of M: the square
        root of a diagonal M, else the Cholesky factor, else the eigendecomposition), so that
        ``transform`` gives metric-learn's coordinates for the same M; where metric-learn refuses
        M as not PSD beyond rounding, the eigendecomposition with negative eigenvalues clipped
        to 0. A learner whose library learned L itself (LMNN, RCA, external learners) keeps that
        L (its fit sets ``_library_components``).
        Recomputed only when ``M_`` has changed since the last call (online learners update M_
        in place); the cache lives outside the instance. Raises ``NotFittedError``."""
        self._check_fitted()
        library = getattr(self, "_library_components", None)
        if library is not None:
            return library
        M = self.M_
        hit = _FACTORS.get(self)
        if hit is None or hit[0].shape != M.shape or not np.array_equal(hit[0], M):
            L = _components_from_metric((M + M.T) / 2)
            L.setflags(write=False)
            hit = (M.copy(), L)
            _FACTORS[self] = hit
        return hit[1]

    def components(self) -> np.ndarray:
        """``components_`` (kept for earlier callers)."""
        return self.components_

    def transform(self, X) -> np.ndarray:
        """X L^T for X (n, d) (array-like, finite): Euclidean distances there are d_M; float64
        (n, d). Raises ``NotFittedError`` before fit and ``ValueError`` for another d (message as
        scikit-learn's), NaN/inf or a non-2-D X."""
        L = self.components_
        X = check_array(X, dtype=np.float64)
        if X.shape[1] != L.shape[1]:
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                f"{L.shape[1]} features as input."
            )
        return X @ L.T

    def _pair_score_points(self, A, B):
        D = A - B
        return -np.sqrt(np.clip(np.einsum("ij,ij->i", D @ self.M_, D), 0, None))

    def pair_distance(self, pairs) -> np.ndarray:
        """d_M of each pair ((n, 2, d) points or (n, 2) indicators), float64 (n,) >= 0."""
        return -self.pair_score(pairs)

    def score_pairs(self, pairs) -> np.ndarray:
        """d_M of each pair, with metric-learn 0.7's ``FutureWarning`` (it deprecated
        ``score_pairs`` for ``pair_distance`` / ``pair_score``; same values and warning text)."""
        warnings.warn(
            "score_pairs will be deprecated in release 0.7.0. Use pair_score to compute "
            "similarity scores, or pair_distances to compute distances.",
            FutureWarning,
            stacklevel=2,
        )
        return self.pair_distance(pairs)

    def get_metric(self):
        """``f(u, v, squared=False)`` = d_M(u, v) (d_M^2 if ``squared``) for two 1-D points, with a
        copy of L (later fits do not change it); usable as ``metric=`` of scikit-learn's
        neighbours estimators. Raises ``NotFittedError`` before fit."""
        L = np.array(self.components_)

        def metric_fun(u, v, squared=False):
            z = L @ (_vector(u) - _vector(v))
            d2 = float(z @ z)
            return d2 if squared else float(np.sqrt(d2))

        return metric_fun

    def similarity_matrix(self, X, Y) -> np.ndarray:
        """(len(X), len(Y)) matrix of -d_M(x, y)^2, float64 (same order as ``pair_score``).

        Computed as ||Lx||^2 + ||Ly||^2 - 2 (Lx)^T (Ly) by BLAS (scikit-learn's
        ``euclidean_distances``, negatives from rounding clipped to 0): 20-40 times faster than
        scipy's ``cdist`` at d = 784; differences from the direct sum are rounding (~1e-12
        relative)."""
        from sklearn.metrics.pairwise import euclidean_distances

        L = self.components_
        return -euclidean_distances(np.asarray(X) @ L.T, np.asarray(Y) @ L.T, squared=True)

    def prepare_database(self, Y):
        """``f(X)`` = ``similarity_matrix(X, Y)`` for one fixed database ``Y`` (n_y, d), with
        Y L^T and its squared row norms computed once here instead of once per query batch (at a
        1M-item database and d = 297, each batch would otherwise redo a 1.8e11-flop product).
        Same numbers as :meth:`similarity_matrix` (scikit-learn's ``euclidean_distances`` given
        the same ``Y_norm_squared`` it would compute). Memory: one (n_y, d) float64 copy."""
        from sklearn.metrics.pairwise import euclidean_distances
        from sklearn.utils.extmath import row_norms

        L = self.components_
        Z = np.asarray(Y) @ L.T
        zz = row_norms(Z, squared=True)[np.newaxis, :]

        def scores(X) -> np.ndarray:
            return -euclidean_distances(np.asarray(X) @ L.T, Z, Y_norm_squared=zz, squared=True)

        return scores


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


def checkpoints(n_steps: int, per_decade: int = 10) -> np.ndarray:
    """Geometrically spaced steps 1..n_steps (about ``per_decade`` per factor 10, always n_steps);
    empty for n_steps = 0 (a learner left at its initialisation)."""
    if n_steps <= 0:
        return np.zeros(0, dtype=np.int64)
    n = max(int(np.ceil(per_decade * np.log10(max(n_steps, 1)))) + 1, 2)
    return np.unique(np.append(np.geomspace(1, n_steps, n).round().astype(np.int64), n_steps))


SAMPLINGS = ("uniform", "permutation", "sequential")


def sample_order(
    n_constraints: int, n_steps: int, generator: np.random.Generator, sampling: str
) -> np.ndarray:
    """Which constraint each of the ``n_steps`` online steps sees (int64, (n_steps,)).

    * "uniform": i.i.d. uniform with replacement (OASIS, SDCA's Algorithm 1);
    * "permutation": a fresh random permutation each pass;
    * "sequential": the constraints in their given order, pass after pass (a data stream).
    """
    if sampling == "uniform":
        return generator.integers(n_constraints, size=n_steps)
    if sampling == "permutation":
        passes = -(-n_steps // n_constraints)
        return np.concatenate([generator.permutation(n_constraints) for _ in range(passes)])[
            :n_steps
        ]
    if sampling == "sequential":
        return np.arange(n_steps) % n_constraints
    raise ValueError(f"unknown sampling {sampling!r}: 'uniform', 'permutation' or 'sequential'")


class TraceRecorder:
    """Cumulative online statistics at geometric checkpoints (``checkpoints(n_steps)``).

    ``record(t, loss, mistake, updated)`` is called once per step t = 1..n_steps with the loss
    and mistake of the constraint *before* its update and whether it changed the model. At each
    checkpoint the average cumulative loss, the online mistake rate and the constraint utilization
    (fraction of steps that changed the model) are stored, plus whatever ``on_checkpoint(t)``
    returns (a dict), called when the model is at its state after step t.
    """

    def __init__(self, n_steps, on_checkpoint=None, verbose=False, desc="", keep_sums=False):
        self.marks = checkpoints(n_steps)
        self.on_checkpoint = on_checkpoint
        self.keep_sums = keep_sums
        self.trace = {"step": [], "avg_cumulative_loss": [], "mistake_rate": [], "utilization": []}
        self._loss = self._mistakes = self._updates = 0.0
        self._sums = {}
        self._next = 0
        self._bar = tqdm(
            total=n_steps, disable=not verbose, desc=desc, mininterval=1.0, leave=False
        )

    def next_mark(self, t: int) -> int:
        """The first checkpoint >= t."""
        return int(self.marks[np.searchsorted(self.marks, t)])

    def record(self, t, loss, mistake, updated):
        self._loss += loss
        self._mistakes += mistake
        self._updates += updated
        if t == self.marks[self._next]:
            self._store(t, self._loss / t, self._mistakes / t, self._updates / t)

    def record_block(self, t0, t1, loss_sum, mistakes, updates, sums=None):
        """Steps t0+1..t1 at once (sums of their losses, mistakes and updates); no checkpoint
        may lie inside the block except at t1 (as :func:`bilinear_stream` makes its blocks).
        ``sums``: further per-step quantities (name -> their sum over the block); with
        ``keep_sums`` the trace records ``avg_cumulative_<name>`` (average over steps 1..t) at each
        checkpoint."""
        for name, value in (sums or {}).items():
            self._sums[name] = self._sums.get(name, 0.0) + value
        self._loss += loss_sum
        self._mistakes += mistakes
        self._updates += updates
        if t1 == self.marks[self._next]:
            self._store(t1, self._loss / t1, self._mistakes / t1, self._updates / t1)
        elif self.marks[self._next] <= t1:
            raise AssertionError(f"checkpoint {self.marks[self._next]} inside block {t0}..{t1}")

    def record_state(self, t, stats):
        """For batch learners (one step = one block update): at a checkpoint t, store
        ``stats()`` = (loss, mistake_rate, utilization) of the current model over all
        constraints instead of online averages."""
        if t == self.marks[self._next]:
            self._store(t, *stats())

    def _store(self, t, loss, mistake_rate, utilization):
        tr = self.trace
        tr["step"].append(t)
        tr["avg_cumulative_loss"].append(loss)
        tr["mistake_rate"].append(mistake_rate)
        tr["utilization"].append(utilization)
        if self.keep_sums:
            for name, total in self._sums.items():
                tr.setdefault(f"avg_cumulative_{name}", []).append(total / t)
        if self.on_checkpoint is not None:
            for k, v in self.on_checkpoint(t).items():
                tr.setdefault(k, []).append(v)
        self._next += 1
        self._bar.update(t - self._bar.n)
        if self._next == len(self.marks):
            self._bar.close()


def auto_block_size(d: int) -> int:
    """The block size K of the dense engine for dimension d (``block_size="auto"``): 64 for every d.

    A block of K steps costs 4 d^2 flops per step in two (K x d)(d x d) BLAS products, 2 K d in
    the block's Gram matrices, O(K) sequential work per step and a fixed Python and BLAS-call
    cost per block; a larger K spreads the fixed cost over more steps and lets BLAS reach its
    rate. Measured by the ``performance`` target's block-size sweep
    (:func:`tripletbench.harness.performance.block_sizes`, ``tables/performance_block_sizes.csv``:
    OASIS's stream, one BLAS thread, process CPU time, interleaved medians of 3; 2026-11-27 on a
    2-core machine with a 60 GFLOP/s one-core GEMM, a second job running beside it): K = 64 was
    the fastest of the K measured (8 to 64 at d = 16, 32, 64; 32 to 256 at d = 16, 64, 128, 297,
    784), or within 2% of it (K = 128 at d = 784), at every d. The rule before,
    min(64, max(16, d // 4)), shrank K with d because the Gram cost 2 K d grows relative to
    4 d^2; the fixed cost per block outweighs it: at d = 16 its K = 16 took 2.2x the time per step
    of K = 64, at d = 128 its K = 32 1.08x. ``d`` stays an argument so that a later measurement
    can make K depend on it again. The iterates do not depend on K (up to rounding)."""
    return 64


def _block_size(block_size, d: int) -> int:
    if isinstance(block_size, str) and block_size == "auto":
        return auto_block_size(d)
    if not (isinstance(block_size, numbers.Integral) and not isinstance(block_size, bool)):
        raise ValueError(f"block_size must be an int >= 1 or 'auto', got {block_size!r}")
    if block_size < 1:
        raise ValueError(f"block_size must be an int >= 1 or 'auto', got {block_size!r}")
    return int(block_size)


_BLAS = []  # the threadpoolctl controller of the loaded BLAS libraries, made on first use


def one_blas_thread():
    """Context manager: every loaded BLAS limited to one thread (threadpoolctl) inside it.

    The rule for the shared online loops (:func:`bilinear_stream`,
    :meth:`OnlineMixin._online_loop`): a loop of many small, dependent BLAS calls runs
    single-threaded. NumPy and SciPy each load their own OpenBLAS, each with a pool of one
    thread per core; a loop that alternates between them (the engine's margins by NumPy, its
    in-place rank-K update by SciPy's ``dgemm``; LEGO's ``dsymv`` / ``dsyr`` beside NumPy) makes
    the two pools' waiting threads compete for the cores. Measured with 2 BLAS threads on this
    project's 2-core machine: SDCA, 20,000 triplets at d = 297, 43 s wall and 86 s CPU against
    1.8 s with one thread; 230 s instead of about 30 s per validation fit in the Table 4 scale
    run; LEGO at d = 784, 8 ms per step instead of 0.2 ms. A Snakemake job with ``threads: N``
    gets OMP_NUM_THREADS = N, so the whole-node rules would otherwise run the loops with N
    threads.

    The libraries are found once per process (a ``ThreadpoolController``, made on first use:
    NumPy's and SciPy's BLAS, which this module imports, are loaded by then); entering and
    leaving the limit then costs about 9 us instead of the 2.3 ms of a fresh
    ``threadpool_limits``, which a ``partial_fit`` per constraint would pay at every call."""
    if not _BLAS:
        _BLAS.append(ThreadpoolController())
    return _BLAS[0].limit(limits=1, user_api="blas")


def bilinear_stream(
    W,
    terms,
    order,
    rule,
    recorder,
    block_size="auto",
    hook=None,
    hook_at=(),
    par=(),
    state=None,
    trace_loss="hinge",
    compiled=True,
    points=None,
):
    """Online steps on a matrix W whose updates are low rank in fixed vectors: the engine shared by
    OASIS (and its variants) and SDCA; each learner supplies only its ``rule``.

    ``terms`` is a list of (A_j, Z_j, w_j): A_j, Z_j (n, d) arrays (or CSR matrices) and a weight;
    with ``points`` (an (N, d) array or CSR matrix), A_j and Z_j may instead be (n,) int arrays of
    row indices into it (a_ij = points[A_j[i]]): the sparse loop then reads the points themselves.
    Step t sees constraint i = order[t-1]; its margin is m = sum_j w_j a_ij^T W_{t-1} z_ij, and
    ``c = rule(i, t, m, par, state)`` (a plain function, compiled by numba with the loop around
    it: see :mod:`tripletbench.algorithms.kernels`) gives W_t = W_{t-1} + c sum_j w_j a_ij z_ij^T.
    (OASIS: one term (p, p+ - p-, 1); its symmetric variant two terms with weights 1/2.)
    ``par`` (p,) and ``state`` (n, k) float64 are the rule's scalars and per-constraint state
    (``state`` is updated in place; a 1-D state is one column).

    Dense factors, blocked exactly: the factors of a block of K steps are known in advance (they
    do not depend on W), so with W_0 the block's starting matrix
        m_k = sum_j w_j a_kj^T W_0 z_kj + sum_{s<k} c_s H[k, s],
        H[k, s] = sum_{j,j'} w_j w_j' (a_kj . a_sj')(z_sj' . z_kj),
    i.e. products (K x d)(d x d) for the first term plus a K x K correction, and the block's
    updates are applied as rank-K products. The iterates equal those of the one-at-a-time
    algorithm up to rounding (tested); the sequential work left is O(K) per step, compiled.
    ``block_size``: an int K >= 1 or "auto" (:func:`auto_block_size` of d).

    Sparse (CSR) factors: each step reads and writes only the entries of W in
    nnz(a_ij) x nnz(z_ij) (compiled loop, :func:`tripletbench.algorithms.kernels.sparse_steps`): cost
    O(sum_j nnz(a_ij) nnz(z_ij)) per step, independent of d; the same iterates as the dense path.

    The steps are run in segments that end at the recorder's checkpoints (so ``on_checkpoint``
    sees the current W) and after each step of ``hook_at`` (sorted ints), where ``hook(W)`` may
    change W in place (a PSD projection) or record the learner's state. The trace's
    ``avg_cumulative_loss`` is the hinge max(0, 1 - m) of each step's constraint before its update
    (``trace_loss="hinge"``) or its square ("squared_hinge"); the recorder also receives both
    (``hinge``, ``squared_hinge``). ``compiled=False`` runs the same kernels as plain Python (slow;
    for tests).

    The steps run with one BLAS thread (:func:`one_blas_thread`), whatever the environment says.

    W: (d, d) float64 C-contiguous, updated in place. order: (T,) int. Raises ``ValueError`` for a
    block size < 1 or another W. Returns W.
    """
    if not (W.flags.c_contiguous and W.dtype == np.float64):
        raise ValueError("bilinear_stream needs a C-contiguous float64 W (it is updated in place)")
    if trace_loss not in ("hinge", "squared_hinge"):
        raise ValueError(f"trace_loss must be 'hinge' or 'squared_hinge', got {trace_loss!r}")
    K = _block_size(block_size, W.shape[0])
    par = as_float_array(par).reshape(-1)
    n = terms[0][0].shape[0]
    state = as_float_array(np.zeros((n, 0)) if state is None else state)
    if state.ndim == 1:
        raise ValueError("state must be a 2-D (n, k) float64 array (updated in place)")
    order = np.ascontiguousarray(order, dtype=np.int64)

    def compiled_kernel(fn):
        return jit(fn) if compiled else fn

    rule_k = compiled_kernel(rule)
    is_sparse = sp.issparse(points) or any(sp.issparse(A) or sp.issparse(Z) for A, Z, _ in terms)
    if is_sparse:
        step = compiled_kernel(sparse_steps)
        sparse_args, scratch = _sparse_terms(terms, points, n)
    else:
        block = compiled_kernel(dense_block_steps)
        terms = [(_rows(A, points), _rows(Z, points), w) for A, Z, w in terms]
    hook_at = np.asarray(hook_at, dtype=np.int64)
    totals = np.zeros(4)
    T = len(order)
    with one_blas_thread():  # many small BLAS calls from two OpenBLAS pools
        t0 = 0
        while t0 < T:
            t1 = min(T, recorder.next_mark(t0 + 1))
            k = np.searchsorted(hook_at, t0 + 1)
            if hook is not None and k < len(hook_at):
                t1 = min(t1, int(hook_at[k]))
            before = totals.copy()
            if is_sparse:
                step(W, *sparse_args, order, t0, t1, rule_k, par, state, totals, *scratch)
            else:
                _dense_segment(W, terms, order, t0, t1, K, block, rule_k, par, state, totals)
            k = np.searchsorted(hook_at, t1)
            if hook is not None and k < len(hook_at) and hook_at[k] == t1:
                hook(W)
            hinge, squared, mistakes, updates = totals - before
            recorder.record_block(
                t0,
                t1,
                hinge if trace_loss == "hinge" else squared,
                mistakes,
                updates,
                {"hinge": hinge, "squared_hinge": squared},
            )
            t0 = t1
    return W


def _rows(F, points):
    """A factor for the dense engine: a :class:`TupleRows` of dense points as it is (its blocks
    are gathered per block), else a dense float64 (n, d) array: F itself, or the rows of
    ``points`` it indexes."""
    if isinstance(F, TupleRows):
        return F if not sp.issparse(F.X) else dense(F[:])
    F = np.asarray(F)
    if F.ndim == 1:
        return dense(points[F])
    return np.asarray(F, dtype=np.float64)


def _sparse_terms(terms, points, n):
    """((ptr, ind, val, a_rows, z_rows, weights), (zc, zv, ze, zr)) for
    :func:`tripletbench.algorithms.kernels.sparse_steps`: one CSR matrix (sorted columns) holding ``points``
    (if given) and every factor given as a matrix, each term's rows in it, and the kernel's
    scratch for the merged z-rows."""
    blocks, a_rows, z_rows = [], [], []
    offset = 0
    if points is not None:
        blocks.append(sp.csr_matrix(points))
        offset = points.shape[0]
    for side, rows in ((0, a_rows), (1, z_rows)):
        for term in terms:
            F = term[side]
            if not sp.issparse(F) and np.asarray(F).ndim == 1:
                rows.append(np.asarray(F, dtype=np.int64))
            else:
                blocks.append(sp.csr_matrix(F))
                rows.append(offset + np.arange(n, dtype=np.int64))
                offset += n
    X = sp.csr_matrix(sp.vstack(blocks)) if len(blocks) > 1 else blocks[0].copy()
    X.sum_duplicates()
    X.sort_indices()  # the kernel's merge of z-rows sweeps W's rows in column order
    J = len(terms)
    # scratch of the merged z-rows: a group's merged vector is at most J rows long
    length = J * max(int(np.diff(X.indptr).max(initial=0)), 1)
    return (
        X.indptr.astype(np.int64),
        X.indices.astype(np.int64),
        np.ascontiguousarray(X.data, dtype=np.float64),
        np.ascontiguousarray(np.stack(a_rows, axis=1)),
        np.ascontiguousarray(np.stack(z_rows, axis=1)),
        np.array([w for _, _, w in terms], dtype=np.float64),
    ), (
        np.zeros((2 * J, length), dtype=np.int64),
        np.zeros((2 * J, length)),
        np.zeros(J, dtype=np.int64),
        np.zeros(J, dtype=np.int64),
    )


def _block_rows(F, idx):
    """Rows ``idx`` of a dense factor: ``np.take`` of an array (faster than fancy indexing for
    a block's few rows), the gathered rows of a :class:`TupleRows`."""
    return F[idx] if isinstance(F, TupleRows) else F.take(idx, axis=0)


def _block_gram(Ab, Zb, w):
    """A one-term block's K x K matrix H = ((w w) (Ab Ab^T)) * (Zb Zb^T) (see
    :func:`bilinear_stream`), built in place: the products of the general sum in
    :func:`_dense_segment`, bit for bit, without its temporaries (6% of a step at d = 128)."""
    H = Ab @ Ab.T
    if w != 1.0:
        H *= w * w
    H *= Zb @ Zb.T
    return H


def _rank_k_update(W, Ab, Zb, coef, w):
    """W += w Ab^T diag(coef) Zb, in place by BLAS (no d x d temporary): as W^T is the
    Fortran-ordered view of W, this is W^T += w Zb^T (diag(coef) Ab)."""
    _dgemm(w, Zb.T, (Ab * coef[:, None]).T, beta=1.0, c=W.T, trans_b=1, overwrite_c=1)


def _dense_segment(W, terms, order, t0, t1, K, block, rule, par, state, totals):
    """Steps t0+1..t1 of the dense engine in exact blocks of at most K steps (see
    :func:`bilinear_stream`); the products are BLAS, the sequential part ``block``."""
    for b0 in range(t0, t1, K):
        b1 = min(b0 + K, t1)
        idx = order[b0:b1]
        blocks = [(_block_rows(A, idx), _block_rows(Z, idx), w) for A, Z, w in terms]
        if len(blocks) == 1:
            Ab, Zb, w = blocks[0]
            base = w * np.einsum("kd,kd->k", Ab @ W, Zb)
            H = _block_gram(Ab, Zb, w)
        else:
            base = sum(w * np.einsum("kd,kd->k", Ab @ W, Zb) for Ab, Zb, w in blocks)
            H = sum(
                w * w2 * (Ab @ Ab2.T) * (Zb @ Zb2.T)
                for Ab, Zb, w in blocks
                for Ab2, Zb2, w2 in blocks
            )
        coef = np.zeros(len(idx))
        before = totals[3]
        block(base, H, idx, b0 + 1, rule, par, state, coef, totals)
        if totals[3] > before:
            for Ab, Zb, w in blocks:
                _rank_k_update(W, Ab, Zb, coef, w)


class OnlineMixin:
    """The plain loop shared by the online learners whose update is not rank one in fixed vectors
    (LEGO and the like); each learner supplies only its update rule.

    ``_online_loop(n_constraints, n_steps, step, generator, sampling)`` calls ``step(i, t)`` for
    t = 1..n_steps with constraint i drawn by ``sampling`` (see :func:`sample_order`). ``step``
    returns (loss, mistake, updated) for the constraint *before* its update; the trace ``trace_``
    is a :class:`TraceRecorder`'s.
    """

    def _online_loop(self, n_constraints, n_steps, step, generator, sampling, on_checkpoint=None):
        self._check_common_params()
        order = sample_order(n_constraints, n_steps, generator, sampling)
        rec = TraceRecorder(n_steps, on_checkpoint, self.verbose, type(self).__name__)
        with one_blas_thread():  # small dependent BLAS calls per step (see one_blas_thread)
            for t, i in enumerate(order.tolist(), start=1):
                rec.record(t, *step(i, t))
        self.trace_ = rec.trace
        self.n_steps_ = n_steps
        return rec.trace
