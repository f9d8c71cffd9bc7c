"""RDML: Regularized Distance Metric Learning, online algorithm.

Jin, Wang, Zhou, "Regularized Distance Metric Learning: Theory and Algorithm", NIPS 2009,
Algorithm 1 and Theorem 6. Pairs (x, x', y) with y = +1 (similar) or -1 (dissimilar), Mahalanobis
matrix A, margin b = 1:

* a pair is violated when y (1 - ||x - x'||_A^2) <= 0 (nothing happens otherwise);
* Algorithm 1: A_t = Pi_{S+}(A_{t-1} - lambda y (x - x')(x - x')^T), A_0 = 0;
* Theorem 6 (the efficient form): a dissimilar pair only adds lambda D D^T (PSD is kept); a similar
  pair uses lambda_t = min(lambda, 1 / (D^T A_{t-1}^{-1} D)), which keeps A PSD without projecting.

The singular start, stated: with A_0 = 0 (and whenever D has a component outside the range of A)
A^{-1} does not exist and no positive step keeps A - lambda_t D D^T PSD, so Theorem 6's step is
undefined. There we take Algorithm 1's own step, the exact projection onto the PSD cone (eigenvalues
clipped at 0). Where D lies in the range of A, A^{-1} is the pseudo-inverse on that range and the
Theorem 6 step is used. (Taking a zero step instead would leave A = 0 on every similar pair.) Where
the least-squares solve that tests the range fails (LAPACK's SVD not converging on a singular A,
seen on people's answers), the exact projection is taken as well.

Pairs come from the triplets as for LEGO (``tripletbench.datasets.constraints.triplets_to_pairs``), one pass
in their order (``n_passes``). lambda: the paper's value could not be read here; the default 0.1
is the value public implementations use, and the tables choose it on the validation split.

Errors: ``ValueError`` for lam not > 0, n_passes not > 0 or range_tol < 0 (``_check_params``, also
run by the config check); :class:`~tripletbench.datasets.base.DataError` for unusable pairs (NaN/inf, none,
all one point).
"""

from __future__ import annotations

import numpy as np

from .base import BaseLearner, MahalanobisMixin, OnlineMixin, PairClassifierMixin


class RDML(PairClassifierMixin, MahalanobisMixin, OnlineMixin, BaseLearner):
    """RDML (Jin et al. 2009), a pair learner: ``fit(pairs, y)`` with y in {+1, -1}.

    Parameters
    ----------
    lam : float > 0, the step lambda.
    n_passes : float, passes over the pair stream.
    range_tol : float, relative residual below which D counts as in the range of A.

    Fitted: ``M_`` = A (d, d) PSD, ``threshold_`` (calibrated on the pairs of the last
    ``fit`` / ``partial_fit`` call, see :class:`~tripletbench.algorithms.base.PairClassifierMixin`),
    ``n_projections_`` (steps that needed the exact projection),
    ``trace_`` (loss: hinge max(0, -y (1 - ||x - x'||_A^2)); mistake: a violated pair).
    """

    name = "RDML"  # its name in configs and tables (algorithms: found by this)

    constraint_kind = "pairs"

    def __init__(
        self,
        lam=0.1,
        n_passes=1,
        range_tol=1e-10,
        preprocessor=None,
        random_state=None,
        verbose=False,
    ):
        self.lam = lam
        self.n_passes = n_passes
        self.range_tol = range_tol
        self.preprocessor = preprocessor
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, pairs, y, calibration_params=None):
        """Learn from the pair stream, starting from the paper's initial matrix."""
        self.__dict__.pop("M_", None)
        self.n_projections_ = 0
        return self.partial_fit(pairs, y, calibration_params)

    def _check_params(self):
        if not self.lam > 0:
            raise ValueError(f"RDML: lam must be > 0, got {self.lam!r}")
        if not self.range_tol >= 0:
            raise ValueError(f"RDML: range_tol must be >= 0, got {self.range_tol!r}")

    def partial_fit(self, pairs, y, calibration_params=None):
        """Continue from the current matrix with ``n_passes`` over these pairs, in order; then
        calibrate ``threshold_`` on these pairs (``calibration_params``: keyword arguments of
        ``calibrate_threshold``; default: accuracy)."""
        self._check_params()
        X, D, y = self._labelled_pair_differences(pairs, y)
        lam = float(self.lam)
        if not hasattr(self, "M_"):
            self.M_ = np.zeros((X.shape[1], X.shape[1]))
        A = self.M_
        self.n_projections_ = getattr(self, "n_projections_", 0)

        def step(i, t):
            dvec, yi = D[i], y[i]
            value = yi * (1.0 - dvec @ A @ dvec)
            if value > 0:
                return 0.0, False, False
            if yi == -1:
                A[:] += lam * np.outer(dvec, dvec)
                return -value, True, True
            try:
                u, *_ = np.linalg.lstsq(A, dvec, rcond=None)
            except np.linalg.LinAlgError:
                # LAPACK's SVD (gelsd) can fail to converge on a singular A (measured on the
                # human answers: material, 297-d global features, step 690 of 10,000 pairs):
                # take Algorithm 1's exact projection, as for a D outside the range of A
                u = None
            in_range = u is not None and np.linalg.norm(A @ u - dvec) <= self.range_tol * max(
                np.linalg.norm(dvec), 1e-300
            )
            q = dvec @ u if u is not None else 0.0
            if in_range and q > 0:
                A[:] -= min(lam, 1.0 / q) * np.outer(dvec, dvec)
                A[:] = (A + A.T) / 2
            else:
                w, V = np.linalg.eigh(A - lam * np.outer(dvec, dvec))
                A[:] = (V * np.clip(w, 0, None)) @ V.T
                self.n_projections_ += 1
            return -value, True, True

        n_steps = max(int(round(self.n_passes * len(D))), 1)
        self._online_loop(
            len(D), n_steps, step, np.random.default_rng(self.random_state), "sequential"
        )
        self._calibrate_after_fit(pairs, y, calibration_params)
        return self
