"""The online loops' shared machinery: which constraint each step sees, the trace of the online
statistics, and the engine of the bilinear learners (re-exported by
:mod:`tripletbench.algorithms.base`, whose mixins run it).

* :func:`sample_order` (``SAMPLINGS``) and :func:`checkpoints`: the stream of constraint indices
  and the geometric checkpoints of the trace;
* :class:`TraceRecorder`: the average cumulative loss, online mistake rate and constraint
  utilization at the checkpoints;
* :func:`bilinear_stream`: online steps on a matrix W whose updates are low rank in fixed
  vectors (OASIS and its variants, SDCA), exact blocks of K steps for dense factors
  (:func:`auto_block_size`) and a compiled sparse loop for CSR factors (the sequential parts in
  :mod:`tripletbench.algorithms.kernels`), run with one BLAS thread (:func:`one_blas_thread`).
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp
from scipy.linalg.blas import dgemm as _dgemm
from threadpoolctl import ThreadpoolController
from tqdm.auto import tqdm

from ._tuples import TupleRows, dense
from .kernels import as_float_array, dense_block_steps, jit, sparse_steps


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

    def __init__(self, n_steps, on_checkpoint=None, verbose=False, desc="", keep_sums=False):
        self.marks = checkpoints(n_steps)
        self.on_checkpoint = on_checkpoint
        self.keep_sums = keep_sums
        self.trace = {"step": [], "avg_cumulative_loss": [], "mistake_rate": [], "utilization": []}
        self._loss = self._mistakes = self._updates = 0.0
        self._sums = {}
        self._next = 0
        # the average rate since the clock restarted (smoothing=0) after the first update, whose
        # time holds the compilation of the compiled loops (or numba's cache load): the rate and
        # the time left are then those of the steps alone; left at 100% when done
        self._bar = tqdm(
            total=n_steps, disable=not verbose, desc=desc, mininterval=1.0, smoothing=0
        )
        self._clock_restarted = False

    def next_mark(self, t: int) -> int:
        """The first checkpoint >= t."""
        return int(self.marks[np.searchsorted(self.marks, t)])

    def progress(self, t: int) -> None:
        """Steps 1..t are done: the bar moves to t (tqdm prints at most once a second)."""
        if not self._clock_restarted:
            self._clock_restarted = True
            self._bar.reset(total=self._bar.total)  # the clock from here: compilation left out
        if t > self._bar.n:
            self._bar.update(t - self._bar.n)
        if t >= self._bar.total:
            self._bar.close()

    def record(self, t, loss, mistake, updated):
        self._loss += loss
        self._mistakes += mistake
        self._updates += updated
        if t == self.marks[self._next]:
            self._store(t, self._loss / t, self._mistakes / t, self._updates / t)
        else:
            self.progress(t)

    def record_block(self, t0, t1, loss_sum, mistakes, updates, sums=None):
        """Steps t0+1..t1 at once (sums of their losses, mistakes and updates); no checkpoint
        may lie inside the block except at t1 (as :func:`bilinear_stream` makes its blocks).
        ``sums``: further per-step quantities (name -> their sum over the block); with
        ``keep_sums`` the trace records ``avg_cumulative_<name>`` (average over steps 1..t) at each
        checkpoint."""
        for name, value in (sums or {}).items():
            self._sums[name] = self._sums.get(name, 0.0) + value
        self._loss += loss_sum
        self._mistakes += mistakes
        self._updates += updates
        if t1 == self.marks[self._next]:
            self._store(t1, self._loss / t1, self._mistakes / t1, self._updates / t1)
        elif self.marks[self._next] <= t1:
            raise AssertionError(f"checkpoint {self.marks[self._next]} inside block {t0}..{t1}")
        else:
            self.progress(t1)

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
        if self.keep_sums:
            for name, total in self._sums.items():
                tr.setdefault(f"avg_cumulative_{name}", []).append(total / t)
        if self.on_checkpoint is not None:
            for k, v in self.on_checkpoint(t).items():
                tr.setdefault(k, []).append(v)
        self._next += 1
        self.progress(t)


def auto_block_size(d: int) -> int:
    """The block size K of the dense engine for dimension d (``block_size="auto"``): 64 for every d.

    A block of K steps costs 4 d^2 flops per step in two (K x d)(d x d) BLAS products, 2 K d in
    the block's Gram matrices, O(K) sequential work per step and a fixed Python and BLAS-call
    cost per block; a larger K spreads the fixed cost over more steps and lets BLAS reach its
    rate. Measured by the ``performance`` target's block-size sweep
    (:func:`tripletbench.harness.performance.block_sizes`, ``tables/performance_block_sizes.csv``:
    OASIS's stream, one BLAS thread, process CPU time, interleaved medians of 3; 2026-11-27 on a
    2-core machine with a 60 GFLOP/s one-core GEMM, a second job running beside it): K = 64 was
    the fastest of the K measured (8 to 64 at d = 16, 32, 64; 32 to 256 at d = 16, 64, 128, 297,
    784), or within 2% of it (K = 128 at d = 784), at every d. The rule before,
    min(64, max(16, d // 4)), shrank K with d because the Gram cost 2 K d grows relative to
    4 d^2; the fixed cost per block outweighs it: at d = 16 its K = 16 took 2.2x the time per step
    of K = 64, at d = 128 its K = 32 1.08x. ``d`` stays an argument so that a later measurement
    can make K depend on it again. The iterates do not depend on K (up to rounding)."""
    return 64


def _block_size(block_size, d: int) -> int:
    if isinstance(block_size, str) and block_size == "auto":
        return auto_block_size(d)
    if not (isinstance(block_size, numbers.Integral) and not isinstance(block_size, bool)):
        raise ValueError(f"block_size must be an int >= 1 or 'auto', got {block_size!r}")
    if block_size < 1:
        raise ValueError(f"block_size must be an int >= 1 or 'auto', got {block_size!r}")
    return int(block_size)


_BLAS = []  # the threadpoolctl controller of the loaded BLAS libraries, made on first use


def one_blas_thread():
    """Context manager: every loaded BLAS limited to one thread (threadpoolctl) inside it.

    The rule for the shared online loops (:func:`bilinear_stream`,
    :meth:`OnlineMixin._online_loop`): a loop of many small, dependent BLAS calls runs
    single-threaded. NumPy and SciPy each load their own OpenBLAS, each with a pool of one
    thread per core; a loop that alternates between them (the engine's margins by NumPy, its
    in-place rank-K update by SciPy's ``dgemm``; LEGO's ``dsymv`` / ``dsyr`` beside NumPy) makes
    the two pools' waiting threads compete for the cores. Measured with 2 BLAS threads on this
    project's 2-core machine: SDCA, 20,000 triplets at d = 297, 43 s wall and 86 s CPU against
    1.8 s with one thread; 230 s instead of about 30 s per validation fit in the Table 4 scale
    run; LEGO at d = 784, 8 ms per step instead of 0.2 ms. A Snakemake job with ``threads: N``
    gets OMP_NUM_THREADS = N, so the whole-node rules would otherwise run the loops with N
    threads.

    The libraries are found once per process (a ``ThreadpoolController``, made on first use:
    NumPy's and SciPy's BLAS, which this module imports, are loaded by then); entering and
    leaving the limit then costs about 9 us instead of the 2.3 ms of a fresh
    ``threadpool_limits``, which a ``partial_fit`` per constraint would pay at every call."""
    if not _BLAS:
        _BLAS.append(ThreadpoolController())
    return _BLAS[0].limit(limits=1, user_api="blas")


def bilinear_stream(
    W,
    terms,
    order,
    rule,
    recorder,
    block_size="auto",
    hook=None,
    hook_at=(),
    par=(),
    state=None,
    trace_loss="hinge",
    compiled=True,
    points=None,
):
    """Online steps on a matrix W whose updates are low rank in fixed vectors: the engine shared by
    OASIS (and its variants) and SDCA; each learner supplies only its ``rule``.

    ``terms`` is a list of (A_j, Z_j, w_j): A_j, Z_j (n, d) arrays (or CSR matrices) and a weight;
    with ``points`` (an (N, d) array or CSR matrix), A_j and Z_j may instead be (n,) int arrays of
    row indices into it (a_ij = points[A_j[i]]): the sparse loop then reads the points themselves.
    Step t sees constraint i = order[t-1]; its margin is m = sum_j w_j a_ij^T W_{t-1} z_ij, and
    ``c = rule(i, t, m, par, state)`` (a plain function, compiled by numba with the loop around
    it: see :mod:`tripletbench.algorithms.kernels`) gives W_t = W_{t-1} + c sum_j w_j a_ij z_ij^T.
    (OASIS: one term (p, p+ - p-, 1); its symmetric variant two terms with weights 1/2.)
    ``par`` (p,) and ``state`` (n, k) float64 are the rule's scalars and per-constraint state
    (``state`` is updated in place; a 1-D state is one column).

    Dense factors, blocked exactly: the factors of a block of K steps are known in advance (they
    do not depend on W), so with W_0 the block's starting matrix
        m_k = sum_j w_j a_kj^T W_0 z_kj + sum_{s<k} c_s H[k, s],
        H[k, s] = sum_{j,j'} w_j w_j' (a_kj . a_sj')(z_sj' . z_kj),
    i.e. products (K x d)(d x d) for the first term plus a K x K correction, and the block's
    updates are applied as rank-K products. The iterates equal those of the one-at-a-time
    algorithm up to rounding (tested); the sequential work left is O(K) per step, compiled.
    ``block_size``: an int K >= 1 or "auto" (:func:`auto_block_size` of d).

    Sparse (CSR) factors: each step reads and writes only the entries of W in
    nnz(a_ij) x nnz(z_ij) (compiled loop, :func:`tripletbench.algorithms.kernels.sparse_steps`): cost
    O(sum_j nnz(a_ij) nnz(z_ij)) per step, independent of d; the same iterates as the dense path.

    The steps are run in segments that end at the recorder's checkpoints (so ``on_checkpoint``
    sees the current W) and after each step of ``hook_at`` (sorted ints), where ``hook(W)`` may
    change W in place (a PSD projection) or record the learner's state. The trace's
    ``avg_cumulative_loss`` is the hinge max(0, 1 - m) of each step's constraint before its update
    (``trace_loss="hinge"``) or its square ("squared_hinge"); the recorder also receives both
    (``hinge``, ``squared_hinge``). ``compiled=False`` runs the same kernels as plain Python (slow;
    for tests).

    The steps run with one BLAS thread (:func:`one_blas_thread`), whatever the environment says.

    W: (d, d) float64 C-contiguous, updated in place. order: (T,) int. Raises ``ValueError`` for a
    block size < 1 or another W. Returns W.
    """
    run_segment, T, K = _stream_setup(
        W, terms, order, rule, block_size, par, state, trace_loss, compiled, points
    )
    stride = K * max(1, -(-T // (PROGRESS_SEGMENTS * K)))
    hook_at = np.asarray(hook_at, dtype=np.int64)
    totals = np.zeros(4)
    with one_blas_thread():  # many small BLAS calls from two OpenBLAS pools
        t0 = 0
        while t0 < T:
            t_end = _segment_end(t0, T, recorder, hook, hook_at)
            before = totals.copy()
            # the segment in parts of at most ``stride`` steps, each followed by a progress
            # update: a multiple of the dense engine's block size from the segment's start, so
            # every block is the one of the unsplit segment (the iterates bit for bit the same;
            # the sparse loop adds its loss sums to ``totals`` once per part, which may move
            # the trace's averages in the last bit), recorded once, at the segment's end
            for t1 in range(t0 + stride, t_end + stride, stride):
                run_segment(t1 - stride, min(t1, t_end), totals)
                if min(t1, t_end) < t_end:
                    recorder.progress(t1)
            k = np.searchsorted(hook_at, t_end)
            if hook is not None and k < len(hook_at) and hook_at[k] == t_end:
                hook(W)
            _record_segment(recorder, t0, t_end, totals - before, trace_loss)
            t0 = t_end
    return W


def _stream_setup(W, terms, order, rule, block_size, par, state, trace_loss, compiled, points):
    """The checks and set-up of :func:`bilinear_stream` (its arguments, same names): returns
    (run_segment, T, K), T the number of steps, K the block size of the dense engine (1 for
    the sparse loop), and ``run_segment(t0, t1, totals)`` the function that
    runs steps t0+1..t1 and adds their hinge, squared hinge, mistakes and updates to ``totals``
    (4,): the compiled sparse loop on CSR factors (:func:`_sparse_terms`), else the exact blocks
    of :func:`_dense_segment`. Raises ``ValueError`` as :func:`bilinear_stream` says."""
    if not (W.flags.c_contiguous and W.dtype == np.float64):
        raise ValueError("bilinear_stream needs a C-contiguous float64 W (it is updated in place)")
    if trace_loss not in ("hinge", "squared_hinge"):
        raise ValueError(f"trace_loss must be 'hinge' or 'squared_hinge', got {trace_loss!r}")
    K = _block_size(block_size, W.shape[0])
    par = as_float_array(par).reshape(-1)
    n = terms[0][0].shape[0]
    state = as_float_array(np.zeros((n, 0)) if state is None else state)
    if state.ndim == 1:
        raise ValueError("state must be a 2-D (n, k) float64 array (updated in place)")
    order = np.ascontiguousarray(order, dtype=np.int64)

    def compiled_kernel(fn):
        return jit(fn) if compiled else fn

    rule_k = compiled_kernel(rule)
    if sp.issparse(points) or any(sp.issparse(A) or sp.issparse(Z) for A, Z, _ in terms):
        step = compiled_kernel(sparse_steps)
        sparse_args, scratch = _sparse_terms(terms, points, n)

        def run_segment(t0, t1, totals):
            step(W, *sparse_args, order, t0, t1, rule_k, par, state, totals, *scratch)

        K = 1  # one step at a time: any split leaves the iterates as they are

    else:
        block = compiled_kernel(dense_block_steps)
        terms = [(_rows(A, points), _rows(Z, points), w) for A, Z, w in terms]

        def run_segment(t0, t1, totals):
            _dense_segment(W, terms, order, t0, t1, K, block, rule_k, par, state, totals)

    return run_segment, len(order), K


PROGRESS_SEGMENTS = 100
"""A segment of the engine is at most 1/100 of the steps (rounded up to whole blocks), so that
its progress bar moves at least every 1% of the work between the geometric checkpoints."""


def _segment_end(t0, T, recorder, hook, hook_at):
    """The last step t1 of the segment that starts at step t0 + 1 (of T): the recorder's next
    checkpoint, or the next step of ``hook_at`` (sorted int64) before it when there is a
    ``hook``."""
    t1 = min(T, recorder.next_mark(t0 + 1))
    k = np.searchsorted(hook_at, t0 + 1)
    if hook is not None and k < len(hook_at):
        t1 = min(t1, int(hook_at[k]))
    return t1


def _record_segment(recorder, t0, t1, sums, trace_loss):
    """Steps t0+1..t1 into the recorder: ``sums`` (4,) their hinge, squared hinge, mistakes and
    updates; the trace's loss is the hinge or the squared hinge (``trace_loss``), both kept."""
    hinge, squared, mistakes, updates = sums
    recorder.record_block(
        t0,
        t1,
        hinge if trace_loss == "hinge" else squared,
        mistakes,
        updates,
        {"hinge": hinge, "squared_hinge": squared},
    )


def _rows(F, points):
    """A factor for the dense engine: a :class:`TupleRows` of dense points as it is (its blocks
    are gathered per block), else a dense float64 (n, d) array: F itself, or the rows of
    ``points`` it indexes."""
    if isinstance(F, TupleRows):
        return F if not sp.issparse(F.X) else dense(F[:])
    F = np.asarray(F)
    if F.ndim == 1:
        return dense(points[F])
    return np.asarray(F, dtype=np.float64)


def _sparse_terms(terms, points, n):
    """((ptr, ind, val, a_rows, z_rows, weights), (zc, zv, ze, zr)) for
    :func:`tripletbench.algorithms.kernels.sparse_steps`: one CSR matrix (sorted columns) holding ``points``
    (if given) and every factor given as a matrix, each term's rows in it, and the kernel's
    scratch for the merged z-rows."""
    blocks, a_rows, z_rows = [], [], []
    offset = 0
    if points is not None:
        blocks.append(sp.csr_matrix(points))
        offset = points.shape[0]
    for side, rows in ((0, a_rows), (1, z_rows)):
        for term in terms:
            F = term[side]
            if not sp.issparse(F) and np.asarray(F).ndim == 1:
                rows.append(np.asarray(F, dtype=np.int64))
            else:
                blocks.append(sp.csr_matrix(F))
                rows.append(offset + np.arange(n, dtype=np.int64))
                offset += n
    X = sp.csr_matrix(sp.vstack(blocks)) if len(blocks) > 1 else blocks[0].copy()
    X.sum_duplicates()
    X.sort_indices()  # the kernel's merge of z-rows sweeps W's rows in column order
    J = len(terms)
    # scratch of the merged z-rows: a group's merged vector is at most J rows long
    length = J * max(int(np.diff(X.indptr).max(initial=0)), 1)
    return (
        X.indptr.astype(np.int64),
        X.indices.astype(np.int64),
        np.ascontiguousarray(X.data, dtype=np.float64),
        np.ascontiguousarray(np.stack(a_rows, axis=1)),
        np.ascontiguousarray(np.stack(z_rows, axis=1)),
        np.array([w for _, _, w in terms], dtype=np.float64),
    ), (
        np.zeros((2 * J, length), dtype=np.int64),
        np.zeros((2 * J, length)),
        np.zeros(J, dtype=np.int64),
        np.zeros(J, dtype=np.int64),
    )


def _block_rows(F, idx):
    """Rows ``idx`` of a dense factor: ``np.take`` of an array (faster than fancy indexing for
    a block's few rows), the gathered rows of a :class:`TupleRows`."""
    return F[idx] if isinstance(F, TupleRows) else F.take(idx, axis=0)


def _block_gram(Ab, Zb, w):
    """A one-term block's K x K matrix H = ((w w) (Ab Ab^T)) * (Zb Zb^T) (see
    :func:`bilinear_stream`), built in place: the products of the general sum in
    :func:`_dense_segment`, bit for bit, without its temporaries (6% of a step at d = 128)."""
    H = Ab @ Ab.T
    if w != 1.0:
        H *= w * w
    H *= Zb @ Zb.T
    return H


def _rank_k_update(W, Ab, Zb, coef, w):
    """W += w Ab^T diag(coef) Zb, in place by BLAS (no d x d temporary): as W^T is the
    Fortran-ordered view of W, this is W^T += w Zb^T (diag(coef) Ab)."""
    _dgemm(w, Zb.T, (Ab * coef[:, None]).T, beta=1.0, c=W.T, trans_b=1, overwrite_c=1)


def _dense_segment(W, terms, order, t0, t1, K, block, rule, par, state, totals):
    """Steps t0+1..t1 of the dense engine in exact blocks of at most K steps (see
    :func:`bilinear_stream`); the products are BLAS, the sequential part ``block``."""
    for b0 in range(t0, t1, K):
        b1 = min(b0 + K, t1)
        idx = order[b0:b1]
        blocks = [(_block_rows(A, idx), _block_rows(Z, idx), w) for A, Z, w in terms]
        if len(blocks) == 1:
            Ab, Zb, w = blocks[0]
            base = w * np.einsum("kd,kd->k", Ab @ W, Zb)
            H = _block_gram(Ab, Zb, w)
        else:
            base = sum(w * np.einsum("kd,kd->k", Ab @ W, Zb) for Ab, Zb, w in blocks)
            H = sum(
                w * w2 * (Ab @ Ab2.T) * (Zb @ Zb2.T)
                for Ab, Zb, w in blocks
                for Ab2, Zb2, w2 in blocks
            )
        coef = np.zeros(len(idx))
        before = totals[3]
        block(base, H, idx, b0 + 1, rule, par, state, coef, totals)
        if totals[3] > before:
            for Ab, Zb, w in blocks:
                _rank_k_update(W, Ab, Zb, coef, w)
