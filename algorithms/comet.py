"""COMET: block COordinate METric learning, one feature (row and column) at a time.

Sources, and what each gives:

* the COMET draft (Atzmon, Shalit, Chechik, "Metric Learning using Block Coordinate Descent",
  an unfinished ICML 2015 LaTeX draft without experiments): the bilinear
  similarity S_W(q, p) = q^T W p, the ranking hinge loss per triplet
  l_t = [1 - q_t^T W p_t^+ + q_t^T W p_t^-]_+, the objective L(W) = sum_t l_t - mu logdet(W) over
  positive definite W (hinge terms summed over the batch of triplets, not averaged; a Frobenius
  term was "tested" without "significant improvement" and is not in it), its (sub)gradient
  sum_t 1(lambda_t > 0) q_t (p_t^- - p_t^+)^T - mu W^{-1}, and the principle of the step: one row
  and column k at a time, the step size bounded through the Schur-complement condition of positive
  definiteness. The draft's subsection on the block step is empty.
* the authors' code (github.com/yuvalatzmon/COMET, MATLAB; ``denseCOMET/grad_stepk_dense.m``,
  ``train_dense_comet.m``, ``example_comet_dense_training.m``; the README cites it as "Learning
  Sparse Metrics, One Feature at a Time", JMLR 2015): the step itself, below, and the settings.

The step (authors' code), W_0 = I:

* a step changes only row and column k: W <- W + eta (u e_k^T + e_k u^T), with
  u = -( (g_row + g_col)/2 + frob W[:, k] - mu W^{-1}[:, k] ),
  g_row = -sum_{t active} q_t[k] z_t, g_col = -sum_{t active} z_t[k] q_t, z_t = p_t - n_t,
  "active" = hinge positive (u is minus half the gradient of L along that symmetric direction;
  ``frob`` is the code's Frobenius weight, 0 in its examples and by default here);
* W stays positive definite: with A = W without row/column k and B = W[A, k], the Schur
  complement after the step is s(eta) = s_0 + 2 eta (u_k - u_A^T A^{-1} B) - eta^2 u_A^T A^{-1} u_A,
  s_0 = W_kk - B^T A^{-1} B > 0, so eta must stay below the positive root eta_max of
  a eta^2 + b eta + c = 0 (a = u_A^T A^{-1} u_A, b = -2(u_k - u_A^T A^{-1} B), c = -s_0); the
  step is eta = min(max_step, bound_weight * eta_max) with bound_weight < 1;
* coordinates are visited in a fresh random order (a permutation) in each of ``n_sweeps`` sweeps.

Settings the draft leaves open, and ours: mu, the step cap, the bound weight, the number of sweeps,
the coordinate order, W_0 and the triplets. The authors' examples pair them with the number of
triplets: protein (20K triplets): mu 5, step cap 1e-3, 15 sweeps; RCV1 (100K triplets): mu 0.5,
step cap 0.01, 8 sweeps; bound weight 0.3 in both (the code's comment says 0.1 elsewhere). As the
hinge terms are summed, mu and the step cap only mean something together with the number of
triplets; our configs use a whole example setting, not a mix (the SDCA Table 2 rows, 10K
triplets: the protein setting; config/default.yaml says so).

Implementation: margins of all triplets are kept up to date (O(n d) per step) and W^{-1} by the
rank-two Woodbury identity (O(d^2)), recomputed from W after every sweep against drift.

Sparse COMET (:class:`SparseCOMET`, the group-lasso variant of the authors' code
``train_sparse_comet.m`` / ``prox1_stepk.m`` / ``diag_step0.m``; the draft has no sparse variant):

* W = D + sum_k (v_k e_k^T + e_k v_k^T): a diagonal D and, per feature k, a group v_k (zero at k)
  of off-diagonal entries; the penalty is lambda sum_k ||v_k||_2 (row-column sparsity);
* optional diagonal pre-training (``n_steps_diag`` gradient steps of size ``stepsize_diag`` on D
  for hinge - mu logdet, halving a step until D stays positive with condition number < 1e6);
  afterwards D is fixed;
* a step on group k is a proximal gradient step
  h = v_k + eta u (u as above with u_k = 0), v_k <- h [1 - sparse_weight / ||h||]_+ ;
  the authors' code thresholds with ``sparse_weight`` itself, not eta * lambda (so
  sparse_weight = eta * lambda of the group lasso); we do the same;
* eta = min(max_step, eta_max(u)) times ``bound_weight`` if the Schur bound was the smaller; the
  step is skipped when removing v_k would leave W not positive definite (then the convex
  combination of "v_k = 0" and "full gradient step" that the prox returns could leave the cone),
  else the result stays positive definite (the feasible set of v_k is convex);
* the authors' code calls CHOLMOD for A^{-1}; we take it from W^{-1} as in the dense version.

Trace (a batch learner): after each coordinate step, the mean hinge loss over the triplets, the
fraction of triplets ranked wrongly (training mistake rate), the fraction that have been active
(contributed a gradient) at least once (constraint utilization), the objective, and at checkpoints
the smallest eigenvalue of W.
"""

from __future__ import annotations

import numpy as np

from .base import BaseLearner, BilinearMixin, TraceRecorder, dense, row_bilinear


class COMET(BilinearMixin, BaseLearner):
    """COMET, dense version (the draft's objective, the authors' step; module docstring).

    Parameters
    ----------
    mu : float > 0, weight of -logdet(W) (the authors' examples: 5 with 20K triplets, 0.5 with
        100K).
    frob : float >= 0, weight of ||W||_F^2 / 2 (the authors' code; 0 in its examples).
    max_step : float > 0, upper bound of eta (examples: 1e-3 with 20K triplets, 0.01 with 100K).
    bound_weight : float in (0, 1), fraction of the Schur-complement bound (examples: 0.3).
    n_sweeps : int, passes over the d coordinates (examples: 15 with 20K triplets, 8 with 100K).

    Fitted: ``W_`` (d, d) symmetric positive definite, ``objective_``, ``trace_``.
    """

    name = "COMET"  # its name in configs and tables (algorithms: found by this)

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
        _sign, logdet = np.linalg.slogdet(W)
        return (
            np.maximum(0.0, 1.0 - margins).sum()
            + 0.5 * self.frob * np.sum(W * W)
            - self.mu * logdet
        )

    def _check_params(self):
        if not self.mu > 0:
            raise ValueError(f"mu must be > 0 (the logdet barrier keeps W definite), got {self.mu}")
        if not 0 < self.bound_weight < 1:
            raise ValueError(f"bound_weight must be in (0, 1), got {self.bound_weight}")
        if not self.max_step > 0:
            raise ValueError(f"max_step (the step cap) must be > 0, got {self.max_step}")
        if not (isinstance(self.n_sweeps, (int, np.integer)) and self.n_sweeps >= 1):
            raise ValueError(f"n_sweeps must be an int >= 1, got {self.n_sweeps!r}")
        if not getattr(self, "frob", 0.0) >= 0:
            raise ValueError(f"frob must be >= 0, got {self.frob}")

    def _initial(self, Q, Z):
        """W_0 = I (the dense version)."""
        return np.eye(Q.shape[1])

    def _group_step(self, W, Winv, u, k):
        """The change of column k (a (d,) vector, added to row and column k) or None: the dense
        step eta u with eta bounded through the Schur complement."""
        eta = self._step_size(W, Winv, u, k)
        return eta * u if eta > 0.0 else None

    def _checkpoint_extras(self, W):
        return {}

    def fit(self, triplets):
        self._check_params()
        X, idx = self._points(triplets, 3, "triplets")
        Q = dense(X[idx[:, 0]])
        Z = dense(X[idx[:, 1]] - X[idx[:, 2]])
        n, d = Q.shape
        W = self._initial(Q, Z)
        Winv = np.linalg.inv(W)
        margins = row_bilinear(Q, W, Z)
        ever_active = np.zeros(n, dtype=bool)
        rng = np.random.default_rng(self.random_state)
        n_steps = self.n_sweeps * d

        def at_checkpoint(t):
            return {
                "objective": self._objective(W, margins),
                "min_eigenvalue": float(np.linalg.eigvalsh(W)[0]),
                **self._checkpoint_extras(W),
            }

        def training_stats():  # margins and ever_active are updated in place
            return (
                float(np.maximum(0.0, 1.0 - margins).mean()),
                float(np.mean(margins <= 0)),
                float(ever_active.mean()),
            )

        rec = TraceRecorder(n_steps, at_checkpoint, self.verbose, type(self).__name__)
        t = 0
        for _ in range(self.n_sweeps):
            for k in rng.permutation(d).tolist():
                t += 1
                active = margins < 1.0
                ever_active |= active
                g_row = -Z[active].T @ Q[active, k]
                g_col = -Q[active].T @ Z[active, k]
                u = -(0.5 * (g_row + g_col) + self.frob * W[:, k] - self.mu * Winv[:, k])
                delta = self._group_step(W, Winv, u, k)
                if delta is not None:
                    # margins: q^T (delta e_k^T + e_k delta^T) z = q.delta z_k + q_k delta.z
                    margins += (Q @ delta) * Z[:, k] + Q[:, k] * (Z @ delta)
                    Winv = self._woodbury(Winv, delta, k)
                    W[:, k] += delta
                    W[k, :] += delta
                rec.record_state(t, training_stats)
            Winv = np.linalg.inv(W)
        self.W_ = W
        self.objective_ = self._objective(W, margins)
        self.trace_ = rec.trace
        self.n_steps_ = n_steps
        return self

    def _step_size(self, W, Winv, u, k):
        """eta = min(max_step, bound_weight * eta_max) from the Schur-complement condition."""
        return float(min(self.max_step, self.bound_weight * self._schur_bound(W, Winv, u, k)))

    @staticmethod
    def _schur_bound(W, Winv, u, k):
        """eta_max: W + eta (u e_k^T + e_k u^T) is positive definite for 0 <= eta < eta_max
        (inf when unbounded; 0 when W itself is numerically not positive definite)."""
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
            return np.inf if b <= 0 else float(-c / b)
        return float((-b + np.sqrt(b * b - 4.0 * a * c)) / (2.0 * a))

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


class SparseCOMET(COMET):
    """Sparse COMET: group-lasso proximal steps on the off-diagonal groups (Atzmon, Shalit,
    Chechik 2015; the authors' ``prox1_stepk.m``), see the module docstring.

    Parameters
    ----------
    mu : float > 0, weight of -logdet(W) (authors' examples: 5 protein, 0.5 RCV1).
    sparse_weight : float > 0, the prox threshold on ||h|| (examples: 0.012 protein, 0.31 RCV1).
    max_step : float > 0, upper bound of eta (examples: 5e-4 protein, 0.07 RCV1).
    bound_weight : float in (0, 1), back-off from the Schur bound (authors: 0.3).
    n_sweeps : int, passes over the d coordinates (examples: 48 protein, 12 RCV1).
    n_steps_diag, stepsize_diag : diagonal pre-training (examples: 0 and 0 protein, 30 and 10
        RCV1); 0 steps keeps D = I.

    Defaults are the authors' protein example except n_sweeps. Fitted: ``W_`` (d, d) symmetric
    positive definite, ``V_`` (d, d) the groups (column k = v_k, V_[k, k] = 0),
    ``objective_`` (hinge - mu logdet, without the group penalty), ``trace_`` (adds the fraction
    of non-zero groups and of non-zero entries of W).
    """

    name = "SparseCOMET"  # its name in configs and tables (algorithms: found by this)

    def __init__(
        self,
        mu=5.0,
        sparse_weight=0.012,
        max_step=5e-4,
        bound_weight=0.3,
        n_sweeps=10,
        n_steps_diag=0,
        stepsize_diag=0.0,
        preprocessor=None,
        random_state=None,
        verbose=False,
    ):
        self.mu = mu
        self.sparse_weight = sparse_weight
        self.max_step = max_step
        self.bound_weight = bound_weight
        self.n_sweeps = n_sweeps
        self.n_steps_diag = n_steps_diag
        self.stepsize_diag = stepsize_diag
        self.preprocessor = preprocessor
        self.random_state = random_state
        self.verbose = verbose

    frob = 0.0  # no Frobenius term in the sparse version (not a parameter)

    def _check_params(self):
        super()._check_params()
        if not self.sparse_weight > 0:
            raise ValueError(
                f"sparse_weight must be > 0 (0 is dense COMET: use COMET), got {self.sparse_weight}"
            )
        if not (isinstance(self.n_steps_diag, (int, np.integer)) and self.n_steps_diag >= 0):
            raise ValueError(f"n_steps_diag must be an int >= 0, got {self.n_steps_diag!r}")
        if not self.stepsize_diag >= 0:
            raise ValueError(f"stepsize_diag must be >= 0, got {self.stepsize_diag}")

    def _initial(self, Q, Z):
        """D from ``n_steps_diag`` gradient steps on the diagonal (``diag_step0.m``); V = 0."""
        d = Q.shape[1]
        self.V_ = np.zeros((d, d))
        diag = np.ones(d)
        QZ = Q * Z  # margin of a diagonal W: sum_k q_k z_k W_kk
        self.diag_steps_ = 0
        for _ in range(self.n_steps_diag):
            active = QZ @ diag < 1.0
            minus_grad = QZ[active].sum(axis=0) + self.mu / diag  # -(d hinge - mu d logdet)
            for _halving in range(20):
                new = diag + self.stepsize_diag * 0.5**_halving * minus_grad
                if new.min() > 0 and new.max() / new.min() <= 1e6:
                    break
            else:  # 20 halvings without an admissible step: stop (as the authors' code)
                break
            diag = new
            self.diag_steps_ += 1
        return np.diag(diag)

    def _group_step(self, W, Winv, u, k):
        u = u.copy()
        u[k] = 0.0  # the diagonal is not a group
        v_old = self.V_[:, k].copy()

        def prox(step):
            h = v_old + step * u
            nh = np.linalg.norm(h)
            return h * max(0.0, 1.0 - self.sparse_weight / nh) if nh > 0 else h

        if np.array_equal(prox(self.max_step * self.bound_weight), v_old):
            return None  # the group stays as it is (typically: stays zero)
        bound = self._schur_bound(W, Winv, u, k)
        step = min(self.max_step, bound)
        nv = np.linalg.norm(v_old)
        if nv > 0 and not nv < self._schur_bound(W, Winv, -v_old / nv, k):
            return None  # v_k = 0 would leave the cone: the authors skip the step
        backoff = self.bound_weight if bound < self.max_step else 1.0
        v_new = prox(backoff * step)
        self.V_[:, k] = v_new
        return v_new - v_old

    def _checkpoint_extras(self, W):
        return {
            "nonzero_groups": float(np.mean(np.any(self.V_ != 0, axis=0))),
            "density": float(np.mean(W != 0)),
        }
