"""Shared base classes of the learners: input handling, scoring API, and the online loop.

API (compatible with metric-learn, see ``../shared/DESIGN.md``):

* constructor: hyperparameters only (paper symbols in the docstrings), ``preprocessor``,
  ``random_state``, ``verbose``; fitted attributes end in ``_``; the RNG is made in ``fit``.
* constraints are either arrays of points, (n, 3, d) triplets / (n, 2, d) pairs, or int index
  arrays (n, 3) / (n, 2) into ``preprocessor`` (an (n_samples, d) array). Triplet rows are
  (anchor, positive, negative).
* ``pair_score`` (higher = more similar), ``decision_function`` = s(a, p) - s(a, n),
  ``predict`` in {-1, +1}, ``score`` = triplet accuracy, ``similarity_matrix`` for ranking.
* each learner says which constraints it learns from in ``constraint_kind``: "triplets",
  "pairs" (with +1/-1 labels), "chunklets" (RCA) or "labels" (LMNN, supervised).
"""
from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from tqdm.auto import tqdm

from datasets.base import DataError


def _as_points(constraints, preprocessor, arity: int, what: str):
    """(X, idx): a float64 point matrix and an int (n, arity) index array into it."""
    c = np.asarray(constraints)
    if c.ndim == 3:
        if c.shape[1] != arity:
            raise DataError(f"{what} must have shape (n, {arity}, d), got {c.shape}")
        X = c.reshape(-1, c.shape[2]).astype(np.float64)
        idx = np.arange(len(X)).reshape(-1, arity)
    elif c.ndim == 2 and c.shape[1] == arity and np.issubdtype(c.dtype, np.integer):
        if preprocessor is None:
            raise DataError(f"{what} given as indices need preprocessor=X (the point matrix)")
        X = np.asarray(preprocessor, dtype=np.float64)
        if c.size and (c.min() < 0 or c.max() >= len(X)):
            raise DataError(f"{what} indices out of range [0, {len(X)})")
        idx = c
    else:
        raise DataError(f"{what} must be (n, {arity}, d) points or (n, {arity}) int indices, "
                        f"got shape {c.shape} and dtype {c.dtype}")
    if len(idx) == 0:
        raise DataError(f"zero usable {what}")
    if not np.all(np.isfinite(X)):
        raise DataError(f"{what}: the points contain NaN or inf")
    return X, idx


class BaseLearner(BaseEstimator):
    """Common scoring API. Subclasses implement ``similarity_matrix`` and ``pair_score``."""

    constraint_kind = "triplets"

    def _points(self, constraints, arity, what):
        return _as_points(constraints, getattr(self, "preprocessor", None), arity, what)

    def decision_function(self, triplets) -> np.ndarray:
        """s(anchor, positive) - s(anchor, negative) for each triplet; shape (n,)."""
        X, idx = self._points(triplets, 3, "triplets")
        return (self._pair_score_points(X[idx[:, 0]], X[idx[:, 1]])
                - self._pair_score_points(X[idx[:, 0]], X[idx[:, 2]]))

    def predict(self, triplets) -> np.ndarray:
        """+1 where the positive is more similar to the anchor than the negative, else -1."""
        return np.where(self.decision_function(triplets) > 0, 1, -1)

    def score(self, triplets) -> float:
        """Triplet accuracy: fraction of triplets ranked correctly (ties count as wrong)."""
        return float(np.mean(self.predict(triplets) == 1))

    def pair_score(self, pairs) -> np.ndarray:
        """Similarity of each pair, shape (n,); higher = more similar."""
        X, idx = self._points(pairs, 2, "pairs")
        return self._pair_score_points(X[idx[:, 0]], X[idx[:, 1]])


class BilinearMixin:
    """Bilinear similarity s_W(x, y) = x^T W y (OASIS, SDCA); fitted attribute ``W_`` (d, d)."""

    def get_bilinear_matrix(self) -> np.ndarray:
        return self.W_

    def _pair_score_points(self, A, B):
        return np.einsum("ij,jk,ik->i", A, self.W_, B)

    def similarity_matrix(self, X, Y) -> np.ndarray:
        """(len(X), len(Y)) matrix of x^T W y."""
        return (np.asarray(X) @ self.W_) @ np.asarray(Y).T


class MahalanobisMixin:
    """Mahalanobis distance d_M(x, y) = sqrt((x-y)^T M (x-y)); fitted attribute ``M_`` (d, d) PSD.

    The similarity used for ranking is -d_M^2 (same order as -d_M)."""

    def get_mahalanobis_matrix(self) -> np.ndarray:
        return self.M_

    def components(self) -> np.ndarray:
        """L with L^T L = M (from the eigen-decomposition; negative eigenvalues clipped to 0)."""
        w, V = np.linalg.eigh((self.M_ + self.M_.T) / 2)
        return (V * np.sqrt(np.clip(w, 0, None))).T

    def transform(self, X) -> np.ndarray:
        """Map X (n, d) to L X so that Euclidean distances there are d_M."""
        return np.asarray(X) @ self.components().T

    def pair_distance(self, pairs) -> np.ndarray:
        X, idx = self._points(pairs, 2, "pairs")
        D = X[idx[:, 0]] - X[idx[:, 1]]
        return np.sqrt(np.clip(np.einsum("ij,jk,ik->i", D, self.M_, D), 0, None))

    def _pair_score_points(self, A, B):
        D = A - B
        return -np.einsum("ij,jk,ik->i", D, self.M_, D)

    def similarity_matrix(self, X, Y) -> np.ndarray:
        """(len(X), len(Y)) matrix of -d_M(x, y)^2."""
        from scipy.spatial.distance import cdist

        L = self.components()
        return -cdist(np.asarray(X) @ L.T, np.asarray(Y) @ L.T, "sqeuclidean")


def checkpoints(n_steps: int, per_decade: int = 10) -> np.ndarray:
    """Geometrically spaced steps 1..n_steps (about ``per_decade`` per factor 10, always n_steps)."""
    n = max(int(np.ceil(per_decade * np.log10(max(n_steps, 1)))) + 1, 2)
    return np.unique(np.append(np.geomspace(1, n_steps, n).round().astype(np.int64), n_steps))


class OnlineMixin:
    """The loop shared by the online learners; each learner supplies only its update rule.

    ``_online_loop(n_constraints, n_steps, step, generator, sampling)`` calls ``step(i, t)`` for
    t = 1..n_steps with constraint i drawn by ``sampling``:

    * "uniform": i.i.d. uniform with replacement (OASIS, SDCA's Algorithm 1);
    * "permutation": a fresh random permutation each pass;
    * "sequential": the constraints in their given order, pass after pass (a data stream).

    ``step`` returns (loss, mistake, updated) for the constraint *before* its update; the trace
    ``trace_`` records at geometric checkpoints the average cumulative loss, the online mistake
    rate and the constraint utilization (fraction of steps that changed the model).
    """

    def _online_loop(self, n_constraints, n_steps, step, generator, sampling, on_checkpoint=None):
        if sampling == "uniform":
            order = generator.integers(n_constraints, size=n_steps)
        elif sampling == "permutation":
            passes = -(-n_steps // n_constraints)
            order = np.concatenate([generator.permutation(n_constraints) for _ in range(passes)])
        elif sampling == "sequential":
            order = np.arange(n_steps) % n_constraints
        else:
            raise ValueError(f"unknown sampling {sampling!r}: 'uniform', 'permutation' or 'sequential'")
        marks = checkpoints(n_steps)
        trace = {"step": [], "avg_cumulative_loss": [], "mistake_rate": [], "utilization": []}
        cum_loss = cum_mistakes = cum_updates = 0.0
        next_mark = 0
        bar = tqdm(total=n_steps, disable=not self.verbose, desc=type(self).__name__,
                   mininterval=1.0, leave=False)
        for t, i in enumerate(order[:n_steps].tolist(), start=1):
            loss, mistake, updated = step(i, t)
            cum_loss += loss
            cum_mistakes += mistake
            cum_updates += updated
            if t == marks[next_mark]:
                trace["step"].append(t)
                trace["avg_cumulative_loss"].append(cum_loss / t)
                trace["mistake_rate"].append(cum_mistakes / t)
                trace["utilization"].append(cum_updates / t)
                if on_checkpoint is not None:
                    for k, v in on_checkpoint(t).items():
                        trace.setdefault(k, []).append(v)
                next_mark += 1
                bar.update(t - bar.n)
        bar.close()
        self.trace_ = trace
        self.n_steps_ = n_steps
        return trace
