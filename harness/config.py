"""Checks of a validated config that the JSON schema cannot express, and the cells it implies."""

from __future__ import annotations

from algorithms import make_learner
from datasets import get_dataset

from .experiment import algorithm_of, param_grid


class ConfigError(ValueError):
    """A config that names something that does not exist; the message says what and where."""


def check_config(config: dict) -> None:
    """Raise :class:`ConfigError` for an unknown method or hyperparameter.

    Runs when the workflow starts, before any job: every grid point of every method is built.
    """
    for exp in ("sdca_table2", "images"):
        if not config.get(exp, {}).get("methods"):
            continue
        for method, mcfg in config[exp]["methods"].items():
            for params in param_grid(mcfg):
                try:
                    make_learner(algorithm_of(method, mcfg), **params)
                except (KeyError, TypeError) as err:
                    raise ConfigError(f"config {exp}.methods.{method}: {err}") from None
        for name in config[exp]["datasets"]:
            _dataset(exp, name)


def _dataset(experiment: str, name: str):
    """The dataset spec of ``name`` (an image set for the ``images`` experiment); raises
    :class:`~datasets.base.DataError` for an unknown name."""
    if experiment == "images":
        from datasets.caltech256 import image_set

        return image_set(name)
    return get_dataset(name)


def available_datasets(config: dict, experiment: str, route: str) -> tuple[list[str], list[str]]:
    """(datasets that can run under ``route``, datasets that need another route)."""
    names = config[experiment]["datasets"]
    ok = [n for n in names if _dataset(experiment, n).has_route(route)]
    return ok, [n for n in names if n not in ok]


def experiment_cells(config: dict, experiment: str, results: str, route: str) -> list[str]:
    """Paths of the run CSVs of every (dataset, seed, method) cell that can run."""
    ok, _ = available_datasets(config, experiment, route)
    cfg = config[experiment]
    return [
        f"{results}/{experiment}/runs/{d}/seed{s}/{m}.csv"
        for d in ok
        for s in cfg["seeds"]
        for m in cfg["methods"]
    ]
