"""SDCA for relative similarity: stochastic dual coordinate ascent on a bilinear similarity.

Wu et al., "Learning Relative Similarity by Stochastic Dual Coordinate Ascent", AAAI 2014
(below "the SDCA paper"): Algorithm 1 is Shalev-Shwartz & Zhang's SDCA
("Stochastic Dual Coordinate Ascent Methods for Regularized Loss Minimization", JMLR 14, 2013)
applied to triplets with the bilinear similarity S_M(x, y) = x^T M y (eq. 2):

* each triplet i gives X_i = x_i (x_i^+ - x_i^-)^T, so S_M(x, x+) - S_M(x, x-) = <M, X_i>;
* loss (eq. 3): the squared hinge phi(a) = max(0, 1 - a)^2, (1/gamma)-smooth with gamma = 1/2;
* primal (eq. 4) P(M) = (1/n) sum_i phi(<M, X_i>) + (lambda/2) ||M||_F^2. The paper writes eq. (4)
  as a minimisation over M >= 0 (positive semidefinite), but its dual (5), the closed-form step
  and Algorithm 1 are those of the unconstrained problem: no step projects M, and M(Theta) =
  (1/(lambda n)) sum_i alpha_i X_i is not symmetric in general. We implement Algorithm 1 as
  written: M is unconstrained, and P, D and the duality gap below are those of the unconstrained
  problem (the PSD condition of eq. 4 is not imposed);
* dual (eq. 5 with Theta_i = alpha_i X_i and the paper's conjugate
  -l*(-Theta_i) = alpha_i - alpha_i^2/4) D(alpha) = (1/n) sum_i (alpha_i - alpha_i^2 / 4) - (lambda/2) ||M(alpha)||_F^2, alpha_i >= 0,
  M(alpha) = (1/(lambda n)) sum_i alpha_i X_i (eq. 7), so alpha = 0 gives M_0 = 0 (Algorithm 1);
* coordinate step (Algorithm 1's closed form):
  Delta alpha_i = max(-alpha_i, (1 - <M, X_i> - alpha_i/2) / (1/2 + ||X_i||_F^2/(lambda n))),
  M <- M + Delta alpha_i X_i / (lambda n), with ||X_i||_F^2 = ||x_i||^2 ||x_i^+ - x_i^-||^2;
* i drawn uniformly at random (with replacement) at each of T = n_epochs * n steps (T is not
  stated in the paper);
* output options (Algorithm 1): "average": M_bar = mean of M^(t-1) over t = T0+1..T, i.e.
  M(alpha_bar) with alpha_bar the mean of alpha^(t-1); "random": M^(t) for one t drawn uniformly in
  T0+1..T. T0 = floor(T * average_from); the paper leaves T0 open, its remark after Theorem 1
  takes T = 2 T0 (our default average_from = 0.5). We also offer "last" (alpha^(T)). The duality gap
  P(M_out) - D(alpha_out) is recorded (``duality_gap_``), and the gap of the current iterate at each
  trace checkpoint.

A zero X_i (zero anchor or x+ = x-) needs no special case: its step leaves M unchanged.
The average is accumulated lazily per coordinate (O(1) per step), then M(alpha_bar) is one product.
"""

from __future__ import annotations

import numpy as np

from .base import (
    BaseLearner,
    BilinearMixin,
    row_bilinear,
    row_sqnorm,
    weighted_outer_sum,
)
from .oasis import LossSums


def squared_hinge_primal(M, A, Z, lam):
    """P(M) for anchors ``A`` (n, d) and differences ``Z`` = x+ - x- (n, d)."""
    margins = row_bilinear(A, M, Z)
    return float(np.mean(np.maximum(0.0, 1.0 - margins) ** 2) + 0.5 * lam * np.sum(M * M))


def squared_hinge_dual(alpha, A, Z, lam):
    """D(alpha) and M(alpha) for the same problem."""
    n = len(alpha)
    M = weighted_outer_sum(A, alpha, Z) / (lam * n)
    return float(np.mean(alpha - alpha**2 / 4) - 0.5 * lam * np.sum(M * M)), M


class SDCA(BilinearMixin, BaseLearner):
    """SDCA for relative similarity with the squared hinge loss.

    Parameters
    ----------
    lam : float > 0, regularization lambda (the paper's grid: 0.0025, 0.005, 0.01).
    n_epochs : float, T = n_epochs * n steps.
    output : "average" | "random" (Algorithm 1's two output options) | "last".
    average_from : float in [0, 1), T0 = floor(average_from * T) (the paper's remark: T = 2 T0).
    sampling : "uniform" (Algorithm 1) | "permutation" | "sequential".
    block_size : int >= 1, steps scored together by the exact blocked engine
        (:func:`algorithms.base.bilinear_stream`); the iterates do not depend on it.
    trace_gap : bool, record the duality gap of the current iterate at each trace checkpoint
        (each costs a pass over all triplets; off in the speed benchmark).
    trace_loss : "squared_hinge" (eq. 3, the loss SDCA minimizes) | "hinge", the loss the trace's
        ``avg_cumulative_loss`` records (of the step's triplet, before its update).
    trace_losses : bool, also record both (``avg_cumulative_hinge``,
        ``avg_cumulative_squared_hinge``) at every checkpoint, for the paper's Figure 1.
    checkpoint_callback : None or callable (t, M) -> dict, called at each trace checkpoint with
        the current iterate (evaluation along training); its values join the trace.

    Fitted: ``W_`` = M (d, d), ``alpha_`` (n,), ``primal_``, ``dual_``, ``duality_gap_`` of the
    output, ``duality_gap_last_`` of the last iterate, ``trace_`` (with "duality_gap" per checkpoint),
    ``order_`` (T,) the triplet index seen at each step.
    """

    name = "SDCA"  # its name in configs and tables (algorithms: found by this)

    def __init__(
        self,
        lam=0.005,
        n_epochs=10,
        output="average",
        average_from=0.5,
        sampling="uniform",
        block_size=128,
        trace_gap=True,
        trace_loss="squared_hinge",
        trace_losses=False,
        checkpoint_callback=None,
        preprocessor=None,
        random_state=None,
        verbose=False,
    ):
        self.lam = lam
        self.n_epochs = n_epochs
        self.output = output
        self.average_from = average_from
        self.sampling = sampling
        self.block_size = block_size
        self.trace_gap = trace_gap
        self.trace_loss = trace_loss
        self.trace_losses = trace_losses
        self.checkpoint_callback = checkpoint_callback
        self.preprocessor = preprocessor
        self.random_state = random_state
        self.verbose = verbose

    def _check_params(self):
        """Raise ``ValueError`` for lam <= 0, an unknown ``output`` or ``trace_loss``, or
        ``average_from`` outside [0, 1) (the shared checks run first: see ``BaseLearner``)."""
        if not self.lam > 0:
            raise ValueError(f"lam must be > 0, got {self.lam}")
        if self.output not in ("average", "random", "last"):
            raise ValueError(f"output must be 'average', 'random' or 'last', got {self.output!r}")
        if self.trace_loss not in ("hinge", "squared_hinge"):
            raise ValueError(
                f"trace_loss must be 'hinge' or 'squared_hinge', got {self.trace_loss!r}"
            )
        if not 0 <= self.average_from < 1:
            raise ValueError(f"average_from must lie in [0, 1), got {self.average_from}")

    def fit(self, triplets):
        self._check_params()
        X, idx = self._points(triplets, 3, "triplets")
        A = X[idx[:, 0]]
        Z = X[idx[:, 1]] - X[idx[:, 2]]
        n, d = A.shape
        lam_n = self.lam * n
        curvature = 0.5 + row_sqnorm(A) * row_sqnorm(Z) / lam_n
        T = max(int(round(self.n_epochs * n)), 1)
        T0 = int(np.floor(self.average_from * T))
        rng = np.random.default_rng(self.random_state)
        t_random = int(rng.integers(T0 + 1, T + 1))
        alpha = np.zeros(n)
        M = np.zeros((d, d))
        acc = np.zeros(n)  # sum of alpha_i^(s) over s = T0..T-1, lazily
        since = np.full(n, T0)  # alpha_i has held its value since state max(., T0)
        snapshot = {}
        power = 2 if self.trace_loss == "squared_hinge" else 1
        sums = LossSums() if self.trace_losses else None

        def rule(i, t, margin):
            ai = alpha[i]
            delta = max(-ai, (1.0 - margin - 0.5 * ai) / curvature[i])
            if delta != 0.0:
                if t > T0:  # states since..t-1 held the old value
                    acc[i] += ai * (t - since[i])
                    since[i] = t
                alpha[i] = ai + delta
            if t == t_random:
                snapshot["alpha"] = alpha.copy()
            hinge = max(0.0, 1.0 - margin)
            if sums is not None:
                sums.add(hinge)
            return hinge**power, margin <= 0, delta / lam_n

        def at_checkpoint(t):
            out = sums.averages(t) if sums is not None else {}
            if self.trace_gap:
                out["duality_gap"] = (
                    squared_hinge_primal(M, A, Z, self.lam)
                    - squared_hinge_dual(alpha, A, Z, self.lam)[0]
                )
            if self.checkpoint_callback is not None:
                out.update(self.checkpoint_callback(t, M))
            return out

        self._stream(M, [(A, Z, 1.0)], n, T, rule, rng, at_checkpoint)
        last_primal = squared_hinge_primal(M, A, Z, self.lam)
        last_dual = float(np.mean(alpha - alpha**2 / 4) - 0.5 * self.lam * np.sum(M * M))
        self.duality_gap_last_ = last_primal - last_dual
        if self.output == "last":
            self.alpha_, self.W_ = alpha, M
            self.primal_, self.dual_ = last_primal, last_dual
        else:
            if self.output == "average":
                acc += alpha * (T - np.maximum(since, T0))
                out = acc / (T - T0)
            else:
                out = snapshot["alpha"]
            self.alpha_ = out
            self.dual_, self.W_ = squared_hinge_dual(out, A, Z, self.lam)
            self.primal_ = squared_hinge_primal(self.W_, A, Z, self.lam)
        self.duality_gap_ = self.primal_ - self.dual_
        return self
