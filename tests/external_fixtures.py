"""Library-style learners for tests/test_external_failures.py: each passes the start-up trial
fit (40 points) and misbehaves only on larger data, as a real library can on real data."""

import numpy as np
from sklearn.base import BaseEstimator


class _Base(BaseEstimator):
    def __init__(self, limit=40):
        self.limit = limit

    def get_mahalanobis_matrix(self):
        return self.M_


class FailsOnRealData(_Base):
    """Raises a library error when given more than ``limit`` points."""

    def fit(self, X, y):
        if len(X) > self.limit:
            raise np.linalg.LinAlgError("SVD did not converge")
        self.M_ = np.eye(X.shape[1])
        return self


class NaNOnRealData(_Base):
    """Returns a metric with NaN entries on more than ``limit`` points."""

    def fit(self, X, y):
        self.M_ = np.eye(X.shape[1]) * (np.nan if len(X) > self.limit else 1.0)
        return self


class ZeroOnRealData(_Base):
    """Returns an all-zero metric (every distance 0) on more than ``limit`` points."""

    def fit(self, X, y):
        self.M_ = np.eye(X.shape[1]) * (0.0 if len(X) > self.limit else 1.0)
        return self
