"""Statlog Vehicle silhouettes (SDCA paper, Table 1: 846 x 18, 4 classes).

Download route: the LIBSVM site's ``vehicle.scale`` (features already scaled to [-1, 1]).
Embedded route: Debian ``r-cran-mlbench``, ``Vehicle.rda`` (the exact Statlog data, unscaled;
scaled here to [-1, 1] as svm-scale did).

Pin: the LIBSVM site publishes no hash. The sha256 is that of a public copy of
``vehicle.scale`` (duvenaud/warped-mixtures, ``data/vehicle.scale`` at commit fb90ddbf, the commit
whose ``letter.scale`` and ``vowel.scale`` equal their independent pins); its values equal
Debian mlbench's ``Vehicle.rda`` after [-1, 1] scaling (to 5e-7) (checked by
``tests/test_mirror.py``). That the copy is byte-identical to the file the LIBSVM site serves
today is not checked (no route to it here).
"""

from .base import DatasetSpec, EmbeddedFile, RemoteFile, load_libsvm, load_rda_frame

MLBENCH = "usr/lib/R/site-library/mlbench/data/"


def _parse_embedded(paths):
    df = load_rda_frame(paths[0], "Vehicle")
    return df.drop(columns="Class").to_numpy(float), df["Class"].astype(str).to_numpy()


SPEC = DatasetSpec(
    name="vehicle",
    description="Statlog vehicle silhouettes",
    shape=(846, 18, 4),
    download=(
        RemoteFile(
            "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/vehicle.scale",
            "sha256:f5bcfc5545c0f674b372e8dc3e41752efa287d4e04cb920150c51cd9c3df7b86",
            "vehicle.scale",
            source="libsvm",
            max_bytes=180_523,  # the pinned file's size
        ),
    ),
    parse_download=lambda paths: load_libsvm(paths, 18),
    scale_download=False,
    embedded=(
        EmbeddedFile(
            "r-cran-mlbench",
            MLBENCH + "Vehicle.rda",
            "ea993a1fe72b2611a609101aa6ebee43b6a9dd07c329c9acd1a184ba971a2710",
        ),
    ),
    parse_embedded=_parse_embedded,
)
