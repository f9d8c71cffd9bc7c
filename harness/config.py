"""Checks of a validated config that the JSON schema cannot express, and the cells it implies."""

from __future__ import annotations

import functools
import itertools
import os
from pathlib import Path

from tripletbench.algorithms import make_learner
from tripletbench.datasets import get_dataset

from .experiment import algorithm_of, constraint_kind_of, param_grid
from .study import blocks as study_blocks
from .study import owner, studies


from .config_files import (  # noqa: F401 -- the config's checks, one import for the Snakefile
    ConfigError,
    check_config_size,
    check_duplicate_keys,
    check_no_templating,
    check_profiles,
    command_line_config,
    unpinned_downloads_opt_in,
)


def method_blocks(config: dict):
    """Every block of learner rows of ``config``, over every study
    (:attr:`~tripletbench.harness.study.Study.method_blocks`): yields (place, methods dict,
    pairs (experiment, dataset name)), place being the dotted config path (``<block>.<sub>``)
    used in error messages."""
    for s in studies():
        yield from s.method_blocks(config)


SCHEMA = Path(__file__).resolve().parents[1] / "workflow/schemas/config.schema.yaml"


def schema() -> dict:
    """The config's JSON schema: ``workflow/schemas/config.schema.yaml`` with every study's blocks
    (:attr:`tripletbench.harness.study.Study.schema`) and its name lists
    filled in from what is found (one source of truth): ``definitions.dataset`` from
    :data:`tripletbench.datasets.DATASETS`, the learner names of ``definitions.algorithm`` from
    :data:`tripletbench.algorithms.ALGORITHMS`, and each study's own lists
    (:attr:`tripletbench.harness.study.Study.complete_schema`)."""
    import yaml

    from tripletbench.algorithms import ALGORITHMS
    from tripletbench.datasets import DATASETS

    out = yaml.safe_load(SCHEMA.read_text())
    for s in studies():  # each study's blocks (studies/<name>/schema.yaml)
        if s.schema:
            part = yaml.safe_load(Path(s.schema).read_text())
            out["properties"].update(part.get("properties") or {})
            out["definitions"].update(part.get("definitions") or {})
    out["definitions"]["dataset"]["enum"] = sorted(DATASETS)
    out["definitions"]["algorithm"]["anyOf"][0]["enum"] = sorted(ALGORITHMS)
    for s in studies():  # a study's own name lists (Study.complete_schema)
        s.complete_schema(out)
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
    render as a YTE template) would be trusted as the schema."""
    global _SCHEMA_FILE
    import atexit
    import json
    import shutil
    import tempfile

    if _SCHEMA_FILE is None or not Path(_SCHEMA_FILE).is_file():
        folder = tempfile.mkdtemp(prefix="tripletbench-schema-")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        path = Path(folder) / "config.schema.json"
        path.write_text(json.dumps(_checks_schema(), indent=1, sort_keys=True))  # built once
        _SCHEMA_FILE = str(path)
    return _SCHEMA_FILE


def _path_text(parts) -> str:
    """A jsonschema error path as the config's dotted path (``<block>.datasets[0]``)."""
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def did_you_mean(word, options) -> str:
    """"; did you mean X?" for the option closest to ``word`` (difflib), else ""."""
    import difflib

    options = [str(o) for o in options if o is not None]
    near = difflib.get_close_matches(str(word), options, n=1, cutoff=0.6)
    return f"; did you mean {near[0]!r}?" if near else ""


def schema_error_text(err) -> str:
    """One line for a jsonschema ``ValidationError`` of the config: the dotted path of the key
    first, then what the schema expects, what the config gives and, for a misspelt key or value,
    the closest valid one (``difflib``)."""
    import re

    path = _path_text(err.absolute_path)
    kind, want, got = err.validator, err.validator_value, err.instance
    if kind == "additionalProperties" and isinstance(got, dict):
        known = sorted((err.schema.get("properties") or {}))
        patterns = list((err.schema.get("patternProperties") or {}))
        extra = [
            k for k in got if k not in known and not any(re.search(p, k) for p in patterns)
        ]
        key = extra[0] if extra else "?"
        where = f"{path}.{key}" if err.absolute_path else key
        owner = path if err.absolute_path else "the config"
        return (
            f"config {where}: unknown key{did_you_mean(key, known)} "
            f"({owner} takes: {', '.join(known) or 'no key'})"
        )
    if kind == "enum":
        shown = ", ".join(repr(v) for v in want)
        return f"config {path}: expected one of {shown}; got {got!r}{did_you_mean(got, want)}"
    if kind == "required":
        missing = err.message.split("'")[1] if "'" in err.message else err.message
        return f"config {path}.{missing}: missing (required in {path})"
    if kind == "type":
        return f"config {path}: expected {want}; got {got!r} ({type(got).__name__})"
    limits = {
        "minimum": ">=",
        "maximum": "<=",
        "exclusiveMinimum": ">",
        "exclusiveMaximum": "<",
        "minItems": "at least this many items:",
        "maxItems": "at most this many items:",
        "minLength": "a string of at least this length:",
        "minProperties": "at least this many keys:",
        "pattern": "a string matching",
        "uniqueItems": "no repeated item:",
    }
    if kind in limits:
        return f"config {path}: expected {limits[kind]} {want!r}; got {got!r}"
    return f"config {path}: {err.message}"


def check_schema(config: dict, schema_dict: dict | None = None) -> None:
    """Validate ``config`` against :func:`schema` (or ``schema_dict``) as Snakemake's
    ``validate`` does (the schema's own draft, JSON Schema 2020-12 when it names none), before
    that call, so that an error reads as one line that starts with the key's dotted path
    (:func:`schema_error_text`) instead of Snakemake's dump of the schema. Raises
    :class:`ConfigError` with the most relevant error (``jsonschema.exceptions.best_match``)
    and how many others there are."""
    import jsonschema
    from jsonschema.exceptions import best_match

    sch = schema_dict if schema_dict is not None else _checks_schema()
    cls = jsonschema.validators.validator_for(sch, default=jsonschema.Draft202012Validator)
    errors = list(cls(sch).iter_errors(config))
    if not errors:
        return
    first = best_match(errors)
    while first.context:  # anyOf / oneOf: the branch that went furthest
        first = best_match(first.context)
    more = f" ({len(errors) - 1} more error(s): fix this one and rerun)" if len(errors) > 1 else ""
    raise ConfigError(schema_error_text(first) + more)


def experiment_blocks(config: dict) -> list[str]:
    """The experiment blocks that ``config`` gives (call it before the schema fills defaults): a
    block left out plans nothing, so a config with one block runs that block's tables alone.
    The blocks are those the studies own (:func:`tripletbench.harness.study.blocks`).

    Raises :class:`ConfigError` when the config gives none of them."""
    known = study_blocks()
    on = [b for b in known if config.get(b) is not None]
    if not on:
        raise ConfigError(
            "config: no experiment block; give at least one of "
            f"{', '.join(known)} (config/examples/minimal.yaml is the smallest config)"
        )
    return on


def check_config(config: dict, libraries: bool = True) -> None:
    """Raise :class:`ConfigError` for an unknown method or hyperparameter, a value of the wrong type
    or out of range, or an unusable output folder, naming the value's full dotted config path
    (``<block>.methods.<row>.grid.C[1]``).

    Runs when the workflow starts, before any job (after the JSON schema, which checks the types
    and ranges of the experiments' own settings):

    * a decimal number where the schema means an integer (:func:`check_integers`);
    * ``results_dir``, ``figures_dir`` and ``data.cache_dir``: not empty, not the filesystem root;
      no path key (:data:`PATH_KEYS` and the studies' ``path_keys``) starting with ``~`` or
      holding ``$VAR``;
    * ``data.mirror``: a folder that exists, a ``file://`` or an http(s) URL;
    * every grid point of every learner row of every study (:func:`method_blocks`) is built and
      checked by the learner (its ``_check_params``, which starts with the checks shared by all
      learners, :meth:`tripletbench.algorithms.base.BaseLearner._check_common_params`), an
      external learner by :func:`_check_external`; ``pairs_per_triplet`` only on a pair learner
      (:func:`_check_pair_rule`); ``constraints`` only on an external learner;
    * every dataset name of those blocks is looked up (:func:`dataset_spec`; an unknown one
      raises :class:`~tripletbench.datasets.base.DataError`);
    * then each study's own checks (:attr:`~tripletbench.harness.study.Study.check`: sizes that
      must fit the data or one another, learner settings outside ``methods`` blocks, ...).

    ``libraries=False`` (the Snakefile passes it in a job's own process) is handed to the studies'
    checks: what imports an optional library (e.g. a trial fit) is left to the run's main
    process, which checked it before any job.
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
    for s in studies():
        for place, methods, datasets in s.method_blocks(config):
            for method, mcfg in methods.items():
                if not s.learner_row(place, mcfg):
                    continue  # a row the study checks itself (e.g. a feature-free embedding)
                where, algorithm = f"{place}.methods.{method}", algorithm_of(method, mcfg)
                check_method(where, algorithm, mcfg)
                if libraries:
                    cell = smallest_cell(config, place, mcfg, datasets)
                    _check_external(where, algorithm, mcfg, cell)
                _check_pair_rule(where, algorithm, mcfg)
                _check_constraints(where, algorithm, mcfg)
            for exp, name in datasets:
                dataset_spec(exp, name)
    for s in studies():
        s.check(config, libraries=libraries)


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


TRIAL_MAX_TRIPLETS = 20_000
"""The largest real cell given a start-up trial fit at its size (triplets; and at most
:data:`TRIAL_MAX_WORK` triplets x features): a larger one would make every start slow."""
TRIAL_MAX_WORK = 2_000_000


def smallest_cell(config: dict, place: str, mcfg: dict, datasets) -> tuple | None:
    """The smallest real cell of learner row ``mcfg`` of block ``place``, for the start-up trial
    fit (:func:`tripletbench.algorithms.external.check_evaluable`): ``(where, n_triplets,
    n_points, n_features, n_classes)`` of the cell with the fewest triplets per feature, or None
    when no cell's size is known before any job or the smallest is too large to try
    (:data:`TRIAL_MAX_TRIPLETS`, :data:`TRIAL_MAX_WORK`).

    Known: a block that the generic cell runner fits (a study's ``fit_blocks``: its
    ``n_triplets``, ``train_fraction`` and ``fit_fraction``) on a feature table (the dataset
    spec's ``shape``, the file's shape); the row fits at most ``max_triplets`` triplets on
    the points of the fit part (the training part when it has no grid to choose on)."""
    if not any(place in s.fit_blocks for s in studies()):
        return None
    block = _dotted(config, place) or {}
    n_con = block.get("n_triplets")
    if not n_con:
        return None
    n_con = min(n_con, mcfg.get("max_triplets") or n_con)
    many = len(param_grid(mcfg)) > 1
    cells = []
    for exp, name in datasets:
        spec = dataset_spec(exp, name)
        if not getattr(spec, "tabular", False):  # an image set, a corpus: a job computes X
            continue
        n, d, k = spec.shape
        part = block.get("train_fraction", 0.5) * (block.get("fit_fraction", 0.8) if many else 1)
        n_points = int(n * part)
        cells.append((n_con / d, (f"{place} on {name}", int(n_con), n_points, int(d), int(k))))
    if not cells:
        return None
    cell = min(cells)[1]
    if cell[1] > TRIAL_MAX_TRIPLETS or cell[1] * cell[3] > TRIAL_MAX_WORK:
        return None
    return cell


def _check_external(place: str, algorithm: str, mcfg: dict, cell: tuple | None = None) -> None:
    """An external learner (a dotted path) must be of a kind the harness can evaluate
    (:func:`tripletbench.algorithms.external.check_evaluable`: learns from labels, pairs or
    triplets, and a trial fit gives a linear metric; a second one at ``cell``, the row's smallest
    real cell, :func:`smallest_cell`); refused when the workflow starts."""
    from tripletbench.algorithms.external import check_evaluable, is_external

    if not is_external(algorithm):
        return
    try:
        check_evaluable(algorithm, mcfg.get("constraints"), mcfg.get("fixed") or {}, cell)
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


PATH_KEYS = ("results_dir", "figures_dir", "data.cache_dir")
"""Config keys whose value is a path that the workflow uses as written (Snakemake expands neither
``~`` nor ``$VAR``). ``data.mirror`` is not among them: :func:`tripletbench.datasets.base.mirror_location`
expands a leading ``~`` of a mirror folder, and a folder that does not exist is refused."""
def path_keys() -> tuple[str, ...]:
    """Every path-valued config key: :data:`PATH_KEYS` and the studies' own
    (:attr:`tripletbench.harness.study.Study.path_keys`)."""
    return PATH_KEYS + tuple(k for s in studies() for k in s.path_keys)


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

    for path in path_keys():
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
    keyword arguments directly): the first value of a failing grid
    point that fails alone (the others at their defaults); a combination whose values only fail
    together is named by its grid point."""
    fixed = mcfg.get("fixed", {}) or {}
    grid = mcfg.get("grid", {}) or {}

    def fixed_path(k):
        return f"{place}.{k}" if bare else f"{place}.fixed.{k}"

    try:
        known = make_learner(algorithm).get_params()
    except KeyError as err:
        from tripletbench.algorithms import ALGORITHMS

        hint = did_you_mean(algorithm, ALGORITHMS) if "." not in algorithm else ""
        raise ConfigError(f"config {place}: {err.args[0]}{hint}") from None
    for key in list(fixed) + list(grid):
        if key not in known:
            path = fixed_path(key) if key in fixed else f"{place}.grid.{key}"
            raise ConfigError(
                f"config {path}: {algorithm} has no hyperparameter {key!r}"
                f"{did_you_mean(key, known)} (it has {', '.join(sorted(known))})"
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


def setting(config: dict, path: str):
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


def part(n: int, fraction: float) -> int:
    """The first part of a class of ``n`` items in :func:`tripletbench.datasets.preprocess.split_per_class`:
    ``round(fraction * n)`` kept between 1 and ``n - 1``."""
    return min(max(int(round(fraction * n)), 1), n - 1)


MAX_ITEMS_NOTE = "it would be cut to what the data holds while captions state the value asked for"


def dataset_spec(experiment: str, name: str):
    """The dataset spec of ``name`` in config block ``experiment``: what the study that owns the
    block resolves it to (:attr:`~tripletbench.harness.study.Study.dataset`: an image set, a
    collection), else the dataset module of that name. Raises
    :class:`~tripletbench.datasets.base.DataError` for an unknown name."""
    try:
        spec = owner(experiment).dataset(experiment, name)
    except KeyError:
        spec = None
    return spec if spec is not None else get_dataset(name)


def available_datasets(config: dict, experiment: str, route: str) -> tuple[list[str], list[str]]:
    """(datasets that can run under ``route``, datasets that need another route or, with a
    folder ``data.mirror``, files that the mirror lacks)."""
    names = config[experiment]["datasets"]
    mirror = (config.get("data") or {}).get("mirror")
    ok = [n for n in names if dataset_spec(experiment, n).has_route(route, mirror)]
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


def __getattr__(name: str):
    """A name that moved into a study's package: found there, with a DeprecationWarning."""
    from tripletbench._moved import moved_name

    return moved_name(__name__, name)
