"""Checks of a validated config that the JSON schema cannot express, and the cells it implies."""

from __future__ import annotations

from algorithms import make_learner
from datasets import get_dataset

from .experiment import algorithm_of, param_grid


class ConfigError(ValueError):
    """A config that names something that does not exist; the message says what and where."""


def method_blocks(config: dict):
    """Every ``methods`` block of ``config``: yields (place, methods dict, dataset names), place
    being the dotted config path (``oahu.table3``) used in error messages."""
    for exp in ("sdca_table2", "images"):
        block = config.get(exp) or {}
        if block.get("methods"):
            yield exp, block["methods"], [(exp, n) for n in block.get("datasets", [])]
    for name, block in (config.get("oahu") or {}).items():
        if not isinstance(block, dict) or not block.get("methods"):
            continue
        names = list(block.get("datasets", [])) + [
            block[k] for k in ("dataset", "stand_in") if block.get(k)
        ]
        yield f"oahu.{name}", block["methods"], [("oahu", n) for n in names]


def check_config(config: dict) -> None:
    """Raise :class:`ConfigError` for an unknown method, hyperparameter or out-of-range value.

    Runs when the workflow starts, before any job: every grid point of every method of every
    experiment (``sdca_table2``, ``images``, ``oahu.*``) is built and, for learners that check
    their parameters (``_check_params``), checked; every dataset name is looked up (an unknown
    one raises :class:`~datasets.base.DataError`).
    """
    for place, methods, datasets in method_blocks(config):
        for method, mcfg in methods.items():
            for params in param_grid(mcfg):
                try:
                    learner = make_learner(algorithm_of(method, mcfg), **params)
                    check = getattr(learner, "_check_params", None)
                    if check is not None:
                        check()
                except (KeyError, TypeError, ValueError) as err:
                    raise ConfigError(f"config {place}.methods.{method}: {err}") from None
        for exp, name in datasets:
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
