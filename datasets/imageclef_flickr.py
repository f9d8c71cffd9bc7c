"""ImageCLEF + Flickr: the SDCA paper's large-scale retrieval set (its Table 4), from MIRFLICKR.

The paper (Wu et al., AAAI 2014, section "Evaluation on the Large-scale Dataset") uses "the
public dataset ImageCLEF as the ground-truth and extra one-million images crawled from Flickr as
the background", 297-d global descriptors (:mod:`tripletbench.datasets.global_descriptor`), 500K training
triplets, a 60/40 train/test split, 20% of the training set for validation and 10% of the test set
as queries. It names neither the ImageCLEF collection nor the crawl. **Our route, not the
paper's**: the public collections closest to that description,

* ground truth: **MIRFLICKR-25000** (Huiskes & Lew, MIR 2008; the 25,000 Flickr images on which
  the ImageCLEF 2009-2011 photo-annotation tasks were built) with its concept annotations
  (``mirflickr25k_annotations_v080.zip``: one file ``<concept>.txt`` of image numbers per concept);
* background: **MIRFLICKR-1M** (``images0.zip`` ... ``images9.zip``, 100,000 Flickr images each),
  from the same site, LIACS (https://press.liacs.nl/mirflickr/).

The ImageCLEF task files themselves (93-99 concepts) are given out under a registration
agreement, not by a public URL, so the route uses the MIRFLICKR annotations (24 concepts) of the
same images. No hash of these archives is published: they are unpinned downloads, refused unless
the run's command line says ``--config allow_unpinned_downloads=true`` (their sha256 is then
recorded), from LIACS or a data mirror (``<mirror>/mirflickr/<file>``, whose ``SHA256SUMS``
then checks the transfer: a mirror's own list cannot vouch for files no publisher pinned).

Our choices, stated (config block ``sdca_table4``):

* **Labels**: the annotations are multi-label and the paper's triplets and mAP need classes. An
  image is a ground-truth item when it carries exactly one of the configured ``concepts`` (default
  all 24); that concept is its class. Images with none or several are left out.
* **Background**: the images of the configured ``background_shards`` (default all ten archives),
  label ``-1``: relevant to no query, never in a triplet. A background image whose bytes equal a
  ground-truth image's (sha1) is dropped, so that no copy of a relevant image is counted as
  irrelevant (whether MIRFLICKR-1M contains the 25,000 is not stated where we looked).
* **Protocol** (:func:`table4_split`): the 60/40 split, the 80/20 fit/validation split and the 10%
  of queries are drawn per class among the ground-truth images; every background image is in the
  searched database, which is the test set minus the queries (the paper: background images;
  with no labels they can take no part in training).

Images are read straight from the zip archives (nothing is extracted): members ending in
``.jpg`` (case-insensitive), identified by the number in their name (``im123.jpg`` in the
25,000, ``images/1/12345.jpg`` in the 1M). An image Pillow cannot decode is skipped and listed
in the shard's output (``skipped``), not fatal: a million-image crawl has a few broken files.
"""

from __future__ import annotations

import hashlib
import re
import zipfile
from pathlib import Path

import numpy as np

from .base import MEMBER_MAX_BYTES, DataError, DatasetSpec, RemoteFile, check_member_size, readable

BASE_25K = "https://press.liacs.nl/mirflickr/mirflickr25k.v3b"
BASE_1M = "https://press.liacs.nl/mirflickr/mirflickr1m.v3b"
GROUND_TRUTH_ARCHIVE = "mirflickr25k.zip"
ANNOTATIONS_ARCHIVE = "mirflickr25k_annotations_v080.zip"
N_BACKGROUND_SHARDS = 10
CONCEPTS = (
    "animals", "baby", "bird", "car", "clouds", "dog", "female", "flower", "food", "indoor",
    "lake", "male", "night", "people", "plant_life", "portrait", "river", "sea", "sky",
    "structures", "sunset", "transport", "tree", "water",
)  # fmt: skip
"""The 24 concepts of ``mirflickr25k_annotations_v080.zip`` (files ``<concept>.txt``)."""
SOURCE = "mirflickr"  # the folder of a data mirror: <mirror>/mirflickr/<file>


def background_archive(shard: int) -> str:
    """File name of background shard ``shard`` (0-9): ``images<shard>.zip``."""
    if not 0 <= int(shard) < N_BACKGROUND_SHARDS:
        raise DataError(f"background shard {shard} outside 0..{N_BACKGROUND_SHARDS - 1}")
    return f"images{int(shard)}.zip"


def _not_tabular(paths):
    raise DataError(
        "imageclef_flickr is an image collection: use tripletbench.datasets.imageclef_flickr "
        "(ground_truth_items, zip_descriptors), not load()"
    )


SPEC = DatasetSpec(
    name="imageclef_flickr",
    description="ImageCLEF + Flickr (SDCA paper Table 4): MIRFLICKR-25000 + MIRFLICKR-1M",
    shape=(1_025_000, 297, 0),
    download=(
        # stated caps (bytes a fetch may read): the 25,000 images' archive is about 3 GB, the
        # annotations' small; each of the ten 1M archives about 12 GB
        RemoteFile(
            f"{BASE_25K}/{GROUND_TRUTH_ARCHIVE}",
            None,
            GROUND_TRUTH_ARCHIVE,
            SOURCE,
            max_bytes=8 * 2**30,
        ),
        RemoteFile(f"{BASE_25K}/{ANNOTATIONS_ARCHIVE}", None, ANNOTATIONS_ARCHIVE, SOURCE),
    ),
    parse_download=_not_tabular,
    tabular=False,
    title="ImageCLEF+Flickr",
)
"""The ground-truth files (images and annotations). The background archives are
:func:`background_spec`'s, one spec per shard, so that each shard is fetched by its own job."""


def background_spec(shard: int) -> DatasetSpec:
    """The download spec of one background archive (same dataset name and cache folder)."""
    name = background_archive(shard)
    return DatasetSpec(
        name=SPEC.name,
        description=f"{SPEC.description}: background {name}",
        shape=SPEC.shape,
        download=(RemoteFile(f"{BASE_1M}/{name}", None, name, SOURCE, max_bytes=32 * 2**30),),
        parse_download=_not_tabular,
        tabular=False,
    )


# --- reading the archives -----------------------------------------------------------------


_NUMBER = re.compile(r"(\d+)\.jpe?g$", re.IGNORECASE)


def image_members(archive) -> list[tuple[int, str]]:
    """``(image number, member name)`` of every JPEG in a zip archive, sorted by number.

    The number is the last run of digits before ``.jpg`` (``mirflickr/im17.jpg`` -> 17,
    ``images/0/1234.jpg`` -> 1234). Raises :class:`DataError` for a file that is not a zip
    archive, an archive without JPEGs, or two members with one number.
    """
    try:
        with zipfile.ZipFile(archive) as zf:
            names = [n for n in zf.namelist() if not n.endswith("/")]
    except zipfile.BadZipFile as err:
        raise DataError(f"{archive}: not a zip archive ({err}); delete it to fetch it again")
    found = []
    for n in names:
        m = _NUMBER.search(Path(n).name)
        if m:
            found.append((int(m.group(1)), n))
    if not found:
        raise DataError(f"{archive}: no .jpg member")
    found.sort()
    numbers = [k for k, _ in found]
    if len(set(numbers)) != len(numbers):
        dup = sorted({k for k in numbers if numbers.count(k) > 1})[:5]
        raise DataError(f"{archive}: several members share image numbers {dup}")
    return found


def concept_lists(annotations, concepts=CONCEPTS) -> dict[str, set[int]]:
    """The image numbers of each concept, from ``<concept>.txt`` in the annotations zip (one
    number per line; members matched by base name, wherever the archive puts them; the
    ``<concept>_r1.txt`` "relevant" files are not read). Raises :class:`DataError` for a concept
    the archive lacks or a line that is not an integer."""
    unknown = sorted(set(concepts) - set(CONCEPTS))
    if unknown:
        raise DataError(f"unknown MIRFLICKR concepts {unknown}; expected some of {list(CONCEPTS)}")
    with readable(annotations, "MIRFLICKR annotations"), zipfile.ZipFile(annotations) as zf:
        by_base = {Path(n).name: n for n in zf.namelist()}
        out = {}
        for c in concepts:
            member = by_base.get(f"{c}.txt")
            if member is None:
                raise DataError(f"{annotations}: no {c}.txt (the concept's annotation file)")
            info = zf.getinfo(member)
            check_member_size(info.file_size, MEMBER_MAX_BYTES, f"{annotations}: {member}")
            text = zf.read(info).decode("ascii", errors="strict")
            try:
                out[c] = {int(v) for v in text.split()}
            except ValueError as err:
                raise DataError(f"{annotations}: {member}: {err}") from None
    return out


def single_concept_items(lists: dict[str, set[int]]) -> tuple[np.ndarray, np.ndarray]:
    """The images annotated with exactly one of the concepts in ``lists`` (our labelling rule,
    module docstring). Returns ``(numbers, concept names)``, (n,) int64 and (n,) str, sorted by
    image number. Raises :class:`DataError` when fewer than two concepts keep an image."""
    count: dict[int, int] = {}
    owner: dict[int, str] = {}
    for c, numbers in lists.items():
        for k in numbers:
            count[k] = count.get(k, 0) + 1
            owner[k] = c
    keep = sorted(k for k, n in count.items() if n == 1)
    names = np.asarray([owner[k] for k in keep], dtype=str)
    if len(np.unique(names)) < 2:
        raise DataError(
            f"{len(keep)} images carry exactly one of the concepts {sorted(lists)}, in "
            f"{len(np.unique(names))} class(es); triplets need two classes"
        )
    return np.asarray(keep, dtype=np.int64), names


def zip_descriptors(archive, members, max_side: int = 256, log=print, progress=None):
    """The 297-d global descriptor of each listed member of a zip archive, read in memory.

    ``members``: member names. Returns ``(X, digests, kept, skipped)``: X (n_ok, 297) float64
    in the order of the members that decoded, their sha1 digests (n_ok,) ``S20`` (for the
    duplicate check), their names, and the names that Pillow could not decode (skipped, each
    named in the log).
    ``progress``: a tqdm-like wrapper for the loop, or None.
    """
    from .global_descriptor import N_DIMS, descriptor_from_bytes

    rows, digests, skipped, kept = [], [], [], []
    with readable(archive, "MIRFLICKR archive"), zipfile.ZipFile(archive) as zf:
        it = progress(members) if progress else members
        for name in it:
            info = zf.getinfo(name)
            check_member_size(info.file_size, MEMBER_MAX_BYTES, f"{archive}: {name}")
            data = zf.read(info)  # never more than the size it declares
            try:
                rows.append(descriptor_from_bytes(data, max_side=max_side))
            except DataError as err:
                skipped.append(name)
                log(f"skipped {name}: {err}")
                continue
            digests.append(hashlib.sha1(data).digest())
            kept.append(name)
    X = np.vstack(rows) if rows else np.zeros((0, N_DIMS))
    return X, np.asarray(digests, dtype="S20"), kept, skipped


def ground_truth_items(images_zip, annotations_zip, concepts=CONCEPTS):
    """The ground-truth members and classes: ``(members, class names, numbers)`` for the images
    of ``images_zip`` that carry exactly one of ``concepts``. Raises :class:`DataError` when an
    annotated number has no image in the archive."""
    numbers, names = single_concept_items(concept_lists(annotations_zip, concepts))
    by_number = dict(image_members(images_zip))
    missing = [int(k) for k in numbers if int(k) not in by_number]
    if missing:
        raise DataError(
            f"{images_zip}: {len(missing)} annotated images are not in the archive "
            f"(first: {missing[:5]}); is it the MIRFLICKR-25000 archive?"
        )
    return [by_number[int(k)] for k in numbers], names, numbers


# --- assembling the collection and the protocol ---------------------------------------------


def assemble(ground_truth: dict, shards: list[dict]) -> dict:
    """One collection from the ground-truth features and the background shards' features.

    ``ground_truth``: {"X" (n_gt, 297), "y" (n_gt,) class names, "sha1" (n_gt,) S20}; each shard
    {"X", "sha1"}. Background rows whose sha1 equals a ground-truth image's are dropped (module
    docstring). Returns {"X" (n, 297) float64, "y" (n,) int64 class codes with -1 for the
    background, "classes" (k,) names, "n_duplicates_dropped" int}.
    """
    classes, codes = np.unique(np.asarray(ground_truth["y"]), return_inverse=True)
    blocks, dropped = [np.asarray(ground_truth["X"], dtype=np.float64)], 0
    for sh in shards:
        keep = ~np.isin(np.asarray(sh["sha1"]), np.asarray(ground_truth["sha1"]))
        dropped += int((~keep).sum())
        blocks.append(np.asarray(sh["X"], dtype=np.float64)[keep])
    X = np.vstack(blocks)
    y = np.full(len(X), -1, dtype=np.int64)
    y[: len(codes)] = codes
    if not np.isfinite(X).all():
        raise DataError("the descriptors contain NaN or inf")
    return {"X": X, "y": y, "classes": classes, "n_duplicates_dropped": dropped}


def table4_split(
    y: np.ndarray,
    seed: int,
    train_fraction: float = 0.6,
    fit_fraction: float = 0.8,
    query_fraction: float = 0.1,
) -> dict:
    """The protocol of the paper's Table 4 on a collection with background (module docstring).

    ``y``: (n,) int class codes, -1 for background items. Per class of the ground truth:
    ``train_fraction`` train vs test (stream "split"), ``fit_fraction`` fit vs validation inside
    train (stream "validation_split"), ``query_fraction`` of the test items as queries (stream
    "queries"); each side keeps at least one item per class
    (:func:`tripletbench.datasets.preprocess.split_per_class`). Returns int64 index arrays into ``y``:
    ``train``, ``test``, ``fit``, ``val``, ``query`` and ``database`` (the test items that are not
    queries, plus every background item). Raises :class:`DataError` for a class with fewer than
    three items (train, query and database each need one) or no ground truth.
    """
    from .preprocess import rng, split_per_class

    y = np.asarray(y)
    gt = np.flatnonzero(y >= 0)
    if len(gt) == 0:
        raise DataError("no ground-truth item (every label is -1, the background)")
    tr, te = split_per_class(y[gt], train_fraction, rng(seed, "split"))
    train, test = gt[tr], gt[te]
    fit_pos, val_pos = split_per_class(y[train], fit_fraction, rng(seed, "validation_split"))
    q_pos, db_pos = split_per_class(y[test], query_fraction, rng(seed, "queries"))
    background = np.flatnonzero(y < 0)
    return {
        "train": train,
        "test": test,
        "fit": train[fit_pos],
        "val": train[val_pos],
        "query": test[q_pos],
        "database": np.sort(np.concatenate([test[db_pos], background])).astype(np.int64),
    }


__all__ = [
    "CONCEPTS",
    "SPEC",
    "assemble",
    "background_archive",
    "background_spec",
    "concept_lists",
    "ground_truth_items",
    "image_members",
    "single_concept_items",
    "table4_split",
    "zip_descriptors",
]
