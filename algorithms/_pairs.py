"""metric-learn's pair-classifier API (``_PairsClassifierMixin``) for the pair learners (ITML,
LEGO, online ITML, RDML): :class:`PairClassifierMixin`, re-exported by
:mod:`tripletbench.algorithms.base`, where the learners import it from."""

from __future__ import annotations

import numpy as np
from sklearn.metrics import roc_auc_score
from sklearn.utils.validation import check_is_fitted

from ._params import is_number
from ._scores import _accept_counts
from ._tuples import tuple_size


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
