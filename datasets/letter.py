"""UCI Letter recognition (SDCA paper, Table 1: 20000 x 16, 26 classes).

Download route: the LIBSVM site's ``letter.scale`` (15000 rows) + ``letter.scale.t`` (5000 rows).
The two sha256 values are third-party pins (a public experiment script that checks them against the
live download); they were not re-checked here, which has no internet.
Embedded route: Debian ``r-cran-mlbench``, ``LetterRecognition.rda`` (class column ``lettr`` first),
scaled here to [-1, 1].
"""

from .base import DatasetSpec, EmbeddedFile, RemoteFile, load_libsvm, load_rda_frame

MLBENCH = "usr/lib/R/site-library/mlbench/data/"


def _parse_embedded(paths):
    df = load_rda_frame(paths[0], "LetterRecognition")
    return df.drop(columns="lettr").to_numpy(float), df["lettr"].astype(str).to_numpy()


SPEC = DatasetSpec(
    name="letter",
    description="UCI letter recognition",
    shape=(20000, 16, 26),
    download=(
        RemoteFile(
            "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/letter.scale",
            "sha256:ce2c7df15cc5742dc4382d59079181c97c21e0beaa0af53c84cc5745c69f1020",
            "letter.scale",
            source="libsvm",
            max_bytes=2_630_396,  # the pinned file's size
        ),
        RemoteFile(
            "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/letter.scale.t",
            "sha256:07522ccbf54187fae6d560d1712b88c41ea1f7e8d19491c5adcc22ee37a075da",
            "letter.scale.t",
            source="libsvm",
            max_bytes=877_223,  # the pinned file's size
        ),
    ),
    parse_download=lambda paths: load_libsvm(paths, 16),
    scale_download=False,
    embedded=(
        EmbeddedFile(
            "r-cran-mlbench",
            MLBENCH + "LetterRecognition.rda",
            "967a1a3e10b548d7269cbe50182bcecd6365cc58ea07638bbc34c51f17f34f1d",
        ),
    ),
    parse_embedded=_parse_embedded,
)
