import numpy as np
import pytest
from sklearn.metrics import average_precision_score

from tripletbench.evaluation.retrieval import (
    average_precision_rows,
    map_at_r,
    mean_average_precision,
    recall_at_k,
    retrieval_scores,
)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("levels", [None, 3])  # None: continuous scores; 3: many ties
def test_map_equals_mean_of_sklearn_average_precision(seed, levels):
    rng = np.random.default_rng(seed)
    Xq, Xdb = rng.normal(size=(17, 4)), rng.normal(size=(40, 4))
    yq, ydb = rng.integers(3, size=17), rng.integers(3, size=40)

    def score(A, B):
        S = A @ B.T
        return np.round(S * levels) / levels if levels else S

    ours, missing = mean_average_precision(score, Xq, yq, Xdb, ydb, batch_size=5)
    S = score(Xq, Xdb)
    ref = [average_precision_score(ydb == yq[i], S[i]) for i in range(17) if (ydb == yq[i]).any()]
    assert missing == 17 - len(ref)
    assert ours == pytest.approx(np.mean(ref), abs=1e-12)


def test_all_tied_scores_give_the_base_rate():
    rel = np.array([[True, False, False, True]])
    assert average_precision_rows(np.zeros((1, 4)), rel)[0] == pytest.approx(0.5)
    assert average_precision_score(rel[0], np.zeros(4)) == pytest.approx(0.5)


def test_exclude_self_drops_the_query_from_its_own_ranking():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(12, 3)), rng.integers(2, size=12)
    out = retrieval_scores(
        lambda A, B: -np.square(A[:, None] - B[None]).sum(-1), X, y, X, y, exclude_self=True
    )
    for i in range(12):
        keep = np.arange(12) != i
        S = -np.square(X[i] - X[keep]).sum(-1)
        rel = y[keep] == y[i]
        expected = average_precision_score(rel, S) if rel.any() else np.nan
        np.testing.assert_allclose(out["ap"][i], expected, atol=1e-12)


def test_precision_at_k_and_missing_relevant():
    S = np.array([[3.0, 2.0, 1.0, 0.0]])
    out = retrieval_scores(
        lambda A, B: S,
        np.zeros((1, 1)),
        np.array([1]),
        np.zeros((4, 1)),
        np.array([1, 0, 1, 1]),
        ks=(1, 2, 4),
    )
    assert [out["precision_at"][k][0] for k in (1, 2, 4)] == [1.0, 0.5, 0.75]
    with pytest.raises(ValueError, match="no query has a relevant item"):
        mean_average_precision(
            lambda A, B: S,
            np.zeros((1, 1)),
            np.array([5]),
            np.zeros((4, 1)),
            np.array([1, 0, 1, 1]),
        )


def test_nan_scores_are_rejected():
    with pytest.raises(ValueError, match="NaN"):
        mean_average_precision(
            lambda A, B: np.full((1, 2), np.nan),
            np.zeros((1, 1)),
            np.array([0]),
            np.zeros((2, 1)),
            np.array([0, 1]),
        )


def test_precision_at_k_beyond_the_database_is_refused():
    """k = 50 over a 30-item database gave (hits among 30) / 30 as precision@50."""
    rng = np.random.default_rng(0)
    Xdb, ydb = rng.normal(size=(30, 3)), np.arange(30) % 3
    score = lambda A, B: A @ B.T  # noqa: E731
    out = retrieval_scores(score, Xdb[:4], ydb[:4], Xdb, ydb, ks=(1, 30))
    assert out["precision_at"][30].shape == (4,)
    with pytest.raises(ValueError, match=r"every k must lie in \[1, 30\]"):
        retrieval_scores(score, Xdb[:4], ydb[:4], Xdb, ydb, ks=(1, 31))
    with pytest.raises(ValueError, match=r"every k must lie in \[1, 29\]"):
        retrieval_scores(score, Xdb, ydb, Xdb, ydb, exclude_self=True, ks=(30,))


def test_score_blocks_of_any_layout_rank_alike_and_batches_follow_the_memory_budget():
    """Each batch's score block is made C-ordered (a query's scores contiguous) and its
    size follows ``chunk_mb``; neither changes a number."""
    from tripletbench.evaluation.retrieval import query_batch, retrieval_scores

    rng = np.random.default_rng(0)
    Xq, Xd = rng.normal(size=(40, 5)), rng.normal(size=(300, 5))
    yq, yd = rng.integers(4, size=40), rng.integers(4, size=300)
    seen = []

    def c_order(A, B):
        return A @ B.T

    def f_order(A, B):
        S = np.asfortranarray(A @ B.T)
        seen.append(S.shape[0])
        return S

    ref = retrieval_scores(c_order, Xq, yq, Xd, yd, ks=(5,), batch_size=40)
    got = retrieval_scores(f_order, Xq, yq, Xd, yd, ks=(5,), chunk_mb=9 * 300 * 16 / 2**20)
    np.testing.assert_array_equal(ref["ap"], got["ap"])
    np.testing.assert_array_equal(ref["precision_at"][5], got["precision_at"][5])
    assert seen == [16, 16, 8]  # 16 queries x 300 items x 9 bytes per batch
    assert query_batch(1_000_000) == 59 and query_batch(10, batch_size=3) == 3
    with pytest.raises(ValueError, match="batch_size"):
        query_batch(10, batch_size=0)


def test_a_one_class_database_is_refused_by_every_ranking_metric():
    """mAP and Recall@K on a one-class set returned 1.0 silently (no item is
    irrelevant, so any ranking, even a random one, is perfect)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(8, 3))
    one = np.zeros(8, dtype=int)
    score = lambda A, B: A @ B.T  # noqa: E731
    for metric in (
        lambda: mean_average_precision(score, X, one, X, one, exclude_self=True),
        lambda: retrieval_scores(score, X[:2], one[:2], X, one, ks=(1,)),
        lambda: recall_at_k(score, X, one, X, one, ks=(1, 2), exclude_self=True),
        lambda: map_at_r(score, X, one, X, one, exclude_self=True),
        lambda: mean_average_precision(score, X[:2], np.array([1, 1]), X, one),  # queries elsewhere
    ):
        with pytest.raises(ValueError, match=r"undefined on a database of 1 class.*two classes"):
            metric()


def test_constant_scores_are_ties_counted_as_not_retrieved_never_by_index():
    """Constant scores (a model that cannot rank) gave Recall@K = 1.0 or 0.5
    depending on where the relevant items sat in the database; ties are now whole groups: AP is the
    share of relevant items (chance), precision@k and Recall@K count nothing inside a tie group
    that reaches past k."""
    y_db = np.array([1, 0, 0, 1])
    Xq, yq = np.zeros((1, 1)), np.array([1])
    const = lambda A, B: np.zeros((len(A), len(B)))  # noqa: E731
    out = retrieval_scores(const, Xq, yq, np.zeros((4, 1)), y_db, ks=(1, 2, 4))
    assert out["ap"][0] == pytest.approx(0.5)
    assert [out["precision_at"][k][0] for k in (1, 2, 4)] == [0.0, 0.0, 0.5]
    assert recall_at_k(const, Xq, yq, np.zeros((4, 1)), y_db, ks=(1, 3, 4)) == {1: 0, 3: 0, 4: 1}
    # the same with the relevant items first or last in the database: no order decides
    for order in ([0, 3, 1, 2], [1, 2, 0, 3]):
        assert recall_at_k(const, Xq, yq, np.zeros((4, 1)), y_db[order], ks=(1, 3)) == {1: 0, 3: 0}
    # a partial tie: the relevant item shares first place with one other item
    S = np.array([[2.0, 2.0, 1.0, 0.0]])
    y = np.array([0, 1, 1, 0])
    tie = lambda A, B: S  # noqa: E731
    assert recall_at_k(tie, Xq, yq, np.zeros((4, 1)), y, ks=(1, 2)) == {1: 0.0, 2: 1.0}
    prec = retrieval_scores(tie, Xq, yq, np.zeros((4, 1)), y, ks=(1, 2, 3))["precision_at"]
    assert [prec[k][0] for k in (1, 2, 3)] == [0.0, 0.5, pytest.approx(2 / 3)]
    # without ties, nothing changes: the rank of the first relevant item decides
    S = np.array([[3.0, 2.0, 1.0, 0.0]])
    assert recall_at_k(lambda A, B: S, Xq, yq, np.zeros((4, 1)), y, ks=(1, 2)) == {1: 0, 2: 1}
    # leave-one-out with constant scores: the query's own -inf never counts, nothing is retrieved
    X = np.zeros((6, 1))
    yy = np.array([0, 0, 0, 1, 1, 1])
    assert recall_at_k(const, X, yy, X, yy, ks=(1, 4, 5), exclude_self=True) == {1: 0, 4: 0, 5: 1}
