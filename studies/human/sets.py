"""The human-judgment sets and their availability: the config's set names (every
``HUMAN_SET`` of :mod:`tripletbench.datasets`, :class:`tripletbench.datasets.human_set.HumanSet`),
whether the configured route or mirror can give a set (and why not, for the table and the
figures), loading a set's judgments, its feature sets and their normalisation. Nothing here
names a set: each set's module declares what the study needs of it."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from tripletbench.datasets import HUMAN_SETS
from tripletbench.datasets.human_set import HumanSet

SETS: dict[str, HumanSet] = HUMAN_SETS
"""The config's set name -> its declaration (found in :mod:`tripletbench.datasets`)."""


def human_set(name: str) -> HumanSet:
    """The declaration of set ``name``; raises ``ValueError`` listing the known sets."""
    try:
        return SETS[name]
    except KeyError:
        raise ValueError(f"unknown human set {name!r}; known sets: {', '.join(SETS)}") from None


def all_feature_sets() -> list[str]:
    """Every feature set some set has (the image descriptors first, then the sets' own, in
    module order): the schema's list and the rules' wildcard."""
    return list(dict.fromkeys(f for s in SETS.values() for f in s.feature_sets))


def available(name: str, route: str, mirror: str | None) -> bool:
    """Whether set ``name`` can be fetched (:meth:`HumanSet.available`): the download route
    only; with a folder mirror, one of the set's ``mirror_paths`` must be there."""
    return human_set(name).available(route, mirror)


def load(name: str, cache_dir, mirror: str | None, allow_unpinned: bool = False):
    """Set ``name``'s :class:`tripletbench.datasets.human_judgments.Judgments` (fetched once).
    Raises :class:`tripletbench.datasets.DataError` where the set's declaration and its rows
    disagree: ``publisher_split`` declared and no per-row ``split`` column, or the reverse
    (protocol (d) runs on that column; its table column follows the declaration), ``counted``
    declared and no answer counts, or the reverse (the ceiling row is computed where counts
    are; the table's n/a follows the declaration). The rows get the per-row column ``unit``:
    each row's unit of collection (:attr:`HumanSet.unit`; protocol (a)'s groups)."""
    from tripletbench.datasets import DataError

    hset = human_set(name)
    j = hset.load(Path(cache_dir), mirror=mirror, allow_unpinned=allow_unpinned)
    if bool(hset.publisher_split) != ("split" in j.columns):
        raise DataError(
            f"human set {name}: its declaration says publisher_split="
            f"{hset.publisher_split!r} but its rows {'lack' if hset.publisher_split else 'have'}"
            " a 'split' column (the publisher's train/test split); make the two agree"
        )
    if hset.counted != (j.counts is not None):
        raise DataError(
            f"human set {name}: its declaration says counted={hset.counted} but its rows "
            f"{'have no' if hset.counted else 'have'} answer counts; make the two agree"
        )
    units = np.arange(len(j.triplets)) if hset.unit is None else hset.unit(j)
    units = np.asarray(units, dtype=np.int64)
    if units.shape != (len(j.triplets),):
        raise DataError(
            f"human set {name}: its unit gives {units.shape} ids for {len(j.triplets)} rows"
        )
    return dataclasses.replace(j, columns={**j.columns, "unit": units})


def feature_sets(name: str, wanted) -> list[str]:
    """The feature sets of ``wanted`` that set ``name`` has (:attr:`HumanSet.feature_sets`)."""
    have = human_set(name).feature_sets
    return [f for f in wanted if f in have]


def item_features(name: str, judgments, kind: str) -> np.ndarray:
    """Feature set ``kind`` of set ``name``'s items: (n_items, d) float64 in item order, an
    image one or the set's own (:func:`tripletbench.datasets.human_features.item_features`,
    cached per process). Raises ``ValueError`` for a feature set the set does not have."""
    from tripletbench.datasets.human_features import item_features as compute

    return compute(judgments, kind, own=human_set(name).features)


def feature_owners(kind: str) -> list[str]:
    """The sets that have feature set ``kind`` (all of them for an image descriptor)."""
    return [n for n, s in SETS.items() if kind in s.feature_sets]


def normalize(X: np.ndarray, how: str) -> np.ndarray:
    """``"l2"``: every row at unit length (a zero row stays zero); ``"none"``: as computed."""
    X = np.asarray(X, dtype=np.float64)
    if how == "none":
        return X
    n = np.linalg.norm(X, axis=1, keepdims=True)
    return X / np.where(n > 0, n, 1.0)


def route_and_mirror(config: dict) -> tuple[str, str | None]:
    """``(route, mirror)`` the human sets are fetched by: ``human.mirror`` where the block names
    one (the download route's mirror layout, whatever ``data.route`` says: how the CI config
    reads ``../shared/mirror`` beside an embedded run), else ``data.route`` and ``data.mirror``."""
    block = config.get("human") or {}
    if block.get("mirror"):
        return "download", block["mirror"]
    data = config.get("data") or {}
    return data.get("route", "embedded"), data.get("mirror")


def missing_reason(config: dict) -> str:
    """Why a configured set did not run, for the table and the figure: "needs download"
    (embedded route), "not in the data mirror", or, for ``human.mirror``, that the folder is
    absent (ours: the CI config names ``../shared/mirror``, which a clone may lack; the run
    goes on without the sets)."""
    block = config.get("human") or {}
    mirror = block.get("mirror")
    if mirror:
        from tripletbench.datasets.base import DataUnavailable, mirror_location

        try:
            mirror_location(mirror)
        except DataUnavailable:
            return f"not run: no data mirror at {mirror} (human.mirror)"
        return f"not in the data mirror {mirror} (human.mirror)"
    route, data_mirror = route_and_mirror(config)
    if route != "download":
        return "needs download"
    return "not in the data mirror" if data_mirror else "not run"
