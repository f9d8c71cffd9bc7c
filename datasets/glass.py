"""UCI Glass identification (214 x 9, 6 classes; German, 1987): refractive index and eight oxide
contents of glass fragments, classed by use (building and vehicle windows, containers, tableware,
headlamps). Not in a paper we reproduce: an extra dataset for the tables, and the example of a
dataset with an embedded route only.

Embedded route: Debian ``r-cran-mlbench``, ``Glass.rda`` (data frame ``Glass``: the nine features,
class column ``Type`` with values 1, 2, 3, 5, 6, 7), scaled here to [-1, 1] as svm-scale does.
Download route: none here. (The LIBSVM site serves ``glass.scale``; to route it, add a
:class:`~tripletbench.datasets.base.RemoteFile` with its URL and a pinned hash, as ``datasets/vehicle.py``.)

To add a dataset, copy this module (or ``vehicle.py`` for both routes): ``SPEC.name`` is its name
in configs; nothing else needs editing (``datasets`` finds it, the config schema lists it).
"""

from .base import DatasetSpec, EmbeddedFile, load_rda_frame

MLBENCH = "usr/lib/R/site-library/mlbench/data/"


def _parse_embedded(paths):
    """(X (214, 9) float64, class names (214,)) from ``Glass.rda``."""
    df = load_rda_frame(paths[0], "Glass")
    return df.drop(columns="Type").to_numpy(float), df["Type"].astype(str).to_numpy()


SPEC = DatasetSpec(
    name="glass",
    description="UCI glass identification",
    title="Glass",
    shape=(214, 9, 6),
    embedded=(
        EmbeddedFile(
            "r-cran-mlbench",
            MLBENCH + "Glass.rda",
            "dd6d25227d9b49c30a4de04566bec1a2877e790b7690544ad848d847144f32b7",
        ),
    ),
    parse_embedded=_parse_embedded,
)
