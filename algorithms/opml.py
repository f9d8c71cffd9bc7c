"""OPML: One-Pass closed-form online metric learning.

Li, Gao, Wang, Gong, Wang, "OPML: A One-Pass Closed-Form Solution for Online Metric Learning",
Pattern Recognition 75 (2018). A transformation L (d x d), distance ||L x - L x'||^2, L_0 = I.

* One-pass triplet construction (section 3.1; as in the authors' code ``OML_OPML.m``): the learner
  keeps the latest sample of every class seen and the latest sample overall. A new sample x_t of
  class y_t forms one triplet (x_t, x_p, x_q): if the latest sample has class y_t, x_p is that sample
  and x_q the stored sample of the most recently discovered other class; otherwise x_q is the latest
  sample and x_p the stored sample of class y_t. A sample of a class never seen forms no triplet.
* Update (closed form, eq. 16 in the authors' numbering, written in its compact form):
  with a = x_t - x_p, b = x_t - x_q, when ||L a||^2 + 1 - ||L b||^2 > 0,
      L_t = L_{t-1} (I + gamma (a a^T - b b^T))^{-1},
  the minimiser of 1/2 ||L - L_{t-1}||_F^2 + gamma/2 (||L a||^2 - ||L b||^2); applied with the
  Woodbury identity (rank two, O(d^2) per step).
* gamma = 1e-3, the authors' default (``Main_OPML.m``).

Input: labelled samples in stream order (``fit(X, y)``); the harness passes the training samples
that occur in the triplet set, in a seeded random order (OPML builds its own triplets). A singular
(I + gamma(a a^T - b b^T)) (possible only for gamma ||b||^2 >= 1) is skipped and counted.

Errors: ``ValueError`` for gamma not > 0 or shuffle not a bool; :class:`~datasets.base.DataError`
for NaN/inf, no rows, labels that do not match the rows, or a stream that forms no triplet.
"""

from __future__ import annotations

import numpy as np

from datasets.base import DataError
from datasets.preprocess import check_labelled

from .base import BaseLearner, MahalanobisMixin, OnlineMixin


def one_pass_triplets(y: np.ndarray) -> np.ndarray:
    """OPML's one-pass triplets over a labelled stream ``y`` (n,): int (m, 3) rows (t, p, q)."""
    latest_of_class: dict = {}
    discovered: list = []
    latest = None
    out = []
    for t, c in enumerate(np.asarray(y).tolist()):
        if c in latest_of_class and len(discovered) >= 2:
            if y[latest] == c:
                other = discovered[-1] if discovered[-1] != c else discovered[-2]
                out.append((t, latest, latest_of_class[other]))
            else:
                out.append((t, latest_of_class[c], latest))
        if c not in latest_of_class:
            discovered.append(c)
        latest_of_class[c] = t
        latest = t
    return np.array(out, dtype=np.int64).reshape(-1, 3)


class OPML(MahalanobisMixin, OnlineMixin, BaseLearner):
    """OPML (Li et al. 2018), a supervised one-pass learner: ``fit(X, y)`` in stream order.

    Parameters
    ----------
    gamma : float > 0 (the authors' default 1e-3).
    shuffle : bool, visit the samples in a random order drawn from ``random_state`` (the papers'
        streams are shuffled datasets); False keeps the given order.

    Fitted: ``L_`` (d, d), ``M_`` = L^T L, ``triplets_`` (the triplets built), ``n_singular_``,
    ``trace_`` (loss: max(0, ||L a||^2 + 1 - ||L b||^2) before the update; mistake: x_p not
    closer than x_q).
    """

    constraint_kind = "labels"

    def __init__(
        self, gamma=1e-3, shuffle=True, preprocessor=None, random_state=None, verbose=False
    ):
        self.gamma = gamma
        self.shuffle = shuffle
        self.preprocessor = preprocessor
        self.random_state = random_state
        self.verbose = verbose

    def _check_params(self):
        if not self.gamma > 0:
            raise ValueError(f"OPML: gamma must be > 0, got {self.gamma!r}")
        if not isinstance(self.shuffle, (bool, np.bool_)):
            raise ValueError(f"OPML: shuffle must be True or False, got {self.shuffle!r}")

    def fit(self, X, y):
        """One pass over labelled points X (n, d) float, y (n,) in stream order."""
        self._check_params()
        X, y = check_labelled(X, y, "OPML input")
        rng = np.random.default_rng(self.random_state)
        stream = rng.permutation(len(X)) if self.shuffle else np.arange(len(X))
        local = one_pass_triplets(y[stream])
        if len(local) == 0:
            raise DataError("OPML: the stream forms no triplet (it needs two classes and a repeat)")
        self.triplets_ = stream[local]
        a_all = X[self.triplets_[:, 0]] - X[self.triplets_[:, 1]]
        b_all = X[self.triplets_[:, 0]] - X[self.triplets_[:, 2]]
        gamma = float(self.gamma)
        L = np.eye(X.shape[1])
        self.n_singular_ = 0

        def step(i, t):
            a, b = a_all[i], b_all[i]
            La, Lb = L @ a, L @ b
            z = La @ La + 1.0 - Lb @ Lb
            mistake = z >= 1.0  # x_p not closer than x_q
            if z <= 0:
                return 0.0, False, False
            # (I + U V^T)^{-1} = I - U (I_2 + V^T U)^{-1} V^T with U = gamma [a, -b], V = [a, b]
            U = gamma * np.column_stack([a, -b])
            V = np.column_stack([a, b])
            K = np.eye(2) + V.T @ U
            if abs(np.linalg.det(K)) < 1e-12:
                self.n_singular_ += 1
                return z, mistake, False
            L[:] -= (L @ U) @ np.linalg.solve(K, V.T)
            return z, mistake, True

        self._online_loop(len(self.triplets_), len(self.triplets_), step, rng, "sequential")
        self.L_ = L
        self.M_ = L.T @ L
        return self
