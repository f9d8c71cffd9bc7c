"""Text corpora for the Schultz & Joachims experiments: documents with their label columns.

A :class:`TextCorpus` holds raw document texts (str) and named label columns (one str per
document, e.g. "topic", "university"); features (binary bag of words, TFIDF) are computed by the
protocol (:mod:`tripletbench.harness.svm_experiment`), with the vocabulary of all the documents (no labels).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .base import DataError


@dataclasses.dataclass(frozen=True)
class TextCorpus:
    """``texts``: list of n str; ``labels``: column name -> (n,) str array; ``files``: source
    file name -> sha256 (or its provenance line); ``note``: where the corpus comes from (for
    captions); ``collection_counts``: column -> {group: items in the whole collection the corpus
    was drawn from} (tie-breaks; empty where not known)."""

    name: str
    texts: list
    labels: dict
    files: dict
    note: str = ""
    collection_counts: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        n = len(self.texts)
        if n == 0:
            raise DataError(f"{self.name}: no documents")
        for k, v in self.labels.items():
            if len(v) != n:
                raise DataError(f"{self.name}: label column {k!r} has {len(v)} rows, not {n}")
        empty = [i for i, t in enumerate(self.texts) if not str(t).strip()]
        if empty:
            raise DataError(f"{self.name}: {len(empty)} empty documents (first: #{empty[0]})")

    def label(self, column: str) -> np.ndarray:
        """The (n,) str array of one label column; :class:`DataError` for an unknown column."""
        if column not in self.labels:
            raise DataError(f"{self.name} has no label {column!r}; it has {sorted(self.labels)}")
        return np.asarray(self.labels[column]).astype(str)
