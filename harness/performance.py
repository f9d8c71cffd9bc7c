"""Speed and memory of the bilinear online learners (OASIS, SDCA), measured in one run.

Run by the ``performance`` Snakemake target (``results/tables/performance.{csv,md}``). For each
learner and input (dense d in {16, 128, 784}; sparse d = 1000 with about 70 non-zeros per row)
it measures, in the same process and under the same BLAS thread setting:

* triplets per second of our learner's online steps (the exact blocked engine,
  ``bilinear_stream``; ``stream_seconds_``; the whole fit's time, which adds set-up and, for
  SDCA, the final duality-gap passes, is reported beside it);
* the same for a plain per-step NumPy implementation of the same update (:func:`plain_oasis`,
  :func:`plain_sdca`: one matrix-vector product and one rank-one update per step);
* the machine's matrix-multiply rate (``gemm_flops_per_s``) and from it the limit for an update
  of about 4 d^2 flops per triplet: limit = rate / (4 d^2) triplets per second;
* peak traced memory of the fit (``tracemalloc``, a separate run: tracing slows the loop);
* the largest relative difference between our final matrix and the plain implementation's.

Nothing here is a unit test: the numbers depend on the machine. Equality of iterates is tested
in ``tests/test_engine.py``.
"""

from __future__ import annotations

import functools
import time
import tracemalloc

import numpy as np
import pandas as pd
import scipy.sparse as sp
from threadpoolctl import threadpool_info, threadpool_limits

from algorithms.oasis import OASIS
from algorithms.sdca import SDCA


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
    """OASIS one step at a time on dense vectors (Chechik et al. 2010, eqs. 6-8); W0 = I."""
    W = np.eye(P.shape[1])
    for i in order:
        p, v = P[i], D[i]
        loss = 1.0 - p @ W @ v
        nrm = (p @ p) * (v @ v)
        if loss > 0 and nrm > 0:
            W += min(C, loss / nrm) * np.outer(p, v)
    return W


def plain_sdca(A, Z, order, lam):
    """SDCA one coordinate at a time on dense vectors (last iterate; see algorithms.sdca)."""
    n = len(A)
    M, alpha = np.zeros((A.shape[1],) * 2), np.zeros(n)
    for i in order:
        a, z = A[i], Z[i]
        margin = a @ M @ z
        delta = max(-alpha[i], (1 - margin - alpha[i] / 2) / (0.5 + (a @ a) * (z @ z) / (lam * n)))
        alpha[i] += delta
        M += delta / (lam * n) * np.outer(a, z)
    return M


def gemm_flops_per_s(n: int = 1024, repeats: int = 5) -> float:
    """Best observed rate of a dense n x n float64 matrix product, flops per second."""
    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(n, n)), rng.normal(size=(n, n))
    best = np.inf
    for _ in range(repeats):
        t = time.perf_counter()
        A @ B
        best = min(best, time.perf_counter() - t)
    return 2.0 * n**3 / best


def synthetic(d: int, n_points: int, n_triplets: int, seed: int, nnz: int | None = None):
    """Random points (dense Gaussian, or CSR with ``nnz`` non-zeros per row) and index triplets
    with three distinct points each."""
    rng = np.random.default_rng(seed)
    if nnz is None:
        X = rng.normal(size=(n_points, d)) / np.sqrt(d)
    else:
        cols = np.argsort(rng.random((n_points, d)), axis=1)[:, :nnz]
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


def measure(name, make, X, t, plain):
    """One row: our fit (timed, then traced for memory), the plain fit (timed), the difference."""
    model = make()
    t0 = time.perf_counter()
    model.fit(t)
    fit_s = time.perf_counter() - t0
    ours_s = model.stream_seconds_
    tracemalloc.start()
    make().fit(t)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    A, Z = _factors(X, t)
    t0 = time.perf_counter()
    W_plain = plain(A, Z, model.order_)
    plain_s = time.perf_counter() - t0
    W = model.W_
    rel = float(np.abs(W - W_plain).max() / max(np.abs(W_plain).max(), 1e-300))
    return {
        "learner": name,
        "ours_s": ours_s,
        "fit_s": fit_s,
        "plain_s": plain_s,
        "peak_traced_mb": peak / 2**20,
        "max_rel_diff": rel,
    }


@single_threaded
def run(
    dense_dims=(16, 128, 784),
    sparse=((1000, 70),),
    n_triplets=10_000,
    n_points=2_000,
    C=0.1,
    lam=0.01,
    block_size=128,
    log=print,
) -> pd.DataFrame:
    """The performance table (one row per learner and input); see the module docstring."""
    rate = gemm_flops_per_s()
    log(f"matrix multiply: {rate / 1e9:.1f} GFLOP/s ({blas_threads()} BLAS thread(s))")
    cases = [(d, None) for d in dense_dims] + list(sparse)
    rows = []
    for d, nnz in cases:
        X, t = synthetic(d, n_points, n_triplets, seed=d, nnz=nnz)

        specs = [
            (
                "OASIS",
                lambda X=X: OASIS(
                    C=C, n_epochs=1, block_size=block_size, preprocessor=X, random_state=0
                ),
                lambda A, Z, o: plain_oasis(A, Z, o, C),
            ),
            (
                "SDCA",
                lambda X=X: SDCA(
                    lam=lam,
                    n_epochs=1,
                    output="last",
                    average_from=0.0,
                    block_size=block_size,
                    trace_gap=False,
                    preprocessor=X,
                    random_state=0,
                ),
                lambda A, Z, o: plain_sdca(A, Z, o, lam),
            ),
        ]
        for name, make, plain in specs:
            r = measure(name, make, X, t, plain)
            limit = rate / (4.0 * d * d)
            r.update(
                {
                    "input": "sparse" if nnz else "dense",
                    "d": d,
                    "nnz_per_row": nnz or d,
                    "n_steps": n_triplets,
                    "triplets_per_s": n_triplets / r["ours_s"],
                    "plain_triplets_per_s": n_triplets / r["plain_s"],
                    "speedup_vs_plain": r["plain_s"] / r["ours_s"],
                    "gemm_gflops": rate / 1e9,
                    "blas_threads": blas_threads(),
                    "limit_triplets_per_s": limit,
                    "fraction_of_limit": (n_triplets / r["ours_s"]) / limit,
                }
            )
            log(
                f"{name} {r['input']} d={d}: {r['triplets_per_s']:.0f} triplets/s, "
                f"{r['speedup_vs_plain']:.1f}x plain, {r['fraction_of_limit']:.1%} of the GEMM limit"
            )
            rows.append(r)
    cols = [
        "learner",
        "input",
        "d",
        "nnz_per_row",
        "n_steps",
        "triplets_per_s",
        "plain_triplets_per_s",
        "speedup_vs_plain",
        "gemm_gflops",
        "blas_threads",
        "limit_triplets_per_s",
        "fraction_of_limit",
        "peak_traced_mb",
        "max_rel_diff",
        "ours_s",
        "fit_s",
        "plain_s",
    ]
    return pd.DataFrame(rows)[cols]


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
    """Seconds per 10K triplets of every other learner (``methods``: name -> fixed
    hyperparameters, e.g. the default config's), on synthetic labelled points (Gaussian classes),
    each given the same triplets through the harness's conversions."""
    from datasets.constraints import sample_class_triplets

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
                "fit_s": timing["fit_wall_s"],
                "s_per_10k_triplets": timing["fit_wall_s"] * 10_000 / n_triplets,
                "settings": str(params.get("fixed", {})),
            }
        )
        log(f"{name}: {rows[-1]['s_per_10k_triplets']:.2f} s per 10K triplets")
    return pd.DataFrame(rows)
