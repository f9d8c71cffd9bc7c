"""The Euclidean baseline ("Eucl" in the papers' tables): M = I, nothing is learned."""

from __future__ import annotations

import numpy as np

from .base import BaseLearner, MahalanobisMixin


class Euclidean(MahalanobisMixin, BaseLearner):
    """Euclidean distance. ``fit(triplets)`` only reads the dimension; ``M_`` = I (d, d)."""

    name = "Eucl"  # its name in configs and tables (algorithms: found by this)
    # scale-invariant: ranks by squared differences, finite in float64 for |x| in this range
    feature_scale_range = (1e-100, 1e100)

    def __init__(self, preprocessor=None, random_state=None, verbose=False):
        self.preprocessor = preprocessor
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, triplets):
        X, _ = self._points(triplets, 3, "triplets")
        self.M_ = np.eye(X.shape[1])
        return self
