"""The performance harness measures with one BLAS thread whatever the environment says."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_measurements_run_single_threaded_even_when_the_environment_asks_for_more():
    code = (
        "from tripletbench.studies.performance.measure import blas_threads, single_threaded, run\n"
        "outside = blas_threads()\n"
        "inside = single_threaded(blas_threads)()\n"
        "df = run(dense_dims=(8,), sparse=(), n_triplets=200, n_points=50, log=lambda *a: None)\n"
        "print(outside, inside, int(df.blas_threads.max()))\n"
    )
    env = {
        **os.environ,
        "OMP_NUM_THREADS": "2",
        "OPENBLAS_NUM_THREADS": "2",
    }
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True
    )
    outside, inside, in_table = map(int, out.stdout.split())
    assert outside == 2 and inside == 1 and in_table == 1


def test_no_other_learner_gives_an_empty_table_with_its_columns():
    """A config with the performance block alone (no SDCA Table 2 rows) times no other learner;
    the rule still merges and writes that table (it failed with KeyError 'learner')."""
    from tripletbench.studies.performance.measure import other_learners

    empty = other_learners({}, log=lambda *a: None)
    assert empty.empty and {"learner", "cpu_s_per_10k_triplets", "settings"} <= set(empty.columns)


def test_the_per_step_blas_loops_are_the_np_outer_loops_and_our_engine():
    """The performance table's two dense peers compute what our learners compute: the same
    final W as the np.outer loop and as the engine's fit on the same order (up to rounding)."""
    import numpy as np

    from tripletbench.algorithms.oasis import OASIS
    from tripletbench.algorithms.sdca import SDCA
    from tripletbench.studies.performance.measure import blas_oasis, blas_sdca, plain_oasis, plain_sdca, synthetic

    X, t = synthetic(12, 60, 400, seed=3)
    A, Z = X[t[:, 0]], X[t[:, 1]] - X[t[:, 2]]
    oasis = OASIS(C=0.1, n_epochs=1, preprocessor=X, random_state=0).fit(t)
    sdca = SDCA(lam=0.01, n_epochs=1, output="last", average_from=0.0, preprocessor=X,
                random_state=0).fit(t)  # fmt: skip
    for W_ours, blas, outer, par in [
        (oasis.W_, blas_oasis, plain_oasis, 0.1),
        (sdca.W_, blas_sdca, plain_sdca, 0.01),
    ]:
        order = (oasis if blas is blas_oasis else sdca).order_
        W_blas, W_outer = blas(A, Z, order, par), outer(A, Z, order, par)
        assert not np.allclose(W_blas, np.eye(12)) and not np.allclose(W_blas, 0)  # it learned
        np.testing.assert_allclose(W_blas, W_outer, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(W_blas, W_ours, rtol=1e-9, atol=1e-11)


def test_the_whole_fit_is_timed_beside_the_stream_in_cpu_time():
    from tripletbench.studies.performance.measure import run

    df = run(dense_dims=(8,), sparse=((50, 5),), n_triplets=300, n_points=40, repeats=1,
             log=lambda *a: None)  # fmt: skip
    assert (df.fit_cpu_s >= df.ours_cpu_s).all()  # the stream is part of the fit, same clock
    assert df.stream_share_of_fit.between(0, 1).all()
    dense, sparse = df[df.input == "dense"], df[df.input == "sparse"]
    assert dense.speedup_vs_blas_loop.notna().all() and dense.speedup_vs_np_outer_loop.notna().all()
    assert set(sparse.reference) == {"C-style loop (numba)"}
    assert (df.max_rel_diff < 1e-9).all()


def test_the_block_size_sweep_times_every_k_beside_the_automatic_one():
    """harness.performance.block_sizes: one row per (d, K), the automatic K added to the swept
    ones and marked, its speed-up over itself 1, a fastest K per d; empty input refused."""
    from tripletbench.algorithms.base import auto_block_size
    from tripletbench.studies.performance.measure import block_sizes

    df = block_sizes(dense_dims=(8, 20), sizes=(4, 16), n_triplets=200, n_points=40, repeats=2,
                     log=lambda *a: None)  # fmt: skip
    K = auto_block_size(8)
    plan = [[8, 4], [8, 16], [8, K], [20, 4], [20, 16], [20, K]]
    assert df[["d", "block_size"]].values.tolist() == plan
    auto = df[df.auto]
    assert auto.block_size.tolist() == [K, K] and (auto.speedup_vs_auto == 1).all()
    assert (df.groupby("d").best.sum() >= 1).all() and (df.stream_us_per_step > 0).all()
    useful = 4 * df.d**2 / (df.gemm_gflops * 1e9) / (df.stream_us_per_step * 1e-6)
    np.testing.assert_allclose(df.useful_fraction_of_gemm, useful)
    # the engine's BLAS parts beside each stream: what is left of the stream, and the ceiling
    parts = df[["gather_us_per_step", "products_us_per_step", "gram_us_per_step"]]
    assert (parts.values > 0).all()
    np.testing.assert_allclose(df.rest_us_per_step, df.stream_us_per_step - parts.sum(axis=1))
    ceiling = 4 * df.d**2 / (df.gemm_gflops * 1e9) / (parts.sum(axis=1) * 1e-6)
    np.testing.assert_allclose(df.ceiling_useful_fraction, ceiling)
    np.testing.assert_allclose(df.products_gflops, 4 * df.d**2 / df.products_us_per_step / 1e3)
    with pytest.raises(ValueError, match="at least one"):
        block_sizes(dense_dims=(8,), sizes=())
