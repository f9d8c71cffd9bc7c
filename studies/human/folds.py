"""The human-judgment protocols and their splits: protocols (a) held-out answers, (b) held-out
items, (c) the learning curve and (d) the publisher's split of one set and seed, and the training
answers of a fold (one triplet per answer, at most ``human.max_train_triplets`` of one seeded
permutation)."""

from __future__ import annotations

import numpy as np

PROTOCOLS = ("triplets", "items", "curve", "publisher")
#: The protocol letters of the table, the figures and their captions, by config name.
PROTOCOL_LETTERS = {"triplets": "a", "items": "b", "curve": "c", "publisher": "d"}


def answers(triplets: np.ndarray, counts: np.ndarray | None) -> np.ndarray:
    """One triplet per answer: each row repeated by its count (``None``: rows as they are)."""
    return triplets if counts is None else np.repeat(triplets, counts, axis=0)


def training_triplets(triplets, counts, rows, max_n, seed) -> np.ndarray:
    """The training answers of ``rows`` (:func:`answers`), at most ``max_n`` (``None``: all) of
    them: the first of one seeded permutation (:func:`tripletbench.evaluation.human_protocols.learning_curve`,
    nested over sizes)."""
    from tripletbench.evaluation.human_protocols import learning_curve

    t = answers(triplets[rows], None if counts is None else counts[rows])
    if max_n is None or len(t) <= max_n:
        return t
    return t[learning_curve(np.arange(len(t)), [max_n], seed)[max_n]]


GROUPINGS = ("unit", "question", "none")
"""How protocol (a)'s folds group the rows (``human.group_by``): by the set's unit of collection
(one answer, screen or question: :attr:`tripletbench.datasets.human_set.HumanSet.unit`), by
question (an anchor with an unordered pair, the grouping before 2026-11-29), or not at all."""


def fold_groups(judgments, how: str):
    """(n,) group ids of protocol (a)'s folds (:data:`GROUPINGS`), None for ``"none"``. Raises
    ``ValueError`` for ``"unit"`` on judgments not read through
    :func:`tripletbench.studies.human.sets.load` (no ``unit`` column) or another ``how``."""
    from tripletbench.evaluation.human_protocols import question_ids

    if how == "none":
        return None
    if how == "question":
        return question_ids(judgments.triplets)
    if how == "unit":
        if "unit" not in judgments.columns:
            raise ValueError(
                f"{judgments.name}: no 'unit' column; read the set through "
                "tripletbench.studies.human.sets.load (it adds each row's unit of collection)"
            )
        return np.asarray(judgments.columns["unit"])
    raise ValueError(f"human.group_by {how!r}: expected one of {GROUPINGS}")


def splits(judgments, cfg: dict, seed: int):
    """``([(protocol, fold, train_triplets, tests)], records)`` of one set and seed: ``tests``
    maps a scoring (``"answers"``, ``"majority"``) to ``(triplets, weights)``. The protocols of
    ``cfg["protocols"]``: (a) ``"triplets"`` and (b) ``"items"`` for every set, (c) ``"curve"``
    on (a)'s folds (one entry per fold and size of ``cfg["curve_sizes"]`` below the fold's
    training answers), (d) ``"publisher"`` for a set whose rows carry the publisher's split
    (the per-row column ``split``, "train" / "test": a set that declares ``publisher_split``,
    :func:`tripletbench.studies.human.sets.load` checks the two agree). ``records``: protocol -> its
    :meth:`tripletbench.evaluation.human_protocols.Protocol.record` (seed, sizes, ``digest`` of the index
    arrays; (c) has (a)'s, (d) a digest of the publisher's split)."""
    import hashlib

    from tripletbench.evaluation.human_protocols import (
        item_folds,
        publisher_split,
        triplet_folds,
    )

    t, c = judgments.triplets, judgments.counts
    protocols = cfg["protocols"]
    bound = cfg.get("max_train_triplets")
    out, records = [], {}
    if "triplets" in protocols or "curve" in protocols:
        groups = fold_groups(judgments, cfg.get("group_by", "unit"))
        prot = triplet_folds(len(t), cfg["n_splits"], seed, groups=groups)
        for k, s in enumerate(prot):
            tests = {"answers": (t[s.test], None if c is None else c[s.test])}
            train = training_triplets(t, c, s.train, bound, seed)
            if "triplets" in protocols:
                out.append(("triplets", str(k), train, tests))
            if "curve" in protocols:
                # nested: the first n of the permutation that bounds (a) (training_triplets);
                # sizes at or past (a)'s own training set are (a)'s point
                for n in sorted(cfg.get("curve_sizes") or []):
                    if n < len(train):
                        out.append(
                            ("curve", str(k), training_triplets(t, c, s.train, n, seed), tests)
                        )
        if "triplets" in protocols:
            records["triplets"] = prot.record()
        if "curve" in protocols:
            records["curve"] = {**prot.record(), "curve_sizes": list(cfg.get("curve_sizes") or [])}
    if "items" in protocols:
        prot = item_folds(t, len(judgments.items), cfg["n_splits"], seed)
        records["items"] = prot.record()
        for k, s in enumerate(prot):
            train = training_triplets(t, c, s.train, bound, seed)
            tests = {"answers": (t[s.test], None if c is None else c[s.test])}
            out.append(("items", str(k), train, tests))
    if "publisher" in protocols and "split" in judgments.columns:
        p = publisher_split(judgments)
        rows = np.arange(len(p["train_triplets"]))
        train = training_triplets(p["train_triplets"], p["train_counts"], rows, bound, seed)
        tests = {
            "answers": (p["test_triplets"], p["test_counts"]),
            "majority": (p["test_majority"], None),
        }
        h = hashlib.sha256()
        for key in ("train_triplets", "train_counts", "test_triplets", "test_counts"):
            h.update(np.ascontiguousarray(p[key], dtype="<i8").tobytes())
        records["publisher"] = {
            "protocol": "publisher_split",
            "seed": int(seed),
            "digest": h.hexdigest(),
        }
        out.append(("publisher", "publisher", train, tests))
    return out, records
