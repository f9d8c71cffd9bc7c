import numpy as np
import pytest

from tripletbench.algorithms import OPML
from tripletbench.algorithms.opml import one_pass_triplets


def test_one_pass_triplet_construction():
    #        t: 0  1  2  3  4  5
    y = np.array([0, 0, 1, 1, 0, 2])
    # t=0, 1: one class only; t=2: new class; t=3: latest (2) has class 1 -> (3, 2, slot of the
    # most recent other class = 0's latest = 1); t=4: latest (3) has class 1 -> (4, slot[0]=1, 3);
    # t=5: new class, no triplet.
    np.testing.assert_array_equal(one_pass_triplets(y), [[3, 2, 1], [4, 1, 3]])


def test_closed_form_update_is_the_inverse_formula():
    X = np.array([[0.0, 0.0], [0.0, 0.0], [1.0, 0.5], [0.2, 0.1]])
    y = np.array([0, 1, 1, 1])
    # t=2: the latest sample (1) has class 1 -> triplet (2, 1, latest of class 0 = 0);
    # t=3: the latest sample (2) has class 1 -> triplet (3, 2, 0).
    gamma = 0.3
    m = OPML(gamma=gamma, shuffle=False).fit(X, y)
    np.testing.assert_array_equal(m.triplets_, [[2, 1, 0], [3, 2, 0]])
    L = np.eye(2)
    for t, p, q in m.triplets_:
        a, b = X[t] - X[p], X[t] - X[q]
        if (L @ a) @ (L @ a) + 1 - (L @ b) @ (L @ b) > 0:
            L = L @ np.linalg.inv(np.eye(2) + gamma * (np.outer(a, a) - np.outer(b, b)))
    np.testing.assert_allclose(m.L_, L, rtol=1e-12)
    np.testing.assert_allclose(m.M_, L.T @ L, rtol=1e-12)


def test_stream_without_triplets_is_a_clear_error():
    with pytest.raises(ValueError, match="no triplet"):
        OPML().fit(np.arange(6.0).reshape(3, 2), np.array([0, 0, 0]))
