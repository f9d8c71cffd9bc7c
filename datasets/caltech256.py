"""Caltech-256 (Griffin, Holub, Perona 2007) and the image sets of the image-retrieval experiments.

Download route only (no packaged copy exists): ``256_ObjectCategories.tar`` (1.2 GB, 30,607 JPEG
images in 257 folders ``NNN.name``) from the Caltech data repository, pinned by the md5 that
torchvision (``torchvision.datasets.Caltech256``) and the R torch port publish for it. The archive
is extracted once into the cache with Python's tarfile ``filter="data"`` (no absolute paths, no
``..``, no links leaving the folder, no device files) and every member's path is checked to stay
inside the target folder before anything is written; extraction goes to a temporary folder that
is renamed into place only when complete.

Protocol of the OASIS paper (Chechik et al., JMLR 2010, section 5.1): subsets of 10, 20 and 50
classes (the SDCA paper's Table 3 uses the 50-class set); per class 40 training images and 25 test
images; images that are too small are skipped. The ``257.clutter`` folder is not an object class and
is left out. Deviations, stated: the paper's lists of classes are not reproduced here; our subsets
are nested (10 in 20 in 50) and drawn from the 256 object classes by a fixed permutation
(``CLASS_ORDER_SEED``), the same for every run seed. "Too small" is a side shorter than
``min_side`` pixels (a config value); images are shrunk to at most ``max_side`` pixels on the
longer side before the descriptors are computed (bounds the cost; config value).

Image sets (the ``{dataset}`` names of the ``images`` experiment):

* ``caltech256_<k>``: k Caltech-256 classes, bag-of-visual-words features (``tripletbench.datasets.bovw``);
* ``fashion_mnist_pixels``: the offline stand-in, raw pixels in [0, 1] (784 features);
* ``fashion_mnist_bovw``: the stand-in through the same bag-of-words pipeline on the 28 x 28 images.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import tarfile
import tempfile
from pathlib import Path

import numpy as np

from tripletbench.optional import require

from . import fashion_mnist
from .base import (
    MEMBER_MAX_BYTES,
    DataError,
    DatasetSpec,
    DataUnavailable,
    RemoteFile,
    check_member_size,
    fetch_download,
    readable,
)

URL = "https://data.caltech.edu/records/nyy15-4j048/files/256_ObjectCategories.tar?download=1"
MD5 = "67b4f42ca05d46448c6bb8ecd2220f6d"  # torchvision's Caltech256 (and torch for R) pin
ARCHIVE = "256_ObjectCategories.tar"
TOP = "256_ObjectCategories"
CLUTTER = "257.clutter"
CLASS_ORDER_SEED = 256  # fixed permutation of the 256 object classes; subsets are its prefixes
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")


def _not_tabular(paths):
    raise DataError(
        "caltech256 is an image collection: use tripletbench.datasets.caltech256, not load()"
    )


SPEC = DatasetSpec(
    name="caltech256",
    description="Caltech-256 object categories (Griffin, Holub, Perona 2007)",
    shape=(30607, 0, 257),
    download=(RemoteFile(URL, f"md5:{MD5}", ARCHIVE, source="caltech256", max_bytes=2 * 2**30),),
    parse_download=_not_tabular,
    scale_download=False,
    tabular=False,
)


# --- image sets ------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ImageSet:
    """One ``{dataset}`` of the image experiments: source collection, classes, feature kind."""

    name: str
    source: str  # "caltech256" or "fashion_mnist"
    features: str  # "bovw" or "pixels"
    n_classes: int | None  # None: all classes of the source

    def has_route(self, route: str, mirror: str | None = None) -> bool:
        """Fashion-MNIST has the embedded and the download route; Caltech-256 only download;
        with a data ``mirror``, as :meth:`tripletbench.datasets.base.DatasetSpec.has_route`."""
        spec = SPEC if self.source == "caltech256" else fashion_mnist.SPEC
        return spec.has_route(route, mirror)


def is_image_set_name(name: str) -> bool:
    """True if ``name`` is an image-set name that :func:`image_set` accepts."""
    try:
        image_set(name)
    except DataError:
        return False
    return True


def image_set(name: str) -> ImageSet:
    """Parse an image-set name; raises :class:`DataError` listing the accepted forms."""
    if name in ("fashion_mnist_pixels", "fashion_mnist_bovw"):
        return ImageSet(name, "fashion_mnist", name.rsplit("_", 1)[1], None)
    m = re.fullmatch(r"caltech256_(\d+)", name)
    if m and 2 <= int(m.group(1)) <= 256:
        return ImageSet(name, "caltech256", "bovw", int(m.group(1)))
    raise DataError(
        f"unknown image set {name!r}; expected fashion_mnist_pixels, fashion_mnist_bovw or "
        "caltech256_<k> with 2 <= k <= 256"
    )


# --- download and safe extraction ------------------------------------------------------------


def safe_extract(tar_path: str | os.PathLike, dest: str | os.PathLike) -> Path:
    """Extract a tar archive into ``dest`` without writing outside it; returns ``dest``.

    Every member is checked first (its resolved path must lie inside ``dest``; links, devices and
    absolute or ``..`` paths raise :class:`DataError`, nothing is written); extraction then uses
    tarfile's ``filter="data"`` (Python >= 3.11.4) as a second guard. The files go to a temporary
    folder beside ``dest`` that replaces ``dest`` only when complete, so an interrupted extraction
    leaves nothing half-done. A ``dest`` that exists is kept as it is.
    """
    dest = Path(dest)
    if dest.exists():
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=dest.parent, prefix=f".{dest.name}."))
    try:
        root = tmp.resolve()
        with readable(tar_path, "archive"), tarfile.open(tar_path) as tf:
            for m in tf.getmembers():
                target = (root / m.name).resolve()
                if (
                    os.path.isabs(m.name)
                    or not target.is_relative_to(root)
                    or not (m.isfile() or m.isdir())
                ):
                    raise DataError(f"{tar_path}: unsafe archive member {m.name!r}; not extracted")
                check_member_size(m.size, MEMBER_MAX_BYTES, f"{tar_path}: member {m.name}")
            total = sum(m.size for m in tf.getmembers())
            check_member_size(total, 4 * 2**30, f"{tar_path} (all members, extracted)")
            tf.extractall(tmp, filter="data")
        os.replace(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return dest


def fetch_images(
    cache_dir: str | os.PathLike,
    spec: DatasetSpec = SPEC,
    progressbar: bool = False,
    mirror: str | None = None,
) -> Path:
    """Download (once, md5-verified by pooch) and extract (once) the Caltech-256 archive.

    The extracted folder ``{cache_dir}/download/caltech256/extracted`` is reused when it exists
    (it only ever appears complete: :func:`safe_extract` renames it into place at the end).
    ``spec`` is :data:`SPEC` (tests pass a copy pointing at a loopback server); ``mirror``, a
    data mirror (:func:`tripletbench.datasets.base.fetch_download`).
    Returns the folder holding the class folders. Raises :class:`DataUnavailable` without
    network, :class:`~tripletbench.datasets.base.ChecksumError` for a corrupt download.
    """
    dest = Path(cache_dir) / "download" / "caltech256" / "extracted"
    if not dest.is_dir():
        (tar,) = fetch_download(spec, Path(cache_dir), progressbar=progressbar, mirror=mirror)
        safe_extract(tar, dest)
    return dest / TOP if (dest / TOP).is_dir() else dest


def list_images(root: str | os.PathLike) -> tuple[list[Path], np.ndarray]:
    """The images of the 256 object classes under ``root`` (folders ``NNN.name``; clutter left
    out), sorted by folder and file name. Returns ``(paths, class_names)``."""
    root = Path(root)
    folders = sorted(p for p in root.iterdir() if p.is_dir() and p.name != CLUTTER)
    if not folders:
        raise DataUnavailable(f"no class folders under {root}")
    paths, names = [], []
    for f in folders:
        for p in sorted(f.iterdir()):
            if p.suffix.lower() in IMAGE_SUFFIXES:
                paths.append(p)
                names.append(f.name)
    return paths, np.asarray(names)


def image_side(path) -> int:
    """The shorter side of an image file in pixels (reads the header only, via Pillow)."""
    Image = require("PIL.Image", "reading Caltech-256's images")

    with Image.open(path) as im:
        return min(im.size)


def load_image(path, max_side: int) -> np.ndarray:
    """An image file as (H, W, 3) uint8 RGB (grey images replicated), shrunk so that its longer
    side is at most ``max_side`` pixels (Pillow's ``thumbnail``, aspect ratio kept)."""
    Image = require("PIL.Image", "reading Caltech-256's images")

    with Image.open(path) as im:
        im = im.convert("RGB")
        im.thumbnail((max_side, max_side))
        return np.asarray(im, dtype=np.uint8)


def choose_classes(class_names, n_classes: int) -> np.ndarray:
    """The first ``n_classes`` of a fixed permutation (``CLASS_ORDER_SEED``) of the sorted class
    names: subsets of different sizes are nested."""
    classes = np.unique(np.asarray(class_names))
    if n_classes > len(classes):
        raise DataError(f"{n_classes} classes asked for, only {len(classes)} available")
    order = np.random.default_rng(CLASS_ORDER_SEED).permutation(len(classes))
    return classes[order[:n_classes]]


# --- the per-seed selection -------------------------------------------------------------------


def select_split(
    y: np.ndarray, n_train: int, n_test: int, seed: int, fit_fraction: float = 0.8
) -> dict:
    """Per class ``n_train`` training and ``n_test`` test images drawn at random (the OASIS
    protocol: 40 + 25), and inside the training images the fit/val split for hyperparameters.

    ``y``: (n,) class codes of the usable images. Returns ``{"selected": int64 indices into y,
    sorted; "train", "test", "fit", "val": int64 indices into the selected rows}``, from the
    ``split`` and ``validation_split`` streams of ``tripletbench.datasets.preprocess.rng``. A class with fewer
    than ``n_train + n_test`` images raises :class:`DataError`.
    """
    from .preprocess import rng, split_per_class

    y = np.asarray(y)
    gen = rng(seed, "split")
    chosen, is_train = [], []
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        if len(idx) < n_train + n_test:
            raise DataError(
                f"class {c} has {len(idx)} usable images; {n_train} + {n_test} are needed"
            )
        pick = gen.permutation(idx)[: n_train + n_test]
        chosen.append(pick)
        is_train.append(np.arange(len(pick)) < n_train)
    chosen, is_train = np.concatenate(chosen), np.concatenate(is_train)
    order = np.argsort(chosen)
    selected, is_train = chosen[order], is_train[order]
    train, test = np.flatnonzero(is_train), np.flatnonzero(~is_train)
    fit_pos, val_pos = split_per_class(
        y[selected][train], fit_fraction, rng(seed, "validation_split")
    )
    return {
        "selected": selected,
        "train": train,
        "test": test,
        "fit": train[fit_pos],
        "val": train[val_pos],
    }


class LazyImages:
    """Images read from files on demand (``load_image(paths[i], max_side)``)."""

    def __init__(self, paths, max_side: int):
        self.paths, self.max_side = list(paths), int(max_side)

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        return load_image(self.paths[i], self.max_side)


def image_features(
    iset: ImageSet, images, y: np.ndarray, seed: int, cfg: dict, log=print
) -> tuple[object, np.ndarray, np.ndarray, dict, dict]:
    """Select one seed's images and compute their features.

    ``images[i]`` gives image i of the usable source collection ((H, W) or (H, W, 3)); ``y`` (n,)
    its class code. ``cfg``: the ``images`` config block (``n_train_per_class``,
    ``n_test_per_class``, ``fit_fraction``, ``bovw[<source>]``). Pixels: each selected image
    flattened (for Fashion-MNIST, the 784 values in [0, 1]). Bag of words: block descriptors of
    every selected image, codebook and idf from the training images (``tripletbench.datasets.bovw``).

    Returns ``(X, y_selected, selected, split, info)``: X (n_sel, d) dense or CSR; ``selected``
    indices into the collection; ``split`` with train/test/fit/val indices into the rows of X;
    ``info`` with timings (``descriptor_s_per_image``: image reading + block descriptors, per
    image) and sparsity (``mean_nnz``).
    """
    import time

    from tqdm.auto import tqdm

    from .bovw import bag_of_words, block_descriptors

    split = select_split(
        y, cfg["n_train_per_class"], cfg["n_test_per_class"], seed, cfg.get("fit_fraction", 0.8)
    )
    sel = split.pop("selected")
    log(f"{iset.name}: {len(sel)} images ({len(split['train'])} train, {len(split['test'])} test)")
    if iset.features == "pixels":
        X = np.vstack([np.asarray(images[i], dtype=np.float64).ravel() for i in sel])
        return X, y[sel], sel, split, {"mean_nnz": float((X != 0).sum(1).mean())}
    b = dict(cfg["bovw"][iset.source])
    n_words, max_desc = b.pop("n_words"), b.pop("max_descriptors", 200_000)
    t0 = time.perf_counter()
    descs = [
        block_descriptors(images[i], **b)
        for i in tqdm(sel, desc=f"{iset.name} descriptors", mininterval=10, disable=None)
    ]
    per_image = (time.perf_counter() - t0) / len(sel)
    X, info = bag_of_words(descs, split["train"], n_words, seed, max_descriptors=max_desc)
    info.update(
        descriptor_s_per_image=per_image,
        blocks_per_image=float(np.mean([len(d) for d in descs])),
        n_words=n_words,
    )
    log(f"  {per_image * 1000:.2f} ms per image for descriptors; {info}")
    return X, y[sel], sel, split, info
