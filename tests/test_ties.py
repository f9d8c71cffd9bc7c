"""One rule for ties in every scorer of triplet accuracy: two scores tie when they agree within
``TIE_RTOL`` (1e-12) of the larger (``tripletbench.algorithms._scores.tied``), so float
rounding never decides. Checked on ties that are exact mathematically and that float64 breaks
(unit-normalised binary vectors, as the human table's bag-of-words features; a rotated pair of
mirror points), against exact integer arithmetic."""

import numpy as np
import pytest

from tripletbench.algorithms._scores import TIE_RTOL, class_triplet_accuracy, tied
from tripletbench.evaluation.human_protocols import feature_accuracy, triplet_accuracy
from tripletbench.evaluation.triplets import accuracy_from_distances, static_triplet_accuracy


def binary_items(seed=0, n=40, d=12):
    """(n, d) 0/1 int features, every row with at least one word."""
    B = np.random.default_rng(seed).integers(0, 2, size=(n, d))
    B[B.sum(1) == 0, 0] = 1
    return B


def exact_order(B, t):
    """-1 / 0 / +1 per triplet (i, j, k): sign of d(i, k)^2 - d(i, j)^2 for the unit-normalised
    rows of binary B, in integers: d(i, j)^2 = 2 - 2 c_ij / sqrt(n_i n_j), so the sign is that
    of c_ij / sqrt(n_j) - c_ik / sqrt(n_k), compared through squares (both sides >= 0)."""
    c = B @ B.T
    n = B.sum(1)
    i, j, k = t.T
    left, right = c[i, j] ** 2 * n[k], c[i, k] ** 2 * n[j]
    return np.sign(left - right)


def test_exact_ties_of_normalised_binary_vectors_count_half_whatever_the_rounding():
    B = binary_items()
    X = B / np.linalg.norm(B, axis=1, keepdims=True)
    rng = np.random.default_rng(1)
    t = np.array([rng.choice(len(B), 3, replace=False) for _ in range(20000)])
    truth = exact_order(B, t)
    n_tied = int((truth == 0).sum())
    # the rounding splits the mathematical ties: exact float comparison sees only part of them
    D = X[t[:, 0]] - X[t[:, 1]], X[t[:, 0]] - X[t[:, 2]]
    d_ap, d_an = (np.einsum("kd,kd->k", v, v) for v in D)
    assert 0 < int((d_ap == d_an).sum()) < n_tied
    want = ((truth > 0).sum() + 0.5 * n_tied) / len(t)
    got = feature_accuracy(X, t)
    assert got["n_ties"] == n_tied and got["triplet_accuracy"] == pytest.approx(want, abs=1e-15)
    # the same ties, counted wrong, by the Schultz & Joachims scorer
    sj = static_triplet_accuracy(X, t)
    assert sj["n_ties"] == n_tied
    assert sj["triplet_accuracy"] == pytest.approx((truth > 0).mean(), abs=1e-15)


def test_the_tie_rule_itself():
    a = np.array([1.0, 1.0, 0.0, 1e-300, 5.0, np.nan])
    b = np.array([1.0 + 1e-15, 1.0 + 1e-9, 0.0, 0.0, -5.0, np.nan])
    assert tied(a, b).tolist() == [True, False, True, False, False, False]
    assert TIE_RTOL == 1e-12
    # the human rule: a tie is half; the S&J rule: a tie is wrong
    assert triplet_accuracy(a[:3], b[:3])["triplet_accuracy"] == pytest.approx((0.5 + 1 + 0.5) / 3)
    assert accuracy_from_distances(a[:3], b[:3])["triplet_accuracy"] == pytest.approx(1 / 3)


def test_a_learner_decides_a_rounded_tie_as_a_tie():
    """Anchor at the origin, positive and negative mirror images of each other, both rotated
    by the same angle: equal distances mathematically, unequal in float64 for most angles.
    decision_function gives exactly 0 (a tie), score counts it wrong, as does the labelled
    score over class triplets."""
    from tripletbench.algorithms.euclidean import Euclidean

    rng = np.random.default_rng(2)
    pts, favoured = [], None
    for theta in rng.uniform(0, 2 * np.pi, 200):
        R = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
        p, n = R @ np.array([0.3, 0.7]), R @ np.array([0.7, 0.3])
        pts.append([[0.0, 0.0], p, n])
        if favoured is None and np.sum(p**2) < np.sum(n**2):
            favoured = len(pts) - 1  # rounding puts the positive closer: exactly, it is not
    pts = np.array(pts)
    assert favoured is not None
    model = Euclidean().fit(pts[:5])
    assert np.all(model.decision_function(pts) == 0.0)
    assert model.score(pts) == 0.0
    # over the class triplets of anchor, positive (same class) and negative: (0, 1, 2) ties,
    # (1, 0, 2) is wrong (|p - n|^2 = 0.32 < |p|^2 = 0.58): 0 of 2, where exact float
    # comparison would count the rounded tie as right (1 of 2)
    X, y = pts[favoured], np.array([0, 0, 1])

    def similarity(A, B):
        return -((A[:, None] - B[None]) ** 2).sum(-1)

    assert similarity(X[:1], X)[0, 1] > similarity(X[:1], X)[0, 2]  # the rounded order
    assert class_triplet_accuracy(similarity, X, y) == 0.0
