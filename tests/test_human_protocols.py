"""Protocols and scoring of the human-judgment sets
(:mod:`tripletbench.evaluation.human_protocols`): hand-made tiny cases for every function, and the human
ceiling of the real material set (skipped where no mirror stands beside the checkout).
"""

import numpy as np
import pytest
from conftest import ROOT

from tripletbench.algorithms.euclidean import Euclidean
from tripletbench.algorithms.oasis import OASIS
from tripletbench.evaluation import human_protocols as hp

MIRROR = ROOT.parent / "shared" / "mirror"

# 6 items, 8 rows (row 5 repeats row 0; row 6 is row 0's other orientation)
T = np.array(
    [
        [0, 1, 2],
        [1, 2, 3],
        [2, 3, 4],
        [3, 4, 5],
        [4, 5, 0],
        [0, 1, 2],
        [0, 2, 1],
        [5, 0, 1],
    ]
)


def test_question_ids_join_orientations_and_repeats():
    q = hp.question_ids(T)
    assert q[0] == q[5] == q[6] and len(set(q.tolist())) == 6
    with pytest.raises(ValueError):
        hp.question_ids(np.zeros((2, 2), int))


def test_triplet_folds_partition_the_rows_and_are_fixed_by_the_seed():
    p = hp.triplet_folds(len(T), n_splits=4, seed=3)
    assert len(p) == 4 and p.seed == 3 and p.name == "triplet_folds"
    tests = np.concatenate([s.test for s in p])
    assert sorted(tests.tolist()) == list(range(len(T)))  # each row tested once
    for s in p:
        assert sorted(np.concatenate([s.train, s.test]).tolist()) == list(range(len(T)))
        assert not set(s.train.tolist()) & set(s.test.tolist())
    again = hp.triplet_folds(len(T), n_splits=4, seed=3)
    assert again.digest() == p.digest() and again.record() == p.record()
    assert hp.triplet_folds(len(T), n_splits=4, seed=4).digest() != p.digest()
    rec = p.record()
    assert rec["seed"] == 3 and rec["n_splits"] == 4 and sum(rec["n_test"]) == len(T)
    # grouped by question: rows 0, 5 and 6 share a fold
    g = hp.triplet_folds(len(T), n_splits=3, seed=0, groups=hp.question_ids(T))
    for s in g:
        assert len({0, 5, 6} & set(s.test.tolist())) in (0, 3)
    assert sorted(np.concatenate([s.test for s in g]).tolist()) == list(range(len(T)))
    with pytest.raises(ValueError, match="seed"):
        hp.triplet_folds(len(T), seed=-1)


def test_held_out_items_test_rows_hold_a_test_item_and_train_rows_none():
    train, test = hp.held_out_item_split(T, [5])
    assert train.tolist() == [0, 1, 2, 5, 6]  # rows without item 5
    assert test.tolist() == [3, 4, 7]  # 5 as negative, positive and anchor
    assert hp.new_items_per_triplet(T, [5]).tolist() == [0, 0, 0, 1, 1, 0, 0, 1]
    assert hp.new_items_per_triplet(T, [0, 1]).tolist() == [2, 1, 0, 0, 1, 2, 2, 2]
    p = hp.item_folds(T, 6, n_splits=3, seed=1)
    assert sorted(np.concatenate([s.test_items for s in p]).tolist()) == list(range(6))
    for s in p:
        held = set(s.test_items.tolist())
        assert set(s.train_items.tolist()) == set(range(6)) - held
        assert all(held & set(T[r].tolist()) for r in s.test)
        assert not any(held & set(T[r].tolist()) for r in s.train)
        assert sorted(np.concatenate([s.train, s.test]).tolist()) == list(range(len(T)))
    assert p.record()["test_rule"] == "at least one test item"
    assert hp.item_folds(T, 6, n_splits=3, seed=1).digest() == p.digest()
    tr, te = hp.item_split(10, 0.25, seed=2)
    assert len(te) == 3 and sorted(np.concatenate([tr, te]).tolist()) == list(range(10))
    assert np.array_equal(hp.item_split(10, 3, seed=2)[1], te)
    with pytest.raises(ValueError):
        hp.item_split(10, 10)


def test_learning_curve_subsets_are_nested_and_seeded():
    train = np.arange(100, 150)
    curve = hp.learning_curve(train, [5, 20, 50, 10], seed=7)
    assert list(curve) == [5, 10, 20, 50]
    sizes = list(curve)
    for small, big in zip(sizes, sizes[1:]):
        assert set(curve[small].tolist()) <= set(curve[big].tolist())
    assert all(len(curve[n]) == n == len(set(curve[n].tolist())) for n in sizes)
    assert set(curve[50].tolist()) == set(train.tolist())
    assert np.array_equal(hp.learning_curve(train, [20], seed=7)[20], curve[20])
    assert not np.array_equal(hp.learning_curve(train, [20], seed=8)[20], curve[20])
    with pytest.raises(ValueError, match="curve size"):
        hp.learning_curve(train, [51])
    assert hp.curve_sizes(10_000, 5, 100) == [100, 316, 1000, 3162, 10000]
    assert hp.curve_sizes(50, 3, 100) == [50]


def test_human_ceiling_by_hand_on_three_questions():
    """q1: (0,1,2) 3 answers, (0,2,1) 1; q2: (1,0,2) 2, no other; q3: (2,0,1) 1, (2,1,0) 1 (tie).
    Agreeing with the majority: 3 + 2 + 1 (the tie's two answers, half each) of 8 = 0.75;
    untied: 5 of 6; leave one out: q1 3 (each of the three against (2, 1)), the lone dissenter
    against (3, 0): 0; q2 2 (each against (1, 0)); q3 0 (each against (0, 1)): 5 of 8.
    """
    t = np.array([[0, 1, 2], [0, 2, 1], [1, 0, 2], [2, 0, 1], [2, 1, 0]])
    c = np.array([3, 1, 2, 1, 1])
    got = hp.human_ceiling(t, c)
    assert got["ceiling"] == 0.75 and got["ceiling_untied"] == 5 / 6
    assert got["ceiling_loo"] == 5 / 8
    assert (got["n_answers"], got["n_questions"], got["n_tied"]) == (8, 3, 1)
    # the ceiling is the count-weighted accuracy of the majority vote: an embedding that orders
    # q1 and q2 as their majorities do reaches it (q3 tied: half whatever the distance)
    Z = np.array([[0.0], [1.0], [3.0]])  # d(0,1) < d(0,2); d(1,0) < d(1,2)
    assert hp.embedding_accuracy(Z, t, weights=c)["triplet_accuracy"] == 0.75
    with pytest.raises(ValueError):
        hp.human_ceiling(t, np.zeros(5, int))


def test_triplet_accuracy_counts_ties_as_half_and_weights_answers():
    got = hp.triplet_accuracy([1.0, 2.0, 3.0, 1.0], [2.0, 1.0, 3.0, 5.0])
    assert got == {"triplet_accuracy": 2.5 / 4, "n_ties": 1, "n": 4, "weight": 4.0}
    w = hp.triplet_accuracy([1.0, 2.0], [2.0, 1.0], weights=[3, 1])
    assert w["triplet_accuracy"] == 0.75
    assert (
        hp.triplet_accuracy([0.0] * 3, [0.0] * 3)["triplet_accuracy"] == 0.5
    )  # chance
    for bad in (([], []), ([1.0], [1.0, 2.0]), ([np.nan], [1.0])):
        with pytest.raises(ValueError):
            hp.triplet_accuracy(*bad)
    with pytest.raises(ValueError):
        hp.triplet_accuracy([1.0], [2.0], weights=[0])


def test_feature_distance_embedding_and_learner_scoring_agree():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [3.0, 3.0]])
    t = np.array([[0, 1, 2], [0, 2, 1], [1, 0, 3], [2, 3, 1], [3, 2, 0]])
    # Euclidean by hand: d01=1 < d02=2 right; (0,2,1) wrong; d10=1 < d13=sqrt13 right;
    # d23=sqrt10 > d21=sqrt5 wrong; d32=sqrt10 < d30=sqrt18 right
    base = hp.feature_accuracy(X, t)
    assert base["triplet_accuracy"] == 3 / 5 and base["n_ties"] == 0
    assert hp.embedding_accuracy(X, t) == base

    def dist(i, j):
        return np.linalg.norm(X[i] - X[j], axis=1)

    assert hp.distance_accuracy(dist, t) == base
    assert hp.distance_accuracy(lambda i, j: -dist(i, j), t, similarity=True) == base
    # a transform that keeps only the first coordinate (a (1, 2) matrix or a callable)
    L = np.array([[1.0, 0.0]])
    by_L = hp.feature_accuracy(X, t, transform=L)
    assert by_L == hp.feature_accuracy(X, t, transform=lambda A: A[:, :1])
    # first coordinate: (0,1,2): 1 vs 0 wrong; (0,2,1): 0 vs 1 right; (1,0,3): 1 vs 2 right;
    # (2,3,1): 3 vs 1 wrong; (3,2,0): 3 vs 3 tie
    assert by_L["triplet_accuracy"] == 2.5 / 5 and by_L["n_ties"] == 1
    # a fitted learner through its pair_score, X as its preprocessor for the call
    eu = Euclidean(preprocessor=X).fit(t[:1])
    assert hp.learner_accuracy(eu, X, t) == base
    oasis = OASIS(preprocessor=X, random_state=0).fit(t)

    def bilinear(i, j):
        return np.einsum("kd,de,ke->k", X[i], oasis.W_, X[j])

    assert hp.learner_accuracy(oasis, X, t) == hp.distance_accuracy(
        bilinear, t, similarity=True
    )
    with pytest.raises(ValueError):
        hp.embedding_accuracy(X[:3], t)


@pytest.mark.skipif(
    not (MIRROR / "SHA256SUMS").is_file(), reason="no data mirror beside the checkout"
)
def test_material_publisher_split_and_human_ceiling_on_the_real_answers(tmp_path):
    from tripletbench.datasets import material_similarity as material

    j = material.load_judgments(tmp_path, mirror=str(MIRROR))
    p = hp.publisher_split(j)
    assert np.array_equal(p["test_majority"], material.majority(j, "test")[0])
    assert (len(p["train_majority"]), len(p["test_majority"])) == (
        22_801 - 1_395,
        3_000 - 262,
    )
    assert (
        int(p["test_counts"].sum()) == 11_800 and int(p["train_counts"].sum()) == 92_892
    )
    c = p["ceiling"]
    print(f"\nmaterial test-split human ceiling: {c}")
    print(f"material training-split human ceiling: {p['ceiling_train']}")
    assert (c["n_answers"], c["n_questions"], c["n_tied"]) == (11_800, 3_000, 262)
    assert c["ceiling"] == pytest.approx(
        9890 / 11_800
    )  # 0.8381: measured on the real files
    assert c["ceiling_loo"] < c["ceiling"] < c["ceiling_untied"]
    # chance: a distance that ties everywhere scores 0.5 against the majority
    flat = hp.embedding_accuracy(np.zeros((100, 1)), p["test_majority"])
    assert flat["triplet_accuracy"] == 0.5 and flat["n_ties"] == 3_000 - 262
