"""LMNN through metric-learn (Weinberger & Saul, "Distance Metric Learning for Large Margin
Nearest Neighbor Classification", JMLR 10, 2009, eq. 14; k target neighbours, mu = 0.5).

LMNN learns from class labels, not triplets (its triplets are built from k-NN target neighbours
and impostors). To give it the same information as the triplet learners, the harness passes the
training samples that occur in the constraint set, with their labels; ``max_points`` (a stratified
random subset) bounds its cost: LMNN did not finish within 15 minutes on letter's 14,000 rows here.
"""

from __future__ import annotations

import numpy as np

from datasets.preprocess import check_features

from ._compat import metric_learn, quiet_metric_learn
from .base import BaseLearner, MahalanobisMixin


class LMNN(MahalanobisMixin, BaseLearner):
    """LMNN, a supervised learner: ``fit(X, y)``. Fitted: ``M_`` (d, d) PSD, ``n_points_``."""

    constraint_kind = "labels"

    def __init__(
        self,
        k=3,
        regularization=0.5,
        learn_rate=1e-7,
        max_iter=1000,
        max_points=None,
        preprocessor=None,
        random_state=None,
        verbose=False,
    ):
        self.k = k
        self.regularization = regularization
        self.learn_rate = learn_rate
        self.max_iter = max_iter
        self.max_points = max_points
        self.preprocessor = preprocessor
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y):
        X = check_features(np.asarray(X, dtype=np.float64), "LMNN input")
        y = np.asarray(y)
        if self.max_points is not None and len(X) > self.max_points:
            from sklearn.model_selection import train_test_split

            X, _, y, _ = train_test_split(
                X, y, train_size=self.max_points, stratify=y, random_state=self.random_state
            )
        model = metric_learn().LMNN(
            n_neighbors=self.k,
            regularization=self.regularization,
            learn_rate=self.learn_rate,
            max_iter=self.max_iter,
            verbose=self.verbose,
            random_state=self.random_state,
        )
        with quiet_metric_learn():
            model.fit(X, y)
        self.M_ = model.get_mahalanobis_matrix()
        self.n_points_ = len(X)
        return self
