"""Caption words every study uses: a dataset's scaling, a row's hyperparameters, a grid's values.
Each study's own captions are in its package (``tripletbench.studies.<name>.captions``): what the
paper states and what we chose, in separate sentences, computed from the config and the runs so
that no number in a caption goes stale; the builder
(:class:`tripletbench.harness.paper_table.PaperTable`) says once how to read a cell.
"""

from __future__ import annotations


def scaling_words(spec, route: str) -> str:
    """How the features of dataset ``spec`` (a :class:`tripletbench.datasets.base.DatasetSpec`)
    on ``route`` are scaled, in words (for captions)."""
    scaled_here = spec.scale_download if route == "download" else spec.scale_embedded
    if scaled_here:
        return "each feature to [-1, 1] on all rows (svm-scale's rule)"
    if route == "download":
        return spec.scaling_download or "scaled by the publisher"
    return spec.scaling_embedded or "as the parser returns it"


def fmt_params(d: dict) -> str:
    """Hyperparameters as a caption lists them: ``C=0.1, lam=0.005``."""
    return ", ".join(f"{k}={v}" for k, v in d.items())


def grid_values(grid: dict):
    """The values of a one-parameter grid (compared with the paper's), else the whole grid."""
    return list(next(iter(grid.values()))) if len(grid) == 1 else grid


def __getattr__(name: str):
    """A name that moved into a study's package: found there, with a DeprecationWarning."""
    from tripletbench._moved import moved_name

    return moved_name(__name__, name)
