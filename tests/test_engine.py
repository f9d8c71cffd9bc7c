"""The exact blocked engine (tripletbench.algorithms.base.bilinear_stream) against one-step-at-a-time
implementations of the same updates: same iterates after 10K steps, dense and sparse."""

import numpy as np
import pytest
import scipy.sparse as sp

from tripletbench.algorithms.base import TraceRecorder, bilinear_stream, checkpoints, dense
from tripletbench.algorithms.oasis import OASIS, DissimOASIS
from tripletbench.algorithms.sdca import SDCA
from tripletbench.studies.performance.measure import plain_oasis, plain_sdca, synthetic


def rel_diff(W, ref):
    return np.abs(W - ref).max() / np.abs(ref).max()


@pytest.mark.slow
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


@pytest.mark.slow
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

    def rule(i, t, margin, par, state):
        return 0.01

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


# compiled kernels, the sparse loop on the points, the block size chosen by d


def _stream_pair(sparse, compiled):
    """OASIS's step through bilinear_stream on the same triplets, dense factors or sparse points."""
    from tripletbench.algorithms.oasis import oasis_step

    X, t = synthetic(30, 200, 600, seed=11, nnz=6)
    A, Z = X[t[:, 0]], X[t[:, 1]] - X[t[:, 2]]
    sq = (np.asarray(A.multiply(A).sum(1)) * np.asarray(Z.multiply(Z).sum(1))).reshape(-1, 1)
    order = np.random.default_rng(0).integers(len(t), size=3000)
    if sparse:
        terms, points = [(t[:, 0], t[:, 1], 1.0), (t[:, 0], t[:, 2], -1.0)], X
    else:
        terms, points = [(A.toarray(), Z.toarray(), 1.0)], None
    W = np.eye(30)
    rec = TraceRecorder(len(order))
    bilinear_stream(
        W, terms, order, oasis_step, rec, 16, par=[0.1], state=sq, compiled=compiled, points=points
    )
    return W, rec.trace


@pytest.mark.parametrize("sparse", [False, True])
def test_compiled_kernels_equal_the_plain_python_kernels(sparse):
    """The numba-compiled loop runs the same arithmetic as the plain functions."""
    W_c, tr_c = _stream_pair(sparse, compiled=True)
    W_p, tr_p = _stream_pair(sparse, compiled=False)
    np.testing.assert_allclose(W_c, W_p, rtol=0, atol=1e-13)
    np.testing.assert_allclose(tr_c["avg_cumulative_loss"], tr_p["avg_cumulative_loss"], rtol=1e-13)
    assert tr_c["utilization"] == tr_p["utilization"]


def test_sparse_points_and_dense_factors_give_the_same_iterates():
    W_sparse, tr_sparse = _stream_pair(True, compiled=True)
    W_dense, tr_dense = _stream_pair(False, compiled=True)
    assert rel_diff(W_sparse, W_dense) < 1e-12
    assert tr_sparse["mistake_rate"] == tr_dense["mistake_rate"]


@pytest.mark.parametrize(
    "make",
    [
        lambda X: OASIS(C=0.1, n_epochs=3, preprocessor=X, random_state=1),
        lambda X: OASIS(C=0.1, n_epochs=3, symmetrize="step", preprocessor=X, random_state=1),
        lambda X: OASIS(C=0.1, n_epochs=3, psd=500, preprocessor=X, random_state=1),
        lambda X: DissimOASIS(C=0.1, n_epochs=3, preprocessor=X, random_state=1),
        lambda X: SDCA(lam=0.01, n_epochs=3, preprocessor=X, random_state=1),
        lambda X: SDCA(lam=0.01, n_epochs=3, output="random", preprocessor=X, random_state=1),
    ],
    ids=["OASIS", "OASIS-sym-step", "OASIS-psd-500", "Dissim-OASIS", "SDCA", "SDCA-random"],
)
def test_every_bilinear_learner_gives_the_same_matrix_on_sparse_and_dense_input(make):
    """The rule of the sparse engine: exact, the same W as the dense path to 1e-12."""
    X, t = synthetic(40, 300, 1500, seed=7, nnz=9)
    a, b = make(X).fit(t), make(X.toarray()).fit(t)
    assert rel_diff(a.W_, b.W_) < 1e-12
    np.testing.assert_array_equal(a.order_, b.order_)
    # the number of steps that changed the model, to one step: SDCA's step Delta alpha_i is 0
    # exactly when triplet i sits at its optimum, and rounding can leave 1e-17 there instead (at
    # block size 64 one of these 4,500 steps counts in one path and not in the other)
    steps = np.array(a.trace_["step"])
    updates_a, updates_b = (np.array(m.trace_["utilization"]) * steps for m in (a, b))
    np.testing.assert_allclose(updates_a, updates_b, rtol=0, atol=1 + 1e-9)


def test_the_iterates_do_not_depend_on_the_block_size_chosen_by_d():
    from tripletbench.algorithms.base import auto_block_size

    assert [auto_block_size(d) for d in (8, 128, 297, 784)] == [64] * 4  # the measured sweep
    X, t = synthetic(50, 300, 1000, seed=9)
    auto = OASIS(C=0.1, n_epochs=2, preprocessor=X, random_state=0).fit(t)
    one = OASIS(C=0.1, n_epochs=2, block_size=1, preprocessor=X, random_state=0).fit(t)
    assert auto.block_size == "auto" and rel_diff(auto.W_, one.W_) < 1e-12
    with pytest.raises(ValueError, match="block_size"):
        OASIS(block_size="big", preprocessor=X).fit(t)


def test_bilinear_similarity_blocks_are_c_ordered():
    """Ranking sorts each query's row: the score block must hold it contiguously."""
    X, t = synthetic(20, 100, 300, seed=2, nnz=5)
    for P in (X, X.toarray()):
        m = OASIS(n_epochs=1, preprocessor=P, random_state=0).fit(t)
        S = m.similarity_matrix(P[:7], P)
        assert S.shape == (7, 100) and S.flags.c_contiguous
        np.testing.assert_allclose(S, dense(P[:7]) @ m.W_ @ dense(P).T, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("compiled", [True, False])
def test_the_sparse_merge_of_z_rows_on_shared_columns_unsorted_and_empty_rows(compiled):
    """The sparse kernel merges the z-rows of the terms that share an a-row into one sorted
    vector before it sweeps W: checked against the dense engine on points whose rows overlap in
    most columns (so the merge adds entries), are stored with unsorted column indices, include an
    empty row, and terms in groups of one, three (a-row shared by three weighted z-rows) and a
    group that is interrupted by another a-row."""
    from tripletbench.algorithms.oasis import oasis_step

    rng = np.random.default_rng(3)
    d, N, n = 12, 40, 200
    dense_pts = np.where(rng.random((N, d)) < 0.5, rng.normal(size=(N, d)), 0.0)
    dense_pts[:, :3] = rng.normal(size=(N, 3))  # three columns shared by every row
    dense_pts[5] = 0.0  # an empty row
    pts = sp.csr_matrix(dense_pts)
    for r in range(N):  # each row's columns stored in reverse order: unsorted CSR
        lo, hi = pts.indptr[r], pts.indptr[r + 1]
        pts.indices[lo:hi], pts.data[lo:hi] = pts.indices[lo:hi][::-1], pts.data[lo:hi][::-1]
    pts.has_sorted_indices = False
    assert np.array_equal(pts.toarray(), dense_pts) and pts.indices[1] < pts.indices[0]
    idx = rng.integers(N, size=(n, 5))
    idx[:7, 1] = 5
    w = [1.0, -0.5, 0.25, 2.0, -1.0]
    a_cols = [0, 0, 0, 3, 0]  # a-rows: group {0, 1, 2}, then 3, then 0 again
    terms_sparse = [(idx[:, a], idx[:, j], w[j]) for j, a in enumerate(a_cols)]
    terms_dense = [(dense_pts[idx[:, a]], dense_pts[idx[:, j]], w[j]) for j, a in enumerate(a_cols)]
    state = np.full((n, 1), 4.0)  # OASIS's ||V||_F^2 replaced by a constant: any rule will do
    order = rng.integers(n, size=600)
    out = []
    for terms, points in ((terms_sparse, pts), (terms_dense, None)):
        W = np.zeros((d, d))
        rec = TraceRecorder(len(order))
        bilinear_stream(
            W,
            terms,
            order,
            oasis_step,
            rec,
            8,
            par=[0.001],
            state=state.copy(),
            compiled=compiled,
            points=points,
        )
        out.append((W, rec.trace))
    (W_s, tr_s), (W_d, tr_d) = out
    assert rel_diff(W_s, W_d) < 1e-12
    assert tr_s["utilization"] == tr_d["utilization"] and tr_s["utilization"][-1] > 0.1
    assert np.abs(W_s).max() > 0.1


# the rule: tuple factors above GATHER_ONCE_BYTES are gathered block by block (TupleRows)


@pytest.mark.parametrize(
    "make",
    [
        lambda X: OASIS(C=0.1, n_epochs=2, preprocessor=X, random_state=1),
        lambda X: OASIS(C=0.1, n_epochs=2, symmetrize="step", preprocessor=X, random_state=1),
        lambda X: DissimOASIS(C=0.1, n_epochs=2, preprocessor=X, random_state=1),
        lambda X: SDCA(lam=0.01, n_epochs=2, trace_gap=True, preprocessor=X, random_state=1),
        lambda X: SDCA(lam=0.01, n_epochs=2, output="random", preprocessor=X, random_state=1),
    ],
    ids=["OASIS", "OASIS-sym-step", "Dissim-OASIS", "SDCA-average-gap", "SDCA-random"],
)
def test_factors_gathered_per_block_give_the_same_model_as_gathered_once(make, monkeypatch):
    """Every bilinear learner on dense points: the factors gathered block by block (and the
    curvatures, primal and dual in chunks) give the same W, trace and dual as one gather."""
    import tripletbench.algorithms._tuples as tuples  # where the two sizes are read

    X, t = synthetic(20, 150, 700, seed=5)
    once = make(X).fit(t)
    monkeypatch.setattr(tuples, "GATHER_ONCE_BYTES", 0)
    monkeypatch.setattr(tuples, "TUPLE_CHUNK", 64)
    lazy = make(X).fit(t)
    assert rel_diff(lazy.W_, once.W_) < 1e-13
    assert lazy.trace_["utilization"] == once.trace_["utilization"]
    for attr in ("dual_", "primal_"):
        if hasattr(once, attr):
            assert getattr(lazy, attr) == pytest.approx(getattr(once, attr), rel=1e-12)


def test_a_large_oasis_fit_never_holds_its_factors(monkeypatch):
    """Traced peak of an OASIS fit whose factors exceed GATHER_ONCE_BYTES: below the size of one
    (n, d) factor (deterministic, not a timing)."""
    import tracemalloc

    import tripletbench.algorithms._tuples as tuples  # where the two sizes are read

    monkeypatch.setattr(tuples, "GATHER_ONCE_BYTES", 2**20)
    monkeypatch.setattr(tuples, "TUPLE_CHUNK", 2048)
    X, t = synthetic(40, 2_000, 1, seed=6)
    t = np.random.default_rng(6).integers(2_000, size=(200_000, 3))
    model = OASIS(C=0.1, n_epochs=0.01, preprocessor=X, random_state=0)
    OASIS(preprocessor=X).fit(t[:50])  # compiles the kernels (numba's own allocations) first
    tracemalloc.start()
    model.fit(t)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    factor = 200_000 * 40 * 8  # 64 MB
    assert peak < factor / 3, f"peak {peak / 2**20:.1f} MiB"


# the rule: the shared online loops run with one BLAS thread, whatever the environment asks for


@pytest.mark.parametrize("name", sorted(__import__("tripletbench.algorithms").algorithms.ALGORITHMS))
def test_the_shared_online_loops_run_with_one_blas_thread(name, monkeypatch):
    """Every learner whose fit runs a shared loop (``BilinearMixin._stream`` or
    ``OnlineMixin._online_loop``) takes its steps with one BLAS thread even when two are asked
    for (Snakemake gives a whole-node job OMP_NUM_THREADS = its threads): the thread count is
    read at each recorded step or block, inside the loop. (NumPy's and SciPy's two OpenBLAS pools
    alternating in such a loop made an SDCA fit 24x slower.) Other learners are not constrained."""
    from threadpoolctl import threadpool_info, threadpool_limits

    import tripletbench.algorithms.base as base
    from tripletbench.harness.experiment import fit_learner

    seen, loops = [], []

    def blas_threads():
        return max(p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas")

    for cls, attr in ((base.TraceRecorder, "record"), (base.TraceRecorder, "record_block")):
        original = getattr(cls, attr)
        monkeypatch.setattr(
            cls,
            attr,
            lambda self, *a, _f=original, **k: (seen.append(blas_threads()), _f(self, *a, **k))[1],
        )
    for cls, attr in ((base.BilinearMixin, "_stream"), (base.OnlineMixin, "_online_loop")):
        original = getattr(cls, attr)
        monkeypatch.setattr(
            cls, attr, lambda self, *a, _f=original, **k: (loops.append(1), _f(self, *a, **k))[1]
        )
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(4), 15)
    X = rng.normal(size=(60, 6)) + 3 * np.eye(6)[y]
    i = np.arange(60)
    triplets = np.column_stack([i, (i + 4) % 60, (i + 15) % 60])  # index triplets
    with threadpool_limits(2, user_api="blas"):
        asked = blas_threads()
        fit_learner(name, {}, triplets, X, y, 0, verbose=False)
    on_shared_loops = {
        "OASIS",
        "Dissim-OASIS",
        "SDCA",
        "LEGO",
        "RDML",
        "OPML",
        "ITML-online",
        "OAHU",
    }
    assert bool(loops) or name not in on_shared_loops  # the rule is exercised where it applies
    if loops:
        assert seen and set(seen) == {
            1
        }, f"{name}: {sorted(set(seen))} BLAS threads (asked {asked})"


def _spy_bars(monkeypatch):
    """The engine's progress bars, written to a buffer, with (n, total, elapsed, wall clock) at
    every update."""
    import io
    import time

    from tqdm.auto import tqdm

    import tripletbench.algorithms._stream as stream

    buf, updates = io.StringIO(), []

    class Spy(tqdm):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **{**kwargs, "file": buf})

        def update(self, n=1):
            out = super().update(n)
            if not self.disable:
                fd = self.format_dict
                updates.append((fd["n"], fd["total"], fd["elapsed"], time.perf_counter()))
            return out

    monkeypatch.setattr(stream, "tqdm", Spy)
    return buf, updates


def test_the_progress_bar_reaches_100_percent_and_its_time_left_is_within_2x(monkeypatch):
    """A fit of known length (OASIS, 300,000 dense steps, about 1 s after its compilation): the
    bar's rate leaves out the compilation (its clock restarts after the first step), it moves
    at least every 1% of the steps (not only at the geometric checkpoints), its time left after
    10% of the steps is within a factor 2 of the time the fit then took, and it ends at 100%."""
    import time

    from tripletbench.algorithms import LEGO, OASIS
    from tripletbench.datasets.constraints import sample_class_triplets

    buf, updates = _spy_bars(monkeypatch)
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(500, 100)), rng.integers(0, 5, 500)
    t = sample_class_triplets(y, 5000, rng)
    OASIS(random_state=0, preprocessor=X, n_epochs=60, verbose=True).fit(t)
    end = time.perf_counter()
    n, total, elapsed, now = next(u for u in updates if u[0] >= 0.1 * u[1])
    assert n <= 0.12 * total  # an update near 10%, not a checkpoint far past it
    left = (total - n) * elapsed / n  # tqdm's estimate (average rate since the restart)
    assert 0.5 <= left / (end - now) <= 2.0, (left, end - now)
    assert updates[-1][0] == total and "100%" in buf.getvalue().splitlines()[-1].split("\r")[-1]
    buf.truncate(0)
    LEGO(random_state=0, verbose=True).fit(X[t[:300, :2]], np.where(np.arange(300) % 2, 1, -1))
    assert "100%" in buf.getvalue().split("\r")[-1], buf.getvalue()[-200:]


def test_progress_parts_leave_the_iterates_as_they_are():
    """The engine's progress updates split a segment at multiples of the block size: W is bit
    for bit the W of one block loop over the whole stream (block_size fixed, segments split or
    not, compared through a stream of one checkpoint-free segment)."""
    from tripletbench.algorithms import _stream
    from tripletbench.datasets.constraints import sample_class_triplets

    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(200, 30)), rng.integers(0, 4, 200)
    t = sample_class_triplets(y, 2000, rng)
    a = SDCA(random_state=0, preprocessor=X, n_epochs=3).fit(t).get_bilinear_matrix()
    old = _stream.PROGRESS_SEGMENTS
    try:
        _stream.PROGRESS_SEGMENTS = 1  # one part per segment: the loop before progress parts
        b = SDCA(random_state=0, preprocessor=X, n_epochs=3).fit(t).get_bilinear_matrix()
    finally:
        _stream.PROGRESS_SEGMENTS = old
    assert np.array_equal(a, b)


def test_an_exact_map_shows_a_bar_over_its_queries_that_reaches_100_percent(monkeypatch):
    import io

    from tqdm.auto import tqdm

    from tripletbench.evaluation.retrieval import mean_average_precision

    buf = io.StringIO()
    monkeypatch.setattr("tqdm.auto.tqdm", lambda *a, **k: tqdm(*a, **{**k, "file": buf}))
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(3000, 8)), rng.integers(0, 3, 3000)
    value, _ = mean_average_precision(lambda A, B: A @ B.T, X, y, X, y, batch_size=100,
                                      progress=True)  # fmt: skip
    last = buf.getvalue().split("\r")[-1]
    assert "100%" in last and "3000/3000" in last, buf.getvalue()[-300:]
    quiet, _ = mean_average_precision(lambda A, B: A @ B.T, X, y, X, y, batch_size=100)
    assert quiet == value
