"""The ``images`` block's image sets: what each image-features job depends on (its settings)."""

from __future__ import annotations

from tripletbench.harness.settings import block_settings, canonical, config_block


def images_features_settings(config: dict, dataset: str) -> dict:
    """Settings of the images_features job of image set ``dataset`` (e.g.
    ``"fashion_mnist_bovw"``): the ``images`` block's selection sizes, the bag-of-words settings
    of its source (bag-of-words sets only), the Caltech-256 image sizes (Caltech sets only), the
    route, and the code of ``workflow/scripts/oasis/images_features.py``. Raises
    :class:`tripletbench.datasets.base.DataError` for an unknown image set."""
    from tripletbench.datasets.caltech256 import image_set

    iset = image_set(dataset)
    cfg = config_block(config, "images")
    out = block_settings(
        config,
        "images",
        ["n_train_per_class", "n_test_per_class", "fit_fraction"],
        "workflow/scripts/oasis/images_features.py",
    )
    if iset.features == "bovw":
        out["bovw"] = (cfg.get("bovw") or {}).get(iset.source)
    if iset.source == "caltech256":
        out["caltech256"] = cfg.get("caltech256")
    return canonical(out)


def images_on(config: dict) -> bool:
    """Whether the config's ``images`` block has rows (a config without them builds nothing)."""
    return bool((config.get("images") or {}).get("methods"))


def image_cells(config: dict, results: str, route: str) -> list[str]:
    """The run CSVs of every (image set, method) the route can build (rule fit_evaluate)."""
    from tripletbench.harness.config import experiment_cells

    return experiment_cells(config, "images", results, route) if images_on(config) else []


def image_features_files(config: dict, results: str, route: str) -> list[str]:
    """The per-seed feature files of every image set the route can build (rule images_features)."""
    from tripletbench.harness.config import available_datasets

    if not images_on(config):
        return []
    ok, _ = available_datasets(config, "images", route)
    return [
        f"{results}/images/features/{d}/seed{s}.npz" for d in ok for s in config["images"]["seeds"]
    ]
