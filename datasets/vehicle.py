"""Statlog Vehicle silhouettes (SDCA seed paper, Table 1: 846 x 18, 4 classes).

Download route: the LIBSVM site's ``vehicle.scale`` (features already scaled to [-1, 1]).
Embedded route: Debian ``r-cran-mlbench``, ``Vehicle.rda`` (the exact Statlog data, unscaled;
scaled here to [-1, 1] as svm-scale did).

No hash is published for ``vehicle.scale`` and no trustworthy copy of it was found (Debian's is
the R data frame), so it is unpinned: the download route takes it only when the run's command
line asks for it (``--config allow_unpinned_downloads=true``) and records its sha256 in the
prepare log.
"""

from .base import DatasetSpec, EmbeddedFile, RemoteFile, load_libsvm, load_rda_frame

MLBENCH = "usr/lib/R/site-library/mlbench/data/"


def _parse_embedded(paths):
    df = load_rda_frame(paths[0], "Vehicle")
    return df.drop(columns="Class").to_numpy(float), df["Class"].astype(str).to_numpy()


SPEC = DatasetSpec(
    name="vehicle",
    description="Statlog vehicle silhouettes",
    paper_shape=(846, 18, 4),
    download=(
        RemoteFile(
            "https://www.csie.ntu.edu.tw/~cjlin/libsvmtools/datasets/multiclass/vehicle.scale",
            None,
            "vehicle.scale",
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
