"""RCA through metric-learn (Bar-Hillel, Hertz, Shental, Weinshall, "Learning a Mahalanobis
Metric from Equivalence Constraints", JMLR 6, 2005: M = inverse of the within-chunklet covariance).

RCA learns from chunklets (groups known to share a class). The harness forms them as the connected
components of the triplets' similar (anchor, positive) pairs
(``tripletbench.datasets.constraints.triplets_to_chunklets``); samples in no similar pair are left out (-1).
RCA has no hyperparameter to tune (``n_components`` only reduces the dimension).

Singular within-chunklet covariance (two cases, both handled before calling metric-learn, whose
inverse would be infinite):

* a feature constant on the training points (segment's region-pixel-count) carries no distance
  information there: RCA is fitted on the other features, M is zero in its row and column;
* fewer chunklet degrees of freedom than features (e.g. 400 images of 784 pixels): the within-
  chunklet covariance C has rank r < d. As the RCA paper advises (Bar-Hillel et al. 2005, section
  on dimensionality reduction before RCA), the points are first projected by PCA (scikit-learn,
  fitted on the same points) onto r = rank(C) components; RCA runs there and
  M = P^T M_r P with P the (r, d) PCA components (rank r, PSD).

``n_components`` (metric-learn's): the number of rows of L (metric-learn reduces by Fisher's
linear discriminant below the rank; None = the rank r). ``n_components_`` records the rows of L;
``components_`` / ``transform`` are metric-learn's learned L (times P), M = L^T L.

Errors: :class:`~tripletbench.datasets.base.DataError` (a ``ValueError``) naming the problem for NaN/inf points,
no rows, chunk labels that are not one int per row, no chunklet, every feature constant on the
points, or chunklets that are single repeated points (rank 0); never a silent drop of a feature
that holds NaN, nor LAPACK's "SVD did not converge".
"""

from __future__ import annotations

import numpy as np

from ._checks import DataError, check_features
from ._compat import metric_learn, quiet_metric_learn
from .base import BaseLearner, MahalanobisMixin


class RCA(MahalanobisMixin, BaseLearner):
    """RCA, a chunklet learner: ``fit(X, chunks)``; chunks (n,) int, -1 = in no chunklet."""

    name = "RCA"  # its name in configs and tables (algorithms: found by this)

    constraint_kind = "chunklets"
    # scale-invariant (M is the inverse within-chunklet covariance, ranking unchanged by a scale);
    # the covariance (x^2) and its inverse stay finite in float64 for |x| in this range
    feature_scale_range = (1e-100, 1e100)

    def __init__(self, n_components=None, preprocessor=None, random_state=None, verbose=False):
        self.n_components = n_components
        self.preprocessor = preprocessor
        self.random_state = random_state
        self.verbose = verbose

    def _check_params(self):
        k = self.n_components
        if k is not None and not (isinstance(k, int) and not isinstance(k, bool) and k >= 1):
            raise ValueError(f"RCA: n_components must be None or an int >= 1, got {k!r}")

    def fit(self, X, chunks):
        """Learn M from points X (n, d) float and chunk labels (n,) int (-1 = in no chunklet)."""
        self._check_params()
        X = check_features(np.asarray(X, dtype=np.float64), "RCA input")
        self._check_feature_scale(X, "input")
        chunks = np.asarray(chunks)
        if X.shape[0] == 0:
            raise DataError("RCA input: zero rows")
        if chunks.shape != (X.shape[0],) or not np.issubdtype(chunks.dtype, np.integer):
            raise DataError(
                f"RCA: chunks must be one int label per row, shape ({X.shape[0]},); got shape "
                f"{chunks.shape} and dtype {chunks.dtype}"
            )
        if np.sum(chunks >= 0) == 0:
            raise DataError("RCA needs at least one chunklet (no sample is in a similar pair)")
        keep = np.ptp(X, axis=0) > 0
        if not keep.any():
            raise DataError("RCA input: every feature is constant on the points (no distance)")
        Xk = X[:, keep]
        r = within_chunklet_rank(Xk, chunks)
        P = np.eye(Xk.shape[1])
        if r < Xk.shape[1]:
            from sklearn.decomposition import PCA

            if r == 0:
                raise DataError("RCA: every chunklet is a single repeated point (rank 0)")
            P = PCA(n_components=r, svd_solver="full").fit(Xk).components_
        model = metric_learn().RCA(
            n_components=None if self.n_components is None else min(self.n_components, r)
        )
        with quiet_metric_learn():
            model.fit(Xk @ P.T, chunks)
        L = np.zeros((model.components_.shape[0], X.shape[1]))
        L[:, keep] = model.components_ @ P  # metric-learn's L, back in the input's coordinates
        if not np.all(np.isfinite(L)):
            raise DataError("RCA's within-chunklet covariance is singular; M is not finite")
        L.setflags(write=False)
        self._library_components = L
        self.n_components_ = L.shape[0]
        self.M_ = L.T @ L
        return self


def within_chunklet_rank(X, chunks) -> int:
    """Numerical rank of the within-chunklet scatter sum_c sum_{i in c} (x_i - m_c)(x_i - m_c)^T.

    X: (n, d) float; chunks: (n,) int, -1 = in no chunklet. Tolerance as numpy's matrix_rank.
    """
    labels = np.asarray(chunks)
    used = labels >= 0
    Xc = X[used].copy()
    for c in np.unique(labels[used]):
        sel = labels[used] == c
        Xc[sel] -= Xc[sel].mean(axis=0)
    return int(np.linalg.matrix_rank(Xc)) if len(Xc) else 0
