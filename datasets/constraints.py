"""Constraint generators: class-based random triplets and the conversions the pair learners need.

A triplet is a row ``(anchor, positive, negative)`` of indices into one feature matrix: the anchor
and the positive share a class, the negative has another class. Constraint sets are saved as
int64 index arrays together with the seed that drew them (see ``workflow/scripts/constraints.py``).
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from .base import DataError


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


def check_triplets(
    triplets: np.ndarray, y: np.ndarray | None = None, n_samples: int | None = None
) -> np.ndarray:
    """Validate an index triplet array; with ``y`` also check the class conditions.

    Returns the array as int64 (n, 3). Raises :class:`DataError` on a wrong shape, zero triplets,
    out-of-range indices, or (with ``y``) an anchor/positive of different classes or a negative of
    the anchor's class.
    """
    t = np.asarray(triplets)
    if t.ndim != 2 or t.shape[1] != 3:
        raise DataError(f"triplets must have shape (n, 3), got {t.shape}")
    if len(t) == 0:
        raise DataError("zero usable triplets")
    if not np.issubdtype(t.dtype, np.integer):
        raise DataError(f"triplet indices must be integers, got dtype {t.dtype}")
    n = len(y) if y is not None else n_samples
    if n is not None and (t.min() < 0 or t.max() >= n):
        raise DataError(f"triplet indices out of range [0, {n})")
    if y is not None:
        y = np.asarray(y)
        if np.any(y[t[:, 0]] != y[t[:, 1]]):
            raise DataError("some triplets have anchor and positive of different classes")
        if np.any(y[t[:, 0]] == y[t[:, 2]]):
            raise DataError("some triplets have a negative of the anchor's class")
    return t.astype(np.int64)


def triplets_to_pairs(triplets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs for the pair learners (LEGO, ITML): each triplet (a, p, n) gives (a, p) with label +1
    (similar) and then (a, n) with label -1 (dissimilar), in triplet order.

    Returns ``pairs`` int64 (2n, 2) and ``labels`` int64 (2n,) in {+1, -1}.
    """
    t = np.asarray(triplets)
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
    t = np.asarray(triplets)
    g = coo_matrix((np.ones(len(t)), (t[:, 0], t[:, 1])), shape=(n_samples, n_samples))
    _, comp = connected_components(g, directed=False)
    used = np.zeros(n_samples, bool)
    used[t[:, :2].ravel()] = True
    _, chunks = np.unique(comp[used], return_inverse=True)
    out = np.full(n_samples, -1, dtype=np.int64)
    out[used] = chunks
    return out
