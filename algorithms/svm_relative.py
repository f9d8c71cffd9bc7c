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
free multipliers and conjugate-gradient steps on them, described there. Otherwise the QP is
solved by cvxpy with an explicitly chosen solver, CLARABEL (interior point, default, and the
reference for "dcd") or SCS; cvxpy's automatic choice is never used (OSQP stopped "inaccurate"
and HIGHS did not finish on a 20,000 x 64 instance here). The constraint matrix
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

from .base import BaseLearner

SOLVERS = ("CLARABEL", "SCS", "dcd")
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


def _breakpoint_walk(indices, data, a, b, u, g, lim, bp, act):
    """The exact maximiser delta of g(alpha + delta e_t) when the first piece's Newton step crosses a
    breakpoint. Row t is ``indices[a:b]``, ``data[a:b]``; ``g`` != 0 is the derivative at delta = 0,
    ``lim`` > 0 the room to the bound in the ascent direction sign(g); ``bp``, ``act``: scratch
    arrays of length >= b - a. Walks the breakpoints in increasing order (each found by a linear
    scan: only the few before the maximiser are visited), keeping the slope sum_{active j} d_tj^2
    of the piecewise-linear derivative."""
    sgn = 1.0 if g > 0 else -1.0
    gs = abs(g)  # the derivative along s = delta / sgn >= 0, decreasing in s
    slope = 0.0
    nb = 0
    for q in range(a, b):
        uj = u[indices[q]]
        dj = sgn * data[q]
        if uj > 0 or (uj == 0 and dj > 0):  # active (u_j + s dj > 0) just after s = 0
            slope += data[q] * data[q]
            if dj < 0:  # leaves the active set at s = -u_j / dj
                bp[nb] = -uj / dj
                act[nb] = -data[q] * data[q]
                nb += 1
        elif dj > 0:  # enters at s = -u_j / dj
            bp[nb] = -uj / dj
            act[nb] = data[q] * data[q]
            nb += 1
    s = 0.0
    while True:
        r = -1
        sb = lim
        for q in range(nb):  # the next breakpoint before the bound
            if bp[q] < sb:
                sb = bp[q]
                r = q
        if r < 0:
            break
        if slope > 0 and gs - slope * (sb - s) <= 0:
            return sgn * min(s + gs / slope, lim)
        gs -= slope * (sb - s)
        s = sb
        slope += act[r]
        bp[r] = np.inf
        if slope < 0:  # rounding
            slope = 0.0
    if slope > 0:
        return sgn * min(s + gs / slope, lim)
    return sgn * lim


def _cd_epoch(indptr, indices, data, alpha, u, order, C, bp, act, grad):
    """One pass of exact coordinate ascent over the rows ``order`` (int64) of the CSR matrix D,
    updating ``alpha`` and u = D^T alpha in place; ``grad[t]`` receives dg/dalpha_t just before row t
    is updated. Returns (moved, pg_max): the number of coordinates that moved and the largest
    projected-gradient violation met (|g| for a free alpha_t, [g]_+ at 0, [-g]_+ at C).

    Per row: one pass for the derivative g and the slopes of the first piece in both directions;
    the first piece's Newton step min(|g| / slope, room) is applied at once while checking whether
    some u_j changes sign inside it; only then is it undone and :func:`_breakpoint_walk` used. So a
    coordinate costs two passes over its non-zeros, three or four when a breakpoint is crossed.
    Branch-free arithmetic in the first pass (the signs of u_j are unpredictable). Compiled by
    numba; the plain-Python function gives the same result (the tests use both)."""
    moved = 0
    pg_max = 0.0
    for i in range(order.shape[0]):
        t = order[i]
        a = indptr[t]
        b = indptr[t + 1]
        at = alpha[t]
        g = 1.0
        s_pos = 0.0  # sum of d_tj^2 over u_j > 0
        z_up = 0.0  # ... over u_j == 0 with d_tj > 0 (active at once when delta > 0)
        z_dn = 0.0  # ... over u_j == 0 with d_tj < 0 (active at once when delta < 0)
        for q in range(a, b):
            uj = u[indices[q]]
            v = data[q]
            vv = v * v
            pos = uj > 0.0
            g -= v * uj if pos else 0.0
            s_pos += vv if pos else 0.0
            zero = uj == 0.0
            z_up += vv if (zero and v > 0.0) else 0.0
            z_dn += vv if (zero and v < 0.0) else 0.0
        grad[t] = g
        if at <= 0.0:
            pg = max(g, 0.0)
        elif at >= C:
            pg = max(-g, 0.0)
        else:
            pg = abs(g)
        pg_max = max(pg_max, pg)
        if g == 0.0:
            continue
        lim = C - at if g > 0.0 else at
        if lim <= 0.0:
            continue
        slope = s_pos + (z_up if g > 0.0 else z_dn)
        d = min(abs(g) / slope, lim) if slope > 0.0 else lim
        if g < 0.0:
            d = -d
        crossed = False  # a sign change of some u_j inside the step: a breakpoint was crossed
        for q in range(a, b):
            j = indices[q]
            uj = u[j]
            nu = uj + d * data[q]
            crossed |= uj * nu < 0.0
            u[j] = nu
        if crossed:
            for q in range(a, b):
                u[indices[q]] -= d * data[q]
            d = _breakpoint_walk(indices, data, a, b, u, g, lim, bp, act)
            new = min(max(at + d, 0.0), C)
            d = new - at
            for q in range(a, b):
                u[indices[q]] += d * data[q]
        else:
            new = min(max(at + d, 0.0), C)
        alpha[t] = new
        moved += 1
    return moved, pg_max


_KERNELS = {}


def _compiled():
    """:func:`_cd_epoch` compiled by numba on first use (cached on disk by numba)."""
    if not _KERNELS:
        import types

        import numba

        walk = numba.njit(cache=True, nogil=True)(_breakpoint_walk)
        glb = dict(_cd_epoch.__globals__, _breakpoint_walk=walk)
        epoch_py = types.FunctionType(_cd_epoch.__code__, glb, "_cd_epoch")
        _KERNELS["epoch"] = numba.njit(cache=True, nogil=True)(epoch_py)
    return _KERNELS["epoch"]


def _box_qp_active_set(H, r, lo, hi, max_iter):
    """max r.x - 1/2 x^T H x over lo <= x <= hi (lo <= 0 <= hi, H symmetric positive definite) by
    block principal pivoting (Judice & Pires 1994; the rule of Kim & Park 2011 for NNLS, here with
    two bounds): hold a guessed set of variables at their bounds, solve for the others (Cholesky),
    and call infeasible an inner variable outside [lo, hi] or a held one whose multiplier
    lambda = r - H x has the wrong sign (it would move inward). All infeasible variables switch
    while their number falls (or for 3 more tries), else only the last one does (Murty's rule,
    which makes the method finite). No infeasible variable: x is the exact maximiser. Returns x, or
    None if not done after ``max_iter`` solves."""
    import scipy.linalg as sla

    k = len(r)
    at_lo = np.zeros(k, bool)
    at_hi = np.zeros(k, bool)
    best, tries = k + 1, 3
    for _ in range(max_iter):
        x = np.where(at_lo, lo, np.where(at_hi, hi, 0.0))
        inner = np.flatnonzero(~(at_lo | at_hi))
        fixed = np.flatnonzero(at_lo | at_hi)
        rhs = r[inner] - H[np.ix_(inner, fixed)] @ x[fixed] if len(fixed) else r[inner]
        try:
            x[inner] = sla.cho_solve(
                sla.cho_factor(H[np.ix_(inner, inner)], check_finite=False), rhs, check_finite=False
            )
        except np.linalg.LinAlgError:
            return None
        lam = r - H @ x
        free = ~(at_lo | at_hi)
        below, above = free & (x < lo), free & (x > hi)
        release = (at_lo & (lam > 0)) | (at_hi & (lam < 0))
        bad = below | above | release
        n_bad = int(bad.sum())
        if n_bad == 0:
            return x
        if n_bad < best:
            best, tries = n_bad, 3
        elif tries > 0:
            tries -= 1
        else:  # Murty's backup rule: switch only the last infeasible variable
            keep = np.zeros(k, bool)
            keep[np.flatnonzero(bad)[-1]] = True
            below, above, release = below & keep, above & keep, release & keep
        at_lo = (at_lo & ~release) | below
        at_hi = (at_hi & ~release) | above
    return None


def _newton_step(D, alpha, u, margins, C, max_free, qp_iter=10, ridge=1e-10):
    """A Newton step of the dual on the rows F that are not held at a bound by their gradient
    (alpha_t = 0 with margin >= 1 and alpha_t = C with margin <= 1 are held), with the set
    P = {u > 0} of positive weights held fixed, then an exact line search on g.

    With P fixed, g is quadratic in alpha_F with gradient r = 1 - margins_F and Hessian
    -D_FP D_FP^T; the step maximises that model minus ``ridge`` max diag(H) / 2 ||step||^2 (a
    proximal term: the matrix is singular when free rows are linearly dependent, as triplets
    sharing documents are) over the box 0 <= alpha_F <= C (:func:`_box_qp_active_set`), then
    s in [0, 1] maximises the true g along alpha + s step (g' is piecewise linear in s; the segment
    stays in the box). When F and P are those of the optimum and the ridge is small, s = 1 lands
    on it. Returns -1.0 (nothing done) when |F| > ``max_free`` (dense |F| x |F| matrix), None when
    the pivoting has not finished after ``qp_iter`` solves, else the step length s, with alpha and
    u updated in place."""
    from scipy.optimize import brentq

    grad = 1.0 - margins
    F = np.flatnonzero(~(((alpha <= 0) & (grad <= 0)) | ((alpha >= C) & (grad >= 0))))
    if len(F) == 0 or len(F) > max_free:
        return -1.0
    DF = D[F]
    DFP = DF[:, np.flatnonzero(u > 0)]
    H = (DFP @ DFP.T).toarray()
    H[np.diag_indices_from(H)] += ridge * max(1.0, float(H.diagonal().max()))
    step = _box_qp_active_set(H, grad[F], -alpha[F], C - alpha[F], qp_iter)
    if step is None:
        return None
    v = np.asarray(DF.T @ step).ravel()
    total = float(step.sum())

    def slope(s):  # d/ds g(alpha + s step)
        return total - float(v @ np.maximum(u + s * v, 0.0))

    if slope(0.0) <= 0:
        return 0.0
    s = 1.0 if slope(1.0) >= 0 else brentq(slope, 0.0, 1.0, xtol=1e-15, rtol=1e-15)
    a = alpha[F] + s * step
    a[np.abs(a) <= 1e-13 * C] = 0.0  # land exactly on a bound the step reached
    a[np.abs(a - C) <= 1e-13 * C] = C
    alpha[F] = np.clip(a, 0.0, C)
    u[:] = np.asarray(D.T @ alpha).ravel()
    return s


def _face_cg_step(D, alpha, u, rows, C, cg_iter, ridge=1e-3, sigma=1e-4):
    """A conjugate-gradient step of the dual on the face of the box where the multipliers of
    ``rows`` (int64 indices, the rows not shrunk) that are strictly inside (0, C) move and all
    others stay, with the set P = {u > 0} of positive weights held fixed. Our method (the paper
    names no solver), in the spirit of Moré & Toraldo's gradient-projection/CG method for box
    QPs (SIAM J. Optim. 1, 1991): coordinate ascent is slow on these free multipliers (the Gram
    matrix of correlated difference vectors is ill-conditioned), CG is not.

    With F the free rows, g is quadratic in alpha_F while P does not change, with gradient
    r = 1 - D_F [u]_+ and Hessian -H, H = D_FP D_FP^T. ``cg_iter`` CG iterations on
    (H + lambda I) x = r from x = 0 (lambda = ``ridge`` times the mean diagonal of H, a proximal
    term that keeps the step where the model holds; H is never formed: two products with D_F per
    iteration), then a projected search on the true dual: the largest s in 1, 1/2, 1/4, ... with
    g(clip(alpha_F + s x, 0, C)) - g(alpha) >= ``sigma`` r . (clipped step) > 0 (Armijo). Every
    accepted step increases g. Updates ``alpha`` and u = D^T alpha in place; returns the step
    length s (0.0: no step taken) and the number of CG iterations."""
    F = rows[(alpha[rows] > 0) & (alpha[rows] < C)]
    if len(F) == 0:
        return 0.0, 0
    DF = D[F]
    DFT = DF.T.tocsr()
    on_p = (u > 0).astype(np.float64)
    w = np.maximum(u, 0.0)
    r = 1.0 - DF @ w
    lam = ridge * float(np.mean(DF.multiply(DF) @ on_p))
    x = np.zeros(len(F))
    res = r.copy()
    p = res.copy()
    rr = rr0 = float(res @ res)
    its = 0
    while its < cg_iter and rr > 1e-24 * rr0:
        Hp = DF @ ((DFT @ p) * on_p) + lam * p
        pHp = float(p @ Hp)
        if pHp <= 0:
            break
        a = rr / pHp
        x += a * p
        res -= a * Hp
        rr_new = float(res @ res)
        p = res + (rr_new / rr) * p
        rr = rr_new
        its += 1
    if float(r @ x) <= 0:
        return 0.0, its
    a0 = alpha[F]
    s = 1.0
    for _ in range(30):
        new = np.clip(a0 + s * x, 0.0, C)
        delta = new - a0
        u_new = u + DFT @ delta
        w_new = np.maximum(u_new, 0.0)
        gain = float(delta.sum()) - 0.5 * float((w_new - w) @ (w_new + w))
        if gain > 0 and gain >= sigma * float(r @ delta):
            alpha[F] = new
            u[:] = u_new
            return s, its
        s *= 0.5
    return 0.0, its


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
        "u": u,
        "margins": m,
        "primal": primal,
        "dual": dual,
        "gap": primal - dual,
        "rel_gap": (primal - dual) / max(primal, 1e-300),
        "kkt_margin_residual": float(viol.max()) if len(viol) else 0.0,
    }


def _anderson(history, C):
    """Anderson extrapolation (Bertrand & Massias, AISTATS 2021, for coordinate descent) of the
    last K + 1 iterates ``history`` ((K + 1, r) array, one epoch apart, same rows, same order): the
    combination sum_i c_i x_i, sum c = 1, minimising the norm of the combined successive
    differences, c = z / sum z with (U U^T) z = 1, U the (K, r) differences. Only the columns free
    (strictly inside (0, C)) in every iterate are extrapolated, then clipped to [0, C]. Returns
    (columns, values) or None if the system is singular."""
    X = np.asarray(history)
    free = np.flatnonzero(np.all((X > 0) & (X < C), axis=0))
    if len(free) == 0:
        return None
    U = np.diff(X[:, free], axis=0)
    G = U @ U.T
    try:
        z = np.linalg.solve(G + 1e-14 * np.trace(G) * np.eye(len(G)), np.ones(len(G)))
    except np.linalg.LinAlgError:
        return None
    if not np.isfinite(z).all() or z.sum() == 0:
        return None
    c = z / z.sum()
    return free, np.clip(c @ X[1:, free], 0.0, C)


class _Block:
    """The part of eq. 8's dual that coordinate ascent works on (:func:`solve_eq8_dual`): rows
    (LIBLINEAR's shrinking) and columns (weights held at 0).

    Rows: ``Bf`` = D[rows] (CSR), ``a`` = alpha[rows], ``g`` = grad[rows], and ``order``, the
    positions in ``Bf`` of the rows not shrunk, in the coordinate order. Made with all rows, Bf
    is D itself and a, g are alpha and grad (no copy). :meth:`keep` drops shrunk rows from
    ``order``; once at most half of the rows are left, the block is rebuilt from them, in the
    coordinate order, so that an epoch reads contiguous memory.

    Columns: ``B`` = Bf[:, cols] and ``uk`` = u[cols] for the columns ``cols`` with u_j > -tau at
    the last :meth:`sync` (all columns when ``cols`` is None: B is Bf, uk is u). A column with
    u_j <= 0 has w_j = [u_j]_+ = 0 and adds nothing to a coordinate's derivative or slope, so while
    the other columns stay <= 0 the epochs over B are the epochs over Bf; a column that turns
    positive between syncs is caught at the next one (``missed``) and brought back, and every
    certificate is taken on the whole of D. :meth:`sync` brings u up to date (u += Bf^T (a - a at
    the last sync)) and writes ``a`` back into ``alpha``."""

    def __init__(self, D, alpha, grad, perm, u):
        self.alpha, self.u, self.rows, self.cols = alpha, u, None, None
        self.Bf, self.a, self.g, self.order = D, alpha, grad, perm
        self.B, self.uk, self.a0 = D, u, None
        self.missed = 0
        self.row_nnz = np.diff(D.indptr)
        self.order_nnz = int(self.row_nnz[perm].sum())

    def keep(self, mask):
        """Keep the rows ``order[mask]``."""
        self.order = self.order[mask]
        if len(self.order) <= self.Bf.shape[0] // 2:
            self.sync()
            o = self.order
            self.rows = o if self.rows is None else self.rows[o]
            self.Bf, self.a, self.g = self.Bf[o], self.a[o], self.g[o]
            self.B = self.Bf if self.cols is None else self.B[o]
            self.a0 = None if self.a0 is None else self.a.copy()
            self.order = np.arange(len(o))
            self.row_nnz = np.diff(self.B.indptr)
        self.order_nnz = int(self.row_nnz[self.order].sum())

    def sync(self):
        """u up to date on every column; ``a`` written back into ``alpha``."""
        if self.cols is not None:
            u_new = self.u + np.asarray(self.Bf.T @ (self.a - self.a0)).ravel()
            far = np.ones(len(u_new), bool)
            far[self.cols] = False
            self.missed += int(np.count_nonzero(u_new[far] > 0))
            u_new[self.cols] = self.uk
            self.u[:] = u_new
            self.a0 = self.a.copy()
        if self.rows is not None:
            self.alpha[self.rows] = self.a

    def restrict(self, tau):
        """After :meth:`sync`: work on the columns with u_j > -tau."""
        cols = np.flatnonzero(self.u > -tau)
        self.cols, self.a0 = cols, self.a.copy()
        self.B = self.Bf[:, cols].tocsr()
        self.uk = self.u[cols].copy()
        self.row_nnz = np.diff(self.B.indptr)
        self.order_nnz = int(self.row_nnz[self.order].sum())


def solve_eq8_dual(
    D,
    C=1.0,
    tol=1e-9,
    max_epochs=200000,
    max_free=5000,
    anderson=5,
    seed=0,
    log=None,
    cg_every=5,
    cg_iter=50,
    cg_gap=1e-4,
    cg_max_free=2000,
    look_every=20,
    col_every=50,
    tau=1.0,
    newton_steps=20,
    newton_gap=1e-3,
    look_stall=0.5,
):
    """Solve eq. 8 with L = I (A = I: min 1/2 ||w||^2 + C sum xi, w^T d_t >= 1 - xi_t, xi >= 0,
    w >= 0) through its dual (see the comment above :func:`_breakpoint_walk`). Our method; the
    paper does not give one.

    Exact coordinate ascent (:func:`_cd_epoch`, compiled by numba: the 1-D maximiser of the
    piecewise-quadratic dual per coordinate, O(nnz(d_t)) unless a breakpoint is crossed) over the
    rows in one random order drawn once (a fixed order makes an epoch one fixed map, which the
    extrapolation below needs), with:

    * LIBLINEAR's shrinking (Hsieh et al., ICML 2008, sec. 3.2, in our sign convention): after an
      epoch whose largest projected-gradient violation was M, a row with alpha_t = 0 and g_t < -M,
      or alpha_t = C and g_t > M, is left out of the next epochs;
    * Anderson extrapolation every ``anderson`` epochs while the rows stay the same
      (:func:`_anderson`), kept only if it increases the dual g (0 turns it off);
    * a conjugate-gradient step on the free multipliers (:func:`_face_cg_step`, ``cg_iter`` CG
      iterations) every ``cg_every`` epochs (0 turns it off) while at most ``cg_max_free`` of the
      non-shrunk multipliers are free and the last check's relative gap is above ``cg_gap``.
      Measured on the Reuters stand-in before the working block below existed (C = 1, tol 1e-9,
      one core, shared machine): 50,000 triplets 29.0 s -> 16.0 s; at 200,000 triplets (about
      2,500 to 3,300 free multipliers) steps taken with up to 3,300 free rows made the solve
      slower (240 s -> 274 s), hence ``cg_max_free`` = 2,000, which leaves that size without them;
    * a working block (:class:`_Block`): the rows not shrunk are copied into one compact CSR
      matrix in the coordinate order once shrinking has halved them (contiguous reads), and the
      epochs run on the columns with u_j > -``tau`` only, re-chosen every ``col_every`` epochs
      (``tau`` = 0 turns this off). A column with u_j <= 0 has w_j = 0 and adds nothing to a
      coordinate's derivative or slope, so while the held columns stay <= 0 the epochs are the
      same maximisations; their u_j are brought up to date at each re-choice, a held column
      found positive then is counted (``column_misses``), brought back, and ``tau`` doubled.
      Measured at 200,000 Reuters triplets near the end: the free rows' non-zeros fall on
      columns with u_j > -1 for 20% of them (u_j reaches -900 on the others);
    * looks: every ``look_every`` passes' worth of work (counted in non-zeros, so the schedule
      does not depend on the machine) the certificate is taken without changing the iterate, and
      the solver stops there if the gap is small enough; a look whose relative gap is at most
      ``newton_gap`` and above ``look_stall`` times the previous look's (since the last check)
      says coordinate ascent has stalled and starts a check at once (without it, 200,000
      triplets of reuters_topic, seed 2, sat at a gap of 2-4e-7 from epoch 20,302 to the
      200,000-epoch limit: the free rows' Gram matrix is too ill-conditioned for coordinate
      steps; with it, 95 s, converged);
    * checks: when an epoch's violation falls below ``eps`` (1 at first), u = D^T alpha is
      recomputed and the certificate (:func:`dual_certificate`: two products with D) is taken on
      all rows; the solver stops if the duality gap is <= ``tol`` times the primal value, else it
      tries Newton steps on the rows not held at a bound (:func:`_newton_step`, when at most
      ``max_free`` of them; they land on the optimum once the sets are right) once the relative
      gap is at most ``newton_gap`` (before, the sets are far from settled and the dense steps
      cost more than they give: 50,000 Reuters triplets took 25 s with steps at every check,
      7.7 s with ``newton_gap`` = 1e-3), at most ``newton_steps`` per check, with a
      Levenberg-Marquardt ridge: 1e-4 at first, divided by 10 after a full step (s = 1),
      multiplied by 100 after a failed one (the second failure ends the check's attempts); then
      all rows and columns come back and eps is divided by 10.

    Every accepted step increases the dual (with held columns: the dual in which they are held
    at w_j = 0, which is the dual itself while they stay <= 0); coordinate ascent alone converges
    (exact cyclic maximisation of a concave C^1 function over a box). Whatever the path, the
    answer is only returned with its certificate, computed on the whole of D.

    ``D``: (n, m) CSR matrix (or array) of rows d_t = Delta_ik - Delta_ij, never densified;
    ``tol``: the relative duality gap to stop at (it bounds the relative suboptimality of the
    returned primal value); ``max_epochs``: epochs, each over the rows not shrunk at the time;
    ``seed``: the coordinate order; ``log``: None or a callable given one line per check;
    ``cg_every``, ``cg_iter``, ``cg_gap``, ``cg_max_free``: the CG steps above; ``look_every``,
    ``col_every``, ``tau``: the looks and the column restriction above; ``newton_steps``: the
    Newton steps above; ``newton_gap``: the gap below which they are tried; ``look_stall``:
    the stall rule of the looks (0 turns it off).
    Returns a dict: w (m,) float64 >= 0, alpha (n,) in [0, C], xi (n,), objective (the primal
    value, eq. 8), dual, rel_gap, kkt_margin_residual, epochs, nnz_epochs (the work in passes
    over all of D), rounds (checks), looks, stalls (checks started by a stalled look),
    newton_steps, extrapolations (accepted), converged,
    column_misses, tau (its last value).
    Raises ``ValueError`` for a matrix with no rows.
    """
    epoch = _compiled()
    D = sp.csr_matrix(D, dtype=np.float64)
    D.sum_duplicates()
    D.sort_indices()
    n, m = D.shape
    if n == 0:
        raise ValueError("solve_eq8_dual needs at least one row")
    alpha = np.zeros(n)
    u = np.zeros(m)
    grad = np.zeros(n)
    width = max(int(np.diff(D.indptr).max()), 1)
    bp, act = np.empty(width), np.empty(width)
    perm = np.random.default_rng(seed).permutation(n)
    # the working block (compact rows: 1.7 ms instead of 3.8 ms per epoch over the last 4,000
    # rows of 200,000 Reuters triplets, measured)
    blk = _Block(D, alpha, grad, perm, u)
    last_col = missed = 0
    ridge = 1e-4
    shrink_at = np.inf
    eps = 1.0
    epochs = rounds = newton = extrapolated = looks = stalls = 0
    nnz_done = 0
    next_look = look_every * D.nnz
    history = []
    cg_on = True
    last_cg = cg_steps = 0
    cert = dual_certificate(D, alpha, C)
    converged = False
    last_look = np.inf
    t_start = time.perf_counter()
    while epochs < max_epochs:
        B, a, g, order, uk = blk.B, blk.a, blk.g, blk.order, blk.uk
        _, pg_max = epoch(B.indptr, B.indices, B.data, a, uk, order, float(C), bp, act, g)
        epochs += 1
        nnz_done += blk.order_nnz
        if anderson:
            history.append(a[order])
            if len(history) == anderson + 1:
                ext = _anderson(history, C)
                history = [history[-1]]
                if ext is not None:
                    rows, new = order[ext[0]], ext[1]
                    u_new = uk + np.asarray(B[rows].T @ (new - a[rows])).ravel()
                    w_old, w_new = np.maximum(uk, 0.0), np.maximum(u_new, 0.0)
                    gain = float(new.sum() - a[rows].sum()) - 0.5 * float(
                        w_new @ w_new - w_old @ w_old
                    )
                    if gain > 0:
                        a[rows] = new
                        uk[:] = u_new
                        extrapolated += 1
                        history = [a[order]]
        a_o, g_o = a[order], g[order]
        out = ((a_o <= 0) & (g_o < -shrink_at)) | ((a_o >= C) & (g_o > shrink_at))
        shrink_at = pg_max if pg_max > 0 else np.inf
        if out.any():
            blk.keep(~out)
            history = []
        order = blk.order
        if (
            cg_every
            and cg_on
            and epochs - last_cg >= cg_every
            and np.count_nonzero((blk.a[order] > 0) & (blk.a[order] < C)) <= cg_max_free
        ):
            s_cg, _ = _face_cg_step(blk.B, blk.a, blk.uk, order, C, cg_iter)
            cg_steps += s_cg > 0
            last_cg = epochs
            history = []
        if tau and epochs - last_col >= col_every:  # the columns with u_j > -tau
            blk.sync()
            if blk.missed > missed:
                tau *= 2.0
                missed = blk.missed
            blk.restrict(tau)
            last_col = epochs
        if pg_max > eps and len(order):  # no check due
            if not (look_every and nnz_done >= next_look):
                continue
            # a look between checks: stop if certified, start a check if stalled
            next_look = nnz_done + look_every * D.nnz
            blk.sync()
            look = dual_certificate(D, alpha, C)
            looks += 1
            converged = look["gap"] <= tol * look["primal"]
            stalled = look_stall > 0 and newton_gap >= look["rel_gap"] > look_stall * last_look
            last_look = look["rel_gap"]
            if log is not None and (converged or stalled):
                log(
                    f"look {looks}: epochs {epochs}, primal {look['primal']:.12g}, "
                    f"rel_gap {look['rel_gap']:.2e}{', stalled' if stalled else ''} "
                    f"({time.perf_counter() - t_start:.1f} s)"
                )
            if converged:
                cert = look
                break
            if not stalled:
                continue
            stalls += 1  # coordinate ascent has stalled: a check (Newton steps) now
        rounds += 1
        last_look = np.inf
        next_look = nnz_done + look_every * D.nnz
        blk.sync()
        cert = dual_certificate(D, alpha, C)
        u = cert["u"]  # resynchronise (the epochs update u incrementally)
        line = f"check {rounds}: epochs {epochs}, rows {len(order)}"
        fails = steps = 0
        if cert["rel_gap"] > newton_gap:
            steps = newton_steps  # far from the optimum: the sets are not settled yet
        while not (converged := cert["gap"] <= tol * cert["primal"]) and steps < newton_steps:
            s = _newton_step(D, alpha, u, cert["margins"], C, max_free, ridge=ridge)
            if s is not None and s < 0:
                break  # more rows off their bounds than max_free: no dense step
            if s is None or s == 0:  # pivoting unfinished or no ascent: a larger ridge
                ridge = min(ridge * 100.0, 1e-2)
                fails += 1
                if fails == 2:
                    break
                continue
            newton += 1
            steps += 1
            if s == 1.0:
                ridge = max(ridge * 0.1, 1e-10)
            cert = dual_certificate(D, alpha, C)
            line += f", newton step {s:.3g}"
        if log is not None:
            n_free = int(np.sum((alpha > 0) & (alpha < C)))
            log(
                f"{line}, extrapolations {extrapolated}, cg steps {cg_steps}, free {n_free}, "
                f"primal {cert['primal']:.12g}, rel_gap {cert['rel_gap']:.2e} "
                f"({time.perf_counter() - t_start:.1f} s)"
            )
        if converged:
            break
        cg_on = cert["rel_gap"] > cg_gap
        missed_so_far = blk.missed
        blk = _Block(D, alpha, grad, perm, u)
        blk.missed = missed_so_far
        last_col = epochs
        history = []
        shrink_at = np.inf
        eps *= 0.1
    if not converged:  # stopped by max_epochs (a converged run stopped right after a sync)
        blk.sync()
        cert = dual_certificate(D, alpha, C)
    return {
        "w": cert["w"],
        "alpha": alpha,
        "xi": np.maximum(0.0, 1.0 - cert["margins"]),
        "objective": cert["primal"],
        "dual": cert["dual"],
        "rel_gap": cert["rel_gap"],
        "kkt_margin_residual": cert["kkt_margin_residual"],
        "epochs": epochs,
        "nnz_epochs": nnz_done / max(D.nnz, 1),
        "rounds": rounds,
        "looks": looks,
        "stalls": stalls,
        "newton_steps": newton,
        "extrapolations": extrapolated,
        "converged": converged,
        "column_misses": blk.missed,
        "tau": tau,
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
    solver_status_, solve_seconds_ (the solver's own time), setup_seconds_ (building Delta and
    the cvxpy problem), n_constraints_, n_active_features_ (columns of Delta kept; linear only).
    "dcd" only: ``certificate_`` (dict: rel_gap, the relative duality gap; kkt_margin_residual;
    epochs, nnz_epochs, rounds, looks, stalls, newton_steps of :func:`solve_eq8_dual`).

    Raises :class:`tripletbench.datasets.base.DataError` on bad input (zero triplets, NaN),
    ``ValueError`` on bad hyperparameters, :class:`SolverError` if the solver fails.
    """

    name = "SVM-relative"  # its name in configs and tables (algorithms: found by this)

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
            raise SolverError(
                f"{self.solver} failed on eq. 8 ({n} x {len(keep)}): {err}{SOLVER_REMEDY}"
            ) from err
        self.solve_seconds_ = time.perf_counter() - t1
        self.solver_status_ = problem.status
        if problem.status != cp.OPTIMAL or w.value is None:
            raise SolverError(
                f"{self.solver} returned status {problem.status!r} on eq. 8 "
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
        Raises ``NotFittedError`` before fit and scikit-learn's ``ValueError`` for NaN/inf, a
        non-2-D X or another number of features than at fit."""
        self._check_fitted()
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        F = self._features(X)
        s = np.sqrt(self.w_)
        return sp.csr_matrix(F).multiply(s[None, :]).tocsr() if sp.issparse(F) else F * s

    def similarity_matrix(self, X, Y) -> np.ndarray:
        """(len(X), len(Y)) dense matrix of -d_{A,W}(x, y) (for ranking). Raises
        ``NotFittedError`` before fit."""
        self._check_fitted()
        from sklearn.metrics.pairwise import euclidean_distances

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
