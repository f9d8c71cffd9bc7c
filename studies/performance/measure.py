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

import time
import tracemalloc

import numpy as np
import pandas as pd
import scipy.sparse as sp

from tripletbench.algorithms.oasis import OASIS
from tripletbench.algorithms.sdca import SDCA
from tripletbench.harness.timing import _cpu, blas_threads, gemm_flops_per_s, single_threaded

from .reference import (  # noqa: F401 -- the peers, importable from here as before
    _factors,
    _reference,
    blas_oasis,
    blas_sdca,
    plain_oasis,
    plain_sdca,
    reference_sparse_loop,
    synthetic,
)


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


COLUMNS = [
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
"""The columns of :func:`run`'s table, in order."""


def _sparse_reference(name, X, t, model, C, lam, ours_s, repeats) -> dict:
    """A sparse row's reference columns: the compiled C-style loop on the same triplets in the
    same order as our fit (after one short call that compiles it)."""
    n_triplets = len(t)
    _reference_run(name, X, t, model.order_[:10], C, lam)  # compile
    ref_s, W_ref = _cpu(lambda: _reference_run(name, X, t, model.order_, C, lam), repeats)
    return {
        "reference": "C-style loop (numba)",
        "reference_triplets_per_s": n_triplets / ref_s,
        "ratio_to_reference": ref_s / ours_s,
        "max_rel_diff": _rel(model.W_, W_ref),
        "reference_cpu_s": ref_s,
    }


def _dense_reference(X, t, d, model, plain, blas, K, rate, ours_s) -> dict:
    """A dense row's reference columns: the GEMM rate, and the np.outer and per-step BLAS loops
    on the same triplets in the same order as our fit."""
    n_triplets = len(t)
    useful = 4.0 * d * d  # two (d x d) matrix-vector products per step, as BLAS
    executed = useful + 4.0 * K * d  # plus the block's two K x K Gram products
    A, Z = _factors(X, t)
    outer_s, _ = _cpu(lambda: plain(A, Z, model.order_), 1)
    blas_s, W_blas = _cpu(lambda: blas(A, Z, model.order_), 1)
    return {
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


def _measure(learner, X, t, d, nnz, K, rate, C, lam, repeats) -> dict:
    """One row of :func:`run`'s table: our ``learner`` (name, factory, np.outer loop, per-step
    BLAS loop, as :func:`_learners` gives them) on points ``X`` (``d`` features, ``nnz``
    non-zeros per row or None: dense) and triplets ``t``."""
    name, make, plain, blas = learner
    n_triplets = len(t)
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
        r.update(_sparse_reference(name, X, t, model, C, lam, ours_s, repeats))
    else:
        r.update(_dense_reference(X, t, d, model, plain, blas, K, rate, ours_s))
    return r


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
    """The performance table (one row per learner and input, columns :data:`COLUMNS`); see the
    module docstring."""
    from tripletbench.algorithms.base import auto_block_size

    rate = gemm_flops_per_s()
    log(f"matrix multiply: {rate / 1e9:.1f} GFLOP/s of CPU ({blas_threads()} BLAS thread(s))")
    rows = []
    for d, nnz in [(d, None) for d in dense_dims] + [tuple(c) for c in sparse]:
        X, t = synthetic(d, n_points, n_triplets, seed=d + (nnz or 0), nnz=nnz)
        K = auto_block_size(d) if block_size == "auto" else block_size
        for learner in _learners(X, C, lam, block_size):
            r = _measure(learner, X, t, d, nnz, K, rate, C, lam, repeats)
            log(
                f"{r['learner']} {r['input']} d={d} nnz={r['nnz_per_row']}: "
                f"{r['triplets_per_s']:.0f} triplets/s, {r['ratio_to_reference']:.2f} x "
                f"{r['reference']}"
            )
            rows.append(r)
    return pd.DataFrame(rows).reindex(columns=COLUMNS)


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
    from tripletbench.harness.experiment import algorithm_of

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

    from tripletbench.harness.experiment import algorithm_of, fit_learner, row_params

    rng = np.random.default_rng(0)
    y = rng.integers(n_classes, size=n_points)
    X = rng.normal(size=(n_points, d)) + rng.normal(size=(n_classes, d))[y]
    t = sample_class_triplets(y, n_triplets, rng)
    rows = []
    for name, params in methods.items():
        _, timing = fit_learner(algorithm_of(name, params), row_params(params), t, X, y, 0)
        rows.append(
            {
                "learner": name,
                "d": d,
                "n_triplets": n_triplets,
                "fit_cpu_s": timing["fit_cpu_s"],
                "cpu_s_per_10k_triplets": timing["fit_cpu_s"] * 10_000 / n_triplets,
                "settings": str(row_params(params)),
            }
        )
        log(f"{name}: {rows[-1]['cpu_s_per_10k_triplets']:.2f} CPU s per 10K triplets")
    cols = ["learner", "d", "n_triplets", "fit_cpu_s", "cpu_s_per_10k_triplets", "settings"]
    return pd.DataFrame(rows, columns=cols)  # the columns also when no other learner is timed


from .blocks import block_sizes  # noqa: E402,F401 -- the block-size sweep, as before
