"""The human-judgment sets and their availability: the config's set names and their dataset
modules, whether the configured route or mirror can give a set (and why not, for the table and the
figures), loading a set's judgments, its feature sets and their normalisation."""

from __future__ import annotations

from pathlib import Path

import numpy as np

SETS = {  # the config's set name -> its module's name under datasets/
    "material": "material_similarity",
    "cars60": "cars60",
    "food100": "food100",
}


def module(name: str):
    """The dataset module of set ``name`` (:data:`SETS`)."""
    import importlib

    return importlib.import_module(f"tripletbench.datasets.{SETS[name]}")


def available(name: str, route: str, mirror: str | None) -> bool:
    """Whether set ``name`` can be fetched: the download route only (no embedded copy exists);
    with a folder mirror, the mirror must hold the publisher's archive or its members (food,
    cars: ``<source>/<archive>`` or ``<source>/<top>/``; material: ``material/``)."""
    if route != "download":
        return False
    if not mirror:
        return True
    from tripletbench.datasets.base import DataUnavailable, mirror_location

    try:
        kind, base = mirror_location(mirror)
    except DataUnavailable:
        return False
    if kind != "folder":
        return True
    mod = module(name)
    if name == "material":
        return (Path(base) / "material").is_dir()
    return (Path(base) / mod.SOURCE / mod.ARCHIVE).is_file() or (
        Path(base) / mod.SOURCE / mod.TOP
    ).is_dir()


def load(name: str, cache_dir, mirror: str | None, allow_unpinned: bool = False):
    """Set ``name``'s :class:`tripletbench.datasets.human_judgments.Judgments` (fetched once by pooch)."""
    return module(name).load_judgments(
        Path(cache_dir), mirror=mirror, allow_unpinned=allow_unpinned
    )


def feature_sets(name: str, wanted) -> list[str]:
    """The feature sets of ``wanted`` that set ``name`` has (``ingredients``: Food-100 only)."""
    return [f for f in wanted if f != "ingredients" or name == "food100"]


def normalize(X: np.ndarray, how: str) -> np.ndarray:
    """``"l2"``: every row at unit length (a zero row stays zero); ``"none"``: as computed."""
    X = np.asarray(X, dtype=np.float64)
    if how == "none":
        return X
    n = np.linalg.norm(X, axis=1, keepdims=True)
    return X / np.where(n > 0, n, 1.0)


def route_and_mirror(config: dict) -> tuple[str, str | None]:
    """``(route, mirror)`` the human sets are fetched by: ``human.mirror`` where the block names
    one (the download route's mirror layout, whatever ``data.route`` says: how the CI config
    reads ``../shared/mirror`` beside an embedded run), else ``data.route`` and ``data.mirror``."""
    block = config.get("human") or {}
    if block.get("mirror"):
        return "download", block["mirror"]
    data = config.get("data") or {}
    return data.get("route", "embedded"), data.get("mirror")


def missing_reason(config: dict) -> str:
    """Why a configured set did not run, for the table and the figure: "needs download"
    (embedded route), "not in the data mirror", or, for ``human.mirror``, that the folder is
    absent (ours: the CI config names ``../shared/mirror``, which a clone may lack; the run
    goes on without the sets)."""
    block = config.get("human") or {}
    mirror = block.get("mirror")
    if mirror:
        from tripletbench.datasets.base import DataUnavailable, mirror_location

        try:
            mirror_location(mirror)
        except DataUnavailable:
            return f"not run: no data mirror at {mirror} (human.mirror)"
        return f"not in the data mirror {mirror} (human.mirror)"
    route, data_mirror = route_and_mirror(config)
    if route != "download":
        return "needs download"
    return "not in the data mirror" if data_mirror else "not run"
