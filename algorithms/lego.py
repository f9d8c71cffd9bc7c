"""LEGO: LogDet Exact Gradient Online metric learning, and the pair-stream machinery it shares with
online ITML (:mod:`tripletbench.algorithms.itml_online`).

Jain, Kulis, Dhillon, Grauman, "Online Metric Learning and Fast Similarity Search", NIPS 2008,
section 2 (the paper itself was not at hand; see below). For a pair (u, v) with target squared
distance y_t, z = u - v, the prediction is y_hat = z^T A_t z and the update minimizing
D_ld(A, A_t) + eta * (z^T A z - y_t)^2 / 2 is exact:

  y_bar = (eta y_t y_hat - 1 + sqrt((eta y_t y_hat - 1)^2 + 4 eta y_hat^2)) / (2 eta y_hat)
  A_{t+1} = A_t - eta (y_bar - y_t) A_t z z^T A_t / (1 + eta (y_bar - y_t) y_hat),

where y_bar = z^T A_{t+1} z > 0. Since A_{t+1}^{-1} = A_t^{-1} + eta (y_bar - y_t) z z^T and
1 + eta (y_bar - y_t) y_hat = y_hat / y_bar > 0, A stays positive definite (tested). A_0 = I.

Shared with online ITML (:class:`LogDetPairStream`): both updates are rank-one LogDet steps
A_{t+1}^{-1} = A_t^{-1} + c_t z z^T, i.e. (Sherman-Morrison)
A_{t+1} = A_t - c_t (A_t z)(A_t z)^T / (1 + c_t y_hat); each method supplies only its coefficient
c_t (LEGO: eta (y_bar - y_t), above) and its loss.

Pairs and targets (the paper leaves them to the application): the harness turns each triplet (a, p,
n) into the similar pair (a, p) and the dissimilar pair (a, n)
(``tripletbench.datasets.constraints.triplets_to_pairs``). Targets follow ITML's convention: similar pairs aim
at the 5th percentile and dissimilar pairs at the 95th percentile of the squared Euclidean
distances of the training pairs (``target_quantiles``; with ``partial_fit``, of the first batch).
The pairs are one online stream, seen in order, ``n_passes`` times.

Which pairs get a step (``update``): the LEGO text itself could not be read here (searched:
the NIPS 2008 proceedings page and metadata, docstoc and dataset copies give the abstract and
introduction only, not section 2 or the experiments). By default every pair gets the exact step
("always": the squared loss is positive for any y_hat != y_t, so a similar pair already closer
than its target is pushed out to it): our reading. ``update="violation"`` steps only on a
violated pair (similar above its target, dissimilar below it), the rule of public LEGO code
(e.g. github.com/fcaldas/MetricLearning) and the only one consistent with the constraint
utilization below 1 that the OAHU paper (Gao et al., WWW 2019, Table 3) reports for its own
LEGO implementation; the OAHU experiments use it. A pair with z = 0 (duplicate
points) has y_hat = 0 and no defined step: it is skipped. Loss (trace): (y_hat - y_t)^2 / 2; a
mistake is y_hat on the wrong side of the midpoint of the two targets.

Implementation: A z and the rank-one step use the upper triangle of A only, in place, by BLAS
``dsymv`` / ``dsyr`` (no d x d temporary; the lower triangle is mirrored at the end), with one BLAS
thread; same iterates as ``A - coef * outer(Az, Az)`` to rounding (tested), ~6x faster at d = 784.
Each pair's z is gathered from the points at its step (:class:`~tripletbench.algorithms.base.TupleRows`),
and the targets' quantiles and the threshold's calibration score the pairs in chunks: memory
O(chunk d) beyond the points, not the (n, d) differences (2.4 GB at 1M pairs and d = 297).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg.blas import dsymv as _dsymv
from scipy.linalg.blas import dsyr as _dsyr

from .base import BaseLearner, MahalanobisMixin, OnlineMixin, PairClassifierMixin


class LogDetPairStream(PairClassifierMixin, MahalanobisMixin, OnlineMixin, BaseLearner):
    """Base of the online LogDet pair learners (LEGO, online ITML): ``fit(pairs, y)`` with y in
    {+1, -1}, one rank-one step A^{-1} <- A^{-1} + c z z^T per pair of the stream.

    Subclasses define ``_coefficient(eta, y_hat, y_t, z, A)`` -> c_t (0 for no step; it must
    keep 1 + c_t y_hat > 0; ``A`` is the current matrix, of which only the upper triangle is
    valid during the stream) and ``_loss(y_hat, y_t)`` (recorded in the trace), and their
    docstrings give the update rule and its source.

    Parameters
    ----------
    eta : float > 0, the method's step parameter (see the subclass).
    target_quantiles : (q_similar, q_dissimilar) of the training pairs' squared distances.
    n_passes : float, number of passes over the pair stream.

    Fitted: ``M_`` = A (d, d) float64 positive definite, ``targets_`` (2,) the target squared
    distances (similar, dissimilar), ``trace_``, ``n_steps_``, ``threshold_`` (calibrated on the
    pairs of the last ``fit`` / ``partial_fit`` call, see
    :class:`~tripletbench.algorithms.base.PairClassifierMixin`).
    """

    constraint_kind = "pairs"

    def __init__(
        self,
        eta=0.125,
        target_quantiles=(0.05, 0.95),
        n_passes=1,
        preprocessor=None,
        random_state=None,
        verbose=False,
    ):
        self.eta = eta
        self.target_quantiles = target_quantiles
        self.n_passes = n_passes
        self.preprocessor = preprocessor
        self.random_state = random_state
        self.verbose = verbose

    def _coefficient(self, eta: float, yhat: float, yt: float, z, A) -> float:
        raise NotImplementedError

    def _loss(self, yhat: float, yt: float) -> float:
        raise NotImplementedError

    def _updates(self, yhat: float, yt: float, label: int) -> bool:
        """Whether the pair (label +1 similar, -1 dissimilar) gets a step; default: every pair."""
        return True

    def _check_params(self):
        if not self.eta > 0:
            raise ValueError(f"eta must be > 0, got {self.eta}")

    def fit(self, pairs, y, calibration_params=None):
        """Learn from the pair stream, starting from A_0 = I."""
        self.__dict__.pop("M_", None)
        self.__dict__.pop("targets_", None)
        return self.partial_fit(pairs, y, calibration_params)

    def partial_fit(self, pairs, y, calibration_params=None):
        """Continue from the current matrix with ``n_passes`` over these pairs, in order; then
        calibrate ``threshold_`` on these pairs (``calibration_params``: keyword arguments of
        ``calibrate_threshold``; default: accuracy)."""
        self._check_params()
        X, Z, y = self._labelled_pair_differences(pairs, y)  # z_i gathered per step
        sq = Z.squared_norms()
        if not hasattr(self, "targets_"):  # fixed by the first pairs of the stream
            self.targets_ = np.quantile(sq, self.target_quantiles)
        lo, hi = self.targets_
        target = np.where(y == 1, lo, hi)
        mid = (lo + hi) / 2
        eta = float(self.eta)
        if not hasattr(self, "M_"):
            self.M_ = np.eye(X.shape[1])
        A = self.M_
        coefficient, loss_of, updates = self._coefficient, self._loss, self._updates

        def step(i, t):
            z, yt = Z[i], target[i]
            Az = _dsymv(1.0, A.T, z, lower=1)  # A z from the upper triangle of A
            yhat = z @ Az
            mistake = (yhat > mid) if y[i] == 1 else (yhat < mid)
            loss = loss_of(yhat, yt)
            if yhat <= 0.0 or not updates(yhat, yt, y[i]):
                return loss, mistake, False
            c = coefficient(eta, yhat, yt, z, A)
            if c == 0.0:
                return loss, mistake, False
            _dsyr(-c / (1.0 + c * yhat), Az, a=A.T, lower=1, overwrite_a=1)  # upper triangle
            return loss, mistake, True

        n_steps = max(int(round(self.n_passes * len(Z))), 1)
        # the shared loop runs with one BLAS thread (base.one_blas_thread: numpy's and scipy's
        # OpenBLAS pools otherwise hand A back and forth, 8 ms instead of 0.2 ms at d = 784)
        self._online_loop(
            len(Z), n_steps, step, np.random.default_rng(self.random_state), "sequential"
        )
        iu = np.triu_indices(len(A), 1)
        A.T[iu] = A[iu]  # the steps kept the upper triangle: mirror it (A exactly symmetric)
        self._calibrate_after_fit(pairs, y, calibration_params)
        return self


class LEGO(LogDetPairStream):
    """LEGO (Jain et al. 2008), a pair learner: ``fit(pairs, y)`` with y in {+1, -1}.

    Parameters
    ----------
    eta : float > 0, the regularization/step parameter eta (the SDCA paper's grid for LEGO:
        0.01, 0.125, 0.5).
    target_quantiles : (q_similar, q_dissimilar) of the training pairs' squared distances.
    n_passes : float, number of passes over the pair stream.
    update : "always" or "violation". "always" (default): the step above on every pair of the
        stream, our reading of section 2 (its loss (y_hat - y_t)^2 / 2 is positive whenever
        y_hat != y_t; the LEGO text is not at hand here, see the module docstring). "violation":
        a step only on a violated pair, a similar pair with y_hat > y_t or a dissimilar pair
        with y_hat < y_t (the rule of public LEGO code, and the one the OAHU paper's constraint
        utilization of 0.58-0.66 for LEGO implies: "always" gives U = 1 by construction).

    Fitted: ``M_`` = A (d, d) positive definite, ``targets_`` (2,), ``trace_``.
    Raises ``ValueError`` for eta not > 0 or an unknown ``update``.
    """

    name = "LEGO"  # its name in configs and tables (algorithms: found by this)

    UPDATES = ("always", "violation")

    def __init__(
        self,
        eta=0.125,
        target_quantiles=(0.05, 0.95),
        n_passes=1,
        update="always",
        preprocessor=None,
        random_state=None,
        verbose=False,
    ):
        super().__init__(
            eta=eta,
            target_quantiles=target_quantiles,
            n_passes=n_passes,
            preprocessor=preprocessor,
            random_state=random_state,
            verbose=verbose,
        )
        self.update = update

    def _check_params(self):
        super()._check_params()
        if self.update not in self.UPDATES:
            raise ValueError(f"update must be one of {self.UPDATES}, got {self.update!r}")

    def _updates(self, yhat, yt, label):
        """ "violation": only a similar pair above its target or a dissimilar one below it."""
        if self.update == "always":
            return True
        return yhat > yt if label == 1 else yhat < yt

    def _coefficient(self, eta, yhat, yt, z, A):
        """c = eta (y_bar - y_t), y_bar the exact minimizer's prediction (module docstring)."""
        b = eta * yt * yhat - 1.0
        ybar = (b + np.sqrt(b * b + 4.0 * eta * yhat * yhat)) / (2.0 * eta * yhat)
        return eta * (ybar - yt)

    def _loss(self, yhat, yt):
        return 0.5 * (yhat - yt) ** 2
