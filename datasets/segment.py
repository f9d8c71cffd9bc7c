"""Statlog image segmentation (2310 x 19, 7 classes x 330). The SDCA paper's Table 1 lists 19
features and 7 classes but 1937 rows; the LIBSVM ``segment.scale`` file and the Statlog data have
2310 (``shape`` is the files' shape), and all 2310 are used.

Download route: the LIBSVM site's ``segment.scale``.
Embedded route: Debian ``weka``, ``segment-challenge.arff`` (1500 rows) + ``segment-test.arff``
(810 rows), parsed with ``scipy.io.arff``: the same 2310 instances, values rounded to 6 digits,
rows reordered; scaled here to [-1, 1] (the constant ``region-pixel-count`` becomes 0, as
svm-scale leaves it).

Pin: the LIBSVM site publishes no hash. The sha256 is that of a public copy of
``segment.scale`` (duvenaud/warped-mixtures, ``data/segment.scale`` at commit fb90ddbf, the commit
whose ``letter.scale`` and ``vowel.scale`` equal their independent pins); its values equal
weka's segment ARFF files after [-1, 1] scaling (to 1.3e-5) (checked by
``tests/test_mirror.py``). That the copy is byte-identical to the file the LIBSVM site serves
today is not checked (no route to it here).
"""

import numpy as np

from .base import DatasetSpec, EmbeddedFile, RemoteFile, load_libsvm

WEKA = "usr/share/doc/weka/examples/"


def _parse_embedded(paths):
    from scipy.io import arff

    Xs, ys = [], []
    for p in paths:
        data, meta = arff.loadarff(str(p))
        names = [n for n in meta.names() if n != "class"]
        Xs.append(np.column_stack([data[n].astype(float) for n in names]))
        ys.append(data["class"].astype(str))
    return np.vstack(Xs), np.concatenate(ys)


SPEC = DatasetSpec(
    name="segment",
    description="Statlog image segmentation",
    shape=(2310, 19, 7),
    paper_lists=(1937, 19, 7),  # the SDCA paper's Table 1
    download=(
        RemoteFile(
            "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/segment.scale",
            "sha256:7c25c4529b8c84d047bc546e1e1f9a3f671c36d77f5469fb845b6e4a15bdd629",
            "segment.scale",
            source="libsvm",
            max_bytes=480_042,  # the pinned file's size
        ),
    ),
    parse_download=lambda paths: load_libsvm(paths, 19),
    scale_download=False,
    embedded=(
        EmbeddedFile(
            "weka",
            WEKA + "segment-challenge.arff",
            "f83454c706ab4ebabe66673975bec8de15925bdb448d475da2a26aad06694cff",
        ),
        EmbeddedFile(
            "weka",
            WEKA + "segment-test.arff",
            "11ff8dd597fe939cf6b66ec21f01c64e16318524d3b54e58e5b86fed5340ed18",
        ),
    ),
    parse_embedded=_parse_embedded,
)
