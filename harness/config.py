"""Checks of a validated config that the JSON schema cannot express, and the cells it implies."""

from __future__ import annotations

import functools
import itertools
import os
from pathlib import Path

from tripletbench.algorithms import make_learner
from tripletbench.datasets import get_dataset
from tripletbench.datasets.base import DataError

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
    human = config.get("human") or {}
    if human.get("methods"):  # its sets are not feature tables (tripletbench.harness.human.SETS)
        yield "human", human["methods"], []


SCHEMA = Path(__file__).resolve().parents[1] / "workflow/schemas/config.schema.yaml"


def schema() -> dict:
    """The config's JSON schema: ``workflow/schemas/config.schema.yaml`` with its name lists
    filled in from what is found (one source of truth): ``definitions.dataset`` from
    :data:`tripletbench.datasets.DATASETS`, the learner names of ``definitions.algorithm`` from
    :data:`tripletbench.algorithms.ALGORITHMS`."""
    import yaml

    from tripletbench.algorithms import ALGORITHMS
    from tripletbench.datasets import DATASETS

    out = yaml.safe_load(SCHEMA.read_text())
    out["definitions"]["dataset"]["enum"] = sorted(DATASETS)
    out["definitions"]["algorithm"]["anyOf"][0]["enum"] = sorted(ALGORITHMS)
    return out


@functools.lru_cache(maxsize=1)
def _checks_schema() -> dict:
    """:func:`schema`, read once per process, for the checks here (not to be changed)."""
    return schema()


_SCHEMA_FILE: str | None = None


def schema_file() -> str:
    """The path of :func:`schema` written as a file (Snakemake's ``validate`` takes a path, not a
    dict): a file in a folder that this process creates for it (``tempfile.mkdtemp``: a fresh,
    unguessable name, mode 0700, never one that exists) and removes when it exits; written once
    per process.

    Never a file at a predictable path in the shared temporary folder: whatever another user
    planted there (a schema without the ranges, with other defaults, or YAML that Snakemake would
    render as a YTE template) would be trusted as the schema (issue 37, rule 7)."""
    global _SCHEMA_FILE
    import atexit
    import json
    import shutil
    import tempfile

    if _SCHEMA_FILE is None or not Path(_SCHEMA_FILE).is_file():
        folder = tempfile.mkdtemp(prefix="tripletbench-schema-")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        path = Path(folder) / "config.schema.json"
        path.write_text(json.dumps(schema(), indent=1, sort_keys=True))
        _SCHEMA_FILE = str(path)
    return _SCHEMA_FILE


EXPERIMENT_BLOCKS = (
    "sdca_table2",
    "sdca_table4",
    "table4_scaling",
    "figures",
    "performance",
    "svm",
    "oahu",
    "images",
    "human",
)
"""The config blocks that each switch on a set of tables and figures (each has its own rule file
in ``workflow/rules``); a config runs exactly the blocks it gives."""


def _check_human(block: dict, libraries: bool = True) -> None:
    """The human-judgment rows learn from triplets or the pairs of triplets only (the sets have
    no class labels, :mod:`tripletbench.harness.human`), or are cblearn ordinal embeddings
    (:func:`check_ordinal_embedding`); ``human.mirror`` is a folder, a ``file://`` or an
    http(s) URL (a folder that does not exist is allowed: the sets are then not run).
    ``libraries``: :func:`check_config`'s.

    A row's ``features`` (the feature sets it is fitted on) must name feature sets of
    ``human.features`` and come with ``features_reason`` (the table's n/a says it); a row with
    ``not_run`` (shown with that reason, never fitted: OPML, which needs class labels) is
    exempt from the constraint-kind check and may not also restrict its feature sets."""
    wanted = list(block.get("features") or [])
    for method, mcfg in (block.get("methods") or {}).items():
        if method in ("Eucl", "chance", "ceiling"):
            raise ConfigError(
                f"config human.methods.{method}: a row of its own in every human table; "
                "give learners only"
            )
        if mcfg.get("not_run"):
            if "features" in mcfg:
                raise ConfigError(
                    f"config human.methods.{method}: not_run and features together; a row "
                    "that is not run has no feature sets"
                )
            continue
        if _is_ordinal(mcfg):  # a cblearn ordinal embedding: a feature-free row
            check_ordinal_embedding(
                f"human.methods.{method}", mcfg["algorithm"], mcfg, libraries=libraries
            )
            continue
        kind = constraint_kind_of(method, mcfg)
        if kind not in ("triplets", "pairs"):
            raise ConfigError(
                f"config human.methods.{method}: {algorithm_of(method, mcfg)} learns from "
                f"{kind}; the human sets give triplets only (a triplet or pair learner), or "
                "give the row not_run: <why> to show it as n/a"
            )
        if "features" in mcfg:
            unknown = [f for f in mcfg["features"] if f not in wanted]
            if unknown:
                raise ConfigError(
                    f"config human.methods.{method}.features: {', '.join(map(repr, unknown))} "
                    f"not in human.features {wanted}; a row can only be restricted to feature "
                    "sets the table computes"
                )
            if not mcfg.get("features_reason"):
                raise ConfigError(
                    f"config human.methods.{method}: features without features_reason; say "
                    "why the row is not run on the other feature sets (the table shows it)"
                )
        elif mcfg.get("features_reason"):
            raise ConfigError(
                f"config human.methods.{method}: features_reason without features"
            )
    shown = (block.get("embedding_figure") or {}).get("set")
    if shown and block.get("sets") and shown not in block["sets"]:
        raise ConfigError(
            f"config human.embedding_figure.set: {shown} is not among human.sets "
            f"({', '.join(block['sets'])}); the figure's rows come from that set's table column"
        )
    from .human import check_published

    try:
        check_published(block)
    except ValueError as err:
        raise ConfigError(str(err)) from None
    mirror = block.get("mirror")
    if mirror:  # a scheme we cannot read is refused; a folder that is absent is not (CI)
        from tripletbench.datasets.base import DataError as _DataError
        from tripletbench.datasets.base import DataUnavailable as _DataUnavailable
        from tripletbench.datasets.base import mirror_location

        try:
            mirror_location(mirror)
        except _DataUnavailable:
            pass
        except _DataError as err:
            raise ConfigError(f"config human.mirror: {err}") from None


def _is_ordinal(mcfg) -> bool:
    from .human import is_feature_free

    return is_feature_free(mcfg)


#: Where a trial fit caps an ordinal embedding's iterations and restarts (a check of the
#: settings, not a fit worth keeping): milliseconds per row at start-up.
_TRIAL_CAPS = {"max_iter": 5, "n_init": 1}


def check_ordinal_embedding(
    place: str, algorithm: str, mcfg: dict, libraries: bool = True
) -> None:
    """A human row whose ``algorithm`` is a cblearn ordinal embedding
    (:func:`tripletbench.harness.human.is_feature_free`), checked when the workflow starts
    instead of :func:`check_method` and :func:`_check_external` (which refuse an embedding: it
    has no metric on new points; here it is a feature-free row of its own). Raises
    :class:`ConfigError` naming ``<place>.algorithm`` for a class that cannot be imported or is
    not a triplet embedding able to place every item
    (:func:`tripletbench.harness.human.ordinal_class`), ``<place>.fixed.<key>`` for a
    hyperparameter the class does not have or one the harness sets (``random_state``: from the
    cell's seed), and ``<place>.fixed`` for settings that a trial fit refuses (the class's own
    checks, run by cblearn in ``fit``: 12 items on a line, 32 answers, iterations capped).

    ``libraries=False`` (a job's own process, :func:`check_config`): only what needs no import
    (``random_state``); the run's main process has checked the rest before any job started.
    Measured 2026-11-26: importing cblearn costs about 2.2 s of CPU, FORTE's trial fit 2 s more
    (it imports torch), the other trial fits 0.04 s each."""
    from .human import ordinal_class

    if "random_state" in (mcfg.get("fixed") or {}):
        raise ConfigError(
            f"config {place}.fixed.random_state: set by the harness from the cell's seed "
            "(one seed, one embedding); remove the key"
        )
    if not libraries:
        return
    try:
        cls = ordinal_class(algorithm)
    except (KeyError, TypeError) as err:
        msg = err.args[0] if isinstance(err, KeyError) and err.args else err
        raise ConfigError(f"config {place}.algorithm: {msg}") from None
    fixed = dict(mcfg.get("fixed") or {})
    known = cls().get_params()
    for key in fixed:
        if key not in known:
            raise ConfigError(
                f"config {place}.fixed.{key}: {algorithm} has no hyperparameter {key!r}; it has "
                f"{sorted(k for k in known if k != 'random_state')}"
            )
    key = tuple(sorted(fixed.items(), key=str))
    try:
        hash(key)
    except TypeError:  # a list value: checked, not cached
        _trial_embedding.__wrapped__(place, algorithm, key)
    else:
        _trial_embedding(place, algorithm, key)


@functools.lru_cache(maxsize=None)
def _trial_embedding(place: str, algorithm: str, fixed: tuple) -> None:
    """The trial fit of :func:`check_ordinal_embedding`, once per (row, settings) and process."""
    import numpy as np

    from .human import fit_ordinal_embedding, ordinal_class

    params = dict(fixed)
    defaults = ordinal_class(algorithm)().get_params()
    for key, cap in _TRIAL_CAPS.items():
        if key in defaults:
            value = params.get(key, defaults[key])
            params[key] = min(value, cap) if isinstance(value, int) else value
    # 12 items on a line, anchor closer to positive: every 20th of the ordered triplets
    x = np.arange(12)
    t = np.array(
        [
            (i, j, k)
            for i in x
            for j in x
            for k in x
            if len({i, j, k}) == 3 and abs(i - j) < abs(i - k)
        ]
    )[::20]
    try:
        fit_ordinal_embedding(algorithm, params, t, 12, 0)
    except Exception as err:  # noqa: BLE001 -- the library's own check of a setting
        raise ConfigError(
            f"config {place}.fixed: {algorithm} refuses these settings ({dict(fixed)}) in a "
            f"trial fit: {type(err).__name__}: {err}"
        ) from None


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


def check_config(config: dict, libraries: bool = True) -> None:
    """Raise :class:`ConfigError` for an unknown method or hyperparameter, a value of the wrong type
    or out of range, or an unusable output folder, naming the value's full dotted config path
    (``sdca_table2.methods.OASIS.grid.C[1]``).

    Runs when the workflow starts, before any job (after the JSON schema, which checks the types
    and ranges of the experiments' own settings):

    * every grid point of every method of every experiment (``sdca_table2``, ``images``,
      ``oahu.*``) is built and checked by the learner (its ``_check_params``, which starts with the
      checks shared by all learners, :meth:`tripletbench.algorithms.base.BaseLearner._check_common_params`);
    * the learner settings outside ``methods`` blocks: ``figures.scaling_lmnn`` (LMNN),
      ``figures.oasis_C`` and ``figures.oasis_variants`` (OASIS), ``figures.sdca_lam`` (SDCA);
    * ``svm.mds.notion``, ``svm.mds.notion_c``, ``svm.figure2.notions``: text notions or datasets;
    * ``svm.token_pattern``: a regular expression with at most one group, no empty token;
    * sizes that must fit the data or one another (:func:`_check_sizes`);
    * a decimal number where the schema means an integer (:func:`check_integers`);
    * ``results_dir``, ``figures_dir`` and ``data.cache_dir``: not empty, not the filesystem root;
      no path key (:data:`PATH_KEYS`) starting with ``~`` or holding ``$VAR``;
    * ``data.mirror``: a folder that exists, a ``file://`` or an http(s) URL;
    * ``pairs_per_triplet`` only on a pair learner (:func:`_check_pair_rule`);
    * the ``images`` sizes its protocol needs (:func:`_check_images`: two fit images per class,
      ``precision_at_k`` within the ranked database);
    * every dataset name is looked up (an unknown one raises :class:`~tripletbench.datasets.base.DataError`);
      ``figures.dataset`` (a dataset or an image set) must also be buildable on ``data.route``;
    * a ``human.methods`` row naming a cblearn ordinal embedding (a feature-free row, not a metric
      learner: :func:`check_ordinal_embedding` instead of the learner checks): its class, its
      hyperparameters and a trial fit. ``libraries=False`` (the Snakefile passes it in a job's
      own process) leaves out what imports cblearn: the run's main process checked it before any
      job, and a job need not pay for the import again.
    """
    check_integers(config)
    _check_folders(config)
    mirror = (config.get("data") or {}).get("mirror")
    if mirror:
        from tripletbench.datasets.base import DataError as _DataError
        from tripletbench.datasets.base import mirror_location

        try:
            mirror_location(mirror)
        except _DataError as err:
            raise ConfigError(f"config data.mirror: {err}") from None
    for place, methods, datasets in method_blocks(config):
        for method, mcfg in methods.items():
            if place == "human" and _is_ordinal(mcfg):
                continue  # an ordinal embedding, not a metric learner: _check_human's
            check_method(f"{place}.methods.{method}", algorithm_of(method, mcfg), mcfg)
            _check_external(f"{place}.methods.{method}", algorithm_of(method, mcfg), mcfg)
            _check_pair_rule(f"{place}.methods.{method}", algorithm_of(method, mcfg), mcfg)
            _check_constraints(f"{place}.methods.{method}", algorithm_of(method, mcfg), mcfg)
        for exp, name in datasets:
            _dataset(exp, name)
    _check_images(config.get("images") or {})
    _check_human(config.get("human") or {}, libraries=libraries)
    _check_sizes(config)
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


def _resolve(node: dict, root: dict) -> dict:
    """``node`` with a local ``$ref`` (``#/definitions/name``) followed."""
    while isinstance(node, dict) and isinstance(node.get("$ref"), str):
        target = root
        for part in node["$ref"].lstrip("#/").split("/"):
            target = target[part]
        node = target
    return node


def _wants_integer(node: dict, root: dict) -> bool:
    """Whether the schema ``node`` accepts integers but not other numbers (``type: integer`` or
    an enum of integers, also inside ``anyOf`` / ``oneOf``)."""
    kinds = set()
    for alt in [node] + list(node.get("anyOf", [])) + list(node.get("oneOf", [])):
        alt = _resolve(alt, root)
        t = alt.get("type")
        kinds |= set(t) if isinstance(t, list) else {t}
        enum = alt.get("enum") or []
        if enum and all(isinstance(v, int) and not isinstance(v, bool) for v in enum):
            kinds.add("integer")  # pairs_per_triplet: [1, 2] (an enum compares 2.0 == 2)
    return "integer" in kinds and "number" not in kinds


def check_integers(config: dict, root: dict | None = None) -> None:
    """Raise :class:`ConfigError` naming the dotted path of a float where the schema means an
    integer (``n_triplets: 2000.0``, ``seeds: [1.0]``). JSON Schema counts 2000.0 as an integer
    (jsonschema does), so the schema alone lets it through, and it fails later as a raw
    ``TypeError`` or a file that no rule makes (``seed1.0``)."""
    root = root if root is not None else _checks_schema()

    def walk(value, node, path):
        node = _resolve(node, root)
        if not isinstance(node, dict):
            return
        if isinstance(value, float) and _wants_integer(node, root):
            hint = f"; write {int(value)}" if value.is_integer() else ""
            raise ConfigError(
                f"config {path}: {value!r} is a decimal number where an integer is meant{hint}"
            )
        if isinstance(value, dict):
            props = node.get("properties", {})
            extra = node.get("additionalProperties")
            for key, item in value.items():
                sub = props.get(key, extra if isinstance(extra, dict) else None)
                if sub is not None:
                    walk(item, sub, f"{path}.{key}" if path else str(key))
        elif isinstance(value, list) and isinstance(node.get("items"), dict):
            for i, item in enumerate(value):
                walk(item, node["items"], f"{path}[{i}]")
        for alt in list(node.get("anyOf", [])) + list(node.get("oneOf", [])):
            walk(value, {k: v for k, v in _resolve(alt, root).items() if k != "type"}, path)

    walk(config, root, "")


def _check_constraints(place: str, algorithm: str, mcfg: dict) -> None:
    """A row's ``constraints`` (the constraint kind of an external learner, named by dotted path)
    is checked by the wrapper; on one of our learners, whose kind is fixed, it is refused."""
    if "constraints" not in mcfg:
        return
    from tripletbench.algorithms.external import is_external

    if not is_external(algorithm):
        raise ConfigError(
            f"config {place}.constraints: {algorithm} learns from its own constraint kind "
            f"({constraint_kind_of(algorithm, {})}); constraints is for an external learner named "
            "by its dotted path (algorithm: metric_learn.MLKR)"
        )
    check_learner(f"{place}.constraints", algorithm, {"constraints": mcfg["constraints"]})


def _check_external(place: str, algorithm: str, mcfg: dict) -> None:
    """An external learner (a dotted path) must be of a kind the harness can evaluate
    (:func:`tripletbench.algorithms.external.check_evaluable`: learns from labels, pairs or
    triplets, and a trial fit gives a linear metric); refused when the workflow starts."""
    from tripletbench.algorithms.external import check_evaluable, is_external

    if not is_external(algorithm):
        return
    try:
        check_evaluable(algorithm, mcfg.get("constraints"), mcfg.get("fixed") or {})
    except (KeyError, TypeError, ValueError) as err:
        msg = err.args[0] if isinstance(err, KeyError) and err.args else err
        raise ConfigError(f"config {place}: {msg}") from None


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


def _unique_key_loader():
    """A PyYAML ``SafeLoader`` that raises :class:`ConfigError` on a key given twice in one
    mapping (PyYAML and Snakemake keep the last one without a word). Keys brought in by a merge
    (``<<: *base``) may be overridden, as YAML means them to be."""
    import yaml

    class UniqueKeyLoader(yaml.SafeLoader):
        def construct_mapping(self, node, deep=False):
            if isinstance(node, yaml.MappingNode):
                seen = {}
                for key_node, _ in node.value:
                    if key_node.tag == "tag:yaml.org,2002:merge":
                        continue
                    key = self.construct_object(key_node, deep=True)
                    try:
                        first = seen.get(key)
                    except TypeError:  # an unhashable key: PyYAML's own error follows
                        continue
                    if first is not None:
                        raise ConfigError(
                            f"line {key_node.start_mark.line + 1}: key {key!r} is given twice in "
                            f"one mapping (first at line {first.line + 1}); YAML would keep the "
                            "last one silently. Remove or rename one of them"
                        )
                    seen[key] = key_node.start_mark
            return super().construct_mapping(node, deep=deep)

    return UniqueKeyLoader


def check_duplicate_keys(configfiles) -> None:
    """Raise :class:`ConfigError` naming the file, line and key for a key given twice in one
    mapping of a config file (two ``OASIS:`` rows in one ``methods:`` block: YAML, PyYAML and
    Snakemake keep the last silently, so the first row would vanish from the table). A JSON
    config is read the same way (YAML reads JSON). Run before the config is used."""
    import yaml

    loader = _unique_key_loader()
    for f in configfiles or []:
        try:
            text = Path(f).read_text(encoding="utf-8")
        except OSError:
            continue  # Snakemake has already read it; its own error stands
        try:
            yaml.load(text, Loader=loader)  # noqa: S506 (a SafeLoader subclass)
        except ConfigError as err:
            raise ConfigError(f"config file {f}, {err}") from None
        except yaml.YAMLError:
            continue  # Snakemake has read it (JSON, or YAML it accepts); its own error stands


PATH_KEYS = ("results_dir", "figures_dir", "data.cache_dir", "sdca_table2.compare_with")
"""Config keys whose value is a path that the workflow uses as written (Snakemake expands neither
``~`` nor ``$VAR``). ``data.mirror`` is not among them: :func:`tripletbench.datasets.base.mirror_location`
expands a leading ``~`` of a mirror folder, and a folder that does not exist is refused."""
FOLDER_KEYS = ("results_dir", "figures_dir", "data.cache_dir")
"""The path keys that name an output or cache folder (not empty, not the filesystem root)."""


def _dotted(config: dict, path: str):
    node = config
    for key in path.split("."):
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    return node


def _check_folders(config: dict) -> None:
    """Path-valued keys (:data:`PATH_KEYS`): a leading ``~`` or a ``$VAR`` is refused (Snakemake
    would make a folder literally named ``~`` or ``$HOME`` in the checkout; we refuse rather than
    expand, so that every path of the plan is the one the config shows); output and cache folders
    must name a folder: an empty string or a path that resolves to the filesystem root ("/",
    "/.", "/tmp/..", "//./") would make every path of the plan ("{results_dir}/...") a path at
    the root."""
    import re

    for path in PATH_KEYS:
        value = _dotted(config, path)
        if not isinstance(value, str):
            continue
        if value.strip().startswith("~"):
            raise ConfigError(
                f"config {path}: {value!r} starts with '~', which Snakemake does not expand (it "
                f"would make a folder named '~' in the checkout); write the path out, e.g. "
                f"{os.path.expanduser(value.strip())!r}"
            )
        if re.search(r"\$(\w|\{)", value):
            raise ConfigError(
                f"config {path}: {value!r} holds a shell variable, which Snakemake does not "
                "expand (it would make a folder literally named so); write the path out"
            )
    for path in FOLDER_KEYS:
        value = _dotted(config, path)
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


TOKEN_PROBES = ("", " ", "a", "a b", "The quick brown fox jumps over the lazy dog, 1999.")
"""Texts a token pattern is tried on (:func:`_check_token_pattern`); the last one must yield a
token."""


def _check_token_pattern(pattern) -> None:
    """``svm.token_pattern`` must compile as a Python regular expression with at most one
    capturing group (scikit-learn's CountVectorizer rule: the group is the token), must never
    yield an empty token (``""``, ``\\w*``: every document would become the same empty word,
    and the kernel row fails later with "median squared distance ... is 0") and must find a
    token in a plain English sentence."""
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
    regex = re.compile(pattern)
    for text in TOKEN_PROBES:
        tokens = regex.findall(text)  # scikit-learn's tokenizer: findall, the group if any
        if any(t == "" for t in tokens):
            raise ConfigError(
                f"config svm.token_pattern: {pattern!r} matches the empty string (an empty "
                f"token in {text!r}); every document would hold the same empty word. Give a "
                "pattern whose tokens have at least one character, e.g. (?u)\\b\\w+\\b"
            )
    if not regex.findall(TOKEN_PROBES[-1]):
        raise ConfigError(
            f"config svm.token_pattern: {pattern!r} finds no token in a plain sentence "
            f"({TOKEN_PROBES[-1]!r}); every document would be empty"
        )


def _check_images(images: dict) -> None:
    """Sizes of the ``images`` block that its protocol cannot use (the schema checks each value
    alone): the fit part of a class (``round(fit_fraction * n_train_per_class)``, at least one
    and one fewer than the class's training images, :func:`tripletbench.datasets.preprocess.split_per_class`)
    must hold two images, or no triplet has a positive; ``precision_at_k`` must not exceed the
    database that the test queries rank (``n_train_per_class`` x the classes of the smallest
    image set)."""
    from tripletbench.datasets.caltech256 import image_set
    from tripletbench.datasets.fashion_mnist import SPEC as FASHION

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


def _setting(config: dict, path: str):
    """The value at dotted ``path`` of ``config``, or the schema's default where the config
    (validated or not) leaves it out."""
    keys, root = path.split("."), _checks_schema()
    node, sch = config, root
    for i, key in enumerate(keys):
        sch = _resolve(sch.get("properties", {}).get(key, {}), root)
        if isinstance(node, dict) and key in node:
            node = node[key]
            continue
        value = sch.get("default")  # left out: the default of this level, then below it
        for rest in keys[i + 1 :]:
            sch = _resolve(sch.get("properties", {}).get(rest, {}), root)
            value = value[rest] if isinstance(value, dict) and rest in value else sch.get("default")
        return value
    return node


def _part(n: int, fraction: float) -> int:
    """The first part of a class of ``n`` items in :func:`tripletbench.datasets.preprocess.split_per_class`:
    ``round(fraction * n)`` kept between 1 and ``n - 1``."""
    return min(max(int(round(fraction * n)), 1), n - 1)


FASHION_PER_CLASS = 7000
"""Images per class of Fashion-MNIST (70,000 in 10 balanced classes)."""
CALTECH256_SMALLEST_CLASS = 80
"""Images of Caltech-256's smallest class (Griffin et al. 2007: at least 80 per category), before
``images.caltech256.min_side`` drops small ones."""


def split_sizes(config: dict, name: str, fraction: float = 0.7) -> tuple[int, int, str]:
    """(training items, test items, how they were counted) of the per-class ``fraction`` split
    (:func:`tripletbench.datasets.preprocess.make_split`, the convergence figures' split) of dataset or image
    set ``name``. An image set holds ``images.n_train_per_class + n_test_per_class`` images of
    each of its classes: exact. A dataset's class sizes are not known before its data is read,
    only its size and classes (:attr:`~tripletbench.datasets.base.DatasetSpec.paper_shape`): each class
    rounds once (at most half an item), so the counts are the sizes the split is certain to
    hold. Raises :class:`~tripletbench.datasets.base.DataError` for an unknown name."""
    import math

    from tripletbench.datasets.caltech256 import image_set, is_image_set_name

    if is_image_set_name(name):
        iset = image_set(name)
        per = int(_setting(config, "images.n_train_per_class")) + int(
            _setting(config, "images.n_test_per_class")
        )
        k = iset.n_classes or 10
        train = k * _part(per, fraction)
        return train, k * per - train, f"{k} classes x {per} images, {fraction:.0%} per class"
    n, _, k = get_dataset(name).paper_shape
    train = math.ceil(fraction * n - k / 2 - 1e-9)
    test = math.ceil((1 - fraction) * n - k / 2 - 1e-9)
    how = (
        f"{n} samples in {k} classes, {fraction:.0%} of each class to training: the count it is "
        "certain to hold, each class rounding by up to half a sample"
    )
    return train, test, how


MAX_FEATURE_BYTES = 256 * 2**30
"""The most memory the synthetic features of ``table4_scaling`` may take (the paper's size,
1,025,000 x 297, takes 2.3 GiB)."""
MAX_ITEMS_NOTE = "it would be cut to what the data holds while captions state the value asked for"


def _check_sizes(config: dict) -> None:
    """Sizes that must fit the data or one another (the schema checks each value alone):

    * ``figures.n_queries`` / ``figures.n_database`` within the test / training part of
      ``figures.dataset`` (beyond it they were cut silently, the caption saying the value
      asked for), ``figures.scaling_n_samples`` within the training part of
      ``figures.scaling_dataset``;
    * ``oahu.<experiment>.n_samples`` within its datasets (beyond: all samples, silently);
      ``k`` of the kNN within the fit part of the development half;
      ``oahu.figure4.n_constraints`` within the stream (``n_seeds + n_closure``);
      ``oahu.figure7.ks`` among the recall_ks its cells record;
    * ``images``: ``n_train_per_class + n_test_per_class`` within a class of each image source,
      ``bovw.<source>.n_words`` within ``max_descriptors``, ``block_size`` within the image,
      ``sdca_table3_datasets`` among ``datasets``;
    * ``performance.sparse`` non-zeros within d, at least one input;
    * ``table4_scaling``: its ``methods`` among ``sdca_table4.methods``, two train and two test
      items per class, its features within :data:`MAX_FEATURE_BYTES`;
    * ``svm``: at least one notion or dataset.
    """
    from tripletbench.datasets.caltech256 import image_set, is_image_set_name

    def sized(name):
        try:
            return split_sizes(config, name)
        except DataError:
            return None  # an unknown name is refused by its own check

    # figures (the Fig. 3 queries and database; figure_scaling's sample sizes)
    if config.get("figures") is not None:
        name = _setting(config, "figures.dataset")
        sizes = sized(name) if name else None
        if sizes:
            train, test, how = sizes
            for key, have, part in (("n_queries", test, "test"), ("n_database", train, "training")):
                value = _setting(config, f"figures.{key}")
                if value is not None and int(value) > have:
                    raise ConfigError(
                        f"config figures.{key}: {value} exceeds the {have} {part} samples of "
                        f"{name}'s split ({how}); give at most {have} ({MAX_ITEMS_NOTE})"
                    )
        name = _setting(config, "figures.scaling_dataset")
        sizes = sized(name) if name and not is_image_set_name(name) else None
        if sizes:
            for i, m in enumerate(_setting(config, "figures.scaling_n_samples") or []):
                if int(m) > sizes[0]:
                    raise ConfigError(
                        f"config figures.scaling_n_samples[{i}]: {m} exceeds the {sizes[0]} "
                        f"training samples of {name}'s split ({sizes[2]}); give at most "
                        f"{sizes[0]} ({MAX_ITEMS_NOTE})"
                    )
    # oahu
    oahu = config.get("oahu") or {}
    for exp in ("table3", "figure4", "figure5", "figure7"):
        if exp not in oahu:
            continue
        place = f"oahu.{exp}"
        names = list(_setting(config, f"{place}.datasets") or []) + [
            _setting(config, f"{place}.{k}") for k in ("dataset", "stand_in")
        ]
        n_samples = _setting(config, f"{place}.n_samples")
        k = _setting(config, f"{place}.k")
        for name in [n for n in names if n]:
            try:
                n, _, n_classes = get_dataset(name).paper_shape
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
        stream = int(_setting(config, "oahu.figure4.n_seeds")) + int(
            _setting(config, "oahu.figure4.n_closure")
        )
        for i, n in enumerate(_setting(config, "oahu.figure4.n_constraints") or []):
            if int(n) > stream:
                raise ConfigError(
                    f"config oahu.figure4.n_constraints[{i}]: {n} exceeds the stream of "
                    f"n_seeds + n_closure = {stream} constraints it subsamples"
                )
    if "figure7" in oahu:
        t3 = set(_setting(config, "oahu.table3.datasets") or [])
        f7 = _setting(config, "oahu.figure7.datasets") or []
        recorded = []
        if any(d in t3 for d in f7):
            recorded.append(("oahu.table3.recall_ks", _setting(config, "oahu.table3.recall_ks")))
        if any(d not in t3 for d in f7):
            recorded.append(("oahu.figure7.recall_ks", _setting(config, "oahu.figure7.recall_ks")))
        for i, kk in enumerate(_setting(config, "oahu.figure7.ks") or []):
            for where, ks in recorded:
                if kk not in (ks or []):
                    raise ConfigError(
                        f"config oahu.figure7.ks[{i}]: K = {kk} is not among {where} {ks}, the "
                        "K its cells record; the figure would show no point there"
                    )
    # images (their sets, and an image set that the convergence figures use)
    images = config.get("images")
    figure_set = (config.get("figures") or {}).get("dataset")
    figure_set = [figure_set] if figure_set and is_image_set_name(figure_set) else []
    if images or figure_set:
        n_train = int(_setting(config, "images.n_train_per_class"))
        n_test = int(_setting(config, "images.n_test_per_class"))
        per = n_train + n_test
        sources = set()
        for name in list(_setting(config, "images.datasets") if images else []) + figure_set:
            try:
                sources.add(image_set(name).source)
            except DataError:
                continue
        limits = {"fashion_mnist": FASHION_PER_CLASS, "caltech256": CALTECH256_SMALLEST_CLASS}
        for source in sorted(sources):
            if per > limits[source]:
                raise ConfigError(
                    f"config images.n_train_per_class: {n_train} + n_test_per_class {n_test} = "
                    f"{per} images per class, but a class of {source} holds {limits[source]}"
                    + (" (the smallest; fewer after min_side)" if source == "caltech256" else "")
                )
            bovw = _setting(config, f"images.bovw.{source}") or {}
            words, most = bovw.get("n_words"), bovw.get("max_descriptors", 200_000)
            if words is not None and int(words) > int(most):
                raise ConfigError(
                    f"config images.bovw.{source}.n_words: {words} words from at most "
                    f"{most} descriptors (max_descriptors); k-means needs at least as many "
                    "descriptors as words"
                )
            side = 28 if source == "fashion_mnist" else min(
                int(_setting(config, "images.caltech256.min_side")),
                int(_setting(config, "images.caltech256.max_side")),
            )
            block = bovw.get("block_size")
            if block is not None and int(block) > side:
                raise ConfigError(
                    f"config images.bovw.{source}.block_size: {block} px exceeds the "
                    f"{side} px side that every {source} image is certain to have"
                    + (" (min_side, max_side)" if source == "caltech256" else "")
                )
        sets = list(_setting(config, "images.datasets") or [])
        for i, name in enumerate(_setting(config, "images.sdca_table3_datasets") or []):
            if images and name not in sets:
                raise ConfigError(
                    f"config images.sdca_table3_datasets[{i}]: {name!r} is not in "
                    f"images.datasets {sets}, so no cell computes its column"
                )
    # performance
    if config.get("performance") is not None:
        dense = _setting(config, "performance.dense_dims") or []
        sparse = _setting(config, "performance.sparse") or []
        if not dense and not sparse:
            raise ConfigError(
                "config performance: dense_dims and sparse are both empty; the table would have "
                "no row"
            )
        for i, (d, nnz) in enumerate(sparse):
            if int(nnz) > int(d):
                raise ConfigError(
                    f"config performance.sparse[{i}]: {nnz} non-zeros per row of a {d}-d vector; "
                    f"at most d ({d})"
                )
    # table4_scaling
    scaling = config.get("table4_scaling")
    if scaling:
        rows = list((config.get("sdca_table4") or {}).get("methods") or {})
        for i, m in enumerate(_setting(config, "table4_scaling.methods") or []):
            if m not in rows:
                raise ConfigError(
                    f"config table4_scaling.methods[{i}]: {m!r} is not a row of "
                    f"sdca_table4.methods {rows}"
                )
        n_gt = int(_setting(config, "table4_scaling.n_ground_truth"))
        n_classes = int(_setting(config, "table4_scaling.n_classes"))
        n_items = n_gt + int(_setting(config, "table4_scaling.n_background"))
        d = int(_setting(config, "table4_scaling.d"))
        if n_items * d * 8 > MAX_FEATURE_BYTES:
            raise ConfigError(
                f"config table4_scaling: n_ground_truth + n_background = {n_items:,} items of "
                f"d = {d} float64 features need {n_items * d * 8 / 2**30:,.0f} GiB, more than "
                f"{MAX_FEATURE_BYTES / 2**30:.0f} GiB; lower n_background or d"
            )
        per = n_gt // n_classes
        tf = float(_setting(config, "sdca_table4.train_fraction"))
        train = _part(per, tf) if per >= 2 else 0
        if per < 4 or train < 2 or per - train < 2:
            raise ConfigError(
                f"config table4_scaling.n_classes: {n_classes} classes of {n_gt} ground-truth "
                f"items leave {per} per class; Table 4's protocol needs two training and two "
                f"test items in each (train_fraction {tf})"
            )
    # svm
    svm = config.get("svm") or {}
    if "text_notions" in svm or "datasets" in svm:
        if not _setting(config, "svm.text_notions") and not _setting(config, "svm.datasets"):
            raise ConfigError(
                "config svm: text_notions and datasets are both empty; Table 1 would have no "
                "column"
            )


def _dataset(experiment: str, name: str):
    """The dataset spec of ``name`` (an image set for the ``images`` experiment, the image
    collection of ``sdca_table4``); raises
    :class:`~tripletbench.datasets.base.DataError` for an unknown name."""
    if experiment == "images":
        from tripletbench.datasets.caltech256 import image_set

        return image_set(name)
    if experiment == "sdca_table4":  # an image collection, not a feature table
        from tripletbench.datasets.imageclef_flickr import SPEC

        if name != SPEC.name:
            raise DataError(f"unknown Table 4 collection {name!r}; expected {SPEC.name!r}")
        return SPEC
    return get_dataset(name)


def _figures_dataset(name: str, route: str | None) -> None:
    """Check ``figures.dataset``: a dataset or an image set (its per-seed image features) that
    the run's route can build; raises :class:`ConfigError` naming the key."""
    from tripletbench.datasets.caltech256 import is_image_set_name

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
    """Paths of the run CSVs of every (dataset, method) that can run: each holds the cells of
    all the experiment's seeds (rule fit_evaluate, one job per file)."""
    ok, _ = available_datasets(config, experiment, route)
    methods = config[experiment]["methods"]
    return [f"{results}/{experiment}/runs/{d}/{m}.csv" for d in ok for m in methods]
