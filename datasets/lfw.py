"""Labeled Faces in the Wild with the PubFig attribute features (OAHU paper, section 4.4,
face verification; Figure 5).

Download route only (no packaged copy with identities exists; scikit-image's ``lfw_subset`` has
none):

* ``lfw_attributes.txt`` (Kumar, Berg, Belhumeur, Nayar 2009; Columbia's PubFig page, https):
  one row per LFW image, ``person``, ``imagenum`` and 73 attribute scores. The publishers list no
  hash and no trustworthy copy was found, so the file has ``known_hash=None``: it downloads only
  when the run's command line asks for it (``--config allow_unpinned_downloads=true``) and its
  sha256 is then recorded in the log.
* ``pairsDevTrain.txt`` / ``pairsDevTest.txt`` (View 1) and ``pairs.txt`` (View 2: 10 folds of
  300 matched + 300 mismatched pairs): the copies of the LFW site's files that scikit-learn
  fetches (``sklearn.datasets.fetch_lfw_pairs``; figshare, https), pinned by the sha256 sums
  scikit-learn publishes for them (``sklearn/datasets/_lfw.py``, ``TARGETS``). Chosen over the
  LFW site itself, whose links are plain http (we could not check here whether it serves https).
  That the mirror is byte-identical to the LFW site's files could not be checked offline; the md5
  sums torchvision publishes for the LFW site's files are kept in ``LFW_SITE_MD5`` for that check.

:func:`load_lfw` returns the attribute matrix, identity labels and the View pairs as row indices
(pairs whose images have no attribute row are dropped and counted). Not in ``DATASETS``: its
shape is not fixed in advance (the attribute file covers most, not all, LFW images) and its
protocol is pairs, not a class split.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .base import DataError, DatasetSpec, RemoteFile, fetch_download

ATTR_URL = "https://www.cs.columbia.edu/CAVE/databases/pubfig/download/lfw_attributes.txt"
PAIRS = {  # file -> (scikit-learn's figshare copy, its sha256 as scikit-learn pins it)
    "pairsDevTrain.txt": (
        "https://ndownloader.figshare.com/files/5976012",
        "1d454dada7dfeca0e7eab6f65dc4e97a6312d44cf142207be28d688be92aabfa",
    ),
    "pairsDevTest.txt": (
        "https://ndownloader.figshare.com/files/5976009",
        "7cb06600ea8b2814ac26e946201cdb304296262aad67d046a16a7ec85d0ff87c",
    ),
    "pairs.txt": (
        "https://ndownloader.figshare.com/files/5976006",
        "ea42330c62c92989f9d7c03237ed5d591365e89b3e649747777b70e692dc1592",
    ),
}
LFW_SITE_MD5 = {  # http://vis-www.cs.umass.edu/lfw/<file>, as torchvision pins them (not used)
    "pairsDevTrain.txt": "4f27cbf15b2da4a85c1907eb4181ad21",
    "pairsDevTest.txt": "5132f7440eb68cf58910c8a45a2ac10b",
    "pairs.txt": "9f1ba174e4e1c508ff7cdf10ac338a7d",
}
N_ATTRIBUTES = 73
PAIR_SIZES = {"pairsDevTrain.txt": 56_579, "pairsDevTest.txt": 26_002, "pairs.txt": 155_335}
"""The pinned files' sizes (the most bytes a fetch reads)."""
MIN_KEPT = 0.9  # a view keeping fewer of its pairs means the files do not match (DataError)


def _unused_parser(paths):  # the spec is used for fetching only; load_lfw parses
    raise NotImplementedError("use tripletbench.datasets.lfw.load_lfw")


SPEC = DatasetSpec(
    name="lfw",
    description="LFW with PubFig attribute features (73-d) and the View 1 / View 2 pairs",
    shape=(0, N_ATTRIBUTES, 0),
    download=(RemoteFile(ATTR_URL, None, "lfw_attributes.txt", source="lfw"),)
    + tuple(
        RemoteFile(url, f"sha256:{h}", f, source="lfw", max_bytes=PAIR_SIZES[f])
        for f, (url, h) in PAIRS.items()
    ),
    parse_download=_unused_parser,
    scale_download=False,
    tabular=False,
)


def parse_attributes(path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(X (n, 73) float64, person names (n,), image numbers (n,) int) of ``lfw_attributes.txt``.
    Lines starting with '#' are headers. Raises :class:`DataError` on a malformed row."""
    names, nums, rows = [], [], []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 2 + N_ATTRIBUTES:
                raise DataError(f"{path}:{lineno}: expected {2 + N_ATTRIBUTES} fields")
            names.append(parts[0])
            nums.append(int(parts[1]))
            rows.append([float(v) for v in parts[2:]])
    if not rows:
        raise DataError(f"{path}: no attribute rows")
    return np.array(rows), np.array(names), np.array(nums, dtype=np.int64)


def parse_pairs(path) -> list[tuple[int, str, int, str, int]]:
    """Pairs of an LFW pairs file: (fold, name1, num1, name2, num2). The header is either
    "n" (View 1: n matched then n mismatched) or "folds n" (View 2: per fold n matched then n
    mismatched). Matched lines are "name n1 n2", mismatched "name1 n1 name2 n2"."""
    with open(path, encoding="utf-8") as fh:
        lines = [ln.split() for ln in fh if ln.strip()]
    head = [int(v) for v in lines[0]]
    folds, per = (1, head[0]) if len(head) == 1 else (head[0], head[1])
    body = lines[1:]
    if len(body) != folds * 2 * per:
        raise DataError(f"{path}: expected {folds * 2 * per} pairs, found {len(body)}")
    out = []
    for i, p in enumerate(body):
        fold = i // (2 * per)
        if len(p) == 3:
            out.append((fold, p[0], int(p[1]), p[0], int(p[2])))
        elif len(p) == 4:
            out.append((fold, p[0], int(p[1]), p[2], int(p[3])))
        else:
            raise DataError(f"{path}: malformed pair line {' '.join(p)!r}")
    return out


def person_key(name: str) -> str:
    """One spelling of a person's name for both files: the pairs files write ``Abel_Pacheco``,
    the PubFig attribute file ``Abel Pacheco``; runs of spaces become one underscore."""
    return "_".join(name.split())


def load_lfw(cache_dir, allow_unpinned: bool = False, mirror: str | None = None) -> dict:
    """Fetch (pooch, verified; from the data mirror ``mirror`` when given) and parse LFW
    attributes and pairs. Names are matched by :func:`person_key` (underscores in the pairs
    files, spaces in the attribute file).

    Returns {"X": (n, 73), "y": (n,) int identity codes, "names": (k,), "view1": dict,
    "view2": dict, "dropped": int}; each view is {"pairs": (m, 2) rows of X, "same": (m,) bool,
    "fold": (m,) int}. Raises :class:`~tripletbench.datasets.base.DataUnavailable` offline or without the
    unpinned-download permission, :class:`~tripletbench.datasets.base.ChecksumError` on a bad pairs file,
    :class:`DataError` when a view keeps fewer than ``MIN_KEPT`` of its pairs."""
    paths = fetch_download(SPEC, Path(cache_dir), allow_unpinned=allow_unpinned, mirror=mirror)
    return assemble(*paths)


def assemble(attributes, dev_train, dev_test, view2) -> dict:
    """:func:`load_lfw` on local files: the attribute file and the three pairs files."""
    X, person, num = parse_attributes(attributes)
    person = np.array([person_key(p) for p in person])
    names, y = np.unique(person, return_inverse=True)
    row = {(p, n): i for i, (p, n) in enumerate(zip(person.tolist(), num.tolist()))}
    dropped = 0
    views = {}
    for key, files in (("view1", (dev_train, dev_test)), ("view2", (view2,))):
        pairs, same, fold = [], [], []
        n_listed = 0
        for f in files:
            for fo, n1, i1, n2, i2 in parse_pairs(f):
                n_listed += 1
                n1, n2 = person_key(n1), person_key(n2)
                a, b = row.get((n1, i1)), row.get((n2, i2))
                if a is None or b is None:
                    dropped += 1
                    continue
                pairs.append((a, b))
                same.append(n1 == n2)
                fold.append(fo)
        if len(pairs) < MIN_KEPT * n_listed:
            raise DataError(
                f"LFW {key}: only {len(pairs)} of {n_listed} pairs have attribute rows for both "
                f"images (names as in {Path(attributes).name}: e.g. {person[0]!r}); the "
                "attribute file and the pairs files do not match"
            )
        views[key] = {
            "pairs": np.array(pairs, dtype=np.int64).reshape(-1, 2),
            "same": np.array(same, dtype=bool),
            "fold": np.array(fold, dtype=np.int64),
        }
    return {"X": X, "y": y.astype(np.int64), "names": names, **views, "dropped": dropped}
