"""Transitive closure of triplet constraints (datasets/constraints.py), on hand-made graphs."""

import numpy as np
import pytest

from tripletbench.datasets.base import DataError
from tripletbench.datasets.constraints import (
    closure_components,
    closure_triplets,
    sample_closure_triplets,
    seeds_plus_closure,
)

# 0 ~ 1 (seed), 1 ~ 2 (seed) => {0, 1, 2} one class; 0 !~ 3 => 3 dissimilar to all of {0, 1, 2}
SEEDS = np.array([[0, 1, 3], [1, 2, 3]])


def test_components_and_dissimilar_pairs():
    comp, dis = closure_components(SEEDS, 5)
    assert comp[0] == comp[1] == comp[2] != comp[3] != comp[4]
    assert dis == {frozenset((comp[0], comp[3]))}


def test_closure_of_a_chain_is_known():
    # a in {0,1,2}, p another of them (6 ordered pairs), n = 3: 6 triplets, 2 of them seeds
    expected = {(0, 2, 3), (1, 0, 3), (2, 0, 3), (2, 1, 3)}
    assert {tuple(r) for r in closure_triplets(SEEDS, 5).tolist()} == expected


def test_dissimilarity_propagates_through_similarity_on_both_sides():
    # {0,1} ~, {2,3} ~, 1 !~ 2 => every member of one set dissimilar to every member of the other
    seeds = np.array([[0, 1, 2], [2, 3, 1]])
    got = {tuple(r) for r in closure_triplets(seeds, 4).tolist()}
    full = {(a, p, n) for a, p in [(0, 1), (1, 0)] for n in (2, 3)}
    full |= {(a, p, n) for a, p in [(2, 3), (3, 2)] for n in (0, 1)}
    assert got == full - {(0, 1, 2), (2, 3, 1)}


def test_sampled_closure_is_distinct_new_and_inside_the_closure():
    rng = np.random.default_rng(0)
    seeds = np.array([[0, 1, 4], [1, 2, 5], [4, 5, 0], [6, 7, 0]])
    allowed = {tuple(r) for r in closure_triplets(seeds, 8).tolist()}
    new = sample_closure_triplets(seeds, len(allowed), 8, rng)  # draw all of them
    got = [tuple(r) for r in new.tolist()]
    assert len(set(got)) == len(got) and set(got) == allowed
    with pytest.raises(DataError, match="fewer than"):
        sample_closure_triplets(seeds, len(allowed) + 1, 8, rng)


def test_order_of_creation_is_seeded_and_seeds_come_first():
    y = np.repeat(np.arange(4), 10)
    a = seeds_plus_closure(y, 30, 40, np.random.default_rng(3))
    b = seeds_plus_closure(y, 30, 40, np.random.default_rng(3))
    np.testing.assert_array_equal(a, b)
    assert len(a) == 70
    # every triplet respects the labels (the closure of class-consistent seeds is consistent)
    assert np.all(y[a[:, 0]] == y[a[:, 1]]) and np.all(y[a[:, 0]] != y[a[:, 2]])


def test_contradictory_seeds_raise():
    with pytest.raises(DataError, match="contradictory"):
        closure_components(np.array([[0, 1, 2], [1, 2, 3]]), 4)
