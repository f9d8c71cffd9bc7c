"""Fashion-MNIST (Xiao, Rasul, Vollgraf 2017): 70,000 grayscale 28 x 28 images, 10 classes.

The offline stand-in for the papers' image sets (Caltech-256 in the SDCA and OASIS papers) and
one of the OAHU paper's datasets. The 60,000 training and 10,000 test images are stacked (the
protocols split them again); features are the 784 pixel values divided by 255 (in [0, 1]); no
further scaling.

Download route: the publishers' release files from their GitHub repository (``data/fashion``,
which their README offers beside the S3 links), over https: the README's S3 "website" links
are plain http, and S3 website endpoints do not serve https. Pins (``PINS``):

* the two label files: sha256, recorded from a copy of the repository's files (git blobs
  ``9c4aae27...`` and ``abdddb89...``) whose md5 sums equal the publishers' (README table), so the
  copy is byte-identical to the published files; their decompressed bytes also equal Debian's;
* the two image files: the publishers' md5 (no copy of the published .gz was at hand here to
  record a sha256 from).

Embedded route: Debian ``dataset-fashion-mnist`` (the same images and labels; its gzip files are
recompressed, hence other hashes).
"""

import gzip

import numpy as np

from .base import DatasetSpec, EmbeddedFile, RemoteFile, read_bounded

URL = "https://github.com/zalandoresearch/fashion-mnist/raw/master/data/fashion/"
DEB = "usr/share/datasets/fashion-mnist/"
FILES = (
    "train-images-idx3-ubyte.gz",
    "train-labels-idx1-ubyte.gz",
    "t10k-images-idx3-ubyte.gz",
    "t10k-labels-idx1-ubyte.gz",
)
MD5 = (
    "8d4fb7e6c68d591d4c3dfef9ec88bf0d",
    "25c81989df183df01b3e8a0aad5dffbe",
    "bef4ecab320f06d8554ea6380940ec79",
    "bb300cfdad3c16e7a12a480ee83cd310",
)
PINS = (  # pooch hash strings, see the module docstring
    f"md5:{MD5[0]}",
    "sha256:a04f17134ac03560a47e3764e11b92fc97de4d1bfaf8ba1a3aa29af54cc90845",
    f"md5:{MD5[2]}",
    "sha256:67da17c76eaffca5446c3361aaab5c3cd6d1c2608764d35dfb1850b086bf8dd5",
)
DEB_SHA256 = (
    "b0564c3eedabfbf835052cff8503ea422014ce006caf5b757f851416ee8300c7",
    "0ae29f65d86684f32d1b9c85147786c547b9c6aebcaf235f0400a0cce308b056",
    "cc1d090a38ace84dfa1aa66e3ada7c336ef481a96936906477e6dd344da56eaa",
    "8d3605d196f4be44669e46906da9733c8131fef761fdbfec72c424d5222f1a05",
)


IDX_MAX_BYTES = 128 * 2**20
"""Stated cap on one decompressed IDX file (the largest read, EMNIST balanced's training images:
112,800 x 28 x 28 + 16 = 88,435,216 bytes)."""


def read_idx(path) -> np.ndarray:
    """An IDX file (the MNIST format: big-endian magic, dimensions, uint8 data), gzip-compressed."""
    with gzip.open(path, "rb") as fh:
        raw = read_bounded(fh, IDX_MAX_BYTES, f"IDX file {path}")
    zero, dtype, ndim = raw[0] * 256 + raw[1], raw[2], raw[3]
    if zero != 0 or dtype != 0x08:
        raise ValueError(f"{path}: not an unsigned-byte IDX file")
    shape = tuple(int.from_bytes(raw[4 + 4 * i : 8 + 4 * i], "big") for i in range(ndim))
    data = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim)
    if data.size != int(np.prod(shape)):
        raise ValueError(
            f"{path}: truncated IDX data ({data.size} of {int(np.prod(shape))} values)"
        )
    return data.reshape(shape)


def _parse(paths):
    tr_x, tr_y, te_x, te_y = (read_idx(p) for p in paths)
    X = np.vstack([tr_x.reshape(len(tr_x), -1), te_x.reshape(len(te_x), -1)]) / 255.0
    return X, np.concatenate([tr_y, te_y]).astype(str)


SPEC = DatasetSpec(
    name="fashion_mnist",
    description="Fashion-MNIST (zalandoresearch)",
    shape=(70000, 784, 10),
    download=tuple(RemoteFile(URL + f, h, f, source="fashion_mnist") for f, h in zip(FILES, PINS)),
    parse_download=_parse,
    scale_download=False,
    embedded=tuple(
        EmbeddedFile("dataset-fashion-mnist", DEB + f, h) for f, h in zip(FILES, DEB_SHA256)
    ),
    parse_embedded=_parse,
    scale_embedded=False,
)
