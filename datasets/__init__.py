"""Datasets: one module per dataset (sources, hashes, parser), plus splits and constraints.

``get_dataset(name)`` returns a :class:`~datasets.base.DatasetSpec`; ``DATASETS`` lists them all.
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
