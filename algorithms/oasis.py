"""OASIS: Online Algorithm for Scalable Image Similarity (passive-aggressive bilinear similarity),
and its variants.

Chechik, Sharma, Shalit, Bengio, "An Online Algorithm for Large Scale Image Similarity
Learning", NIPS 2009 (the OASIS paper), section 2; only equation numbers that are legible in our
copy of its text are cited; the longer JMLR 11 (2010) version, "Large Scale Online Learning of
Image Similarity Through Ranking", was not at hand:

* similarity S_W(p_i, p_j) = p_i^T W p_j (bilinear, W not required PSD or symmetric); W_0 = I
  ("W is initialized to the identity matrix");
* triplet hinge loss l_W(p, p+, p-) = max(0, 1 - S_W(p, p+) + S_W(p, p-));
* passive-aggressive step (the problem of eq. 3, solved through its Lagrangian, eq. 4, after
  Crammer et al. 2006): V = p (p+ - p-)^T, tau = min(C, l_W / ||V||_F^2), W <- W + tau V, with
  ||V||_F^2 = ||p||^2 ||p+ - p-||^2;
* "iteratively draws a random triplet": triplets drawn uniformly at random, with replacement, at
  each step (``sampling="uniform"``).

The aggressiveness C: the paper's text at hand gives no value. The OASIS authors' Matlab code as
ported to Python by G. Taylor ("Based on Matlab implementation of Chechik et al."; read in
franblas/facialrecoChallenge, ``oasis.py``) defaults to ``aggress=0.1`` (our default ``C=0.1``);
versions of an unmerged metric-learn pull request default to c = 1e-6 (in the version we read;
other versions of that pull request are reported to use 1e-4).

Variants (the paper's section 4.3; the options follow the same port's ``do_sym`` / ``do_psd``
with their periods):

* ``symmetrize="step"``: W <- (W + W^T)/2 after every step (4.3.1: projection onto the symmetric
  matrices, sym(W) = (W + W^T)/2). As W_0 = I is symmetric this is the step tau (V + V^T)/2 with
  the usual tau; ``symmetrize="end"``: once, after training.
* ``psd=t`` (int): W <- projection of (W + W^T)/2 onto the PSD cone (eigen-decomposition,
  negative eigenvalues set to 0) every t steps and after the last (4.3.2: "repeatedly projected
  ... for various values of t"); ``psd="end"``: once, after training.
* :class:`DissimOASIS` ("Dissim-OASIS", 4.3.1): the same passive-aggressive learning of a
  dissimilarity d_W(p, q) = (p - q)^T W (p - q), loss max(0, 1 - d_W(p, p-) + d_W(p, p+)),
  V = (p - p-)(p - p-)^T - (p - p+)(p - p+)^T (symmetric, so W stays symmetric from W_0 = I);
  ranking by -d_W.

Deviations, stated: when ||V||_F = 0 (a zero anchor, or p+ = p-) the step is undefined (0/0);
we skip it (no update, counted as not utilized) instead of dividing by zero. The number of steps
is ``n_epochs`` times the number of triplets (the paper chooses the number of iterations on a
validation set); C is fixed or chosen on our validation split (see ``config/default.yaml``).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .base import (
    BaseLearner,
    BilinearMixin,
    dense,
    row_bilinear,
    row_dot,
    row_sqnorm,
    tuple_rows,
)


def oasis_step(i, t, m, par, state):
    """OASIS's passive-aggressive step size for triplet i with margin m (eq. 4's closed form):
    tau = min(C, l / ||V_i||_F^2) with l = max(0, 1 - m), 0 where l = 0 or V_i = 0 (our skip of
    the undefined 0/0). ``par`` = [C]; ``state[i, 0]`` = ||V_i||_F^2. Compiled by numba inside the
    engine's loop (:mod:`tripletbench.algorithms.kernels`)."""
    loss = 1.0 - m
    if loss <= 0.0 or state[i, 0] == 0.0:
        return 0.0
    return min(par[0], loss / state[i, 0])


def symmetric_part(W: np.ndarray) -> np.ndarray:
    return (W + W.T) / 2


def project_psd(W: np.ndarray) -> np.ndarray:
    """Nearest PSD matrix (Frobenius) to the symmetric part of W: eigenvalues clipped at 0."""
    w, V = np.linalg.eigh(symmetric_part(W))
    return (V * np.clip(w, 0, None)) @ V.T


class OASIS(BilinearMixin, BaseLearner):
    """OASIS (Chechik et al. 2010).

    Parameters
    ----------
    C : float, aggressiveness (upper bound of the step tau), > 0.
    n_epochs : float, number of steps = n_epochs * n_triplets.
    symmetrize : None | "step" | "end", projection of W onto symmetric matrices.
    psd : None | int t | "end", projection onto the PSD cone every t steps or once at the end.
    sampling : "uniform" (paper) | "permutation" | "sequential".
    block_size : int >= 1 or "auto" (64: :func:`tripletbench.algorithms.base.auto_block_size`),
        steps scored together by the exact blocked engine (:func:`tripletbench.algorithms.base.bilinear_stream`);
        the iterates do not depend on it.
    trace_loss : "hinge" (the loss OASIS minimizes) | "squared_hinge", the loss the trace's
        ``avg_cumulative_loss`` records.
    trace_losses : bool, also record both losses at every trace checkpoint
        (``avg_cumulative_hinge``, ``avg_cumulative_squared_hinge``: the average over steps 1..t of
        the loss of the step's triplet before its update), for the SDCA paper's Figure 1.
    checkpoint_callback : None or callable (t, W) -> dict, called at each trace checkpoint with
        the current matrix (evaluation along training); its values join the trace.
    preprocessor, random_state, verbose : see :mod:`tripletbench.algorithms.base`. The preprocessor may be a
        scipy.sparse CSR matrix: each step then costs O(nnz(p) nnz(p+ - p-)), not O(d^2), and
        gives the same W as the dense input (compiled sparse loop of the engine).

    Fitted: ``W_`` (d, d) float64, ``trace_`` (dict of lists, see ``TraceRecorder``),
    ``order_`` (n_steps,) the triplet index seen at each step, ``stream_seconds_`` (wall) and
    ``stream_cpu_seconds_`` (process CPU time) of the online steps.
    """

    name = "OASIS"  # its name in configs and tables (algorithms: found by this)

    def __init__(
        self,
        C=0.1,
        n_epochs=10,
        symmetrize=None,
        psd=None,
        sampling="uniform",
        block_size="auto",
        trace_loss="hinge",
        trace_losses=False,
        checkpoint_callback=None,
        preprocessor=None,
        random_state=None,
        verbose=False,
    ):
        self.C = C
        self.n_epochs = n_epochs
        self.symmetrize = symmetrize
        self.psd = psd
        self.sampling = sampling
        self.block_size = block_size
        self.trace_loss = trace_loss
        self.trace_losses = trace_losses
        self.checkpoint_callback = checkpoint_callback
        self.preprocessor = preprocessor
        self.random_state = random_state
        self.verbose = verbose

    def _terms(self, X, idx):
        """The step's terms [(A, Z, weight)] and ||V||_F^2 per triplet. Dense X: factor matrices
        (p, p+ - p-); sparse X: row indices into X, V = p p+^T - p p-^T (the engine's sparse loop
        then reads the points themselves)."""
        P = tuple_rows(X, idx[:, 0])  # gathered per block when large (base.tuple_rows)
        Dpn = tuple_rows(X, idx[:, 1], idx[:, 2])
        sqnorm = row_sqnorm(P) * row_sqnorm(Dpn)
        if sp.issparse(X):
            p, pos, neg = idx[:, 0], idx[:, 1], idx[:, 2]
            terms = [(p, pos, 1.0), (p, neg, -1.0)]
            if self.symmetrize == "step":
                terms = [(a, z, w / 2) for a, z, w in terms] + [(z, a, w / 2) for a, z, w in terms]
            return terms, sqnorm
        if self.symmetrize == "step":
            return [(P, Dpn, 0.5), (Dpn, P, 0.5)], sqnorm
        return [(P, Dpn, 1.0)], sqnorm

    def _check_params(self):
        if not self.C > 0:
            raise ValueError(f"C must be > 0, got {self.C}")
        if self.symmetrize not in (None, "step", "end"):
            raise ValueError(f"symmetrize must be None, 'step' or 'end', got {self.symmetrize!r}")
        psd_every = self.psd if isinstance(self.psd, (int, np.integer)) else None
        if not (self.psd in (None, "end") or (psd_every is not None and psd_every >= 1)):
            raise ValueError(f"psd must be None, 'end' or an int >= 1, got {self.psd!r}")
        if self.trace_loss not in ("hinge", "squared_hinge"):
            raise ValueError(
                f"trace_loss must be 'hinge' or 'squared_hinge', got {self.trace_loss!r}"
            )
        return psd_every

    def fit(self, triplets):
        """Learn W from W_0 = I: ``n_epochs`` * n steps (by default uniform draws with
        replacement, so not passes over every triplet), then the "end" projections."""
        for attr in ("W_", "_rng"):
            self.__dict__.pop(attr, None)
        self.partial_fit(triplets)
        if self.symmetrize == "end":
            self.W_ = symmetric_part(self.W_)
        if self.psd is not None:
            self.W_ = project_psd(self.W_)
        return self

    def partial_fit(self, triplets):
        """Continue from the current W (W_0 = I the first time) with ``n_epochs`` * n steps on
        these triplets (drawn by ``sampling``); per-step projections apply, "end" projections are
        left to ``fit``. ``trace_`` and ``order_`` describe this call's steps."""
        psd_every = self._check_params()
        X, idx = self._points(triplets, 3, "triplets")
        terms, sqnorm = self._terms(X, idx)
        if not hasattr(self, "W_"):
            self.W_ = np.eye(X.shape[1])
        if getattr(self, "_rng", None) is None:
            self._rng = np.random.default_rng(self.random_state)

        def to_psd(W):
            W[:] = project_psd(W)

        def at_checkpoint(t):
            return self.checkpoint_callback(t, self.W_)

        n_steps = max(int(round(self.n_epochs * len(idx))), 1)
        self._stream(
            self.W_,
            terms,
            len(idx),
            n_steps,
            oasis_step,
            self._rng,
            at_checkpoint if self.checkpoint_callback is not None else None,
            hook=to_psd if psd_every else None,
            hook_at=np.arange(psd_every, n_steps + 1, psd_every) if psd_every else (),
            par=[float(self.C)],
            state=np.asarray(sqnorm, dtype=np.float64).reshape(-1, 1),
            points=X if sp.issparse(X) else None,
        )
        return self


class DissimOASIS(OASIS):
    """Dissim-OASIS: OASIS's passive-aggressive steps on a dissimilarity
    d_W(p, q) = (p - q)^T W (p - q) (see the module docstring); same parameters as OASIS.
    Scores rank by -d_W (computed from the symmetric part of W, which d_W only depends on)."""

    name = "Dissim-OASIS"  # its name in configs and tables (algorithms: found by this)

    def _terms(self, X, idx):
        Dn = tuple_rows(X, idx[:, 0], idx[:, 2])  # d_W(p, p-) must exceed d_W(p, p+) by 1
        Dp = tuple_rows(X, idx[:, 0], idx[:, 1])
        sqnorm = row_sqnorm(Dn) ** 2 + row_sqnorm(Dp) ** 2 - 2 * row_dot(Dn, Dp) ** 2
        if sp.issparse(X):  # Dn Dn^T - Dp Dp^T in the points p, p+ (q), p- (r): pp^T cancels
            p, q, r = idx[:, 0], idx[:, 1], idx[:, 2]
            pairs = [
                (p, r, -1.0),
                (r, p, -1.0),
                (r, r, 1.0),
                (p, q, 1.0),
                (q, p, 1.0),
                (q, q, -1.0),
            ]
            return pairs, sqnorm
        return [(Dn, Dn, 1.0), (Dp, Dp, -1.0)], sqnorm  # ||Dn Dn^T - Dp Dp^T||_F^2 above

    def _pair_score_points(self, A, B):
        D = A - B
        return -row_bilinear(D, self.W_, D)

    def similarity_matrix(self, X, Y) -> np.ndarray:
        """(n_x, n_y) matrix of -d_W(x, y)."""
        self._check_fitted()
        Ws = symmetric_part(self.W_)
        X = dense(self._ranked_points(X, "queries"))
        Y = dense(self._ranked_points(Y, "database"))
        qx = np.einsum("id,de,ie->i", X, Ws, X)
        qy = np.einsum("id,de,ie->i", Y, Ws, Y)
        return -(qx[:, None] + qy[None, :] - 2 * X @ Ws @ Y.T)
