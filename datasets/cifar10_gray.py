"""CIFAR-10 in grayscale (Krizhevsky 2009), as in the OAHU paper's Table 3: 60,000 32 x 32 images,
10 classes, 1,024 features (the 50,000 training and 10,000 test images stacked).

Download route only: the publisher's *binary* version ``cifar-10-binary.tar.gz`` (the python
version is pickles, which we never load from a download), pinned by its published md5. Each
record is 1 label byte + 3,072 pixel bytes (1,024 red, 1,024 green, 1,024 blue, row-major); the
six batch files are read from the archive without extracting it. Grayscale: ITU-R BT.601 luma
0.299 R + 0.587 G + 0.114 B (the paper does not say which conversion it used), divided by 255.
"""

import tarfile

import numpy as np

from .base import DataError, DatasetSpec, RemoteFile, check_member_size, read_bounded

URL = "https://www.cs.toronto.edu/~kriz/cifar-10-binary.tar.gz"
MD5 = "c32a1d4ab5d03f1284b67883e8d87530"
BATCHES = [f"cifar-10-batches-bin/data_batch_{i}.bin" for i in range(1, 6)] + [
    "cifar-10-batches-bin/test_batch.bin"
]
RECORD = 1 + 3 * 1024
BATCH_BYTES = 10_000 * RECORD  # one batch file: 10,000 records
CLASSES = ("airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")


def parse_batch(raw: bytes) -> tuple[np.ndarray, np.ndarray]:
    """(gray (n, 1024) float64 in [0, 1], labels (n,) int) of one binary batch file's bytes."""
    if len(raw) % RECORD:
        raise DataError(f"CIFAR-10 batch of {len(raw)} bytes is not a whole number of records")
    rec = np.frombuffer(raw, dtype=np.uint8).reshape(-1, RECORD)
    labels = rec[:, 0].astype(np.int64)
    if labels.max() > 9:
        raise DataError("CIFAR-10 batch holds a label outside 0..9")
    rgb = rec[:, 1:].reshape(-1, 3, 1024).astype(np.float64)
    gray = 0.299 * rgb[:, 0] + 0.587 * rgb[:, 1] + 0.114 * rgb[:, 2]
    return gray / 255.0, labels


def _parse(paths):
    Xs, ys = [], []
    try:
        with tarfile.open(paths[0], "r:gz") as tf:
            for name in BATCHES:
                member, what = tf.getmember(name), f"CIFAR-10 archive {paths[0]}: {name}"
                check_member_size(member.size, BATCH_BYTES, what)  # the format's size
                X, y = parse_batch(read_bounded(tf.extractfile(member), BATCH_BYTES, what))
                Xs.append(X)
                ys.append(y)
    except (tarfile.TarError, KeyError, AttributeError) as err:
        raise DataError(f"CIFAR-10 archive {paths[0]} is corrupt or incomplete: {err}") from err
    return np.vstack(Xs), np.asarray(CLASSES)[np.concatenate(ys)]


SPEC = DatasetSpec(
    name="cifar10_gray",
    description="CIFAR-10, grayscale (Toronto, binary version)",
    shape=(60000, 1024, 10),
    download=(RemoteFile(URL, f"md5:{MD5}", "cifar-10-binary.tar.gz", source="cifar10"),),
    parse_download=_parse,
    scale_download=False,
)
