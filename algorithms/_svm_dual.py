"""Our solver for eq. 8 with L = I (Schultz & Joachims, "Learning a Distance Metric from Relative
Comparisons", NIPS 16, 2003; the paper does not give one): :func:`solve_eq8_dual`, its working
block (:class:`_Block`) and its stopping rule (:func:`dual_certificate`); its steps are in
:mod:`tripletbench.algorithms._svm_steps`, the dual itself in the comment there above
:func:`~tripletbench.algorithms._svm_steps._breakpoint_walk`. The names are re-exported by
:mod:`tripletbench.algorithms.svm_relative`.

Exact coordinate ascent (:func:`~tripletbench.algorithms._svm_steps._cd_epoch`, compiled by
numba: the 1-D maximiser of the piecewise-quadratic dual per coordinate, O(nnz(d_t)) unless a
breakpoint is crossed) over the rows in one random order drawn once (a fixed order makes an epoch
one fixed map, which the extrapolation below needs), with:

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
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp

from ._svm_steps import _anderson, _compiled, _face_cg_step, _newton_step


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
    w >= 0) through its dual (see the comment above
    :func:`~tripletbench.algorithms._svm_steps._breakpoint_walk`), by the method of this module's
    docstring (:class:`_DualRun`). Our method; the paper does not give one.

    ``D``: (n, m) CSR matrix (or array) of rows d_t = Delta_ik - Delta_ij, never densified;
    ``tol``: the relative duality gap to stop at (it bounds the relative suboptimality of the
    returned primal value); ``max_epochs``: epochs, each over the rows not shrunk at the time;
    ``seed``: the coordinate order; ``log``: None or a callable given one line per check;
    ``cg_every``, ``cg_iter``, ``cg_gap``, ``cg_max_free``: the CG steps; ``look_every``,
    ``col_every``, ``tau``: the looks and the column restriction; ``newton_steps``: the
    Newton steps; ``newton_gap``: the gap below which they are tried; ``look_stall``:
    the stall rule of the looks (0 turns it off).
    Returns a dict: w (m,) float64 >= 0, alpha (n,) in [0, C], xi (n,), objective (the primal
    value, eq. 8), dual, rel_gap, kkt_margin_residual, epochs, nnz_epochs (the work in passes
    over all of D), rounds (checks), looks, stalls (checks started by a stalled look),
    newton_steps, extrapolations (accepted), converged,
    column_misses, tau (its last value).
    Raises ``ValueError`` for a matrix with no rows.
    """
    settings = {
        "tol": tol,
        "max_epochs": max_epochs,
        "max_free": max_free,
        "anderson": anderson,
        "cg_every": cg_every,
        "cg_iter": cg_iter,
        "cg_gap": cg_gap,
        "cg_max_free": cg_max_free,
        "look_every": look_every,
        "col_every": col_every,
        "newton_steps": newton_steps,
        "newton_gap": newton_gap,
        "look_stall": look_stall,
    }
    return _DualRun(D, C, seed, log, tau, settings).solve()


class _DualRun:
    """One run of :func:`solve_eq8_dual` (its arguments; ``settings``: the fixed ones, set as
    attributes): the state of its loop and the loop's named steps. Each epoch is
    :meth:`_epoch` (the coordinate sweep, then :meth:`_extrapolate`), :meth:`_shrink`,
    :meth:`_cg` and :meth:`_columns`; while no check is due (the epoch's violation above eps) a
    :meth:`_look` now and then may stop the run or call for a check; a check (:meth:`_check`,
    with :meth:`_newton_steps`) stops a converged run, else the run goes on from
    :meth:`_restart`."""

    def __init__(self, D, C, seed, log, tau, settings):
        vars(self).update(settings)
        self.kernel = _compiled()
        D = sp.csr_matrix(D, dtype=np.float64)
        D.sum_duplicates()
        D.sort_indices()
        n, m = D.shape
        if n == 0:
            raise ValueError("solve_eq8_dual needs at least one row")
        self.D, self.C, self.log, self.tau = D, C, log, tau
        self.alpha = np.zeros(n)
        self.u = np.zeros(m)
        self.grad = np.zeros(n)
        width = max(int(np.diff(D.indptr).max()), 1)
        self.bp, self.act = np.empty(width), np.empty(width)
        self.perm = np.random.default_rng(seed).permutation(n)
        # the working block (compact rows: 1.7 ms instead of 3.8 ms per epoch over the last 4,000
        # rows of 200,000 Reuters triplets, measured)
        self.blk = _Block(D, self.alpha, self.grad, self.perm, self.u)
        self.last_col = self.missed = 0
        self.ridge = 1e-4
        self.shrink_at = np.inf
        self.eps = 1.0
        self.epochs = self.rounds = self.newton = self.extrapolated = self.looks = 0
        self.stalls = 0
        self.nnz_done = 0
        self.next_look = self.look_every * D.nnz
        self.history = []
        self.cg_on = True
        self.last_cg = self.cg_steps = 0
        self.cert = dual_certificate(D, self.alpha, C)
        self.converged = False
        self.last_look = np.inf
        self.t_start = time.perf_counter()

    def solve(self):
        """The loop (the module docstring); returns :func:`solve_eq8_dual`'s dict."""
        while self.epochs < self.max_epochs:
            self._epoch()
            self._shrink()
            self._cg()
            self._columns()
            if self.pg_max > self.eps and len(self.blk.order):  # no check due
                check_now = self._look()
                if self.converged:
                    break
                if not check_now:
                    continue
            if self._check():
                break
            self._restart()
        return self._result()

    def _epoch(self):
        """One epoch of coordinate ascent over the block's rows, then Anderson extrapolation."""
        blk = self.blk
        B, a, g, order, uk = blk.B, blk.a, blk.g, blk.order, blk.uk
        _, self.pg_max = self.kernel(
            B.indptr, B.indices, B.data, a, uk, order, float(self.C), self.bp, self.act, g
        )
        self.epochs += 1
        self.nnz_done += blk.order_nnz
        if self.anderson:
            self._extrapolate(B, a, order, uk)

    def _extrapolate(self, B, a, order, uk):
        """Every ``anderson`` epochs: the extrapolated iterate, kept if it increases the dual."""
        self.history.append(a[order])
        if len(self.history) == self.anderson + 1:
            ext = _anderson(self.history, self.C)
            self.history = [self.history[-1]]
            if ext is not None:
                rows, new = order[ext[0]], ext[1]
                u_new = uk + np.asarray(B[rows].T @ (new - a[rows])).ravel()
                w_old, w_new = np.maximum(uk, 0.0), np.maximum(u_new, 0.0)
                gain = float(new.sum() - a[rows].sum()) - 0.5 * float(w_new @ w_new - w_old @ w_old)
                if gain > 0:
                    a[rows] = new
                    uk[:] = u_new
                    self.extrapolated += 1
                    self.history = [a[order]]

    def _shrink(self):
        """LIBLINEAR's shrinking of the rows at a bound whose gradient points outward."""
        blk, C = self.blk, self.C
        a_o, g_o = blk.a[blk.order], blk.g[blk.order]
        out = ((a_o <= 0) & (g_o < -self.shrink_at)) | ((a_o >= C) & (g_o > self.shrink_at))
        self.shrink_at = self.pg_max if self.pg_max > 0 else np.inf
        if out.any():
            blk.keep(~out)
            self.history = []

    def _cg(self):
        """Every ``cg_every`` epochs, while few multipliers are free: a CG step on them."""
        blk, C, order = self.blk, self.C, self.blk.order
        if (
            self.cg_every
            and self.cg_on
            and self.epochs - self.last_cg >= self.cg_every
            and np.count_nonzero((blk.a[order] > 0) & (blk.a[order] < C)) <= self.cg_max_free
        ):
            s_cg, _ = _face_cg_step(blk.B, blk.a, blk.uk, order, C, self.cg_iter)
            self.cg_steps += s_cg > 0
            self.last_cg = self.epochs
            self.history = []

    def _columns(self):
        """Every ``col_every`` epochs: the columns with u_j > -tau (tau doubled after a miss)."""
        if self.tau and self.epochs - self.last_col >= self.col_every:
            blk = self.blk
            blk.sync()
            if blk.missed > self.missed:
                self.tau *= 2.0
                self.missed = blk.missed
            blk.restrict(self.tau)
            self.last_col = self.epochs

    def _look(self):
        """A look between checks, when due: sets ``converged`` (and ``cert``) if certified;
        returns True if coordinate ascent has stalled (a check now)."""
        if not (self.look_every and self.nnz_done >= self.next_look):
            return False
        self.next_look = self.nnz_done + self.look_every * self.D.nnz
        self.blk.sync()
        look = dual_certificate(self.D, self.alpha, self.C)
        self.looks += 1
        self.converged = look["gap"] <= self.tol * look["primal"]
        stalled = (
            self.look_stall > 0
            and self.newton_gap >= look["rel_gap"] > self.look_stall * self.last_look
        )
        self.last_look = look["rel_gap"]
        if self.log is not None and (self.converged or stalled):
            self.log(
                f"look {self.looks}: epochs {self.epochs}, primal {look['primal']:.12g}, "
                f"rel_gap {look['rel_gap']:.2e}{', stalled' if stalled else ''} "
                f"({time.perf_counter() - self.t_start:.1f} s)"
            )
        if self.converged:
            self.cert = look
            return False
        if not stalled:
            return False
        self.stalls += 1  # coordinate ascent has stalled: a check (Newton steps) now
        return True

    def _check(self):
        """A check: u resynchronised, the certificate on all rows, Newton steps when the gap is
        small enough; returns True if converged."""
        self.rounds += 1
        self.last_look = np.inf
        self.next_look = self.nnz_done + self.look_every * self.D.nnz
        self.blk.sync()
        self.cert = dual_certificate(self.D, self.alpha, self.C)
        self.u = self.cert["u"]  # resynchronise (the epochs update u incrementally)
        line = f"check {self.rounds}: epochs {self.epochs}, rows {len(self.blk.order)}"
        line = self._newton_steps(line)
        if self.log is not None:
            n_free = int(np.sum((self.alpha > 0) & (self.alpha < self.C)))
            self.log(
                f"{line}, extrapolations {self.extrapolated}, cg steps {self.cg_steps}, "
                f"free {n_free}, primal {self.cert['primal']:.12g}, "
                f"rel_gap {self.cert['rel_gap']:.2e} ({time.perf_counter() - self.t_start:.1f} s)"
            )
        return self.converged

    def _newton_steps(self, line):
        """The check's Newton steps (at most ``newton_steps``, once the relative gap is at most
        ``newton_gap``) with the Levenberg-Marquardt ridge; sets ``converged`` and ``cert``;
        returns the log line with the steps taken."""
        D, alpha, C = self.D, self.alpha, self.C
        cert = self.cert
        fails = steps = 0
        if cert["rel_gap"] > self.newton_gap:
            steps = self.newton_steps  # far from the optimum: the sets are not settled yet
        while (
            not (converged := cert["gap"] <= self.tol * cert["primal"])
            and steps < self.newton_steps
        ):
            s = _newton_step(D, alpha, self.u, cert["margins"], C, self.max_free, ridge=self.ridge)
            if s is not None and s < 0:
                break  # more rows off their bounds than max_free: no dense step
            if s is None or s == 0:  # pivoting unfinished or no ascent: a larger ridge
                self.ridge = min(self.ridge * 100.0, 1e-2)
                fails += 1
                if fails == 2:
                    break
                continue
            self.newton += 1
            steps += 1
            if s == 1.0:
                self.ridge = max(self.ridge * 0.1, 1e-10)
            cert = dual_certificate(D, alpha, C)
            line += f", newton step {s:.3g}"
        self.cert, self.converged = cert, converged
        return line

    def _restart(self):
        """After a check that has not converged: all rows and columns back, eps / 10."""
        self.cg_on = self.cert["rel_gap"] > self.cg_gap
        missed_so_far = self.blk.missed
        self.blk = _Block(self.D, self.alpha, self.grad, self.perm, self.u)
        self.blk.missed = missed_so_far
        self.last_col = self.epochs
        self.history = []
        self.shrink_at = np.inf
        self.eps *= 0.1

    def _result(self):
        """:func:`solve_eq8_dual`'s dict, with the certificate on the whole of D."""
        if not self.converged:  # stopped by max_epochs (a converged run stopped after a sync)
            self.blk.sync()
            self.cert = dual_certificate(self.D, self.alpha, self.C)
        cert, D = self.cert, self.D
        return {
            "w": cert["w"],
            "alpha": self.alpha,
            "xi": np.maximum(0.0, 1.0 - cert["margins"]),
            "objective": cert["primal"],
            "dual": cert["dual"],
            "rel_gap": cert["rel_gap"],
            "kkt_margin_residual": cert["kkt_margin_residual"],
            "epochs": self.epochs,
            "nnz_epochs": self.nnz_done / max(D.nnz, 1),
            "rounds": self.rounds,
            "looks": self.looks,
            "stalls": self.stalls,
            "newton_steps": self.newton,
            "extrapolations": self.extrapolated,
            "converged": self.converged,
            "column_misses": self.blk.missed,
            "tau": self.tau,
        }
