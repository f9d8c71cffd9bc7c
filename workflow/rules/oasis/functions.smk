# The oasis study's functions for its rule files (input functions, cell lists, settings);
# included first by workflow/rules/oasis.smk. They read that file's settings when called.


def images_source(wildcards):
    """Fashion-MNIST's prepared arrays (and their row file) or the Caltech-256 image list."""
    from tripletbench.datasets.caltech256 import image_set

    if image_set(wildcards.dataset).source == "fashion_mnist":
        return prepared_rows("fashion_mnist")
    return CALTECH_LIST
