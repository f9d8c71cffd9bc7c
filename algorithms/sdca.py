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
import scipy.sparse as sp

from .base import (
    BaseLearner,
    BilinearMixin,
    row_bilinear,
    row_sqnorm,
    tuple_rows,
    weighted_outer_sum,
)


def squared_hinge_primal(M, A, Z, lam, chunk: int = 8192):
    """P(M) (eq. 4 without the PSD condition) for anchors ``A`` (n, d) and differences
    ``Z`` = x+ - x- (n, d) (arrays or CSR); one pass over the triplets in chunks of ``chunk`` rows
    (memory O(chunk d), not O(n d))."""
    n = A.shape[0]
    loss = 0.0
    for lo in range(0, n, chunk):
        margins = row_bilinear(A[lo : lo + chunk], M, Z[lo : lo + chunk])
        loss += float(np.sum(np.maximum(0.0, 1.0 - margins) ** 2))
    return loss / n + 0.5 * lam * float(np.sum(M * M))


def dual_value(alpha, M, lam) -> float:
    """D(alpha) (eq. 5) given M = M(alpha) (eq. 7), which the steps keep up to date: no pass
    over the triplets (O(n + d^2))."""
    return float(np.mean(alpha - alpha**2 / 4) - 0.5 * lam * np.sum(M * M))


def squared_hinge_dual(alpha, A, Z, lam):
    """D(alpha) and M(alpha) for the same problem."""
    n = len(alpha)
    M = weighted_outer_sum(A, alpha, Z) / (lam * n)
    return float(np.mean(alpha - alpha**2 / 4) - 0.5 * lam * np.sum(M * M)), M


def sdca_step(i, t, m, par, state):
    """Algorithm 1's coordinate step for triplet i at step t with margin m = <M, X_i>:
    Delta alpha_i = max(-alpha_i, (1 - m - alpha_i / 2) / (1/2 + ||X_i||_F^2 / (lambda n)));
    returns Delta alpha_i / (lambda n), the step of M along X_i. ``par`` = [T0, lambda n];
    ``state[i]`` = (alpha_i, 1/2 + ||X_i||_F^2 / (lambda n), running sum of alpha_i over the
    states T0..since-1, since): the running sum for the "average" output is brought up to date
    (lazily, O(1)) whenever alpha_i changes after T0. Compiled by numba inside the engine's loop
    (:mod:`tripletbench.algorithms.kernels`)."""
    ai = state[i, 0]
    delta = (1.0 - m - 0.5 * ai) / state[i, 1]
    if delta < -ai:
        delta = -ai
    if delta != 0.0:
        if t > par[0]:  # states since..t-1 held the old value
            state[i, 2] += ai * (t - state[i, 3])
            state[i, 3] = t
        state[i, 0] = ai + delta
    return delta / par[1]


class SDCA(BilinearMixin, BaseLearner):
    """SDCA for relative similarity with the squared hinge loss.

    Parameters
    ----------
    lam : float > 0, regularization lambda (the paper's grid: 0.0025, 0.005, 0.01).
    n_epochs : float, T = n_epochs * n steps.
    output : "average" | "random" (Algorithm 1's two output options) | "last".
    average_from : float in [0, 1), T0 = floor(average_from * T) (the paper's remark: T = 2 T0).
    sampling : "uniform" (Algorithm 1) | "permutation" | "sequential".
    block_size : int >= 1 or "auto" (64: :func:`tripletbench.algorithms.base.auto_block_size`),
        steps scored together by the exact blocked engine (:func:`tripletbench.algorithms.base.bilinear_stream`);
        the iterates do not depend on it.
    trace_gap : bool, record the duality gap of the current iterate at each trace checkpoint
        (``trace_["duality_gap"]``). Off by default: each checkpoint costs one pass over all
        triplets for the primal (the dual comes from the iterate itself), i.e. half an epoch's
        flops, and there are about 10 checkpoints per decade of steps (measured: 100K steps on
        500K triplets at d = 297, 48 checkpoints, 130 s of CPU with the trace against 10 s
        without); the gap of the output and of the last iterate is always computed
        (``duality_gap_``, ``duality_gap_last_``).
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
        block_size="auto",
        trace_gap=False,
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
        A = tuple_rows(X, idx[:, 0])  # gathered per block when large (base.tuple_rows)
        Z = tuple_rows(X, idx[:, 1], idx[:, 2])
        n, d = A.shape
        lam_n = self.lam * n
        curvature = 0.5 + row_sqnorm(A) * row_sqnorm(Z) / lam_n
        T = max(int(round(self.n_epochs * n)), 1)
        T0 = int(np.floor(self.average_from * T))
        rng = np.random.default_rng(self.random_state)
        t_random = int(rng.integers(T0 + 1, T + 1))
        # the rule's state, one row per triplet: alpha_i, its curvature, the running sum of
        # alpha_i over the states T0..t-1 (lazily) and the state since which alpha_i has held
        # its value (max(., T0))
        state = np.zeros((n, 4))
        state[:, 1] = curvature
        state[:, 3] = T0
        alpha = state[:, 0]  # a view: the engine updates it
        M = np.zeros((d, d))
        snapshot = {}

        def at_checkpoint(t):
            out = {}
            if self.trace_gap:
                gap = squared_hinge_primal(M, A, Z, self.lam) - dual_value(alpha, M, self.lam)
                out["duality_gap"] = gap
            if self.checkpoint_callback is not None:
                out.update(self.checkpoint_callback(t, M))
            return out

        def keep_alpha(_):
            snapshot["alpha"] = alpha.copy()

        if sp.issparse(X):  # X_i = x (x+ - x-)^T as two terms in the points themselves
            terms = [(idx[:, 0], idx[:, 1], 1.0), (idx[:, 0], idx[:, 2], -1.0)]
        else:
            terms = [(A, Z, 1.0)]
        self._stream(
            M,
            terms,
            n,
            T,
            sdca_step,
            rng,
            at_checkpoint if self.trace_gap or self.checkpoint_callback else None,
            hook=keep_alpha if self.output == "random" else None,
            hook_at=[t_random],
            par=[T0, lam_n],
            state=state,
            points=X if sp.issparse(X) else None,
        )
        acc, since = state[:, 2], state[:, 3]
        last_primal = squared_hinge_primal(M, A, Z, self.lam)
        last_dual = dual_value(alpha, M, self.lam)
        self.duality_gap_last_ = last_primal - last_dual
        if self.output == "last":
            self.alpha_, self.W_ = alpha.copy(), M
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
