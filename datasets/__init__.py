"""Datasets: one module per dataset (sources, hashes, parser), plus splits and constraints.

``get_dataset(name)`` returns a :class:`~datasets.base.DatasetSpec`; ``DATASETS`` lists them all.

Download pins (the download route; each module's docstring gives the details). pooch verifies
every pinned file; an unpinned one is refused unless the run's command line says
``--config allow_unpinned_downloads=true`` (then taken as served, its sha256 logged).

| data | host | pin | where the pin comes from |
|---|---|---|---|
| letter, vowel (``*.scale``, ``*.scale.t``) | LIBSVM site, https | sha256 | a public experiment script that checks them (third party); letter's two and ``vowel.scale`` equal public copies of the files |
| vehicle, segment (``*.scale``) | LIBSVM site, https | sha256 | public copies of the files (one repository, at the commit whose letter and vowel files equal their pins); values equal the Debian copies after scaling |
| svmguide4 | LIBSVM site, https | none | none published, no copy found |
| Fashion-MNIST labels | publishers' GitHub repository, https | sha256 | a copy whose md5 equals the publishers' |
| Fashion-MNIST images | publishers' GitHub repository, https | md5 | the publishers' README |
| EMNIST (``gzip.zip``) | NIST, https | md5 | torchvision and the publishers |
| CIFAR-10 binary | University of Toronto, https | md5 | the CIFAR page |
| Caltech-256 | Caltech data repository, https | md5 | torchvision |
| LFW pairs files | scikit-learn's figshare copies, https | sha256 | scikit-learn (``fetch_lfw_pairs``) |
| LFW attributes (PubFig) | Columbia, https | none | none published |
| WebKB (``webkb-data.gtar.gz``) | CMU, https | none | none published; from a data mirror, the sha256 the mirror lists (its own archive of the pages) |

Data mirrors (``data.mirror``: a folder, ``file://`` or http(s) base URL holding
``<source>/<original name>``, e.g. ``libsvm/letter.scale``) serve every download route through
the same pooch fetch and the same pins (:func:`datasets.base.fetch_download`).

Hosts: https everywhere (WebKB: CMU's www.cs.cmu.edu serves its pages over https; the download
itself is not testable from here, which has no route to it). Fashion-MNIST
moved from the publishers' S3 website links (http only: S3 website endpoints serve no https) to
their GitHub repository, which their README offers as the other source; the LFW pairs files from
the LFW site (http links) to scikit-learn's https copies. Where only an md5 is known, a sha256
can replace it once someone records it from a verified copy.
"""

from . import (  # OAHU Table 3 (download route only)
    cifar10_gray,
    emnist,
    fashion_mnist,
    letter,
    segment,
    svmguide4,
    vehicle,
    vowel,
)
from .base import ChecksumError, DataError, DatasetSpec, DataUnavailable

DATASETS: dict[str, DatasetSpec] = {
    m.SPEC.name: m.SPEC for m in (vehicle, vowel, letter, segment, svmguide4, fashion_mnist)
}
DATASETS.update({m.SPEC.name: m.SPEC for m in (emnist, cifar10_gray)})


def get_dataset(name: str) -> DatasetSpec:
    """The spec of dataset ``name``; raises :class:`DataError` listing the known names."""
    try:
        return DATASETS[name]
    except KeyError:
        raise DataError(f"unknown dataset {name!r}; known datasets: {sorted(DATASETS)}") from None


__all__ = [
    "DATASETS",
    "ChecksumError",
    "DataError",
    "DataUnavailable",
    "DatasetSpec",
    "get_dataset",
]
