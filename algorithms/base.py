"""Shared base classes of the learners: input handling, scoring API, and the online loop.

API (compatible with metric-learn, see ``../shared/DESIGN.md``):

* constructor: hyperparameters only (paper symbols in the docstrings), ``preprocessor``,
  ``random_state``, ``verbose``; fitted attributes end in ``_``; the RNG is made in ``fit``.
* constraints are either arrays of points, (n, 3, d) triplets / (n, 2, d) pairs, or int index
  arrays (n, 3) / (n, 2) into ``preprocessor`` (an (n_samples, d) array). Triplet rows are
  (anchor, positive, negative).
* ``pair_score`` (higher = more similar), ``decision_function`` = s(a, p) - s(a, n),
  ``predict`` in {-1, +1}, ``score`` = triplet accuracy, ``similarity_matrix`` for ranking.
* each learner says which constraints it learns from in ``constraint_kind``: "triplets",
  "pairs" (with +1/-1 labels), "chunklets" (RCA) or "labels" (LMNN, supervised).

Errors, shared by every learner: scoring an unfitted model raises scikit-learn's
``NotFittedError``; unusable data (NaN or inf, no constraint, every point the same vector) raises
:class:`~datasets.base.DataError` naming the problem; a hyperparameter shared by several learners
that is out of range (``block_size < 1``, negative ``n_epochs``, ``n_passes <= 0``, an unknown
``sampling``) or a string where a number belongs raises ``ValueError`` / ``TypeError`` naming the
hyperparameter (:meth:`BaseLearner._check_common_params`, run at fit and by the config check).
"""

from __future__ import annotations

import inspect
import numbers
import time

import numpy as np
import scipy.sparse as sp
from scipy.linalg.blas import dgemm as _dgemm
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted
from tqdm.auto import tqdm

from datasets.base import DataError


def row_bilinear(A, W, B) -> np.ndarray:
    """a_k^T W b_k for each row k of A and B ((n, d) arrays or CSR matrices); shape (n,)."""
    AW = A @ W
    if sp.issparse(B):
        return np.asarray(B.multiply(AW).sum(axis=1)).ravel()
    return np.einsum("kd,kd->k", np.asarray(AW), B)


def row_dot(A, B) -> np.ndarray:
    """a_k . b_k for each row of A and B (arrays or CSR); shape (n,)."""
    if sp.issparse(A) or sp.issparse(B):
        return np.asarray(sp.csr_matrix(A).multiply(B).sum(axis=1)).ravel()
    return np.einsum("kd,kd->k", A, B)


def row_sqnorm(A) -> np.ndarray:
    """||a_k||^2 for each row of A (array or CSR); shape (n,)."""
    return row_dot(A, A)


def dense(X) -> np.ndarray:
    """X as a dense float64 array (from an array or a scipy.sparse matrix)."""
    return X.toarray() if sp.issparse(X) else np.asarray(X, dtype=np.float64)


def weighted_outer_sum(A, c, Z) -> np.ndarray:
    """sum_k c_k a_k z_k^T = A^T diag(c) Z as a dense (d, d) array (A, Z arrays or CSR)."""
    if sp.issparse(A) or sp.issparse(Z):
        out = sp.csr_matrix(A).multiply(c[:, None]).T @ sp.csr_matrix(Z)
        return np.asarray(out.toarray())
    return (A * c[:, None]).T @ Z


def _as_points(constraints, preprocessor, arity: int, what: str):
    """(X, idx): a float64 point matrix (or CSR matrix) and an int (n, arity) index array into it."""
    if sp.issparse(preprocessor) and not sp.issparse(constraints):
        c = np.asarray(constraints)
        if not (c.ndim == 2 and c.shape[1] == arity and np.issubdtype(c.dtype, np.integer)):
            raise DataError(f"with a sparse preprocessor, {what} must be (n, {arity}) int indices")
        X = sp.csr_matrix(preprocessor, dtype=np.float64)
        X.sum_duplicates()
        if c.size and (c.min() < 0 or c.max() >= X.shape[0]):
            raise DataError(f"{what} indices out of range [0, {X.shape[0]})")
        if len(c) == 0:
            raise DataError(f"zero usable {what}")
        if not np.all(np.isfinite(X.data)):
            raise DataError(f"{what}: the points contain NaN or inf")
        return X, c
    c = np.asarray(constraints)
    if c.ndim == 3:
        if c.shape[1] != arity:
            raise DataError(f"{what} must have shape (n, {arity}, d), got {c.shape}")
        X = c.reshape(-1, c.shape[2]).astype(np.float64)
        idx = np.arange(len(X)).reshape(-1, arity)
    elif c.ndim == 2 and c.shape[1] == arity and np.issubdtype(c.dtype, np.integer):
        if preprocessor is None:
            raise DataError(f"{what} given as indices need preprocessor=X (the point matrix)")
        X = np.asarray(preprocessor, dtype=np.float64)
        if c.size and (c.min() < 0 or c.max() >= len(X)):
            raise DataError(f"{what} indices out of range [0, {len(X)})")
        idx = c
    else:
        raise DataError(
            f"{what} must be (n, {arity}, d) points or (n, {arity}) int indices, "
            f"got shape {c.shape} and dtype {c.dtype}"
        )
    if len(idx) == 0:
        raise DataError(f"zero usable {what}")
    if not np.all(np.isfinite(X)):
        raise DataError(f"{what}: the points contain NaN or inf")
    if _all_same_point(X, idx):
        raise DataError(
            f"{what}: every point they involve is the same vector (e.g. all-zero rows); "
            "they carry no distance information"
        )
    return X, idx


def _all_same_point(X, idx, chunk: int = 4096) -> bool:
    """True if every row of X that ``idx`` refers to equals the first one (dense X; checked in
    chunks, no copy of X)."""
    used = np.unique(idx)
    first = X[used[0]]
    for lo in range(0, len(used), chunk):
        if np.any(X[used[lo : lo + chunk]] != first):
            return False
    return True


def is_number(value) -> bool:
    """True for a real number (Python or NumPy int or float), False for bool, str, None, ..."""
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


class BaseLearner(BaseEstimator):
    """Common scoring API. Subclasses implement ``similarity_matrix`` and ``pair_score``."""

    constraint_kind = "triplets"
    _fitted_attributes = None  # what fit sets (checked before scoring); None: any name ending in _
    _zero_epochs_ok = True  # n_epochs = 0 leaves the model at its initialisation (OAHU-init)

    def __init_subclass__(cls, **kwargs):
        """A learner's own ``_check_params`` runs :meth:`_check_common_params` first, so that
        every learner (and the config check, which calls ``_check_params``) rejects a string where
        a number belongs, ``block_size < 1`` or negative epochs with the same clear message."""
        super().__init_subclass__(**kwargs)
        own = cls.__dict__.get("_check_params")
        if own is not None and not getattr(own, "_runs_common_checks", False):

            def _check_params(self, *args, _own=own, **kw):
                self._check_common_params()
                return _own(self, *args, **kw)

            _check_params.__doc__ = own.__doc__
            _check_params._runs_common_checks = True
            cls._check_params = _check_params

    def _points(self, constraints, arity, what):
        return _as_points(constraints, getattr(self, "preprocessor", None), arity, what)

    def _check_fitted(self):
        """Raise scikit-learn's ``NotFittedError`` if ``fit`` has not run."""
        check_is_fitted(self, self._fitted_attributes)

    def _check_common_params(self):
        """Check the hyperparameters several learners share, and the types of all of them.

        * a hyperparameter whose default is a number must be a number (not a string, a bool or
          None): ``TypeError`` naming it;
        * ``block_size``: an int >= 1 (the blocked engine would never advance with 0);
        * ``n_epochs``: a finite number >= 0 (> 0 for the bilinear learners, whose step count
          ``round(n_epochs * n)`` would silently become one step);
        * ``n_passes``: a finite number > 0;
        * ``sampling``: "uniform", "permutation" or "sequential".

        Raises ``ValueError`` naming the hyperparameter and its value. Learner-specific ranges are
        each learner's ``_check_params``."""
        name = type(self).__name__
        params = self.get_params(deep=False)
        defaults = {
            k: p.default
            for k, p in inspect.signature(type(self).__init__).parameters.items()
            if p.default is not inspect.Parameter.empty
        }
        for key, value in params.items():
            if is_number(defaults.get(key)) and not is_number(value):
                raise TypeError(
                    f"{name} hyperparameter {key} must be a number, got {value!r} "
                    f"({type(value).__name__})"
                )
        if "block_size" in params:
            b = params["block_size"]
            if not (isinstance(b, numbers.Integral) and not isinstance(b, bool) and b >= 1):
                raise ValueError(f"{name}: block_size must be an int >= 1, got {b!r}")
        if "n_epochs" in params:
            e = params["n_epochs"]
            low_ok = e >= 0 if self._zero_epochs_ok else e > 0
            if not (np.isfinite(e) and low_ok):
                bound = ">= 0" if self._zero_epochs_ok else "> 0"
                raise ValueError(f"{name}: n_epochs must be a finite number {bound}, got {e!r}")
        if "n_passes" in params:
            n = params["n_passes"]
            if not (np.isfinite(n) and n > 0):
                raise ValueError(f"{name}: n_passes must be a finite number > 0, got {n!r}")
        if "sampling" in params and params["sampling"] not in SAMPLINGS:
            raise ValueError(
                f"{name}: sampling must be one of {SAMPLINGS}, got {params['sampling']!r}"
            )

    def decision_function(self, triplets) -> np.ndarray:
        """s(anchor, positive) - s(anchor, negative) for each triplet; shape (n,)."""
        self._check_fitted()
        X, idx = self._points(triplets, 3, "triplets")
        return self._pair_score_points(X[idx[:, 0]], X[idx[:, 1]]) - self._pair_score_points(
            X[idx[:, 0]], X[idx[:, 2]]
        )

    def predict(self, triplets) -> np.ndarray:
        """+1 where the positive is more similar to the anchor than the negative, else -1."""
        return np.where(self.decision_function(triplets) > 0, 1, -1)

    def score(self, triplets) -> float:
        """Triplet accuracy: fraction of triplets ranked correctly (ties count as wrong)."""
        return float(np.mean(self.predict(triplets) == 1))

    def _labelled_pair_differences(self, pairs, y):
        """(X, x_i - x_j per pair, y as int array) for pair learners; checks y in {+1, -1}."""
        X, idx = self._points(pairs, 2, "pairs")
        y = np.asarray(y)
        if y.shape != (len(idx),) or not np.all(np.isin(y, (-1, 1))):
            raise ValueError("y must hold one label in {+1, -1} per pair")
        return X, X[idx[:, 0]] - X[idx[:, 1]], y

    def pair_score(self, pairs) -> np.ndarray:
        """Similarity of each pair, shape (n,); higher = more similar."""
        self._check_fitted()
        X, idx = self._points(pairs, 2, "pairs")
        return self._pair_score_points(X[idx[:, 0]], X[idx[:, 1]])


class BilinearMixin:
    """Bilinear similarity s_W(x, y) = x^T W y (OASIS, SDCA); fitted attribute ``W_`` (d, d)."""

    _fitted_attributes = "W_"
    _zero_epochs_ok = False

    def get_bilinear_matrix(self) -> np.ndarray:
        self._check_fitted()
        return self.W_

    def _stream(
        self,
        W,
        terms,
        n_constraints,
        n_steps,
        rule,
        generator,
        on_checkpoint=None,
        hook=None,
        hook_every=None,
    ):
        """Run ``n_steps`` online steps of :func:`bilinear_stream` on W with constraints drawn by
        ``self.sampling``; sets ``trace_``, ``n_steps_``, ``order_`` and ``stream_seconds_``."""
        self._check_common_params()
        order = sample_order(n_constraints, n_steps, generator, self.sampling)
        rec = TraceRecorder(n_steps, on_checkpoint, self.verbose, type(self).__name__)
        t_start = time.perf_counter()
        bilinear_stream(W, terms, order, rule, rec, self.block_size, hook, hook_every)
        self.stream_seconds_ = time.perf_counter() - t_start
        self.trace_, self.n_steps_, self.order_ = rec.trace, n_steps, order
        return W

    def _pair_score_points(self, A, B):
        return row_bilinear(A, self.W_, B)

    def similarity_matrix(self, X, Y) -> np.ndarray:
        """(n_x, n_y) matrix of x^T W y (X, Y arrays or CSR; the result is dense)."""
        self._check_fitted()
        return np.asarray(Y @ np.asarray(X @ self.W_).T).T


class MahalanobisMixin:
    """Mahalanobis distance d_M(x, y) = sqrt((x-y)^T M (x-y)); fitted attribute ``M_`` (d, d) PSD.

    The similarity used for ranking is -d_M^2 (same order as -d_M)."""

    _fitted_attributes = "M_"

    def get_mahalanobis_matrix(self) -> np.ndarray:
        self._check_fitted()
        return self.M_

    def components(self) -> np.ndarray:
        """L with L^T L = M (from the eigen-decomposition; negative eigenvalues clipped to 0)."""
        self._check_fitted()
        w, V = np.linalg.eigh((self.M_ + self.M_.T) / 2)
        return (V * np.sqrt(np.clip(w, 0, None))).T

    def transform(self, X) -> np.ndarray:
        """Map X (n, d) to L X so that Euclidean distances there are d_M."""
        return np.asarray(X) @ self.components().T

    def pair_distance(self, pairs) -> np.ndarray:
        """d_M of each pair, shape (n,)."""
        self._check_fitted()
        X, idx = self._points(pairs, 2, "pairs")
        D = X[idx[:, 0]] - X[idx[:, 1]]
        return np.sqrt(np.clip(np.einsum("ij,jk,ik->i", D, self.M_, D), 0, None))

    def _pair_score_points(self, A, B):
        D = A - B
        return -np.einsum("ij,jk,ik->i", D, self.M_, D)

    def similarity_matrix(self, X, Y) -> np.ndarray:
        """(len(X), len(Y)) matrix of -d_M(x, y)^2, float64.

        Computed as ||Lx||^2 + ||Ly||^2 - 2 (Lx)^T (Ly) by BLAS (scikit-learn's
        ``euclidean_distances``, negatives from rounding clipped to 0): 20-40 times faster than
        scipy's ``cdist`` at d = 784; differences from the direct sum are rounding (~1e-12
        relative)."""
        from sklearn.metrics.pairwise import euclidean_distances

        L = self.components()
        return -euclidean_distances(np.asarray(X) @ L.T, np.asarray(Y) @ L.T, squared=True)


def checkpoints(n_steps: int, per_decade: int = 10) -> np.ndarray:
    """Geometrically spaced steps 1..n_steps (about ``per_decade`` per factor 10, always n_steps);
    empty for n_steps = 0 (a learner left at its initialisation)."""
    if n_steps <= 0:
        return np.zeros(0, dtype=np.int64)
    n = max(int(np.ceil(per_decade * np.log10(max(n_steps, 1)))) + 1, 2)
    return np.unique(np.append(np.geomspace(1, n_steps, n).round().astype(np.int64), n_steps))


SAMPLINGS = ("uniform", "permutation", "sequential")


def sample_order(
    n_constraints: int, n_steps: int, generator: np.random.Generator, sampling: str
) -> np.ndarray:
    """Which constraint each of the ``n_steps`` online steps sees (int64, (n_steps,)).

    * "uniform": i.i.d. uniform with replacement (OASIS, SDCA's Algorithm 1);
    * "permutation": a fresh random permutation each pass;
    * "sequential": the constraints in their given order, pass after pass (a data stream).
    """
    if sampling == "uniform":
        return generator.integers(n_constraints, size=n_steps)
    if sampling == "permutation":
        passes = -(-n_steps // n_constraints)
        return np.concatenate([generator.permutation(n_constraints) for _ in range(passes)])[
            :n_steps
        ]
    if sampling == "sequential":
        return np.arange(n_steps) % n_constraints
    raise ValueError(f"unknown sampling {sampling!r}: 'uniform', 'permutation' or 'sequential'")


class TraceRecorder:
    """Cumulative online statistics at geometric checkpoints (``checkpoints(n_steps)``).

    ``record(t, loss, mistake, updated)`` is called once per step t = 1..n_steps with the loss
    and mistake of the constraint *before* its update and whether it changed the model. At each
    checkpoint the average cumulative loss, the online mistake rate and the constraint utilization
    (fraction of steps that changed the model) are stored, plus whatever ``on_checkpoint(t)``
    returns (a dict), called when the model is at its state after step t.
    """

    def __init__(self, n_steps, on_checkpoint=None, verbose=False, desc=""):
        self.marks = checkpoints(n_steps)
        self.on_checkpoint = on_checkpoint
        self.trace = {"step": [], "avg_cumulative_loss": [], "mistake_rate": [], "utilization": []}
        self._loss = self._mistakes = self._updates = 0.0
        self._next = 0
        self._bar = tqdm(
            total=n_steps, disable=not verbose, desc=desc, mininterval=1.0, leave=False
        )

    def next_mark(self, t: int) -> int:
        """The first checkpoint >= t."""
        return int(self.marks[np.searchsorted(self.marks, t)])

    def record(self, t, loss, mistake, updated):
        self._loss += loss
        self._mistakes += mistake
        self._updates += updated
        if t == self.marks[self._next]:
            self._store(t, self._loss / t, self._mistakes / t, self._updates / t)

    def record_block(self, t0, t1, loss_sum, mistakes, updates):
        """Steps t0+1..t1 at once (sums of their losses, mistakes and updates); no checkpoint
        may lie inside the block except at t1 (as :func:`bilinear_stream` makes its blocks)."""
        self._loss += loss_sum
        self._mistakes += mistakes
        self._updates += updates
        if t1 == self.marks[self._next]:
            self._store(t1, self._loss / t1, self._mistakes / t1, self._updates / t1)
        elif self.marks[self._next] <= t1:
            raise AssertionError(f"checkpoint {self.marks[self._next]} inside block {t0}..{t1}")

    def record_state(self, t, stats):
        """For batch learners (one step = one block update): at a checkpoint t, store
        ``stats()`` = (loss, mistake_rate, utilization) of the current model over all
        constraints instead of online averages."""
        if t == self.marks[self._next]:
            self._store(t, *stats())

    def _store(self, t, loss, mistake_rate, utilization):
        tr = self.trace
        tr["step"].append(t)
        tr["avg_cumulative_loss"].append(loss)
        tr["mistake_rate"].append(mistake_rate)
        tr["utilization"].append(utilization)
        if self.on_checkpoint is not None:
            for k, v in self.on_checkpoint(t).items():
                tr.setdefault(k, []).append(v)
        self._next += 1
        self._bar.update(t - self._bar.n)
        if self._next == len(self.marks):
            self._bar.close()


def bilinear_stream(W, terms, order, rule, recorder, block_size=128, hook=None, hook_every=None):
    """Online steps on a matrix W whose updates are low rank in fixed vectors: the engine shared by
    OASIS (and its variants) and SDCA; each learner supplies only its ``rule``.

    ``terms`` is a list of (A_j, Z_j, w_j): A_j, Z_j (n, d) arrays (or CSR matrices) and a weight.
    Step t sees constraint i = order[t-1]; its margin is m = sum_j w_j a_ij^T W_{t-1} z_ij, and
    ``rule(i, t, m)`` returns (loss, mistake, c); then W_t = W_{t-1} + c sum_j w_j a_ij z_ij^T.
    (OASIS: one term (p, p+ - p-, 1); its symmetric variant two terms with weights 1/2.)

    Blocked exactly: the factors of a block of K steps are known in advance (they do not depend on
    W), so with W_0 the block's starting matrix
        m_k = sum_j w_j a_kj^T W_0 z_kj + sum_{s<k} c_s H[k, s],
        H[k, s] = sum_{j,j'} w_j w_j' (a_kj . a_sj')(z_sj' . z_kj),
    i.e. products (K x d)(d x d) for the first term plus a K x K correction, and the block's
    updates are applied as rank-K products. The iterates equal those of the one-at-a-time
    algorithm up to rounding (tested); the sequential work left is O(K) per step. Blocks end at
    the recorder's checkpoints (so ``on_checkpoint`` sees the current W) and after every
    ``hook_every``-th step, where ``hook(W)`` may change W in place (e.g. a PSD projection).

    Sparse factors take a sequential path whose cost per step is O(nnz(a) nnz(z)) per term,
    independent of d: the margin reads and the update writes only the entries of W it touches.

    W: (d, d) float64, updated in place. order: (T,) int. ``block_size``: int >= 1 (else
    ``ValueError``: with 0 the loop would never advance). Returns W.
    """
    if not (isinstance(block_size, numbers.Integral) and not isinstance(block_size, bool)):
        raise ValueError(f"block_size must be an int >= 1, got {block_size!r}")
    if block_size < 1:
        raise ValueError(f"block_size must be an int >= 1, got {block_size!r}")
    if any(sp.issparse(A) or sp.issparse(Z) for A, Z, _ in terms):
        terms = [(sp.csr_matrix(A), sp.csr_matrix(Z), w) for A, Z, w in terms]
        return _bilinear_stream_sparse(W, terms, order, rule, recorder, hook, hook_every)
    if not (W.flags.c_contiguous and W.dtype == np.float64):
        raise ValueError("bilinear_stream needs a C-contiguous float64 W (it is updated in place)")
    T = len(order)
    t0 = 0
    while t0 < T:
        t1 = min(t0 + block_size, T, recorder.next_mark(t0 + 1))
        if hook_every:
            t1 = min(t1, (t0 // hook_every + 1) * hook_every)
        idx = order[t0:t1]
        blocks = [(A[idx], Z[idx], w) for A, Z, w in terms]
        base = sum(w * np.einsum("kd,kd->k", Ab @ W, Zb) for Ab, Zb, w in blocks)
        H = sum(
            w * w2 * (Ab @ Ab2.T) * (Zb @ Zb2.T) for Ab, Zb, w in blocks for Ab2, Zb2, w2 in blocks
        )
        coef = np.zeros(len(idx))
        loss_sum = mistakes = updates = 0.0
        for k, i in enumerate(idx.tolist()):
            loss, mistake, c = rule(i, t0 + k + 1, base[k])
            loss_sum += loss
            mistakes += mistake
            if c != 0.0:
                updates += 1.0
                coef[k] = c
                base[k + 1 :] += c * H[k, k + 1 :]  # H is symmetric: a contiguous row
        if updates:
            for Ab, Zb, w in blocks:
                # W += w Ab^T diag(coef) Zb, in place by BLAS (no d x d temporary): as W^T is
                # the Fortran-ordered view of W, this is W^T += w Zb^T (diag(coef) Ab).
                _dgemm(w, Zb.T, (Ab * coef[:, None]).T, beta=1.0, c=W.T, trans_b=1, overwrite_c=1)
        if hook_every and t1 % hook_every == 0:
            hook(W)
        recorder.record_block(t0, t1, loss_sum, mistakes, updates)
        t0 = t1
    return W


def _bilinear_stream_sparse(W, terms, order, rule, recorder, hook, hook_every):
    def row(M, i):
        lo, hi = M.indptr[i], M.indptr[i + 1]
        return M.indices[lo:hi], M.data[lo:hi]

    for t, i in enumerate(order.tolist(), start=1):
        parts = []
        margin = 0.0
        for A, Z, w in terms:
            (ia, va), (iz, vz) = row(A, i), row(Z, i)
            cell = np.ix_(ia, iz)
            margin += w * (va @ W[cell] @ vz)
            parts.append((cell, w * va, vz))
        loss, mistake, c = rule(i, t, margin)
        if c != 0.0:
            for cell, wva, vz in parts:
                W[cell] += c * np.outer(wva, vz)
        if hook_every and t % hook_every == 0:
            hook(W)
        recorder.record(t, loss, mistake, c != 0.0)
    return W


class OnlineMixin:
    """The plain loop shared by the online learners whose update is not rank one in fixed vectors
    (LEGO and the like); each learner supplies only its update rule.

    ``_online_loop(n_constraints, n_steps, step, generator, sampling)`` calls ``step(i, t)`` for
    t = 1..n_steps with constraint i drawn by ``sampling`` (see :func:`sample_order`). ``step``
    returns (loss, mistake, updated) for the constraint *before* its update; the trace ``trace_``
    is a :class:`TraceRecorder`'s.
    """

    def _online_loop(self, n_constraints, n_steps, step, generator, sampling, on_checkpoint=None):
        self._check_common_params()
        order = sample_order(n_constraints, n_steps, generator, sampling)
        rec = TraceRecorder(n_steps, on_checkpoint, self.verbose, type(self).__name__)
        for t, i in enumerate(order.tolist(), start=1):
            rec.record(t, *step(i, t))
        self.trace_ = rec.trace
        self.n_steps_ = n_steps
        return rec.trace
