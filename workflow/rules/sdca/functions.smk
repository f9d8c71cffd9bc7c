# The sdca study's functions for its rule files (input functions, cell lists, settings);
# included first by workflow/rules/sdca.smk. They read that file's settings when called.


def table2_compare_with(wildcards):
    """sdca_table2.compare_with, another route's Table 2 CSV, once it exists (made by another
    run; the table says so while it is missing, and is remade when it appears or changes)."""
    path = config["sdca_table2"].get("compare_with")
    return [path] if path and Path(path).is_file() else []


def table4_split_settings(wildcards=None):
    """Rule table4_split's settings: the split's sizes, the route and the script's code."""
    return data_settings(
        config,
        "sdca_table4",
        ["train_fraction", "fit_fraction", "query_fraction"],
        "workflow/scripts/sdca/table4_split.py",
    )


def table4_cells():
    """The Table 4 cells that the route can run (none offline: "needs download")."""
    if not config["sdca_table4"].get("methods"):
        return []
    return experiment_cells(config, "sdca_table4", RESULTS, ROUTE)


def table4_block():
    """The sdca_table4 block that table4_scaling runs (its protocol and rows); raises
    ConfigError when it has no methods."""
    from tripletbench.harness.config import ConfigError

    block = config["sdca_table4"]
    if not block.get("methods"):
        raise ConfigError(
            "config table4_scaling: runs the rows of sdca_table4.methods, and the config gives "
            "none (add the sdca_table4 block, e.g. from config/default.yaml)"
        )
    return block


def table4_learners():
    """The learners table4_scaling builds (their code is in its settings)."""
    from tripletbench.harness.experiment import algorithm_of

    block = config["sdca_table4"]
    rows = config["table4_scaling"].get("methods") or list(block.get("methods") or {})
    return sorted({algorithm_of(m, block["methods"][m]) for m in rows if m in block["methods"]})


def fig_inputs(wildcards):
    """The settings hash the convergence curves' feature file must record: an image set's
    features (rule images_features, whose settings its file records), or "" for a prepared
    dataset (it records none: its pin vouches for it)."""
    from tripletbench.datasets.caltech256 import is_image_set_name
    from tripletbench.studies.oasis.images import images_features_settings

    name = config["figures"]["dataset"]
    if is_image_set_name(name):
        return settings_hash(images_features_settings(config, name))
    return ""


def fig_data(wildcards):
    """The feature file of a convergence-curve seed: the prepared dataset, or for an image set
    (``caltech256_<k>``, ``fashion_mnist_pixels|bovw``: the SDCA paper's Figures 1-2 used
    Caltech-256 with 50 classes) that seed's image features (rule images_features)."""
    from tripletbench.datasets.caltech256 import is_image_set_name

    name = config["figures"]["dataset"]
    if is_image_set_name(name):
        return f"{RESULTS}/images/features/{name}/seed{wildcards.seed}.npz"
    return f"{CACHE}/prepared/{name}_{ROUTE}.npz"
