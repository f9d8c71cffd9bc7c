"""RCA through metric-learn (Bar-Hillel, Hertz, Shental, Weinshall, "Learning a Mahalanobis
Metric from Equivalence Constraints", JMLR 6, 2005: M = inverse of the within-chunklet covariance).

RCA learns from chunklets (groups known to share a class). The harness forms them as the connected
components of the triplets' similar (anchor, positive) pairs
(``datasets.constraints.triplets_to_chunklets``); samples in no similar pair are left out (-1).
RCA has no hyperparameter to tune (n_components = d).

Deviation: a feature that is constant on the training points (segment's region-pixel-count) makes
the within-chunklet covariance singular and metric-learn's inverse infinite. Such a feature carries
no distance information on the training data, so RCA is fitted on the other features and M is zero
in the constant feature's row and column.
"""

from __future__ import annotations

import metric_learn
import numpy as np

from ._compat import quiet_metric_learn
from .base import BaseLearner, MahalanobisMixin


class RCA(MahalanobisMixin, BaseLearner):
    """RCA, a chunklet learner: ``fit(X, chunks)``; chunks (n,) int, -1 = in no chunklet."""

    constraint_kind = "chunklets"

    def __init__(self, preprocessor=None, random_state=None, verbose=False):
        self.preprocessor = preprocessor
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, chunks):
        X = np.asarray(X, dtype=np.float64)
        chunks = np.asarray(chunks)
        if np.sum(chunks >= 0) == 0:
            raise ValueError("RCA needs at least one chunklet (no sample is in a similar pair)")
        keep = np.ptp(X, axis=0) > 0
        model = metric_learn.RCA()
        with quiet_metric_learn():
            model.fit(X[:, keep], chunks)
        self.M_ = np.zeros((X.shape[1], X.shape[1]))
        self.M_[np.ix_(keep, keep)] = model.get_mahalanobis_matrix()
        if not np.all(np.isfinite(self.M_)):
            raise ValueError("RCA's within-chunklet covariance is singular; M is not finite")
        return self
