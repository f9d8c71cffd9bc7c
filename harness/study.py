"""What the generic core knows of a study: a :class:`Study` declaration, and the registry the
studies enter.

A study (one paper's experiments, or a measurement of our own) is one package under
``tripletbench.studies`` and one rule file ``workflow/rules/<name>.smk``, each carrying the study's
name. The package's ``__init__.py`` declares ``STUDY = Study(...)``: the config blocks it owns, its
report items, its config checks and the rows of learners it fits. ``tripletbench.studies`` finds
every package that declares one and enters it here (:func:`register`); the core (config checks,
settings hashes, the report) reads the declarations through :func:`studies` and never imports a
study, so adding a study touches nothing in the core.

The declarations are light (no imports of the study's protocol code): a study's callables import
what they need when called.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Callable, Iterable


@dataclass(frozen=True)
class ReportItem:
    """Where a table or figure sits in the report: ``category`` (the study it belongs to, the
    paper's name) and ``label`` (the paper's name for it); ``kind``: "table" or "figure"."""

    category: str
    label: str
    kind: str


def _no_rows(config: dict) -> Iterable:
    return ()


def _no_checks(config: dict, libraries: bool = True) -> None:
    return None


def _no_dataset(block: str, name: str):
    return None


def _no_skip(config: dict, blocks_on) -> dict:
    return {}


def _no_names(schema: dict) -> None:
    return None


@dataclass(frozen=True)
class Study:
    """One study's declaration (``tripletbench.studies.<name>.STUDY``).

    ``name``: the package, the rule file (``workflow/rules/<name>.smk``) and the scripts' folder
    (``workflow/scripts/<name>/``). ``category``: the report's heading for its items (the paper,
    e.g. "Author et al. 2019 (METHOD)"). ``blocks``: the top-level config keys it owns, in the order
    the config documents them; a config runs exactly the blocks it gives. ``items``: report item
    name (an output's file stem) -> (label, "table" | "figure"). ``paper_tables``: (paper,
    artifact) of ``config/paper_results.csv`` -> (our table, metric of its rows or None).
    ``cell_exclude``: block (a dotted path for a nested block) -> keys a cell of it does not read
    besides its lists of datasets, seeds and methods (:mod:`tripletbench.harness.settings`).
    ``path_keys``: dotted config keys whose value is a path (checked as the core's own are).
    ``schema``: the path of its blocks' JSON Schema (a YAML file with ``properties`` and optional
    ``definitions``), merged into the config's schema (:func:`tripletbench.harness.config.schema`).
    ``reads``: other studies' blocks whose results its rules use (its rule file is included when
    any of ``blocks`` or ``reads`` is in the config). ``fit_blocks``: its blocks whose cells the
    generic rule fit_evaluate fits.

    Callables (each imports the study's own code when called):
    ``method_blocks(config)`` yields ``(place, methods, datasets)`` for every block of learner
    rows: ``place`` the dotted config path, ``methods`` the rows, ``datasets`` pairs
    ``(experiment, dataset name)`` to look up; ``learner_row(place, row)`` says whether a row is
    checked as a learner (a study's feature-free rows are not); ``check(config, libraries)``
    raises :class:`~tripletbench.harness.config.ConfigError` for what the schema cannot say;
    ``dataset(block, name)`` gives the dataset spec of a name in one of its blocks when that is
    not a plain dataset (an image set, a collection), else None; ``regression_skip(config,
    blocks_on)`` gives the stored result files (config/ci_expected.csv) this run cannot build, each
    with the reason the regression check prints; ``complete_schema(schema)`` fills in, in the
    merged config schema, the name lists of its blocks that come from what is found (a study's
    own plugins, e.g. the human study's sets), as the core fills in the datasets and learners.
    """

    name: str
    category: str
    blocks: tuple[str, ...]
    items: dict = field(default_factory=dict)
    paper_tables: dict = field(default_factory=dict)
    cell_exclude: dict = field(default_factory=dict)
    path_keys: tuple = ()
    schema: str | None = None
    reads: tuple = ()
    fit_blocks: tuple = ()
    method_blocks: Callable[[dict], Iterable] = _no_rows
    learner_row: Callable[[str, dict], bool] = lambda place, row: True
    check: Callable[..., None] = _no_checks
    dataset: Callable[[str, str], object] = _no_dataset
    regression_skip: Callable[[dict, list], dict] = _no_skip
    complete_schema: Callable[[dict], None] = _no_names


def lazy(module: str, name: str) -> Callable:
    """A callable that imports ``module`` (a study's own, e.g. ``__name__ + ".config"``) when first
    called and calls its ``name``: a study's declaration stays light (no protocol code imported
    when the studies register) and names its callables in one line each."""

    def call(*args, **kwargs):
        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    call.__qualname__ = call.__name__ = f"{module}.{name}"
    return call


_REGISTRY: dict[str, Study] = {}
NAMESPACE = "tripletbench.studies"
"""The namespace package whose sub-packages are the studies (found there, never imported by
name)."""


def register(study: Study) -> Study:
    """Enter ``study``; raises ValueError for a second study of the same name or a config block
    that another study owns."""
    if not isinstance(study, Study):
        raise TypeError(f"not a Study declaration: {study!r}")
    other = _REGISTRY.get(study.name)
    if other is not None and other is not study:
        raise ValueError(f"two studies named {study.name!r}")
    for s in _REGISTRY.values():
        shared = set(s.blocks) & set(study.blocks)
        if s.name != study.name and shared:
            raise ValueError(f"config block(s) {sorted(shared)} of both {s.name} and {study.name}")
    _REGISTRY[study.name] = study
    return study


def studies() -> list[Study]:
    """Every registered study, in the order they registered (``tripletbench.studies``: its
    :data:`~tripletbench.studies.ORDER`, then by name).

    The studies register when their namespace package is imported (the workflow does, first
    thing); a caller of the core that has not imported it (a script, a notebook) gets them found
    here: the core names the namespace :data:`NAMESPACE` where studies are discovered, as pytest
    finds its plugins, never a study. Raises RuntimeError when the namespace holds none."""
    if not _REGISTRY:
        importlib.import_module(NAMESPACE)
    if not _REGISTRY:
        raise RuntimeError(f"no study found in {NAMESPACE} (each declares STUDY = Study(...))")
    return list(_REGISTRY.values())


def blocks() -> list[str]:
    """Every config block a study owns, study by study."""
    return [b for s in studies() for b in s.blocks]


def owner(block: str) -> Study:
    """The study that owns config block ``block`` (its top-level key for a dotted path).

    Raises KeyError for a block no study owns."""
    top = block.split(".")[0]
    for s in studies():
        if top in s.blocks:
            return s
    raise KeyError(block)


def report_items() -> dict[str, ReportItem]:
    """Every report item of every study: output name -> :class:`ReportItem`."""
    return {
        name: ReportItem(s.category, label, kind)
        for s in studies()
        for name, (label, kind) in s.items.items()
    }


def paper_tables() -> dict:
    """(paper, artifact) -> (our table, metric), over every study."""
    return {k: v for s in studies() for k, v in s.paper_tables.items()}


def cell_exclude() -> dict[str, tuple]:
    """Block -> keys its cells do not read, over every study."""
    return {k: v for s in studies() for k, v in s.cell_exclude.items()}
