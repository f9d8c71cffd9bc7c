"""EMNIST balanced (Cohen, Afshar, Tapson, van Schaik 2017): 131,600 handwritten characters,
28 x 28 grayscale, 47 balanced classes (112,800 training + 18,800 test images, stacked here).

One of the OAHU paper's Table 3 datasets. Download route only (no packaged copy exists): NIST's
``gzip.zip`` (561 MB, all six EMNIST splits), pinned by the md5 torchvision and the publishers
use; the four ``emnist-balanced-*`` IDX members are read straight from the archive (nothing else
is extracted, nothing is unpickled). Features: pixel values / 255 in [0, 1] (as Fashion-MNIST);
NIST stores the images transposed, which we undo so that rows are image rows.
"""

import zipfile

import numpy as np

from .base import DataError, DatasetSpec, RemoteFile
from .fashion_mnist import read_idx

URL = "https://biometrics.nist.gov/cs_links/EMNIST/gzip.zip"
MD5 = "58c8d27c78d21e728a6bc7b3cc06412e"
MEMBERS = (
    "gzip/emnist-balanced-train-images-idx3-ubyte.gz",
    "gzip/emnist-balanced-train-labels-idx1-ubyte.gz",
    "gzip/emnist-balanced-test-images-idx3-ubyte.gz",
    "gzip/emnist-balanced-test-labels-idx1-ubyte.gz",
)


def _parse(paths):
    try:
        with zipfile.ZipFile(paths[0]) as zf:
            tr_x, tr_y, te_x, te_y = (read_idx(zf.open(m)) for m in MEMBERS)
    except (zipfile.BadZipFile, KeyError) as err:
        raise DataError(f"EMNIST archive {paths[0]} is corrupt or incomplete: {err}") from err
    imgs = np.concatenate([tr_x, te_x]).transpose(0, 2, 1)  # NIST stores them transposed
    X = imgs.reshape(len(imgs), -1) / 255.0
    return X, np.concatenate([tr_y, te_y]).astype(str)


SPEC = DatasetSpec(
    name="emnist",
    description="EMNIST balanced (NIST)",
    shape=(131600, 784, 47),
    download=(RemoteFile(URL, f"md5:{MD5}", "emnist-gzip.zip", source="emnist", max_bytes=2**30),),
    parse_download=_parse,
    scale_download=False,
)
