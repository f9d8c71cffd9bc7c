"""Constraint generators: class-based random triplets and the conversions the pair learners need.

A triplet is a row ``(anchor, positive, negative)`` of indices into one feature matrix: the anchor
and the positive share a class, the negative has another class. Constraint sets are saved as
int64 index arrays together with the seed that drew them (see ``workflow/scripts/constraints.py``).
"""

from __future__ import annotations

import numpy as np
from tripletbench.algorithms._checks import DataError

# the learners' own sampler and conversions (tripletbench.algorithms._constraints), re-exported
from tripletbench.algorithms._constraints import (  # noqa: F401
    sample_class_triplets,
    triplets_to_chunklets,
    triplets_to_pairs,
)


def protocol_triplets(
    y: np.ndarray, split, n_triplets: int, seed: int, parts=("train", "fit")
) -> dict:
    """The class-based random triplets of a protocol split: for each part (``"train"`` for the
    final fit, ``"fit"`` for hyperparameter selection) ``n_triplets`` triplets of indices into
    ``split[part]``, drawn from the seed's stream ``constraints_<part>``
    (:func:`tripletbench.datasets.preprocess.rng`) and checked (:func:`check_triplets`). Returns
    {part: int64 (n_triplets, 3)}; errors as :func:`sample_class_triplets`."""
    from .preprocess import rng

    out = {}
    for part in parts:
        labels = np.asarray(y)[split[part]]
        drawn = sample_class_triplets(labels, n_triplets, rng(seed, f"constraints_{part}"))
        out[part] = check_triplets(drawn, labels)
    return out


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


# --------------------------------------------------------------------------------------------
# Transitive closure of triplet constraints (OAHU paper, section 3.1 footnote; section 4.3.2).


class _UnionFind:
    """Disjoint sets over 0..n-1 with path halving and union by size."""

    def __init__(self, n: int):
        self.parent = np.arange(n)
        self.size = np.ones(n, dtype=np.int64)

    def find(self, i: int) -> int:
        p = self.parent
        while p[i] != i:
            p[i] = p[p[i]]
            i = p[i]
        return int(i)

    def union(self, i: int, j: int) -> None:
        ri, rj = self.find(i), self.find(j)
        if ri == rj:
            return
        if self.size[ri] < self.size[rj]:
            ri, rj = rj, ri
        self.parent[rj] = ri
        self.size[ri] += self.size[rj]


def closure_components(seeds: np.ndarray, n_samples: int):
    """Similarity components and dissimilar component pairs implied by seed triplets.

    Each seed (a, p, n) says a ~ p (similar) and a !~ n (dissimilar). Similarity closes
    transitively (a ~ p, p ~ q gives a ~ q): the classes are the connected components of the
    similar pairs (union-find). A dissimilar pair between two components makes every member of one
    dissimilar to every member of the other (a ~ b, a !~ c gives b !~ c).

    Returns ``(comp, dis)``: ``comp`` int64 (n_samples,) component id of every sample (samples in no
    seed are singletons) and ``dis`` a set of frozensets {c1, c2} of dissimilar component ids.
    Raises :class:`DataError` if the seeds contradict themselves (a dissimilar pair inside one
    similarity component).
    """
    t = check_triplets(seeds, n_samples=n_samples)
    uf = _UnionFind(n_samples)
    for a, p, _ in t.tolist():
        uf.union(a, p)
    roots = np.array([uf.find(i) for i in range(n_samples)])
    _, comp = np.unique(roots, return_inverse=True)
    dis = set()
    for a, _, n in t.tolist():
        ca, cn = int(comp[a]), int(comp[n])
        if ca == cn:
            raise DataError(
                f"contradictory seeds: {a} and {n} are dissimilar but similar by transitivity"
            )
        dis.add(frozenset((ca, cn)))
    return comp.astype(np.int64), dis


def closure_triplets(seeds: np.ndarray, n_samples: int) -> np.ndarray:
    """Every triplet (a, p, n) implied by the transitive closure of ``seeds`` and not a seed
    itself: a != p in one similarity component, n in a component dissimilar to it. For small
    graphs (tests, inspection): the result has sum_C |C|(|C|-1) sum_{C' !~ C} |C'| rows minus
    the seeds. Rows sorted lexicographically, int64 (m, 3)."""
    comp, dis = closure_components(seeds, n_samples)
    members = {c: np.flatnonzero(comp == c) for c in np.unique(comp)}
    seen = {tuple(r) for r in np.asarray(seeds).tolist()}
    out = []
    for c, mem in members.items():
        others = [o for o in members if frozenset((c, o)) in dis]
        negs = np.concatenate([members[o] for o in others]) if others else np.array([], int)
        for a in mem:
            for p in mem:
                if a == p:
                    continue
                out.extend((a, p, n) for n in negs if (a, p, n) not in seen)
    out = np.array(sorted(out), dtype=np.int64).reshape(-1, 3)
    return out


def sample_closure_triplets(
    seeds: np.ndarray, n_new: int, n_samples: int, generator: np.random.Generator
) -> np.ndarray:
    """``n_new`` distinct triplets drawn from the transitive closure of ``seeds``, none a seed.

    The OAHU paper's constraint stream (section 3.1 footnote; section 4.3.2: 5,000 seeds plus
    5,000 closure constraints): new triplets are appended after the seeds in their order of
    creation. Each is created by drawing a component C with probability proportional to its count
    of closure triplets, then an anchor and a positive (a != p) uniformly in C and a negative
    uniformly among the samples of the components dissimilar to C; repeats and seeds are redrawn.

    Returns int64 (n_new, 3) (only the new triplets; stack them after the seeds). Raises
    :class:`DataError` if the closure holds fewer than ``n_new`` new triplets.
    """
    if n_new < 0:
        raise ValueError(f"n_new must be >= 0, got {n_new}")
    comp, dis = closure_components(seeds, n_samples)
    ids, sizes = np.unique(comp, return_counts=True)
    size = dict(zip(ids.tolist(), sizes.tolist()))
    partners = {c: [] for c in size}
    for pair in dis:
        c1, c2 = tuple(pair)
        partners[c1].append(c2)
        partners[c2].append(c1)
    comps = [c for c in sorted(size) if size[c] >= 2 and partners[c]]
    neg_pool = {c: np.concatenate([np.flatnonzero(comp == o) for o in partners[c]]) for c in comps}
    mem = {c: np.flatnonzero(comp == c) for c in comps}
    counts = np.array([size[c] * (size[c] - 1) * len(neg_pool[c]) for c in comps], dtype=float)
    seen = {tuple(r) for r in np.asarray(seeds).tolist()}
    available = counts.sum() - sum(1 for r in seen if comp[r[0]] == comp[r[1]] and r[0] != r[1])
    if n_new > available:
        raise DataError(
            f"the transitive closure holds {int(available)} new triplets, fewer than {n_new}"
        )
    out: list[tuple[int, int, int]] = []
    made = set()
    prob = counts / counts.sum() if len(comps) else counts
    while len(out) < n_new:
        k = int(generator.choice(len(comps), p=prob))
        c = comps[k]
        i, j = generator.choice(len(mem[c]), size=2, replace=False)
        a, p = int(mem[c][i]), int(mem[c][j])
        n = int(neg_pool[c][generator.integers(len(neg_pool[c]))])
        key = (a, p, n)
        if key in seen or key in made:
            continue
        made.add(key)
        out.append(key)
    return np.array(out, dtype=np.int64).reshape(-1, 3)


def seeds_plus_closure(
    y: np.ndarray, n_seeds: int, n_closure: int, generator: np.random.Generator
) -> np.ndarray:
    """The OAHU paper's stream: ``n_seeds`` class-based random seed triplets
    (:func:`sample_class_triplets`), then ``n_closure`` triplets of their transitive closure
    (:func:`sample_closure_triplets`, which never looks at ``y``). Int64 (n_seeds + n_closure, 3).
    """
    seeds = sample_class_triplets(y, n_seeds, generator)
    new = sample_closure_triplets(seeds, n_closure, len(y), generator)
    return np.vstack([seeds, new])
