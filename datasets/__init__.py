"""Datasets: one module per dataset (sources, hashes, parser), plus splits and constraints.

Datasets are found, not registered: every module of this package that defines ``SPEC`` (a
:class:`~tripletbench.datasets.base.DatasetSpec`) is a dataset, named by ``SPEC.name``; the config schema's
list of names is generated from them (:func:`tripletbench.harness.config.schema`). To add one, put a module here:
copy ``datasets/vehicle.py`` (both routes) or ``datasets/glass.py`` (embedded route only, no
download route). ``get_dataset(name)`` returns a spec; ``DATASETS`` holds the feature tables.

Download pins (the download route; each module's docstring gives the details). pooch verifies
every pinned file; an unpinned one is refused unless the run's command line says
``--config allow_unpinned_downloads=true`` (then taken as served, its sha256 logged).

| data | host | pin | where the pin comes from |
|---|---|---|---|
| letter, vowel (``*.scale``, ``*.scale.t``) | LIBSVM site, https | sha256 | a public experiment script that checks them (third party); letter's two and ``vowel.scale`` equal public copies of the files |
| vehicle, segment (``*.scale``) | LIBSVM site, https | sha256 | public copies of the files (one repository, at the commit whose letter and vowel files equal their pins); values equal the Debian copies after scaling |
| svmguide4 | LIBSVM site, https | none | none published; from a data mirror, the project mirror's copies' sha256 as measured on 2026-11-26 (``mirror_hash``; their rows equal an independent copy's) |
| Fashion-MNIST labels | publishers' GitHub repository, https | sha256 | a copy whose md5 equals the publishers' |
| Fashion-MNIST images | publishers' GitHub repository, https | md5 | the publishers' README |
| EMNIST (``gzip.zip``) | NIST, https | md5 | torchvision and the publishers |
| CIFAR-10 binary | University of Toronto, https | md5 | the CIFAR page |
| Caltech-256 | Caltech data repository, https | md5 | torchvision |
| LFW pairs files | scikit-learn's figshare copies, https | sha256 | scikit-learn (``fetch_lfw_pairs``) |
| LFW attributes (PubFig) | Columbia, https | none | none published |
| WebKB (``webkb-data.gtar.gz``) | CMU, https | none | none published; from a data mirror, the sha256 of the project mirror's own archive of the pages as measured on 2026-11-26 (``mirror_hash``) |

Data mirrors (``data.mirror``: a folder, ``file://`` or http(s) base URL holding
``<source>/<original name>``, e.g. ``libsvm/letter.scale``) serve every download route through
the same pooch fetch and the same pins (:func:`tripletbench.datasets.base.fetch_download`); a file with no
publisher pin is accepted from a mirror only with the measured sha256 of the project mirror's copy
that its module pins (``RemoteFile.mirror_hash``; extracted human-judgment members: the pinned
sha256 of their listing, ``tripletbench.datasets.human_judgments.MIRROR_MEMBER_PINS``), and its provenance says
so. A mirror's own ``SHA256SUMS`` never vouches for a file: another copy needs the command-line
opt-in. Every fetch reads at most ``RemoteFile.cap`` bytes, with timeouts
(:func:`tripletbench.datasets.base.bounded_downloader`).

Hosts: https everywhere (WebKB: CMU's www.cs.cmu.edu serves its pages over https; the download
itself is not testable from here, which has no route to it). Fashion-MNIST
moved from the publishers' S3 website links (http only: S3 website endpoints serve no https) to
their GitHub repository, which their README offers as the other source; the LFW pairs files from
the LFW site (http links) to scikit-learn's https copies. Where only an md5 is known, a sha256
can replace it once someone records it from a verified copy.
"""

import importlib
import pkgutil

from tripletbench.algorithms._checks import DataError

from .fetch import ChecksumError, DataUnavailable
from .human_set import HumanSet
from .spec import DatasetSpec

NOT_DATASET_MODULES = frozenset(
    {
        "base",
        "bovw",
        "constraints",
        "fetch",
        "global_descriptor",
        "human_features",
        "human_judgments",
        "human_set",
        "names",
        "preprocess",
        "rows",
        "spec",
        "text",
    }
)
"""Modules of this package that hold no dataset (shared code)."""


def _discover() -> tuple[dict[str, tuple[str, DatasetSpec]], dict[str, HumanSet]]:
    """``(specs, human_sets)`` of the dataset modules of this package: name -> (module, spec)
    of every module that defines ``SPEC`` (a :class:`~tripletbench.datasets.base.DatasetSpec`),
    and name -> declaration of every module that defines ``HUMAN_SET`` (a crowd-sourced set,
    :class:`~tripletbench.datasets.human_set.HumanSet`). Raises ``ImportError`` for two of one
    name."""
    found: dict[str, tuple[str, DatasetSpec]] = {}
    human: dict[str, HumanSet] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("_") or info.name in NOT_DATASET_MODULES:
            continue
        module = f"{__name__}.{info.name}"
        loaded = importlib.import_module(module)
        spec = getattr(loaded, "SPEC", None)
        if isinstance(spec, DatasetSpec):
            if spec.name in found:
                raise ImportError(f"two dataset modules define a dataset named {spec.name!r}")
            found[spec.name] = (module, spec)
        hset = getattr(loaded, "HUMAN_SET", None)
        if isinstance(hset, HumanSet):
            if hset.name in human:
                raise ImportError(f"two dataset modules define a human set named {hset.name!r}")
            human[hset.name] = hset
    return found, human


_FOUND, HUMAN_SETS = _discover()
MODULES: dict[str, str] = {name: module for name, (module, _) in _FOUND.items()}
"""Dataset name -> the dotted name of its module (its parser: the prepare rule's code hash)."""
ALL_SPECS: dict[str, DatasetSpec] = {name: spec for name, (_, spec) in _FOUND.items()}
"""Every dataset module's spec, by name: the feature tables and the raw collections (Caltech-256
images, LFW, WebKB and Reuters text) that other modules turn into features."""
DATASETS: dict[str, DatasetSpec] = {n: s for n, s in ALL_SPECS.items() if s.tabular}
"""The feature tables: the names an experiment's ``datasets`` list may hold."""
HUMAN_SETS: dict[str, HumanSet]
"""The crowd-sourced sets (people's relative comparisons) by their config name: every module's
``HUMAN_SET`` (:class:`~tripletbench.datasets.human_set.HumanSet`), in module order; the human
study's ``human.sets`` may hold these names."""


def get_dataset(name: str) -> DatasetSpec:
    """The spec of dataset ``name``; raises :class:`DataError` listing the known names."""
    try:
        return DATASETS[name]
    except KeyError:
        raise DataError(f"unknown dataset {name!r}; known datasets: {sorted(DATASETS)}") from None


__all__ = [
    "ALL_SPECS",
    "DATASETS",
    "ChecksumError",
    "DataError",
    "DataUnavailable",
    "DatasetSpec",
    "HUMAN_SETS",
    "HumanSet",
    "MODULES",
    "get_dataset",
]
