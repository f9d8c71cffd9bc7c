"""The exact blocked engine (algorithms.base.bilinear_stream) against one-step-at-a-time
implementations of the same updates: same iterates after 10K steps, dense and sparse."""

import numpy as np
import pytest
import scipy.sparse as sp

from algorithms import OASIS, SDCA
from algorithms.base import TraceRecorder, bilinear_stream, checkpoints
from harness.performance import plain_oasis, plain_sdca, synthetic


def rel_diff(W, ref):
    return np.abs(W - ref).max() / np.abs(ref).max()


@pytest.mark.parametrize("nnz", [None, 8])
@pytest.mark.parametrize("block_size", [1, 7, 128])
def test_oasis_blocked_equals_one_step_at_a_time(nnz, block_size):
    X, t = synthetic(40, 300, 2000, seed=1, nnz=nnz)
    m = OASIS(C=0.1, n_epochs=5, block_size=block_size, preprocessor=X, random_state=2).fit(t)
    A, Z = X[t[:, 0]], X[t[:, 1]] - X[t[:, 2]]
    A, Z = (A.toarray(), Z.toarray()) if nnz else (A, Z)
    ref = plain_oasis(A, Z, m.order_, 0.1)
    assert len(m.order_) == 10_000
    assert rel_diff(m.W_, ref) < 1e-9
    assert 0.3 < m.trace_["utilization"][-1] <= 1.0  # the updates really happen


@pytest.mark.parametrize("nnz", [None, 8])
def test_sdca_blocked_equals_one_step_at_a_time(nnz):
    X, t = synthetic(30, 300, 2000, seed=3, nnz=nnz)
    m = SDCA(
        lam=0.01, n_epochs=5, output="last", block_size=64, preprocessor=X, random_state=4
    ).fit(t)
    A, Z = X[t[:, 0]], X[t[:, 1]] - X[t[:, 2]]
    A, Z = (A.toarray(), Z.toarray()) if nnz else (A, Z)
    assert rel_diff(m.W_, plain_sdca(A, Z, m.order_, 0.01)) < 1e-9


def test_blocks_end_at_checkpoints_so_callbacks_see_the_current_matrix():
    rng = np.random.default_rng(0)
    A, Z = rng.normal(size=(50, 4)), rng.normal(size=(50, 4))
    order = rng.integers(50, size=1000)
    W = np.zeros((4, 4))
    seen = {}

    def rule(i, t, margin):
        return 0.0, False, 0.01

    def snapshot(t):
        seen[t] = W.copy()
        return {}

    bilinear_stream(W, [(A, Z, 1.0)], order, rule, TraceRecorder(1000, snapshot), block_size=64)
    for t in checkpoints(1000):
        expected = 0.01 * (A[order[:t]].T @ Z[order[:t]])
        np.testing.assert_allclose(seen[t], expected, rtol=1e-12, atol=1e-14)


def test_sparse_input_scores_like_dense():
    X, t = synthetic(25, 100, 500, seed=5, nnz=5)
    a = OASIS(C=0.1, n_epochs=2, preprocessor=X, random_state=0).fit(t)
    b = OASIS(C=0.1, n_epochs=2, preprocessor=X.toarray(), random_state=0).fit(t)
    np.testing.assert_allclose(a.W_, b.W_, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(
        a.similarity_matrix(X[:7], X),
        b.similarity_matrix(X[:7].toarray(), X.toarray()),
        rtol=1e-10,
        atol=1e-12,
    )
    np.testing.assert_allclose(
        a.decision_function(t), b.decision_function(t), rtol=1e-10, atol=1e-12
    )
    assert sp.issparse(a.preprocessor)


def test_trace_at_checkpoints_equals_the_per_step_statistics():
    """The engine records one block at a time: the averages at each checkpoint must equal those
    computed step by step from the one-at-a-time algorithm."""
    X, t = synthetic(20, 200, 1500, seed=5)
    m = OASIS(C=0.1, n_epochs=2, block_size=128, preprocessor=X, random_state=6).fit(t)
    A, Z = X[t[:, 0]], X[t[:, 1]] - X[t[:, 2]]
    W = np.eye(20)
    losses, mistakes, updates = [], [], []
    for i in m.order_:
        margin = A[i] @ W @ Z[i]
        loss = max(0.0, 1.0 - margin)
        losses.append(loss)
        mistakes.append(margin <= 0)
        updates.append(loss > 0)
        if loss > 0:
            W += min(0.1, loss / ((A[i] @ A[i]) * (Z[i] @ Z[i]))) * np.outer(A[i], Z[i])
    steps = np.array(m.trace_["step"])
    np.testing.assert_array_equal(steps, checkpoints(3000))
    np.testing.assert_allclose(
        m.trace_["avg_cumulative_loss"], np.cumsum(losses)[steps - 1] / steps, rtol=1e-9
    )
    np.testing.assert_allclose(m.trace_["mistake_rate"], np.cumsum(mistakes)[steps - 1] / steps)
    np.testing.assert_allclose(m.trace_["utilization"], np.cumsum(updates)[steps - 1] / steps)
