"""Protocols and scoring for the human-judgment collections (the human-judgment study): the splits every
method is scored on (the same folds for every method; each protocol records its seed and a
digest of its index arrays) and triplet accuracy with ties counted as half.

Conventions. Triplets are int (n, 3) rows ``(i, j, k)`` of item indices: "i is closer to j than
to k" (:class:`tripletbench.datasets.human_judgments.Judgments`). A **question** is an anchor with an
unordered pair, ``(i, {j, k})``: the two orientations of a question, and the repeats of one
answer, share a question id (:func:`question_ids`).

Protocols (each returns a :class:`Protocol`: its name, seed, parameters and splits):

a) :func:`triplet_folds`: **held-out triplets among known items**: k-fold over the rows,
   ``sklearn.model_selection.KFold(n_splits, shuffle=True, random_state=seed)``. With
   ``groups`` (e.g. :func:`question_ids`) the folds are
   ``GroupKFold(n_splits, shuffle=True, random_state=seed)`` instead, so that every answer to
   one question falls in one fold: without groups, a question asked several times (Food-100:
   250,320 rows, 190,376 distinct) can be in training and test at once, and its two
   orientations can be split. Each row is tested exactly once over the folds.
b) :func:`item_folds`: **held-out items**: the items are split k-fold
   (``KFold(n_splits, shuffle=True, random_state=seed)`` over the item indices), so every item
   is a test item exactly once; a fold's training triplets are those whose **three items are
   all training items**, its test triplets those that involve **at least one test item** (in
   any role: anchor, positive or negative); the remaining rows (none) are unused. We chose "at
   least one" over "the anchor is a test item" because it uses every row (each row is a
   training row of the folds where none of its items is held out and a test row otherwise) and
   it asks a feature-based method the question "where does a new item sit among the others"
   in all three roles; :func:`new_items_per_triplet` counts, per test row, how many of its items are
   new, so a reader can break the accuracy down. Only a method that maps features can answer
   these test triplets: an ordinal embedding has no position for an item it never saw.
   :func:`held_out_item_split` is the same rule for one given set of test items and
   :func:`item_split` a seeded single split of the items.
c) :func:`learning_curve`: nested subsets of one fold's training rows: one seeded permutation
   (``numpy.random.default_rng(seed).permutation``) of the training indices, the subset of size
   ``n`` being its first ``n`` entries, so every smaller subset lies inside every larger one;
   :func:`curve_sizes` gives geometrically spaced sizes.
d) :func:`publisher_split` (material appearance similarity): the publisher's own training and
   test questions (Lagunas et al. 2019): training rows with their answer counts and the
   training majority triplets; the test **majority** triplets (ties left out; the authors'
   ``answers_diff``) against which a method is scored, and the test rows with counts for
   scoring against individual answers. :func:`human_ceiling` is the share of individual
   answers that agree with their question's majority answer.

Scoring (:func:`triplet_accuracy` and the functions over it): a row is right when
d(i, j) < d(i, k) and **a tie d(i, j) = d(i, k) counts as half** (a distance that cannot tell
j from k is scored at chance, 0.5, as a coin flip would be on average; the number of ties is
reported). This differs on purpose from :mod:`tripletbench.evaluation.triplets` (the class-derived
experiments count ties as wrong, as the learners' ``score`` does); on human sets the same rule
scores the chance row, the ordinal embeddings and the feature methods. With ``weights`` (the
answer counts) the accuracy is the weighted share: the share of individual answers the distance
agrees with. Under this rule, scoring the rows of a question set with their counts, the
best any distance can reach is :func:`human_ceiling`'s ``"ceiling"`` (ordering each question as
its majority does), which is why the ceiling counts the answers of a tied question as half.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Callable

import numpy as np

from tripletbench.algorithms._scores import tied

# --- triplets and questions -------------------------------------------------------------------


def _triplets(triplets, n_items: int | None = None) -> np.ndarray:
    t = np.asarray(triplets)
    if t.ndim != 2 or t.shape[1] != 3 or not np.issubdtype(t.dtype, np.integer):
        raise ValueError(
            f"triplets must be an int (n, 3) array, got {t.shape} {t.dtype}"
        )
    t = t.astype(np.int64, copy=False)
    if len(t) and t.min() < 0:
        raise ValueError("a triplet holds a negative item index")
    if n_items is not None and len(t) and t.max() >= n_items:
        raise ValueError(f"a triplet names an item outside 0..{n_items - 1}")
    return t


def question_ids(triplets) -> np.ndarray:
    """(n,) int64: one id per question ``(i, {j, k})``, equal for the two orientations
    ``(i, j, k)`` and ``(i, k, j)`` and for repeated rows (the code of ``(i, min, max)``).
    """
    t = _triplets(triplets)
    n = int(t.max()) + 1 if len(t) else 1
    lo, hi = np.minimum(t[:, 1], t[:, 2]), np.maximum(t[:, 1], t[:, 2])
    return (t[:, 0] * n + lo) * n + hi


# --- protocol records -------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Split:
    """One split: row indices ``train`` and ``test`` (int64, sorted) into the triplets; for
    held-out items also the item indices ``train_items`` / ``test_items``."""

    train: np.ndarray
    test: np.ndarray
    train_items: np.ndarray | None = None
    test_items: np.ndarray | None = None


@dataclasses.dataclass(frozen=True)
class Protocol:
    """A protocol's splits with what produced them: ``name`` ("triplet_folds", "item_folds",
    ...), ``seed``, ``params`` (n_splits, n_triplets, ...) and ``splits``. Every method of a
    table is scored on one Protocol; :meth:`record` is what a result file stores (the digest
    tells whether two runs used the same folds)."""

    name: str
    seed: int
    params: dict
    splits: tuple[Split, ...]

    def __iter__(self):
        return iter(self.splits)

    def __len__(self) -> int:
        return len(self.splits)

    def __getitem__(self, k: int) -> Split:
        return self.splits[k]

    def digest(self) -> str:
        """sha256 (hex) of every split's index arrays, in order."""
        h = hashlib.sha256()
        for s in self.splits:
            for a in (s.train, s.test, s.train_items, s.test_items):
                h.update(
                    b"-"
                    if a is None
                    else np.ascontiguousarray(a, dtype="<i8").tobytes()
                )
                h.update(b"|")
        return h.hexdigest()

    def record(self) -> dict:
        """A JSON-ready summary: name, seed, params, per-split sizes and the digest."""
        return {
            "protocol": self.name,
            "seed": int(self.seed),
            **{k: v for k, v in self.params.items()},
            "n_train": [int(len(s.train)) for s in self.splits],
            "n_test": [int(len(s.test)) for s in self.splits],
            "digest": self.digest(),
        }


def _seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(
            f"seed must be a non-negative int (recorded with the folds), not {seed!r}"
        )
    return int(seed)


# --- a) held-out triplets among known items -------------------------------------------------------


def triplet_folds(
    n_triplets: int, n_splits: int = 5, seed: int = 0, groups=None
) -> Protocol:
    """(a) k-fold over ``n_triplets`` rows: ``KFold(n_splits, shuffle=True,
    random_state=seed)``, or with ``groups`` ((n,) ids, e.g. :func:`question_ids`)
    ``GroupKFold(n_splits, shuffle=True, random_state=seed)`` so that rows of one group share a
    fold. The test sets partition the rows; each split's train is the other rows."""
    from sklearn.model_selection import GroupKFold, KFold

    seed = _seed(seed)
    n_triplets = int(n_triplets)
    if n_triplets < n_splits:
        raise ValueError(f"{n_triplets} triplets cannot be split into {n_splits} folds")
    rows = np.arange(n_triplets)
    if groups is None:
        it = KFold(n_splits, shuffle=True, random_state=seed).split(rows)
    else:
        groups = np.asarray(groups)
        if groups.shape != (n_triplets,):
            raise ValueError(
                f"groups of shape {groups.shape} for {n_triplets} triplets"
            )
        it = GroupKFold(n_splits, shuffle=True, random_state=seed).split(
            rows, groups=groups
        )
    splits = tuple(
        Split(np.sort(tr).astype(np.int64), np.sort(te).astype(np.int64))
        for tr, te in it
    )
    return Protocol(
        "triplet_folds",
        seed,
        {
            "n_splits": int(n_splits),
            "n_triplets": n_triplets,
            "grouped": groups is not None,
        },
        splits,
    )


# --- b) held-out items --------------------------------------------------------------------------


def held_out_item_split(triplets, test_items) -> tuple[np.ndarray, np.ndarray]:
    """(b) for one set of ``test_items``: ``(train_idx, test_idx)``, the rows whose three items
    are all outside ``test_items`` and the rows with at least one item in it (a partition of the
    rows)."""
    t = _triplets(triplets)
    n = max(int(t.max()) + 1 if len(t) else 0, int(np.max(test_items, initial=-1)) + 1)
    is_test = np.zeros(n, dtype=bool)
    is_test[np.asarray(test_items, dtype=np.int64)] = True
    touches = is_test[t].any(axis=1)
    return np.flatnonzero(~touches).astype(np.int64), np.flatnonzero(touches).astype(
        np.int64
    )


def new_items_per_triplet(triplets, test_items) -> np.ndarray:
    """(n,) int: how many of each row's three items are in ``test_items`` (0 to 3)."""
    t = _triplets(triplets)
    n = max(int(t.max()) + 1 if len(t) else 0, int(np.max(test_items, initial=-1)) + 1)
    is_test = np.zeros(n, dtype=bool)
    is_test[np.asarray(test_items, dtype=np.int64)] = True
    return is_test[t].sum(axis=1)


def item_split(n_items: int, test_size: float | int = 0.2, seed: int = 0):
    """A seeded split of the items ``0..n_items-1``: ``(train_items, test_items)``, sorted;
    ``test_size`` a fraction (rounded up) or a count. One permutation
    ``numpy.random.default_rng(seed).permutation(n_items)``: its first items are the test
    items."""
    seed = _seed(seed)
    k = (
        int(np.ceil(test_size * n_items))
        if isinstance(test_size, float)
        else int(test_size)
    )
    if not 0 < k < n_items:
        raise ValueError(
            f"test_size {test_size} leaves no training or no test item of {n_items}"
        )
    perm = np.random.default_rng(seed).permutation(n_items)
    return np.sort(perm[k:]).astype(np.int64), np.sort(perm[:k]).astype(np.int64)


def item_folds(triplets, n_items: int, n_splits: int = 5, seed: int = 0) -> Protocol:
    """(b) k-fold over the items (``KFold(n_splits, shuffle=True, random_state=seed)`` on
    ``0..n_items-1``); per fold, :func:`held_out_item_split` with that fold's test items.
    """
    from sklearn.model_selection import KFold

    seed = _seed(seed)
    t = _triplets(triplets, n_items)
    splits = []
    for tr_items, te_items in KFold(n_splits, shuffle=True, random_state=seed).split(
        np.arange(n_items)
    ):
        train, test = held_out_item_split(t, te_items)
        splits.append(Split(train, test, np.sort(tr_items), np.sort(te_items)))
    return Protocol(
        "item_folds",
        seed,
        {
            "n_splits": int(n_splits),
            "n_items": int(n_items),
            "n_triplets": len(t),
            "test_rule": "at least one test item",
        },
        tuple(splits),
    )


# --- c) learning curve ----------------------------------------------------------------------------


def curve_sizes(n_max: int, n_points: int = 6, n_min: int = 100) -> list[int]:
    """``n_points`` sizes from ``n_min`` to ``n_max``, geometrically spaced (rounded, distinct,
    increasing; ``n_max`` the last)."""
    if n_max < 1:
        raise ValueError("no training triplets for a learning curve")
    n_min = min(n_min, n_max)
    sizes = np.unique(np.round(np.geomspace(n_min, n_max, n_points)).astype(int))
    return [int(s) for s in sizes]


def learning_curve(train_idx, sizes, seed: int = 0) -> dict[int, np.ndarray]:
    """(c) size -> the first ``size`` entries of one seeded permutation of ``train_idx``
    (``numpy.random.default_rng(seed).permutation``): nested subsets (each smaller one lies in
    each larger one). Raises ``ValueError`` for a size above ``len(train_idx)``."""
    seed = _seed(seed)
    train_idx = np.asarray(train_idx, dtype=np.int64)
    perm = train_idx[np.random.default_rng(seed).permutation(len(train_idx))]
    out = {}
    for n in sorted(int(s) for s in sizes):
        if not 0 < n <= len(train_idx):
            raise ValueError(
                f"a curve size {n} outside 1..{len(train_idx)} training triplets"
            )
        out[n] = perm[:n]
    return out


# --- d) material: the publisher's split and the human ceiling -------------------------------------


def human_ceiling(triplets, counts) -> dict:
    """How well people agree with each other on a set of answered questions.

    ``triplets`` (n, 3) rows and ``counts`` (n,) answers per row (rows of one question in both
    orientations, repeats allowed; :func:`question_ids` groups them). Returns:

    * ``"ceiling"``: the share of individual answers that agree with their question's majority
      orientation, the answers of a tied question counting as half (= the count-weighted
      :func:`triplet_accuracy` of the majority vote, the best any distance reaches on these
      rows);
    * ``"ceiling_untied"``: the same over the questions without a tie only;
    * ``"ceiling_loo"``: each answer against the majority of the *other* answers to its
      question (ties half), over the questions with at least two answers: how well one person's
      answer is predicted by the others' (lower than ``"ceiling"``, in which each answer votes
      for the majority it is compared with);
    * counts: ``n_answers``, ``n_questions``, ``n_tied`` (questions), ``n_loo_answers``.
    """
    t = _triplets(triplets)
    c = np.asarray(counts, dtype=np.int64)
    if c.shape != (len(t),) or (c < 0).any():
        raise ValueError(f"counts must be (n,) non-negative ints for {len(t)} triplets")
    if c.sum() == 0:
        raise ValueError("no answers: the ceiling is undefined")
    q = question_ids(t)
    first = np.where(
        t[:, 1] < t[:, 2], 1, 0
    )  # orientation "closer to the smaller index"
    qs, inv = np.unique(q, return_inverse=True)
    inv = inv.ravel()
    a = np.bincount(
        inv, weights=c * first, minlength=len(qs)
    )  # answers for orientation 1
    b = np.bincount(
        inv, weights=c * (1 - first), minlength=len(qs)
    )  # for orientation 2
    total = a + b
    agree = np.maximum(a, b) + 0.0
    even = a == b  # answer counts: integers, compared exactly
    agree[even] = total[even] / 2
    untied = ~even & (total > 0)
    # leave one out: an answer for orientation 1 against the other answers (a - 1, b)
    many = total >= 2
    loo_a = np.where(a - 1 > b, 1.0, np.where(a - 1 == b, 0.5, 0.0)) * a
    loo_b = np.where(b - 1 > a, 1.0, np.where(b - 1 == a, 0.5, 0.0)) * b
    n_loo = total[many].sum()
    return {
        "ceiling": float(agree.sum() / total.sum()),
        "ceiling_untied": (
            float(agree[untied].sum() / total[untied].sum())
            if untied.any()
            else float("nan")
        ),
        "ceiling_loo": (
            float((loo_a + loo_b)[many].sum() / n_loo) if n_loo else float("nan")
        ),
        "n_answers": int(total.sum()),
        "n_questions": int((total > 0).sum()),
        "n_tied": int((even & (total > 0)).sum()),
        "n_loo_answers": int(n_loo),
    }


def publisher_split(judgments) -> dict:
    """(d) The material set's own split (``judgments.columns["split"]``, "train" / "test"):

    ``train_triplets`` / ``train_counts``: the training rows with their answer counts;
    ``train_majority`` / ``train_margin``: the training questions' majority triplets (ties left
    out); ``test_majority`` / ``test_margin``: the test questions' majority triplets, against
    which a method is scored (unweighted :func:`triplet_accuracy`); ``test_triplets`` /
    ``test_counts``: the test rows with counts (scoring against individual answers, comparable
    to ``ceiling``); ``ceiling``: :func:`human_ceiling` of the test rows;
    ``ceiling_train``: of the training rows."""
    split = np.asarray(judgments.columns["split"])
    out = {}
    for s in ("train", "test"):
        part = judgments.select(split == s)
        rows, counts = part.unique()
        maj, margin = part.majority()
        out[f"{s}_triplets"], out[f"{s}_counts"] = rows, counts
        out[f"{s}_majority"], out[f"{s}_margin"] = maj, margin
    out["ceiling"] = human_ceiling(out["test_triplets"], out["test_counts"])
    out["ceiling_train"] = human_ceiling(out["train_triplets"], out["train_counts"])
    return out


# --- scoring ------------------------------------------------------------------------------------


def triplet_accuracy(d_ap, d_an, weights=None) -> dict:
    """Triplet accuracy from the distances ``d_ap = d(i, j)`` and ``d_an = d(i, k)`` of each
    row: right when ``d_ap < d_an``, **half when they tie** (equal within ``TIE_RTOL`` = 1e-12
    of the larger, :func:`tripletbench.algorithms._scores.tied`: float rounding does not
    decide), wrong otherwise; with ``weights``
    ((n,) non-negative, e.g. answer counts) the weighted share. Returns
    ``{"triplet_accuracy", "n_ties", "n", "weight"}``. Raises ``ValueError`` for no rows,
    mismatched shapes, NaN distances or a zero total weight."""
    d_ap = np.asarray(d_ap, dtype=np.float64)
    d_an = np.asarray(d_an, dtype=np.float64)
    if d_ap.shape != d_an.shape or d_ap.ndim != 1:
        raise ValueError(
            f"distances must be (n,) alike, got {d_ap.shape} and {d_an.shape}"
        )
    if len(d_ap) == 0:
        raise ValueError("zero test triplets: triplet accuracy is undefined")
    if np.isnan(d_ap).any() or np.isnan(d_an).any():
        raise ValueError("the distances contain NaN")
    tie = tied(d_ap, d_an)
    right = ((d_ap < d_an) & ~tie) + 0.5 * tie
    w = (
        np.ones_like(right)
        if weights is None
        else np.asarray(weights, dtype=np.float64)
    )
    if w.shape != right.shape or (w < 0).any() or w.sum() <= 0:
        raise ValueError(
            f"weights must be (n,) non-negative with a positive sum, got {w.shape}"
        )
    return {
        "triplet_accuracy": float(np.dot(w, right) / w.sum()),
        "n_ties": int(np.sum(tie)),
        "n": len(d_ap),
        "weight": float(w.sum()),
    }


def distance_accuracy(
    distance: Callable, triplets, weights=None, similarity: bool = False
) -> dict:
    """:func:`triplet_accuracy` of a function over items: ``distance(i, j)`` takes two int
    index arrays of equal length and returns their (m,) distances (``similarity=True``: a
    similarity, higher = closer, e.g. a bilinear ``x_i^T W x_j``)."""
    t = _triplets(triplets)
    d_ap = np.asarray(distance(t[:, 0], t[:, 1]), dtype=np.float64)
    d_an = np.asarray(distance(t[:, 0], t[:, 2]), dtype=np.float64)
    if similarity:
        d_ap, d_an = -d_ap, -d_an
    return triplet_accuracy(d_ap, d_an, weights)


def _sq_dist(Z: np.ndarray, i: np.ndarray, j: np.ndarray) -> np.ndarray:
    D = Z[i] - Z[j]
    return np.einsum("kd,kd->k", D, D)


def feature_accuracy(X, triplets, transform=None, weights=None) -> dict:
    """:func:`triplet_accuracy` of the Euclidean distance between item features ``X``
    ((n_items, d)), or between the transformed features: ``transform`` a (k, d) matrix ``L``
    (distance ``||L (x_i - x_j)||``, a Mahalanobis metric ``M = L^T L``) or a callable ``X ->
    Z`` (a learner's ``transform``)."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"features must be (n_items, d), got {X.shape}")
    if transform is None:
        Z = X
    elif callable(transform):
        Z = np.asarray(transform(X), dtype=np.float64)
    else:
        L = np.asarray(transform, dtype=np.float64)
        if L.ndim != 2 or L.shape[1] != X.shape[1]:
            raise ValueError(
                f"a transform matrix must be (k, {X.shape[1]}), got {L.shape}"
            )
        Z = X @ L.T
    return embedding_accuracy(Z, triplets, weights)


def embedding_accuracy(Z, triplets, weights=None) -> dict:
    """:func:`triplet_accuracy` of the Euclidean distance in an item embedding ``Z``
    ((n_items, k), e.g. an ordinal embedding's ``embedding_``)."""
    Z = np.asarray(Z, dtype=np.float64)
    if Z.ndim != 2 or not np.isfinite(Z).all():
        raise ValueError(
            f"an embedding must be a finite (n_items, k) array, got {Z.shape}"
        )
    t = _triplets(triplets, len(Z))
    return triplet_accuracy(
        _sq_dist(Z, t[:, 0], t[:, 1]), _sq_dist(Z, t[:, 0], t[:, 2]), weights
    )


def learner_accuracy(model, X, triplets, weights=None) -> dict:
    """:func:`triplet_accuracy` of a fitted learner of this project over item features ``X``:
    its ``pair_score`` (higher = more similar: ``-d_M`` for a Mahalanobis learner, ``x^T W y``
    for a bilinear one) on index pairs, with ``X`` as its ``preprocessor`` for the call.
    """
    t = _triplets(triplets, len(X))
    old = getattr(model, "preprocessor", None)
    model.preprocessor = X
    try:
        s_ap = model.pair_score(t[:, [0, 1]])
        s_an = model.pair_score(t[:, [0, 2]])
    finally:
        model.preprocessor = old
    return triplet_accuracy(-np.asarray(s_ap), -np.asarray(s_an), weights)


__all__ = [
    "Protocol",
    "Split",
    "curve_sizes",
    "distance_accuracy",
    "embedding_accuracy",
    "feature_accuracy",
    "held_out_item_split",
    "human_ceiling",
    "item_folds",
    "item_split",
    "learner_accuracy",
    "learning_curve",
    "publisher_split",
    "question_ids",
    "new_items_per_triplet",
    "triplet_accuracy",
    "triplet_folds",
]
