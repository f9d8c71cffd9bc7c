"""What a crowd-sourced set declares: :class:`HumanSet`, one per module (``HUMAN_SET``).

A collection of people's relative comparisons is one module of this package, as a feature table
is: besides its loader, the module defines ``HUMAN_SET = HumanSet(...)``, and the package finds
it (:data:`tripletbench.datasets.HUMAN_SETS`, by :attr:`HumanSet.name`). Everything the human
study needs of a set is read from that declaration: the config's name (and the schema's list of
names), the titles its table and figures print, where a data mirror holds it, how it is loaded
(its items and answers: :class:`~tripletbench.datasets.human_judgments.Judgments`), the feature
sets it has beyond the image descriptors every set has (:data:`IMAGE_FEATURE_SETS`), whether its
publisher counts the answers per question (the human ceiling) and whether it comes with the
publisher's own train/test split (protocol (d)). The recipe: ``docs/extending.md``, "A
crowd-sourced set".
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Callable, Mapping

import numpy as np

# no import of the judgments or features modules: the package imports this one to find the sets
# (they import the package's registry in turn); ``Judgments`` below is a name for the reader

IMAGE_FEATURE_SETS = ("global", "hog")
"""The feature sets every collection has: descriptors of its item images
(:mod:`tripletbench.datasets.human_features`)."""

EMBEDDING_LITERATURE = (
    "Wilber et al. (2014) and Vankadara et al. (ordinal embedding, systematic evaluation) "
    "report embedding errors on Food-100 or the cars in figures or under other splits, and "
    "their text was not within our reach as numbers"
)
"""What the ordinal-embedding literature published on Food-100 and the 60 cars and the human
table does not show (the ``literature`` of both sets' declarations, written once; the caption prints it once)."""

NAME_PATTERN = r"[a-z][a-z0-9_]*"
"""A set's name: what the config's ``human.sets`` lists and the result files' paths hold."""


@dataclasses.dataclass(frozen=True)
class ItemFeatureSet:
    """A feature set a crowd-sourced set provides itself (precomputed item features, annotations
    of the items): ``compute(judgments)`` returns a finite float64 ``(n_items, d)`` array in the
    collection's item order (cached per process by
    :func:`tripletbench.datasets.human_features.item_features`). ``words``: what it is, for a
    figure's caption (may hold ``{dims}``, the number of columns); ``short``: the same in a few
    words, for the table's caption."""

    compute: Callable[["Judgments"], np.ndarray]
    words: str
    short: str


@dataclasses.dataclass(frozen=True)
class HumanSet:
    """A crowd-sourced set's declaration (the ``HUMAN_SET`` of its module).

    ``name``: the config's name (:data:`NAME_PATTERN`); ``title``: how figures and tables name it
    ("Food-100"), ``in_text`` how a sentence does ("the 60 cars"), ``cite`` the publication
    ("Wilber et al. 2014"). ``load(cache_dir, mirror=None, allow_unpinned=False)``: the
    collection as a :class:`~tripletbench.datasets.human_judgments.Judgments` (fetched once, its
    counts checked against the publisher's by
    :func:`~tripletbench.datasets.human_judgments.compare_with_published`). ``source``: its
    folder in a data mirror; ``mirror_paths``: paths under a folder mirror any one of which
    holds the set (the archive, or its extracted members). ``features``: feature set name ->
    :class:`ItemFeatureSet`, its own beyond :data:`IMAGE_FEATURE_SETS` (computed and cached by
    :func:`tripletbench.datasets.human_features.item_features` with ``own=features``).
    ``counted``: the rows carry answer counts, several people answered each question (accuracy weighted by count; the
    human ceiling is shown). ``publisher_split``: where the publisher splits the questions into
    training and test (the per-row column ``split``, "train" / "test"), that split in a few
    words; None: no protocol (d). ``literature``: numbers others published on it that the table
    does not show, and why (a sentence of the human table's caption; empty: none known).
    ``unit``: the unit of collection of each row, ``unit(judgments)`` -> (n,) int ids (the rows
    of one answer, one screen or one question share an id; protocol (a)'s folds keep a unit
    whole by default), ``unit_words`` the unit in words ("one answer (its two triplets)");
    None: each row is its own unit.

    Raises ``ValueError`` for a name that breaks :data:`NAME_PATTERN` or an own feature set that
    shadows an image descriptor.
    """

    name: str
    title: str
    in_text: str
    cite: str
    load: Callable[..., "Judgments"]
    source: str
    mirror_paths: tuple[str, ...]
    features: Mapping[str, ItemFeatureSet] = dataclasses.field(default_factory=dict)
    counted: bool = False
    publisher_split: str | None = None
    literature: str = ""
    unit: Callable[["Judgments"], np.ndarray] | None = None
    unit_words: str = "one row"

    def __post_init__(self):
        if not re.fullmatch(NAME_PATTERN, self.name):
            raise ValueError(f"human set name {self.name!r} does not match {NAME_PATTERN}")
        clash = sorted(set(self.features) & set(IMAGE_FEATURE_SETS))
        if clash:
            raise ValueError(
                f"human set {self.name}: own feature set(s) {clash} shadow an image one"
            )

    @property
    def display(self) -> str:
        """The title with its publication: "Food-100 (Wilber et al. 2014)"."""
        return f"{self.title} ({self.cite})"

    @property
    def words(self) -> str:
        """How a caption's sentence names it: "the 60 cars, Kleindessner & von Luxburg 2017"."""
        return f"{self.in_text}, {self.cite}"

    @property
    def feature_sets(self) -> tuple[str, ...]:
        """Every feature set it has: the image descriptors, then its own."""
        return (*IMAGE_FEATURE_SETS, *self.features)

    def available(self, route: str, mirror: str | None) -> bool:
        """Whether it can be fetched: the download route only (no embedded copy exists); with a
        folder mirror, the mirror must hold one of :attr:`mirror_paths`; an http(s) mirror is
        tried (a missing file is the fetch's error)."""
        if route != "download":
            return False
        if not mirror:
            return True
        from .fetch import DataUnavailable, mirror_location

        try:
            kind, base = mirror_location(mirror)
        except DataUnavailable:
            return False
        return kind != "folder" or any((Path(base) / p).exists() for p in self.mirror_paths)


__all__ = [
    "EMBEDDING_LITERATURE",
    "IMAGE_FEATURE_SETS",
    "NAME_PATTERN",
    "HumanSet",
    "ItemFeatureSet",
]
