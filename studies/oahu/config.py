"""The OAHU study's config checks (``oahu:`` block), beyond what the schema says."""

from __future__ import annotations

from tripletbench.datasets import get_dataset
from tripletbench.datasets.base import DataError
from tripletbench.harness.config import MAX_ITEMS_NOTE, ConfigError, setting


def check(config: dict, libraries: bool = True) -> None:
    """Sizes that must fit the data or one another (Study.check):
    ``oahu.<experiment>.n_samples`` within its datasets (beyond: all samples, silently); ``k`` of
    the kNN within the fit part of the development half; ``oahu.figure4.n_constraints`` within
    the stream (``n_seeds + n_closure``); ``oahu.figure7.ks`` among the recall_ks its cells
    record."""
    # oahu
    oahu = config.get("oahu") or {}
    for exp in ("table3", "figure4", "figure5", "figure7"):
        if exp not in oahu:
            continue
        place = f"oahu.{exp}"
        names = list(setting(config, f"{place}.datasets") or []) + [
            setting(config, f"{place}.{k}") for k in ("dataset", "stand_in")
        ]
        n_samples = setting(config, f"{place}.n_samples")
        k = setting(config, f"{place}.k")
        for name in [n for n in names if n]:
            try:
                n, _, n_classes = get_dataset(name).shape
            except DataError:
                continue
            if n_samples is not None and int(n_samples) > n:
                raise ConfigError(
                    f"config {place}.n_samples: {n_samples} exceeds the {n} samples of {name}; "
                    f"give at most {n}, or null for all ({MAX_ITEMS_NOTE})"
                )
            pool = n if n_samples is None else int(n_samples)
            fit = int(0.8 * (pool // 2)) - n_classes  # the fit part of the development half
            if k is not None and int(k) > max(fit, 1):
                raise ConfigError(
                    f"config {place}.k: {k} neighbours, but the kNN's reference set (the fit "
                    f"part, 80%, of the development half of {pool} samples of {name}) is "
                    f"certain to hold only {max(fit, 1)}; give at most {max(fit, 1)}"
                )
    if "figure4" in oahu:
        stream = int(setting(config, "oahu.figure4.n_seeds")) + int(
            setting(config, "oahu.figure4.n_closure")
        )
        for i, n in enumerate(setting(config, "oahu.figure4.n_constraints") or []):
            if int(n) > stream:
                raise ConfigError(
                    f"config oahu.figure4.n_constraints[{i}]: {n} exceeds the stream of "
                    f"n_seeds + n_closure = {stream} constraints it subsamples"
                )
    if "figure7" in oahu:
        t3 = set(setting(config, "oahu.table3.datasets") or [])
        f7 = setting(config, "oahu.figure7.datasets") or []
        recorded = []
        if any(d in t3 for d in f7):
            recorded.append(("oahu.table3.recall_ks", setting(config, "oahu.table3.recall_ks")))
        if any(d not in t3 for d in f7):
            recorded.append(("oahu.figure7.recall_ks", setting(config, "oahu.figure7.recall_ks")))
        for i, kk in enumerate(setting(config, "oahu.figure7.ks") or []):
            for where, ks in recorded:
                if kk not in (ks or []):
                    raise ConfigError(
                        f"config oahu.figure7.ks[{i}]: K = {kk} is not among {where} {ks}, the "
                        "K its cells record; the figure would show no point there"
                    )


def method_blocks(config: dict):
    """The learner rows of every ``oahu.<experiment>`` (Study.method_blocks)."""
    for name, block in (config.get("oahu") or {}).items():
        if not isinstance(block, dict) or not block.get("methods"):
            continue
        names = list(block.get("datasets", [])) + [
            block[k] for k in ("dataset", "stand_in") if block.get(k)
        ]
        yield f"oahu.{name}", block["methods"], [("oahu", n) for n in names]
