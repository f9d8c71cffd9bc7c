"""Features of the items of the human-judgment collections: one float64 row per item, in the
collection's item order (row ``i`` describes item ``i``, the index the triplets use), computed
from the item images with well-kept libraries, or by the set's own module.
Cached in memory only (per process; :func:`clear_cache`); nothing is written to disk.

Feature sets (:func:`item_features` picks one by name): the image descriptors every set has
(:data:`IMAGE_FEATURE_SETS`) and a set's own:

* ``"global"``: the project's 297-dimensional global image descriptor (colour histogram and
  moments, edge directions, Gabor texture, LBP; Wu et al., AAAI 2014, parts and lengths; our
  parameters), computed by :func:`tripletbench.datasets.global_descriptor.descriptor_from_bytes` on the image
  file's bytes exactly as for the MIRFLICKR / ImageCLEF images (Pillow decodes, converts to RGB,
  shrinks the longer side to at most ``max_side`` = 256 pixels). Every choice is stated in
  :mod:`tripletbench.datasets.global_descriptor`; nothing is re-implemented here.
* ``"hog"``: histograms of oriented gradients (Dalal & Triggs, "Histograms of oriented gradients
  for human detection", CVPR 2005) by ``skimage.feature.hog`` on a fixed-size grey image. Choices
  and their sources:

  - **image size** ``HOG_SIZE`` = 64 x 64 pixels (our choice: a fixed size makes every item's
    vector the same length; 64 is the width of Dalal & Triggs' detection window). The RGB image
    (Pillow ``convert("RGB")``) is resized to 64 x 64 with Pillow's ``Image.resize`` and
    ``Image.Resampling.BICUBIC`` (which filters over the whole source area when shrinking, so no
    aliasing); the **aspect ratio is not kept**: every image of a collection has the same
    treatment (the cars are 280 x 180, the materials 298 x 298, the Food-100 photographs of
    several sizes, 230 x 230 for about half of them), and nothing is cropped away;
  - **grey** by ``skimage.color.rgb2gray`` (ITU-R BT.709 luma, values in [0, 1]). Dalal & Triggs
    take, at each pixel, the gradient of the colour channel with the largest norm and report
    grey-level images 1.5% worse at 1e-4 false positives per window; we keep the grey image as
    the simpler standard form (skimage's default, ``channel_axis=None``);
  - **no gamma compression** (``transform_sqrt=False``, skimage's default; Dalal & Triggs
    report square-root compression gives only a modest improvement);
  - **9 orientation bins** over 0-180 degrees (unsigned gradients), **8 x 8-pixel cells**,
    **blocks of 2 x 2 cells** with a stride of one cell, **L2-Hys block normalisation** (L2
    norm, clipped at 0.2, renormalised): Dalal & Triggs' default detector (section 6: "[-1, 0, 1]
    gradient filter with no smoothing, ... 9 orientation bins in 0-180 degrees, 16 x 16 pixel
    blocks of four 8 x 8 pixel cells, ... L2-Hys block normalisation"). skimage's own defaults
    differ in ``cells_per_block`` (3 x 3), so every parameter is passed explicitly
    (``HOG_PARAMS``);
  - **length**: 7 x 7 block positions x 2 x 2 cells x 9 bins = 1,764 (``hog_dims``); the vector
    is used as skimage returns it (``feature_vector=True``), no further normalisation.
* a set's own feature sets (precomputed item features, annotations of the items), declared
  by its module (:class:`tripletbench.datasets.human_set.ItemFeatureSet`, e.g. Food-100's
  ``"ingredients"``, :mod:`tripletbench.datasets.food100`) and cached here alike
  (:func:`item_features` with ``own``).

Every array is float64, finite, of shape ``(n_items, d)``.
"""

from __future__ import annotations

from typing import Mapping

import numpy as np

from tripletbench.optional import require

from .base import DataError
from .global_descriptor import DEFAULT_MAX_SIDE
from .global_descriptor import N_DIMS as GLOBAL_DIMS
from .human_judgments import Judgments
from .human_set import IMAGE_FEATURE_SETS

HOG_SIZE = 64
HOG_PARAMS = {
    "orientations": 9,
    "pixels_per_cell": (8, 8),
    "cells_per_block": (2, 2),
    "block_norm": "L2-Hys",
    "transform_sqrt": False,
    "feature_vector": True,
}
"""``skimage.feature.hog`` keyword arguments: Dalal & Triggs' (2005) default detector."""


_CACHE: dict = {}


def clear_cache() -> None:
    """Forget every computed feature array (they are kept in memory only)."""
    _CACHE.clear()


def _key(judgments: Judgments, kind: str, params: tuple) -> tuple:
    """What identifies a feature array: the collection's name, items and image members (where
    the store lies) and the feature set with its parameters."""
    images = judgments.images
    store = images.store
    return (
        kind,
        params,
        judgments.name,
        tuple(np.asarray(judgments.items).tolist()),
        store.kind,
        str(store.path),
        store.prefix,
        images.members,
    )


def _cached(judgments: Judgments, kind: str, params: tuple, compute) -> np.ndarray:
    key = _key(judgments, kind, params)
    if key not in _CACHE:
        out = np.ascontiguousarray(compute(), dtype=np.float64)
        if out.ndim != 2 or out.shape[0] != judgments.n_items or not np.isfinite(out).all():
            raise DataError(
                f"{judgments.name}: {kind} features of shape {out.shape} are not a finite "
                f"({judgments.n_items}, d) array"
            )
        out.setflags(write=False)
        _CACHE[key] = out
    return _CACHE[key]


def _item_error(judgments: Judgments, i: int, err: Exception) -> DataError:
    member = judgments.images.members[i]
    return DataError(
        f"{judgments.name}: item {i} ({judgments.items[i]}, "
        f"{judgments.images.store.where(member)}): {err}"
    )


# --- image descriptors ----------------------------------------------------------------------


def global_features(judgments: Judgments, max_side: int | None = DEFAULT_MAX_SIDE) -> np.ndarray:
    """(n_items, 297) float64: :func:`tripletbench.datasets.global_descriptor.descriptor_from_bytes` of each
    item's image file (module docstring). Raises :class:`DataError` naming the item whose image
    cannot be decoded."""
    from .global_descriptor import descriptor_from_bytes

    def compute():
        rows = []
        for i in range(judgments.n_items):
            try:
                rows.append(descriptor_from_bytes(judgments.images.read(i), max_side=max_side))
            except DataError as err:
                raise _item_error(judgments, i, err) from err
        return np.array(rows, dtype=np.float64).reshape(len(rows), GLOBAL_DIMS)

    return _cached(judgments, "global", (max_side,), compute)


def hog_dims(size: int = HOG_SIZE) -> int:
    """Length of the HOG vector of a ``size`` x ``size`` image under :data:`HOG_PARAMS`."""
    cell = HOG_PARAMS["pixels_per_cell"][0]
    block = HOG_PARAMS["cells_per_block"][0]
    positions = size // cell - block + 1
    if positions < 1:
        raise ValueError(f"a {size} px image holds no {block} x {block} block of {cell} px cells")
    return positions * positions * block * block * HOG_PARAMS["orientations"]


def hog_image(rgb_image, size: int = HOG_SIZE) -> np.ndarray:
    """The HOG vector of one Pillow RGB image (module docstring): resized to ``size`` x
    ``size`` (bicubic), grey (``rgb2gray``), ``skimage.feature.hog(**HOG_PARAMS)``."""
    Image = require("PIL.Image", "the items' HOG features")
    rgb2gray = require("skimage.color", "the items' HOG features").rgb2gray
    hog = require("skimage.feature", "the items' HOG features").hog

    small = rgb_image.convert("RGB").resize((size, size), Image.Resampling.BICUBIC)
    grey = rgb2gray(np.asarray(small))
    return hog(grey, **HOG_PARAMS).astype(np.float64)


def hog_features(judgments: Judgments, size: int = HOG_SIZE) -> np.ndarray:
    """(n_items, :func:`hog_dims`) float64: :func:`hog_image` of each item's image (module
    docstring). Raises :class:`DataError` naming the item whose image cannot be decoded.
    """
    dims = hog_dims(size)

    def compute():
        out = np.empty((judgments.n_items, dims))
        for i in range(judgments.n_items):
            try:
                out[i] = hog_image(judgments.load_image(i, "RGB"), size)
            except DataError as err:
                raise _item_error(judgments, i, err) from err
        return out

    return _cached(judgments, "hog", (size,), compute)


# --- by name ---------------------------------------------------------------------------------


def item_features(judgments: Judgments, kind: str, own: Mapping | None = None, **params):
    """The feature set ``kind`` of every item: (n_items, d) float64 in item order, cached per
    process. ``kind``: one of :data:`IMAGE_FEATURE_SETS` (``params``: ``max_side`` for "global",
    ``size`` for "hog") or of ``own``, the set's own feature sets (name ->
    :class:`tripletbench.datasets.human_set.ItemFeatureSet`, computed by its ``compute``).
    Raises ``ValueError`` naming the feature sets the collection has for another ``kind``;
    :class:`DataError` for a computed array that is not finite or not one row per item."""
    own = own or {}
    if kind == "global":
        return global_features(judgments, **params)
    if kind == "hog":
        return hog_features(judgments, **params)
    if kind in own:
        return _cached(judgments, kind, (), lambda: own[kind].compute(judgments))
    raise ValueError(
        f"{judgments.name}: unknown feature set {kind!r}; it has "
        f"{', '.join((*IMAGE_FEATURE_SETS, *own))}"
    )


__all__ = [
    "HOG_PARAMS",
    "HOG_SIZE",
    "IMAGE_FEATURE_SETS",
    "clear_cache",
    "global_features",
    "hog_dims",
    "hog_features",
    "hog_image",
    "item_features",
]
