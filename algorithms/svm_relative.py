"""SVM for relative comparisons: a weighted (kernel) Euclidean distance learned by a QP.

Schultz & Joachims, "Learning a Distance Metric from Relative Comparisons", NIPS 16 (2003):

* distance: d_{A,W}(x, y) = (x - y)^T A W A^T (x - y) with W = diag(w), w >= 0, i.e.
  a Mahalanobis distance with matrix A W A^T, PSD because w >= 0;
* a relative comparison "x_i is closer to x_j than to x_k" is the constraint
  d(x_i, x_k) - d(x_i, x_j) > 0; in our (anchor, positive, negative) rows
  i = anchor, j = positive, k = negative. With the margin and slack of an SVM it reads
  w^T (Delta_ik - Delta_ij) >= 1 - xi_ijk, where Delta_ij = (A^T x_i - A^T x_j)^2 elementwise;
* the regulariser ||A W A^T||_F^2 = w^T L w with L = (A^T A) * (A^T A) (Hadamard product;
  eq. 3 in the numbering of the description this code was written from);
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
negative) = (i, j, k) reading follow the description this code was written from, not the
paper's own text.

Solvers: ``solver="dcd"`` (linear case only) is our specialised solver for eq. 8 with L = I,
:func:`solve_eq8_dual`: dual coordinate ascent with an exact line search, plus Newton steps on the
free multipliers and conjugate-gradient steps on them, described there (the solver is in
:mod:`tripletbench.algorithms._svm_dual`, its steps in :mod:`tripletbench.algorithms._svm_steps`).
Otherwise the QP is solved by cvxpy (the optional extra ``tripletbench[cvxpy]``) with an
explicitly chosen solver, CLARABEL (interior point, the reference for "dcd") or SCS. The default,
``solver="auto"``, is "dcd" for the linear kernel (nothing to install) and CLARABEL for "rbf"; the
fitted ``solver_`` records which ran; cvxpy's automatic choice is never used (OSQP stopped
"inaccurate" and HIGHS did not finish on a 20,000 x 64 instance here). The constraint matrix
Delta_ik - Delta_ij is built sparse when the points are sparse (binary bag-of-words: a row is
non-zero only on the words in which the documents differ). For L = I, a feature whose column of
Delta is all zero only enters the objective through w_j^2/2, so its optimum is w_j = 0 exactly:
such columns are removed before the solve (an exact reduction, not an approximation).

Deviations, stated: the paper solved eq. 8 by "adapting standard methods for SVM training"
(its abstract) without naming the method; we use a generic conic solver or our dual solver (same
problem, same optimum). The solver's status is recorded (``solver_status_``); a
status other than "optimal" (including cvxpy's "optimal_inaccurate") raises :class:`SolverError`.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import validate_data

from tripletbench.optional import require

# The specialised solver for eq. 8 with L = I ("dcd"): its steps in _svm_steps, the solver in
# _svm_dual; their names are re-exported here.
from ._svm_dual import _Block, _DualRun, dual_certificate, solve_eq8_dual  # noqa: F401
from ._svm_steps import (  # noqa: F401
    _KERNELS, _anderson, _box_qp_active_set, _breakpoint_walk, _cd_epoch, _compiled,
    _face_cg_step, _newton_step,
)  # fmt: skip
from .base import BaseLearner

SOLVERS = ("auto", "CLARABEL", "SCS", "dcd")
CVXPY_SOLVERS = ("CLARABEL", "SCS")


SOLVER_REMEDY = (
    "; features far from unit scale (e.g. |x| above 1e3 on the test blobs) make the problem "
    "ill-conditioned: standardise or scale the features (e.g. to [-1, 1]), or try another solver"
)
"""Appended to every :class:`SolverError` of eq. 8: the remedy."""


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


class SVMRelative(BaseLearner):
    """Schultz & Joachims' SVM for relative comparisons (eq. 8).

    Parameters
    ----------
    C : float > 0, the slack penalty (paper: 1).
    kernel : "linear" (A = I, weighted Euclidean) | "rbf" (A = Phi of the basis points).
    gamma : float > 0 or None, RBF width; None = 1 / n_features.
    solver : "auto" (default: "dcd" for kernel="linear", "CLARABEL" for "rbf") | "dcd", our
        dual coordinate ascent + Newton solver (:func:`solve_eq8_dual`; kernel="linear" only) |
        "CLARABEL" | "SCS", passed to cvxpy explicitly (``pip install 'tripletbench[cvxpy]'``;
        without it, :class:`tripletbench.optional.MissingOptionalDependency` says so).
    solver_options : dict or None, keyword arguments for the solver (cvxpy: e.g. tolerances;
        "dcd": ``tol``, ``max_epochs``, ``max_free``, ``anderson``, ``tau``, ``look_stall`` of
        :func:`solve_eq8_dual`).
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
    solver_ : the solver that ran ("auto" resolved). solver_status_, solve_seconds_ (the
    solver's own time), setup_seconds_ (building Delta and
    the cvxpy problem), n_constraints_, n_active_features_ (columns of Delta kept; linear only).
    "dcd" only: ``certificate_`` (dict: rel_gap, the relative duality gap; kkt_margin_residual;
    epochs, nnz_epochs, rounds, looks, stalls, newton_steps of :func:`solve_eq8_dual`).

    Raises :class:`tripletbench.datasets.base.DataError` on bad input (zero triplets, NaN),
    ``ValueError`` on bad hyperparameters, :class:`SolverError` if the solver fails.
    """

    _sparse_ok = True  # Delta_ik - Delta_ij built sparse, sparse transform

    name = "SVM-relative"  # its name in configs and tables (algorithms: found by this)

    def __init__(
        self,
        C=1.0,
        kernel="linear",
        gamma=None,
        solver="auto",
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

    def _solver(self) -> str:
        """The solver that runs: ``solver``, with "auto" resolved by the kernel."""
        if self.solver != "auto":
            return self.solver
        return "dcd" if self.kernel == "linear" else "CLARABEL"

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
        self.solver_ = self._solver()
        if self.solver_ == "dcd":
            return self._fit_dcd(D, keep, m, t0)
        cp = require("cvxpy", f"SVM-relative's solver {self.solver_!r}")

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
                solver=self.solver_, verbose=bool(self.verbose), **(self.solver_options or {})
            )
        except cp.error.SolverError as err:
            raise SolverError(
                f"{self.solver_} failed on eq. 8 ({n} x {len(keep)}): {err}{SOLVER_REMEDY}"
            ) from err
        self.solve_seconds_ = time.perf_counter() - t1
        self.solver_status_ = problem.status
        if problem.status != cp.OPTIMAL or w.value is None:
            raise SolverError(
                f"{self.solver_} returned status {problem.status!r} on eq. 8 "
                f"({n} constraints, {len(keep)} weights): no usable solution{SOLVER_REMEDY}"
            )
        self.w_ = np.zeros(m)
        self.w_[keep] = np.clip(w.value, 0.0, None)  # interior-point iterates may be -1e-12
        self.xi_ = np.clip(np.asarray(xi.value), 0.0, None)
        self.alpha_ = np.asarray(margin_constraint.dual_value, dtype=np.float64).ravel()
        self.objective_ = float(problem.value)
        return self

    def _fit_dcd(self, D, keep, m, t0):
        opts = dict(self.solver_options or {})
        unknown = set(opts) - {"tol", "max_epochs", "max_free", "anderson", "tau", "look_stall"}
        if unknown:
            raise ValueError(f"unknown solver_options for 'dcd': {sorted(unknown)}")
        self.setup_seconds_ = time.perf_counter() - t0
        t1 = time.perf_counter()
        seed = 0 if self.random_state is None else self.random_state
        res = solve_eq8_dual(
            D, float(self.C), seed=seed, log=print if self.verbose else None, **opts
        )
        self.solve_seconds_ = time.perf_counter() - t1
        keys = (
            "rel_gap", "kkt_margin_residual", "epochs", "nnz_epochs", "rounds", "looks", "stalls",
            "newton_steps",
        )  # fmt: skip
        self.certificate_ = {k: res[k] for k in keys}
        if not res["converged"]:
            self.solver_status_ = "max_epochs"
            raise SolverError(
                f"dcd stopped after {res['epochs']} epochs on eq. 8 ({D.shape[0]} constraints, "
                f"{len(keep)} weights) with relative duality gap {res['rel_gap']:.2e} "
                f"(> tol): no usable solution{SOLVER_REMEDY}"
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
        """sqrt(d_{A,W}(x, y)) for each pair ((n, 2, d) points or (n, 2) indices); shape (n,).
        Raises ``NotFittedError`` before fit."""
        return np.sqrt(np.clip(-self.pair_score(pairs), 0, None))  # pair_score: in chunks

    def transform(self, X) -> np.ndarray:
        """sqrt(w) * A^T x for each row: Euclidean distances there are the learned distances.
        X: (n, d) array or CSR; returns an array (CSR stays CSR for the linear case).
        Raises ``NotFittedError`` before fit, scikit-learn's ``ValueError`` for NaN/inf, a
        non-2-D X or another number of features than at fit, and ``DataError`` for a feature
        scale fit refuses."""
        self._check_fitted()
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        X = self._ranked_points(X, "transform input")  # the fit's checks (scale)
        F = self._features(X)
        s = np.sqrt(self.w_)
        return sp.csr_matrix(F).multiply(s[None, :]).tocsr() if sp.issparse(F) else F * s

    def similarity_matrix(self, X, Y) -> np.ndarray:
        """(len(X), len(Y)) dense matrix of -d_{A,W}(x, y) (for ranking). Raises
        ``NotFittedError`` before fit."""
        self._check_fitted()
        from sklearn.metrics.pairwise import euclidean_distances

        X, Y = self._ranked_points(X, "queries"), self._ranked_points(Y, "database")
        return -euclidean_distances(self.transform(X), self.transform(Y), squared=True)

    def get_mahalanobis_matrix(self) -> np.ndarray:
        """The learned Mahalanobis matrix A W A^T = diag(w) (d, d) for the linear case.

        Raises ``NotFittedError`` before fit and ``ValueError`` for the rbf case (the matrix lives
        in the kernel feature space)."""
        self._check_fitted()
        if self.kernel != "linear":
            raise ValueError("the rbf case has no input-space Mahalanobis matrix; use transform")
        return np.diag(self.w_)


def _dense(X):
    return X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)
