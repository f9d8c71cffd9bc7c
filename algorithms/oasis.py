"""OASIS: Online Algorithm for Scalable Image Similarity (passive-aggressive bilinear similarity).

Chechik, Sharma, Shalit, Bengio, "Large Scale Online Learning of Image Similarity Through
Ranking", JMLR 11 (2010), section 2:

* similarity S_W(p_i, p_j) = p_i^T W p_j (eq. 1), W_0 = I (section 2, "initialization");
* triplet hinge loss l_W(p, p+, p-) = max(0, 1 - S_W(p, p+) + S_W(p, p-)) (eq. 3);
* passive-aggressive step (eqs. 6-8): V = p (p+ - p-)^T, tau = min(C, l_W / ||V||_F^2),
  W <- W + tau V, with ||V||_F^2 = ||p||^2 ||p+ - p-||^2;
* triplets sampled uniformly at random at each step (section 2).

Deviations, stated: when ||V||_F = 0 (a zero anchor, or p+ = p-) the step is undefined (0/0);
we skip it (no update, counted as not utilized) instead of dividing by zero. The number of steps
is ``n_epochs`` times the number of triplets (the paper stops by validation); C is chosen on our
validation split (see ``config/default.yaml``).
"""
from __future__ import annotations

import time

import numpy as np

from .base import (BaseLearner, BilinearMixin, TraceRecorder, bilinear_stream, row_sqnorm,
                   sample_order)


class OASIS(BilinearMixin, BaseLearner):
    """OASIS (Chechik et al. 2010).

    Parameters
    ----------
    C : float, aggressiveness (upper bound of the step tau), > 0.
    n_epochs : float, number of steps = n_epochs * n_triplets.
    sampling : "uniform" (paper) | "permutation" | "sequential".
    block_size : int >= 1, steps scored together by the exact blocked engine
        (:func:`algorithms.base.bilinear_stream`); the iterates do not depend on it.
    preprocessor, random_state, verbose : see :mod:`algorithms.base`.

    Fitted: ``W_`` (d, d) float64, ``trace_`` (dict of lists, see ``TraceRecorder``),
    ``order_`` (n_steps,) the triplet index seen at each step.
    """

    def __init__(self, C=0.1, n_epochs=10, sampling="uniform", block_size=128, preprocessor=None,
                 random_state=None, verbose=False):
        self.C = C
        self.n_epochs = n_epochs
        self.sampling = sampling
        self.block_size = block_size
        self.preprocessor = preprocessor
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, triplets):
        if not self.C > 0:
            raise ValueError(f"C must be > 0, got {self.C}")
        X, idx = self._points(triplets, 3, "triplets")
        P = X[idx[:, 0]]
        Dpn = X[idx[:, 1]] - X[idx[:, 2]]
        sqnorm = row_sqnorm(P) * row_sqnorm(Dpn)       # ||V_i||_F^2
        self.W_ = np.eye(X.shape[1])
        C = float(self.C)

        def rule(i, t, margin):
            loss = max(0.0, 1.0 - margin)
            if loss == 0.0 or sqnorm[i] == 0.0:
                return loss, margin <= 0, 0.0
            return loss, margin <= 0, min(C, loss / sqnorm[i])

        n_steps = max(int(round(self.n_epochs * len(idx))), 1)
        order = sample_order(len(idx), n_steps, np.random.default_rng(self.random_state),
                             self.sampling)
        rec = TraceRecorder(n_steps, verbose=self.verbose, desc="OASIS")
        t_start = time.perf_counter()
        bilinear_stream(self.W_, P, Dpn, order, rule, rec, self.block_size)
        self.stream_seconds_ = time.perf_counter() - t_start
        self.trace_, self.n_steps_, self.order_ = rec.trace, n_steps, order
        return self
