"""Old import paths of code that moved into the studies' packages (2026-11, the one-place-per-study
layout), kept working with a DeprecationWarning that names the new place.

* A module that moved whole (``tripletbench.harness.oahu_speed`` ->
  ``tripletbench.studies.oahu.speed``) is imported under its old name as a thin module that hands
  every attribute to the new one; ``python -m`` on the old name stops with a message naming the
  new one.
* A name that left a module of the core (``tripletbench.harness.captions.sdca_table2``) is found
  by that module's ``__getattr__`` (:func:`moved_name`) in the modules listed for it.

Only strings here: nothing is imported until an old path is used.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings

_H, _S = "tripletbench.harness", "tripletbench.studies"

MOVED_MODULES: dict[str, str | list[str]] = {
    f"{_H}.svm_experiment": f"{_S}.svm.experiment",
    f"{_H}.svm_sweeps": f"{_S}.svm.sweeps",
    f"{_H}.oahu_experiment": f"{_S}.oahu.experiment",
    f"{_H}.oahu_order": f"{_S}.oahu.order",
    f"{_H}.oahu_speed": f"{_S}.oahu.speed",
    f"{_H}.human": f"{_S}.human.experiment",
    f"{_H}.human_maps": f"{_S}.human.maps",
    f"{_H}.table4_scaling": f"{_S}.performance.table4_scaling",
    f"{_H}.curves": [f"{_S}.sdca.curves", f"{_S}.oasis.scaling"],
    f"{_H}.performance": f"{_S}.performance.measure",
}
"""Old module -> the module(s) that hold all of it now."""

RENAMED = {(f"{_H}.plots", "scaling"): (f"{_S}.oasis.scaling", "plot_scaling")}
"""(old module, old name) -> (module, name) of a name that moved under another name."""

_STUDY_MODULES = [
    f"{_S}.{study}.{part}"
    for study in ("sdca", "oasis", "svm", "oahu", "human", "performance")
    for part in ("captions", "rows", "paper", "config", "images", "scaling")
]

SPLIT_MODULES = {f"{_H}.table_rows": _STUDY_MODULES}
"""Old module that was split -> the modules that hold its names now."""

MOVED_NAMES = {
    f"{_H}.captions": _STUDY_MODULES,
    f"{_H}.config": _STUDY_MODULES,
    f"{_H}.paper_settings": _STUDY_MODULES,
    f"{_H}.plots": [f"{_S}.oasis.scaling"],
    f"{_H}.settings": [f"{_S}.oasis.images"],
    f"{_H}.report": [f"{_H}.study"],
}
"""Core module -> where the names that left it are now."""


def _warn(old: str, new: str) -> None:
    warnings.warn(
        f"{old} moved to {new} (one package per study); import it from there",
        DeprecationWarning,
        stacklevel=3,
    )


def _find(name: str, places: list[str]):
    for place in places:
        try:
            module = importlib.import_module(place)
        except ModuleNotFoundError:
            continue
        if hasattr(module, name):
            return place, getattr(module, name)
    return None, None


_MERGED_PAPER = ("PAPER_SETTINGS", "stated", "note", "vs_paper", "differs", "comparison_note")
"""Names of the old one-dict paper settings: now one ``PAPER`` per study, merged here."""


def _merged_paper(name: str):
    settings = {}
    for study in ("sdca", "oasis", "svm", "oahu", "performance"):
        settings.update(importlib.import_module(f"{_S}.{study}.paper").PAPER.settings)
    merged = importlib.import_module(f"{_H}.paper_settings").PaperSettings(settings)
    return settings if name == "PAPER_SETTINGS" else getattr(merged, name)


def moved_name(module: str, name: str):
    """The value of ``name`` that left ``module`` (a core module's ``__getattr__``), with a
    DeprecationWarning naming its new module; AttributeError where it is not a moved name."""
    if (module, name) in RENAMED:
        place, new = RENAMED[module, name]
        _warn(f"{module}.{name}", f"{place}.{new}")
        return getattr(importlib.import_module(place), new)
    if module == f"{_H}.paper_settings" and name in _MERGED_PAPER:
        _warn(f"{module}.{name}", "each study's paper module (tripletbench.studies.<name>.paper)")
        return _merged_paper(name)
    place, value = (
        _find(name, MOVED_NAMES.get(module, []))
        if not name.startswith("__")
        else (
            None,
            None,
        )
    )
    if place is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    _warn(f"{module}.{name}", f"{place}.{name}")
    return value


class _Alias(types.ModuleType):
    """An old module path: every attribute read from the module(s) that hold it now."""

    def __init__(self, old: str, places: list[str]):
        super().__init__(old)
        self.__dict__["_places"] = places

    def __getattr__(self, name: str):
        place, value = _find(name, self._places) if not name.startswith("__") else (None, None)
        if place is None:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        _warn(f"{self.__name__}.{name}", f"{place}.{name}")
        return value


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, old: str, places: list[str]):
        self.old, self.places = old, places

    def create_module(self, spec):
        _warn(self.old, " / ".join(self.places) if len(self.places) < 3 else "the studies")
        return _Alias(self.old, self.places)

    def exec_module(self, module) -> None:
        return None

    def get_code(self, fullname):  # python -m <old module>
        raise ImportError(f"{self.old} moved to {self.places[0]}: run python -m {self.places[0]}")


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if fullname in MOVED_MODULES:
            places = MOVED_MODULES[fullname]
            places = places if isinstance(places, list) else [places]
        elif fullname in SPLIT_MODULES:
            places = SPLIT_MODULES[fullname]
        else:
            return None
        return importlib.util.spec_from_loader(fullname, _AliasLoader(fullname, places))


def install() -> None:
    """Put the finder of old module paths on ``sys.meta_path`` (once)."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())
