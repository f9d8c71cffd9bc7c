"""The class-based random triplet sampler and the constraint conversions the learners use
(pairs for LEGO, ITML, RDML; chunklets for RCA), free of the data layer.

A module of its own, apart from :mod:`._checks`: the settings of a data job hold the code of its
script's import closure (:func:`tripletbench.harness.settings.code_hash`), so the split, which
checks its data but draws no triplet, does not rerun when the sampler changes.
``tripletbench.datasets.constraints`` re-exports these objects where they used to live.
"""

from __future__ import annotations

import numpy as np

from ._checks import DataError


def sample_class_triplets(
    y: np.ndarray, n_triplets: int, generator: np.random.Generator
) -> np.ndarray:
    """Draw ``n_triplets`` random class-based triplets, independently and with replacement.

    The anchor is uniform over the samples whose class has at least two members; the positive is
    uniform over the other members of the anchor's class; the negative is uniform over all samples
    of the other classes. This is the random class-based sampling of the SDCA and OASIS papers.

    ``y``: (n,) class labels. Returns int64 array (n_triplets, 3) of indices into ``y``.
    Raises :class:`DataError` if no valid triplet exists (fewer than two classes, or no class with
    two samples) and ``ValueError`` if ``n_triplets`` < 1.
    """
    y = np.asarray(y)
    if n_triplets < 1:
        raise ValueError(f"n_triplets must be >= 1, got {n_triplets}")
    classes, codes, counts = np.unique(y, return_inverse=True, return_counts=True)
    if len(classes) < 2:
        raise DataError(
            f"no valid triplet: all {len(y)} samples have one class ({classes.tolist()})"
        )
    eligible = np.flatnonzero(counts[codes] >= 2)
    if len(eligible) == 0:
        raise DataError(
            "no valid triplet: no class has two samples to form an anchor-positive pair"
        )
    order = np.argsort(codes, kind="stable")  # samples grouped by class
    start = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rank = np.empty(len(y), dtype=np.int64)  # position of each sample inside its class
    rank[order] = np.arange(len(y)) - start[codes[order]]

    anchor = eligible[generator.integers(len(eligible), size=n_triplets)]
    c = codes[anchor]
    q = generator.integers(counts[c] - 1)  # another member of the class: skip the anchor
    q = q + (q >= rank[anchor])
    positive = order[start[c] + q]
    r = generator.integers(len(y) - counts[c])  # any sample outside the class
    r = r + counts[c] * (r >= start[c])
    negative = order[r]
    return np.column_stack([anchor, positive, negative]).astype(np.int64)


def triplets_to_pairs(triplets: np.ndarray, per_triplet: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Pairs for the pair learners (LEGO, ITML, RDML), in triplet order.

    ``per_triplet`` = 2: each triplet (a, p, n) gives (a, p) with label +1 (similar) and then
    (a, n) with label -1 (dissimilar): 2m pairs from m triplets. ``per_triplet`` = 1: triplet i
    gives one pair, (a, p) +1 when i is even and (a, n) -1 when i is odd: m pairs, as many
    constraints as triplets, half similar (the OAHU paper, section 4.3.2, counts "pairwise or
    triplet" constraints alike; which pair each triplet yields is our choice).

    Returns ``pairs`` int64 (k, 2) and ``labels`` int64 (k,) in {+1, -1}. Raises ``ValueError``
    for ``per_triplet`` not 1 or 2.
    """
    t = np.asarray(triplets)
    if per_triplet == 1:
        similar = np.arange(len(t)) % 2 == 0
        pairs = np.where(similar[:, None], t[:, [0, 1]], t[:, [0, 2]]).astype(np.int64)
        return pairs.reshape(-1, 2), np.where(similar, 1, -1).astype(np.int64)
    if per_triplet != 2:
        raise ValueError(f"per_triplet must be 1 or 2, got {per_triplet!r}")
    pairs = np.empty((2 * len(t), 2), dtype=np.int64)
    pairs[0::2] = t[:, [0, 1]]
    pairs[1::2] = t[:, [0, 2]]
    labels = np.tile(np.array([1, -1], dtype=np.int64), len(t))
    return pairs, labels


def triplets_to_chunklets(triplets: np.ndarray, n_samples: int) -> np.ndarray:
    """Chunklets for RCA: connected components of the graph of the triplets' similar pairs.

    Every (anchor, positive) edge joins two samples into one chunklet; samples in no similar pair
    get -1 (metric-learn's "not in any chunklet"). Returns int64 (n_samples,).
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    t = np.asarray(triplets)
    g = coo_matrix((np.ones(len(t)), (t[:, 0], t[:, 1])), shape=(n_samples, n_samples))
    _, comp = connected_components(g, directed=False)
    used = np.zeros(n_samples, bool)
    used[t[:, :2].ravel()] = True
    _, chunks = np.unique(comp[used], return_inverse=True)
    out = np.full(n_samples, -1, dtype=np.int64)
    out[used] = chunks
    return out
