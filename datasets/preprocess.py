"""Feature checks, [-1, 1] min-max scaling and per-class train/test splits.

Seeds: every random choice of the harness draws from ``rng(seed, purpose)``, a NumPy generator
seeded with ``[seed, PURPOSES[purpose]]``, so that the split, the validation split and each
constraint set of one seed are independent streams and each can be regenerated alone.
"""

from __future__ import annotations

import numpy as np

# the learners' own feature checks (tripletbench.algorithms._checks), re-exported from here
from tripletbench.algorithms._checks import DataError, check_features, check_labelled  # noqa: F401

PURPOSES = {
    "split": 0,
    "validation_split": 1,
    "constraints_train": 2,
    "constraints_fit": 3,
    "learner": 4,
    "queries": 5,  # the query part of a test set (tripletbench.datasets.imageclef_flickr.table4_split)
}


def rng(seed: int, purpose: str) -> np.random.Generator:
    """The generator for ``purpose`` (a key of :data:`PURPOSES`) under the run seed ``seed``."""
    if purpose not in PURPOSES:
        raise KeyError(f"unknown seed purpose {purpose!r}; known: {sorted(PURPOSES)}")
    return np.random.default_rng([int(seed), PURPOSES[purpose]])


def minmax_scale(
    X: np.ndarray, lower: float = -1.0, upper: float = 1.0, fit_rows: np.ndarray | None = None
) -> np.ndarray:
    """Scale each feature linearly to [lower, upper] on the given data, as LIBSVM's svm-scale.

    ``fit_rows`` (a boolean mask or index array of rows) takes each feature's range from those
    rows only and applies it to all rows (svm-scale ``-s`` on a training file, then ``-r`` on
    its test file: other rows may fall outside [lower, upper]). A constant feature becomes 0
    (svm-scale omits it, which the sparse format reads as 0).
    ``X``: (n, d) float. Returns a new float64 array of the same shape.
    """
    X = np.asarray(X, dtype=np.float64)
    ref = X if fit_rows is None else X[fit_rows]
    lo, hi = ref.min(axis=0), ref.max(axis=0)
    span = hi - lo
    const = span == 0
    out = lower + (upper - lower) * (X - lo) / np.where(const, 1.0, span)
    out[:, const] = 0.0
    return out


def split_per_class(y: np.ndarray, first_fraction: float, generator: np.random.Generator):
    """Split indices class by class: ``round(first_fraction * n_c)`` of each class go first.

    ``y``: (n,) int class codes. Returns two sorted int64 index arrays. Every class keeps at least
    one sample on each side; a class with fewer than two samples raises :class:`DataError`.
    """
    y = np.asarray(y)
    first, second = [], []
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        if len(idx) < 2:
            raise DataError(f"class {c} has {len(idx)} sample(s); it needs at least 2 to be split")
        idx = generator.permutation(idx)
        k = min(max(int(round(first_fraction * len(idx))), 1), len(idx) - 1)
        first.append(idx[:k])
        second.append(idx[k:])
    return np.sort(np.concatenate(first)), np.sort(np.concatenate(second))


def make_split(
    y: np.ndarray, seed: int, train_fraction: float = 0.7, fit_fraction: float = 0.8
) -> dict:
    """The per-seed protocol split of the SDCA paper plus our validation split.

    Returns int64 index arrays into ``y``: ``train`` / ``test`` (per class ``train_fraction``) and,
    inside train, ``fit`` / ``val`` (per class ``fit_fraction``) for hyperparameter selection.
    """
    train, test = split_per_class(y, train_fraction, rng(seed, "split"))
    fit_pos, val_pos = split_per_class(y[train], fit_fraction, rng(seed, "validation_split"))
    return {"train": train, "test": test, "fit": train[fit_pos], "val": train[val_pos]}
