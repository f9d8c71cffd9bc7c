"""Deterding vowel recognition (SDCA seed paper, Table 1: 990 x 10, 11 classes).

Download route: the LIBSVM site's ``vowel.scale`` (528 rows) + ``vowel.scale.t`` (462 rows), joined
(the 70/30 per-class split is ours). The two sha256 values are third-party pins (a public experiment
script that checks them against the live download); not re-checked here, which has no internet.
Embedded route: Debian ``r-cran-ddalpha``, ``vowel_MvsF.txt.gz``: columns train/test flag, speaker,
10 features, class, sex. (mlbench's ``Vowel.rda`` drops the second feature and is not used.)
"""

import numpy as np

from .base import DatasetSpec, EmbeddedFile, RemoteFile, load_libsvm


def _parse_embedded(paths):
    import pandas as pd

    df = pd.read_csv(paths[0], sep=r"\s+", compression="gzip")
    if df.shape[1] != 14:
        raise ValueError(f"{paths[0]}: expected 14 columns, found {df.shape[1]}")
    X = df.iloc[:, 2:12].to_numpy(float)
    y = df.iloc[:, 12].astype(int).astype(str).to_numpy()
    return X, np.asarray(y)


SPEC = DatasetSpec(
    name="vowel",
    description="Deterding vowel recognition",
    paper_shape=(990, 10, 11),
    download=(
        RemoteFile(
            "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/vowel.scale",
            "sha256:89ecbd4590cabc23b001cbd2d90128efe3c8ad02540ce1a08ef367b98d765585",
            "vowel.scale",
        ),
        RemoteFile(
            "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/vowel.scale.t",
            "sha256:b96670a92b4d4d711db91ecc6c89bf7d75347a1ef1f196f5876575f1c5f9a240",
            "vowel.scale.t",
        ),
    ),
    parse_download=lambda paths: load_libsvm(paths, 10),
    scale_download=False,
    embedded=(
        EmbeddedFile(
            "r-cran-ddalpha",
            "usr/lib/R/site-library/ddalpha/data/vowel_MvsF.txt.gz",
            "eb5e1ed8c10e46ebc131df0e210dea491d081334db83dc437098ffcb272699ae",
        ),
    ),
    parse_embedded=_parse_embedded,
)
