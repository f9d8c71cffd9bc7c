"""The OASIS study's config checks (``images:`` block: Caltech-256 and its stand-ins), beyond what
the schema says."""

from __future__ import annotations

from tripletbench.datasets.base import DataError
from tripletbench.harness.config import ConfigError, setting


def _check_images(images: dict) -> None:
    """Sizes of the ``images`` block that its protocol cannot use (the schema checks each value
    alone): the fit part of a class (``round(fit_fraction * n_train_per_class)``, at least one
    and one fewer than the class's training images, :func:`tripletbench.datasets.preprocess.split_per_class`)
    must hold two images, or no triplet has a positive; ``precision_at_k`` must not exceed the
    database that the test queries rank (``n_train_per_class`` x the classes of the smallest
    image set)."""
    from tripletbench.datasets.caltech256 import image_set
    from tripletbench.datasets.fashion_mnist import SPEC as FASHION

    if not images:
        return
    n_train = int(images.get("n_train_per_class", 40))
    fraction = float(images.get("fit_fraction", 0.8))
    n_fit = min(max(int(round(fraction * n_train)), 1), n_train - 1)
    if n_fit < 2:
        raise ConfigError(
            f"config images.n_train_per_class: {n_train} training images per class with "
            f"fit_fraction {fraction} leave {n_fit} per class to fit the validation models; a "
            "triplet needs two images of one class (raise n_train_per_class or fit_fraction)"
        )
    k = images.get("precision_at_k")
    classes = []
    for name in images.get("datasets") or []:
        try:
            iset = image_set(name)
        except DataError:
            continue  # named by the dataset check with its own message
        classes.append(iset.n_classes or FASHION.shape[2])
    if k and classes and int(k) > n_train * min(classes):
        raise ConfigError(
            f"config images.precision_at_k: {k} exceeds the database that the test queries rank "
            f"({n_train} training images per class x {min(classes)} classes = "
            f"{n_train * min(classes)} in the smallest image set); precision@k is undefined "
            "beyond it"
        )


FASHION_PER_CLASS = 7000
"""Images per class of Fashion-MNIST (70,000 in 10 balanced classes)."""


CALTECH256_SMALLEST_CLASS = 80
"""Images of Caltech-256's smallest class (Griffin et al. 2007: at least 80 per category), before
``images.caltech256.min_side`` drops small ones."""


def _check_image_sizes(config: dict) -> None:
    """``images``: ``n_train_per_class + n_test_per_class`` within a class of each image source,
    ``bovw.<source>.n_words`` within ``max_descriptors``, ``block_size`` within the image,
    ``sdca_table3_datasets`` among ``datasets``; the same for an image set that the convergence
    figures use (``figures.dataset``), whose images these settings select."""
    from tripletbench.datasets.caltech256 import image_set, is_image_set_name

    # images (their sets, and an image set that the convergence figures use)
    images = config.get("images")
    figure_set = (config.get("figures") or {}).get("dataset")
    figure_set = [figure_set] if figure_set and is_image_set_name(figure_set) else []
    if images or figure_set:
        n_train = int(setting(config, "images.n_train_per_class"))
        n_test = int(setting(config, "images.n_test_per_class"))
        per = n_train + n_test
        sources = set()
        for name in list(setting(config, "images.datasets") if images else []) + figure_set:
            try:
                sources.add(image_set(name).source)
            except DataError:
                continue
        limits = {"fashion_mnist": FASHION_PER_CLASS, "caltech256": CALTECH256_SMALLEST_CLASS}
        for source in sorted(sources):
            if per > limits[source]:
                raise ConfigError(
                    f"config images.n_train_per_class: {n_train} + n_test_per_class {n_test} = "
                    f"{per} images per class, but a class of {source} holds {limits[source]}"
                    + (" (the smallest; fewer after min_side)" if source == "caltech256" else "")
                )
            bovw = setting(config, f"images.bovw.{source}") or {}
            words, most = bovw.get("n_words"), bovw.get("max_descriptors", 200_000)
            if words is not None and int(words) > int(most):
                raise ConfigError(
                    f"config images.bovw.{source}.n_words: {words} words from at most "
                    f"{most} descriptors (max_descriptors); k-means needs at least as many "
                    "descriptors as words"
                )
            side = (
                28
                if source == "fashion_mnist"
                else min(
                    int(setting(config, "images.caltech256.min_side")),
                    int(setting(config, "images.caltech256.max_side")),
                )
            )
            block = bovw.get("block_size")
            if block is not None and int(block) > side:
                raise ConfigError(
                    f"config images.bovw.{source}.block_size: {block} px exceeds the "
                    f"{side} px side that every {source} image is certain to have"
                    + (" (min_side, max_side)" if source == "caltech256" else "")
                )
        sets = list(setting(config, "images.datasets") or [])
        for i, name in enumerate(setting(config, "images.sdca_table3_datasets") or []):
            if images and name not in sets:
                raise ConfigError(
                    f"config images.sdca_table3_datasets[{i}]: {name!r} is not in "
                    f"images.datasets {sets}, so no cell computes its column"
                )


def check(config: dict, libraries: bool = True) -> None:
    """The OASIS study's checks (Study.check): :func:`_check_images`, :func:`_check_image_sizes`."""
    _check_images(config.get("images") or {})
    _check_image_sizes(config)


def method_blocks(config: dict):
    """The learner rows of ``images`` (Study.method_blocks)."""
    block = config.get("images") or {}
    if block.get("methods"):
        yield "images", block["methods"], [("images", n) for n in block.get("datasets", [])]


def dataset(block: str, name: str):
    """A name in ``images`` is an image set (Study.dataset); raises DataError for an unknown one."""
    if block != "images":
        return None
    from tripletbench.datasets.caltech256 import image_set

    return image_set(name)
