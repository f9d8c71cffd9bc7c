import numpy as np
import pytest

from tripletbench.datasets.base import DataError
from tripletbench.datasets.constraints import (
    check_triplets,
    sample_class_triplets,
    triplets_to_chunklets,
    triplets_to_pairs,
)


def test_sampler_emits_only_valid_triplets_and_covers_classes():
    y = np.array([0, 0, 0, 1, 1, 2, 3, 3, 3, 3])  # class 2 has a single sample
    t = sample_class_triplets(y, 5000, np.random.default_rng(1))
    assert t.shape == (5000, 3) and t.dtype == np.int64
    assert np.all(y[t[:, 0]] == y[t[:, 1]])
    assert np.all(t[:, 0] != t[:, 1])
    assert np.all(y[t[:, 0]] != y[t[:, 2]])
    assert not np.any(y[t[:, 0]] == 2)  # a singleton class cannot be an anchor
    assert np.any(y[t[:, 2]] == 2)  # but it can be a negative
    assert set(np.unique(y[t[:, 0]])) == {0, 1, 3}
    check_triplets(t, y)


def test_sampler_is_uniform_over_positives():
    y = np.array([0, 0, 0, 0, 1])
    t = sample_class_triplets(y, 40000, np.random.default_rng(0))
    pos = t[t[:, 0] == 0, 1]
    counts = np.bincount(pos, minlength=4)[1:4] / len(pos)
    np.testing.assert_allclose(counts, 1 / 3, atol=0.02)


def test_sampler_is_reproducible_from_its_seed():
    y = np.repeat(np.arange(4), 25)
    a = sample_class_triplets(y, 100, np.random.default_rng(7))
    b = sample_class_triplets(y, 100, np.random.default_rng(7))
    c = sample_class_triplets(y, 100, np.random.default_rng(8))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_sampler_fails_clearly_without_valid_triplets():
    with pytest.raises(DataError, match="one class"):
        sample_class_triplets(np.zeros(10), 5, np.random.default_rng(0))
    with pytest.raises(DataError, match="no class has two samples"):
        sample_class_triplets(np.arange(5), 5, np.random.default_rng(0))
    with pytest.raises(ValueError, match="n_triplets"):
        sample_class_triplets(np.array([0, 0, 1]), 0, np.random.default_rng(0))


def test_check_triplets_names_the_problem():
    y = np.array([0, 0, 1])
    with pytest.raises(DataError, match="zero usable triplets"):
        check_triplets(np.zeros((0, 3), int), y)
    with pytest.raises(DataError, match="negative of the anchor's class"):
        check_triplets(np.array([[0, 1, 0]]), y)
    with pytest.raises(DataError, match="out of range"):
        check_triplets(np.array([[0, 1, 5]]), y)


def test_pairs_and_chunklets_from_triplets():
    t = np.array([[0, 1, 4], [2, 3, 0], [1, 5, 3]])
    pairs, labels = triplets_to_pairs(t)
    np.testing.assert_array_equal(pairs, [[0, 1], [0, 4], [2, 3], [2, 0], [1, 5], [1, 3]])
    np.testing.assert_array_equal(labels, [1, -1, 1, -1, 1, -1])
    chunks = triplets_to_chunklets(t, 7)
    assert chunks[0] == chunks[1] == chunks[5]
    assert chunks[2] == chunks[3] != chunks[0]
    assert chunks[4] == chunks[6] == -1


def test_one_pair_per_triplet_alternates_similar_and_dissimilar():
    """The OAHU experiments' count: m triplets give m pairs, (a, p) +1 for even i, (a, n) -1 for
    odd i, in stream order."""
    t = np.array([[0, 1, 4], [2, 3, 0], [1, 5, 3]])
    pairs, labels = triplets_to_pairs(t, per_triplet=1)
    np.testing.assert_array_equal(pairs, [[0, 1], [2, 0], [1, 5]])
    np.testing.assert_array_equal(labels, [1, -1, 1])
    assert pairs.dtype == labels.dtype == np.int64
    pairs, labels = triplets_to_pairs(t[:0], per_triplet=1)
    assert pairs.shape == (0, 2) and labels.shape == (0,)
    with pytest.raises(ValueError, match="per_triplet"):
        triplets_to_pairs(t, per_triplet=3)
