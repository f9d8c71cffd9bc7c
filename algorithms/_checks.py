"""The errors, input checks and constraint conversions the learners use, free of the data layer.

Importing a learner imports this module, never :mod:`datasets` (whose package imports every
dataset module and the downloader, pooch). :mod:`datasets` re-exports all of it where it used to
live: ``tripletbench.datasets.base.DataError``, ``tripletbench.datasets.preprocess.check_features`` / ``check_labelled`` and
``tripletbench.datasets.constraints.sample_class_triplets`` / ``triplets_to_pairs`` / ``triplets_to_chunklets``
are these objects, so existing callers and ``except DataError`` clauses keep working.
"""

from __future__ import annotations

import numpy as np


class DataError(ValueError):
    """Raised for data that is missing, corrupt or unusable; the message names the problem."""


class ExternalLearnerError(ValueError):
    """A library learner failed on the data it was given, or returned a metric that cannot rank
    (NaN or inf entries, all zero); the message names the learner, the problem and the remedy
    (the harness adds the dataset, seed and grid point). A ``ValueError``, as the library's own
    refusals were: a protocol that records a refused fit as a row with its error (the image
    sets' record_failures, a human-judgment curve point) still does."""


def check_features(X: np.ndarray, name: str = "data") -> np.ndarray:
    """Return ``X`` if it is a finite 2-D float array; raise :class:`DataError` naming the problem."""
    X = np.asarray(X)
    if X.ndim != 2:
        raise DataError(
            f"{name}: features must be 2-D (n_samples, n_features), got shape {X.shape}"
        )
    bad = ~np.isfinite(X)
    if bad.any():
        rows, cols = np.nonzero(bad)
        raise DataError(
            f"{name}: {bad.sum()} NaN/inf feature values in {len(np.unique(rows))} rows "
            f"(first at row {rows[0]}, column {cols[0]}); clean or impute them first"
        )
    return X


def check_n_features(learner, d: int, what: str = "features") -> None:
    """Raise :class:`DataError` when points of ``d`` features are scored by a ``learner`` fitted
    on another number (numpy would raise a bare "matmul: dimension mismatch"). The fitted number
    is ``n_features_in_`` where fit set it, else the column count of the fitted matrix the
    learner's ``_fitted_attributes`` names; a learner with neither (the Euclidean baseline)
    takes any d."""
    expected = getattr(learner, "n_features_in_", None)
    names = getattr(learner, "_fitted_attributes", None)
    if expected is None and isinstance(names, str):
        matrix = getattr(learner, names, None)
        if matrix is not None and np.ndim(matrix) == 2:
            expected = matrix.shape[1]
    if expected is not None and d != expected:
        raise DataError(
            f"{type(learner).__name__} {what}: the points have {d} features, but the model was "
            f"fitted on {expected}"
        )


def check_labelled(
    X, y, name: str = "data", min_classes: int = 1, min_per_class: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """``(X, y)`` checked for a learner that takes labelled points (LMNN, OPML).

    ``X``: (n, d) finite floats (:func:`check_features`), n >= 1; ``y``: (n,) one label per row.
    Raises :class:`DataError` naming the problem: no rows, a label count that differs from the
    row count, every row the same vector, fewer than ``min_classes`` classes, or a class with
    fewer than ``min_per_class`` rows (naming the class and its count). Returns X as float64 and
    y as an array."""
    X = check_features(np.asarray(X, dtype=np.float64), name)
    y = np.asarray(y)
    if X.shape[0] == 0:
        raise DataError(f"{name}: zero rows (no labelled points to learn from)")
    if y.shape != (X.shape[0],):
        raise DataError(f"{name}: {X.shape[0]} rows but labels of shape {y.shape}")
    if X.shape[0] > 1 and not np.any(X != X[0]):
        raise DataError(
            f"{name}: every row is the same vector (e.g. all zero); no distance to learn from"
        )
    classes, counts = np.unique(y, return_counts=True)
    if len(classes) < min_classes:
        raise DataError(
            f"{name}: {len(classes)} class(es) {classes.tolist()}; at least {min_classes} needed"
        )
    small = counts < min_per_class
    if small.any():
        c = int(np.argmin(counts))
        raise DataError(
            f"{name}: class {classes.tolist()[c]!r} has {counts[c]} row(s) ({small.sum()} "
            f"class(es) have fewer than {min_per_class}); at least {min_per_class} per class are "
            "needed"
        )
    return X, y


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
