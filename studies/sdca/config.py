"""The SDCA study's config checks (``sdca_table2``, ``sdca_table4``, ``table4_scaling`` and
``figures`` blocks), beyond what the schema says."""

from __future__ import annotations

from tripletbench.datasets import get_dataset
from tripletbench.datasets.base import DataError
from tripletbench.harness.config import (
    MAX_ITEMS_NOTE,
    ConfigError,
    check_learner,
    check_method,
    dataset_spec,
    part,
    setting,
)


def split_sizes(config: dict, name: str, fraction: float = 0.7) -> tuple[int, int, str]:
    """(training items, test items, how they were counted) of the per-class ``fraction`` split
    (:func:`tripletbench.datasets.preprocess.make_split`, the convergence figures' split) of dataset or image
    set ``name``. An image set holds ``images.n_train_per_class + n_test_per_class`` images of
    each of its classes: exact. A dataset's class sizes are not known before its data is read,
    only its size and classes (:attr:`~tripletbench.datasets.base.DatasetSpec.shape`): each class
    rounds once (at most half an item), so the counts are the sizes the split is certain to
    hold. Raises :class:`~tripletbench.datasets.base.DataError` for an unknown name."""
    import math

    from tripletbench.datasets.caltech256 import image_set, is_image_set_name

    if is_image_set_name(name):
        iset = image_set(name)
        per = int(setting(config, "images.n_train_per_class")) + int(
            setting(config, "images.n_test_per_class")
        )
        k = iset.n_classes or 10
        train = k * part(per, fraction)
        return train, k * per - train, f"{k} classes x {per} images, {fraction:.0%} per class"
    n, _, k = get_dataset(name).shape
    train = math.ceil(fraction * n - k / 2 - 1e-9)
    test = math.ceil((1 - fraction) * n - k / 2 - 1e-9)
    how = (
        f"{n} samples in {k} classes, {fraction:.0%} of each class to training: the count it is "
        "certain to hold, each class rounding by up to half a sample"
    )
    return train, test, how


def _figures_dataset(name: str, route: str | None) -> None:
    """Check ``figures.dataset``: a dataset or an image set (its per-seed image features) that
    the run's route can build; raises :class:`ConfigError` naming the key."""
    from tripletbench.datasets.caltech256 import is_image_set_name

    try:
        spec = dataset_spec("images" if is_image_set_name(name) else "figures", name)
    except DataError as err:
        raise ConfigError(f"config figures.dataset: {err}") from None
    if route and not spec.has_route(route):
        raise ConfigError(
            f"config figures.dataset: {name!r} cannot be built on the {route!r} route (it needs "
            "a download: data.route: download); the convergence figures have no 'needs download' "
            "cell to show instead"
        )


def _check_figure_sizes(config: dict) -> None:
    """``figures.n_queries`` / ``figures.n_database`` within the test / training part of
    ``figures.dataset`` (beyond it they were cut silently, the caption saying the value asked
    for), ``figures.scaling_n_samples`` within the training part of ``figures.scaling_dataset``."""
    from tripletbench.datasets.caltech256 import is_image_set_name

    def sized(name):
        try:
            return split_sizes(config, name)
        except DataError:
            return None  # an unknown name is refused by its own check

    # figures (the Fig. 3 queries and database; figure_scaling's sample sizes)
    if config.get("figures") is not None:
        name = setting(config, "figures.dataset")
        sizes = sized(name) if name else None
        if sizes:
            train, test, how = sizes
            for key, have, which in (
                ("n_queries", test, "test"),
                ("n_database", train, "training"),
            ):
                value = setting(config, f"figures.{key}")
                if value is not None and int(value) > have:
                    raise ConfigError(
                        f"config figures.{key}: {value} exceeds the {have} {which} samples of "
                        f"{name}'s split ({how}); give at most {have} ({MAX_ITEMS_NOTE})"
                    )
        name = setting(config, "figures.scaling_dataset")
        sizes = sized(name) if name and not is_image_set_name(name) else None
        if sizes:
            for i, m in enumerate(setting(config, "figures.scaling_n_samples") or []):
                if int(m) > sizes[0]:
                    raise ConfigError(
                        f"config figures.scaling_n_samples[{i}]: {m} exceeds the {sizes[0]} "
                        f"training samples of {name}'s split ({sizes[2]}); give at most "
                        f"{sizes[0]} ({MAX_ITEMS_NOTE})"
                    )


def _check_figures(config: dict) -> None:
    """The learner settings of the ``figures`` block outside ``methods`` blocks:
    ``figures.scaling_lmnn`` (LMNN), ``figures.oasis_C`` and ``figures.oasis_variants`` (OASIS),
    ``figures.sdca_lam`` (SDCA); ``figures.dataset`` (a dataset or an image set) must be
    buildable on ``data.route``."""
    figures = config.get("figures") or {}
    if "scaling_lmnn" in figures:
        check_method("figures.scaling_lmnn", "LMNN", {"fixed": figures["scaling_lmnn"]}, bare=True)
    for key, algorithm, param in (("oasis_C", "OASIS", "C"), ("sdca_lam", "SDCA", "lam")):
        if key in figures:
            check_learner(f"figures.{key}", algorithm, {param: figures[key]})
    for name, kwargs in (figures.get("oasis_variants") or {}).items():
        check_method(f"figures.oasis_variants.{name}", "OASIS", {"fixed": kwargs}, bare=True)
    if figures.get("dataset"):
        _figures_dataset(figures["dataset"], (config.get("data") or {}).get("route"))


def check(config: dict, libraries: bool = True) -> None:
    """The SDCA study's checks (:attr:`tripletbench.harness.study.Study.check`): sizes that must
    fit the data or one another (:func:`_check_figure_sizes`) and
    the ``figures`` block's learner settings (:func:`_check_figures`)."""
    _check_figure_sizes(config)
    _check_figures(config)


def method_blocks(config: dict):
    """The learner rows of ``sdca_table2`` and ``sdca_table4`` (Study.method_blocks)."""
    for exp in ("sdca_table2", "sdca_table4"):
        block = config.get(exp) or {}
        if block.get("methods"):
            yield exp, block["methods"], [(exp, n) for n in block.get("datasets", [])]


def dataset(block: str, name: str):
    """``sdca_table4``'s dataset is an image collection, not a feature table
    (Study.dataset); raises DataError for another name."""
    if block != "sdca_table4":
        return None
    from tripletbench.datasets.imageclef_flickr import SPEC

    if name != SPEC.name:
        raise DataError(f"unknown Table 4 collection {name!r}; expected {SPEC.name!r}")
    return SPEC
