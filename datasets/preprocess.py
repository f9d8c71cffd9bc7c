"""Feature checks, [-1, 1] min-max scaling and per-class train/test splits.

Seeds: every random choice of the harness draws from ``rng(seed, purpose)``, a NumPy generator
seeded with ``[seed, PURPOSES[purpose]]``, so that the split, the validation split and each
constraint set of one seed are independent streams and each can be regenerated alone.
"""

from __future__ import annotations

import numpy as np

from .base import DataError

PURPOSES = {
    "split": 0,
    "validation_split": 1,
    "constraints_train": 2,
    "constraints_fit": 3,
    "learner": 4,
    "queries": 5,  # the query part of a test set (datasets.imageclef_flickr.table4_split)
}


def rng(seed: int, purpose: str) -> np.random.Generator:
    """The generator for ``purpose`` (a key of :data:`PURPOSES`) under the run seed ``seed``."""
    if purpose not in PURPOSES:
        raise KeyError(f"unknown seed purpose {purpose!r}; known: {sorted(PURPOSES)}")
    return np.random.default_rng([int(seed), PURPOSES[purpose]])


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
