"""SVM for relative comparisons: a weighted (kernel) Euclidean distance learned by a QP.

Schultz & Joachims, "Learning a Distance Metric from Relative Comparisons", NIPS 16 (2003):

* distance: d_{A,W}(x, y) = (x - y)^T A W A^T (x - y) with W = diag(w), w >= 0, i.e.
  a Mahalanobis distance with matrix A W A^T, PSD because w >= 0;
* a relative comparison "x_i is closer to x_j than to x_k" is the constraint
  d(x_i, x_k) - d(x_i, x_j) > 0; in our (anchor, positive, negative) rows
  i = anchor, j = positive, k = negative. With the margin and slack of an SVM it reads
  w^T (Delta_ik - Delta_ij) >= 1 - xi_ijk, where Delta_ij = (A^T x_i - A^T x_j)^2 elementwise;
* the regulariser ||A W A^T||_F^2 = w^T L w with L = (A^T A) * (A^T A) (Hadamard product;
  eq. 3 in the issue's numbering);
* the quadratic program (eq. 8):
      min_{w, xi}  1/2 w^T L w + C sum xi_ijk
      s.t.         w^T (Delta_ik - Delta_ij) >= 1 - xi_ijk,  xi_ijk >= 0,  w >= 0;
* two cases: ``kernel="linear"``: A = I, L = I (weighted Euclidean; the learned Mahalanobis
  matrix is diag(w), the paper's experiments); ``kernel="rbf"``: A = Phi, the feature map of the
  basis points (the distinct training points of the triplets), so A^T x = (K(b_1, x), ...,
  K(b_m, x)) with K(x, y) = exp(-gamma ||x - y||^2) and L = K_bb * K_bb;
* C = 1 by default, as in the paper's experiments.

The paper's text was not at hand when this was written (the search tool returned its abstract
and introduction only): the equation numbers other than eq. 8 and the (anchor, positive,
negative) = (i, j, k) reading follow the issue's description.

Solvers: ``solver="dcd"`` (linear case only) is our specialised solver for eq. 8 with L = I,
:func:`solve_eq8_dual`: dual coordinate ascent with an exact line search, plus Newton steps on the
free multipliers, described there. Otherwise the QP is solved by cvxpy with an explicitly chosen
solver, CLARABEL (interior point, default, and the reference for "dcd") or SCS; cvxpy's
automatic choice is never used (OSQP stopped "inaccurate" and HIGHS did
not finish on a 20,000 x 64 instance here). The constraint matrix Delta_ik - Delta_ij is built
sparse when the points are sparse (binary bag-of-words: a row is non-zero only on the words in
which the documents differ). For L = I, a feature whose column of Delta is all zero only enters
the objective through w_j^2/2, so its optimum is w_j = 0 exactly: such columns are removed
before the solve (an exact reduction, not an approximation).

Deviations, stated: the paper solved eq. 8 by "adapting standard methods for SVM training"
(its abstract) without naming the method; we use a generic conic solver or our dual solver (same
problem, same optimum). The solver's status is recorded (``solver_status_``); a
status other than "optimal" (including cvxpy's "optimal_inaccurate") raises :class:`SolverError`.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp

from .base import BaseLearner

SOLVERS = ("CLARABEL", "SCS", "dcd")
CVXPY_SOLVERS = ("CLARABEL", "SCS")


class SolverError(RuntimeError):
    """The QP solver did not return an optimal solution; the message gives its status."""


def _sq_diff(A, B):
    """Elementwise (a_k - b_k)^2 for rows of A and B; CSR in, CSR out; arrays in, array out."""
    D = A - B
    if sp.issparse(D):
        D = sp.csr_matrix(D)
        return D.multiply(D).tocsr()
    return D * D


def constraint_matrix(Fa, Fp, Fn):
    """Rows Delta_ik - Delta_ij = (f_a - f_n)^2 - (f_a - f_p)^2 (eq. 8), shape (n, m).

    ``Fa``, ``Fp``, ``Fn``: (n, m) arrays or CSR matrices of the anchors', positives' and
    negatives' features (A^T x). Returns a CSR matrix if any input is sparse, else an array.
    """
    out = _sq_diff(Fa, Fn) - _sq_diff(Fa, Fp)
    return sp.csr_matrix(out) if sp.issparse(out) else np.asarray(out)


def rbf_kernel(X, Y, gamma):
    """K(x, y) = exp(-gamma ||x - y||^2), (len(X), len(Y)) dense float64."""
    from sklearn.metrics.pairwise import rbf_kernel as _rbf

    return _rbf(X, Y, gamma=gamma)


def primal_objective(w, D, C, L=None):
    """1/2 w^T L w + C sum_k max(0, 1 - (D w)_k) (eq. 8 with the optimal slacks); L=None: L = I."""
    w = np.asarray(w, dtype=np.float64)
    reg = 0.5 * float(w @ w) if L is None else 0.5 * float(w @ L @ w)
    return reg + C * float(np.maximum(0.0, 1.0 - D @ w).sum())


# -- the specialised solver for eq. 8 with L = I ("dcd") -------------------------------------------
#
# Dual of eq. 8 with L = I (multipliers alpha_t >= 0 for the margin constraints, beta >= 0 for
# w >= 0): the Lagrangian is minimised by w = D^T alpha + beta, and maximising over beta >= 0 gives
# beta = [-D^T alpha]_+, hence w(alpha) = [D^T alpha]_+ and the dual
#     max_{0 <= alpha <= C}  g(alpha) = sum_t alpha_t - 1/2 ||[D^T alpha]_+||^2,
# concave and continuously differentiable, with dg/dalpha_t = 1 - d_t . [D^T alpha]_+ (the
# hint of the issue; the same dual the tests solve by L-BFGS-B). Along one coordinate g is
# piecewise quadratic: g(alpha + delta e_t) = const + delta - 1/2 sum_j [u_j + delta d_tj]_+^2 with
# u = D^T alpha, whose derivative 1 - sum_j d_tj [u_j + delta d_tj]_+ is piecewise linear and
# non-increasing in delta, with breakpoints at delta = -u_j / d_tj.


def _coord_step(idx, val, u, a_t, C, bp, act):
    """The exact maximiser delta of g(alpha + delta e_t) over [-a_t, C - a_t] (see above).

    ``idx``, ``val``: the non-zeros of row d_t; ``u``: D^T alpha (m,); ``bp``, ``act``: scratch
    arrays of length >= len(idx). Walks the breakpoints in the ascent direction, in order, keeping
    the slope sum_{active j} d_tj^2 of the piecewise-linear derivative. Compiled by numba."""
    k = len(idx)
    g = 1.0  # dg/ddelta at delta = 0
    for q in range(k):
        uj = u[idx[q]]
        if uj > 0:
            g -= val[q] * uj
    if g == 0.0:
        return 0.0
    sgn = 1.0 if g > 0 else -1.0
    lim = (C - a_t) if g > 0 else a_t  # room to the bound in the ascent direction
    if lim <= 0.0:
        return 0.0
    # delta = sgn * s, s >= 0: coordinate j is active (u_j + delta d_tj > 0) on an interval of s
    slope = 0.0
    nb = 0
    for q in range(k):
        uj = u[idx[q]]
        dj = sgn * val[q]
        if uj > 0 or (uj == 0 and dj > 0):
            slope += val[q] * val[q]
            if dj < 0:  # leaves the active set at s = -u_j / dj
                bp[nb] = -uj / dj
                act[nb] = -val[q] * val[q]
                nb += 1
        elif dj > 0:  # enters at s = -u_j / dj
            bp[nb] = -uj / dj
            act[nb] = val[q] * val[q]
            nb += 1
    order = np.argsort(bp[:nb])
    gs = abs(g)  # the derivative along s at the current breakpoint, decreasing in s
    s = 0.0
    for r in range(nb):
        sb = bp[order[r]]
        if sb >= lim:
            break
        if slope > 0 and gs - slope * (sb - s) <= 0:
            return sgn * min(s + gs / slope, lim)
        gs -= slope * (sb - s)
        s = sb
        slope += act[order[r]]
        if slope < 0:  # rounding
            slope = 0.0
    if slope > 0:
        return sgn * min(s + gs / slope, lim)
    return sgn * lim


def _cd_epoch(indptr, indices, data, alpha, u, order, C, bp, act):
    """One pass of exact coordinate ascent over the rows ``order`` of the CSR matrix D, updating
    ``alpha`` and u = D^T alpha in place. Returns the number of coordinates that moved."""
    moved = 0
    for t in order:
        a, b = indptr[t], indptr[t + 1]
        d = _coord_step(indices[a:b], data[a:b], u, alpha[t], C, bp, act)
        if d != 0.0:
            new = min(max(alpha[t] + d, 0.0), C)
            d = new - alpha[t]
            alpha[t] = new
            for q in range(a, b):
                u[indices[q]] += d * data[q]
            moved += 1
    return moved


_KERNELS = {}


def _compiled():
    """(coordinate step, epoch) compiled by numba on first use (cached on disk by numba)."""
    if not _KERNELS:
        import numba

        step = numba.njit(cache=True, nogil=True)(_coord_step)
        glb = dict(_cd_epoch.__globals__, _coord_step=step)
        import types

        epoch_py = types.FunctionType(_cd_epoch.__code__, glb, "_cd_epoch")
        _KERNELS["step"] = step
        _KERNELS["epoch"] = numba.njit(cache=True, nogil=True)(epoch_py)
    return _KERNELS["step"], _KERNELS["epoch"]


def _newton_free_step(D, alpha, u, C, max_free, cg_iter=500):
    """One Newton step of the dual on the free multipliers F = {0 < alpha < C} with the set
    P = {u > 0} of positive weights held fixed, then an exact line search on g (capped at the box).

    With F and P fixed g is quadratic in alpha_F with gradient r = 1 - D_F w and Hessian
    -D_FP D_FP^T, so the step Delta solves D_FP D_FP^T Delta = r (least squares if singular); the
    line search maximises g(alpha + s Delta) over s in [0, s_box], where g' is piecewise linear
    (breakpoints where u + s D_F^T Delta changes sign). When F and P are those of the optimum this
    step lands on it. The system is solved by Cholesky for |F| <= ``max_free``, else by at most
    ``cg_iter`` conjugate-gradient iterations. Returns the step length s (0 when no ascent)."""
    import scipy.linalg as sla
    from scipy.optimize import brentq

    F = np.flatnonzero((alpha > 0) & (alpha < C))
    if len(F) == 0:
        return 0.0
    DF = D[F]
    w = np.maximum(u, 0.0)
    r = 1.0 - DF @ w
    DFP = DF[:, np.flatnonzero(u > 0)]
    if len(F) <= max_free:  # dense Cholesky of the |F| x |F| matrix
        H = (DFP @ DFP.T).toarray()
        H[np.diag_indices_from(H)] += 1e-12 * max(1.0, float(H.diagonal().max()))
        try:
            step = sla.solve(H, r, assume_a="pos")
        except (np.linalg.LinAlgError, ValueError):
            step = np.linalg.lstsq(H, r, rcond=None)[0]
    else:  # conjugate gradients with products by D_FP and its transpose (never formed)
        from scipy.sparse.linalg import LinearOperator, cg

        DFPt = DFP.T.tocsr()
        op = LinearOperator((len(F), len(F)), matvec=lambda x: DFP @ (DFPt @ x), dtype=float)
        step, _ = cg(op, r, rtol=1e-10, maxiter=cg_iter)  # inexact is fine: the line search follows
    v = DF.T @ step
    total = float(step.sum())

    def slope(s):  # d/ds g(alpha + s step)
        return total - float(v @ np.maximum(u + s * v, 0.0))

    with np.errstate(divide="ignore", invalid="ignore"):
        room = np.where(
            step > 0, (C - alpha[F]) / step, np.where(step < 0, -alpha[F] / step, np.inf)
        )
    s_box = float(room.min())
    if not s_box > 0 or slope(0.0) <= 0:
        return 0.0
    s = s_box if slope(s_box) >= 0 else brentq(slope, 0.0, s_box, xtol=1e-15, rtol=1e-15)
    a = alpha[F] + s * step
    a[np.abs(a) <= 1e-13 * C] = 0.0  # land exactly on a bound the step reached
    a[np.abs(a - C) <= 1e-13 * C] = C
    alpha[F] = np.clip(a, 0.0, C)
    return s


def dual_certificate(D, alpha, C):
    """Optimality certificate of eq. 8 (L = I) at the multipliers ``alpha`` (n,) in [0, C].

    With w = [D^T alpha]_+ (primal feasible: w >= 0, slacks xi = max(0, 1 - D w)): the primal value
    P(w), the dual value g(alpha), the duality gap P - g >= 0 (an upper bound on P(w) - optimum),
    and the largest violation of the remaining KKT condition, complementary slackness between
    alpha and the margins m = D w (alpha = 0 needs m >= 1, alpha = C needs m <= 1, a free alpha
    needs m = 1). Stationarity (w = D^T alpha + beta with beta = [-D^T alpha]_+ >= 0, beta * w = 0),
    primal and dual feasibility hold by construction. Returns a dict; ``w`` included."""
    u = np.asarray(D.T @ alpha).ravel()
    w = np.maximum(u, 0.0)
    m = np.asarray(D @ w).ravel()
    primal = 0.5 * float(w @ w) + C * float(np.maximum(0.0, 1.0 - m).sum())
    dual = float(alpha.sum()) - 0.5 * float(w @ w)
    viol = np.where(
        alpha <= 0,
        np.maximum(0.0, 1.0 - m),
        np.where(alpha >= C, np.maximum(0.0, m - 1.0), np.abs(m - 1.0)),
    )
    return {
        "w": w,
        "margins": m,
        "primal": primal,
        "dual": dual,
        "gap": primal - dual,
        "rel_gap": (primal - dual) / max(primal, 1e-300),
        "kkt_margin_residual": float(viol.max()) if len(viol) else 0.0,
    }


def solve_eq8_dual(
    D, C=1.0, tol=1e-9, max_epochs=20000, block=5, max_free=3000, seed=0, log=None
):
    """Solve eq. 8 with L = I (A = I: min 1/2 ||w||^2 + C sum xi, w^T d_t >= 1 - xi_t, xi >= 0,
    w >= 0) through its dual (see the comment above :func:`_coord_step`). Our method; the paper
    does not give one.

    Rounds of ``block`` epochs of cyclic coordinate ascent in a random order (the exact 1-D
    maximiser of the piecewise-quadratic dual per coordinate, compiled by numba; cost O(nnz(d_t)
    log nnz(d_t)) per coordinate), each round followed by one Newton step on the free multipliers
    (:func:`_newton_free_step`: Cholesky when |F| <= ``max_free``, else conjugate gradients) and a
    full certificate (:func:`dual_certificate`: two products with D). Coordinates at a bound whose
    margin says they stay there (alpha = 0 with margin > 1, alpha = C with margin < 1) are skipped
    in the next round's epochs (shrinking); the certificate is always computed on all rows, so a
    skipped coordinate that should move is brought back. Every step increases the dual; coordinate
    ascent alone converges (cyclic exact maximisation of a concave C^1 function over a box) but
    slowly on the free multipliers, which the Newton steps settle once their set is identified.

    ``D``: (n, m) CSR matrix (or array) of rows d_t = Delta_ik - Delta_ij, never densified;
    ``tol``: stop when the duality gap <= tol * primal value; ``seed``: the coordinate order;
    ``log``: None or a callable given one progress line per round.
    Returns a dict: w (m,) float64 >= 0, alpha (n,) in [0, C], xi (n,), objective (the primal
    value, eq. 8), dual, rel_gap, kkt_margin_residual, epochs, rounds, newton_steps, converged.
    """
    _, epoch = _compiled()
    D = sp.csr_matrix(D, dtype=np.float64)
    D.sum_duplicates()
    D.sort_indices()
    n, m = D.shape
    alpha = np.zeros(n)
    u = np.zeros(m)
    width = int(np.diff(D.indptr).max()) if n else 0
    bp, act = np.empty(max(width, 1)), np.empty(max(width, 1))
    rng = np.random.default_rng(seed)
    rows = np.arange(n)
    epochs = rounds = newton = 0
    cert = dual_certificate(D, alpha, C)
    while epochs < max_epochs:
        for _ in range(block):
            epoch(D.indptr, D.indices, D.data, alpha, u, rng.permutation(rows), float(C), bp, act)
            epochs += 1
        u = np.asarray(D.T @ alpha).ravel()  # resynchronise (the epochs update u incrementally)
        if _newton_free_step(D, alpha, u, C, max_free) > 0:
            newton += 1
            u = np.asarray(D.T @ alpha).ravel()
        rounds += 1
        cert = dual_certificate(D, alpha, C)
        if log is not None:
            n_free = int(np.sum((alpha > 0) & (alpha < C)))
            log(
                f"round {rounds}: epochs {epochs}, rows {len(rows)}, free {n_free}, "
                f"newton {newton}, primal {cert['primal']:.12g}, rel_gap {cert['rel_gap']:.2e}"
            )
        if cert["gap"] <= tol * cert["primal"]:
            break
        mg = cert["margins"]
        rows = np.flatnonzero(~(((alpha <= 0) & (mg > 1)) | ((alpha >= C) & (mg < 1))))
        if len(rows) == 0:
            rows = np.arange(n)
    w = cert["w"]
    return {
        "w": w,
        "alpha": alpha,
        "xi": np.maximum(0.0, 1.0 - cert["margins"]),
        "objective": cert["primal"],
        "dual": cert["dual"],
        "rel_gap": cert["rel_gap"],
        "kkt_margin_residual": cert["kkt_margin_residual"],
        "epochs": epochs,
        "rounds": rounds,
        "newton_steps": newton,
        "converged": cert["gap"] <= tol * cert["primal"],
    }


class SVMRelative(BaseLearner):
    """Schultz & Joachims' SVM for relative comparisons (eq. 8).

    Parameters
    ----------
    C : float > 0, the slack penalty (paper: 1).
    kernel : "linear" (A = I, weighted Euclidean) | "rbf" (A = Phi of the basis points).
    gamma : float > 0 or None, RBF width; None = 1 / n_features.
    solver : "CLARABEL" (default) | "SCS", passed to cvxpy explicitly, or "dcd", our dual
        coordinate ascent + Newton solver (:func:`solve_eq8_dual`; kernel="linear" only).
    solver_options : dict or None, keyword arguments for the solver (cvxpy: e.g. tolerances;
        "dcd": ``tol``, ``max_epochs``, ``block``, ``max_free`` of :func:`solve_eq8_dual`).
    preprocessor : None, an (n, d) array or a CSR matrix; triplets are then (n, 3) indices.
    random_state : the coordinate order of "dcd" (None: 0); unused by the cvxpy solvers.
    verbose : bool, the solver's log.

    Fitted attributes
    -----------------
    w_ : (m,) float64 >= 0, the diagonal of W (m = d for "linear", the number of basis points
        for "rbf").
    xi_ : (n,) float64 >= 0, the slacks. ``objective_`` : the optimal value of eq. 8.
    alpha_ : (n,) float64 in [0, C], the margin constraints' Lagrange multipliers (the solver's
        dual solution; for L = I, w = max(0, Delta^T alpha) at the optimum).
    basis_ : (m, d) basis points (rbf only). ``gamma_`` : the RBF width used (rbf only).
    solver_status_, solve_seconds_ (the solver's own time), setup_seconds_ (building Delta and
    the cvxpy problem), n_constraints_, n_active_features_ (columns of Delta kept; linear only).
    "dcd" only: ``certificate_`` (dict: rel_gap, the relative duality gap; kkt_margin_residual;
    epochs, rounds, newton_steps of :func:`solve_eq8_dual`).

    Raises :class:`datasets.base.DataError` on bad input (zero triplets, NaN),
    ``ValueError`` on bad hyperparameters, :class:`SolverError` if the solver fails.
    """

    def __init__(
        self,
        C=1.0,
        kernel="linear",
        gamma=None,
        solver="CLARABEL",
        solver_options=None,
        preprocessor=None,
        random_state=None,
        verbose=False,
    ):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.solver = solver
        self.solver_options = solver_options
        self.preprocessor = preprocessor
        self.random_state = random_state
        self.verbose = verbose

    # -- fitting -----------------------------------------------------------------------------

    def _check_params(self):
        if not (np.isscalar(self.C) and self.C > 0):
            raise ValueError(f"C must be a number > 0, got {self.C!r}")
        if self.kernel not in ("linear", "rbf"):
            raise ValueError(f"kernel must be 'linear' or 'rbf', got {self.kernel!r}")
        if self.gamma is not None and not self.gamma > 0:
            raise ValueError(f"gamma must be > 0 or None, got {self.gamma!r}")
        if self.solver not in SOLVERS:
            raise ValueError(f"solver must be one of {SOLVERS}, got {self.solver!r}")
        if self.solver == "dcd" and self.kernel != "linear":
            raise ValueError("solver 'dcd' solves the linear case (L = I) only; use CLARABEL")

    def _features(self, X):
        """A^T x for the rows of X: X itself (linear) or the kernel values against the basis."""
        if self.kernel == "linear":
            return X
        return rbf_kernel(_dense(X), self.basis_, self.gamma_)

    def fit(self, triplets):
        """Solve eq. 8 on ``triplets`` ((n, 3, d) points or (n, 3) indices into the
        preprocessor; rows (anchor, positive, negative)). Returns self."""
        self._check_params()
        t0 = time.perf_counter()
        X, idx = self._points(triplets, 3, "triplets")
        L_factor = None
        if self.kernel == "rbf":
            used = np.unique(idx)
            self.basis_ = _dense(X[used])
            self.gamma_ = float(self.gamma) if self.gamma is not None else 1.0 / X.shape[1]
            K = rbf_kernel(self.basis_, self.basis_, self.gamma_)
            F = np.zeros((X.shape[0], len(used)))
            F[used] = K  # only the triplets' points are ever read
            L = K * K  # (A^T A) * (A^T A); PSD by the Schur product theorem
            ev, V = np.linalg.eigh(L)
            L_factor = (V * np.sqrt(np.clip(ev, 0, None))).T  # L = R^T R
            self._L = L
        else:
            F = X
        D = constraint_matrix(F[idx[:, 0]], F[idx[:, 1]], F[idx[:, 2]])
        n, m = D.shape
        keep = np.arange(m)
        if self.kernel == "linear":  # exact reduction: all-zero columns have w_j = 0
            nnz_col = np.diff(sp.csc_matrix(D).indptr) if sp.issparse(D) else np.any(D != 0, axis=0)
            keep = np.flatnonzero(nnz_col)
            D = D[:, keep]
        self.n_constraints_ = n
        self.n_active_features_ = len(keep)
        self.n_features_in_ = X.shape[1]
        if self.solver == "dcd":
            return self._fit_dcd(D, keep, m, t0)
        import cvxpy as cp

        w = cp.Variable(len(keep), nonneg=True)
        xi = cp.Variable(n, nonneg=True)
        reg = cp.sum_squares(w) if L_factor is None else cp.sum_squares(L_factor @ w)
        margin_constraint = D @ w >= 1 - xi
        objective = cp.Minimize(0.5 * reg + float(self.C) * cp.sum(xi))
        problem = cp.Problem(objective, [margin_constraint])
        self.setup_seconds_ = time.perf_counter() - t0
        t1 = time.perf_counter()
        try:
            problem.solve(
                solver=self.solver, verbose=bool(self.verbose), **(self.solver_options or {})
            )
        except cp.error.SolverError as err:
            raise SolverError(f"{self.solver} failed on eq. 8 ({n} x {len(keep)}): {err}") from err
        self.solve_seconds_ = time.perf_counter() - t1
        self.solver_status_ = problem.status
        if problem.status != cp.OPTIMAL or w.value is None:
            raise SolverError(
                f"{self.solver} returned status {problem.status!r} on eq. 8 "
                f"({n} constraints, {len(keep)} weights): no usable solution"
            )
        self.w_ = np.zeros(m)
        self.w_[keep] = np.clip(w.value, 0.0, None)  # interior-point iterates may be -1e-12
        self.xi_ = np.clip(np.asarray(xi.value), 0.0, None)
        self.alpha_ = np.asarray(margin_constraint.dual_value, dtype=np.float64).ravel()
        self.objective_ = float(problem.value)
        return self

    def _fit_dcd(self, D, keep, m, t0):
        opts = dict(self.solver_options or {})
        unknown = set(opts) - {"tol", "max_epochs", "block", "max_free"}
        if unknown:
            raise ValueError(f"unknown solver_options for 'dcd': {sorted(unknown)}")
        self.setup_seconds_ = time.perf_counter() - t0
        t1 = time.perf_counter()
        seed = 0 if self.random_state is None else self.random_state
        res = solve_eq8_dual(
            D, float(self.C), seed=seed, log=print if self.verbose else None, **opts
        )
        self.solve_seconds_ = time.perf_counter() - t1
        keys = ("rel_gap", "kkt_margin_residual", "epochs", "rounds", "newton_steps")
        self.certificate_ = {k: res[k] for k in keys}
        if not res["converged"]:
            self.solver_status_ = "max_epochs"
            raise SolverError(
                f"dcd stopped after {res['epochs']} epochs on eq. 8 ({D.shape[0]} constraints, "
                f"{len(keep)} weights) with relative duality gap {res['rel_gap']:.2e} "
                f"(> tol): no usable solution"
            )
        self.solver_status_ = "optimal"
        self.w_ = np.zeros(m)
        self.w_[keep] = res["w"]
        self.xi_ = res["xi"]
        self.alpha_ = res["alpha"]
        self.objective_ = float(res["objective"])
        return self

    # -- the learned distance ----------------------------------------------------------------

    def _sq_dist_rows(self, A, B):
        """d_{A,W}(a_k, b_k) for the rows of A and B (points in input space); shape (n,)."""
        S = _sq_diff(self._features(A), self._features(B))
        return np.asarray(S @ self.w_).ravel()

    def _pair_score_points(self, A, B):
        return -self._sq_dist_rows(A, B)

    def pair_distance(self, pairs) -> np.ndarray:
        """sqrt(d_{A,W}(x, y)) for each pair ((n, 2, d) points or (n, 2) indices); shape (n,)."""
        X, idx = self._points(pairs, 2, "pairs")
        return np.sqrt(np.clip(self._sq_dist_rows(X[idx[:, 0]], X[idx[:, 1]]), 0, None))

    def transform(self, X) -> np.ndarray:
        """sqrt(w) * A^T x for each row: Euclidean distances there are the learned distances.
        X: (n, d) array or CSR; returns an array (CSR stays CSR for the linear case)."""
        F = self._features(X)
        s = np.sqrt(self.w_)
        return sp.csr_matrix(F).multiply(s[None, :]).tocsr() if sp.issparse(F) else F * s

    def similarity_matrix(self, X, Y) -> np.ndarray:
        """(len(X), len(Y)) dense matrix of -d_{A,W}(x, y) (for ranking)."""
        from sklearn.metrics.pairwise import euclidean_distances

        return -euclidean_distances(self.transform(X), self.transform(Y), squared=True)

    def get_mahalanobis_matrix(self) -> np.ndarray:
        """The learned Mahalanobis matrix A W A^T = diag(w) (d, d) for the linear case.

        Raises ``ValueError`` for the rbf case (the matrix lives in the kernel feature space)."""
        if self.kernel != "linear":
            raise ValueError("the rbf case has no input-space Mahalanobis matrix; use transform")
        return np.diag(self.w_)


def _dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
