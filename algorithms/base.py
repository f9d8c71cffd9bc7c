"""Shared base classes of the learners: input handling, scoring API, and the online loop.

API (compatible with metric-learn 0.7.0: docs/library.md, "API against metric-learn 0.7"; metric-learn's
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
* ``get_metric()``: a function of two 1-D points giving their learned **distance** (always a
  distance, as metric-learn's, so that it can be ``metric=`` of scikit-learn's neighbours
  estimators; a bilinear learner has none: the attribute raises ``AttributeError`` naming
  ``get_similarity``), and ``get_similarity()``: their similarity (``pair_score``), both
  independent of later changes to the learner;
  ``components_`` / ``get_mahalanobis_matrix()`` / ``transform`` (Mahalanobis),
  ``get_bilinear_matrix()`` (bilinear), ``similarity_matrix`` for ranking.
* each learner says which constraints it learns from in ``constraint_kind``: "triplets",
  "pairs" (with +1/-1 labels), "chunklets" (RCA) or "labels" (LMNN, OPML, the
  ``*_Supervised`` variants of :mod:`tripletbench.algorithms.supervised`).

Errors, shared by every learner: scoring an unfitted model raises scikit-learn's
``NotFittedError``; unusable data (NaN or inf, no constraint, every point the same vector, zero
features, every triplet's positive equal to its negative, a feature scale outside
``feature_scale_range``, a sparse matrix for a learner without a sparse path, and, when scoring,
another number of features than at fit) raises :class:`~tripletbench.datasets.base.DataError`
naming the problem, at fit and in every scoring method alike; a hyperparameter shared by several learners
that is out of range (``block_size < 1``, negative ``n_epochs``, ``n_passes <= 0``, an unknown
``sampling``) or a string where a number belongs raises ``ValueError`` / ``TypeError`` naming the
hyperparameter (:meth:`BaseLearner._check_common_params`, run at fit and by the config check).
"""

from __future__ import annotations

import copy
import time
import warnings
import weakref

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from ._checks import DataError, check_labelled, check_n_features  # noqa: F401  (DataError: re-exported)

# The input side (_tuples), the shared hyperparameter checks (_params), the scores (_scores) and
# the online loops (_stream) live in private modules; their names are re-exported here, where the
# learners, the harness and the tests import them from (TUPLE_CHUNK and GATHER_ONCE_BYTES are read
# in _tuples: change them there).
from ._params import check_common_params, is_number  # noqa: F401
from ._scores import (  # noqa: F401
    TIE_RTOL,
    _accept_counts,
    _components_from_metric,
    class_triplet_accuracy,
    tied,
)
from ._stream import (  # noqa: F401
    _BLAS, SAMPLINGS, TraceRecorder, _block_gram, _block_rows, _block_size, _dense_segment,
    _rank_k_update, _rows, _sparse_terms, auto_block_size, bilinear_stream, checkpoints,
    one_blas_thread, sample_order,
)  # fmt: skip
from ._tuples import (  # noqa: F401
    DEFAULT_FEATURE_SCALE_RANGE, GATHER_ONCE_BYTES, TUPLE_CHUNK, TupleRows, _all_same_point,
    _as_points, _by_rows, check_feature_scale, dense, row_bilinear, row_dot, row_sqnorm,
    tuple_rows, tuple_size, weighted_outer_sum,
)  # fmt: skip
from .kernels import as_float_array, dense_block_steps, jit, sparse_steps  # noqa: F401

# metric-learn's pair-classifier API of the pair learners, in a private module of its own
from ._pairs import PairClassifierMixin  # noqa: E402, F401


def _vector(u) -> np.ndarray:
    """A 1-D float64 point for :meth:`get_metric`'s functions; ``ValueError`` otherwise."""
    u = np.asarray(u, dtype=np.float64)
    if u.ndim != 1:
        raise ValueError(f"get_metric's function takes two 1-D points, got shape {u.shape}")
    return u


class BaseLearner(BaseEstimator):
    """Common scoring API. Subclasses implement ``similarity_matrix`` and ``pair_score``."""

    constraint_kind = "triplets"
    feature_scale_range = DEFAULT_FEATURE_SCALE_RANGE  # see check_feature_scale
    _fitted_attributes = None  # what fit sets (checked before scoring); None: any name ending in _
    _zero_epochs_ok = True  # n_epochs = 0 leaves the model at its initialisation (OAHU-init)
    _sparse_ok = False  # takes a sparse point matrix (its arithmetic has a sparse path)

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
        """(X, idx) of ``constraints`` (:func:`_as_points`), checked the same way at fit and at
        scoring: finite values, at least one feature, a feature scale inside
        ``feature_scale_range``, sparse points only for a learner whose arithmetic takes them
        (``_sparse_ok``), not every triplet with its positive equal to its negative; when
        scoring, also the number of features the model was fitted on. ``DataError`` naming the
        learner and the problem."""
        X, idx = _as_points(constraints, getattr(self, "preprocessor", None), arity, what, to_fit)
        if sp.issparse(X) and not self._sparse_ok:
            raise DataError(
                f"{type(self).__name__} {what}: the points are a sparse matrix, which {type(self).__name__} does not "
                "take (its updates are dense); pass dense features (X.toarray())"
            )
        self._check_feature_scale(X, what)
        if not to_fit:
            check_n_features(self, X.shape[1], what)
        return X, idx

    def _ranked_points(self, X, what: str = "points"):
        """X (n, d), a dense float64 array or a CSR/CSC matrix where the learner takes sparse
        points, for a method that ranks or maps whole matrices of points (``similarity_matrix``,
        ``prepare_database``, ``transform``, ``score(X, y)``), checked as :meth:`_points` checks
        the points of scored tuples: 2-D, finite, a feature scale inside
        ``feature_scale_range``, sparse only where ``_sparse_ok``, the number of features the
        model was fitted on. ``DataError`` naming the learner, ``what`` and the problem."""
        name = f"{type(self).__name__} {what}"
        if sp.issparse(X):
            if not self._sparse_ok:
                raise DataError(
                    f"{name}: the points are a sparse matrix, which {type(self).__name__} does "
                    "not take (its arithmetic is dense); pass dense features (X.toarray())"
                )
            values = X.data
        else:
            X = values = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise DataError(f"{name}: points must be a 2-D (n, d) matrix, got shape {X.shape}")
        if not np.isfinite(values).all():
            raise DataError(f"{name}: NaN or inf in the points")
        self._check_feature_scale(X, what)
        check_n_features(self, X.shape[1], what)
        return X

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
        """Check the hyperparameters several learners share (``block_size``, ``n_epochs``,
        ``n_passes``, ``sampling``), and the types of all of them: the rules and errors of
        :func:`~tripletbench.algorithms._params.check_common_params`."""
        check_common_params(self)

    def _triplet_margins(self, triplets) -> np.ndarray:
        """pair_score(a, p) - pair_score(a, n) for each triplet (a, p, n), exactly 0 where the
        two scores tie (:func:`~tripletbench.algorithms._scores.tied`: within ``TIE_RTOL`` of
        the larger); shape (n,); computed in chunks of ``TUPLE_CHUNK`` triplets (memory
        O(chunk d), not O(n d))."""
        self._check_fitted()
        X, idx = self._points(triplets, 3, "triplets", to_fit=False)

        def margins(t):
            A = X[t[:, 0]]
            s_ap = np.asarray(self._pair_score_points(A, X[t[:, 1]]), dtype=np.float64)
            s_an = np.asarray(self._pair_score_points(A, X[t[:, 2]]), dtype=np.float64)
            return np.where(tied(s_ap, s_an), 0.0, s_ap - s_an)

        return _by_rows(lambda s: margins(idx[s]), len(idx))

    def decision_function(self, triplets) -> np.ndarray:
        """pair_score(anchor, positive) - pair_score(anchor, negative) for each triplet ((n, 3, d)
        points or (n, 3) indicators); float64, shape (n,); > 0 where the triplet is ordered
        correctly (metric-learn's ``_TripletsClassifierMixin``; for a Mahalanobis learner
        d_M(a, n) - d_M(a, p)); exactly 0 where the two scores tie (:func:`tied`)."""
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
        """A function ``f(u, v)`` of two 1-D points (d,) giving their learned distance
        (``pair_distance``) as a float; it uses a frozen copy of the model (later fits do not
        change it), as metric-learn's ``get_metric``. Raises ``NotFittedError`` before ``fit``.
        (Mahalanobis learners override this with a closed form; a bilinear learner has no
        distance: its ``get_metric`` raises ``AttributeError`` naming :meth:`get_similarity`.)"""
        return self._frozen_pair_function("pair_distance")

    def get_similarity(self):
        """A function ``f(u, v)`` of two 1-D points (d,) giving their learned similarity
        (``pair_score``: higher = more similar; a Mahalanobis learner: -d_M, a bilinear one:
        u^T W v) as a float, from a frozen copy of the model. Not a distance: do not pass it as
        ``metric=`` to a neighbours estimator (use :meth:`get_metric`). Raises
        ``NotFittedError`` before ``fit``."""
        return self._frozen_pair_function("pair_score")

    def _frozen_pair_function(self, method: str):
        """``f(u, v)`` = ``method`` of the pair (u, v) on a deep copy of the fitted model."""
        self._check_fitted()
        frozen = copy.copy(self)
        frozen.preprocessor = None  # not copied: the function takes points
        frozen = copy.deepcopy(frozen)
        pair_function = getattr(frozen, method)

        def metric_fun(u, v):
            return float(pair_function(np.stack([_vector(u), _vector(v)])[None])[0])

        return metric_fun


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
        X = self._ranked_points(X, "input")  # the fit's checks (scale, d)
        return class_triplet_accuracy(self.similarity_matrix, X, np.asarray(y))


class BilinearMixin:
    """Bilinear similarity s_W(x, y) = x^T W y (OASIS, SDCA, COMET); fitted attribute ``W_``
    (d, d), neither symmetric nor PSD in general.

    There is no distance: ``pair_distance`` and ``get_metric`` do not exist (accessing either
    raises ``AttributeError``, so ``hasattr(model, "get_metric")`` is False: a similarity passed
    as a neighbours estimator's ``metric=`` would rank the most similar points last);
    ``get_similarity()`` gives f(u, v) = ``pair_score``. metric-learn 0.7.0 has no
    bilinear learner, its unmerged bilinear branch (``BilinearMixin``, commit 190b9c0 of
    scikit-learn-contrib/metric-learn) raises an ``Exception`` there and names W ``components_``,
    as here."""

    _fitted_attributes = "W_"
    _zero_epochs_ok = False
    _sparse_ok = True  # the online engine's sparse_steps, the sparse similarity_matrix

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

    @property
    def get_metric(self):
        raise AttributeError(
            f"{type(self).__name__} learns a bilinear similarity x^T W y, not a distance: it has "
            "no get_metric (always a distance, as metric-learn's, e.g. for "
            "KNeighborsClassifier(metric=...)); get_similarity() gives the similarity f(u, v)"
        )

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
        X, Y = self._ranked_points(X, "queries"), self._ranked_points(Y, "database")
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
        scikit-learn's), NaN/inf or a non-2-D X, ``DataError`` for a feature scale outside
        ``feature_scale_range`` (as fit)."""
        L = self.components_
        X = check_array(X, dtype=np.float64)
        if X.shape[1] != L.shape[1]:
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                f"{L.shape[1]} features as input."
            )
        self._check_feature_scale(X, "transform input")
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
        X, Y = self._ranked_points(X, "queries"), self._ranked_points(Y, "database")
        return -euclidean_distances(X @ L.T, Y @ L.T, squared=True)

    def prepare_database(self, Y):
        """``f(X)`` = ``similarity_matrix(X, Y)`` for one fixed database ``Y`` (n_y, d), with
        Y L^T and its squared row norms computed once here instead of once per query batch (at a
        1M-item database and d = 297, each batch would otherwise redo a 1.8e11-flop product).
        Same numbers as :meth:`similarity_matrix` (scikit-learn's ``euclidean_distances`` given
        the same ``Y_norm_squared`` it would compute). Memory: one (n_y, d) float64 copy."""
        from sklearn.metrics.pairwise import euclidean_distances
        from sklearn.utils.extmath import row_norms

        L = self.components_
        Z = self._ranked_points(Y, "database") @ L.T
        zz = row_norms(Z, squared=True)[np.newaxis, :]

        def scores(X) -> np.ndarray:
            X = self._ranked_points(X, "queries")
            return -euclidean_distances(X @ L.T, Z, Y_norm_squared=zz, squared=True)

        return scores


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
