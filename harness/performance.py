"""Speed and memory of the bilinear online learners (OASIS, SDCA), measured in one run.

Run by the ``performance`` Snakemake target (``results/tables/performance.{csv,md}``). Every
time is process CPU time (``time.process_time``: other processes on the machine do not move
it), one BLAS thread, the median of ``repeats`` runs, all in the same process. For each learner
and input (dense d in {16, 128, 297, 784}: 297 is the SDCA paper's Table 4 descriptor; sparse
d = 1,000 with 30 and 70 non-zeros per row, the OASIS paper's Caltech-256 vocabulary, and
d = 10,000 with 70, its web-scale vocabulary) it measures:

* triplets per CPU second of our learner's online steps (``stream_cpu_seconds_``: the engine
  :func:`tripletbench.algorithms.base.bilinear_stream`, blocked BLAS products for dense input, the compiled
  non-zero loop for CSR input), and beside it the whole ``fit()`` (input checks, the order of
  draws, SDCA's duality-gap certificate passes after the stream, the output), as a user meets
  it: ``fit_cpu_s`` and ``stream_share_of_fit``;
* against its own physical reference (``ratio_to_reference``):
  - dense: the one-core matrix-multiply rate (:func:`gemm_flops_per_s`) divided by the 4 d^2 flops
    a step needs (two d x d matrix-vector products), i.e. the fraction of the GEMM rate our
    useful flops reach; ``executed_fraction_of_gemm`` also counts the flops the blocked engine
    executes beyond those (its K x K Gram products, 4 K d per step);
  - sparse: a C-style loop over the non-zeros in the style of the authors' C core, compiled here
    by numba (:func:`reference_sparse_loop`; benchmark only), on the same triplets in the same
    order. Ours differs in one respect, its algorithm: it merges p+ and p- into one sorted
    sparse vector before it sweeps W (:func:`tripletbench.algorithms.kernels.sparse_steps`), where the
    reference sweeps each row of W twice, once for p+ and once for p-;
* two one-step-at-a-time peers on dense rows, named for what they are, and the speed-up over
  each: an ``np.outer`` loop (:func:`plain_oasis`, :func:`plain_sdca`: NumPy matrix-vector
  product, then ``W += step * np.outer(p, v)``, which allocates a d x d temporary per step), and a
  per-step BLAS loop (:func:`blas_oasis`, :func:`blas_sdca`: one ``dgemv`` and one in-place
  ``dger`` per step, the fastest plain loop; the fair peer);
* peak traced memory of the fit (``tracemalloc``, a separate run: tracing slows the loop);
* the largest relative difference between our final matrix and the reference's (sparse) or the
  per-step BLAS loop's (dense): the same W up to rounding.

:func:`extrapolate_web_scale` turns the sparse OASIS rate at d = 10,000 into the OASIS paper's
web-scale run (2.7 million images). Nothing here is a unit test: the numbers depend on the
machine. Equality of iterates is tested in ``tests/test_engine.py``.
"""

from __future__ import annotations

import functools
import time
import tracemalloc

import numpy as np
import pandas as pd
import scipy.sparse as sp
from threadpoolctl import threadpool_info, threadpool_limits

from tripletbench.algorithms.oasis import OASIS
from tripletbench.algorithms.sdca import SDCA


def single_threaded(fn):
    """Run ``fn`` with every BLAS/OpenMP pool limited to one thread (threadpoolctl), whatever the
    environment says: Snakemake exports OMP_NUM_THREADS = the job's ``threads`` to a job that
    reserves all cores, and the timings here are defined for one thread."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with threadpool_limits(limits=1):
            return fn(*args, **kwargs)

    return wrapper


def blas_threads() -> int:
    """The largest thread count among the loaded BLAS/OpenMP pools (1 inside ``single_threaded``)."""
    return max((p["num_threads"] for p in threadpool_info()), default=1)


def plain_oasis(P, D, order, C):
    """OASIS one step at a time on dense vectors (Chechik et al. 2010, eqs. 6-8), an ``np.outer``
    loop: the rank-one update through a d x d temporary per step; W0 = I."""
    W = np.eye(P.shape[1])
    for i in order:
        p, v = P[i], D[i]
        loss = 1.0 - p @ W @ v
        nrm = (p @ p) * (v @ v)
        if loss > 0 and nrm > 0:
            W += min(C, loss / nrm) * np.outer(p, v)
    return W


def plain_sdca(A, Z, order, lam):
    """SDCA one coordinate at a time on dense vectors (last iterate; see tripletbench.algorithms.sdca), an
    ``np.outer`` loop like :func:`plain_oasis`."""
    n = len(A)
    M, alpha = np.zeros((A.shape[1],) * 2), np.zeros(n)
    for i in order:
        a, z = A[i], Z[i]
        margin = a @ M @ z
        delta = max(-alpha[i], (1 - margin - alpha[i] / 2) / (0.5 + (a @ a) * (z @ z) / (lam * n)))
        alpha[i] += delta
        M += delta / (lam * n) * np.outer(a, z)
    return M


def blas_oasis(P, D, order, C):
    """OASIS one step at a time with one BLAS call per product (scipy.linalg.blas): ``dgemv``
    for W v, a dot product for the margin, ``dger`` for the rank-one update of a Fortran-ordered
    W in place; W0 = I. The same iterates as :func:`plain_oasis` up to rounding."""
    from scipy.linalg.blas import dgemv, dger

    W = np.asfortranarray(np.eye(P.shape[1]))
    for i in order:
        p, v = P[i], D[i]
        loss = 1.0 - p @ dgemv(1.0, W, v)
        nrm = (p @ p) * (v @ v)
        if loss > 0 and nrm > 0:
            W = dger(min(C, loss / nrm), p, v, a=W, overwrite_a=1)
    return W


def blas_sdca(A, Z, order, lam):
    """SDCA one coordinate at a time with ``dgemv`` + in-place ``dger`` per step (last iterate;
    the same iterates as :func:`plain_sdca` up to rounding)."""
    from scipy.linalg.blas import dgemv, dger

    n = len(A)
    M, alpha = np.asfortranarray(np.zeros((A.shape[1],) * 2)), np.zeros(n)
    for i in order:
        a, z = A[i], Z[i]
        margin = a @ dgemv(1.0, M, z)
        delta = max(-alpha[i], (1 - margin - alpha[i] / 2) / (0.5 + (a @ a) * (z @ z) / (lam * n)))
        alpha[i] += delta
        if delta != 0.0:
            M = dger(delta / (lam * n), a, z, a=M, overwrite_a=1)
    return M


def gemm_flops_per_s(n: int = 1024, repeats: int = 5) -> float:
    """Best observed rate of a dense n x n float64 matrix product in process CPU time (so that
    other processes on the machine do not move it), flops per second of CPU."""
    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(n, n)), rng.normal(size=(n, n))
    best = np.inf
    for _ in range(repeats):
        t = time.process_time()
        A @ B
        best = min(best, time.process_time() - t)
    return 2.0 * n**3 / best


def reference_sparse_loop(indptr, indices, data, trip, order, per_triplet, scalar, alpha, W, sdca):
    """The reference for sparse input: OASIS or SDCA as a plain loop over the non-zeros in the
    style of the authors' C core. Each step reads the margin m = p^T W p+ - p^T W p- entry by entry
    from the CSR rows of p, p+, p- (``trip`` (n, 3) rows of the points), then adds
    step * (p p+^T - p p-^T) on the same entries of W (d, d), in place:

    * OASIS (``sdca=False``; Chechik et al. 2009): step = min(C, (1 - m) / ||V||_F^2) where
      1 - m > 0; ``per_triplet`` = ||p||^2 ||p+ - p-||^2, ``scalar`` = C; W starts as I;
    * SDCA (``sdca=True``; Wu et al. 2014, Algorithm 1, last iterate): Delta alpha_i =
      max(-alpha_i, (1 - m - alpha_i / 2) / curvature_i), step = Delta alpha_i / (lambda n);
      ``per_triplet`` = curvature, ``scalar`` = lambda n; W and ``alpha`` (n,) start at 0.

    Compiled by numba (:func:`_reference`); benchmark only, not the learner."""
    for s in range(order.shape[0]):
        i = order[s]
        a, b, c = trip[i, 0], trip[i, 1], trip[i, 2]
        m = 0.0
        for u in range(indptr[a], indptr[a + 1]):
            r = indices[u]
            acc = 0.0
            for v in range(indptr[b], indptr[b + 1]):
                acc += W[r, indices[v]] * data[v]
            for v in range(indptr[c], indptr[c + 1]):
                acc -= W[r, indices[v]] * data[v]
            m += data[u] * acc
        step = 0.0
        if sdca:
            delta = max(-alpha[i], (1.0 - m - 0.5 * alpha[i]) / per_triplet[i])
            alpha[i] += delta
            step = delta / scalar
        elif 1.0 - m > 0.0 and per_triplet[i] > 0.0:
            step = min(scalar, (1.0 - m) / per_triplet[i])
        if step != 0.0:
            for u in range(indptr[a], indptr[a + 1]):
                r = indices[u]
                tp = step * data[u]
                for v in range(indptr[b], indptr[b + 1]):
                    W[r, indices[v]] += tp * data[v]
                for v in range(indptr[c], indptr[c + 1]):
                    W[r, indices[v]] -= tp * data[v]
    return W


_REFERENCE = {}


def _reference(fn):
    """``fn`` compiled by numba once per process (the compiled reference loop)."""
    if fn not in _REFERENCE:
        import numba

        _REFERENCE[fn] = numba.njit(nogil=True)(fn)
    return _REFERENCE[fn]


def synthetic(d: int, n_points: int, n_triplets: int, seed: int, nnz: int | None = None):
    """Random points (dense Gaussian, or CSR with ``nnz`` non-zeros per row) and index triplets
    with three distinct points each."""
    rng = np.random.default_rng(seed)
    if nnz is None:
        X = rng.normal(size=(n_points, d)) / np.sqrt(d)
    else:
        cols = np.stack([rng.choice(d, nnz, replace=False) for _ in range(n_points)])
        rows = np.repeat(np.arange(n_points), nnz)
        X = sp.csr_matrix(
            (np.abs(rng.normal(size=n_points * nnz)), (rows, cols.ravel())), shape=(n_points, d)
        )
        X = sp.csr_matrix(X.multiply(1.0 / np.sqrt(X.multiply(X).sum(1))))
    t = np.stack([rng.choice(n_points, 3, replace=False) for _ in range(n_triplets)])
    return X, t


def _factors(X, t):
    A, Z = X[t[:, 0]], X[t[:, 1]] - X[t[:, 2]]
    if sp.issparse(X):
        return A.toarray(), Z.toarray()
    return A, Z


def _cpu(fn, repeats):
    """(median process CPU seconds of ``repeats`` calls of fn(), the last call's result)."""
    times, out = [], None
    for _ in range(repeats):
        t = time.process_time()
        out = fn()
        times.append(time.process_time() - t)
    return float(np.median(times)), out


def _rel(W, ref) -> float:
    return float(np.abs(W - ref).max() / max(np.abs(ref).max(), 1e-300))


def _ours(make, t, repeats):
    """Median process CPU seconds of our online steps (``stream_cpu_seconds_``) and of the whole
    ``fit()`` call over ``repeats`` fits (after one untimed fit that compiles the kernels), the
    last model, the traced peak memory of one more fit (``tracemalloc``: a separate run, tracing
    slows the loop). Returns ``(stream_s, fit_s, model, peak_bytes)``."""
    make().fit(t[:10])
    stream, whole = [], []
    for _ in range(repeats):
        c0 = time.process_time()
        model = make().fit(t)
        whole.append(time.process_time() - c0)
        stream.append(model.stream_cpu_seconds_)
    tracemalloc.start()
    make().fit(t)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return float(np.median(stream)), float(np.median(whole)), model, peak


def _reference_run(name, X, t, order, C, lam):
    """The compiled sparse reference loop's final matrix for ``order`` (see the reference
    functions above)."""
    X = sp.csr_matrix(X)
    A, Z = X[t[:, 0]], X[t[:, 1]] - X[t[:, 2]]
    sq_a = np.asarray(A.multiply(A).sum(1)).ravel()
    sq_z = np.asarray(Z.multiply(Z).sum(1)).ravel()
    args = (X.indptr.astype(np.int64), X.indices.astype(np.int64), X.data, t.astype(np.int64))
    order = np.asarray(order, dtype=np.int64)
    d = X.shape[1]
    loop = _reference(reference_sparse_loop)
    if name == "OASIS":
        return loop(*args, order, sq_a * sq_z, C, np.zeros(0), np.eye(d), False)
    lam_n = lam * len(t)
    curvature = 0.5 + sq_a * sq_z / lam_n
    return loop(*args, order, curvature, lam_n, np.zeros(len(t)), np.zeros((d, d)), True)


def _learners(X, C, lam, block_size):
    """(name, a factory of our learner, its np.outer loop, its per-step BLAS loop) per learner."""
    return [
        (
            "OASIS",
            lambda: OASIS(C=C, n_epochs=1, block_size=block_size, preprocessor=X, random_state=0),
            lambda A, Z, o: plain_oasis(A, Z, o, C),
            lambda A, Z, o: blas_oasis(A, Z, o, C),
        ),
        (
            "SDCA",
            lambda: SDCA(
                lam=lam,
                n_epochs=1,
                output="last",
                average_from=0.0,
                block_size=block_size,
                preprocessor=X,
                random_state=0,
            ),
            lambda A, Z, o: plain_sdca(A, Z, o, lam),
            lambda A, Z, o: blas_sdca(A, Z, o, lam),
        ),
    ]


@single_threaded
def run(
    dense_dims=(16, 128, 297, 784),
    sparse=((1000, 30), (1000, 70), (10_000, 70)),
    n_triplets=10_000,
    n_points=2_000,
    C=0.1,
    lam=0.01,
    block_size="auto",
    repeats=3,
    log=print,
) -> pd.DataFrame:
    """The performance table (one row per learner and input); see the module docstring."""
    from tripletbench.algorithms.base import auto_block_size

    rate = gemm_flops_per_s()
    log(f"matrix multiply: {rate / 1e9:.1f} GFLOP/s of CPU ({blas_threads()} BLAS thread(s))")
    rows = []
    for d, nnz in [(d, None) for d in dense_dims] + [tuple(c) for c in sparse]:
        X, t = synthetic(d, n_points, n_triplets, seed=d + (nnz or 0), nnz=nnz)
        K = auto_block_size(d) if block_size == "auto" else block_size
        for name, make, plain, blas in _learners(X, C, lam, block_size):
            ours_s, fit_s, model, peak = _ours(make, t, repeats)
            r = {
                "learner": name,
                "input": "sparse" if nnz else "dense",
                "d": d,
                "nnz_per_row": nnz or d,
                "n_steps": n_triplets,
                "block_size": K if not nnz else np.nan,
                "triplets_per_s": n_triplets / ours_s,
                "gemm_gflops": rate / 1e9,
                "blas_threads": blas_threads(),
                "peak_traced_mb": peak / 2**20,
                "ours_cpu_s": ours_s,
                "fit_cpu_s": fit_s,
                "fit_triplets_per_s": n_triplets / fit_s,
                "stream_share_of_fit": ours_s / fit_s,
            }
            if nnz:
                _reference_run(name, X, t, model.order_[:10], C, lam)  # compile
                ref_s, W_ref = _cpu(
                    lambda: _reference_run(name, X, t, model.order_, C, lam), repeats
                )
                r.update(
                    {
                        "reference": "C-style loop (numba)",
                        "reference_triplets_per_s": n_triplets / ref_s,
                        "ratio_to_reference": ref_s / ours_s,
                        "max_rel_diff": _rel(model.W_, W_ref),
                        "reference_cpu_s": ref_s,
                    }
                )
            else:
                useful = 4.0 * d * d  # two (d x d) matrix-vector products per step, as BLAS
                executed = useful + 4.0 * K * d  # plus the block's two K x K Gram products
                A, Z = _factors(X, t)
                outer_s, _ = _cpu(lambda: plain(A, Z, model.order_), 1)
                blas_s, W_blas = _cpu(lambda: blas(A, Z, model.order_), 1)
                r.update(
                    {
                        "reference": "GEMM rate",
                        "reference_triplets_per_s": rate / useful,
                        "ratio_to_reference": (n_triplets / ours_s) / (rate / useful),
                        "executed_fraction_of_gemm": n_triplets * executed / ours_s / rate,
                        "np_outer_loop_triplets_per_s": n_triplets / outer_s,
                        "speedup_vs_np_outer_loop": outer_s / ours_s,
                        "blas_loop_triplets_per_s": n_triplets / blas_s,
                        "speedup_vs_blas_loop": blas_s / ours_s,
                        "max_rel_diff": _rel(model.W_, W_blas),
                        "reference_cpu_s": blas_s,
                    }
                )
            log(
                f"{name} {r['input']} d={d} nnz={r['nnz_per_row']}: "
                f"{r['triplets_per_s']:.0f} triplets/s, {r['ratio_to_reference']:.2f} x "
                f"{r['reference']}"
            )
            rows.append(r)
    cols = [
        "learner",
        "input",
        "d",
        "nnz_per_row",
        "n_steps",
        "block_size",
        "triplets_per_s",
        "fit_triplets_per_s",
        "stream_share_of_fit",
        "reference",
        "reference_triplets_per_s",
        "ratio_to_reference",
        "executed_fraction_of_gemm",
        "np_outer_loop_triplets_per_s",
        "speedup_vs_np_outer_loop",
        "blas_loop_triplets_per_s",
        "speedup_vs_blas_loop",
        "gemm_gflops",
        "blas_threads",
        "peak_traced_mb",
        "max_rel_diff",
        "ours_cpu_s",
        "fit_cpu_s",
        "reference_cpu_s",
    ]
    return pd.DataFrame(rows).reindex(columns=cols)


@single_threaded
def block_sizes(
    dense_dims=(16, 128, 297, 784),
    sizes=(16, 32, 64, 128),
    n_triplets=10_000,
    n_points=2_000,
    C=0.1,
    repeats=3,
    log=print,
) -> pd.DataFrame:
    """The dense engine's block-size sweep: the measurement behind
    :func:`tripletbench.algorithms.base.auto_block_size` (``performance_block_sizes.csv``).

    For every d in ``dense_dims`` (ints >= 1) and every block size K in ``sizes`` plus the one
    ``auto_block_size(d)`` picks: the process CPU seconds per online step of OASIS's stream
    (``stream_cpu_seconds_``, one pass over ``n_triplets`` triplets of :func:`synthetic` points,
    one BLAS thread). The repeats are interleaved (each repeat times every (d, K) once, so a
    change of machine load falls on every K alike) and the median is reported, after one untimed
    fit per d that compiles the kernels. OASIS only: SDCA runs the same engine with the same
    per-block work (in the measurement that set the rule, 2026-11-27, SDCA ranked the block sizes
    as OASIS did at every d, its times within 7% of OASIS's). The iterates do not depend on K
    (up to rounding: tests/test_engine.py).

    Beside each stream, in the same repeat, the engine's BLAS work of a block of K steps is timed
    on its own (:func:`_block_parts`, per step): gathering the block's rows, the two products
    with W that carry the 4 d^2 useful flops (margins (K x d)(d x d) and the rank-K update), and
    the two K x K Gram products that make the blocks exact; what the stream takes beyond these is
    the compiled sequential kernel and the Python per block. ``ceiling_useful_fraction`` is the
    useful share a step would reach if it cost nothing but these parts: the most any engine
    doing these products could get at this K.

    Returns one row per (d, K): ``d``, ``block_size``, ``auto`` (K is ``auto_block_size(d)``),
    ``stream_us_per_step`` (microseconds), ``useful_fraction_of_gemm`` (4 d^2 flops per step
    over the one-core GEMM rate), ``speedup_vs_auto`` (auto's time / this K's: > 1 means this K
    is faster than the automatic one), ``best`` (the fastest K of its d), ``gather_us_per_step``,
    ``products_us_per_step``, ``products_gflops`` (their 4 d^2 flops per step over their time),
    ``gram_us_per_step``, ``rest_us_per_step`` (the stream minus the three parts),
    ``ceiling_useful_fraction``, ``gemm_gflops``, ``n_steps``, ``repeats``. Raises
    ``ValueError`` for an empty ``sizes`` or ``dense_dims``."""
    from tripletbench.algorithms.base import auto_block_size

    if not len(dense_dims) or not len(sizes):
        raise ValueError("block_sizes: dense_dims and sizes must each name at least one value")
    rate = gemm_flops_per_s()
    data = {d: synthetic(d, n_points, n_triplets, seed=d) for d in dense_dims}
    plan = [(d, K) for d in dense_dims for K in sorted({*map(int, sizes), auto_block_size(d)})]

    def make(d, K):
        return OASIS(C=C, n_epochs=1, block_size=K, preprocessor=data[d][0], random_state=0)

    for d in dense_dims:
        make(d, auto_block_size(d)).fit(data[d][1][:10])  # compile
    factors = {d: _factors(*data[d]) for d in dense_dims}
    times = {key: [] for key in plan}
    parts = {key: [] for key in plan}
    for r in range(repeats):
        for d, K in plan:
            times[(d, K)].append(make(d, K).fit(data[d][1]).stream_cpu_seconds_ / n_triplets)
            parts[(d, K)].append(_block_parts(*factors[d], K, seed=r, n_steps=n_triplets))
        log(f"block sizes: repeat {r + 1} of {repeats} done")
    rows = []
    for d, K in plan:
        gather, products, gram = np.median(parts[(d, K)], axis=0)
        rows.append(
            {
                "d": d,
                "block_size": K,
                "auto": K == auto_block_size(d),
                "stream_us_per_step": 1e6 * float(np.median(times[(d, K)])),
                "gather_us_per_step": 1e6 * gather,
                "products_us_per_step": 1e6 * products,
                "gram_us_per_step": 1e6 * gram,
            }
        )
    df = pd.DataFrame(rows)
    step = df.stream_us_per_step * 1e-6
    useful = 4.0 * df.d**2
    df["useful_fraction_of_gemm"] = useful / rate / step
    auto_us = df[df.auto].set_index("d").stream_us_per_step
    df["speedup_vs_auto"] = df.d.map(auto_us) / df.stream_us_per_step
    df["best"] = df.stream_us_per_step == df.groupby("d").stream_us_per_step.transform("min")
    df["products_gflops"] = useful / df.products_us_per_step / 1e3
    timed = df.gather_us_per_step + df.products_us_per_step + df.gram_us_per_step
    df["rest_us_per_step"] = df.stream_us_per_step - timed
    df["ceiling_useful_fraction"] = useful / rate / (timed * 1e-6)
    df["gemm_gflops"] = rate / 1e9
    df["n_steps"] = n_triplets
    df["repeats"] = repeats
    return df


def _block_parts(A, Z, K: int, seed: int, n_steps: int) -> tuple:
    """Process CPU seconds per step of the dense engine's BLAS work on blocks of K steps
    (:func:`tripletbench.algorithms.base.bilinear_stream`): (gather, products, gram), each the
    total over ceil(n_steps / K) blocks of K random rows of the (n, d) factors A, Z divided by
    their steps, each part by the engine's own function. gather: the block's rows of A and Z
    (``_block_rows``); products: the margins' (K x d)(d x d) product and the in-place rank-K
    update of W (``_rank_k_update``); gram: the K x K matrix of A_b A_b^T and Z_b Z_b^T
    (``_block_gram``). The products run on the last 8 blocks gathered, in turn (in cache, as in
    the engine, which multiplies a block right after gathering it). One BLAS thread is the
    caller's (:func:`single_threaded`)."""
    from tripletbench.algorithms.base import _block_gram, _block_rows, _rank_k_update

    rng = np.random.default_rng(seed)
    n_blocks = -(-n_steps // K)
    blocks = [rng.integers(0, len(A), K) for _ in range(n_blocks)]
    rows = []
    t = time.process_time()
    for idx in blocks:
        rows = [*rows[-7:], (_block_rows(A, idx), _block_rows(Z, idx))]
    gather = time.process_time() - t
    W = np.eye(A.shape[1])
    coef = np.full(K, 1e-6)
    t = time.process_time()
    for b in range(n_blocks):
        Ab, Zb = rows[b % len(rows)]
        Ab @ W
        _rank_k_update(W, Ab, Zb, coef, 1.0)
    products = time.process_time() - t
    t = time.process_time()
    for b in range(n_blocks):
        Ab, Zb = rows[b % len(rows)]
        _block_gram(Ab, Zb, 1.0)
    gram = time.process_time() - t
    steps = n_blocks * K
    return gather / steps, products / steps, gram / steps


def extrapolate_web_scale(table: pd.DataFrame) -> dict:
    """The OASIS paper's web-scale run (Chechik et al. 2009, section 4.1: 2.7 million images,
    sparse bags of visual words with about 70 non-zeros; "more than two million images within
    three days on a single CPU") at our measured sparse OASIS rate: the number of steps in three
    CPU-days, and the CPU hours of one and of 100 steps per image. The paper does not state its
    step count, so no ratio to its time is claimed. Uses the sparse OASIS row with the largest d
    (d = 10,000 by default, the paper's vocabulary before its reduction to 1,000 for
    Caltech-256); empty dict when there is none."""
    rows = table[(table.learner == "OASIS") & (table.input == "sparse")]
    if rows.empty:
        return {}
    row = rows.sort_values(["d", "nnz_per_row"]).iloc[-1]
    rate = float(row.triplets_per_s)
    images = 2_700_000
    return {
        "d": int(row.d),
        "nnz_per_row": int(row.nnz_per_row),
        "triplets_per_cpu_s": rate,
        "steps_in_3_cpu_days": rate * 3 * 86_400,
        "cpu_hours_1_step_per_image": images / rate / 3600,
        "cpu_hours_100_steps_per_image": 100 * images / rate / 3600,
    }


def performance_learners(config: dict) -> list[str]:
    """Every learner the performance rule builds by name: OASIS, SDCA and those of
    :func:`other_methods` (the rule's settings cover their code)."""
    from .experiment import algorithm_of

    others = {algorithm_of(n, m) for n, m in other_methods(config).items()}
    return ["OASIS", "SDCA", *sorted(others - {"OASIS", "SDCA"})]


def other_methods(config: dict) -> dict:
    """The rows of SDCA Table 2 (``config["sdca_table2"]["methods"]``) that the performance table
    times with :func:`other_learners`: all but OASIS and SDCA, which :func:`run` measures. The
    performance rule takes them as params, so a changed setting of one of them reruns it."""
    methods = (config.get("sdca_table2") or {}).get("methods") or {}
    return {name: m for name, m in methods.items() if name not in ("OASIS", "SDCA")}


@single_threaded
def other_learners(
    methods: dict, d=16, n_points=2_000, n_classes=10, n_triplets=10_000, log=print
) -> pd.DataFrame:
    """Process CPU seconds per 10K triplets of every other learner's whole fit (``methods``: name
    -> fixed hyperparameters, e.g. the default config's), on synthetic labelled points (Gaussian
    classes), each given the same triplets through the harness's conversions; one BLAS thread,
    like :func:`run` (CPU time, so that other processes on the machine do not move it)."""
    from tripletbench.datasets.constraints import sample_class_triplets

    from .experiment import algorithm_of, fit_learner

    rng = np.random.default_rng(0)
    y = rng.integers(n_classes, size=n_points)
    X = rng.normal(size=(n_points, d)) + rng.normal(size=(n_classes, d))[y]
    t = sample_class_triplets(y, n_triplets, rng)
    rows = []
    for name, params in methods.items():
        _, timing = fit_learner(algorithm_of(name, params), params.get("fixed", {}), t, X, y, 0)
        rows.append(
            {
                "learner": name,
                "d": d,
                "n_triplets": n_triplets,
                "fit_cpu_s": timing["fit_cpu_s"],
                "cpu_s_per_10k_triplets": timing["fit_cpu_s"] * 10_000 / n_triplets,
                "settings": str(dict(params.get("fixed", {}))),
            }
        )
        log(f"{name}: {rows[-1]['cpu_s_per_10k_triplets']:.2f} CPU s per 10K triplets")
    cols = ["learner", "d", "n_triplets", "fit_cpu_s", "cpu_s_per_10k_triplets", "settings"]
    return pd.DataFrame(rows, columns=cols)  # the columns also when no other learner is timed
