import numpy as np
import pytest

from tripletbench.algorithms import LEGO


def test_one_step_matches_closed_form_and_sherman_morrison():
    # two pairs: squared distances 1 (similar) and 9 (dissimilar); quantiles (0.5, 1) put the
    # similar target at 5 and the dissimilar one at 9. One step on the first pair, z = (1, 0, 0):
    # y_hat = 1, b = eta*5*1 - 1, y_bar = (b + sqrt(b^2 + 4 eta)) / (2 eta).
    pairs = np.array([[[0.0, 0, 0], [1.0, 0, 0]], [[0.0, 0, 0], [3.0, 0, 0]]])
    eta = 0.5
    m = LEGO(eta=eta, target_quantiles=(0.5, 1.0), n_passes=0.5).fit(pairs, [1, -1])
    b = eta * 5 - 1
    ybar = (b + np.sqrt(b * b + 4 * eta)) / (2 * eta)
    z = np.array([1.0, 0, 0])
    assert z @ m.M_ @ z == pytest.approx(ybar, rel=1e-12)
    c = eta * (ybar - 5)
    np.testing.assert_allclose(np.linalg.inv(m.M_), np.eye(3) + c * np.outer(z, z), rtol=1e-12)


def test_stays_positive_definite_and_symmetric():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    pairs = rng.integers(60, size=(400, 2))
    y = np.where(rng.random(400) < 0.5, 1, -1)
    m = LEGO(eta=0.5, n_passes=3, preprocessor=X).fit(pairs, y)
    assert np.array_equal(m.M_, m.M_.T)
    assert np.linalg.eigvalsh(m.M_).min() > 0


def test_duplicate_points_are_skipped_not_nan():
    pairs = np.array([[[1.0, 2.0], [1.0, 2.0]], [[0.0, 0.0], [1.0, 1.0]]])
    m = LEGO(eta=0.1).fit(pairs, [1, -1])
    assert np.all(np.isfinite(m.M_))
    assert m.trace_["utilization"][0] == 0.0


def test_labels_are_checked():
    pairs = np.random.default_rng(0).normal(size=(2, 2, 2))
    with pytest.raises(ValueError, match="label"):
        LEGO().fit(pairs, [1, 0])


def test_in_place_blas_steps_equal_the_plain_update():
    """The dger step gives the iterates of the textbook update A - coef (A z)(A z)^T."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 12))
    pairs = rng.integers(0, 40, (300, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    y = np.where(rng.random(len(pairs)) < 0.5, 1, -1)
    model = LEGO(eta=0.125, preprocessor=X).fit(pairs, y)
    Z = X[pairs[:, 0]] - X[pairs[:, 1]]
    lo, hi = np.quantile((Z**2).sum(1), [0.05, 0.95])
    A = np.eye(12)
    for z, yi in zip(Z, y):
        yt = lo if yi == 1 else hi
        Az = A @ z
        yhat = z @ Az
        b = 0.125 * yt * yhat - 1.0
        ybar = (b + np.sqrt(b * b + 4 * 0.125 * yhat**2)) / (2 * 0.125 * yhat)
        c = 0.125 * (ybar - yt)
        A = A - c / (1 + c * yhat) * np.outer(Az, Az)
    np.testing.assert_allclose(model.M_, A, rtol=1e-10, atol=1e-12)


def test_violation_rule_steps_only_on_violated_pairs_by_hand():
    """update="violation": squared distances 1, 9, 16, 4 (similar, dissimilar, similar, similar);
    quantiles (1/3, 2/3) put the targets at 4 (similar) and 9 (dissimilar). The pairs at 1 < 4
    (similar) and 9 >= 9 (dissimilar) are satisfied: no step. The similar pair at 16 > 4 gets
    the exact step (closed form of the module docstring) along z = (0, 4, 0); the last pair,
    z = (0, 0, 2), is orthogonal to it and stays at 4: no step. U = 1/4."""
    X = np.array([[0.0, 0, 0], [1.0, 0, 0], [3.0, 0, 0], [0, 4.0, 0], [0, 0, 2.0]])
    pairs = np.array([[0, 1], [0, 2], [0, 3], [0, 4]])
    labels = [1, -1, 1, 1]
    eta = 0.5
    kw = dict(eta=eta, target_quantiles=(1 / 3, 2 / 3), preprocessor=X)
    m = LEGO(update="violation", **kw).fit(pairs, labels)
    np.testing.assert_allclose(m.targets_, [4.0, 9.0])
    z, yhat, yt = np.array([0, 4.0, 0]), 16.0, m.targets_[0]
    b = eta * yt * yhat - 1
    ybar = (b + np.sqrt(b * b + 4 * eta * yhat**2)) / (2 * eta * yhat)
    c = eta * (ybar - yt)
    np.testing.assert_allclose(np.linalg.inv(m.M_), np.eye(3) + c * np.outer(z, z), rtol=1e-12)
    assert m.trace_["utilization"][-1] == pytest.approx(1 / 4)
    # "always" (the default) also steps on the similar pair closer than its target, pushing it
    # out along (1, 0, 0)
    a = LEGO(**kw).fit(pairs, labels)
    assert a.update == "always"
    assert a.M_[0, 0] > 1.0 and m.M_[0, 0] == 1.0
    assert a.trace_["utilization"][-1] > m.trace_["utilization"][-1]


def test_an_unknown_update_rule_is_refused():
    with pytest.raises(ValueError, match="update must be one of"):
        LEGO(update="sometimes").fit(np.zeros((1, 2, 2)) + [[0.0, 0.0], [1.0, 1.0]], [1])


# the rule: all n tuples are scored or differenced in chunks, never as (n, d) gathers


def test_pair_differences_gather_each_difference_when_asked():
    from tripletbench.algorithms.base import TupleRows

    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 5))
    idx = rng.integers(30, size=(100, 2))
    Z = TupleRows(X, idx[:, 0], idx[:, 1])
    full = X[idx[:, 0]] - X[idx[:, 1]]
    assert len(Z) == 100 and Z.shape == (100, 5)
    np.testing.assert_array_equal(np.stack([Z[i] for i in range(100)]), full)
    np.testing.assert_allclose(Z.squared_norms(), (full**2).sum(1), rtol=1e-14)


def test_chunked_pair_scores_and_triplet_margins_equal_one_gather(monkeypatch):
    """Scores over many tuples come chunk by chunk (``TUPLE_CHUNK``) and equal the one-gather
    values, for a Mahalanobis learner and a bilinear one, pairs and triplets, in order."""
    import tripletbench.algorithms._tuples as tuples  # where TUPLE_CHUNK is read
    from tripletbench.algorithms import OASIS

    rng = np.random.default_rng(3)
    X = rng.normal(size=(50, 6))
    pairs = rng.integers(50, size=(1000, 2))
    triplets = rng.integers(50, size=(1000, 3))
    y = np.where(rng.random(1000) < 0.5, 1, -1)
    lego = LEGO(preprocessor=X).fit(pairs, y)
    oasis = OASIS(preprocessor=X, random_state=0).fit(triplets)
    whole = [m.pair_score(pairs) for m in (lego, oasis)] + [
        m.decision_function(triplets) for m in (lego, oasis)
    ]
    monkeypatch.setattr(tuples, "TUPLE_CHUNK", 7)
    chunked = [m.pair_score(pairs) for m in (lego, oasis)] + [
        m.decision_function(triplets) for m in (lego, oasis)
    ]
    for a, b in zip(whole, chunked):
        assert a.shape == (1000,)
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-13)
    M = lego.get_mahalanobis_matrix()
    Z = X[pairs[:, 0]] - X[pairs[:, 1]]
    np.testing.assert_allclose(chunked[0], -np.sqrt(np.einsum("ij,jk,ik->i", Z, M, Z)), rtol=1e-10)


def test_a_lego_fit_never_holds_the_pairs_differences(monkeypatch):
    """Memory of a fit on n pairs: O(chunk d) beyond the points and O(n) scalars, not the (n, d)
    array of differences (traced allocations; deterministic, not a timing)."""
    import tracemalloc

    import tripletbench.algorithms._tuples as tuples  # where TUPLE_CHUNK is read

    monkeypatch.setattr(tuples, "TUPLE_CHUNK", 2048)
    rng = np.random.default_rng(4)
    n, d = 200_000, 40
    X = rng.normal(size=(2_000, d))
    pairs = rng.integers(2_000, size=(n, 2))
    y = np.where(rng.random(n) < 0.5, 1, -1)
    model = LEGO(eta=0.125, n_passes=0.01, preprocessor=X)
    tracemalloc.start()
    model.fit(pairs, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    differences = n * d * 8  # 64 MB
    assert peak < differences / 3, f"peak {peak / 2**20:.1f} MiB"
