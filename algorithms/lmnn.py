"""LMNN through metric-learn (Weinberger & Saul, "Distance Metric Learning for Large Margin
Nearest Neighbor Classification", JMLR 10, 2009, eq. 14; n_neighbors = k target neighbours,
mu = 0.5).

LMNN learns from class labels, not triplets (its triplets are built from k-NN target neighbours
and impostors). To give it the same information as the triplet learners, the harness passes the
training samples that occur in the constraint set, with their labels; ``max_points`` (a stratified
random subset) bounds its cost: LMNN did not finish within 15 minutes on letter's 14,000 rows here.

metric-learn parity: ``n_neighbors`` (``k``, metric-learn's deprecated name, still accepted with a
``FutureWarning``), ``n_components`` (L is n_components x d), ``components_`` / ``transform`` are
metric-learn's learned L (not a factor of M), ``score_pairs`` as metric-learn 0.7.

Errors (before metric-learn runs, so that its internal messages never reach the user):
``ValueError`` for an out-of-range hyperparameter (``n_neighbors`` an int >= 1,
``regularization`` (mu) in [0, 1], ``learn_rate`` > 0, ``max_iter`` an int >= 1, ``max_points``
None or an int >= 2, ``n_components`` None or an int >= 1); :class:`~tripletbench.datasets.base.DataError` for
NaN/inf, no rows, a single class, or a class with fewer than n_neighbors + 1 points (each point
needs n_neighbors other points of its class as target neighbours, eq. 14; with only n_neighbors,
metric-learn would silently take the point itself as its own target neighbour).
"""

from __future__ import annotations

import numbers
import warnings

from sklearn.base import TransformerMixin

from ._checks import check_labelled
from ._compat import metric_learn, quiet_metric_learn
from .base import BaseLearner, LabelledMixin, MahalanobisMixin


class LMNN(LabelledMixin, TransformerMixin, MahalanobisMixin, BaseLearner):
    """LMNN, a supervised learner: ``fit(X, y)`` (its own supervised variant, as in metric-learn).
    Fitted: ``M_`` (d, d) PSD, ``n_points_``, ``n_features_in_``. ``score(X, y)``: triplet
    accuracy over all class triplets (:class:`~tripletbench.algorithms.base.LabelledMixin`)."""

    name = "LMNN"  # its name in configs and tables (algorithms: found by this)

    constraint_kind = "labels"

    def __init__(
        self,
        n_neighbors=3,
        regularization=0.5,
        learn_rate=1e-7,
        max_iter=1000,
        max_points=None,
        n_components=None,
        preprocessor=None,
        random_state=None,
        verbose=False,
        k="deprecated",
    ):
        self.n_neighbors = n_neighbors
        self.n_components = n_components
        self.k = k
        self.regularization = regularization
        self.learn_rate = learn_rate
        self.max_iter = max_iter
        self.max_points = max_points
        self.preprocessor = preprocessor
        self.random_state = random_state
        self.verbose = verbose

    @property
    def _n_neighbors(self) -> int:
        """The number of target neighbours: ``n_neighbors``, or ``k`` where a caller still gives
        it (metric-learn 0.7's deprecated name; a ``FutureWarning``, as metric-learn's)."""
        if self.k == "deprecated":
            return self.n_neighbors
        warnings.warn(
            "LMNN's 'k' is deprecated (metric-learn 0.7 renamed it 'n_neighbors'); use n_neighbors",
            FutureWarning,
            stacklevel=3,
        )
        return self.k

    def _check_params(self):
        def is_int(v):
            return isinstance(v, numbers.Integral) and not isinstance(v, bool)

        k = self._n_neighbors
        if not (is_int(k) and k >= 1):
            raise ValueError(
                f"LMNN: n_neighbors (target neighbours) must be an int >= 1, got {k!r}"
            )
        if self.n_components is not None and not (
            is_int(self.n_components) and self.n_components >= 1
        ):
            raise ValueError(
                f"LMNN: n_components must be None or an int >= 1, got {self.n_components!r}"
            )
        if not 0 <= self.regularization <= 1:
            raise ValueError(
                f"LMNN: regularization (mu) must lie in [0, 1], got {self.regularization!r}"
            )
        if not self.learn_rate > 0:
            raise ValueError(f"LMNN: learn_rate must be > 0, got {self.learn_rate!r}")
        if not (is_int(self.max_iter) and self.max_iter >= 1):
            raise ValueError(f"LMNN: max_iter must be an int >= 1, got {self.max_iter!r}")
        if self.max_points is not None and not (is_int(self.max_points) and self.max_points >= 2):
            raise ValueError(
                f"LMNN: max_points must be None or an int >= 2, got {self.max_points!r}"
            )

    def fit(self, X, y):
        """Learn M from labelled points X (n, d) float, y (n,); see the module docstring for the
        errors raised."""
        self._check_params()
        need = self._n_neighbors + 1
        X, y = self._validate_labelled(X, y, min_classes=2, min_per_class=need)
        if self.max_points is not None and len(X) > self.max_points:
            from sklearn.model_selection import train_test_split

            X, _, y, _ = train_test_split(
                X, y, train_size=self.max_points, stratify=y, random_state=self.random_state
            )
            X, y = check_labelled(
                X, y, f"LMNN input (max_points = {self.max_points})", 2, min_per_class=need
            )
        model = metric_learn().LMNN(
            n_neighbors=self._n_neighbors,
            n_components=self.n_components,
            regularization=self.regularization,
            learn_rate=self.learn_rate,
            max_iter=self.max_iter,
            verbose=self.verbose,
            random_state=self.random_state,
        )
        with quiet_metric_learn():
            model.fit(X, y)
        self.M_ = model.get_mahalanobis_matrix()
        self._library_components = model.components_  # metric-learn's learned L: its transform
        self.n_points_ = len(X)
        self.n_iter_ = getattr(model, "n_iter_", None)  # metric-learn's iteration count
        return self
