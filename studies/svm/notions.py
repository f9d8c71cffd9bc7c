"""The notions of distance of Schultz & Joachims (2003), section 5, and their triplets: which
rows of Table 1 a notion has, whether its data can be served, the random document split, the
rules "i is closer to j than to k" and the draw of rule triplets (steps 1, 3 and 4 of
:mod:`tripletbench.studies.svm.experiment`). Random streams:
``np.random.default_rng([seed, STREAMS[purpose]])``."""

from __future__ import annotations

import dataclasses

import numpy as np

from tripletbench.datasets.base import DataError

STREAMS = {"split": 100, "train_triplets": 101, "test_triplets": 102, "mds": 103, "gamma": 104}


@dataclasses.dataclass(frozen=True)
class Notion:
    """A notion of distance of section 5.

    ``corpus``: "webkb", "reuters" or a prepared dataset's name; ``column``: the label column
    whose equal values make "the same" (university, topic, class); ``extra``: an additional rule
    ``(anchor label, positive label, negative labels)`` on the same column, OR-ed with the same-
    group rule (Topic+FacultyStudent); ``largest_groups``: only items of the ``n_groups`` largest
    groups take part (University: seven universities); ``mimics``: for a stand-in, the paper's
    notion whose rule it copies."""

    name: str
    corpus: str
    column: str
    extra: tuple | None = None
    largest_groups: bool = False
    mimics: str = ""


NOTIONS = {
    n.name: n
    for n in (
        Notion("webkb_university", "webkb", "university", largest_groups=True),
        Notion("webkb_topic", "webkb", "topic"),
        Notion(
            "webkb_topic_facultystudent",
            "webkb",
            "topic",
            extra=("faculty", "student", ("course", "project")),
        ),
        Notion("reuters_topic", "reuters", "topic", mimics="webkb_topic"),
        Notion(
            "reuters_topic_corngrain",
            "reuters",
            "topic",
            extra=("corn", "grain-not-corn", ("neither",)),
            mimics="webkb_topic_facultystudent",
        ),
    )
}
TEXT_NOTIONS = (
    NOTIONS  # the text notions by name (tripletbench.harness.config checks names against it)
)


def class_notion(dataset: str) -> Notion:
    """The same-class notion of a class-labelled prepared set (not in the paper)."""
    return Notion(dataset, dataset, "class")


TEXT_METHODS = ("SVM-relative", "SVM-relative-RBF", "Binary", "TFIDF")
CLASS_METHODS = ("SVM-relative", "SVM-relative-RBF", "Eucl")
"""The rows of Table 1 that a text notion and a class-labelled set each have (the static
baselines of text are Binary and TFIDF; of a prepared set, its Euclidean distance)."""


def method_applies(notion: str, method: str) -> bool:
    """Whether Table 1's row ``method`` exists for ``notion`` (a text notion or a dataset)."""
    return method in (TEXT_METHODS if notion in NOTIONS else CLASS_METHODS)


def notion_available(notion: str, route: str, mirror: str | None = None) -> bool:
    """Whether ``notion`` can run on ``route``: a WebKB notion needs the download route (and,
    with a folder ``mirror``, the archive in it); the Reuters stand-ins ship embedded; a
    class-labelled set as :meth:`tripletbench.datasets.base.DatasetSpec.has_route`."""
    from tripletbench.datasets import get_dataset

    if notion in NOTIONS:
        if NOTIONS[notion].corpus != "webkb":
            return True
        from tripletbench.datasets.webkb import SPEC as WEBKB

        return route == "download" and WEBKB.has_route(route, mirror)
    return get_dataset(notion).has_route(route, mirror)


def get_notion(name: str) -> Notion:
    """The text notion ``name`` or, for any other name, the same-class notion of that dataset."""
    return NOTIONS.get(name) or class_notion(name)


def stream(seed: int, purpose: str) -> np.random.Generator:
    return np.random.default_rng([int(seed), STREAMS[purpose]])


def document_split(n: int, seed: int, train_fraction: float = 0.7):
    """Random split of n items: (train, test) sorted int64 index arrays, round(f n) in train."""
    if not 0 < train_fraction < 1:
        raise ValueError(f"train_fraction must be in (0, 1), got {train_fraction}")
    perm = stream(seed, "split").permutation(n)
    k = round(train_fraction * n)
    if k < 3 or n - k < 3:
        raise DataError(f"{n} items cannot be split into a train and a test part of 3 or more")
    return np.sort(perm[:k]), np.sort(perm[k:])


# -- the rules ---------------------------------------------------------------------------------


def rule_holds(notion: Notion, g: np.ndarray, i, j, k) -> np.ndarray:
    """Whether the triple (i, j, k) of items is one of ``notion``'s comparisons "i is closer to j
    than to k": g_i = g_j and g_k != g_i (the same-group rule), or, with ``notion.extra`` =
    (a, p, negatives), g_i = a, g_j = p and g_k in negatives. ``g``: (n,) labels of the notion's
    column; ``i``, ``j``, ``k``: int index arrays of one shape. Returns a bool array of it."""
    g = np.asarray(g)
    gi, gj, gk = g[i], g[j], g[k]
    ok = (gi == gj) & (gk != gi)
    if notion.extra is not None:
        a, p, negatives = notion.extra
        ok |= (gi == a) & (gj == p) & np.isin(gk, list(negatives))
    return ok


def eligible_items(
    notion: Notion, g: np.ndarray, n_groups: int | None = None, tie_counts: dict | None = None
) -> np.ndarray:
    """(n,) bool: the items that take part in ``notion``'s triplets. All of them, except for a
    notion with ``largest_groups`` and ``n_groups`` set: the items of the ``n_groups`` groups with
    the most items. Ties are broken by ``tie_counts`` (group -> its size in the whole collection,
    e.g. a university's WebKB pages of every class: the larger first), then by name where that
    ties too. Our rule: the paper names neither the seven universities nor a tie-break; on the
    real WebKB pages nyu.edu and ualberta.ca tie for the seventh place with 105 pages of the four
    topics, and nyu.edu has 145 pages in the collection against 110. Raises :class:`DataError` if
    there are fewer groups."""
    g = np.asarray(g).astype(str)
    if not notion.largest_groups or n_groups is None:
        return np.ones(len(g), dtype=bool)
    names, counts = np.unique(g, return_counts=True)
    if len(names) < n_groups:
        raise DataError(f"{notion.name}: {len(names)} groups, fewer than the {n_groups} asked for")
    tie = tie_counts or {}
    order = sorted(range(len(names)), key=lambda q: (-counts[q], -tie.get(names[q], 0), names[q]))
    keep = names[order[:n_groups]]
    return np.isin(g, keep)


def count_rule_triplets(notion: Notion, g: np.ndarray) -> int:
    """The number of ordered triples of distinct items (i, j, k) for which the rule holds
    (exact: the rule depends on the labels only, so it sums over label triples (a, b, c) the
    count n_a (n_b - [a = b]) (n_c - [c = a] - [c = b]))."""
    names, counts = np.unique(np.asarray(g).astype(str), return_counts=True)
    q = len(names)
    grid = np.meshgrid(np.arange(q), np.arange(q), np.arange(q), indexing="ij")
    a, b, c = (x.ravel() for x in grid)
    ok = rule_holds(notion, names, a, b, c)
    na = counts[a].astype(object)
    nb = counts[b] - (a == b)
    nc = counts[c] - (c == a) - (c == b)
    return int(sum(x * y * z for x, y, z in zip(na[ok], nb[ok], nc[ok]) if y > 0 and z > 0))


def _distinct_triples(m: int, size: int, rng: np.random.Generator):
    """``size`` uniform ordered triples of distinct integers in [0, m) (three int64 arrays)."""
    i = rng.integers(m, size=size)
    j = rng.integers(m - 1, size=size)
    j += j >= i
    lo, hi = np.minimum(i, j), np.maximum(i, j)
    k = rng.integers(m - 2, size=size)
    k += k >= lo
    k += k >= hi
    return i, j, k


_BATCH_KEPT = 32_768  # rule triplets expected per batch of candidates (sample_rule_triplets)


def sample_rule_triplets(notion: Notion, g: np.ndarray, n: int, rng: np.random.Generator):
    """The paper's draw (section 5): three distinct items uniformly at random, kept when
    ``notion``'s rule holds (:func:`rule_holds`), until ``n`` distinct triples are kept, in the
    order drawn (a triple drawn again is dropped: P is a set). Candidates come in batches whose
    size depends on the rule's fraction only, not on ``n``, so the first n' triples are the same
    for every n >= n' (one ``rng`` state): a size's training set does not depend on the largest
    size of the configuration.

    ``g``: (m,) labels of the items. Returns (int64 (n, 3) indices into ``g``, the fraction of
    ordered distinct triples that satisfy the rule). Raises :class:`DataError` when fewer than
    ``n`` triples satisfy the rule, ``ValueError`` for n < 1."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    g = np.asarray(g).astype(str)
    m = len(g)
    n_valid = count_rule_triplets(notion, g) if m >= 3 else 0
    if n_valid < n:
        raise DataError(
            f"{notion.name}: only {n_valid} distinct triples of these {m} items satisfy the rule, "
            f"{n} asked for"
        )
    rate = n_valid / (m * (m - 1) * (m - 2))
    kept = np.empty(0, dtype=np.int64)  # codes (i m + j) m + k, in draw order
    while len(kept) < n:
        size = int(min(max(min(_BATCH_KEPT, n_valid) / rate, 1024), 4_000_000))  # not of n
        i, j, k = _distinct_triples(m, size, rng)
        ok = rule_holds(notion, g, i, j, k)
        codes = np.concatenate([kept, (i[ok] * m + j[ok]) * m + k[ok]])
        _, first = np.unique(codes, return_index=True)
        kept = codes[np.sort(first)]
    kept = kept[:n]
    t = np.column_stack([kept // (m * m), (kept // m) % m, kept % m]).astype(np.int64)
    return t, rate


def draw_triplets(notion, g, part, n, seed, purpose, eligible=None):
    """``n`` rule triplets among the items ``part`` (those of ``eligible``, a bool mask over all
    items, if given), as indices into ``part`` (int64 (n, 3)), and the rule's fraction."""
    part = np.asarray(part)
    inside = np.arange(len(part)) if eligible is None else np.flatnonzero(eligible[part])
    t, rate = sample_rule_triplets(notion, np.asarray(g)[part[inside]], n, stream(seed, purpose))
    return inside[t], rate
