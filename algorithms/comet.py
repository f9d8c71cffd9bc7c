"""COMET: block COordinate METric learning, one feature (row and column) at a time.

Atzmon, Shalit, Chechik, "Learning sparse metrics, one feature at a time", JMLR W&CP 44 (FE
workshop at NIPS 2015), and the authors' code (dense version, ``grad_stepk_dense.m``):

* bilinear similarity S_W(q, p) = q^T W p with W symmetric positive definite, W_0 = I;
* objective  F(W) = sum_t [1 - q_t^T W (p_t - n_t)]_+ + (frob/2) ||W||_F^2 - mu logdet(W)
  (hinge terms summed over the triplets, not averaged);
* a step changes only row and column k: W <- W + eta (u e_k^T + e_k u^T), with
  u = -( (g_row + g_col)/2 + frob W[:, k] - mu W^{-1}[:, k] ),
  g_row = -sum_{t active} q_t[k] z_t, g_col = -sum_{t active} z_t[k] q_t, z_t = p_t - n_t
  (u is minus half the gradient of F along that symmetric direction);
* W stays positive definite: with A = W without row/column k and B = W[A, k], the Schur
  complement after the step is s(eta) = s_0 + 2 eta (u_k - u_A^T A^{-1} B) - eta^2 u_A^T A^{-1} u_A,
  s_0 = W_kk - B^T A^{-1} B > 0, so eta must stay below the positive root eta_max of
  a eta^2 + b eta + c = 0 (a = u_A^T A^{-1} u_A, b = -2(u_k - u_A^T A^{-1} B), c = -s_0); the
  step is eta = min(max_step, bound_weight * eta_max) with bound_weight < 1;
* coordinates are visited in a fresh random order in each of ``n_sweeps`` sweeps.

Implementation: margins of all triplets are kept up to date (O(n d) per step) and W^{-1} by the
rank-two Woodbury identity (O(d^2)), recomputed from W after every sweep against drift. The
sparse (group-lasso) variant of the published paper is not implemented yet.

Trace (a batch learner): after each coordinate step, the mean hinge loss over the triplets, the
fraction of triplets ranked wrongly (training mistake rate), the fraction that have been active
(contributed a gradient) at least once (constraint utilization), the objective, and at checkpoints
the smallest eigenvalue of W.
"""

from __future__ import annotations

import numpy as np

from .base import BaseLearner, BilinearMixin, TraceRecorder, dense, row_bilinear


class COMET(BilinearMixin, BaseLearner):
    """COMET, dense version (Atzmon, Shalit, Chechik 2015).

    Parameters
    ----------
    mu : float > 0, weight of -logdet(W) (the authors' examples: 0.5 and 5).
    frob : float >= 0, weight of ||W||_F^2 / 2 (the authors' examples: 0).
    max_step : float > 0, upper bound of eta (examples: 1e-3, 0.01).
    bound_weight : float in (0, 1), fraction of the Schur-complement bound (examples: 0.3).
    n_sweeps : int, passes over the d coordinates (examples: 8 to 15).

    Fitted: ``W_`` (d, d) symmetric positive definite, ``objective_``, ``trace_``.
    """

    def __init__(
        self,
        mu=0.5,
        frob=0.0,
        max_step=1e-3,
        bound_weight=0.3,
        n_sweeps=10,
        preprocessor=None,
        random_state=None,
        verbose=False,
    ):
        self.mu = mu
        self.frob = frob
        self.max_step = max_step
        self.bound_weight = bound_weight
        self.n_sweeps = n_sweeps
        self.preprocessor = preprocessor
        self.random_state = random_state
        self.verbose = verbose

    def _objective(self, W, margins):
        sign, logdet = np.linalg.slogdet(W)
        return (
            np.maximum(0.0, 1.0 - margins).sum()
            + 0.5 * self.frob * np.sum(W * W)
            - self.mu * logdet
        )

    def fit(self, triplets):
        if not self.mu > 0:
            raise ValueError(f"mu must be > 0 (the logdet barrier keeps W definite), got {self.mu}")
        if not 0 < self.bound_weight < 1:
            raise ValueError(f"bound_weight must be in (0, 1), got {self.bound_weight}")
        X, idx = self._points(triplets, 3, "triplets")
        Q = dense(X[idx[:, 0]])
        Z = dense(X[idx[:, 1]] - X[idx[:, 2]])
        n, d = Q.shape
        W = np.eye(d)
        Winv = np.eye(d)
        margins = row_bilinear(Q, W, Z)
        ever_active = np.zeros(n, dtype=bool)
        rng = np.random.default_rng(self.random_state)
        n_steps = self.n_sweeps * d

        def at_checkpoint(t):
            return {
                "objective": self._objective(W, margins),
                "min_eigenvalue": float(np.linalg.eigvalsh(W)[0]),
            }

        rec = TraceRecorder(n_steps, at_checkpoint, self.verbose, "COMET")
        t = 0
        for _ in range(self.n_sweeps):
            for k in rng.permutation(d).tolist():
                t += 1
                active = margins < 1.0
                ever_active |= active
                g_row = -Z[active].T @ Q[active, k]
                g_col = -Q[active].T @ Z[active, k]
                u = -(0.5 * (g_row + g_col) + self.frob * W[:, k] - self.mu * Winv[:, k])
                eta = self._step_size(W, Winv, u, k)
                if eta > 0.0:
                    # margins: q^T (eta (u e_k^T + e_k u^T)) z = eta (q.u z_k + q_k u.z)
                    margins += eta * ((Q @ u) * Z[:, k] + Q[:, k] * (Z @ u))
                    Winv = self._woodbury(Winv, eta * u, k)
                    W[:, k] += eta * u
                    W[k, :] += eta * u
                rec.record_state(
                    t,
                    lambda: (
                        float(np.maximum(0.0, 1.0 - margins).mean()),
                        float(np.mean(margins <= 0)),
                        float(ever_active.mean()),
                    ),
                )
            Winv = np.linalg.inv(W)
        self.W_ = W
        self.objective_ = self._objective(W, margins)
        self.trace_ = rec.trace
        self.n_steps_ = n_steps
        return self

    def _step_size(self, W, Winv, u, k):
        """eta = min(max_step, bound_weight * eta_max) from the Schur-complement condition."""
        rest = np.arange(W.shape[0]) != k
        # A^{-1} from W^{-1} (block inverse): (W^{-1})_AA - (W^{-1})_Ak (W^{-1})_kA / (W^{-1})_kk
        Ainv = Winv[np.ix_(rest, rest)] - np.outer(Winv[rest, k], Winv[k, rest]) / Winv[k, k]
        uA, B = u[rest], W[rest, k]
        AinvB = Ainv @ B
        a = uA @ Ainv @ uA
        b = -2.0 * (u[k] - uA @ AinvB)
        c = -(W[k, k] - B @ AinvB)
        if c >= 0:  # numerically not positive definite any more: take no step
            return 0.0
        if a <= 1e-300:
            bound = np.inf if b <= 0 else -c / b
        else:
            bound = (-b + np.sqrt(b * b - 4.0 * a * c)) / (2.0 * a)
        return float(min(self.max_step, self.bound_weight * bound))

    @staticmethod
    def _woodbury(Winv, v, k):
        """Inverse of W + v e_k^T + e_k v^T from W^{-1} (rank-two Woodbury identity)."""
        d = len(v)
        U = np.zeros((d, 2))
        U[:, 0] = v
        U[k, 1] = 1.0
        V = U[:, ::-1]  # W' = W + U V^T with V = [e_k, v]
        WinvU = Winv @ U
        K = np.eye(2) + V.T @ WinvU
        return Winv - WinvU @ np.linalg.solve(K, V.T @ Winv)
