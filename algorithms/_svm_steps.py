"""The steps of our solver for eq. 8 with L = I (Schultz & Joachims, "Learning a Distance Metric
from Relative Comparisons", NIPS 16, 2003; the paper names no solver, this one is ours), which
:func:`tripletbench.algorithms._svm_dual.solve_eq8_dual` combines:

* :func:`_cd_epoch` (with :func:`_breakpoint_walk`; compiled by numba, :func:`_compiled`): one
  epoch of exact coordinate ascent on the dual;
* :func:`_newton_step` (with :func:`_box_qp_active_set`): a Newton step on the multipliers not
  held at a bound;
* :func:`_face_cg_step`: a conjugate-gradient step on the free multipliers;
* :func:`_anderson`: Anderson extrapolation of the last epochs' iterates.

The names are re-exported by :mod:`tripletbench.algorithms.svm_relative`.
"""

from __future__ import annotations

import numpy as np

# Dual of eq. 8 with L = I (multipliers alpha_t >= 0 for the margin constraints, beta >= 0 for
# w >= 0): the Lagrangian is minimised by w = D^T alpha + beta, and maximising over beta >= 0 gives
# beta = [-D^T alpha]_+, hence w(alpha) = [D^T alpha]_+ and the dual
#     max_{0 <= alpha <= C}  g(alpha) = sum_t alpha_t - 1/2 ||[D^T alpha]_+||^2,
# concave and continuously differentiable, with dg/dalpha_t = 1 - d_t . [D^T alpha]_+ (the same
# dual the tests solve by L-BFGS-B). Along one coordinate g is piecewise quadratic:
# g(alpha + delta e_t) = const + delta - 1/2 sum_j [u_j + delta d_tj]_+^2 with u = D^T alpha, whose
# derivative 1 - sum_j d_tj [u_j + delta d_tj]_+ is piecewise linear and non-increasing in delta,
# with breakpoints at delta = -u_j / d_tj.


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
