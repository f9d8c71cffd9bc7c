"""Checks of a validated config that the JSON schema cannot express, and the cells it implies."""

from __future__ import annotations

import itertools
import os
from pathlib import Path

from algorithms import make_learner
from datasets import get_dataset
from datasets.base import DataError

from .experiment import algorithm_of, constraint_kind_of


class ConfigError(ValueError):
    """A config value that is unknown, of the wrong type or out of range; the message names its
    full dotted path and what is wrong."""


def method_blocks(config: dict):
    """Every ``methods`` block of ``config``: yields (place, methods dict, dataset names), place
    being the dotted config path (``oahu.table3``) used in error messages."""
    for exp in ("sdca_table2", "sdca_table4", "images"):
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


SCHEMA = Path(__file__).resolve().parents[1] / "workflow/schemas/config.schema.yaml"


def schema() -> dict:
    """The config's JSON schema: ``workflow/schemas/config.schema.yaml`` with its name lists
    filled in from what is found (one source of truth): ``definitions.dataset`` from
    :data:`datasets.DATASETS`, the learner names of ``definitions.algorithm`` from
    :data:`algorithms.ALGORITHMS`."""
    import yaml

    from algorithms import ALGORITHMS
    from datasets import DATASETS

    out = yaml.safe_load(SCHEMA.read_text())
    out["definitions"]["dataset"]["enum"] = sorted(DATASETS)
    out["definitions"]["algorithm"]["anyOf"][0]["enum"] = sorted(ALGORITHMS)
    return out


def schema_file() -> str:
    """The path of :func:`schema` written as a file (Snakemake's ``validate`` takes a path): a
    file named by its content's hash in the temporary folder, written once, atomically."""
    import hashlib
    import json
    import tempfile

    text = json.dumps(schema(), indent=1, sort_keys=True)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    path = Path(tempfile.gettempdir()) / f"tripletbench-schema-{digest}.json"
    if not path.is_file():
        from .io import save_text

        save_text(path, text)
    return str(path)


EXPERIMENT_BLOCKS = (
    "sdca_table2",
    "sdca_table4",
    "table4_scaling",
    "figures",
    "performance",
    "svm",
    "oahu",
    "images",
)
"""The config blocks that each switch on a set of tables and figures (each has its own rule file
in ``workflow/rules``); a config runs exactly the blocks it gives."""


def experiment_blocks(config: dict) -> list[str]:
    """The experiment blocks that ``config`` gives (call it before the schema fills defaults): a
    block left out plans nothing, so a config with one block runs that block's tables alone.

    Raises :class:`ConfigError` when the config gives none of :data:`EXPERIMENT_BLOCKS`."""
    on = [b for b in EXPERIMENT_BLOCKS if config.get(b) is not None]
    if not on:
        raise ConfigError(
            "config: no experiment block; give at least one of "
            f"{', '.join(EXPERIMENT_BLOCKS)} (config/examples/minimal.yaml runs SDCA Table 2 "
            "alone)"
        )
    return on


def check_config(config: dict) -> None:
    """Raise :class:`ConfigError` for an unknown method or hyperparameter, a value of the wrong type
    or out of range, or an unusable output folder, naming the value's full dotted config path
    (``sdca_table2.methods.OASIS.grid.C[1]``).

    Runs when the workflow starts, before any job (after the JSON schema, which checks the types
    and ranges of the experiments' own settings):

    * every grid point of every method of every experiment (``sdca_table2``, ``images``,
      ``oahu.*``) is built and checked by the learner (its ``_check_params``, which starts with the
      checks shared by all learners, :meth:`algorithms.base.BaseLearner._check_common_params`);
    * the learner settings outside ``methods`` blocks: ``figures.scaling_lmnn`` (LMNN),
      ``figures.oasis_C`` and ``figures.oasis_variants`` (OASIS), ``figures.sdca_lam`` (SDCA);
    * ``svm.mds.notion``, ``svm.mds.notion_c``, ``svm.figure2.notions``: text notions or datasets;
    * ``svm.token_pattern``: a regular expression with at most one group;
    * ``results_dir``, ``figures_dir`` and ``data.cache_dir``: not empty, not the filesystem root;
    * ``data.mirror``: a folder that exists, a ``file://`` or an http(s) URL;
    * ``pairs_per_triplet`` only on a pair learner (:func:`_check_pair_rule`);
    * the ``images`` sizes its protocol needs (:func:`_check_images`: two fit images per class,
      ``precision_at_k`` within the ranked database);
    * every dataset name is looked up (an unknown one raises :class:`~datasets.base.DataError`);
      ``figures.dataset`` (a dataset or an image set) must also be buildable on ``data.route``.
    """
    _check_folders(config)
    mirror = (config.get("data") or {}).get("mirror")
    if mirror:
        from datasets.base import DataError as _DataError
        from datasets.base import mirror_location

        try:
            mirror_location(mirror)
        except _DataError as err:
            raise ConfigError(f"config data.mirror: {err}") from None
    for place, methods, datasets in method_blocks(config):
        for method, mcfg in methods.items():
            check_method(f"{place}.methods.{method}", algorithm_of(method, mcfg), mcfg)
            _check_pair_rule(f"{place}.methods.{method}", algorithm_of(method, mcfg), mcfg)
            _check_constraints(f"{place}.methods.{method}", algorithm_of(method, mcfg), mcfg)
        for exp, name in datasets:
            _dataset(exp, name)
    _check_images(config.get("images") or {})
    figures = config.get("figures") or {}
    if "scaling_lmnn" in figures:
        check_method("figures.scaling_lmnn", "LMNN", {"fixed": figures["scaling_lmnn"]}, bare=True)
    for key, algorithm, param in (("oasis_C", "OASIS", "C"), ("sdca_lam", "SDCA", "lam")):
        if key in figures:
            check_learner(f"figures.{key}", algorithm, {param: figures[key]})
    for name, kwargs in (figures.get("oasis_variants") or {}).items():
        check_method(f"figures.oasis_variants.{name}", "OASIS", {"fixed": kwargs}, bare=True)
    if figures.get("dataset"):
        _figures_dataset(figures["dataset"], (config.get("data") or {}).get("route"))
    from .svm_experiment import TEXT_NOTIONS as SVM_TEXT_NOTIONS

    svm = config.get("svm") or {}
    _check_token_pattern(svm.get("token_pattern"))
    mds = svm.get("mds") or {}
    named = [(f"svm.mds.{k}", mds.get(k)) for k in ("notion", "notion_c")]
    named += [
        (f"svm.figure2.notions[{i}]", n)
        for i, n in enumerate((svm.get("figure2") or {}).get("notions") or [])
    ]
    for place, notion in named:
        if notion is None or notion in SVM_TEXT_NOTIONS:
            continue
        try:
            get_dataset(notion)
        except DataError:
            raise ConfigError(
                f"config {place}: {notion!r} is neither a text notion "
                f"{list(SVM_TEXT_NOTIONS)} nor a dataset"
            ) from None


def _check_constraints(place: str, algorithm: str, mcfg: dict) -> None:
    """A row's ``constraints`` (the constraint kind of an external learner, named by dotted path)
    is checked by the wrapper; on one of our learners, whose kind is fixed, it is refused."""
    if "constraints" not in mcfg:
        return
    from algorithms.external import is_external

    if not is_external(algorithm):
        raise ConfigError(
            f"config {place}.constraints: {algorithm} learns from its own constraint kind "
            f"({constraint_kind_of(algorithm, {})}); constraints is for an external learner named "
            "by its dotted path (algorithm: metric_learn.MLKR)"
        )
    check_learner(f"{place}.constraints", algorithm, {"constraints": mcfg["constraints"]})


def _check_pair_rule(place: str, algorithm: str, mcfg: dict) -> None:
    """``pairs_per_triplet`` says how a pair learner's pairs come from the triplets: on a learner
    that does not take pairs it would be silently ignored, so it is refused."""
    if "pairs_per_triplet" not in mcfg:
        return
    kind = constraint_kind_of(algorithm, mcfg)
    if kind != "pairs":
        raise ConfigError(
            f"config {place}.pairs_per_triplet: {algorithm} learns from {kind}, not pairs; "
            "remove the key"
        )


TRUE_WORDS = (True, "true", "True", "yes", "1", 1)
FALSE_WORDS = (False, "false", "False", "no", "0", 0)


def command_line_config(argv) -> dict[str, str]:
    """The ``KEY=VALUE`` items given after ``--config`` / ``-C`` (or as ``--config=KEY=VALUE``)
    on a Snakemake command line ``argv`` (e.g. ``sys.argv``), values as text.

    Snakemake's own record of ``--config`` (``workflow.config_settings.config``) also holds what
    a profile (``--profile``, ``--workflow-profile``, ``SNAKEMAKE_PROFILE``, or the default
    ``workflow/profiles/default``) sets: a file. Only the typed command line is read here."""
    out: dict[str, str] = {}
    argv = list(argv)
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok.startswith("--config="):
            key, _, value = tok[len("--config=") :].partition("=")
            out[key] = value
        elif tok in ("--config", "-C"):
            while i + 1 < len(argv) and not argv[i + 1].startswith("-"):
                i += 1
                key, _, value = argv[i].partition("=")
                out[key] = value
        i += 1
    return out


def unpinned_downloads_opt_in(config: dict, command_line: dict) -> bool:
    """Whether this run may download files that have no pinned hash: only when the snakemake
    command line says so (``--config allow_unpinned_downloads=true``; ``command_line`` is
    :func:`command_line_config` of the typed command line), never from a config file or a
    profile. Raises :class:`ConfigError` for the setting in a config file or a profile, or an
    unreadable value."""
    if (config.get("data") or {}).get("allow_unpinned_downloads"):
        raise ConfigError(
            "config data.allow_unpinned_downloads: true is not accepted from a config file (it "
            "would apply to every run silently); remove it and add --config "
            "allow_unpinned_downloads=true to the command line of the run that may take "
            "unverified downloads"
        )
    if "allow_unpinned_downloads" not in command_line:
        if config.get("allow_unpinned_downloads") not in (None, *FALSE_WORDS):
            raise ConfigError(
                "config allow_unpinned_downloads: set in a config file or a Snakemake profile; "
                "it is accepted only on the typed command line (--config "
                "allow_unpinned_downloads=true), for one run"
            )
        return False
    value = command_line["allow_unpinned_downloads"]
    if value in TRUE_WORDS:
        return True
    if value in FALSE_WORDS:
        return False
    raise ConfigError(f"--config allow_unpinned_downloads={value!r}: expected true or false")


MAX_CONFIG_VALUES = 100_000
"""The most values (mapping entries and list items, counted through every level) a config may
hold; ours hold about a thousand. A YAML alias expansion (a "billion laughs" file of a few
lines) is refused before anything walks it."""


def check_config_size(config, limit: int = MAX_CONFIG_VALUES) -> None:
    """Raise :class:`ConfigError` if ``config`` holds more than ``limit`` values; stops counting
    at the limit, so the check costs O(limit) whatever the expansion's size."""
    todo, seen = [config], 0
    while todo:
        node = todo.pop()
        if isinstance(node, dict):
            children = list(node.values())
        elif isinstance(node, (list, tuple)):
            children = list(node)
        else:
            continue
        seen += len(children)
        if seen > limit:
            raise ConfigError(
                f"config: more than {limit:,} values (YAML aliases expanded?); a config of this "
                "workflow holds about a thousand. Refused before it is read"
            )
        todo.extend(children)


YTE_KEY = "__use_yte__"


def check_no_templating(configfiles) -> None:
    """Raise :class:`ConfigError` for a config file that asks Snakemake to render it as a YTE
    template (a top-level ``__use_yte__: true``): a template runs Python. Snakemake renders
    such a file while it loads it, before this workflow runs, so this refusal cannot undo what
    the template did; it stops the run and says so (README: a config file is trusted input)."""
    import yaml

    for f in configfiles or []:
        try:
            raw = yaml.safe_load(Path(f).read_text())
        except (OSError, yaml.YAMLError):
            continue  # Snakemake has already read it; its own error stands
        if isinstance(raw, dict) and raw.get(YTE_KEY):
            raise ConfigError(
                f"config file {f}: {YTE_KEY} asks Snakemake to render it as a YTE template, which "
                "runs Python; this workflow does not accept templated configs. Snakemake has "
                "already rendered it before this check: treat it as code you ran"
            )


def _check_folders(config: dict) -> None:
    """Output and cache folders must name a folder: an empty string or a path that resolves to
    the filesystem root ("/", "/.", "/tmp/..", "//./") would make every path of the plan
    ("{results_dir}/...") a path at the root."""
    for path, value in (
        ("results_dir", config.get("results_dir")),
        ("figures_dir", config.get("figures_dir")),
        ("data.cache_dir", (config.get("data") or {}).get("cache_dir")),
    ):
        if value is None:
            continue
        at_root = isinstance(value, str) and value.strip() and os.path.realpath(value) == "/"
        if not isinstance(value, str) or not value.strip().strip("/") or at_root:
            raise ConfigError(
                f"config {path}: {value!r} is not a usable folder (empty or the filesystem root: "
                "every output would be written at /); give a folder such as 'results'"
            )


def check_learner(path: str, algorithm: str, params: dict) -> None:
    """Build ``algorithm`` with ``params`` and run its checks; raise :class:`ConfigError` whose
    message starts with ``config <path>`` (the place of the single value, or of the grid point)."""
    try:
        learner = make_learner(algorithm, **params)
        learner._check_common_params()
        check = getattr(learner, "_check_params", None)
        if check is not None:
            check()
    except (KeyError, TypeError, ValueError) as err:
        msg = err.args[0] if isinstance(err, KeyError) and err.args else err
        raise ConfigError(f"config {path}: {msg}") from None


def check_method(place: str, algorithm: str, mcfg: dict, bare: bool = False) -> None:
    """Check every grid point of one method config (``fixed`` + ``grid``) with
    :func:`check_learner`. An error names the offending value's full path: ``<place>.fixed.<key>``
    or ``<place>.grid.<key>[i]`` (``<place>.<key>`` when ``bare``: a block that holds the learner's
    keyword arguments directly, e.g. ``figures.scaling_lmnn``): the first value of a failing grid
    point that fails alone (the others at their defaults); a combination whose values only fail
    together is named by its grid point."""
    fixed = mcfg.get("fixed", {}) or {}
    grid = mcfg.get("grid", {}) or {}

    def fixed_path(k):
        return f"{place}.{k}" if bare else f"{place}.fixed.{k}"

    try:
        known = make_learner(algorithm).get_params()
    except KeyError as err:
        raise ConfigError(f"config {place}: {err.args[0]}") from None
    for key in list(fixed) + list(grid):
        if key not in known:
            path = fixed_path(key) if key in fixed else f"{place}.grid.{key}"
            raise ConfigError(
                f"config {path}: {algorithm} has no hyperparameter {key!r}; it has {sorted(known)}"
            )
    keys = list(grid)
    for choice in itertools.product(*(range(len(grid[k])) for k in keys)):
        point = {k: grid[k][i] for k, i in zip(keys, choice)}
        params = {**fixed, **point}
        try:
            check_learner(place, algorithm, params)
        except ConfigError:
            for key, value in params.items():  # locate the value
                path = fixed_path(key) if key not in point else f"{place}.grid.{key}"
                if key in point:
                    path += f"[{choice[keys.index(key)]}]"
                check_learner(path, algorithm, {key: value})
            check_learner(f"{place} (grid point {params})", algorithm, params)


def _check_token_pattern(pattern) -> None:
    """``svm.token_pattern`` must compile as a Python regular expression with at most one
    capturing group (scikit-learn's CountVectorizer rule: the group is the token)."""
    import re

    if pattern is None:
        return
    try:
        groups = re.compile(pattern).groups
    except re.error as err:
        raise ConfigError(
            f"config svm.token_pattern: {pattern!r} is not a regular expression ({err})"
        ) from None
    if groups > 1:
        raise ConfigError(
            f"config svm.token_pattern: {pattern!r} has {groups} capturing groups; at most one "
            "(the token) is allowed"
        )


def _check_images(images: dict) -> None:
    """Sizes of the ``images`` block that its protocol cannot use (the schema checks each value
    alone): the fit part of a class (``round(fit_fraction * n_train_per_class)``, at least one
    and one fewer than the class's training images, :func:`datasets.preprocess.split_per_class`)
    must hold two images, or no triplet has a positive; ``precision_at_k`` must not exceed the
    database that the test queries rank (``n_train_per_class`` x the classes of the smallest
    image set)."""
    from datasets.caltech256 import image_set
    from datasets.fashion_mnist import SPEC as FASHION

    if not images:
        return
    n_train = int(images.get("n_train_per_class", 40))
    fraction = float(images.get("fit_fraction", 0.8))
    n_fit = min(max(int(round(fraction * n_train)), 1), n_train - 1)
    if n_fit < 2:
        raise ConfigError(
            f"config images.n_train_per_class: {n_train} training images per class with "
            f"fit_fraction {fraction} leave {n_fit} per class to fit the validation models; a "
            "triplet needs two images of one class (raise n_train_per_class or fit_fraction)"
        )
    k = images.get("precision_at_k")
    classes = []
    for name in images.get("datasets") or []:
        try:
            iset = image_set(name)
        except DataError:
            continue  # named by the dataset check with its own message
        classes.append(iset.n_classes or FASHION.paper_shape[2])
    if k and classes and int(k) > n_train * min(classes):
        raise ConfigError(
            f"config images.precision_at_k: {k} exceeds the database that the test queries rank "
            f"({n_train} training images per class x {min(classes)} classes = "
            f"{n_train * min(classes)} in the smallest image set); precision@k is undefined "
            "beyond it"
        )


def _dataset(experiment: str, name: str):
    """The dataset spec of ``name`` (an image set for the ``images`` experiment, the image
    collection of ``sdca_table4``); raises
    :class:`~datasets.base.DataError` for an unknown name."""
    if experiment == "images":
        from datasets.caltech256 import image_set

        return image_set(name)
    if experiment == "sdca_table4":  # an image collection, not a feature table
        from datasets.imageclef_flickr import SPEC

        if name != SPEC.name:
            raise DataError(f"unknown Table 4 collection {name!r}; expected {SPEC.name!r}")
        return SPEC
    return get_dataset(name)


def _figures_dataset(name: str, route: str | None) -> None:
    """Check ``figures.dataset``: a dataset or an image set (its per-seed image features) that
    the run's route can build; raises :class:`ConfigError` naming the key."""
    from datasets.caltech256 import is_image_set_name

    try:
        spec = _dataset("images" if is_image_set_name(name) else "figures", name)
    except DataError as err:
        raise ConfigError(f"config figures.dataset: {err}") from None
    if route and not spec.has_route(route):
        raise ConfigError(
            f"config figures.dataset: {name!r} cannot be built on the {route!r} route (it needs "
            "a download: data.route: download); the convergence figures have no 'needs download' "
            "cell to show instead"
        )


def available_datasets(config: dict, experiment: str, route: str) -> tuple[list[str], list[str]]:
    """(datasets that can run under ``route``, datasets that need another route or, with a
    folder ``data.mirror``, files that the mirror lacks)."""
    names = config[experiment]["datasets"]
    mirror = (config.get("data") or {}).get("mirror")
    ok = [n for n in names if _dataset(experiment, n).has_route(route, mirror)]
    return ok, [n for n in names if n not in ok]


def missing_reason(config: dict) -> str:
    """Why :func:`available_datasets` left a dataset out, for captions: "needs download", or,
    on the download route with a data mirror, that the mirror lacks one of its files."""
    data = config.get("data") or {}
    if data.get("route") == "download" and data.get("mirror"):
        return "a file of its download route is not in the data mirror"
    return "needs download"


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
