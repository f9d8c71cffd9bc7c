"""The dataset specification: :class:`DatasetSpec`, what every dataset module defines as ``SPEC``.

Its own module, below the registry (``tripletbench.datasets``, which finds the specs) and below
:mod:`tripletbench.datasets.base` (the routes and prepared files, whose checks look a spec up in
the registry), so that neither imports the other in a circle; ``base`` re-exports it. It holds
no dataset.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Callable

import numpy as np

from tripletbench.algorithms._checks import DataError

from .fetch import EmbeddedFile, RemoteFile, mirror_location

ROUTES = ("embedded", "download")


@dataclasses.dataclass(frozen=True)
class DatasetSpec:
    """A dataset: its sources and parsers.

    ``parse_download(paths)`` and ``parse_embedded(paths)`` take the local paths of the route's
    files (same order as the spec lists them) and return ``(X, y_names)``: ``X`` float64 of shape
    (n_samples, n_features) and ``y_names`` of shape (n_samples,) with one class name per row.
    ``scale_download`` / ``scale_embedded`` say whether min-max scaling to [-1, 1] is still to be
    applied (the LIBSVM ``*.scale`` files are already scaled; the embedded copies are not).
    """

    name: str
    description: str
    shape: tuple[int, int, int]  # (n_samples, n_features, n_classes) of the files, checked on
    # every load (where the paper lists another size, paper_lists says so)
    download: tuple[RemoteFile, ...] = ()  # () = no download route (datasets/glass.py)
    parse_download: Callable[[list[Path]], tuple[np.ndarray, np.ndarray]] | None = None
    scale_download: bool = False
    embedded: tuple[EmbeddedFile, ...] = ()
    parse_embedded: Callable[[list[Path]], tuple[np.ndarray, np.ndarray]] | None = None
    scale_embedded: bool = True
    scaling_embedded: str = ""  # how the embedded parser scales, where it does (captions:
    # tripletbench.harness.captions.scaling_words)
    scaling_download: str = ""  # how the publisher scaled the files, where they come scaled
    title: str = ""  # the human name in tables and figures (default:
    # tripletbench.harness.plots.DISPLAY_NAMES)
    paper_lists: tuple[int, int, int] | None = None  # the (n_samples, n_features, n_classes)
    # the paper's table lists, where it differs from the files' (captions say both)
    tabular: bool = True  # False: not a feature table (image archive, corpus, pairs files), not a
    # name for the experiments' `datasets` lists (tripletbench.datasets.DATASETS leaves it out)

    @property
    def paper_shape(self) -> tuple[int, int, int]:
        """Deprecated name of :attr:`shape` (the files' shape, not the paper's: see
        :attr:`paper_lists`); reading it warns."""
        import warnings

        warnings.warn(
            "DatasetSpec.paper_shape is the files' shape and is now named DatasetSpec.shape "
            "(the paper's own size, where it differs: DatasetSpec.paper_lists)",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.shape

    def has_route(self, route: str, mirror: str | None = None) -> bool:
        """True if the dataset can be obtained through ``route`` ('embedded' or 'download'); with
        a folder ``mirror`` (:func:`mirror_location`), the download route needs every file in
        it (an http(s) mirror is not asked before the fetch, which names a missing file)."""
        check_route(route)
        if route == "embedded":
            return bool(self.embedded)
        if not self.download or not mirror:
            return bool(self.download)
        kind, base = mirror_location(mirror)
        return kind == "http" or all(
            (Path(base) / rf.source / rf.fname).is_file() for rf in self.download
        )


def check_route(route: str) -> None:
    if route not in ROUTES:
        raise DataError(f"unknown data route {route!r}; expected one of {ROUTES}")
